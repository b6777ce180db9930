"""A raw RFC 6455 client for the socket's edge cases, where a library would help too much: no
pong unless asked, a small receive buffer, a hang-up without a close frame, any frame at all.
The ordinary flows use the websockets library (tests/test_socket.py)."""

from __future__ import annotations

import base64
import json
import os
import socket
import struct
import time

TEXT, BINARY, CLOSE, PING, PONG, CONTINUATION = 0x1, 0x2, 0x8, 0x9, 0xA, 0x0


class Raw:
    def __init__(
        self,
        port: int,
        path: str,
        headers: dict | None = None,
        rcvbuf: int | None = None,
        timeout: float = 10,
    ) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if rcvbuf:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.sock.settimeout(timeout)
        self.sock.connect(("127.0.0.1", port))
        key = base64.b64encode(os.urandom(16)).decode()
        lines = [
            f"GET {path} HTTP/1.1",
            f"Host: 127.0.0.1:{port}",
            "Upgrade: websocket",
            "Connection: Upgrade",
            f"Sec-WebSocket-Key: {key}",
            "Sec-WebSocket-Version: 13",
            *(f"{k}: {v}" for k, v in (headers or {}).items()),
        ]
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        self.buf = b""
        while b"\r\n\r\n" not in self.buf:
            got = self.sock.recv(65536)
            if not got:
                break
            self.buf += got
        head, _, self.buf = self.buf.partition(b"\r\n\r\n")
        self.status = int(head.split(b" ", 2)[1])
        self.head = head.decode("latin-1")

    def send(self, opcode: int, payload: bytes, fin: bool = True) -> None:
        mask = os.urandom(4)
        n = len(payload)
        first = (0x80 if fin else 0) | opcode
        if n < 126:
            head = struct.pack("!BB", first, 0x80 | n)
        elif n < 65536:
            head = struct.pack("!BBH", first, 0x80 | 126, n)
        else:
            head = struct.pack("!BBQ", first, 0x80 | 127, n)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(head + mask + masked)

    def send_json(self, message) -> None:
        self.send(TEXT, json.dumps(message).encode())

    def _exactly(self, n: int) -> bytes:
        while len(self.buf) < n:
            got = self.sock.recv(65536)
            if not got:
                raise EOFError("the server closed the connection")
            self.buf += got
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def frame(self, timeout: float = 10) -> tuple[int, bytes]:
        """The next frame, as it comes (pings included, never answered)."""
        self.sock.settimeout(timeout)
        b0, b1 = self._exactly(2)
        n = b1 & 0x7F
        if n == 126:
            (n,) = struct.unpack("!H", self._exactly(2))
        elif n == 127:
            (n,) = struct.unpack("!Q", self._exactly(8))
        assert not b1 & 0x80, "a server's frames are never masked"
        assert b0 & 0x70 == 0, "no extension was agreed: no RSV bit"
        return b0 & 0x0F, self._exactly(n)

    def messages(self, timeout: float = 10, pong: bool = True):
        """JSON messages until the close frame; then (messages, close code)."""
        out = []
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            opcode, payload = self.frame(max(0.01, deadline - time.monotonic()))
            if opcode == TEXT:
                out.append(json.loads(payload))
            elif opcode == PING and pong:
                self.send(PONG, payload)
            elif opcode == CLOSE:
                return out, struct.unpack("!H", payload[:2])[0] if payload else 1005
        raise TimeoutError(f"no close within {timeout} s: {out[-3:]}")

    def next_json(self, timeout: float = 10) -> dict:
        while True:
            opcode, payload = self.frame(timeout)
            if opcode == TEXT:
                return json.loads(payload)
            if opcode == PING:
                self.send(PONG, payload)
            elif opcode == CLOSE:
                raise EOFError(f"closed: {payload!r}")

    def hang_up(self) -> None:
        """Gone without a close frame: a reset, as a killed client leaves it."""
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.sock.close()

    def close(self) -> None:
        self.sock.close()

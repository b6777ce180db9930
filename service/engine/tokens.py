"""Seat tokens: `<game id>.<seat>.<192 random bits>`, stored only as SHA-256, checked in constant
time. Naming the game and seat in the token lets a token of another game be told apart (403)
from a wrong one (401) without searching.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets

# ASCII digits only: "²".isdigit() is true, and int("²") raises
SEAT = re.compile(r"[0-9]{1,2}")


def new(game_id: str, seat: int) -> str:
    return f"{game_id}.{seat}.{secrets.token_urlsafe(24)}"


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def parse(token: str) -> tuple[str, int] | None:
    """(game id, seat) named by a well-formed token, else None."""
    parts = token.split(".")
    if len(parts) != 3 or not SEAT.fullmatch(parts[1]):
        return None
    return parts[0], int(parts[1])


def matches(token: str, stored_digest: str | None) -> bool:
    return stored_digest is not None and hmac.compare_digest(digest(token), stored_digest)


def _pad(idem_key: str, game_id: str, seat: int, length: int) -> bytes:
    return hmac.new(idem_key.encode(), f"{game_id}|{seat}".encode(), hashlib.sha256).digest()[
        :length
    ]


def seal(token: str, idem_key: str) -> str:
    """The token's secret part masked with a pad only the holder of the idempotency key can
    make, so that a retried create or join can return the same token without storing it."""
    game_id, seat, secret = token.split(".")
    raw = base64.urlsafe_b64decode(secret + "=" * (-len(secret) % 4))
    pad = _pad(idem_key, game_id, int(seat), len(raw))
    return bytes(a ^ b for a, b in zip(raw, pad, strict=True)).hex()


def unseal(sealed: str, idem_key: str, game_id: str, seat: int) -> str:
    raw = bytes.fromhex(sealed)
    pad = _pad(idem_key, game_id, seat, len(raw))
    secret = base64.urlsafe_b64encode(bytes(a ^ b for a, b in zip(raw, pad, strict=True)))
    return f"{game_id}.{seat}.{secret.decode().rstrip('=')}"

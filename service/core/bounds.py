"""Every bound on what a caller sends or is served, written once: the checks read these, and
the contract (service/api/openapi/) is generated from the same names, so the two cannot drift.

Patterns are written without anchors; `whole(pattern)` is the JSON Schema form (`^...$`), and
`matcher(pattern)` a compiled full match (in Python, `$` matches before a final newline, so the
checks use `fullmatch`).
"""

from __future__ import annotations

import re
from collections.abc import Callable

GAME_ID = "[0-9a-f]{16}"  # a game's id: 16 lowercase hex digits
KEY_ID = "[0-9a-f]{16}"  # a signing key's id: the first 16 hex digits of its SHA-256
HEX64 = "[0-9a-f]{64}"  # a digest, a nonce, a seed as served
SEED_IN = "[0-9a-fA-F]{64}"  # a seed a test game is given
SEED_TICKET = "[A-Za-z0-9_-]{16,64}"  # a ticket of POST /v1/seeds (token_urlsafe text)
NAME_MAX = 32  # characters of a game's, a bot's, an option's or a tie kind's name in a request
DIGITS_MAX = 15  # digits of a number written as text (a header, a query argument)
NUMBER = f"[0-9]{{1,{DIGITS_MAX}}}"  # a number written as text, as a caller may send it
OPTION_TEXT_MAX = 64  # characters of an option's value given as text
JSON_INT_MAX = 2**53  # the largest whole number every JSON reader keeps exactly
IDEMPOTENCY_KEY_MAX = 200  # characters of an Idempotency-Key (and a socket's `key`)
SOCKET_ID_MAX = 200  # characters of a socket `act` frame's id
EVENTS_PAGE_MAX = 1000  # events in one page of /events (the replay asks for whole pages)
TIES_PAGE_MAX = 500  # ties in one page of /ties
DIGITS = "[0-9]+"  # a version written as text (the id of a server-sent message)
POINTER = "(/[^/]*)+"  # a JSON Pointer (RFC 6901) of a sealed value, as an event lists them


def whole(pattern: str) -> str:
    """`pattern` anchored at both ends, as JSON Schema writes a full match."""
    return f"^{pattern}$"


def matcher(pattern: str) -> Callable[[str], re.Match[str] | None]:
    """A full match of `pattern` (never before a final newline)."""
    return re.compile(pattern).fullmatch

"""Verifiable randomness and sealed values, exactly as docs/fairness.md (version 2) says: the
commitment, the salt, the HMAC stream of each event and its ledger, the nonces and digests that
seal a hidden value, and the secret stream bots draw from.

A verifier needs only this module and an event log: `Rng(seed, game_id, salt, version)` replays
the draws of the event with that version.
"""

from __future__ import annotations

import hashlib
import hmac
import random
import secrets
import struct
from functools import lru_cache
from typing import Any, TypeVar

from .cards import SUITS

T = TypeVar("T")
_TWO64 = 2**64
_FOUR_U64 = struct.Struct(">4Q")
# randbelow(n) keeps a draw u only below the largest multiple of n that fits in 64 bits
_LIMITS = (0, *(_TWO64 - (_TWO64 % n) for n in range(1, 64)))


_INNER = bytes(x ^ 0x36 for x in range(256))
_OUTER = bytes(x ^ 0x5C for x in range(256))


@lru_cache(maxsize=64)
def _keyed(key: bytes) -> tuple[Any, Any]:
    """HMAC-SHA256's inner and outer hashes with `key` already absorbed (RFC 2104)."""
    if len(key) > 64:
        key = hashlib.sha256(key).digest()
    key = key.ljust(64, b"\0")
    return hashlib.sha256(key.translate(_INNER)), hashlib.sha256(key.translate(_OUTER))


def hmac_sha256(key: bytes, msg: bytes) -> bytes:
    """`hmac.digest(key, msg, "sha256")`, the key's padding hashed once per key instead of at
    every call: the stream of one event asks for a block per four draws."""
    return _hmac(_keyed(key), msg)


def _hmac(keyed: tuple[Any, Any], msg: bytes) -> bytes:
    inner, outer = keyed[0].copy(), keyed[1].copy()
    inner.update(msg)
    outer.update(inner.digest())
    return outer.digest()


def new_server_seed() -> bytes:
    """32 bytes from the operating system's CSPRNG."""
    return secrets.token_bytes(32)


def commitment(server_seed: bytes) -> str:
    return hashlib.sha256(server_seed).hexdigest()


def salt(client_seeds: list[str | None]) -> str:
    """SHA-256 of the seats' client seeds joined by newlines (an absent seed is the empty string)."""
    return hashlib.sha256("\n".join(s or "" for s in client_seeds).encode()).hexdigest()


class Rng:
    """The random stream of one event, and the ledger of the draws made from it."""

    def __init__(self, server_seed: bytes, game_id: str, salt: str, version: int) -> None:
        self._hashes = _keyed(server_seed)
        self._prefix = f"{game_id}|{salt}|{version}|"
        self._block = 0
        self._buffer: list[int] = []  # what is left of the current block
        self.ledger: list[dict[str, Any]] = []

    def _refill(self) -> list[int]:
        """The next block: four big-endian u64, reversed so that pop() takes them in order."""
        msg = (self._prefix + str(self._block)).encode()
        self._block += 1
        self._buffer = list(_FOUR_U64.unpack(_hmac(self._hashes, msg)))[::-1]
        return self._buffer

    def randbelow(self, n: int) -> int:
        if n < 1:
            raise ValueError("randbelow needs n >= 1")
        limit = _LIMITS[n] if n < 64 else _TWO64 - (_TWO64 % n)
        buffer = self._buffer
        while True:
            if not buffer:
                buffer = self._refill()
            u = buffer.pop()
            if u < limit:
                return u % n

    def shuffle(self, xs: list[T], why: str, deck: bool = False) -> list[T]:
        """A shuffled copy of `xs`, recorded in the ledger. `deck`: the cards were not in play
        before (a new deck, a BATAYO pack, a Roylet reshuffle), so `xs` is in canonical order."""
        out = list(xs)
        for i in range(len(out) - 1, 0, -1):
            j = self.randbelow(i + 1)
            out[i], out[j] = out[j], out[i]
        entry: dict[str, Any] = {"op": "shuffle", "input": list(xs), "output": out, "why": why}
        if deck:
            entry["deck"] = True
        self.ledger.append(entry)
        return out

    def choice(self, xs: list[T], why: str) -> T:
        """One element of `xs` at random, recorded in the ledger."""
        picked = xs[self.randbelow(len(xs))]
        self.ledger.append({"op": "choice", "input": list(xs), "output": picked, "why": why})
        return picked


def replay_ledger(
    server_seed: bytes, game_id: str, salt: str, version: int, ledger: list[dict]
) -> str | None:
    """Re-draw one event's ledger from the stream; None if it matches, else why not."""
    rng = Rng(server_seed, game_id, salt, version)
    for i, entry in enumerate(ledger):
        if not isinstance(entry, dict):
            return f"ledger entry {i} is not an object"
        op, given = entry.get("op"), entry.get("input")
        if not isinstance(given, list):
            return f"ledger entry {i}: input is not a list"
        if op == "shuffle":
            got: Any = rng.shuffle(given, "")
        elif op == "choice":
            if not given:
                return f"ledger entry {i}: choice from an empty list"
            got = rng.choice(given, "")
        else:
            return f"ledger entry {i}: unknown op {op!r}"
        if got != entry.get("output"):
            return f"ledger entry {i} ({op}, {entry.get('why')!r}): output does not match the seed"
    return None


# -- sealed values ------------------------------------------------------------------------------


def nonce(server_seed: bytes, game_id: str, version: int, pointer: str) -> bytes:
    """The opening of the value at `pointer` in event `version` (32 bytes)."""
    return hmac.digest(server_seed, f"seal|{game_id}|{version}|{pointer}".encode(), "sha256")


def digest(nonce_: bytes, canonical_value: bytes) -> str:
    """Lowercase hex SHA-256 of the nonce followed by the value's canonical JSON."""
    return hashlib.sha256(nonce_ + canonical_value).hexdigest()


_CANONICAL_ORDER = {
    f"{rank}{suit}": i * 13 + r
    for i, suit in enumerate(SUITS)
    for r, rank in enumerate(("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"))
}


def canonical_order(cards: list) -> bool:
    """Suits S, H, D, C, within a suit 2 ... A, each card at most once."""
    last = -1
    for card in cards:
        key = _CANONICAL_ORDER.get(card) if isinstance(card, str) else None
        if key is None or key <= last:
            return False
        last = key
    return True


# -- bots' whims -----------------------------------------------------------------------------------


def secret_rng(
    server_seed: bytes, game_id: str, version: int, seat: int, purpose: str
) -> random.Random:
    """What a bot, a timed-out seat's stand-in or a hint draws from at `version`: derived from
    the server seed, so nobody can predict it from public data, and the same for the same game
    (a simulation replays from its seed)."""
    key = hmac.digest(server_seed, f"{purpose}|{game_id}|{version}|{seat}".encode(), "sha256")
    return random.Random(key)  # noqa: S311 - a player's whim, not the game's chance

"""docs/fairness.md version 2 read literally, with the standard library only: the checks a verifier
makes without the rules, and what a forger who knows the revealed seed would do to rebuild
every digest and hash after changing a log. The service's own code is never used here, so
where the two agree, the service agrees with the page."""

from __future__ import annotations

import hashlib
import hmac
import json
import struct
from typing import Any

GENESIS = "0" * 64
ORDER = [
    r + s
    for s in "SHDC"
    for r in ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
]


def canonical(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def tokens(pointer: str) -> list[str]:
    return [t.replace("~1", "/").replace("~0", "~") for t in pointer.split("/")[1:]]


def at(doc: Any, pointer: str) -> Any:
    for t in tokens(pointer):
        doc = doc[int(t)] if isinstance(doc, list) else doc[t]
    return doc


def put(doc: Any, pointer: str, value: Any) -> None:
    *path, last = tokens(pointer)
    for t in path:
        doc = doc[int(t)] if isinstance(doc, list) else doc[t]
    if isinstance(doc, list):
        doc[int(last)] = value
    else:
        doc[last] = value


def nonce(seed: bytes, game_id: str, version: int, pointer: str) -> bytes:
    return hmac.new(seed, f"seal|{game_id}|{version}|{pointer}".encode(), hashlib.sha256).digest()


def sealed_form(event: dict) -> dict:
    """The event without hash and openings, each sealed value as {"sealed": digest}: a value in
    clear is digested with its opening."""
    form = json.loads(json.dumps({k: v for k, v in event.items() if k not in ("hash", "openings")}))
    for p in event["sealed"]:
        value = at(event, p)
        if p in event.get("openings", {}):
            n = bytes.fromhex(event["openings"][p])
            put(form, p, {"sealed": hashlib.sha256(n + canonical(value)).hexdigest()})
    return form


def event_hash(event: dict) -> str:
    return hashlib.sha256(canonical(sealed_form(event))).hexdigest()


class Stream:
    def __init__(self, seed: bytes, game_id: str, salt: str, version: int) -> None:
        self.seed, self.msg, self.k, self.words = seed, f"{game_id}|{salt}|{version}|", 0, []

    def u(self) -> int:
        if not self.words:
            block = hmac.new(self.seed, f"{self.msg}{self.k}".encode(), hashlib.sha256).digest()
            self.words, self.k = list(struct.unpack(">4Q", block)), self.k + 1
        return self.words.pop(0)

    def below(self, n: int) -> int:
        limit = 2**64 - 2**64 % n
        while (u := self.u()) >= limit:
            pass
        return u % n

    def shuffle(self, xs: list) -> list:
        xs = list(xs)
        for i in range(len(xs) - 1, 0, -1):
            j = self.below(i + 1)
            xs[i], xs[j] = xs[j], xs[i]
        return xs


def check(events: list[dict]) -> tuple[str, int | None]:
    """('ok', None), ('incomplete', None), or ('failed', first bad version): the page's checks
    without the rules."""
    prev = GENESIS
    for i, e in enumerate(events, 1):
        if e["version"] != i or e["prev"] != prev or e["hash"] != event_hash(e):
            return "failed", i
        for p in e["sealed"]:
            if p not in e.get("openings", {}) and set(at(e, p)) != {"sealed"}:
                return "failed", i
        prev = e["hash"]
    first, last = events[0]["data"], events[-1]
    if last["type"] != "ended":
        return "incomplete", None
    seed = bytes.fromhex(last["data"]["server_seed"])
    if hashlib.sha256(seed).hexdigest() != first["seed_commitment"]:
        return "failed", last["version"]
    seeds = [s.get("client_seed") or "" for s in first["seats"]]
    salt = None
    for e in events:
        for p, n in e.get("openings", {}).items():
            if n != nonce(seed, first["id"], e["version"], p).hex():
                return "failed", e["version"]
        if len(e.get("openings", {})) != len(e["sealed"]):
            return "failed", e["version"]
        d = e["data"]
        if e["type"] == "seat_taken":
            seeds[d["seat"]] = d.get("client_seed") or ""
        if "salt" in d and salt is None:
            salt = hashlib.sha256("\n".join(seeds).encode()).hexdigest()
            if d["client_seeds"] != seeds or d["salt"] != salt:
                return "failed", e["version"]
        stream = Stream(seed, first["id"], salt or "", e["version"])
        for entry in d.get("rng", []):
            if entry.get("deck"):
                keys = [ORDER.index(c) if c in ORDER else -1 for c in entry["input"]]
                if -1 in keys or keys != sorted(set(keys)):
                    return "failed", e["version"]
            if entry["op"] == "shuffle":
                got = stream.shuffle(entry["input"])
            else:
                got = entry["input"][stream.below(len(entry["input"]))]
            if got != entry["output"]:
                return "failed", e["version"]
    return "ok", None


def reseal(events: list[dict], start: int = 1) -> None:
    """The forger: after changing values in a finished game's log, rebuild every opening's
    digest and every hash from version `start` on (the seed is public by then)."""
    prev = events[start - 2]["hash"] if start > 1 else GENESIS
    for e in events[start - 1 :]:
        e["prev"] = prev
        e["hash"] = event_hash(e)
        prev = e["hash"]

"""Check a game's log as docs/fairness.md says, with nothing but the log: the chain over each
event's sealed form and every opening given; once the game has ended, the seed against its
commitment, every nonce, the client seeds and the salt, every draw, every deck's canonical
order. Then, with the rules (`refold`), the play itself.

Used by `GET /v1/games/{id}/verify` and, on an exported file, by `batayo verify`. Logs of
version 1 (no `fairness` in their first event) are checked as version 1 said.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from . import bounds
from .chain import GENESIS, canonical, event_hash
from .command import FRAMEWORK_FIELDS
from .fairness import canonical_order, digest, nonce, replay_ledger, salt
from .refold import Failed, refold
from .registry import GAMES
from .sealing import chain_hash, get, replaced
from .shapes import ShapeError
from .strict import canonical_at, is_int

HEX64 = bounds.matcher(bounds.HEX64)
POINTER = re.compile(r"^/data(/([^~/]|~[01])*)+$")
MALFORMED = (KeyError, IndexError, TypeError, ValueError, AttributeError, RecursionError)


def verify(
    events: Any, rules: bool = True, linked: tuple[int, str, int] = (0, GENESIS, 0)
) -> dict[str, Any]:
    """`status` ok, v1 (a log of fairness version 1, sound as far as version 1 can say:
    never `ok`), incomplete (the log stops before its end: what it holds was checked) or
    failed, with the first failing `version` and `reason`, and what was checked.

    `linked` resumes the chain of a log checked before (docs/fairness.md version 2): how many of
    these very events were linked, the last one's hash and the openings they gave; the caller
    vouches that those events are the same as then (a log in play only grows)."""
    report: dict[str, Any] = {
        "status": "ok",
        "ok": True,
        "version": None,
        "reason": None,
        "fairness": None,
        "events": 0,
        "seed_revealed": False,
        "test_game": False,
        "checked": {
            "chain": 0,
            "openings": 0,
            "nonces": 0,
            "draws": 0,
            "decks": 0,
            "client_seeds": False,
            "play": 0,
        },
    }
    try:
        if not isinstance(events, list) or not events:
            raise Failed(None, "no events")
        report["events"] = len(events)
        try:
            _check(events, report, rules, linked)
        except MALFORMED as exc:  # UnicodeError is a ValueError
            raise Failed(report["checked"]["chain"] + 1, f"a malformed event ({exc!r})") from None
    except Failed as failed:
        report.pop("no_causes", None)
        report.update(status="failed", ok=False, version=failed.version, reason=failed.reason)
        return report
    no_causes = report.pop("no_causes", False)
    if not report["seed_revealed"]:
        report.update(status="incomplete", ok=False, reason="the game has not ended yet")
    elif report["fairness"] == 1:
        reason = "a log of fairness version 1: its hidden values were never sealed"
        if no_causes:
            reason += "; it records no causes, so its play was not refolded"
        report.update(status="v1", ok=False, reason=reason)
    report["draws_checked"] = report["checked"]["draws"]  # the name of version 1's report
    return report


def _check(events: list, report: dict, rules: bool, linked: tuple[int, str, int]) -> None:
    first = events[0]
    if not isinstance(first, dict) or not isinstance(first.get("data"), dict):
        raise Failed(1, "not an event")
    if first.get("type") != "created":
        raise Failed(1, "the first event is not `created`")
    version = first["data"].get("fairness", 1)
    if "fairness" in first["data"] and not (is_int(version) and version == 2):
        raise Failed(1, f"unknown fairness version {version!r}")
    report["fairness"] = version
    report["test_game"] = first["data"].get("test") is True
    if version == 1:
        return _check_v1(events, report, rules)
    game_id = first["data"].get("id")
    done, prev, report["checked"]["openings"] = linked
    report["checked"]["chain"] = done
    for i in range(done + 1, len(events) + 1):
        prev = _link(events[i - 1], i, prev, report)
    seed = _seed(events, report)
    if seed is None:
        return
    for event in events:
        for p, given in event.get("openings", {}).items():
            if given != nonce(seed, game_id, event["version"], p).hex():
                raise Failed(event["version"], f"the opening of {p} is not the seed's nonce")
            report["checked"]["nonces"] += 1
        if len(event.get("openings", {})) != len(event["sealed"]):
            raise Failed(event["version"], "a sealed value is still closed after the end")
    _client_seeds(events, report)
    _ledgers(events, seed, game_id, report)
    _shapes(events)
    if rules:
        refold(events, seed, report)


def _placed(event: Any, i: int, prev: str) -> None:
    """An event at version `i` right after the event whose hash is `prev` (both versions)."""
    if not isinstance(event, dict) or not isinstance(event.get("data"), dict):
        raise Failed(i, "not an event")
    if not is_int(event.get("version")) or event["version"] != i:
        raise Failed(i, f"expected version {i}, found {event.get('version')!r}")
    if event.get("prev") != prev:
        raise Failed(i, "prev does not match the hash of the event before")
    if not canonical_at(event.get("at")):
        raise Failed(i, f"`at` {event.get('at')!r} is not a time as the server writes it")


def _link(event: Any, i: int, prev: str, report: dict) -> str:
    """Check one event's place in the chain and its openings; its hash."""
    _placed(event, i, prev)
    sealed, openings = event.get("sealed"), event.get("openings", {})
    if not isinstance(sealed, list) or not isinstance(openings, dict):
        raise Failed(i, "sealed must be a list and openings an object")
    if len(set(sealed)) != len(sealed) or not set(openings) <= set(sealed):
        raise Failed(i, "sealed lists a pointer twice, or openings names one it does not list")
    for p in sealed:
        if not isinstance(p, str) or not POINTER.match(p):
            raise Failed(i, f"{p!r} is not a pointer under /data")
        if any(q != p and (q + "/").startswith(p + "/") for q in sealed):
            raise Failed(i, f"{p} is a prefix of another sealed pointer")
    digests = {}
    for p in sealed:
        try:
            value = get(event, p)
        except (KeyError, IndexError, ValueError, TypeError):
            raise Failed(i, f"sealed pointer {p} names no value") from None
        if p in openings:
            given = openings[p]
            if not isinstance(given, str) or not HEX64(given):
                raise Failed(i, f"the opening of {p} is not 64 hex digits")
            digests[p] = {"sealed": digest(bytes.fromhex(given), canonical(value))}
            report["checked"]["openings"] += 1
        elif _is_seal(value):
            digests[p] = value
        else:
            raise Failed(i, f"{p} is in clear without its opening")
    form = replaced({k: v for k, v in event.items() if k not in ("hash", "openings")}, digests)
    if event.get("hash") != chain_hash(form):
        raise Failed(
            i, "hash does not match the event's sealed form (a value or an opening changed)"
        )
    report["checked"]["chain"] += 1
    return event["hash"]


def _is_seal(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and set(value) == {"sealed"}
        and isinstance(value["sealed"], str)
        and bool(HEX64(value["sealed"]))
    )


def _seed(events: list, report: dict) -> bytes | None:
    """The revealed seed, once the `ended` event is there and last; else None (incomplete)."""
    commitment = events[0]["data"].get("seed_commitment")
    ended = [e["version"] for e in events if e.get("type") == "ended"]
    if not ended:
        return None
    if ended[0] != len(events):
        raise Failed(ended[0] + 1, "events follow the `ended` event")
    last = events[-1]["data"]
    try:
        seed = bytes.fromhex(last.get("server_seed"))
    except (TypeError, ValueError):
        raise Failed(len(events), "server_seed is not hex") from None
    if hashlib.sha256(seed).hexdigest() != commitment:
        raise Failed(len(events), "server_seed does not match the commitment of event 1")
    report["seed_revealed"] = True
    return seed


def _client_seeds(events: list, report: dict) -> None:
    """The start event's client seeds are those the seats were taken with; the salt is theirs."""
    seats = events[0]["data"].get("seats")
    if not isinstance(seats, list):
        raise Failed(1, "the created event lists no seats")
    recorded = [(s.get("client_seed") or "") if isinstance(s, dict) else "" for s in seats]
    for event in events:
        data = event["data"]
        if event["type"] == "seat_taken":
            seat = data.get("seat")
            if not is_int(seat) or not 0 <= seat < len(recorded):
                raise Failed(event["version"], "a seat taken that the game does not have")
            recorded[seat] = data.get("client_seed") or ""
        if "salt" in data:
            if data.get("client_seeds") != recorded:
                raise Failed(
                    event["version"], "client_seeds are not those the seats were taken with"
                )
            if data["salt"] != salt(recorded):
                raise Failed(event["version"], "salt is not SHA-256 of the client seeds")
            report["checked"]["client_seeds"] = True
            return
    raise Failed(None, "the game never started: no event records the client seeds")


def _ledgers(events: list, seed: bytes, game_id: str, report: dict) -> None:
    """Every draw comes out of the stream again; every deck was in canonical order (v2)."""
    game_salt = next((e["data"]["salt"] for e in events if "salt" in e["data"]), "")
    for event in events:
        ledger = event["data"].get("rng")
        if not ledger:
            continue
        if not isinstance(ledger, list):
            raise Failed(event["version"], "rng is not a list")
        for entry in ledger if report["fairness"] != 1 else ():
            if isinstance(entry, dict) and entry.get("deck"):
                if not canonical_order(entry.get("input") or []):
                    raise Failed(
                        event["version"], f"a deck ({entry.get('why')!r}) not in canonical order"
                    )
                report["checked"]["decks"] += 1
        problem = replay_ledger(seed, game_id, game_salt, event["version"], ledger)
        if problem:
            raise Failed(event["version"], problem)
        report["checked"]["draws"] += len(ledger)


def _shapes(events: list) -> None:
    """Every field of every event, in clear, is what its game declares (a card is a card that
    exists, a seat a whole number): the rules' replay would find the same, and this holds for a
    log the rules cannot replay (version 1's before causes were recorded) too."""
    game = GAMES.get(events[0]["data"].get("game"))
    if game is None:
        raise Failed(1, f"unknown game {events[0]['data'].get('game')!r}")
    for event in events[1:]:
        declared = game.events.get(event.get("type"))
        if declared is None:
            if event.get("type") in ("seat_taken", "ended"):
                continue  # the framework's own events: their values are checked elsewhere
            raise Failed(event["version"], f"{game.name} writes no event {event.get('type')!r}")
        data = event["data"]
        extra = data.keys() - declared.fields.keys() - FRAMEWORK_FIELDS
        if extra:
            raise Failed(event["version"], f"fields its game does not declare: {sorted(extra)}")
        for name, shape in declared.fields.items():
            if name in data:
                try:
                    shape.check(data[name], name)
                except ShapeError as exc:
                    raise Failed(event["version"], f"not what the game writes: {exc}") from None


def _check_v1(events: list, report: dict, rules: bool = True) -> None:
    """Version 1: the chain over the clear events, the commitment, the salt, every draw; once
    it has ended every value against its game's declarations, and the play with the rules
    (every batch a version 1 log recorded the cause of: those written before version 2 have
    none, and a log whose first event records none is reported with its play not checked)."""
    prev = GENESIS
    game_id = events[0]["data"].get("id")
    commitment = events[0]["data"].get("seed_commitment")
    seed = None
    for i, event in enumerate(events, start=1):
        _placed(event, i, prev)
        if event.get("hash") != event_hash(event):
            raise Failed(i, "hash does not match the event's content")
        prev = event["hash"]
        report["checked"]["chain"] += 1
        data = event["data"]
        if "salt" in data and data["salt"] != salt(data.get("client_seeds") or []):
            raise Failed(i, "salt is not SHA-256 of the client seeds")
        if "server_seed" in data:
            try:
                seed = bytes.fromhex(data["server_seed"])
            except (TypeError, ValueError):
                raise Failed(i, "server_seed is not hex") from None
            if hashlib.sha256(seed).hexdigest() != commitment:
                raise Failed(i, "server_seed does not match the commitment of event 1")
            report["seed_revealed"] = True
    if seed is None:
        return
    _ledgers(events, seed, game_id, report)
    _shapes(events)
    if rules and "cause" in events[0]["data"]:
        refold(events, seed, report, fairness=1)
    elif rules:
        report["no_causes"] = True  # taken out of the report by `verify`

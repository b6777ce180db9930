"""Check a game's log with nothing but the log and FAIRNESS.md: the hash chain, the seed
commitment, the salt, and (once the seed is revealed) every draw in every ledger.

Used by `GET /v1/games/{id}/verify` and, on an exported file, by `batayo verify`.
"""

from __future__ import annotations

import hashlib
from typing import Any

from .chain import GENESIS, event_hash
from .fairness import replay_ledger, salt


def verify(events: list[dict]) -> dict[str, Any]:
    """`ok`, or the first failing `version` and `reason`; with what was checked."""
    report: dict[str, Any] = {
        "ok": True,
        "version": None,
        "reason": None,
        "events": len(events),
        "draws_checked": 0,
        "seed_revealed": False,
        "test_game": False,
    }

    def fail(version: Any, reason: str) -> dict[str, Any]:
        report.update(ok=False, version=version, reason=reason)
        return report

    prev = GENESIS
    game_id = commitment = game_salt = seed = None
    for i, event in enumerate(events, start=1):
        if not isinstance(event, dict) or not isinstance(event.get("data"), dict):
            return fail(i, "not an event")
        if event.get("version") != i:
            return fail(i, f"expected version {i}, found {event.get('version')!r}")
        if event.get("prev") != prev:
            return fail(i, "prev does not match the hash of the event before")
        if event.get("hash") != event_hash(event):
            return fail(i, "hash does not match the event's content")
        prev = event["hash"]
        data = event["data"]
        if i == 1:
            if event.get("type") != "created":
                return fail(i, "the first event is not `created`")
            game_id, commitment = data.get("id"), data.get("seed_commitment")
            report["test_game"] = bool(data.get("test"))
        if "salt" in data:
            if data["salt"] != salt(data.get("client_seeds") or []):
                return fail(i, "salt is not SHA-256 of the client seeds")
            game_salt = data["salt"]
        if "server_seed" in data:
            try:
                seed = bytes.fromhex(data["server_seed"])
            except (TypeError, ValueError):
                return fail(i, "server_seed is not hex")
            if hashlib.sha256(seed).hexdigest() != commitment:
                return fail(i, "server_seed does not match the commitment of event 1")
            report["seed_revealed"] = True
    if seed is None:
        return report
    for event in events:
        ledger = event["data"].get("rng")
        if not ledger:
            continue
        if not isinstance(ledger, list):
            return fail(event["version"], "rng is not a list")
        problem = replay_ledger(seed, game_id, game_salt or "", event["version"], ledger)
        if problem:
            return fail(event["version"], problem)
        report["draws_checked"] += len(ledger)
    return report

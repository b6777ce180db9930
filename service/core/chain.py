"""The event hash chain of docs/fairness.md: canonical JSON and SHA-256 links."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import orjson

GENESIS = "0" * 64


def canonical(obj: Any) -> bytes:
    """Canonical JSON: keys sorted, separators `,` and `:`, UTF-8, no ASCII escaping.

    orjson writes these very bytes for what events hold (str keys, integers of 64 bits, strings,
    booleans, null; tests/test_chain_canonical.py), faster (docs/architecture.md#measured-shortcuts);
    what it refuses (a key that is not a string, a larger integer) goes to `json.dumps`, the
    reference."""
    try:
        return orjson.dumps(obj, option=orjson.OPT_SORT_KEYS)
    except TypeError:
        return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def event_hash(event: dict) -> str:
    """Lowercase hex SHA-256 of the canonical JSON of the event without its `hash` field."""
    body = {k: v for k, v in event.items() if k != "hash"}
    return hashlib.sha256(canonical(body)).hexdigest()


def seal(version: int, type_: str, at: str, actor: Any, data: dict, prev: str) -> dict:
    """A complete event, linked to `prev` and hashed."""
    event = {
        "version": version,
        "type": type_,
        "at": at,
        "actor": actor,
        "data": data,
        "prev": prev,
    }
    event["hash"] = event_hash(event)
    return event

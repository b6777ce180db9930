"""Idempotency keys: a retried create, join or action returns its first answer.

A create's or join's key is scoped to the client (its address), an action's to the seat: the
answer holds tokens or a seat's own cards, so a key guessed by someone else must not replay it
to them. Tokens are never stored: a replay unseals them with the key (`tokens.seal`).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from ..core.game import RuleError
from . import tokens


class IdempotencyMismatch(Exception):
    """The key was used before with another body."""


def fingerprint(body: Any) -> str:
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


def scoped(idem_key: str, scope: str) -> str:
    return hashlib.sha256(f"{scope}|{idem_key}".encode()).hexdigest()


def check(prior: dict, fp: str) -> None:
    if prior.get("fp") != fp:
        raise IdempotencyMismatch("this Idempotency-Key was used with another body")


def replay_create(prior: dict, fp: str, idem_key: str) -> dict:
    check(prior, fp)
    if "answer" not in prior:
        raise RuleError("request_in_progress", "the first request with this key is running", 409)
    answer = json.loads(json.dumps(prior["answer"]))
    for seat in answer["seats"]:
        sealed = prior["tokens"].get(str(seat["seat"]))
        if sealed:
            seat["token"] = tokens.unseal(sealed, idem_key, prior["id"], seat["seat"])
    return answer


def create_record(fp: str, game_id: str, sealed_tokens: dict, answer: dict | None = None) -> dict:
    record: dict[str, Any] = {"fp": fp, "id": game_id, "tokens": sealed_tokens}
    if answer is not None:
        record["answer"] = {
            **answer,
            "seats": [{k: v for k, v in s.items() if k != "token"} for s in answer["seats"]],
        }
    return record


def replay_join(game_id: str, prior: dict, fp: str, idem_key: str) -> dict:
    check(prior, fp)
    answer = prior["answer"]
    return {**answer, "token": tokens.unseal(prior["token"], idem_key, game_id, answer["seat"])}

"""The jobs the engine enqueues. Each acts through the engine at the version it was scheduled
for, so running one twice, late, or out of order changes nothing."""

from __future__ import annotations

from functools import cache

from service.config import build_engine
from service.engine import Engine


@cache
def engine() -> Engine:
    """One engine per worker process, from the environment (REDIS_URL)."""
    return build_engine()


def bot_moves(game_id: str, version: int) -> str:
    return engine().bot_moves(game_id, version)


def fire_timer(game_id: str, key: str) -> str:
    return engine().fire_timer(game_id, key)


def sweep(again_in_s: int = 0) -> int:
    return engine().sweep(again_in_s)


def audit(game_id: str) -> str:
    return engine().audit(game_id)


def compute_hint(game_id: str, version: int, seat: int) -> str:
    return engine().compute_hint(game_id, version, seat)

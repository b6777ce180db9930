"""Settings from the environment, read the same way by every layer: a flag, a count or number
of at least 0 (a value that is not one gives the default), a number of seconds or "off"."""

from __future__ import annotations

import os

TRUE = frozenset({"1", "true", "yes", "on"})
OFF = frozenset({"off", "never", "none"})


def flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in TRUE


def number(name: str, default: float) -> float:
    return _at_least_zero(name, default, float)


def integer(name: str, default: int) -> int:
    return _at_least_zero(name, default, int)


def _at_least_zero(name: str, default, kind: type):
    raw = os.environ.get(name, "").strip()
    try:
        return max(kind(0), kind(raw)) if raw else default
    except ValueError:
        return default


def seconds(name: str, default: float) -> float | None:
    """A number of seconds (0 or more), or None for "off"; anything else is refused."""
    raw = os.environ.get(name, "").strip().lower()
    if raw in OFF:
        return None
    value = float(raw) if raw else default
    if value < 0:
        raise ValueError(f"{name} must be a number of seconds (0 or more) or 'off'")
    return value

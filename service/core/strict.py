"""What the verifiers compare, compared strictly: JSON's kinds kept apart (`false` is not `0`,
`6.0` is not `6`, as Python's `==` would have them), and the one spelling of a time events use.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

# the server's clock (`times.utc_now`): UTC, microseconds, `T` and `Z`, ASCII digits only
AT = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z$")
AT_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"


def canonical_at(value: Any) -> bool:
    """Whether `value` is a time exactly as the server writes it, `2026-01-01T00:00:05.000000Z`
    (so that times compare as strings, and a clock's due time against them)."""
    if not isinstance(value, str) or not AT.match(value):
        return False
    try:
        datetime.strptime(value, AT_FORMAT)
    except ValueError:  # a month 13, a 30 February
        return False
    return True


def is_int(value: Any) -> bool:
    """An integer of JSON: neither a boolean nor a float with no fraction."""
    return type(value) is int


def _kind(value: Any) -> type:
    return list if type(value) is tuple else type(value)


def same(a: Any, b: Any) -> bool:
    """`a == b` with every value's kind the same too, at every depth (a tuple the rules wrote
    is the list JSON reads back)."""
    if _kind(a) is not _kind(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(v, b[k]) for k, v in a.items())
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return a == b

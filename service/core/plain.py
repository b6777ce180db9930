"""Text a person types that others see: seat names and client seeds, with their limits.

The API refuses in them, and `batayo replay` strips from what it prints: the controls (Cc: a
terminal obeys them; a newline in a seed would let two sets of seeds give one salt,
docs/fairness.md), the line and paragraph separators (Zl, Zp) and the bidirectional controls
(of Cf), which reorder the text around them. The other format characters stay (the joiners of
emoji and many scripts, the soft hyphen, the tags of subdivision flags).
"""

from __future__ import annotations

import re

# one character class, as Python's `re` and JSON Schema's (ECMA-262) regular expressions read it
CONTROLS = r"\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
PATTERN = f"^[^{CONTROLS}]*$"  # for JSON Schema: in Python, `$` matches before a final "\n"
NAME_MAX = 40
CLIENT_SEED_MAX = 64
REFUSED = "control characters (C0, C1, DEL), line or paragraph separators, bidi controls"
DESCRIPTION = (
    "Refused (400) if it holds a control character (C0, C1, DEL), a line or paragraph "
    "separator (U+2028, U+2029) or a bidirectional control; any other Unicode text is kept."
)

_CONTROL = re.compile(f"[{CONTROLS}]")


def is_plain(text: str) -> bool:
    return _CONTROL.search(text) is None


def stripped(text: str) -> str:
    """`text` without the characters a name may not have, for a terminal."""
    return _CONTROL.sub("", text)


def stripped_all(value: object) -> object:
    """A JSON value with every string in it (keys too) `stripped`."""
    if isinstance(value, str):
        return stripped(value)
    if isinstance(value, dict):
        return {stripped_all(k): stripped_all(v) for k, v in value.items()}
    if isinstance(value, list):
        return [stripped_all(v) for v in value]
    return value

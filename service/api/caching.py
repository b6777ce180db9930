"""HTTP validators and caching for the game's reads and writes (docs/api.md#conventions).

A game's read is tagged with its version (a strong ETag) and says `Vary: Authorization`;
`If-None-Match` (weak comparison, RFC 9110 13.1.2) answers 304 on the current tag, `If-Match`
on an action compares strongly (RFC 9110 13.1.1), and what can no longer change may be kept
for good (`public` for a spectator, `private` with a token); anything else is `no-cache`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from flask import Response, request
from werkzeug.http import parse_etags

from .http import ok
from .problems import Problem
from .schemas import DIGITS_PATTERN, whole_number

IMMUTABLE_S = 365 * 24 * 3600


def cache_control(seat_token: bool, immutable: bool) -> str:
    scope = "private" if seat_token else "public"
    if immutable:
        return f"{scope}, max-age={IMMUTABLE_S}, immutable"
    return "private, no-cache" if seat_token else "no-cache"


def read(body: Any, version: int, immutable: bool, **more: str) -> Response:
    """A game's read as JSON with its validators; 304 if the client holds this version."""
    tag = str(version)
    headers = {
        "ETag": f'"{tag}"',
        "Cache-Control": cache_control("Authorization" in request.headers, immutable),
        "Vary": "Authorization",
        **more,
    }
    held = parse_etags(request.headers.get("If-None-Match"))
    if held.contains_weak(tag) or held.star_tag:
        response = Response(status=304)
        response.headers.update(headers)
        return response
    return ok(body, **headers)


_TAG = re.compile(r'^(W/)?"([\x21\x23-\x7e]*)"$|' + f"({DIGITS_PATTERN})")


def if_match(header: str | None, current: Callable[[], int]) -> int | None:
    """The version an action must apply at, from `If-Match` (None: no condition). `current()`
    reads the game's version, needed only for a list of several tags. A header naming no strong
    tag of a version gives -1, a version no game is at: the engine refuses with 412. Malformed
    is a 400 (a bare version, `12`, is taken as `"12"`)."""
    if header is None or header.strip() == "*":
        return None
    strong = set()
    for item in header.split(","):
        match = _TAG.match(item.strip())
        if match is None:
            raise Problem(400, "invalid_request", 'If-Match takes entity tags: "12", "11", "12"')
        weak, tag, bare = match.groups()
        tag = bare or tag
        if not weak and (version := whole_number(tag)) is not None:
            strong.add(version)
    if len(strong) == 1:
        return strong.pop()
    if strong and (now := current()) in strong:
        return now
    return -1

"""Compressed answers: brotli or gzip, as the request's `Accept-Encoding` prefers, for bodies
of at least `MIN_SIZE` bytes. Never a stream (`text/event-stream` must reach the client event by
event) nor a file the web pages send as is.

brotli (Google's own bindings), when the client takes it: at quality 4 a page of 100 events or a
finished game's log comes out about 0.9 times the size of gzip at level 6, in about half its
time; a seat's view (1.5 KB) about the same size (`python bench/compression.py`, ratios
measured in one run). gzip is the standard library's.
"""

from __future__ import annotations

import gzip

import brotli
from flask import Flask, Response, request
from werkzeug.datastructures import Accept
from werkzeug.http import parse_accept_header

from .http import vary_on

MIN_SIZE = 1024
BROTLI_QUALITY = 4
GZIP_LEVEL = 6
COMPRESSIBLE = ("application/json", "application/problem+json", "text/plain")


def encode(body: bytes, coding: str) -> bytes:
    if coding == "br":
        return brotli.compress(body, quality=BROTLI_QUALITY)
    return gzip.compress(body, compresslevel=GZIP_LEVEL, mtime=0)


def chosen(accept: str | None) -> str | None:
    """The coding to answer with: the client's preference among br and gzip, if any."""
    if not accept:
        return None
    offered = parse_accept_header(accept, Accept)
    br, gz = offered.quality("br"), offered.quality("gzip")
    if br > 0 and br >= gz:
        return "br"
    return "gzip" if gz > 0 else None


def compressed(body: bytes, accept: str | None, method: str) -> tuple[bytes, str | None]:
    """A compressible answer's body as the request accepts it, and its coding (None: as is)."""
    if len(body) < MIN_SIZE or method == "HEAD":
        return body, None
    coding = chosen(accept)
    return (body, None) if coding is None else (encode(body, coding), coding)


def install(app: Flask) -> None:
    @app.after_request
    def _compress(response: Response) -> Response:
        if (
            response.mimetype not in COMPRESSIBLE
            or response.is_streamed
            or response.direct_passthrough
            or "Content-Encoding" in response.headers
        ):
            return response
        vary_on(response, "Accept-Encoding")
        body, coding = compressed(
            response.get_data(), request.headers.get("Accept-Encoding"), request.method
        )
        if coding is not None:
            response.set_data(body)
            response.headers["Content-Encoding"] = coding
        return response

"""The hottest route, `POST /v1/games/{id}/actions`, answered as plain WSGI in front of Flask.

It answers with the route's own code (`acted`: the same checks, rate limits, compression and
metrics) and gives Flask's answer byte for byte. What it does not take, every refusal, and a
failure once the engine was called go to Flask, and an action is never tried twice:
docs/architecture.md#the-path-of-an-action.
"""

from __future__ import annotations

import io
import re
import time
from collections.abc import Callable, Iterable
from typing import Any

import orjson
from flask import Flask, Response, g

from ..core import bounds
from .compression import compressed
from .encoding import dumps
from .http import REFUSALS, checked_key, seat_for, short_body
from .limits import COUNTED
from .play import acted
from .problems import Problem
from .schemas import whole_number

ROUTE = re.compile(f"/v1/games/({bounds.GAME_ID})/actions")
RULE = "/v1/games/<game_id>/actions"  # its name in the request metrics, as Flask's rule

Environ = dict[str, Any]
StartResponse = Callable[..., Any]


class Direct:
    def __init__(self, app: Flask, flask_wsgi: Callable[[Environ, StartResponse], Iterable[bytes]]):
        self.app, self.flask = app, flask_wsgi
        self.engine = app.extensions["batayo.engine"]
        self.limits = app.extensions["batayo.limits"]
        # the request metric's series for an answered action, looked up once
        self.answered = app.extensions["batayo.requests"].labels("POST", RULE, "200")
        self.took = app.extensions["batayo.durations"].labels("POST", RULE)

    def __call__(self, environ: Environ, start_response: StartResponse) -> Iterable[bytes]:
        match = environ["REQUEST_METHOD"] == "POST" and ROUTE.fullmatch(environ["PATH_INFO"])
        length = self._length(environ) if match else None
        if length is None:
            return self.flask(environ, start_response)
        started = time.perf_counter()
        try:
            raw = environ["wsgi.input"].read(length)
        except (OSError, ValueError):  # the client went away mid-body (gevent raises)
            raw = None
        authorization = environ.get("HTTP_AUTHORIZATION")
        refused, rate = self.limits.check(
            environ["PATH_INFO"], environ.get("REMOTE_ADDR"), authorization
        )
        if refused is not None:
            return self._through_flask(environ, start_response, refused, rate)
        if raw is None or len(raw) != length:  # nothing to act on, nothing read again
            return self._through_flask(environ, start_response, short_body(length), rate)
        game_id = match.group(1)
        try:
            try:
                action = orjson.loads(raw)
            except orjson.JSONDecodeError:
                return self._again(environ, start_response, raw, rate)
            if not isinstance(action, dict) or not self.engine.exists(game_id):
                return self._again(environ, start_response, raw, rate)
            seat = seat_for(self.engine, game_id, authorization, required=True)
            key = checked_key(environ.get("HTTP_IDEMPOTENCY_KEY"))
            answer, version = acted(
                self.engine, game_id, seat, action, environ.get("HTTP_IF_MATCH"), key
            )
        except (Problem, *REFUSALS):  # nothing changed: Flask says why
            return self._again(environ, start_response, raw, rate)
        except Exception as exc:  # the store away, or a bug: Flask's handlers answer it
            return self._through_flask(environ, start_response, exc, rate)
        body, coding = compressed(dumps(answer), environ.get("HTTP_ACCEPT_ENCODING"), "POST")
        headers = [
            ("Content-Type", "application/json"),
            ("Content-Length", str(len(body))),
            ("ETag", f'"{version}"'),
            ("Vary", "Accept-Encoding"),
        ]
        if coding is not None:
            headers.append(("Content-Encoding", coding))
        headers += rate.items()
        self.answered.inc()
        self.took.observe(time.perf_counter() - started)
        start_response("200 OK", headers)
        return [body]

    def _length(self, environ: Environ) -> int | None:
        """The body's length, if this path takes the request; None leaves it to Flask."""
        raw = environ.get("CONTENT_LENGTH", "")
        mimetype = environ.get("CONTENT_TYPE", "").partition(";")[0].strip().lower()
        cors = self.app.config.get("CORS_ORIGINS") and "HTTP_ORIGIN" in environ
        length = whole_number(raw)
        if length is None or mimetype != "application/json" or cors:
            return None
        limit = self.app.config["MAX_CONTENT_LENGTH"]
        return length if 0 < length <= limit else None

    def _again(
        self, environ: Environ, start_response: StartResponse, raw: bytes, rate: dict[str, str]
    ) -> Iterable[bytes]:
        """Flask answers the request from the start: the body as it came, already counted."""
        environ["wsgi.input"] = io.BytesIO(raw)
        environ[COUNTED] = rate
        return self.flask(environ, start_response)

    def _through_flask(
        self, environ: Environ, start_response: StartResponse, answer: Any, rate: dict[str, str]
    ) -> Iterable[bytes]:
        """`answer` (a response, or the exception being handled) through Flask's error
        handlers and after-request hooks, as if its route had given it."""
        with self.app.request_context(environ):
            g.rate_headers = rate
            if isinstance(answer, Exception):
                answer = self.app.handle_user_exception(answer)
            response: Response = self.app.process_response(answer)
            return response(environ, start_response)

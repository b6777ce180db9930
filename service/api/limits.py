"""Rate limits: requests per minute per client (remote address) and per seat token.

A fixed-window counter in Redis shared by every API process, one key per client (or token,
under its SHA-256) and window; over the limit a 429 `rate_limited` with `Retry-After`, and the
IETF draft's `RateLimit-Policy` and `RateLimit` headers on every limited answer. Only `/v1` is
limited. A store that cannot count refuses with 503 `unavailable` (fails closed). Settings:
`BATAYO_RATE_LIMIT*` (service/settings.py), kept in `app.config` for tests.
"""

from __future__ import annotations

import hashlib
import math
import time

from flask import Flask, Response, g, request

from ..settings import Settings
from ..store.scripts import Script
from .http import bearer
from .problems import Problem, problem_response, unavailable

DEFAULT_WINDOW_S: int = Settings.model_fields["rate_window_s"].default
EXEMPT = ("/healthz", "/readyz", "/metrics")
COUNTED = "batayo.rate_headers"  # in a request's environ: counted already (service/api/direct)

# KEYS: the counter. ARGV: its lifetime in ms. Returns the count and the ms left in the window.
_HIT = """
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {n, ttl}
"""


class Limiter:
    """Fixed windows of `window_s` seconds, counted in Redis under `ratelimit:<kind>:<id>:<n>`."""

    def __init__(self, client, window_s: int = DEFAULT_WINDOW_S, clock=time.time) -> None:
        self.redis = client
        self.window_s = window_s
        self.clock = clock
        self._hit = Script(client, _HIT)

    def count(self, kind: str, ident: str) -> tuple[int, int]:
        """Count one request: the requests of this window so far, and seconds to the next."""
        now = self.clock()
        window = int(now // self.window_s)
        name = f"ratelimit:{kind}:{ident}:{window}"
        count, ttl_ms = self._hit(keys=[name], args=[self.window_s * 1000])
        left = (window + 1) * self.window_s - now
        reset = max(1, math.ceil(min(left, int(ttl_ms) / 1000 if int(ttl_ms) > 0 else left)))
        return int(count), reset


def _client_id(remote_addr: str | None) -> str:
    return hashlib.sha256((remote_addr or "unknown").encode()).hexdigest()[:32]


def _token_id(header: str | None) -> str | None:
    token = bearer(header)
    return None if token is None else hashlib.sha256(token.encode()).hexdigest()[:32]


class RateLimits:
    """The app's limits (its `app.config`, read on each request), counted in the store's Redis."""

    def __init__(self, app: Flask, client) -> None:
        self.app, self.client = app, client
        self.limiters: dict[int, Limiter] = {}

    def limiter(self) -> Limiter:
        window = max(1, int(self.app.config["RATE_WINDOW_S"]))
        if window not in self.limiters:
            clock = self.app.config.get("RATE_CLOCK", time.time)
            self.limiters[window] = Limiter(self.client, window, clock)
        return self.limiters[window]

    def check(
        self, path: str, remote_addr: str | None, authorization: str | None
    ) -> tuple[Response | None, dict[str, str]]:
        """Count a request: the refusal to answer instead (or None), and the headers to add to
        whatever is answered."""
        config = self.app.config
        if not path.startswith("/v1/") or path in EXEMPT:
            return None, {}
        checks = []  # a limit of 0 is no limit: nothing to hash or count
        if per_client := int(config["RATE_LIMIT"] or 0):
            checks.append(("client", _client_id(remote_addr), per_client))
        if (per_token := int(config["RATE_LIMIT_TOKEN"] or 0)) and (
            token := _token_id(authorization)
        ):
            checks.append(("token", token, per_token))
        if not checks:
            return None, {}
        window = max(1, int(config["RATE_WINDOW_S"]))
        policy = ", ".join(f'"{kind}";q={limit};w={window}' for kind, _, limit in checks)
        closest = None
        for kind, ident, limit in checks:
            try:
                count, reset = self.limiter().count(kind, ident)
            except Exception as exc:  # cannot count: refuse (fail closed), as the store would
                self.app.logger.warning("rate limiter: the store does not answer: %s", exc)
                return unavailable(), {}
            left = max(0, limit - count)
            if closest is None or left < closest[1]:
                closest = (kind, left, reset)
            if count > limit:
                who = "this client" if kind == "client" else "this token"
                response = problem_response(
                    429,
                    "rate_limited",
                    f"too many requests from {who}: at most {limit} every "
                    f"{config['RATE_WINDOW_S']} s; retry in {reset} s",
                    retry_after=reset,
                )
                response.headers["Retry-After"] = str(reset)
                return response, _rate_headers(policy, closest)
        return None, _rate_headers(policy, closest)


def hint_limit(app: Flask, authorization: str | None) -> None:
    """Count a hint against its seat token's own limit (`HINT_RATE_LIMIT` a window; 0: none):
    raises the 429 problem over it, or the 503 one if the store cannot count."""
    limit = int(app.config.get("HINT_RATE_LIMIT") or 0)
    token = _token_id(authorization)
    limits = app.extensions.get("batayo.limits")
    if not limit or token is None or limits is None:
        return
    try:
        count, reset = limits.limiter().count("hint", token)
    except Exception as exc:  # cannot count: refuse (fail closed), as the other limits do
        app.logger.warning("hint limiter: the store does not answer: %s", exc)
        raise Problem(503, "unavailable", "the store does not answer", retry_after=1) from None
    if count > limit:
        raise Problem(
            429,
            "rate_limited",
            f"too many hints for this seat: at most {limit} every "
            f"{app.config['RATE_WINDOW_S']} s; retry in {reset} s",
            retry_after=reset,
        )


def _rate_headers(policy: str, closest: tuple[str, int, int] | None) -> dict[str, str]:
    if closest is None:
        return {}
    kind, left, reset = closest
    return {"RateLimit-Policy": policy, "RateLimit": f'"{kind}";r={left};t={reset}'}


def install(app: Flask, client, settings: Settings) -> RateLimits:
    """Limit the app's `/v1` requests, counting in `client` (the store's Redis)."""
    app.config.setdefault("RATE_LIMIT", settings.rate_limit)
    app.config.setdefault("RATE_LIMIT_TOKEN", settings.rate_limit_token)
    app.config.setdefault("RATE_WINDOW_S", settings.rate_window_s)
    app.config.setdefault("HINT_RATE_LIMIT", settings.hint_rate_limit)
    limits = RateLimits(app, client)

    @app.before_request
    def _limit():
        if (counted := request.environ.get(COUNTED)) is not None:
            g.rate_headers = counted
            return None
        refused, g.rate_headers = limits.check(
            request.path, request.remote_addr, request.headers.get("Authorization")
        )
        return refused

    @app.after_request
    def _headers(response: Response) -> Response:
        response.headers.update(g.pop("rate_headers", {}))
        return response

    app.extensions["batayo.limits"] = limits
    return limits

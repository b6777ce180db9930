"""The browser tests' service and browser (a pytest plugin: tests/conftest.py loads it).

The service runs for real on a loopback port (werkzeug's threaded server, an engine on fakeredis
with the in-process worker that moves the bots); Playwright drives Debian's Chromium
(`executable_path`, no `playwright install`). One service and one browser per test module; each
page fails its test on any console error or uncaught page error. Screenshots go to
tests/artifacts/. Skipped, with the reason, without playwright or /usr/bin/chromium (failed
instead under BATAYO_REQUIRE_BROWSER, as in CI).
"""

from __future__ import annotations

import os
import re
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import fakeredis
import pytest

from service.api import create_app
from service.engine import Engine
from service.engine.dispatch import InlineDispatcher
from service.store import Store
from tests.support.service import PACKS
from tests.support.serving import call, no_traceback, serve

try:
    from playwright.sync_api import sync_playwright
except ImportError:  # pragma: no cover - depends on the machine
    sync_playwright = None

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts"
PHONE = {"width": 375, "height": 740}  # a phone's viewport, for the layouts checked on phones
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def auth(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


# ---- the service and the browser ---------------------------------------------------------


@pytest.fixture(scope="module")
def server():
    """The real app on a free loopback port: werkzeug's threaded server, fakeredis, the
    in-process bot worker."""
    missing = None
    if sync_playwright is None:
        missing = "playwright is not installed (pip install playwright)"
    elif not CHROMIUM.exists():
        missing = "no /usr/bin/chromium (apt-get install chromium)"
    if missing and os.environ.get("BATAYO_REQUIRE_BROWSER"):
        pytest.fail(missing)  # CI installs both: a skip there would hide a broken page
    if missing:
        pytest.skip(missing)
    from werkzeug.serving import make_server

    engine = Engine(Store(fakeredis.FakeRedis()), test_games=True)
    engine.dispatcher = InlineDispatcher(lambda job, args: getattr(engine, job)(*args))
    app = create_app(engine)
    # The tests click as fast as a machine can and all come from 127.0.0.1; the page itself
    # spaces its requests (game.js), but the limits are not what these tests check.
    app.config.update(RATE_LIMIT=0, RATE_LIMIT_TOKEN=0)
    srv = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield SimpleNamespace(
        base=f"http://127.0.0.1:{srv.server_port}", client=app.test_client(), engine=engine
    )
    srv.shutdown()
    engine.dispatcher.stop()


class HttpClient:
    """The few calls of Flask's test client the browser tests make (`get`, `post`; answers with
    `status_code` and `json`), over HTTP to a server process."""

    def __init__(self, port: int) -> None:
        self.port = port

    def _call(self, method: str, path: str, body=None, headers=None) -> SimpleNamespace:
        status, data, _ = call(self.port, method, path, body, headers=headers)
        return SimpleNamespace(status_code=status, json=data)

    def get(self, path: str, headers: dict | None = None) -> SimpleNamespace:
        return self._call("GET", path, headers=headers)

    def post(self, path: str, json: dict | None = None, headers: dict | None = None):
        return self._call("POST", path, json, headers)


@pytest.fixture(scope="module")
def socket_server(tmp_path_factory):
    """`batayo serve` (gevent, as in production), which takes WebSocket upgrades: for a module
    whose pages play and watch over the game's socket, as its `server` fixture. Fixed deals
    accepted, no rate limits (as `server`), its embedded store and in-process bot worker."""
    _require_browser()
    env = {"BATAYO_TEST_GAMES": "1", "BATAYO_RATE_LIMIT_TOKEN": "0"}
    process = serve(tmp_path_factory.mktemp("browser-serve"), env)
    yield SimpleNamespace(
        base=f"http://127.0.0.1:{process.port}",
        client=HttpClient(process.port),
        process=process,
        sockets=True,
    )
    process.stop()
    no_traceback(process)


def _require_browser() -> None:
    missing = None
    if sync_playwright is None:
        missing = "playwright is not installed (pip install playwright)"
    elif not CHROMIUM.exists():
        missing = "no /usr/bin/chromium (apt-get install chromium)"
    if missing and os.environ.get("BATAYO_REQUIRE_BROWSER"):
        pytest.fail(missing)
    if missing:
        pytest.skip(missing)


# werkzeug's server (`server`) cannot take a WebSocket upgrade (426): Chromium logs the refused
# handshake as a console error, and the page follows over the event stream and POST instead
# (api.js `socket`'s fallback), which is what those pages then test. On `socket_server` a
# failed socket is an error like any other.
SOCKET_REFUSED = re.compile(
    r"^WebSocket connection to 'ws://[^']*/v1/games/[0-9a-f]+/socket[?'].* failed"
)


def record_console_errors(page, server, errors: list[str]) -> None:
    """Append the page's console errors to `errors` (but a socket `server` cannot take)."""
    refused_ok = not getattr(server, "sockets", False)

    def on_console(m) -> None:
        if m.type == "error" and not (refused_ok and SOCKET_REFUSED.match(m.text)):
            errors.append(m.text)

    page.on("console", on_console)


@pytest.fixture(scope="module")
def browser(server):
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield browser
        browser.close()


class Page(SimpleNamespace):
    """A browser page that records every console error and uncaught exception."""


@pytest.fixture
def open_page(browser, server):
    contexts, pages = [], []

    def opener(path: str, width: int = 1100, height: int = 900, init_script: str | None = None):
        """The page at `path`; `page.requests` ("METHOD url") and `page.sockets` (WebSocket
        URLs) list what it opened, from its first request on. `init_script` runs before the
        page's own scripts."""
        context = browser.new_context(viewport={"width": width, "height": height})
        contexts.append(context)
        page = context.new_page()
        if init_script:
            page.add_init_script(init_script)
        page.requests, page.sockets = [], []
        page.on("request", lambda r: page.requests.append(f"{r.method} {r.url}"))
        page.on("websocket", lambda ws: page.sockets.append(ws))
        errors: list[str] = []
        record_console_errors(page, server, errors)
        page.on("pageerror", lambda e: errors.append(f"uncaught: {e}"))
        page.set_default_timeout(10_000)
        page.goto(server.base + path)
        pages.append((page, errors))
        return page

    yield opener
    for page, errors in pages:
        assert errors == [], f"browser console errors on {page.url}: {errors}"
    for context in contexts:
        context.close()


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


# ---- games set up through the API --------------------------------------------------------


def create(server, body: dict) -> dict:
    r = server.client.post("/v1/games", json=body)
    assert r.status_code == 201, r.json
    return r.json


def finished_tied_game(server) -> str:
    """docs/rules/bataille.md#rule-4 (tests/test_audit.py `tied_game`): Q against Q, then 7 against
    7, then AS takes all; then flipped to the end."""
    created = create(
        server,
        {
            "game": "bataille",
            "options": {"players": 3},
            "seats": [{"name": "ana"}, {"name": "bob"}, {"name": "cy"}],
            "deal": {"packs": PACKS},
        },
    )
    gid, tokens = created["id"], [s["token"] for s in created["seats"]]
    for _ in range(200):
        view = server.client.get(f"/v1/games/{gid}").json
        if view["status"] == "finished":
            return gid
        for seat in view["to_move"]:
            r = server.client.post(
                f"/v1/games/{gid}/actions", json={"type": "flip"}, headers=auth(tokens[seat])
            )
            assert r.status_code == 200, r.json
    raise AssertionError("the tied game did not end")


def shown_version(page) -> int:
    """The version a game page shows (its timeline's label)."""
    return int(page.locator("#version-label").get_attribute("data-version") or 0)


# BATAYO on a short fixed deal: a tie, its taking and reveal, and the end, in a few moves
SHORT_BATAYO = {
    "game": "batayo",
    "options": {"players": 2, "format": "express"},
    "seats": [{"name": "ana"}, {"name": "bob"}],
    "deal": {"packs": [["AS", "KS", "8S"], ["AH", "7H", "9H"]]},
}


def played_to_the_end(server, body: dict, turns: int = 50) -> str:
    """A game of human seats made from `body`, each seat awaited playing its first legal
    action until the game ends; its id."""
    created = create(server, body)
    gid, tokens = created["id"], [s["token"] for s in created["seats"]]
    for _ in range(turns):
        view = server.client.get(f"/v1/games/{gid}").json
        if view["status"] == "finished":
            return gid
        for seat in view["to_move"]:
            legal = server.client.get(f"/v1/games/{gid}", headers=auth(tokens[seat])).json
            server.client.post(
                f"/v1/games/{gid}/actions",
                json=legal["legal_actions"][0],
                headers=auth(tokens[seat]),
            )
    raise AssertionError("the game did not end")


def wait_for_legal(server, gid: str, token: str, timeout: float = 10.0) -> dict:
    """The seat's view once it has something to do (or the game is over)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        view = server.client.get(f"/v1/games/{gid}", headers=auth(token)).json
        if view["legal_actions"] or view["status"] == "finished":
            return view
        time.sleep(0.02)
    raise AssertionError("the bot never moved")

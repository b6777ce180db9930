"""Without a browser: the pages and their files are served, and the scripts call only
the public API that openapi.yaml describes (the pages are the reference client)."""

from __future__ import annotations

import re
from pathlib import Path

import fakeredis
import pytest
import yaml

from service.api import create_app
from service.engine import Engine
from service.store import Store
from tests.support.client import SPEC

STATIC = Path(__file__).resolve().parent.parent / "service" / "web" / "static"


@pytest.fixture
def client():
    return create_app(Engine(Store(fakeredis.FakeRedis()))).test_client()


def test_the_list_and_the_game_page_are_served_as_html(client):
    for path in ("/", "/games/0123456789abcdef"):
        r = client.get(path)
        assert r.status_code == 200 and r.mimetype == "text/html", path
        assert b'<meta name="viewport"' in r.data
        assert r.headers["Cache-Control"] == "no-cache"


def test_a_malformed_game_id_is_not_a_page(client):
    assert client.get("/games/not-a-game").status_code == 404
    assert client.get("/games/0123456789ABCDEF").status_code == 404


def test_every_file_a_page_names_is_served(client):
    for page in ("index.html", "game.html"):
        html = (STATIC / page).read_text()
        for ref in re.findall(r'(?:src|href)="(/web/static/[^"]+)"', html):
            r = client.get(ref)
            assert r.status_code == 200, ref
            if ref.endswith(".js"):
                assert r.mimetype in ("text/javascript", "application/javascript")
    # and every module a script imports
    for script in STATIC.glob("*.js"):
        for name in re.findall(r'from "\./([\w.]+\.js)"', script.read_text()):
            assert (STATIC / name).exists(), (script.name, name)


def test_the_scripts_call_only_paths_of_the_public_api():
    spec = yaml.safe_load(SPEC.read_text())["paths"]
    documented = {re.sub(r"\{[^}]+\}", "{}", p) for p in spec}
    called = set()
    for script in STATIC.glob("*.js"):
        for literal in re.findall(r"`(/v1/[^`]*)`|\"(/v1/[^\"]*)\"", script.read_text()):
            path = next(x for x in literal if x)
            path = re.sub(r"\$\{query\(.*?\)\}", "", path)  # a query string built by query()
            path = re.sub(r"\$\{[^}]+\}", "{}", path).split("?")[0]
            called.add(path)
    assert called, "no API path found in the scripts"
    assert called <= documented, called - documented
    assert {"/v1/games/{}/stream", "/v1/games/{}/ties", "/v1/games/{}/verify"} <= called

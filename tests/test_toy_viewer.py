"""A game is one module, in the viewer too: the toy game of tests/support/toy.py,
registered by the tests and nowhere else, is listed by the lobby and played to its end on the
viewer's generic table in Chromium, with no line of the viewer written for it."""

from __future__ import annotations

import time

import pytest

from service.core.registry import GAMES
from tests.support import toy

expect = pytest.importorskip("playwright.sync_api").expect
pytestmark = pytest.mark.browser


@pytest.fixture(scope="module", autouse=True)
def registered():
    GAMES.register(toy.GAME)
    yield toy.GAME
    GAMES.unregister(toy.GAME.name)


def test_the_lobby_offers_the_toy_and_its_generic_table_plays_it_to_the_end(server, open_page):
    lobby = open_page("/")
    expect(lobby.locator("#new-game-game option[value='duel']")).to_have_count(1)
    created = server.client.post(
        "/v1/games", json={"game": "duel", "seats": [{"name": "ana"}, {"bot": "greedy"}]}
    ).json
    token = created["seats"][0]["token"]
    page = open_page(f"/games/{created['id']}?token={token}")
    expect(page.locator("#you-head")).to_contain_text("ana")
    result = page.locator("#result")
    plays = 0
    deadline = time.monotonic() + 60
    while not result.is_visible():
        assert time.monotonic() < deadline, f"no end after {plays} plays"
        target = page.locator("#hand .card-btn, #actions button.action").first
        try:
            target.click(timeout=300)
        except Exception:  # nothing to play now: the bot is to move
            continue
        plays += 1
    final = server.client.get(f"/v1/games/{created['id']}").json
    assert final["status"] == "finished"
    log = server.client.get(f"/v1/games/{created['id']}/events?limit=500").json["events"]
    committed = [e for e in log if e["type"] == "committed" and e["data"].get("seat") == 0]
    assert len(committed) == final["options"]["rounds"]  # every card of ana's played by a click

"""The lobby a player comes back to, and a replay that goes move by move, in Chromium (the
service and the browser: tests/support/browser.py): "My games" from the tokens this browser
keeps, a game against bots in one click, the games waiting for a player newest first without
the idle ones, an invite whose seat was taken, and the timeline's steps, label and keys."""

from __future__ import annotations

import itertools
import json
import re

import pytest

from service.core.game import add_seconds
from service.core.times import utc_now
from tests.support.browser import (
    SHORT_BATAYO,
    create,
    played_to_the_end,
    record_console_errors,
    shot,
    shown_version,
)
from tests.support.service import all_events

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api").expect

GAME_URL = re.compile(r"/games/([0-9a-f]{16})$")


def test_my_games_resume_in_a_click_and_can_be_removed(server, open_page):
    """A game started against bots in one click is kept in this browser: back in the lobby it
    is under "My games", resumed in a click as its seat; removed, it is gone from the list and
    the browser no longer holds its token."""
    page = open_page("/")
    page.locator('#quick-games button[data-game="batak"]').click()
    page.wait_for_url(GAME_URL)
    gid = GAME_URL.search(page.url).group(1)
    expect(page.locator("#you-head")).to_contain_text("You are Player 1")
    seats = server.client.get(f"/v1/games/{gid}").json["seats"]
    assert [s.get("bot") for s in seats] == [None, "greedy", "greedy", "greedy"]
    page.goto(server.base + "/")
    row = page.locator(f'#my-games .mine-row[data-id="{gid}"]')
    expect(row).to_contain_text("Batak")
    shot(page, "lobby-my-games")
    row.get_by_role("link", name="Resume").click()
    page.wait_for_url(re.compile(rf"/games/{gid}$"))
    expect(page.locator("#you-head")).to_contain_text("You are Player 1")
    page.goto(server.base + "/")
    page.locator(f'#my-games .mine-row[data-id="{gid}"] button.forget').click()
    expect(page.locator(f'#my-games .mine-row[data-id="{gid}"]')).to_have_count(0)
    assert gid not in page.evaluate("Object.keys(JSON.parse(localStorage['batayo.tokens']))")


def test_open_games_are_newest_first_without_the_idle_ones(server, open_page):
    """The open games list: games waiting for a player, the newest first; one whose last event
    is older than the server's BATAYO_LOBBY_IDLE_S (an hour by default) is left out."""
    waiting = {"game": "roylet", "seats": [{"bot": "greedy"}, {"open": True}, {"bot": "greedy"}]}
    clock = server.engine.clock
    server.engine.clock = lambda: add_seconds(utc_now(), -3700)  # made, and idle, long ago
    try:
        idle = create(server, waiting)["id"]
    finally:
        server.engine.clock = clock
    older, newer = create(server, waiting)["id"], create(server, waiting)["id"]
    page = open_page("/")
    rows = page.locator("#open-games .open-row")
    expect(rows.first).to_have_attribute("data-id", newer)
    ids = [rows.nth(i).get_attribute("data-id") for i in range(rows.count())]
    assert ids.index(newer) < ids.index(older)
    assert idle not in ids
    assert idle in [g["id"] for g in server.client.get("/v1/games?status=open").json["games"]]


def test_the_lobby_in_turkish_offers_every_bot_level_by_its_name(server, browser):
    """Each level `GET /v1/rules` lists for a game (random, greedy, strong; Batak's expert too)
    can be picked for each bot seat of the create form, named in the page's language; the
    lobby's own words (My games, its buttons) are all translated."""
    created = create(server, {"game": "bataille", "seats": [{"name": "ana"}, {"bot": "strong"}]})
    tokens = {created["id"]: created["seats"][0]["token"]}
    context = browser.new_context(locale="tr-TR")
    page = context.new_page()
    errors: list[str] = []
    record_console_errors(page, server, errors)
    page.add_init_script(f"localStorage.setItem('batayo.tokens', '{json.dumps(tokens)}')")
    page.goto(server.base + "/")
    expect(page.locator("#my-games .mine-row")).to_contain_text("güçlü bot 1")
    levels = {g["id"]: g["bots"] for g in server.client.get("/v1/rules").json["games"]}
    for game in ("batayo", "batak"):
        page.select_option("#new-game-game", game)
        for seat in range(1, 4 if game == "batak" else 2):
            values = page.locator(f"#seat-{seat} option").evaluate_all("os => os.map(o => o.value)")
            assert [v for v in values if v.startswith("bot:")] == [f"bot:{b}" for b in levels[game]]
    labels = page.locator("#seat-1 option").all_inner_texts()
    assert "güçlü bot" in labels and "uzman bot" in labels, labels
    assert page.evaluate("[...window.__i18nMissing]") == []
    page.select_option("#seat-3", "bot:strong")
    page.click("#create")
    page.wait_for_url(GAME_URL)
    seats = server.client.get(f"/v1/games/{GAME_URL.search(page.url).group(1)}").json["seats"]
    assert seats[3]["bot"] == "strong"
    context.close()
    assert errors == []


def test_an_invite_whose_seat_was_taken_says_so(server, open_page):
    """The invite link opened after someone took its seat: the page says the seat was taken
    (not a silent spectator view), and offers no seat to take."""
    created = create(server, {"game": "batayo", "seats": [{"name": "host"}, {"open": True}]})
    gid = created["id"]
    assert server.client.post(f"/v1/games/{gid}/join", json={"name": "first"}).status_code == 200
    page = open_page(f"/games/{gid}#join")
    taken = page.locator("#invite-taken")
    expect(taken).to_be_visible()
    expect(taken).to_contain_text("This invite's seat was taken")
    expect(page.locator("#join-banner")).to_be_hidden()
    shot(page, "invite-seat-taken")


def test_replay_steps_by_move_or_by_event_with_the_trick_shown_and_the_keys_listed(
    server, open_page
):
    """The arrow keys step move by move: each stop is a version at which the game waited for
    someone, never one inside a server batch (a reveal, a trick taken, the hands filled);
    Shift+arrow, or "step through every event", still goes one version at a time. The slider
    says which trick it shows, and the keys are written under it."""
    gid = played_to_the_end(server, SHORT_BATAYO)
    log = all_events(server, gid)
    last = log[-1]["version"]
    stops = [e["version"] for e, after in itertools.pairwise(log) if "cause" in after["data"]]
    inside = sorted(set(range(2, last)) - set(stops))
    assert inside and len(stops) > 3  # the deal has batches to skip
    page = open_page(f"/games/{gid}")
    page.wait_for_function(f"document.querySelector('#version-label').dataset.version == {last}")
    page.locator("#first").click()
    page.wait_for_function("document.querySelector('#version-label').dataset.version == 1")
    visited = []
    while shown_version(page) < last:
        before = shown_version(page)
        page.locator("body").press("ArrowRight")
        page.wait_for_function(
            "v => Number(document.querySelector('#version-label').dataset.version) > v",
            arg=before,
        )
        visited.append(shown_version(page))
    assert visited == [*[v for v in stops if v > 1], last]
    expect(page.locator("#slider-position")).to_contain_text("Trick")
    assert "Trick" in (page.locator("#slider").get_attribute("aria-valuetext") or "")
    page.locator("body").press("Shift+ArrowLeft")
    page.wait_for_function(
        f"document.querySelector('#version-label').dataset.version == {last - 1}"
    )
    page.locator("#by-event").check()
    page.locator("#prev").click()
    page.wait_for_function(
        f"document.querySelector('#version-label').dataset.version == {last - 2}"
    )
    page.locator("body").press("Home")
    page.wait_for_function("document.querySelector('#version-label').dataset.version == 1")
    expect(page.locator("#replay-keys")).to_contain_text("Shift+← →")
    shot(page, "replay-by-move")

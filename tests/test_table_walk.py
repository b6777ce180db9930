"""A table with no dead ends, in Chromium: every game (and every Bataille variant) walked to
its end through the page alone, clicking only what the page offers, on test games with fixed
short deals. The walk fails on any state where the game awaits the page's seat with legal
actions and there is nothing to click for one of them, and on a page that stays behind the
game. At the end the table keeps the last play, a result banner offers a rematch and a new
game, and a spectator who watched live sees what a reload shows. Screenshots of each table
and end screen (desktop and phone) go to tests/artifacts/ (walk-<name>-*.png).

The service is `batayo serve` (tests/support/browser.py `socket_server`), so the pages play
and watch over the game's WebSocket, as they do by default; one walk runs in a browser with no
WebSocket, over the page's fallback (the event stream and POST).
"""

from __future__ import annotations

import json
import random
import re
import time

import pytest

from tests.support.browser import PHONE, auth, create, shot
from tests.support.service import all_events

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api").expect

NO_WEBSOCKET = "delete window.WebSocket;"  # a browser without it: the page falls back
FALLBACK_WALKS = {"batayo-sse": "batayo"}  # name: the game walked over the fallback


@pytest.fixture(scope="module")
def server(socket_server):
    return socket_server


MAX_CLICKS = 100
BOT = {"bot": "greedy"}
ROYLET_DEAL = {
    "hands": [
        ["JS", "JH", "JD", "JC", "KH", "AS", "9H", "10S", "2S", "3S", "4S", "5S"],
        ["AH", "AD", "10H", "10D", "KS", "QS", "2H", "3H", "4H", "5H"],
        ["AC", "10C", "KC", "QH", "QD", "QC", "2D", "3D", "4D", "5D"],
    ]
}
SUITS = "SHCD"
RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]

# name: (the body of POST /v1/games, the page's seat). Deals short enough to end in a few
# dozen clicks; the page's seat plays against greedy bots.
GAMES = {
    "bataille-classique": (
        {
            "game": "bataille",
            "options": {"players": 3, "gather": "ordered"},
            "seats": [{"name": "ana"}, BOT, BOT],
            "deal": {"packs": [["QS", "2S", "7S", "4S", "AS"], ["QH", "3H", "7H", "5H"], ["3D"]]},
        },
        0,
    ),
    "bataille-sans_inconnue": (
        {
            "game": "bataille",
            "options": {"players": 2, "variant": "sans_inconnue", "gather": "ordered"},
            "seats": [{"name": "ana"}, BOT],
            "deal": {"packs": [["QS", "AS", "2S"], ["QH", "3H", "KH"]]},
        },
        0,
    ),
    # The page's pack empties while its won pile holds cards: it plays from the won pile.
    "bataille-ouverte": (
        {
            "game": "bataille",
            "options": {"players": 2, "variant": "ouverte", "gather": "ordered"},
            "seats": [{"name": "ana"}, BOT],
            "deal": {"packs": [["AS", "KS"], ["2H", "3H", "4H", "5H"]]},
        },
        0,
    ),
    "batayo": (
        {
            "game": "batayo",
            "options": {"players": 2, "format": "express", "max_rounds": 30},
            "seats": [{"name": "ana"}, BOT],
            "deal": {"packs": [["AS", "KS", "8S"], ["AH", "7H", "9H"]]},
        },
        0,
    ),
    "batak": (
        {
            "game": "batak",
            "options": {"deals": 3, "max_rounds": 4},
            "seats": [{"name": "ana"}, BOT, BOT, BOT],
            # each seat a suit: whoever names trump holds it all
            "deal": {"hands": [[r + s for r in RANKS] for s in SUITS]},
            "seed": "00" * 32,
        },
        0,
    ),
    "roylet": (
        {
            "game": "roylet",
            "options": {"rounds": 1, "losing_streak": 1, "max_replays": 0},
            "seats": [BOT, {"name": "ana"}, BOT],
            "deal": ROYLET_DEAL,
        },
        1,
    ),
}

# What the page offers to click in the seat's panel: buttons that post a body as they are,
# and cards that open a second choice.
OFFERED = """() => {
  const seen = (b) => b.offsetParent !== null && !b.disabled;
  const direct = [...document.querySelectorAll('#you button[data-action]')].filter(seen)
    .map((b) => b.dataset.action);
  const picks = [...document.querySelectorAll('#you button.pick[data-card]')].filter(seen)
    .map((b) => b.dataset.card);
  return {direct, picks};
}"""


def shown(page) -> tuple[int, str]:
    label = page.locator("#version-label")
    return int(label.get_attribute("data-version") or 0), label.inner_text()


def settle(server, page, gid: str, token: str, seat: int, timeout: float = 15.0) -> dict:
    """The seat's view once the game waits for the seat (or is over), the page shows that very
    version, live, and no action of the page's is on its way (its buttons wait for the answer,
    which follows the answer's view on the socket). A page that stays behind fails here."""
    end = time.monotonic() + timeout
    while True:
        view = server.client.get(f"/v1/games/{gid}", headers=auth(token)).json
        waiting = view["status"] == "finished" or (
            seat in view["to_move"] and view["legal_actions"]
        )
        version, label = shown(page)
        idle = page.locator("#you").get_attribute("aria-busy") != "true"  # no action on its way
        if waiting and version == view["version"] and idle:
            if view["status"] != "finished":
                assert "(live)" in label, label
            return view
        if time.monotonic() > end:
            shot(page, f"stuck-{gid}")
            raise AssertionError(
                f"the page shows {label!r} while the game is at version {view['version']} "
                f"({view['status']}, to move {view['to_move']})"
            )
        time.sleep(0.05)


def same(a: dict, b: dict) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def uncovered(offered: dict, legal: list[dict]) -> list[dict]:
    direct = [json.loads(a) for a in offered["direct"]]
    return [
        body
        for body in legal
        if not any(same(body, d) for d in direct) and body.get("card") not in offered["picks"]
    ]


def click_body(page, body: dict, legal: list[dict]) -> None:
    """Click `body`: its own button, or its card then the button of the second choice (every
    body of that card must then be offered)."""
    offered = page.evaluate(OFFERED)
    for raw in offered["direct"]:
        if same(json.loads(raw), body):
            page.locator(f"#you button[data-action='{raw}']").first.click()
            return
    page.locator(f"#you button.pick[data-card='{body['card']}']").click()
    then = page.evaluate(OFFERED)
    missing = uncovered(
        {"direct": then["direct"], "picks": []}, [b for b in legal if b.get("card") == body["card"]]
    )
    assert missing == [], f"after choosing {body['card']}, nothing to click for {missing}"
    raw = next(r for r in then["direct"] if same(json.loads(r), body))
    page.locator(f"#you button[data-action='{raw}']").first.click()


def walk(server, page, gid: str, token: str, seat: int, name: str) -> tuple[dict, int]:
    """Play the game to its end through the page; the final view and the clicks it took."""
    rng = random.Random(name)
    clicks = 0
    while True:
        view = settle(server, page, gid, token, seat)
        if view["status"] == "finished":
            return view, clicks
        legal = view["legal_actions"]
        missing = uncovered(page.evaluate(OFFERED), legal)
        if missing:
            shot(page, f"walk-{name}-dead-end")
        assert missing == [], (
            f"{name} v{view['version']}: the game awaits the page's seat but nothing to click "
            f"for {missing} (legal: {legal})"
        )
        assert clicks < MAX_CLICKS, f"{name}: no end after {clicks} clicks"
        click_body(page, rng.choice(legal), legal)
        clicks += 1
        if clicks == 3:
            shot(page, f"walk-{name}-table")
        # the answer (or a newer view) is drawn before the next look
        page.wait_for_function(
            "v => Number(document.querySelector('#version-label').dataset.version) > v",
            arg=view["version"],
        )


LAST_PLAY = """() => {
  const box = document.querySelector('#last-play');
  if (!box) return null;
  return {title: box.querySelector('.label').textContent,
          cards: [...box.querySelectorAll('.card')].map((c) => c.dataset.card || ''),
          why: box.querySelector('#last-why').textContent};
}"""


def same_last_play(page, expected: dict, timeout: float = 5.0) -> None:
    end = time.monotonic() + timeout
    while (got := page.evaluate(LAST_PLAY)) != expected and time.monotonic() < end:
        time.sleep(0.1)
    assert got == expected, f"{page.url}: the last play drawn {got}, on a reload {expected}"


def socket_urls(page) -> list[str]:
    return [ws.url for ws in page.sockets]


def opened(page, what: str) -> list[str]:
    """The requests of the page whose "METHOD url" contains `what`."""
    return [r for r in page.requests if what in r]


@pytest.mark.parametrize("name", [*GAMES, *FALLBACK_WALKS])
def test_every_game_walks_to_its_end_through_the_page(server, browser, open_page, name):
    game = FALLBACK_WALKS.get(name, name)
    over_socket = name not in FALLBACK_WALKS
    body, seat = GAMES[game]
    created = create(server, body)
    gid, token = created["id"], created["seats"][seat]["token"]
    script = None if over_socket else NO_WEBSOCKET
    watcher = open_page(f"/games/{gid}", init_script=script)  # a spectator following live
    page = open_page(f"/games/{gid}?token={token}", init_script=script)
    final, clicks = walk(server, page, gid, token, seat, name)
    if over_socket:
        # the moves went as `act` frames, the events and views came on the socket
        for p in (page, watcher):
            assert [u.split("?")[0] for u in socket_urls(p)] == [
                f"ws{server.base[4:]}/v1/games/{gid}/socket"
            ]
            assert opened(p, f"/v1/games/{gid}/stream") == []
        assert opened(page, f"POST {server.base}/v1/games/{gid}/actions") == []
    else:
        for p in (page, watcher):
            assert socket_urls(p) == [] and len(opened(p, f"/v1/games/{gid}/stream")) >= 1
        assert len(opened(page, f"POST {server.base}/v1/games/{gid}/actions")) == clicks
    assert clicks >= 1
    result = final["result"]

    # the end screen: a banner with who won and the scores, a rematch and a new game
    banner = page.locator("#end-banner")
    expect(banner).to_be_visible()
    if result["draw"]:
        expect(banner).to_contain_text("draw")
    for winner in result["winners"]:
        entry = final["seats"][winner]
        expect(banner).to_contain_text(entry.get("name") or f"{entry['bot']} bot {winner}")
    if isinstance(result.get("scores"), list):
        for score in result["scores"]:
            expect(banner).to_contain_text(str(score))
    expect(banner.locator("#rematch")).to_be_visible()
    expect(banner.locator("#new-game")).to_have_attribute("href", re.compile(r"/#new-game$"))
    expect(page.locator("#verify")).to_have_class(re.compile(r"\bok\b"))
    assert "so far" not in page.locator("body").inner_text()

    # the last play stays on the table, for the player and for the spectator, as on a reload
    log = all_events(server, gid)
    expect(page.locator("#event-line")).to_contain_text(f"v{log[-1]['version']} · ended")
    expect(watcher.locator("#event-line")).to_contain_text(f"v{log[-1]['version']} · ended")
    expect(watcher.locator("#end-banner")).to_be_visible()
    reloaded = open_page(f"/games/{gid}")
    expect(reloaded.locator("#event-line")).to_contain_text(f"v{log[-1]['version']} · ended")
    expect(reloaded.locator("#last-play")).to_be_visible()
    expected = reloaded.evaluate(LAST_PLAY)
    same_last_play(page, expected)
    same_last_play(watcher, expected)

    shot(page, f"walk-{name}-end")
    page.set_viewport_size(PHONE)
    shot(page, f"walk-{name}-end-phone")

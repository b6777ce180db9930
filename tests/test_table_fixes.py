"""What a new user tripped on in Chromium, each fixed in the viewer: an answer drawn over a
newer view, black suits white on white, "To move" inside a server batch, and developer
wording on the table (the service and the browser: tests/support/browser.py)."""

from __future__ import annotations

import itertools
import json
import re
import time

import pytest

from tests.support.browser import (
    SHORT_BATAYO,
    auth,
    create,
    played_to_the_end,
    record_console_errors,
    shot,
    shown_version,
)
from tests.support.service import all_events

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api").expect


def wait_until(check, timeout: float = 10.0) -> None:
    end = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.05)


def test_the_answer_to_ones_own_move_never_hides_a_newer_view(server, open_page):
    """The answer to our flip is held back until the page has drawn the bot's next flip
    from the live stream; when it comes, older, it must not step the page back ("version 5
    of 6 (live)" with "Back to live to play" instead of the Flip button)."""
    created = create(
        server,
        {
            "game": "bataille",
            "options": {"players": 2, "gather": "ordered"},
            "seats": [{"name": "ana"}, {"bot": "greedy"}],
            "deal": {"packs": [["AS", "KS", "QS"], ["2H", "3H", "4H"]]},
        },
    )
    gid, token = created["id"], created["seats"][0]["token"]
    page = open_page(f"/games/{gid}?token={token}")
    flip = page.locator('#actions button[data-action*="flip"]')
    expect(flip).to_be_enabled()
    held: list = []
    page.route("**/v1/games/*/actions", lambda route: held.append((route, route.fetch())))
    flip.click()
    wait_until(lambda: (page.wait_for_timeout(20), held)[1])
    route, answer = held[0]
    answered = answer.json()["game"]["version"]
    # the bot flips again after our batch: the page draws it from the stream first
    wait_until(lambda: server.client.get(f"/v1/games/{gid}").json["version"] > answered)
    newest = server.client.get(f"/v1/games/{gid}", headers=auth(token)).json
    page.wait_for_function(
        "v => Number(document.querySelector('#version-label').dataset.version) >= v",
        arg=newest["version"],
    )
    route.fulfill(response=answer)
    page.wait_for_timeout(600)  # the old answer is in
    assert shown_version(page) == newest["version"]
    expect(page.locator("#version-label")).to_contain_text("(live)")
    expect(flip).to_be_enabled()
    expect(page.locator("#actions")).not_to_contain_text("Back to live")


CONTRAST = """() => {
  const rgb = (s) => (s.match(/[\\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => {
    const f = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const background = (node) => {
    for (; node; node = node.parentElement) {
      const c = rgb(getComputedStyle(node).backgroundColor);
      if (c.length === 3 || (c.length === 4 && c[3] > 0.5)) return c.slice(0, 3);
    }
    return [255, 255, 255];
  };
  const out = [];
  for (const button of document.querySelectorAll('#you button')) {
    for (const node of [button, ...button.querySelectorAll('*')]) {
      const own = [...node.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
      if (!own) continue;
      const a = lum(rgb(getComputedStyle(node).color)), b = lum(background(node));
      out.push({text: node.textContent.trim(), ratio: (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)});
    }
  }
  return out;
}"""


def test_batak_trump_buttons_are_readable_in_every_suit(server, open_page):
    """The ♠ and ♣ of the trump buttons were white on the white button: every text of every
    button of the seat panel has a contrast of 4.5 or more (WCAG AA)."""
    created = create(
        server,
        {"game": "batak", "options": {"deals": 3}, "seats": [{"name": f"p{i}"} for i in range(4)]},
    )
    gid, tokens = created["id"], [s["token"] for s in created["seats"]]
    bid = False
    while True:  # the others pass; the first to speak bids: then it names trump
        view = server.client.get(f"/v1/games/{gid}").json
        seat = view["to_move"][0]
        legal = server.client.get(f"/v1/games/{gid}", headers=auth(tokens[seat])).json[
            "legal_actions"
        ]
        if legal[0]["type"] == "trump":
            break
        action = next(a for a in legal if a["type"] == ("pass" if bid else "bid"))
        bid = True
        assert (
            server.client.post(
                f"/v1/games/{gid}/actions", json=action, headers=auth(tokens[seat])
            ).status_code
            == 200
        )
    page = open_page(f"/games/{gid}?token={tokens[seat]}")
    expect(page.locator('#actions button[data-action*="trump"]')).to_have_count(4)
    ratios = page.evaluate(CONTRAST)
    suits = [r for r in ratios if r["text"] in "♠♥♦♣"]
    assert len(suits) == 4, ratios
    low = [r for r in ratios if r["ratio"] < 4.5]
    shot(page, "batak-trump-buttons")
    assert low == [], low


def slide_to(page, version: int) -> None:
    """Move the timeline's slider to `version`, as a drag does (an `input` event)."""
    page.evaluate(
        "v => { const s = document.querySelector('#slider'); s.value = String(v);"
        " s.dispatchEvent(new Event('input')); }",
        version,
    )


def asked_to_move(server, gid: str, log: list[dict]) -> tuple[list[int], list[int]]:
    """The versions whose view names someone to move, split in two: inside a move's batch (the
    next event is the server's consequence, not a new move) and where the game waited."""
    inside, waited = [], []
    for event, after in itertools.pairwise(log):
        at = server.client.get(f"/v1/games/{gid}?at={event['version']}").json
        if at["to_move"]:
            (waited if "cause" in after["data"] else inside).append(event["version"])
    return inside, waited


_HELD_EVENTS = """
const realFetch = window.fetch;
let eventFetches = 0;
window.fetch = (input, init) => {
  const url = String(input?.url ?? input);
  if (url.includes("/events") && (!firstOnly || eventFetches++ === 0)) {
    return new Promise((done) => setTimeout(done, holdMs)).then(() => realFetch(input, init));
  }
  return realFetch(input, init);
};
"""


def held_events(ms: int, first_only: bool = False) -> str:
    """A page script that holds back the page's fetches of the events (or only its first) `ms`."""
    return f"const holdMs = {ms}, firstOnly = {json.dumps(first_only)};" + _HELD_EVENTS


def test_replaying_a_version_inside_a_server_batch_names_nobody_to_move(server, open_page):
    """The server writes a move's consequences (the reveal, the trick won, a player out) in
    the move's batch: at those versions nobody was asked to move, and the page says so,
    while at the versions where the game waited it names who was to move."""
    gid = played_to_the_end(server, SHORT_BATAYO)
    log = all_events(server, gid)
    inside, waited = asked_to_move(server, gid, log)
    assert inside and waited  # the deal has both
    page = open_page(f"/games/{gid}")
    expect(page.locator("#version-label")).to_contain_text(f"version {log[-1]['version']}")
    for version in inside + waited[:2]:
        slide_to(page, version)
        page.wait_for_function(
            "v => document.querySelector('#event-line')?.textContent.startsWith('v' + v + ' · ')",
            arg=version,
        )
        summary = page.locator("#summary")
        if version in inside:
            expect(summary).not_to_contain_text("To move")
            expect(page.locator("#table .seat.to-move")).to_have_count(0)
        else:
            expect(summary).to_contain_text("To move")


# Every fetch of the events held back: a version's view comes before the events that say
# whether anyone was asked to move at it.
SLOW_EVENTS = held_events(800)


def test_a_version_inside_a_batch_shown_before_its_events_come_names_nobody_once_they_do(
    server, open_page
):
    """Until the events come the page cannot tell a version inside a move's batch from one
    where the game waited; once they come, the seats stop showing anyone to move, as the
    summary does."""
    gid = played_to_the_end(server, SHORT_BATAYO)
    log = all_events(server, gid)
    inside = asked_to_move(server, gid, log)[0][0]
    page = open_page(f"/games/{gid}", init_script=SLOW_EVENTS)
    expect(page.locator("#version-label")).to_contain_text(f"version {log[-1]['version']}")
    slide_to(page, inside)
    expect(page.locator("#event-line")).to_contain_text(f"v{inside} · ")
    expect(page.locator("#summary")).not_to_contain_text("To move")
    expect(page.locator("#table .seat.to-move")).to_have_count(0)


# The page's first fetch of the events held back: the version chosen meanwhile needs the same
# window of events, which is still on its way.
SLOW_FIRST_EVENTS = held_events(1500, first_only=True)


def test_a_version_chosen_while_its_events_are_on_their_way_gets_its_event_line(server, open_page):
    """A version shown while the events it needs are still coming (fetched for the version
    shown before) gets its event line once they come, not a "…" that never goes away."""
    gid = played_to_the_end(server, SHORT_BATAYO)
    log = all_events(server, gid)
    assert len(log) < 80  # one window of events holds the whole game: both fetches share it
    page = open_page(f"/games/{gid}", init_script=SLOW_FIRST_EVENTS)
    expect(page.locator("#version-label")).to_contain_text(f"version {log[-1]['version']}")
    version = log[2]["version"]
    slide_to(page, version)
    expect(page.locator("#event-line")).to_contain_text(f"v{version} · ")


@pytest.mark.parametrize(
    ("locale", "dealer", "bot"),
    [("fr-FR", "premier donneur", "glouton"), ("tr-TR", "ilk dağıtan", "açgözlü")],  # noqa: RUF001
)
def test_the_table_speaks_the_players_language_not_the_developers(
    server, browser, locale, dealer, bot
):
    """The options strip, the seat names, the title and the event line in the page's
    language, with no raw field names or values; the raw view and event folded away in a
    debug panel; nothing asked for without its translation."""
    created = create(
        server,
        {
            "game": "batak",
            "options": {"deals": 3, "first_dealer": 1},
            "seats": [{"name": "ana"}, {"bot": "greedy"}, {"bot": "greedy"}, {"bot": "greedy"}],
        },
    )
    gid, token = created["id"], created["seats"][0]["token"]
    context = browser.new_context(locale=locale)
    page = context.new_page()
    errors: list[str] = []
    record_console_errors(page, server, errors)
    page.goto(f"{server.base}/games/{gid}?token={token}")
    summary = page.locator("#summary")
    expect(summary).to_contain_text(f"{dealer}: {bot} bot 1" if locale == "tr-TR" else dealer)
    text = summary.inner_text()
    for raw in ("first dealer", "first_dealer", "must overtake", "true", "max rounds", "greedy"):
        assert raw not in text, (raw, text)
    expect(page.locator("#table")).to_contain_text(bot)
    assert gid not in page.locator("#game-title").inner_text()
    assert gid not in page.title()
    line = page.locator("#event-line")
    expect(line).not_to_contain_text("…")
    assert not re.search(r"\b(phase|step|tied|seat|deal|dealer): ", line.inner_text())
    debug = page.locator("#debug")
    expect(debug.locator("#debug-view")).to_be_hidden()
    debug.locator("summary").click()
    expect(debug.locator("#debug-view")).to_contain_text(f'"id": "{gid}"')
    assert page.evaluate("[...window.__i18nMissing]") == []
    shot(page, f"words-{locale}")
    context.close()
    assert errors == []


def test_the_lobby_gives_no_seat_the_name_you(server, open_page):
    """A game made in the lobby without typing a name: "You are Player 1", not "You are you"."""
    lobby = open_page("/")
    lobby.select_option("#new-game-game", "bataille")
    expect(lobby.locator("#seat-0")).to_have_value("")
    lobby.click("#create")
    lobby.wait_for_url(re.compile(r"/games/[0-9a-f]{16}$"))
    expect(lobby.locator("#you-head")).to_contain_text("You are Player 1")

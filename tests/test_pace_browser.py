"""A person against paced bots, in Chromium (docs/api.md#bot-pace): the tab says when it is
their turn, each bot move reaches the page at the game's pace (not at machine speed), and once
they are out "Skip to the end" plays the rest at once (the service and the browser:
tests/support/browser.py)."""

from __future__ import annotations

import itertools
import re
import time

import pytest

from service.core.times import moment
from tests.support.browser import create, shot

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api").expect

PACE_MS = 500

# every version the page shows live, with when it showed it (the page's own clock)
ARRIVALS = """
window.__arrivals = [];
document.addEventListener("DOMContentLoaded", () => {
  const label = document.getElementById("version-label");
  new MutationObserver(() => {
    const v = Number(label.dataset.version);
    const seen = window.__arrivals;
    if (v && (!seen.length || seen[seen.length - 1][0] < v)) seen.push([v, performance.now()]);
  }).observe(label, { attributes: true, attributeFilter: ["data-version"] });
});
"""


def job_arrivals(server, gid: str, page, after: int) -> list[float]:
    """When the page first showed each bot job after version `after` (a job: the bots' moves
    after a server's or a person's event; the page shows a view at most every 200 ms, so a
    job's own events may reach it apart, but its first is what the pace holds back)."""
    events = server.engine.all_events(gid, after)
    starts = [
        event["version"]
        for before, event in itertools.pairwise(events)
        if event["actor"] == "bot" and before["actor"] != "bot"
    ]
    shown = page.evaluate("window.__arrivals")
    out = []
    for version in starts:
        seen = [at for v, at in shown if v >= version]
        if seen:
            out.append(seen[0])
    return out


def test_paced_bots_reach_the_page_at_their_pace_and_a_skip_ends_the_game(server, open_page):
    created = create(
        server,
        {
            "game": "bataille",
            "options": {"players": 3, "bot_pace_ms": PACE_MS, "max_rounds": 400},
            "seats": [{"name": "ana"}, {"bot": "random"}, {"bot": "random"}],
            # docs/rules/bataille.md#rule-7: ana's one card loses the first round: she is out
            "deal": {
                "packs": [
                    ["2S"],
                    ["QS", "3H", "7S", "4S", "9H", "10D", "JC", "5D"],
                    ["KH", "5H", "8D", "9C", "JS", "6C", "QD", "4C"],
                ]
            },
        },
    )
    gid, token = created["id"], created["seats"][0]["token"]
    page = open_page(f"/games/{gid}?token={token}", init_script=ARRIVALS)
    flip = page.locator('#actions button[data-action*="flip"]')
    expect(flip).to_be_enabled()
    expect(page).to_have_title(re.compile("Your turn"))  # the tab says it
    flip.click()
    skip = page.locator("#skip-end")
    expect(skip).to_be_visible()  # ana is out: no person left playing
    expect(page).not_to_have_title(re.compile("Your turn"))
    out_at = server.engine.load(gid)["version"]
    deadline = time.monotonic() + 10
    while len(seen := job_arrivals(server, gid, page, out_at)) < 4:
        assert time.monotonic() < deadline, "the bots stopped"
        page.wait_for_timeout(100)
    gaps = [b - a for a, b in itertools.pairwise(seen)]
    # the page saw each bot job no sooner than the pace after the one before (2x margin for
    # the delivery's jitter); at machine speed they would come within milliseconds
    assert min(gaps) >= PACE_MS / 2, gaps
    # and the service wrote each bot job at least the pace after the event before it
    events = server.engine.all_events(gid, out_at)
    for before, event in itertools.pairwise(events):
        if event["actor"] == "bot" and before["actor"] != "bot":
            gap = (moment(event["at"]) - moment(before["at"])).total_seconds()
            assert gap >= PACE_MS / 1000, (before, event)
    assert server.engine.load(gid)["status"] == "playing"
    shot(page, "pace-skip-offered")
    started = time.monotonic()
    skip.click()
    expect(page.locator("#end-banner")).to_be_visible()
    assert server.engine.load(gid)["status"] == "finished"
    assert time.monotonic() - started < 8
    expect(skip).to_be_hidden()
    shot(page, "pace-skipped-to-the-end")


MOTION = """() => {
  const seat = document.createElement("div");
  seat.className = "seat";
  seat.dataset.pos = "t";
  const card = document.createElement("div");
  card.className = "card flip";
  const last = document.createElement("div");
  last.className = "reveal last-play gather";
  seat.append(card);
  document.getElementById("table").append(seat, last);
  const names = [getComputedStyle(card).animationName, getComputedStyle(last).animationName];
  seat.remove();
  last.remove();
  return names;
}"""


def test_the_form_offers_half_a_second_and_motion_follows_the_users_choice(server, open_page):
    form = open_page("/")
    expect(form.locator("#opt-bot_pace_ms")).to_have_value("500")
    created = create(server, {"game": "bataille", "seats": [{"name": "ana"}, {"bot": "random"}]})
    page = open_page(f"/games/{created['id']}")
    expect(page.locator("#table .seat").first).to_be_visible()
    assert page.evaluate(MOTION) == ["land", "gather"]  # a card slides in, a trick is gathered
    page.emulate_media(reduced_motion="reduce")
    assert page.evaluate(MOTION) == ["none", "none"]

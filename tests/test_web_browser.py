"""In a real browser: the replay viewer and the play page, in headless Chromium
(the service and the browser: tests/support/browser.py). Every test fails on any console error
or uncaught page error. Screenshots go to tests/artifacts/.
"""

from __future__ import annotations

import collections
import json
import re
import time

import pytest

from tests.support.browser import auth, create, finished_tied_game, shot, wait_for_legal

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api").expect

# ---- what the page shows -----------------------------------------------------------------


def shown_version(page) -> int:
    return int(re.search(r"version (\d+)", page.locator("#version-label").inner_text()).group(1))


def wait_version(page, version: int) -> None:
    expect(page.locator("#version-label")).to_contain_text(f"version {version} of")
    page.wait_for_function(
        "v => document.querySelector('#event-line')?.textContent.startsWith('v' + v)", arg=version
    )


def cards_on_table(page) -> dict:
    """The cards drawn on the felt: per seat panel and in the middle ("" is a face-down card)."""
    return page.evaluate(
        """() => {
          const codes = (root) => [...root.querySelectorAll('.card')].map(c => c.dataset.card);
          const out = {center: codes(document.querySelector('#center'))};
          for (const seat of document.querySelectorAll('#table .seat'))
            out[seat.dataset.seat] = codes(seat.querySelector('.seat-cards'));
          return out;
        }"""
    )


def bataille_cards(view: dict) -> dict:
    """What a Bataille view says is on the table, in the page's order."""
    t = view["table"]
    out = {"center": t["face_up"] + [""] * (t["pot"] - len(t["face_up"]))}
    for p in t["players"]:
        mine = [""] * p["down"]
        if p["up"]:
            mine.append(p["up"])
        elif p["has_put"]:
            mine.append("")
        out[str(p["seat"])] = mine
    return out


# ---- the tests ---------------------------------------------------------------------------


def test_a_finished_game_steps_to_each_tie_and_shows_the_apis_cards(server, open_page):
    gid = finished_tied_game(server)
    page = open_page(f"/games/{gid}")
    expect(page.locator("#result")).to_contain_text("Won by ana")
    expect(page.locator("#verify")).to_have_class(re.compile(r"\bok\b"))
    expect(page.locator("#verify")).to_contain_text("Verified")
    ties = server.client.get(f"/v1/games/{gid}/ties").json["ties"]
    steps = page.locator("#ties .tie").first.locator(".step")
    expect(steps).to_have_count(len(ties[0]["steps"]))
    for i in range(len(ties[0]["steps"])):
        target = int(steps.nth(i).get_attribute("data-version"))
        assert target in ties[0]["steps"][i]["versions"]
        steps.nth(i).click()
        wait_version(page, target)
        expect(steps.nth(i)).to_have_class(re.compile(r"\bactive\b"))
        api_view = server.client.get(f"/v1/games/{gid}?at={target}").json
        assert cards_on_table(page) == bataille_cards(api_view), f"version {target}"
        if i == 0:  # the bataille itself: QS against QH (docs/rules/bataille.md#rule-4)
            shot(page, "tie-step-1")
            assert {"QS", "QH"} <= {c for cs in cards_on_table(page).values() for c in cs}
    # the step buttons of the timeline agree with the API too
    page.locator("#prev").click()
    wait_version(page, target - 1)
    api_view = server.client.get(f"/v1/games/{gid}?at={target - 1}").json
    assert cards_on_table(page) == bataille_cards(api_view)
    page.locator("#first").click()
    wait_version(page, 1)
    page.locator("#last").click()
    wait_version(page, server.client.get(f"/v1/games/{gid}").json["version"])
    # red suits are red, black suits black
    assert "red" in page.locator('#ties .ctext[data-card="QH"]').first.get_attribute("class")
    assert "black" in page.locator('#ties .ctext[data-card="QS"]').first.get_attribute("class")
    shot(page, "finished-game")


def test_a_running_game_advances_live_on_the_page(server, open_page):
    created = create(
        server,
        {
            "game": "batayo",
            "options": {"format": "express", "move_timeout_s": 600},
            "seats": [{"name": "ana"}, {"bot": "greedy"}],
        },
    )
    gid, token = created["id"], created["seats"][0]["token"]
    page = open_page(f"/games/{gid}")  # a spectator, following the stream
    expect(page.locator("#live-state")).to_contain_text("live")
    start = shown_version(page)
    expect(page.locator('#table .seat[data-seat="0"] .clock')).to_contain_text("left")
    for _ in range(4):  # ana plays through the API while the page watches
        view = wait_for_legal(server, gid, token)
        if view["status"] == "finished":
            break
        r = server.client.post(
            f"/v1/games/{gid}/actions", json=view["legal_actions"][0], headers=auth(token)
        )
        assert r.status_code == 200, r.json
        now = server.client.get(f"/v1/games/{gid}").json
        page.wait_for_function(
            "v => Number(document.querySelector('#version-label').textContent"
            ".match(/version (\\d+)/)[1]) >= v",
            arg=now["version"],
        )
    assert shown_version(page) > start
    # the page shows what the API shows at the version on screen
    shown = shown_version(page)
    api_view = server.client.get(f"/v1/games/{gid}?at={shown}").json
    for p in api_view["table"]["players"]:
        stats = page.locator(f'#table .seat[data-seat="{p["seat"]}"] .seat-stats').inner_text()
        assert f"pack {p['pack']}" in stats and f"hand {p['hand']}" in stats
    shot(page, "live-game")


def test_a_person_plays_batayo_to_the_end_with_clicks(server, open_page):
    page = open_page("/")
    page.select_option("#new-game-game", "batayo")
    page.select_option("#opt-format", "express")
    # a bounded game: a first-card player against greedy can go round for the 2,000 tricks
    # of the default (the game then ends on most cards, which the check below accepts too)
    page.fill("#opt-max_rounds", "40")
    expect(page.locator("#seat-1")).to_have_value("bot:greedy")
    page.fill("#seat-0", "tester")
    page.click("#create")
    page.wait_for_url(re.compile(r"/games/[0-9a-f]{16}$"))
    gid = page.url.rsplit("/", 1)[1]
    expect(page.locator("#you-head")).to_contain_text("You are tester")
    posted: list[int] = []  # the status of every action the page posts
    page.on(
        "response",
        lambda r: (
            posted.append(r.status)
            if r.request.method == "POST" and r.url.endswith("/actions")
            else None
        ),
    )
    requests: list[str] = []  # every API request of the page
    page.on("request", lambda r: requests.append(r.url) if "/v1/" in r.url else None)
    cards = page.locator("#hand .card-btn")
    result = page.locator("#result")
    clicks = 0
    deadline = time.monotonic() + 90
    while not result.is_visible():
        assert time.monotonic() < deadline, f"no end after {clicks} clicks"
        try:
            cards.first.click(timeout=300)
        except Exception:  # nothing to click now: the bot or the reveal is still to come
            continue
        clicks += 1
        if clicks == 1:
            shot(page, "playing-batayo")
    final = server.client.get(f"/v1/games/{gid}").json
    assert final["status"] == "finished"
    expect(result).to_contain_text(final["result"]["reason"].replace("_", " "))
    expect(page.locator("#verify")).to_have_class(re.compile(r"\bok\b"))
    # every card of seat 0 was committed by a click on the page, and none was refused
    log = server.client.get(f"/v1/games/{gid}/events?limit=1000").json["events"]
    mine = [e for e in log if e["type"] == "committed" and e["data"]["seat"] == 0]
    assert posted == [200] * len(mine) and len(mine) >= 2
    # the page is sparing: about one view per move, whatever the stream brings
    assert len(requests) <= 4 * len(mine) + 30, collections.Counter(
        re.sub(r"^.*/v1/games/[0-9a-f]+", "", u).split("?")[0] for u in requests
    )
    shot(page, "played-batayo")


def test_a_narrow_screen_has_no_horizontal_overflow_and_reachable_buttons(server, open_page):
    gid = finished_tied_game(server)
    created = create(
        server,
        {
            "game": "batayo",
            "options": {"format": "express"},
            "seats": [{"name": "m"}, {"bot": "greedy"}],
        },
    )
    playing, token = created["id"], created["seats"][0]["token"]
    wait_for_legal(server, playing, token)
    for name, path in [
        ("mobile-list", "/"),
        ("mobile-finished", f"/games/{gid}"),
        ("mobile-playing", f"/games/{playing}?token={token}"),
    ]:
        page = open_page(path, width=375, height=740)
        if name == "mobile-list":
            expect(page.locator(".game-row").first).to_be_visible()
        else:
            expect(page.locator("#event-line")).to_contain_text("v")
        if name == "mobile-playing":
            expect(page.locator("#hand .card-btn").first).to_be_visible()
            assert "token" not in page.url  # the token is kept out of the address
        overflow = page.evaluate(
            """() => {
              const width = document.documentElement.clientWidth;
              const wide = [...document.querySelectorAll('body *')].filter(n => {
                const r = n.getBoundingClientRect();
                return r.width > 0 && (r.right > width + 1 || r.left < -1)
                  && !n.closest('.ties-list, pre');
              }).map(n => n.tagName + '#' + n.id + '.' + n.className);
              return {scroll: document.documentElement.scrollWidth, width, wide};
            }"""
        )
        assert overflow["scroll"] <= 375 and overflow["wide"] == [], (name, overflow)
        buttons = page.locator("button:visible")
        assert buttons.count() > 0
        for i in range(buttons.count()):
            box = buttons.nth(i).bounding_box()
            assert box and box["x"] >= 0 and box["x"] + box["width"] <= 375, (name, i, box)
            assert box["height"] >= 24, (name, i, box)  # big enough to tap
        shot(page, name)
        if name == "mobile-playing":  # a tap on a card plays it
            before = server.client.get(f"/v1/games/{playing}").json["version"]
            page.locator("#hand .card-btn").first.click()
            page.wait_for_function(
                "v => Number(document.querySelector('#version-label').textContent"
                ".match(/version (\\d+)/)[1]) > v",
                arg=before,
            )
            events = server.client.get(f"/v1/games/{playing}/events?limit=1000").json["events"]
            assert any(e["actor"] == 0 and e["type"] == "committed" for e in events)


def test_the_list_filters_by_game_and_status(server, open_page):
    finished_tied_game(server)
    page = open_page("/")
    expect(page.locator(".game-row").first).to_be_visible()
    page.select_option("#filter-game", "bataille")
    page.select_option("#filter-status", "finished")
    expect(page).to_have_url(re.compile(r"game=bataille&status=finished"))
    rows = page.locator(".game-row")
    expect(rows.first).to_be_visible()
    api = server.client.get("/v1/games?game=bataille&status=finished").json["games"]
    expect(rows).to_have_count(len(api))
    for i in range(rows.count()):
        assert rows.nth(i).get_attribute("data-game") == "bataille"
        assert rows.nth(i).get_attribute("data-status") == "finished"
    rows.first.locator("a").click()
    page.wait_for_url(re.compile(r"/games/[0-9a-f]{16}$"))
    expect(page.locator("#summary")).to_contain_text("finished")
    shot(page, "list-filtered")


def test_each_game_renders_its_table(server, open_page):
    """A quick look at every game's table: bots play, the page draws cards and seat counts."""
    bodies = [
        {
            "game": "batak",
            "seats": [{"name": "b"}, {"bot": "greedy"}, {"bot": "greedy"}, {"bot": "greedy"}],
        },
        {"game": "roylet", "seats": [{"name": "r"}, {"bot": "greedy"}, {"bot": "greedy"}]},
        {
            "game": "bataille",
            "options": {"variant": "ouverte"},
            "seats": [{"name": "o"}, {"bot": "greedy"}],
        },
    ]
    for body in bodies:
        created = create(server, body)
        gid, token = created["id"], created["seats"][0]["token"]
        view = wait_for_legal(server, gid, token)
        page = open_page(f"/games/{gid}?token={token}")
        expect(page.locator("#you-head")).to_contain_text("You are")
        expect(page.locator("#actions button, #hand .card-btn").first).to_be_visible()
        hand = view["table"].get("hand") or view["table"].get("pack") or []
        shown = page.locator("#hand .card").evaluate_all("ns => ns.map(n => n.dataset.card)")
        assert shown == hand, body["game"]
        expect(page.locator("#table .seat")).to_have_count(len(view["seats"]))
        shot(page, f"table-{body['game']}")
        # play one legal action by clicking, as listed
        button = page.locator("#actions button.action, #hand .card-btn").first
        action = json.loads(button.get_attribute("data-action"))
        assert action in view["legal_actions"]
        button.click()
        page.wait_for_function(
            "v => Number(document.querySelector('#version-label').textContent"
            ".match(/version (\\d+)/)[1]) > v",
            arg=view["version"],
        )

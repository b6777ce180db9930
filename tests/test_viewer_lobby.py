"""The viewer in Chromium, around the table: a friend joins from the open games or an invite
link, a seat moves to another device, a finished game offers a rematch; Roylet's face choice
beside a bot Ally and Bataille ouverte's two steps. Each test quotes the behaviour it checks;
the service and the browser are tests/support/browser.py's (one of each for this module), and
every page fails its test on a console error.
"""

from __future__ import annotations

import json
import re
import time

import pytest

from tests.support.browser import PHONE, auth, create, shot, wait_for_legal
from tests.support.processes import wait_until
from tests.support.service import all_events

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api").expect


# ---- 1. the lobby: open games, an invite link, a seat link, a rematch -----------------------


def test_a_friend_joins_from_the_open_games_or_the_invite_link(server, browser, open_page):
    """Point 5: "Lobby: open games to join, a share link that seats a friend"."""
    page = open_page("/")
    page.select_option("#new-game-game", "batayo")
    page.select_option("#opt-format", "express")
    page.fill("#seat-0", "host")
    page.select_option("#seat-1", "open")
    page.click("#create")
    page.wait_for_url(re.compile(r"/games/[0-9a-f]{16}$"))
    gid = page.url.rsplit("/", 1)[1]
    invite = page.locator("#invite-link")
    expect(invite).to_have_value(f"{server.base}/games/{gid}#join")
    # a friend on another device opens the link: a seat is offered, they take it
    friend = browser.new_context().new_page()
    friend.goto(invite.input_value())
    expect(friend.locator("#join-banner")).to_be_visible()
    expect(friend.locator("#join-name")).to_be_focused()
    friend.fill("#join-name", "friend")
    friend.locator("#join-form button").click()
    expect(friend.locator("#you-head")).to_contain_text("You are friend")
    assert server.client.get(f"/v1/games/{gid}").json["status"] == "playing"
    friend.context.close()
    # the open games list: a game with an open seat, joined from the front page
    created = create(
        server, {"game": "roylet", "seats": [{"bot": "greedy"}, {"open": True}, {"bot": "greedy"}]}
    )
    lobby = open_page("/")
    row = lobby.locator(f'.open-row[data-id="{created["id"]}"]')
    expect(row).to_be_visible()
    shot(lobby, "lobby-open-games")
    row.locator("input").fill("joiner")
    row.locator("button").click()
    lobby.wait_for_url(re.compile(rf"/games/{created['id']}$"))
    expect(lobby.locator("#you-head")).to_contain_text("You are joiner")


def test_a_seat_moves_to_another_device_with_its_seat_link(server, browser, open_page):
    """Point 5: "a way to move a seat to another device (a copyable seat link)"."""
    created = create(
        server,
        {
            "game": "batayo",
            "options": {"format": "express"},
            "seats": [{"name": "mo"}, {"bot": "greedy"}],
        },
    )
    gid, token = created["id"], created["seats"][0]["token"]
    page = open_page(f"/games/{gid}?token={token}")
    link = page.locator("#seat-link")
    expect(link).to_have_value(f"{server.base}/games/{gid}?token={token}")
    other = browser.new_context(viewport=PHONE).new_page()  # no token saved there
    other.goto(link.input_value())
    expect(other.locator("#you-head")).to_contain_text("You are mo")
    assert "token" not in other.url  # kept in that browser, out of the address
    other.context.close()


def test_a_finished_game_offers_a_rematch_with_the_same_settings(server, open_page):
    """Point 5: "rematch with the same settings"."""
    created = create(
        server,
        {
            "game": "bataille",
            "options": {"deck": 32, "max_rounds": 5},
            "seats": [{"name": "rita"}, {"bot": "greedy"}],
        },
    )
    gid, token = created["id"], created["seats"][0]["token"]
    while server.client.get(f"/v1/games/{gid}").json["status"] != "finished":
        view = wait_for_legal(server, gid, token)
        if view["legal_actions"]:
            server.client.post(
                f"/v1/games/{gid}/actions", json={"type": "flip"}, headers=auth(token)
            )
    old = server.client.get(f"/v1/games/{gid}").json
    page = open_page(f"/games/{gid}?token={token}")
    page.locator("#rematch").click()
    page.wait_for_url(re.compile(rf"/games/(?!{gid})[0-9a-f]{{16}}$"))
    new = server.client.get(f"/v1/games/{page.url.rsplit('/', 1)[1]}").json
    assert new["game"] == old["game"] and new["options"] == old["options"]
    assert [s.get("bot") for s in new["seats"]] == [s.get("bot") for s in old["seats"]]
    expect(page.locator("#you-head")).to_contain_text("You are rita")


# ---- 2. Roylet's face choice with a bot Ally; Bataille ouverte's two steps -----------------


def test_a_human_ally_chooses_the_face_before_the_bot_ally(server, open_page):
    """Point 6: "Roylet with a bot Ally: the bot lets a human Ally choose the face" (it waits,
    bot_patience); the page asks for a card, then its face: no refused move."""
    created = create(
        server, {"game": "roylet", "seats": [{"bot": "greedy"}, {"name": "al"}, {"bot": "greedy"}]}
    )
    gid, token = created["id"], created["seats"][1]["token"]
    page = open_page(f"/games/{gid}?token={token}")
    statuses: list[int] = []
    page.on("response", lambda r: statuses.append(r.status) if r.url.endswith("/actions") else None)
    for battle in range(3):
        view = wait_for_legal(server, gid, token)
        faces = {a.get("face") for a in view["legal_actions"]}
        card = page.locator("#hand .card-btn.pick").first
        expect(card).to_be_visible()
        card.click()
        expect(page.locator("#prompt")).to_be_visible()
        face = "down" if "down" in faces else "up"
        choice = page.locator(f'#actions button.action[data-action*=\'"face":"{face}"\']')
        choice.click()
        page.wait_for_function(
            "v => Number(document.querySelector('#version-label').dataset.version) > v",
            arg=view["version"],
        )
        if battle == 0:
            assert faces == {"down", "up"}  # the bot Ally waited: both faces were free
            shot(page, "roylet-ally-face")
        mine = [
            e for e in all_events(server, gid) if e["type"] == "played" and e["data"]["seat"] == 1
        ]
        assert mine[-1]["data"]["face"] == face
        end = time.monotonic() + 10
        while (
            server.client.get(f"/v1/games/{gid}").json["table"]["battle"]
            == mine[-1]["data"]["battle"]
        ):
            assert time.monotonic() < end
            time.sleep(0.05)
    assert statuses == [200, 200, 200]  # no face_taken refusal


def test_bataille_ouverte_chooses_the_face_up_card_then_the_face_down_one(server, open_page):
    """Point 6: "Bataille ouverte: choose the face-up card, then the face-down one, not a list
    of pairs" (the API's legal actions stay the pairs: a viewer change only)."""
    deal = {"packs": [["QS", "2S", "7S", "4S", "AS"], ["QH", "3H", "7H", "5H", "8H"]]}
    created = create(
        server,
        {
            "game": "bataille",
            "options": {"variant": "ouverte"},
            "seats": [{"name": "ou"}, {"bot": "greedy"}],
            "deal": deal,
        },
    )
    gid, token = created["id"], created["seats"][0]["token"]
    page = open_page(f"/games/{gid}?token={token}")
    page.locator('#hand .card-btn[data-card="QS"]').click()  # the bot plays its Q: a bataille
    view = None
    end = time.monotonic() + 10
    while time.monotonic() < end:
        view = server.client.get(f"/v1/games/{gid}", headers=auth(token)).json
        if view["table"]["bataille"] and view["legal_actions"]:
            break
        time.sleep(0.05)
    assert view["table"]["bataille"] == 1
    pairs = view["legal_actions"]
    assert len(pairs) == len(view["table"]["pack"]) * (len(view["table"]["pack"]) - 1)
    # the page shows the bataille (its version at least the one read above) before a click
    page.wait_for_function(
        "v => Number(document.querySelector('#version-label').dataset.version) >= v",
        arg=view["version"],
    )
    expect(page.locator("#prompt")).to_contain_text("Choose a card")
    # one button per card, not one per pair
    assert page.locator("#you button").count() <= len(view["table"]["pack"]) + 2
    page.locator('#hand .card-btn[data-card="AS"]').click()
    expect(page.locator("#prompt")).to_contain_text("face down")
    shot(page, "ouverte-two-step")
    down = page.locator("#hand .card-btn.down-choice").first
    action = json.loads(down.get_attribute("data-action"))
    assert action in pairs and action["card"] == "AS"
    down.click()

    def mine() -> list[dict]:
        events = all_events(server, gid)
        return [e for e in events if e["type"] == "committed" and e["data"]["seat"] == 0]

    # the bot's own commit can move the page on first: wait for the seat's second commit
    assert wait_until(lambda: len(mine()) == 2, 10)
    assert mine()[-1]["data"]["card"] == "AS"
    page.wait_for_function(  # and the page shows it
        "v => Number(document.querySelector('#version-label').dataset.version) >= v",
        arg=mine()[-1]["version"],
    )

"""The game page over the game's WebSocket, in Chromium, on `batayo serve` (tests/support/
browser.py `socket_server`): a spectator follows a game on the socket alone to its end and
draws the end as a reload does; a seat's token goes in the socket's first frame and never in
a URL the page opens; `?transport=sse` follows over the event stream and POST instead."""

from __future__ import annotations

import json
import time

import pytest

from tests.support.browser import auth, create
from tests.support.processes import wait_until
from tests.support.service import all_events
from tests.test_table_walk import LAST_PLAY, same_last_play

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api").expect

# Two people, the test flipping for both: nothing moves until it does. Q against Q is a
# bataille, then the ace takes all.
TWO_PEOPLE = {
    "game": "bataille",
    "options": {"players": 2, "gather": "ordered"},
    "seats": [{"name": "ana"}, {"name": "bob"}],
    "deal": {"packs": [["QS", "2S", "AS"], ["QH", "3H", "KH"]]},
}
AGAINST_A_BOT = {
    "game": "batayo",
    "options": {"players": 2, "format": "express", "max_rounds": 30},
    "seats": [{"name": "ana"}, {"bot": "greedy"}],
    "deal": {"packs": [["AS", "KS", "8S"], ["AH", "7H", "9H"]]},
}


@pytest.fixture(scope="module")
def server(socket_server):
    return socket_server


def frames_sent(page) -> list[dict]:
    """What the page sent on each of its sockets, recorded from when it opened them."""
    return [json.loads(f) for ws in page.sockets for f in getattr(ws, "sent", [])]


def record_frames(page) -> None:
    def on_socket(ws) -> None:
        ws.sent = []
        ws.on("framesent", lambda payload: ws.sent.append(payload))

    page.on("websocket", on_socket)


def test_a_spectator_follows_a_game_over_the_socket_to_its_end_as_a_reload_draws_it(
    server, open_page
):
    created = create(server, TWO_PEOPLE)
    gid, tokens = created["id"], [s["token"] for s in created["seats"]]
    watcher = open_page(f"/games/{gid}")
    expect(watcher.locator("#live-state")).to_have_class("live-state live")
    base = f"{server.base}/v1/games/{gid}"
    for _ in range(50):
        view = server.client.get(f"/v1/games/{gid}").json
        if view["status"] == "finished":
            break
        # the page shows each stop live before the next move
        expect(watcher.locator("#version-label")).to_have_attribute(
            "data-version", str(view["version"])
        )
        for seat in view["to_move"]:
            r = server.client.post(
                f"/v1/games/{gid}/actions", json={"type": "flip"}, headers=auth(tokens[seat])
            )
            assert r.status_code == 200, r.json
    log = all_events(server, gid)
    assert log[-1]["type"] == "ended"
    expect(watcher.locator("#event-line")).to_contain_text(f"v{log[-1]['version']} · ended")
    expect(watcher.locator("#end-banner")).to_be_visible()
    expect(watcher.locator("#live-state")).to_have_text("")

    reloaded = open_page(f"/games/{gid}")
    expect(reloaded.locator("#event-line")).to_contain_text(f"v{log[-1]['version']} · ended")
    same_last_play(watcher, reloaded.evaluate(LAST_PLAY))
    assert (
        watcher.locator("#end-banner").inner_text() == reloaded.locator("#end-banner").inner_text()
    )

    # one socket, never reopened after the server's close at the end; no event stream; the
    # views came on it (the page fetched the view only to start)
    assert [ws.url.split("?")[0] for ws in watcher.sockets] == [f"ws{base[4:]}/socket"]
    assert "view=1" in watcher.sockets[0].url
    assert [r for r in watcher.requests if "/stream" in r] == []
    assert watcher.requests.count(f"GET {base}") == 1
    time.sleep(1)  # a reconnection would come within its first delay (0.5 s)
    assert len(watcher.sockets) == 1


# The page's socket with every `acted` frame held back until the test calls
# `__releaseActed()`: the answer's view, and newer ones, come before it.
HOLD_ACTED = """
const Real = window.WebSocket;
const held = [];
window.__releaseActed = () => held.splice(0).forEach((deliver) => deliver());
window.WebSocket = class extends Real {
  set onmessage(handle) {
    super.onmessage = (m) =>
      String(m.data).includes('"acted"') ? held.push(() => handle(m)) : handle(m);
  }
};
"""


def test_buttons_drawn_while_an_action_is_on_its_way_wait_for_its_answer(server, open_page):
    """Until its `acted` comes, the seat's panel says it is busy and every button in it is
    disabled, those drawn from views pushed meanwhile too (a click there would do nothing);
    the answer frees them."""
    created = create(server, TWO_PEOPLE)
    gid, tokens = created["id"], [s["token"] for s in created["seats"]]
    page = open_page(f"/games/{gid}?token={tokens[0]}", init_script=HOLD_ACTED)
    flip = page.locator('#actions button[data-action*="flip"]')
    panel = page.locator("#you")
    expect(flip).to_be_enabled()
    flip.click()
    expect(panel).to_have_attribute("aria-busy", "true")

    def ana_waits_for_bob() -> bool:  # her flip is in
        return not server.client.get(f"/v1/games/{gid}", headers=auth(tokens[0])).json[
            "legal_actions"
        ]

    assert wait_until(ana_waits_for_bob, 5), "ana's flip never reached the game"
    # bob flips too: Q against Q, a bataille, and ana has to flip again
    r = server.client.post(
        f"/v1/games/{gid}/actions", json={"type": "flip"}, headers=auth(tokens[1])
    )
    assert r.status_code == 200, r.json
    newest = server.client.get(f"/v1/games/{gid}", headers=auth(tokens[0])).json
    assert newest["legal_actions"] == [{"type": "flip"}]
    expect(page.locator("#version-label")).to_have_attribute("data-version", str(newest["version"]))
    assert panel.get_attribute("aria-busy") == "true"
    expect(flip).to_be_disabled()
    page.evaluate("__releaseActed()")
    expect(panel).to_have_attribute("aria-busy", "false")
    expect(flip).to_be_enabled()


def test_the_seat_token_is_in_no_url_the_page_opens(server, browser, open_page):
    created = create(server, AGAINST_A_BOT)
    gid, token = created["id"], created["seats"][0]["token"]
    # the seat link carries the token once, for the page to keep and drop from the address
    page = open_page(f"/games/{gid}?token={token}")
    record_frames(page)
    page.reload()  # the token is kept in this browser now; the reload records the socket
    assert token not in page.url
    button = page.locator("#you button[data-action]").first
    expect(button).to_be_visible()
    version = int(page.locator("#version-label").get_attribute("data-version"))
    button.click()
    page.wait_for_function(
        "v => Number(document.querySelector('#version-label').dataset.version) > v", arg=version
    )
    later = [ws for ws in page.sockets if hasattr(ws, "sent")]
    assert later, "the page opened no socket"
    sent = frames_sent(page)
    assert sent[0] == {"auth": token}  # the token's one way in: the socket's first frame
    assert any("act" in f for f in sent[1:]), sent
    urls = page.requests[1:] + [ws.url for ws in page.sockets]  # after the seat link itself
    assert [u for u in urls if token in u] == []
    assert [r for r in page.requests if r.startswith("POST") and "/actions" in r] == []


def test_transport_sse_follows_over_the_event_stream_and_posts(server, open_page):
    created = create(server, AGAINST_A_BOT)
    gid, token = created["id"], created["seats"][0]["token"]
    page = open_page(f"/games/{gid}?transport=sse&token={token}")
    assert token not in page.url and "transport=sse" in page.url
    button = page.locator("#you button[data-action]").first
    expect(button).to_be_visible()
    version = int(page.locator("#version-label").get_attribute("data-version"))
    button.click()
    page.wait_for_function(
        "v => Number(document.querySelector('#version-label').dataset.version) > v", arg=version
    )
    assert page.sockets == []
    assert any(f"/v1/games/{gid}/stream" in r for r in page.requests)
    assert any(r.startswith(f"POST {server.base}/v1/games/{gid}/actions") for r in page.requests)
    assert [u for u in page.requests[1:] if token in u] == []

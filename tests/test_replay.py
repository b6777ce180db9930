"""`batayo replay`: the terminal replay, drawn from the public API of an in-process service."""

from __future__ import annotations

import io
import re

import pytest
from click.testing import CliRunner
from rich.console import Console

from service.cli.replay import (
    Client,
    Replay,
    decode_key,
    next_version,
    render,
    replay,
    seat_tables,
    step_at,
    step_loop,
    tie_at,
)
from service.core.registry import GAMES
from service.core.state import fold
from service.core.views import game_view
from tests.support.service import Service, tied_game


def fetch_of(svc: Service):
    """The replay client's transport, through the spec-checked Flask test client."""

    def fetch(path: str, headers: dict) -> tuple[int, bytes]:
        response = svc.client.get(path, headers=headers)
        return response.status_code, response.get_data()

    return fetch


def session(svc: Service, gid: str, token: str | None = None, seat: int | None = None) -> Replay:
    return Replay(Client(gid, "http://test", token, fetch_of(svc)), seat=seat)


def text_of(renderable, width: int = 100) -> str:
    console = Console(record=True, width=width, file=io.StringIO())
    console.print(renderable)
    return console.export_text()


def styles_of(renderable, needle: str, width: int = 100) -> list[str]:
    """The styles of the pieces of the drawing whose text contains `needle`."""
    console = Console(width=width, file=io.StringIO(), color_system="truecolor")
    return [
        str(segment.style)
        for segment in console.render(renderable)
        if needle in segment.text and segment.style
    ]


def test_a_bataille_is_drawn_step_by_step_with_its_tie_highlighted(svc):
    gid, _ = tied_game(svc)
    replay_ = session(svc, gid)
    assert replay_.last == 12 and len(replay_.events) == 12 and len(replay_.ties) == 1
    assert replay_.marks == [3]

    before = text_of(replay_.frame(2))
    assert "version 2 / 12" in before and "BATAILLE" not in before  # no tie yet
    assert "#0 ana" in before and "#2 cy" in before

    # v4: Q♠ and Q♥ are down, the tie's first step is under way (cy has not flipped yet)
    first = replay_.frame(4)
    drawn = text_of(first)
    assert "⚔ BATAILLE" in drawn and "step 1" in drawn and "Q♠" in drawn and "Q♥" in drawn
    assert "3♦" not in drawn.split("┗")[0]  # the banner shows only the cards already down
    assert re.search(r"▶ +│ #2 cy", drawn)  # cy is to move
    assert any("yellow" in s for s in styles_of(first, "⚔ BATAILLE"))
    assert any("yellow" in s for s in styles_of(first, "⚔4"))  # the event row is marked
    assert any("red" in s for s in styles_of(first, "Q♥"))
    assert any("black" in s and "red" not in s for s in styles_of(first, "Q♠"))

    # v8: the 7s on the hidden cards, step 2 of the same episode
    second = text_of(replay_.frame(8))
    assert "step 2" in second and "7♠" in second and "7♥" in second and "(▒▒)" in second
    assert "tied=0, 1" in second  # what step 1 decided
    assert "flipped" in second and "#1 bob" in second  # the last events

    # v12: over, with the winner, every step shown
    done = text_of(replay_.frame(12))
    assert "step 3 of 3" in done and "A♠" in done and "K♥" in done and "winner=0" in done
    assert "took" in done and "count=11" in done
    assert "winner=0 cards=11" in done.split("ties (1)")[1]


def test_the_tie_helpers_follow_versions(svc):
    gid, _ = tied_game(svc)
    ties = svc.client.get(f"/v1/games/{gid}/ties").json["ties"]
    assert tie_at(ties, 2) is None and tie_at(ties, 13) is None
    assert tie_at(ties, 3) is ties[0] and tie_at(ties, 12) is ties[0]
    assert [step_at(ties[0], v) for v in (3, 6, 7, 9, 10, 12)] == [0, 0, 1, 1, 2, 2]


def test_a_token_shows_that_seats_hidden_cards(svc):
    created = svc.client.post(
        "/v1/games",
        json={
            "game": "bataille",
            "options": {"variant": "ouverte"},
            "seats": [{"name": "ana"}, {"name": "bob"}],
            "deal": {"packs": [["QS", "2S", "7S"], ["QH", "3H", "7H"]]},
        },
    ).json
    gid, ana = created["id"], created["seats"][0]["token"]
    mine = text_of(session(svc, gid, token=ana).frame(2))
    assert "pack: Q♠ 2♠ 7♠" in mine and "#0 ana" in mine
    spectator = text_of(session(svc, gid, seat=1).frame(2))
    assert "seat 1's cards are hidden" in spectator and "Q♥ 3♥" not in spectator


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_game_renders_a_finished_bot_game(svc, game):
    rules = {g["id"]: g for g in svc.client.get("/v1/rules").json["games"]}
    seats = [{"bot": "random"}] * rules[game]["seats"]["min"]
    options = {"max_rounds": 40} if game == "bataille" else {}
    created = svc.client.post("/v1/games", json={"game": game, "seats": seats, "options": options})
    assert created.status_code == 201, created.json
    svc.run_jobs()
    gid = created.json["id"]
    replay_ = session(svc, gid)
    assert replay_.finished and len(replay_.events) == replay_.last
    assert [e["version"] for e in replay_.events] == list(range(1, replay_.last + 1))
    for version in (1, 2, 3, replay_.last // 2, replay_.last):
        drawn = text_of(replay_.frame(version), width=120)
        assert f"version {version} / {replay_.last}" in drawn
        assert f"events up to {version}" in drawn and "#0" in drawn
        assert "Traceback" not in drawn
    final = text_of(replay_.frame(replay_.last))
    assert "finished" in final and "result:" in final and "ended" in final
    # after the end every seat's view is rebuilt from the public log, the same as the API's
    middle = replay_.last // 2
    assert game_view(fold(replay_.events[:middle]), None) == replay_.view(middle)
    tables = seat_tables(replay_.events, middle, None)
    assert tables is not None and sorted(tables) == list(range(len(seats)))
    # and a narrow terminal does not break anything
    assert "version" in text_of(replay_.frame(middle), width=60)


def test_render_draws_unknown_shapes_generically():
    view = {
        "id": "x",
        "game": "newgame",
        "version": 3,
        "status": "playing",
        "seats": [{"seat": 0, "name": "ana"}, {"seat": 1, "bot": "greedy"}],
        "you": None,
        "to_move": [1],
        "table": {
            "scores": [5, 7],
            "trump": "H",
            "board": {"left": ["10D", None], "right": {"deep": [1, 2]}},
            "history": [{"seat": 0, "card": "AS", "n": 1, "note": "lead", "x": [1]}],
            "label": "hello",
        },
        "result": None,
    }
    events = [{"version": 3, "type": "moved", "actor": 1, "data": {"seat": 1, "card": None}}]
    drawn = text_of(render(view, events, []))
    assert "newgame" in drawn and "version 3 / 3" in drawn
    assert "scores" in drawn and "#1 greedy (bot)" in drawn  # a per-seat list as a column
    assert "trump:" in drawn and "♥" in drawn and "10♦ ▒▒" in drawn and "deep=1, 2" in drawn
    assert "A♠" in drawn and "lead" in drawn and "hello" in drawn and "moved" in drawn
    assert "ties" not in drawn
    # not even a dict is needed
    assert "?" in text_of(render({"table": [1, "x"]}, [], []))


def test_keys_move_between_versions_clamped_to_the_game():
    assert next_version("right", 5, 10) == 6
    assert next_version("n", 10, 10) == 10
    assert next_version("space", 1, 10) == 2
    assert next_version("left", 5, 10) == 4
    assert next_version("p", 1, 10) == 1
    assert next_version("home", 7, 10) == 1
    assert next_version("end", 2, 10) == 10
    assert next_version("G", 2, 10) == 10 and next_version("g", 9, 10) == 1
    assert next_version("down", 95, 100) == 100 and next_version("up", 5, 100) == 1
    assert next_version("]", 5, 100, [3, 20, 40]) == 20
    assert next_version("]", 40, 100, [3, 20, 40]) == 40
    assert next_version("[", 20, 100, [3, 20, 40]) == 3
    assert next_version("x", 5, 10) == 5
    for key in ("q", "esc", "ctrl-c"):
        assert next_version(key, 5, 10) is None


def test_key_bytes_are_decoded():
    assert decode_key(b"\x1b[C") == "right" and decode_key(b"\x1b[D") == "left"
    assert decode_key(b"\x1b[H") == "home" and decode_key(b"\x1b[4~") == "end"
    assert decode_key(b"\x1bOF") == "end" and decode_key(b"\x1b") == "esc"
    assert decode_key(b"\x03") == "ctrl-c" and decode_key(b"n") == "n"
    assert decode_key(b"\x1b[99~") == "unknown"


def test_the_step_loop_redraws_at_each_key(svc):
    gid, _ = tied_game(svc)
    replay_ = session(svc, gid)
    keys = iter(["right", "right", "left", "]", "end", "left", "q"])
    out = io.StringIO()
    shown = step_loop(Console(file=out, width=100), replay_, 1, lambda: next(keys))
    assert shown == 11
    assert out.getvalue().count("events up to") == 7
    assert "version 3 / 12" in out.getvalue()


def test_the_command_prints_a_version_and_errors_clearly(svc):
    gid, _ = tied_game(svc)
    obj = {"fetch": fetch_of(svc)}
    ok = CliRunner().invoke(replay, [gid, "--at", "8"], obj=obj)
    assert ok.exit_code == 0, ok.output
    assert "version 8 / 12" in ok.output and "7♥" in ok.output

    missing = CliRunner().invoke(replay, ["0123456789abcdef"], obj=obj)
    assert missing.exit_code == 1 and "404" in missing.output and "not_found" in missing.output
    assert "Traceback" not in missing.output and isinstance(missing.exception, SystemExit)

    late = CliRunner().invoke(replay, [gid, "--at", "99"], obj=obj)
    assert late.exit_code == 1 and "99" in late.output

    bad_token = CliRunner().invoke(replay, [gid, "--token", "nope"], obj=obj)
    assert bad_token.exit_code == 1 and "401" in bad_token.output

    refused = CliRunner().invoke(replay, [gid, "--url", "http://127.0.0.1:9"])
    assert refused.exit_code == 1 and "cannot reach http://127.0.0.1:9" in refused.output

    not_a_url = CliRunner().invoke(replay, [gid], env={"BATAYO_URL": "ftp://x"})
    assert not_a_url.exit_code == 1 and "not an http(s) URL" in not_a_url.output

    no_terminal = CliRunner().invoke(replay, [gid, "--step"], obj=obj)
    assert no_terminal.exit_code == 1 and "terminal" in no_terminal.output


def test_the_client_follows_every_page(svc):
    gid, _ = tied_game(svc)
    client = Client(gid, "http://test", fetch=fetch_of(svc))
    assert client.events(page=5) == client.events()
    assert [e["version"] for e in client.events(page=5)] == list(range(1, 13))
    assert client.ties(page=1) == client.ties()

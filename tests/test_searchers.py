"""The searching bots' moves of `batayo serve` in child processes (service/cli/searchers.py):
the same moves as made here, only the searching levels sent, the server's event loop free
while a child searches, and a child that dies replaced."""

from __future__ import annotations

import os
import signal
import subprocess

import gevent
import gevent.event
import pytest

from service.cli.searchers import Children, SearchFailed
from service.core import advice, bots
from service.core.registry import GAMES
from service.core.views import game_view
from tests.support.choices import CASES, played_in

SEED = b"searchers-test-seed-0123456789ab"


@pytest.fixture(scope="module")
def children():
    pool = Children(size=1)
    yield pool
    pool.close()


@pytest.fixture
def sent_away(children):
    """Every searching move of the test through the children; what was sent, by level."""
    sent: list[str] = []

    def run(game, level, view, rng):
        sent.append(level)
        return children(game, level, view, rng)

    bots.offload(run)
    yield sent
    bots.offload(None)


def _with_a_choice(game: str, options: dict) -> tuple[dict, int]:
    for steps in range(0, 60, 3):
        state = played_in(game, options, SEED, steps).state
        if state["status"] != "playing":
            continue
        seat = GAMES[game].to_move(state)[0]
        if len(game_view(state, seat)["legal_actions"]) > 1:
            return state, seat
    raise AssertionError(f"no choice in the first moves of {game} {options}")


@pytest.mark.parametrize(("game", "options"), CASES)
def test_a_move_made_in_a_child_is_the_move_made_here(game, options, children):
    state, seat = _with_a_choice(game, options)
    levels = [name for name in GAMES[game].bots if name not in bots.LIGHT]
    assert "strong" in levels
    here = {level: bots.choose(state, seat, SEED, level) for level in levels}
    bots.offload(children)
    try:
        there = {level: bots.choose(state, seat, SEED, level) for level in levels}
    finally:
        bots.offload(None)
    assert there == here


def test_only_the_searching_levels_and_hints_are_sent(sent_away):
    state, seat = _with_a_choice("batak", {"mode": "ihaleli"})
    for level in ("random", "greedy"):
        bots.choose(state, seat, SEED, level)
    assert sent_away == []
    bots.choose(state, seat, SEED, "expert")
    bots.choose(state, seat, SEED, "strong")
    hint = advice.hint(state, seat, SEED)
    assert sent_away == ["expert", "strong", advice.ADVISER]
    assert hint["action"] in game_view(state, seat)["legal_actions"]


def test_the_event_loop_runs_while_a_child_searches(children):
    """What the server's other greenlets (requests, sockets, clocks) need: the loop goes round
    while the move is made, instead of waiting for the whole search."""
    state, seat = _with_a_choice("batak", {"mode": "ihaleli"})
    view = game_view(state, seat)
    children("batak", "strong", view, bots.whims(state, SEED, seat))  # the child started
    (child,) = [c for c in children.free.queue if c is not None]
    turns = 0

    def ticker():
        nonlocal turns
        while True:
            turns += 1
            gevent.sleep(0)

    ticking = gevent.spawn(ticker)
    gevent.sleep(0)
    searching = gevent.event.Event()

    def move_now():
        searching.set()
        return children("batak", "strong", view, bots.whims(state, SEED, seat))

    # the child is held still until the loop has turned: a search on a loaded machine can
    # otherwise answer before the parent reads, and the move end without the loop's turn
    os.kill(child.process.pid, signal.SIGSTOP)
    # and let go within 10 s whatever happens here, should a search hold this whole process
    waking = subprocess.Popen(["sh", "-c", f"sleep 10; kill -CONT {child.process.pid}"])
    try:
        move = gevent.spawn(move_now)
        searching.wait()
        before = turns
        for _ in range(100):
            if turns > before:
                break
            gevent.sleep(0)
        during = turns - before
        pending = not move.ready()
    finally:
        os.kill(child.process.pid, signal.SIGCONT)
        waking.kill()
        waking.wait()
    move.join()
    ticking.kill()
    assert move.value in view["legal_actions"]
    # a search that held the loop would let the ticker turn only once it ended; counted from the
    # moment the move began, and not by how fast a shared machine runs the ticker
    assert during >= 1 and pending


def test_a_child_that_dies_is_replaced_and_the_move_still_made(children):
    state, seat = _with_a_choice("roylet", {})
    view = game_view(state, seat)
    first = children("roylet", "strong", view, bots.whims(state, SEED, seat))
    (child,) = [c for c in children.free.queue if c is not None]
    os.kill(child.process.pid, signal.SIGKILL)
    child.process.wait()
    again = children("roylet", "strong", view, bots.whims(state, SEED, seat))
    assert again == first
    (fresh,) = [c for c in children.free.queue if c is not None]
    assert fresh is not child and fresh.process.poll() is None


def test_a_bot_that_fails_in_the_child_is_an_error_and_the_child_stays(children):
    state, seat = _with_a_choice("roylet", {})
    view = game_view(state, seat)
    children("roylet", "strong", view, bots.whims(state, SEED, seat))
    (child,) = [c for c in children.free.queue if c is not None]
    with pytest.raises(SearchFailed, match="no_such_level"):
        children("roylet", "no_such_level", view, bots.whims(state, SEED, seat))
    assert [c for c in children.free.queue if c is not None] == [child]


def test_with_no_child_answering_the_move_is_made_here(monkeypatch, caplog):
    """Children that die at once (an import that fails in them, say): the games go on, each
    searching move made in the server, and the log says so."""
    from service.cli import searchers

    state, seat = _with_a_choice("roylet", {})
    here = bots.choose(state, seat, SEED, "strong")
    real = searchers.Child.__init__

    def dying(self, cap_s):
        real(self, cap_s)
        self.process.kill()  # gone before it reads its first move
        self.process.wait()

    monkeypatch.setattr(searchers.Child, "__init__", dying)
    pool = Children(size=1)
    bots.offload(pool)
    try:
        with caplog.at_level("WARNING", logger="batayo.searchers"):
            there = bots.choose(state, seat, SEED, "strong")
    finally:
        bots.offload(None)
        pool.close()
    assert there == here
    assert "no search process answers" in caplog.text

"""Verification with the rules (docs/fairness.md#what-a-verifier-checks): the log is refolded
from its first event, and every batch of events must be exactly what the rules write from the
state before it, its cause and the random stream (type, actor, data and sealed).

So an illegal move, a changed result or a foreign deal fails at its version. `at` is only
checked never to go back, never to fire a clock early or abandon a game before
`abandon_after_s`; a test game's fixed deal and a bot's choice among legal actions are taken.
"""

from __future__ import annotations

from typing import Any

from . import command
from .clocks import abandon_due, due_timers
from .game import RuleError
from .options import resolve_options, with_later
from .registry import GAMES
from .state import BadLog, apply, bot_seats, clone, initial
from .strict import canonical_at, is_int, same

COMPARED = ("type", "actor", "data", "sealed")


class Failed(Exception):
    """The first version where the log is not what it should be, and why."""

    def __init__(self, version: Any, reason: str) -> None:
        super().__init__(reason)
        self.version, self.reason = version, reason


def refold(events: list[dict], seed: bytes, report: dict, fairness: int = 2) -> None:
    """Raise Failed at the first version the rules disagree with; count the batches checked.
    `fairness`: the version the log follows (the rules write version 1's events for it)."""
    state = initial()
    at = ""
    i = 0
    while i < len(events):
        first = events[i]
        cause = first["data"].get("cause")
        if not isinstance(cause, dict) or len(cause) != 1:
            raise Failed(first["version"], "an event the rules did not write (no cause)")
        j = i + 1
        while j < len(events) and "cause" not in events[j]["data"]:
            j += 1
        batch = events[i:j]
        for event in batch:
            if not canonical_at(event.get("at")):
                raise Failed(event["version"], "`at` is not a time as the server writes it")
            if event["at"] < at:
                raise Failed(event["version"], "time goes backwards")
            at = event["at"]
        try:
            written = _reproduce(state, cause, first, seed, fairness)
        except RuleError as exc:
            raise Failed(first["version"], f"the rules refuse it: {exc.detail}") from None
        except Failed:
            raise
        except (KeyError, IndexError, TypeError, ValueError, AttributeError, BadLog) as exc:
            raise Failed(first["version"], f"the rules cannot replay it ({exc!r})") from None
        _compare(written, batch)
        state = clone(state)
        for event in batch:
            apply(state, event)
        report["checked"]["play"] += 1
        i = j
    if state.get("status") != "finished":
        raise Failed(len(events), "the log ends before the game does")


def _compare(written: list[dict], recorded: list[dict]) -> None:
    for k, event in enumerate(recorded):
        if k >= len(written):
            raise Failed(event["version"], f"the rules write no `{event['type']}` here")
        ours = written[k]
        for name in COMPARED:
            if not same(ours.get(name), event.get(name)):
                raise Failed(
                    event["version"],
                    f"the rules write another {name} here (`{ours['type']}`, not `{event['type']}`)",
                )
    if len(written) > len(recorded):
        raise Failed(
            recorded[-1]["version"] + 1, f"the rules write `{written[len(recorded)]['type']}` next"
        )


def _reproduce(state: dict, cause: dict, first: dict, seed: bytes, fairness: int = 2) -> list[dict]:
    kind, detail = next(iter(cause.items()))
    at, data = first["at"], first["data"]
    if not isinstance(detail, dict):
        raise Failed(first["version"], "a malformed cause")
    if kind == "create":
        return _create(data, seed, at, fairness)
    if state.get("status") is None or state["version"] == 0:
        raise Failed(first["version"], "the game was not created first")
    if kind == "join":
        seat = data.get("seat")
        if first["type"] != "seat_taken" or not is_int(seat) or not same(seat, detail.get("seat")):
            raise Failed(first["version"], "a join must take the first open seat")
        cmd, _ = command.join(state, seed, data["name"], data.get("client_seed"), at)
        return cmd.events
    if kind == "action":
        return _action(state, detail, first, seed)
    if kind == "timer":
        due = detail.get("due")
        if not canonical_at(due):
            raise Failed(first["version"], "a clock's due time not as the server writes it")
        keys = [k for k, d in due_timers(state) if d == due and not k.startswith("move:")]
        if not keys:
            raise Failed(first["version"], "no clock of the game was due then")
        if at < due:
            raise Failed(first["version"], "a clock fired before it was due")
        cmd = command.fire(state, seed, keys[0], at)
        return cmd.events
    if kind == "abandon":
        return _abandon(state, detail, first, seed)
    raise Failed(first["version"], f"unknown cause {kind!r}")


def _create(data: dict, seed: bytes, at: str, fairness: int = 2) -> list[dict]:
    game = GAMES.get(data.get("game"))
    if game is None:
        raise Failed(1, f"unknown game {data.get('game')!r}")
    options = data.get("options")
    try:
        # a log made before an option existed lacks it, and has its default (`ADDED_LATER`)
        if not isinstance(options, dict) or resolve_options(game, options) != with_later(options):
            raise Failed(1, "the options are not the game's options, each with its value")
    except ValueError as exc:
        raise Failed(1, f"bad options: {exc}") from None
    seats = data.get("seats")
    if not isinstance(seats, list) or len(seats) != game.seat_count(options):
        raise Failed(1, "the game does not have these seats")
    deal = data.get("deal")
    if deal is not None and not data.get("test"):
        raise Failed(1, "only a test game may have a fixed deal")
    budget = data.get("event_budget")
    if budget is not None and not is_int(budget):
        raise Failed(1, "a malformed event budget")
    cmd = command.create(
        data["id"],
        game.name,
        options,
        seats,
        seed,
        at,
        bool(data.get("test")),
        deal,
        event_budget=budget,
        fairness_version=fairness,
    )
    return cmd.events


def _action(state: dict, detail: Any, first: dict, seed: bytes) -> list[dict]:
    if not isinstance(detail, dict):
        raise Failed(first["version"], "a malformed cause")
    seat, by, body = detail.get("seat"), detail.get("by"), detail.get("body")
    if not is_int(seat):
        raise Failed(first["version"], "an action's seat is not an integer")
    bots = bot_seats(state)
    if by == "seat" and seat in bots:
        raise Failed(first["version"], "a bot's seat acted as a person")
    if by == "bot" and seat not in bots:
        raise Failed(first["version"], "a person's seat acted as a bot")
    if by == "clock":
        due = dict(due_timers(state)).get(f"move:{seat}")
        if due is None or first["at"] < due:
            raise Failed(first["version"], "a move clock that was not due played for its seat")
    if by not in ("seat", "bot", "clock"):
        raise Failed(first["version"], f"unknown actor {by!r}")
    actor = seat if by == "seat" else by
    cmd = command.act(state, seed, seat, body, first["at"], actor)
    return cmd.events


def _abandon(state: dict, detail: dict, first: dict, seed: bytes) -> list[dict]:
    """docs/rules/common.md#abandoned-games: only a game in play, idle for `abandon_after_s` since
    its last event, is abandoned (never earlier, like a clock)."""
    due = abandon_due(state)
    if detail or due is None:
        raise Failed(first["version"], "only a game in play is abandoned")
    if first["at"] < due:
        raise Failed(first["version"], "abandoned before it was idle for abandon_after_s")
    cmd = command.abandon(state, seed, first["at"])
    assert cmd is not None, "due, so abandoned"
    return cmd.events

"""The command side shared by the engine, the simulator and the tests.

A `Command` is one request being decided: it lends the game the fair random stream of the
event being built, seals each emitted event into the chain, and applies it at once, so the
game's `decide` always sees the state its next event will follow.
"""

from __future__ import annotations

import random
from typing import Any

from . import fairness
from .chain import event_hash
from .game import RuleError, add_seconds, not_your_turn
from .state import apply, bot_seats, clone, game_of, open_seats
from .views import game_view


class Command:
    """With `sealed` false (a simulation: no chain, nothing stored) events get no `prev` and no
    `hash`; with `owned` the command works on `state` itself instead of a copy (the caller gives
    it up). Either way the game's `decide` and `apply` run exactly as for a stored game, and the
    random stream is the same."""

    def __init__(
        self,
        state: dict,
        server_seed: bytes,
        now: str,
        actor: Any,
        *,
        sealed: bool = True,
        owned: bool = False,
    ) -> None:
        self.state = state if owned else clone(state)
        self.game = game_of(self.state) if "game" in self.state else None
        self.events: list[dict] = []
        self.actor = actor
        self._seed = server_seed
        self._now = now
        self._salt = self.state.get("salt") or ""
        self._rng: fairness.Rng | None = None
        self._start_fields: dict | None = None
        self._sealed = sealed

    @property
    def rng(self) -> fairness.Rng:
        """The random stream of the next event to be emitted (its draws go into its ledger)."""
        if self._rng is None:
            version = self.state["version"] + 1
            self._rng = fairness.Rng(self._seed, self.state["id"], self._salt, version)
        return self._rng

    def emit(self, type_: str, data: dict, actor: Any = None) -> None:
        """Seal an event, apply it, and keep it for the append."""
        if self._start_fields is not None:
            data = {**self._start_fields, **data}
            self._start_fields = None
        if self._rng is not None and self._rng.ledger:
            data = {**data, "rng": self._rng.ledger}
        self._rng = None
        state = self.state
        event = {
            "version": state["version"] + 1,
            "type": type_,
            "at": self._now,
            "actor": self.actor if actor is None else actor,
            "data": data,
            "prev": state["hash"] if self._sealed else None,
        }
        event["hash"] = event_hash(event) if self._sealed else None  # a simulation has no chain
        apply(state, event)
        self.events.append(event)

    def decide(self, seat: int, action: dict) -> None:
        """One seat's action, decided by the game; this command's events are its events alone."""
        self.events = []
        self.game.decide(self, seat, action)

    def end(self, result: dict) -> None:
        """The last event: the result, and the server seed revealed (FAIRNESS.md)."""
        self.emit("ended", {"result": result, "server_seed": self._seed.hex()}, actor="server")

    def begin(self, deal: dict | None) -> None:
        """Deal: the salt from every seat's client seed goes into the game's first event."""
        seeds = [s.get("client_seed") or "" for s in self.state["seats"]]
        self._salt = fairness.salt(seeds)
        self._start_fields = {"client_seeds": seeds, "salt": self._salt}
        self.game.start(self, deal)


def create(
    game_id: str,
    game: str,
    options: dict,
    seats: list[dict],
    server_seed: bytes,
    now: str,
    test: bool,
    deal: dict | None = None,
    sealed: bool = True,
) -> Command:
    """The `created` event (and the deal, if no seat is open)."""
    cmd = Command(
        {"version": 0, "hash": "0" * 64, "id": game_id}, server_seed, now, "server", sealed=sealed
    )
    cmd.emit(
        "created",
        {
            "id": game_id,
            "game": game,
            "options": options,
            "seats": seats,
            "seed_commitment": fairness.commitment(server_seed),
            "test": test,
        },
    )
    cmd.game = game_of(cmd.state)
    if not open_seats(cmd.state):
        cmd.begin(deal)
    return cmd


def join(
    state: dict,
    server_seed: bytes,
    name: str,
    client_seed: str | None,
    now: str,
    deal: dict | None = None,
) -> tuple[Command, int]:
    """Take the first open seat; deal when it was the last one."""
    free = open_seats(state)
    if not free:
        raise RuleError("game_full", "every seat of this game is taken", 409)
    seat = free[0]
    cmd = Command(state, server_seed, now, "server")
    cmd.emit("seat_taken", {"seat": seat, "name": name, "client_seed": client_seed}, actor=seat)
    if not open_seats(cmd.state):
        cmd.begin(deal)
    return cmd, seat


def check_can_act(state: dict, seat: int) -> None:
    if state["status"] == "finished":
        raise RuleError("game_over", "the game is over", 409)
    if state["status"] != "playing":
        raise RuleError("not_started", "the game has not started: seats are still open", 409)
    game = game_of(state)
    if seat not in game.to_move(state):
        reason = getattr(game, "waiting_reason", None)
        raise reason(state, seat) if reason else not_your_turn()


def act(
    state: dict,
    server_seed: bytes,
    seat: int,
    action: dict,
    now: str,
    actor: Any,
    *,
    sealed: bool = True,
    owned: bool = False,
) -> Command:
    """Decide one seat's action; raises RuleError when the rules refuse it. With `owned` the
    state itself moves on (see `Command`)."""
    check_can_act(state, seat)
    cmd = Command(state, server_seed, now, actor, sealed=sealed, owned=owned)
    cmd.decide(seat, action)
    return cmd


def due_timers(state: dict) -> list[tuple[str, str]]:
    """Every clock as (key, due time ISO 8601): the game's own (`timers`), and with
    `move_timeout_s` one `move:<seat>` per awaited human seat."""
    if state.get("status") != "playing":
        return []
    timers = getattr(game_of(state), "timers", None)
    clocks = list(timers(state)) if timers else []
    timeout = state["options"].get("move_timeout_s")
    if timeout:
        bots = bot_seats(state)
        for seat, since in sorted(state.get("awaited", {}).items()):
            if int(seat) not in bots:
                clocks.append((f"move:{seat}", add_seconds(since, timeout)))
    return clocks


def fire(state: dict, server_seed: bytes, key: str, now: str) -> Command | None:
    """Run a due clock, or None if it is no longer due. A move clock plays for its seat with
    the game's `timeout_bot` (the event's actor is "clock"); a game clock runs `on_timer`."""
    due = dict(due_timers(state))
    if key not in due or due[key] > now:
        return None
    if key.startswith("move:"):
        seat = int(key.split(":", 1)[1])
        bot = game_of(state).BOTS[state["options"]["timeout_bot"]]
        rng = random.Random(f"{state['id']}|{state['version']}|{seat}|timeout")  # noqa: S311
        return act(state, server_seed, seat, bot(game_view(state, seat), rng), now, "clock")
    cmd = Command(state, server_seed, now, "clock")
    cmd.game.on_timer(cmd, key)
    return cmd

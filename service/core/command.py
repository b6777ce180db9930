"""The command side shared by the engine, the simulator, the verifier and the tests.

A `Command` is one request or job being decided (one batch of events): it lends the game the
fair random stream of the event being built, records the batch's cause in its first event,
seals each emitted event into the chain (docs/fairness.md, version 2), and applies it at once, so
the game's `decide` always sees the state its next event will follow.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from . import bots, fairness
from .chain import GENESIS, event_hash
from .clocks import abandon_due, due_timers
from .game import Game, RuleError, not_your_turn, result
from .sealing import FAIRNESS, chain_hash, seal, sealed_form, secrets
from .shapes import ShapeError, check_action
from .state import apply, awaited, clone, game_of, open_seats

# data fields every game's events may carry besides their own: the framework writes them
FRAMEWORK_FIELDS = frozenset({"rng", "cause", "client_seeds", "salt"})
_LIFECYCLE = ("created", "seat_taken", "ended")
_UNRECORDED: dict = {}  # the cause of an action whose events nobody keeps (see `Command.kept`)
# The default of the per-game event budget (server setting BATAYO_EVENT_BUDGET): above what the
# largest `max_rounds` of every game produces in play (docs/operations.md#bounded-work), so it only ends a
# game no other bound ends. A game records its budget when it is created (the `created` event),
# so its log is checked against its own budget whatever the setting is later.
EVENT_BUDGET = 100_000


@cache
def _declared_fields(game: Game) -> dict[str, frozenset[str] | None]:
    """Each event type of `game` with the data fields it may carry (None: any, the lifecycle's)."""
    out: dict[str, frozenset[str] | None] = {
        kind: frozenset(event.fields.keys() | FRAMEWORK_FIELDS)
        for kind, event in game.events.items()
    }
    out.update(dict.fromkeys(_LIFECYCLE))
    return out


class Command:
    """With `sealed` false (a simulation: no chain, nothing stored) events get no `prev`, no
    `hash` and no seals; with `owned` the command works on `state` itself instead of a copy
    (the caller gives it up). With `kept` false (a simulation that keeps only the final state)
    no event is kept and no cause recorded, and one event dict is reused for every event.
    Either way the game's `decide` and `apply` run exactly as for a stored game, on the same
    data, and the random stream is the same."""

    def __init__(
        self,
        state: dict,
        server_seed: bytes,
        now: str,
        actor: Any,
        *,
        sealed: bool = True,
        owned: bool = False,
        cause: dict | None = None,
        kept: bool = True,
    ) -> None:
        # the game's state: each game reads it as its own (a GameState with its own table)
        self.state: Any = state if owned else clone(state)
        self.game: Game | None = None
        self._declared: dict[str, frozenset[str] | None] | None = None
        if "game" in self.state:
            self._bind(game_of(self.state))
        self.events: list[dict] = []
        self.actor = actor
        self.cause = cause
        self._seed = server_seed
        self._now = now
        self._salt = self.state.get("salt") or ""
        self._rng: fairness.Rng | None = None
        self._start_fields: dict | None = None
        self._sealed = sealed
        self.kept = kept
        self._event: dict = {"prev": None, "hash": None}  # the one event dict when not kept

    def _bind(self, game: Game) -> None:
        self.game = game
        self._declared = _declared_fields(game)

    @property
    def rng(self) -> fairness.Rng:
        """The random stream of the next event to be emitted (its draws go into its ledger)."""
        if self._rng is None:
            version = self.state["version"] + 1
            self._rng = fairness.Rng(self._seed, self.state["id"], self._salt, version)
        return self._rng

    def emit(self, type_: str, data: dict, actor: Any = None) -> None:
        """Seal an event, apply it, and keep it for the append."""
        cause = self.cause
        if cause is not None:  # the first event of the batch says what caused it
            if cause is not _UNRECORDED:
                data = {"cause": cause, **data}
            self.cause = None
        if self._start_fields is not None:
            data = {**self._start_fields, **data}
            self._start_fields = None
        rng = self._rng
        if rng is not None:
            if rng.ledger:
                data = {**data, "rng": rng.ledger}
            self._rng = None
        state = self.state
        if self.kept:
            event = {
                "version": state["version"] + 1,
                "type": type_,
                "at": self._now,
                "actor": self.actor if actor is None else actor,
                "data": data,
            }
        else:  # nobody keeps it: the reducer reads it once, so one dict serves every event
            event = self._event
            event["version"] = state["version"] + 1
            event["type"] = type_
            event["at"] = self._now
            event["actor"] = self.actor if actor is None else actor
            event["data"] = data
        self._check_declared(type_, data)
        if self._sealed:
            self._chain(event)
        elif self.kept:
            event["prev"] = event["hash"] = None  # a simulation has no chain
        apply(state, event, self.game)
        if self.kept:
            self.events.append(event)

    def _check_declared(self, type_: str, data: dict) -> None:
        """Every field an event carries is declared by its game (a whitelist: a value nobody
        declared cannot slip out unsealed)."""
        declared = self._declared
        if declared is None:  # the `created` event: no game yet
            return
        try:
            allowed = declared[type_]
        except KeyError:
            raise TypeError(f"{self.game!r} declares no event {type_!r}") from None
        if allowed is not None and not data.keys() <= allowed:
            extra = data.keys() - allowed
            raise TypeError(f"{self.game!r} event {type_!r}: undeclared {extra}")

    def _chain(self, event: dict) -> None:
        state = self.state
        event["prev"] = state["hash"]
        if state.get("fairness", 1) == 1:  # a game begun before version 2 (no field: stored then)
            event["hash"] = event_hash(event)
            return
        options = state["options"] if "options" in state else event["data"]["options"]
        found = secrets(self.game, event, options)
        event["sealed"], event["digests"] = seal(event, found, self._seed, state["id"])
        event["hash"] = chain_hash(sealed_form(event, event["digests"]))

    def decide(self, seat: int, action: dict, by: str = "seat") -> None:
        """One seat's action, decided by the game; this command's events are its events alone."""
        if self.kept:
            self.events = []
            self.cause = {"action": {"seat": seat, "by": by, "body": action}}
        else:
            self.cause = _UNRECORDED
        game = self.game
        assert game is not None, "a command on a game not created"
        version = self.state["version"]
        game.decide(self, seat, action)
        if self.state["version"] == version:
            raise RuntimeError(f"{game.name}: an action that wrote no event")

    def end(self, result: dict) -> None:
        """The last event: the result, and the server seed revealed (docs/fairness.md)."""
        self.emit("ended", {"result": result, "server_seed": self._seed.hex()}, actor="server")

    def begin(self, deal: dict | None) -> None:
        """Deal: the salt from every seat's client seed goes into the game's first event."""
        seeds = [s.get("client_seed") or "" for s in self.state["seats"]]
        self._salt = fairness.salt(seeds)
        self._start_fields = {"client_seeds": seeds, "salt": self._salt}
        assert self.game is not None, "a command on a game not created"
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
    fairness_version: int = FAIRNESS,
    event_budget: int | None = EVENT_BUDGET,
) -> Command:
    """The `created` event (and the deal, if no seat is open); `event_budget`: the most events
    the game may have (None: no budget, as games created before there was one)."""
    start = {"version": 0, "hash": GENESIS, "id": game_id, "fairness": fairness_version}
    cmd = Command(start, server_seed, now, "server", sealed=sealed, cause={"create": {}})
    data = {
        "id": game_id,
        "game": game,
        "options": options,
        "seats": seats,
        "seed_commitment": fairness.commitment(server_seed),
        "test": test,
    }
    if event_budget:
        data["event_budget"] = event_budget
    if fairness_version != 1:
        data["fairness"] = fairness_version
        if deal is not None:
            data["deal"] = deal  # a test game's fixed deal, sealed until the end
    cmd.emit("created", data)
    cmd._bind(game_of(cmd.state))
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
    cmd = Command(state, server_seed, now, "server", cause={"join": {"seat": seat}})
    cmd.emit("seat_taken", {"seat": seat, "name": name, "client_seed": client_seed}, actor=seat)
    if not open_seats(cmd.state):
        cmd.begin(state.get("deal", deal))
    return cmd, seat


def check_can_act(state: dict, seat: int, action: Any) -> dict:
    """The action checked against the game's shapes, if `seat` may act now; else RuleError."""
    if state["status"] == "finished":
        raise RuleError("game_over", "the game is over", 409)
    if state["status"] != "playing":
        raise RuleError("not_started", "the game has not started: seats are still open", 409)
    game = game_of(state)
    try:
        action = check_action(game.actions, state["options"], action)
    except ShapeError as exc:
        raise RuleError("invalid_request", str(exc), 400) from None
    if seat not in awaited(state):
        raise game.waiting_reason(state, seat) if game.waiting_reason else not_your_turn()
    return action


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
    """Decide one seat's action; raises RuleError when the rules refuse it. `actor` is the seat,
    "bot" or "clock". With `owned` the state itself moves on (see `Command`)."""
    action = check_can_act(state, seat, action)
    cmd = Command(state, server_seed, now, actor, sealed=sealed, owned=owned)
    cmd.decide(seat, action, by=actor if actor in ("bot", "clock") else "seat")
    within_budget(cmd)
    return cmd


def within_budget(cmd: Command) -> None:
    """docs/rules/common.md#stuck-games: a game that reaches its event budget ends at once, with
    reason `event_limit`, as its rules say (`Game.over_budget`; none: a draw). The `ended` event is
    the budget's last: no game has more events than its budget, but for one batch."""
    state = cmd.state
    budget = state.get("event_budget")
    if not budget or state["status"] != "playing" or state["version"] < budget - 1:
        return
    game = cmd.game
    assert game is not None, "a command on a game not created"
    cmd.end(
        game.over_budget(state)
        if game.over_budget
        else result([], "event_limit", game.rounds(state))
    )


def fire(
    state: dict, server_seed: bytes, key: str, now: str, bot: str | None = None
) -> Command | None:
    """Run a due clock, or None if it is no longer due. A move clock plays for its seat with
    `bot`, by default the game's `timeout_bot` (the event's actor is "clock"; the action is
    recorded, so a replay does not choose it again); a game clock runs `on_timer`."""
    due = dict(due_timers(state))
    if key not in due or due[key] > now:
        return None
    if key.startswith("move:"):
        seat = int(key.split(":", 1)[1])
        level = bot or state["options"]["timeout_bot"]
        action = bots.choose(state, seat, server_seed, level)
        return act(state, server_seed, seat, action, now, "clock")
    cmd = Command(state, server_seed, now, "clock", cause={"timer": {"due": due[key]}})
    assert cmd.game is not None and cmd.game.on_timer is not None, "a game clock without a game"
    cmd.game.on_timer(cmd, key)
    within_budget(cmd)
    return cmd


def abandon(state: dict, server_seed: bytes, now: str) -> Command | None:
    """docs/rules/common.md#abandoned-games: a game in play with no new event for `abandon_after_s`
    ends with no winner, reason `abandoned`, its seed revealed as at any end. None if it is not due
    at `now` (not in play, or an event came since)."""
    due = abandon_due(state)
    if due is None or due > now:
        return None
    cmd = Command(state, server_seed, now, "server", cause={"abandon": {}})
    assert cmd.game is not None, "a command on a game not created"
    cmd.end(abandoned_result(cmd.game, cmd.state))
    return cmd


def abandoned_result(game: Game, state: dict) -> dict:
    """No winner: the standings the game reports at its event budget (its own result fields,
    so the result has the game's shape), with reason `abandoned`."""
    standings = game.over_budget(state) if game.over_budget else {}
    return {**standings, **result([], "abandoned", standings.get("rounds", game.rounds(state)))}

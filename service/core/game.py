"""What a game declares, and the small pieces the rules share.

A game is one module (or package) under `service/games/` declaring one `Game`: a header of
data (name, options, seats, action shapes, event types and what they hide from whom) and a few
functions (deal, decisions, reducer, whose move, legal actions, table, bots, tie audit); the
framework does the rest. Rules code does no I/O and draws its chance only from `cmd.rng`, the
event's fair stream (docs/fairness.md).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from datetime import timedelta
from functools import cached_property
from typing import Any, Protocol, TypeVar

from . import bounds
from .shapes import Action, Bool, Choice, Event, Int, Nullable, Shape, ShapeError, Text
from .times import moment
from .turn_kinds import CommitReveal, TurnKind

T = TypeVar("T")


class BotRng(Protocol):
    """What a bot may draw from: a `random.Random` made for it outside the rules (never the
    fair stream: a bot's choice is an action like a person's, not chance)."""

    def random(self) -> float: ...
    def choice(self, seq: Sequence[T]) -> T: ...
    def randrange(self, start: int, stop: int | None = None) -> int: ...
    def shuffle(self, x: list) -> None: ...


Bot = Callable[[Mapping, BotRng], dict]  # the seat's view (a dict, or a lazy one)


class RuleError(Exception):
    """An action the rules do not allow; `code` is stable, `detail` says it in words."""

    def __init__(self, code: str, detail: str, status: int = 422) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail
        self.status = status


def not_your_turn(detail: str = "it is not your turn") -> RuleError:
    return RuleError("not_your_turn", detail, 409)


def bad_action(detail: str) -> RuleError:
    """An action body that does not fit the game at all (400)."""
    return RuleError("invalid_request", detail, 400)


@dataclass(frozen=True)
class Option:
    """One game option: name, type, default and the values allowed (docs/rules/)."""

    name: str
    default: Any
    choices: tuple[Any, ...] | None = None
    min: int | None = None
    max: int | None = None
    nullable: bool = False
    doc: str = ""
    type: str = field(default="")

    def kind(self) -> str:
        if self.type:
            return self.type
        if isinstance(self.default, bool):
            return "boolean"
        return "integer" if isinstance(self.default, int) or self.min is not None else "string"

    @cached_property
    def shape(self) -> Shape:
        """What the option accepts, in the games' one vocabulary (core/shapes.py): the create's
        check and the contract's schema both come from it."""
        kind = self.kind()
        if self.choices is not None:
            accepted: Shape = Choice(tuple(self.choices))
        elif kind == "boolean":
            accepted = Bool()
        elif kind == "integer":
            accepted = Int(self.min, self.max)
        else:
            accepted = Text(bounds.OPTION_TEXT_MAX)
        return Nullable(accepted) if self.nullable else accepted

    def check(self, value: Any) -> Any:
        """The value if allowed, else ValueError saying why."""
        try:
            return self.shape.check(value, f"option {self.name!r}")
        except ShapeError as exc:
            raise ValueError(f"{exc}, not {value!r}") from None

    def describe(self) -> dict:
        out: dict[str, Any] = {"name": self.name, "type": self.kind(), "default": self.default}
        if self.choices is not None:
            out["choices"] = list(self.choices)
        if self.min is not None:
            out["min"] = self.min
        if self.max is not None:
            out["max"] = self.max
        out["nullable"] = self.nullable
        if self.doc:
            out["doc"] = self.doc
        return out


def max_rounds(default: int, doc: str, most: int) -> Option:
    """The hard cap every game has (docs/rules/common.md#stuck-games), at most `most`: a bound
    chosen so that the longest game it allows stays under the event budget
    (`command.EVENT_BUDGET`)."""
    return Option("max_rounds", default, min=1, max=most, doc=doc)


def random_bot(view: Mapping, rng: BotRng) -> dict:
    """Uniformly among the legal actions."""
    return rng.choice(view["legal_actions"])


def result(winners: list[int], reason: str, rounds: int, **extra: Any) -> dict[str, Any]:
    """The result every game reports: winners (empty for a draw), reason, rounds, and more."""
    return {"winners": winners, "draw": not winners, "reason": reason, "rounds": rounds, **extra}


def check_dealt(
    piles: list, allowed: Callable[[int], set[str]], what: str = "pack"
) -> list[list[str]]:
    """The piles of a test deal, checked: every card well formed, allowed in its pile (by the
    pile's index), and dealt once. Raises bad_action (400) saying which card is wrong."""
    from .cards import BadCard, parse_card

    seen: set[str] = set()
    for i, pile in enumerate(piles):
        if not isinstance(pile, list):
            raise bad_action(f"{what} {i} of the deal must be a list of cards")
        fits = allowed(i)
        for card in pile:
            try:
                parse_card(card)
            except BadCard as exc:
                raise bad_action(str(exc)) from None
            if card not in fits:
                raise bad_action(f"{card} cannot be in {what} {i} in this game")
            if card in seen:
                raise bad_action(f"{card} is dealt twice")
            seen.add(card)
    return [list(p) for p in piles]


def left_out(cards: list[str], piles: list[list[str]]) -> list[str]:
    """The cards of `cards` that no pile holds (a test deal's cards out of play), in order."""
    dealt = {c for pile in piles for c in pile}
    return [c for c in cards if c not in dealt]


def add_seconds(at: str, seconds: float) -> str:
    """An event time (`2026-11-29T22:53:26.123456Z`) plus `seconds`, in the same format, so that
    times compare as strings. Pure: it reads no clock."""
    later = moment(at) + timedelta(seconds=seconds)
    return later.isoformat(timespec="microseconds").replace("+00:00", "Z")


Seat = int
Deal = dict | None


@dataclass(frozen=True)
class Traits:
    """What kind of game it is, as game frameworks classify games (OpenSpiel's GameType): each
    trait holds with at least one choice of the game's options. Declared, and checked against
    the rules by tests/test_game_declarations.py."""

    simultaneous: bool  # several seats may be awaited at once, and act in any order
    hidden_information: bool  # some values are sealed from some seats (docs/fairness.md)
    teams: bool  # seats may win together
    chance: bool  # cards are shuffled from the fair random stream

    def describe(self) -> dict[str, bool]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True, eq=False)
class Game:
    """One game, declared (boardgame.io's game object, OpenSpiel's game header).

    `start(cmd, deal)` emits the deal (deal: a checked test deal or None); `decide(cmd, seat,
    action)` emits the events of an action the framework found well formed and the seat
    awaited, or raises RuleError; `apply(state, event)` is the reducer (in place, pure in every
    other way); `turns` the game's turn kind (core/turn_kinds.py), whose `to_move(state)` is the
    seats awaited while the game is playing (several for simultaneous choices), also
    `game.to_move`; `view(state, seat)` the table as a seat (None: a spectator) sees it.
    Every seat list, option and event type is the game's own; the lifecycle events (`created`,
    `seat_taken`, `ended`) are the framework's. `bot_patience(state, seat)`: seconds an awaited
    bot waits before it plays, so that a person it plays with may choose first.
    `seats_out(state)`: the seats eliminated while the game goes on (none in a game without
    eliminations), so the service knows when no person is left playing. `knowledge(state)`:
    what the public log tells of every seat's cards (the view's `known`, in games that have it).

    For the contract (`service.api.openapi`): `table_shape` is what `view` returns, `result_shape`
    the fields the game adds to `result` (or narrows: its `reason`s), `problems` the codes its
    rules refuse with (code: when), so that clients get a type for each.
    """

    name: str
    title: str
    options: Sequence[Option]
    seat_count: Callable[[dict], int]
    seat_range: tuple[int, int]
    actions: Sequence[Action]
    events: Mapping[str, Event]
    deck: Callable[[dict], list[str]]
    setup: Callable[[dict], dict]
    start: Callable[[Any, Deal], None]
    decide: Callable[[Any, Seat, dict], None]
    apply: Callable[[dict, dict], None]
    turns: TurnKind
    legal_actions: Callable[[dict, Seat], list[dict]]
    view: Callable[[dict, Seat | None], dict]
    cards: Callable[[dict], list[str]]
    rounds: Callable[[dict], int]
    bots: Mapping[str, Bot]
    traits: Traits
    check_deal: Callable[[Any, dict], Any] | None = None
    deal_shape: Shape | None = None
    waiting_reason: Callable[[dict, Seat], RuleError] | None = None
    timers: Callable[[dict], list[tuple[str, str]]] | None = None
    on_timer: Callable[[Any, str], None] | None = None
    ties: Callable[[list[dict]], list[dict]] | None = None
    summarize: Callable[[list[dict]], dict] | None = None
    bot_patience: Callable[[dict, Seat], float] | None = None
    seats_out: Callable[[dict], list[Seat]] | None = None
    # what the public log tells of each seat's cards, by seat (the view's `known`, computed
    # only when read: most bots never read it); `knowledge_shape` its contract
    knowledge: Callable[[dict], list[dict] | None] | None = None
    knowledge_shape: Shape | None = None
    # the result when the game reaches its event budget (reason `event_limit`;
    # docs/rules/common.md#event-budget: "ends the same way" as at `max_rounds`); none: a draw
    over_budget: Callable[[dict], dict] | None = None
    table_shape: Shape | None = None
    result_shape: Mapping[str, Shape] | None = None
    problems: Mapping[str, str] = field(default_factory=dict)
    texts: Mapping[str, Any] = field(default_factory=dict)  # core/texts.py: rules, option docs
    doc: str = ""
    reveal_events: frozenset[str] = field(init=False, default=frozenset())  # from `events`
    to_move: Callable[[dict], list[Seat]] = field(init=False)  # from `turns`

    def __post_init__(self) -> None:
        for required in ("random", "greedy"):
            if required not in self.bots:
                raise ValueError(f"{self.name}: every game offers a {required!r} bot")
        if self.traits.simultaneous != self.turns.simultaneous:
            raise ValueError(f"{self.name}: the `simultaneous` trait contradicts the turn kind")
        if isinstance(self.turns, CommitReveal):
            self.turns.check(self.events)
        reveals = [k for k, e in self.events.items() if e.reveals]
        object.__setattr__(self, "reveal_events", frozenset(reveals))
        object.__setattr__(self, "to_move", self.turns.to_move)

    def __repr__(self) -> str:
        return f"<Game {self.name}>"

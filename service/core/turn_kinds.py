"""Turn kinds: which seats the rules await, and when a step of simultaneous moves is complete.

A game declares one (`Game.turns`); the framework reads its `to_move` (the view, clocks, bots).
`Sequential`: one seat at a time (Batak). `Simultaneous`: several seats each owe one move, in
any order (Bataille's flips). `CommitReveal`: moves committed sealed and turned up together by
one reveal event (BATAYO, Bataille ouverte), with seats that move in the open between the
commits and the reveal as `then` (Roylet's King).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from .shapes import Event, Hidden, Shape

Seat = int


class TurnKind(Protocol):
    """What every turn kind offers: whether several seats may be awaited at once, and
    `to_move(state)`, the seats awaited (a function the framework calls after every event, so
    each kind hands over the plainest one it has)."""

    simultaneous: ClassVar[bool]

    @property
    def to_move(self) -> Callable[[Any], list[Seat]]: ...


@dataclass(frozen=True)
class Sequential:
    """One seat at a time: `turn(state)` is the seat awaited, or None (nobody)."""

    turn: Callable[[Any], Seat | None]
    simultaneous: ClassVar[bool] = False

    @property
    def to_move(self) -> Callable[[Any], list[Seat]]:
        return self._awaited

    def _awaited(self, state: Any) -> list[Seat]:
        seat = self.turn(state)
        return [] if seat is None else [seat]


@dataclass(frozen=True)
class Simultaneous:
    """A step of simultaneous moves: `owing(state)` the seats of the step whose move is still
    to come, in seat order, awaited together; once none is, the step is complete and the
    rules resolve it."""

    owing: Callable[[Any], list[Seat]]
    simultaneous: ClassVar[bool] = True

    @property
    def to_move(self) -> Callable[[Any], list[Seat]]:
        return self.owing

    def complete(self, state: Any) -> bool:
        """Whether every seat of the step has moved, in a game still playing."""
        return state["status"] == "playing" and not self.to_move(state)


@dataclass(frozen=True)
class CommitReveal(Simultaneous):
    """A step of simultaneous moves committed sealed: each seat's `commit` event seals its
    choice until the `reveal` event turns every choice of the step face up at once, when the
    step is complete (`complete`: every commit in, and the `then` seat has moved)."""

    commit: str = ""  # the event type of a commit
    reveal: str = ""  # the event type that turns the step's commits face up
    then: Sequential | None = None  # awaited in the open once every commit is in

    @property
    def to_move(self) -> Callable[[Any], list[Seat]]:
        return self.owing if self.then is None else self._owing_then

    def _owing_then(self, state: Any) -> list[Seat]:
        assert self.then is not None
        return self.owing(state) or self.then.to_move(state)

    def check(self, events: Mapping[str, Event]) -> None:
        """The game's events seal a commit until the reveal, and the reveal unseals it: a
        declaration error otherwise."""
        commit, reveal = events.get(self.commit), events.get(self.reveal)
        if commit is None or not any(_sealed_until_reveal(s) for s in commit.fields.values()):
            raise ValueError(f"{self.commit!r}: a commit event seals a field until the reveal")
        if reveal is None or not reveal.reveals:
            raise ValueError(f"{self.reveal!r}: the reveal event must be declared `reveals`")


def _sealed_until_reveal(shape: Shape) -> bool:
    return isinstance(shape, Hidden) and shape.until == "reveal"

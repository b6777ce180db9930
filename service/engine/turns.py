"""Actions on one game in one process take turns. Two players may act at once (Bataille's flips
are simultaneous); each action decides on the state this process last saw and appends only at
that version, so without turns one of two would meet a conflict and decide again. In turns, the
second decides on the state the first's append leaves: once it landed, or, where this process's
appends reach the store in the order sent (`Store.pipelined`), as soon as it is on its way, its
own append riding right behind. Correctness never rests on this (the append is conditional on
the tip's version and hash): a turn not had within `WAIT_S` goes ahead without it, and a state
that did not land makes the append decided on it meet another tip and decide again."""

from __future__ import annotations

import threading

WAIT_S = 2.0
# turns kept for reuse: a lock made per action was a measurable share of its CPU
# (docs/performance.md#shortcuts-judged-in-paired-runs)
SPARE = 64


class Turn:
    __slots__ = ("ahead", "game_id", "lock", "turns", "users")

    def __init__(self, turns: Turns) -> None:
        self.turns = turns
        self.lock = threading.Lock()
        self.game_id = ""
        self.users = 0  # who holds it, waits for it, or has an append under way
        self.ahead: dict | None = None  # the state an append under way will leave

    def give(self) -> None:
        self.lock.release()
        self.turns._leave(self)


class Hold:
    """One action's part in its game's turn: held while it decides, handed on (`hand_on`) once
    its append is on its way, had again (`again`) to decide again after a conflict."""

    __slots__ = ("holding", "turn")

    def __init__(self, turn: Turn | None) -> None:
        self.turn = turn
        self.holding = turn is not None

    def basis(self) -> dict | None:
        """The state the append handed on before this one will leave, if it is still under way."""
        return self.turn.ahead if self.holding else None  # type: ignore[union-attr]

    def hand_on(self, state: dict) -> None:
        """The next action may decide on `state`: this one's append is on its way."""
        if self.holding:
            self.turn.ahead = state  # type: ignore[union-attr]
            self.holding = False
            self.turn.lock.release()  # type: ignore[union-attr]

    def landed(self, state: dict) -> None:
        """The append decided at `state` was answered, whatever the answer: nobody decides on
        it as a state under way any more (landed, it is the kept state)."""
        if self.turn is not None and self.turn.ahead is state:
            self.turn.ahead = None

    def again(self) -> None:
        """The turn again, to decide again (not had in time: without it)."""
        if self.turn is not None and not self.holding:
            self.holding = self.turn.lock.acquire(timeout=WAIT_S)

    def end(self) -> None:
        if self.turn is None:
            return
        if self.holding:
            self.holding = False
            self.turn.give()
        else:  # handed on: its lock is someone else's now
            self.turn.turns._leave(self.turn)


class Turns:
    def __init__(self) -> None:
        self._turns: dict[str, Turn] = {}  # the games someone holds or waits for
        self._spare: list[Turn] = []
        self._guard = threading.Lock()

    def hold(self, game_id: str) -> Hold:
        """This process's turn at `game_id` for one action (`end` it once the action is done)."""
        return Hold(self.take(game_id))

    def take(self, game_id: str) -> Turn | None:
        """This process's turn at `game_id`, to `give` back (None: not had in time). A turn
        nobody holds or waits for is forgotten (and its lock kept for another game's)."""
        with self._guard:
            turn = self._turns.get(game_id)
            if turn is None:
                turn = self._spare.pop() if self._spare else Turn(self)
                turn.game_id = game_id
                self._turns[game_id] = turn
            turn.users += 1
        if turn.lock.acquire(blocking=False) or turn.lock.acquire(timeout=WAIT_S):
            return turn
        self._leave(turn)
        return None

    def _leave(self, turn: Turn) -> None:
        with self._guard:
            turn.users -= 1
            if turn.users == 0:
                del self._turns[turn.game_id]
                turn.ahead = None
                if len(self._spare) < SPARE:
                    self._spare.append(turn)

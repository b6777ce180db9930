"""Actions on one game in one process take turns.

Two players of a game may act at once (Bataille's flips are simultaneous). Each action decides
on the state this process last saw and appends only at that version, so of two actions at once
one finds the stream moved on: it reloads, decides again and appends again, two more round trips
and a second decision. Taking turns in the process, the second one waits for the first's append
and decides on the state it left. Correctness never rests on this (the append is conditional,
across processes too): a turn not had within `WAIT_S` goes ahead without it.
"""

from __future__ import annotations

import threading

WAIT_S = 2.0
# turns kept for reuse: a lock made per action was a measurable share of its CPU
# (docs/performance.md#shortcuts-judged-in-paired-runs)
SPARE = 64


class Turn:
    __slots__ = ("game_id", "lock", "turns", "users")

    def __init__(self, turns: Turns) -> None:
        self.turns = turns
        self.lock = threading.Lock()
        self.game_id = ""
        self.users = 0  # who holds it or waits for it

    def give(self) -> None:
        self.lock.release()
        self.turns._leave(self)


class Turns:
    def __init__(self) -> None:
        self._turns: dict[str, Turn] = {}  # the games someone holds or waits for
        self._spare: list[Turn] = []
        self._guard = threading.Lock()

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
                if len(self._spare) < SPARE:
                    self._spare.append(turn)

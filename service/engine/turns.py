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
import weakref

WAIT_S = 2.0


class Turn:
    __slots__ = ("__weakref__", "lock")

    def __init__(self) -> None:
        self.lock = threading.Lock()

    def give(self) -> None:
        self.lock.release()


class Turns:
    def __init__(self) -> None:
        self._turns: weakref.WeakValueDictionary[str, Turn] = weakref.WeakValueDictionary()
        self._guard = threading.Lock()

    def take(self, game_id: str) -> Turn | None:
        """This process's turn at `game_id`, to `give` back (None: not had in time). A turn
        nobody holds or waits for is forgotten."""
        turn = self._turns.get(game_id)
        if turn is None:
            with self._guard:
                turn = self._turns.get(game_id)
                if turn is None:
                    turn = self._turns[game_id] = Turn()
        if turn.lock.acquire(blocking=False) or turn.lock.acquire(timeout=WAIT_S):
            return turn
        return None

"""A game played in memory with the very same rules code: the simulator and the tests use it.

No Redis, no HTTP: events are kept in a list, so everything the engine does to a game (create,
join, act, bots, replay) can be exercised and measured here.
"""

from __future__ import annotations

import hashlib
from typing import Any

from ..core import bots, command
from ..core.game import Game
from ..core.options import resolve_options
from ..core.registry import GAMES
from ..core.sealing import FAIRNESS
from ..core.state import awaited, bot_seats, fold, game_of
from ..core.times import utc_now
from ..core.views import closed_as_null, game_view, shown_event


class Table:
    """One game in memory: its events, its live state, and its secret seed."""

    def __init__(
        self,
        game: str,
        options: dict | None = None,
        seats: list[dict] | None = None,
        seed: bytes | None = None,
        deal: dict | None = None,
        game_id: str = "local",
        clock=utc_now,
        simulation: bool = False,
        fairness: int = FAIRNESS,
        kept: bool = True,
        event_budget: int | None = command.EVENT_BUDGET,
    ) -> None:
        """With `simulation` the table skips what only a stored game needs: events are not
        sealed into the hash chain, the state moves on in place instead of being copied per
        action, and bots read their view lazily. The rules code and the random stream are the
        same, so the game's course and result are the same as a stored game's. With `kept`
        false as well, `play_out` keeps no event (nor its cause): only the final state counts,
        as in `simulate`."""
        module = GAMES[game]
        self.options = resolve_options(module, options or {})
        n = module.seat_count(self.options)
        seats = seats or [{"bot": "random"} for _ in range(n)]
        if len(seats) != n:
            raise ValueError(f"{game} with these options has {n} seats, not {len(seats)}")
        self.seed = seed if seed is not None else hashlib.sha256(game_id.encode()).digest()
        self.deal = deal
        self.clock = clock
        self.simulation = simulation
        self.kept = kept or not simulation
        described = [{"seat": i, **s} for i, s in enumerate(seats)]
        cmd = command.create(
            game_id,
            game,
            self.options,
            described,
            self.seed,
            clock(),
            test=True,
            deal=deal,
            sealed=not simulation,
            fairness_version=fairness,
            event_budget=event_budget,
        )
        self.events: list[dict] = list(cmd.events)
        self.state = cmd.state

    @property
    def game(self) -> Game:
        return game_of(self.state)

    def _take(self, cmd: command.Command) -> list[dict]:
        self.events += cmd.events
        self.state = cmd.state
        return cmd.events

    def join(self, name: str, client_seed: str | None = None) -> int:
        cmd, seat = command.join(self.state, self.seed, name, client_seed, self.clock(), self.deal)
        self._take(cmd)
        return seat

    def act(self, seat: int, action: dict, actor: Any = None) -> list[dict]:
        try:
            cmd = command.act(
                self.state,
                self.seed,
                seat,
                action,
                self.clock(),
                seat if actor is None else actor,
                sealed=not self.simulation,
                owned=self.simulation,
            )
        except Exception:
            self._back_to_log()
            raise
        return self._take(cmd)

    def _back_to_log(self) -> None:
        """A simulation's state moves on in place: refused halfway, it goes back to the state
        of the events kept (the last good one)."""
        if not self.kept:
            raise RuntimeError("a table that keeps no events cannot go back to a good state")
        if self.state["version"] != (self.events[-1]["version"] if self.events else 0):
            self.state = fold(self.events)

    def fire(self, key: str, now: str | None = None) -> list[dict]:
        """Fire a due clock (BATAYO's time limit); nothing happens if it is not due at `now`."""
        cmd = command.fire(self.state, self.seed, key, now or self.clock())
        return self._take(cmd) if cmd else []

    def abandon(self, now: str) -> list[dict]:
        """End the game as abandoned (docs/rules/common.md#abandoned-games); nothing if not due at
        `now`."""
        cmd = command.abandon(self.state, self.seed, now)
        return self._take(cmd) if cmd else []

    def view(self, seat: int | None) -> dict:
        return game_view(self.state, seat)

    def shown(self, event: dict, seat: int | None) -> dict:
        """An event as `seat` may see it now (sealed values it may not see stay sealed)."""
        return shown_event(event, seat, self.state, self.seed)

    def export(self) -> list[dict]:
        """The log as a spectator receives it now: once the game has ended, every value in
        clear with its opening (what `batayo export` writes)."""
        return [self.shown(e, None) for e in self.events]

    def ties(self, seat: int | None) -> list[dict]:
        """The game's tie audit, from the events as `seat` may see them now."""
        audit = self.game.ties
        return audit([closed_as_null(self.shown(e, seat)) for e in self.events]) if audit else []

    def bot_move(self, seat: int, bot: str | None = None) -> list[dict]:
        """Let the seat's bot (or the named one) choose from the seat's view, and play it."""
        action = bots.choose(self.state, seat, self.seed, bot, lazy=self.simulation)
        return self.act(seat, action, actor="bot")

    def play_out(self, chosen: dict[int, str] | None = None, limit: int = 10**7) -> None:
        """Play bots for every awaited seat until the game ends (or `limit` actions): each
        seat's own bot, or the one `chosen` names for it."""
        chosen = {**bot_seats(self.state), **(chosen or {})}
        if self.simulation:
            return self._simulate_out(chosen, limit)
        for _ in range(limit):
            state = self.state
            if state["status"] != "playing":
                return
            seat = awaited(state)[0]
            self.bot_move(seat, chosen[seat])
        raise RuntimeError("game did not end")

    def _simulate_out(self, chosen: dict[int, str], limit: int) -> None:
        """`play_out` for a simulation: one command moves the state on in place for the whole
        game, at one instant (the clock is read once), and the seat comes from `to_move`, so it
        needs no check of its right to act."""
        state = self.state
        kept = self.kept
        cmd = command.Command(
            state, self.seed, self.clock(), "bot", sealed=False, owned=True, kept=kept
        )
        game = self.game
        to_move = game.to_move
        choose = bots.chooser(game, self.seed, chosen)
        decide = cmd.decide
        events = self.events
        budget = state.get("event_budget")
        last = budget - 1 if budget else float("inf")  # where `command.act` ends it, as here
        try:
            for _ in range(limit):
                if state["status"] != "playing":
                    return
                seats = to_move(state)
                if not seats:
                    raise RuntimeError("a game under way awaits no seat")
                seat = seats[0]
                decide(seat, choose(state, seat, seats), "bot")
                if state["version"] >= last:
                    command.within_budget(cmd)
                if kept:
                    events += cmd.events
        except Exception:
            if kept:
                self._back_to_log()
            raise
        raise RuntimeError("game did not end")

    def replay(self, at: int | None = None) -> dict:
        return fold(self.events if at is None else self.events[:at])

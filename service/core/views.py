"""What a caller may see: the game view of docs/api.md, and each event as the caller receives it.

Seat `None` is a spectator. An event is served in its sealed form (docs/fairness.md, version 2):
each value the caller may not see is `{"sealed": digest}`; each one it may see is in clear with
its nonce in `openings`, so every caller can recompute the chain. Once the game has ended
everybody sees every value, with its opening.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from .clocks import due_timers
from .fairness import nonce
from .game import Game
from .options import with_later
from .pace import skippable
from .sealing import replaced, sealed_form, secrets, sees
from .state import awaited, game_of, legal_actions


def public_seats(state: dict) -> list[dict]:
    out = []
    for s in state.get("seats", []):
        entry: dict[str, Any] = {"seat": s["seat"]}
        for key in ("name", "bot"):
            if s.get(key) is not None:
                entry[key] = s[key]
        entry["open"] = bool(s.get("open"))
        out.append(entry)
    return out


def _playing(state: dict) -> bool:
    return state["status"] == "playing"


# The view of docs/api.md, field by field: each is a function of (state, seat).
_FIELDS: dict[str, Callable[[dict, int | None], Any]] = {
    "id": lambda state, seat: state["id"],
    "game": lambda state, seat: state["game"],
    "version": lambda state, seat: state["version"],
    "status": lambda state, seat: state["status"],
    "test": lambda state, seat: state["test"],
    "options": lambda state, seat: with_later(state["options"]),
    "seats": lambda state, seat: public_seats(state),
    "you": lambda state, seat: seat,
    "to_move": lambda state, seat: awaited(state),
    "legal_actions": legal_actions,
    "table": lambda state, seat: game_of(state).view(state, seat),
    "rounds": lambda state, seat: game_of(state).rounds(state),
    "result": lambda state, seat: state["result"],
    "seed_commitment": lambda state, seat: state["seed_commitment"],
    "fairness": lambda state, seat: state.get("fairness", 1),
    "clocks": lambda state, seat: dict(due_timers(state)) if _playing(state) else {},
    "skippable": lambda state, seat: skippable(state),
}


def game_view(state: dict, seat: int | None) -> dict:
    out = {key: field(state, seat) for key, field in _FIELDS.items()}
    knowledge = game_of(state).knowledge
    if knowledge is not None:
        out["known"] = knowledge(state)
    return out


class LazyView(Mapping):
    """The same view as `game_view`, each field computed when first read: what a bot in a
    simulation gets (most bots read one or two fields). Valid only until the state moves on.
    `awaited` (the seats awaited, if the caller knows them) and `game` save looking them up."""

    __slots__ = ("_game", "_got", "_seat", "_state")

    def __init__(
        self,
        state: dict,
        seat: int | None,
        awaited: list[int] | None = None,
        game: Game | None = None,
    ) -> None:
        self._state = state
        self._seat = seat
        self._game = game
        self._got: dict[str, Any] = {} if awaited is None else {"to_move": awaited}

    def __getitem__(self, key: str) -> Any:
        got = self._got
        if key in got:  # most reads are first reads: no KeyError to raise and catch
            return got[key]
        if key == "known":  # the game's public knowledge: only in games that have it
            knowledge = (self._game or game_of(self._state)).knowledge
            if knowledge is None:
                raise KeyError(key)
            value: Any = knowledge(self._state)
        elif key == "legal_actions":  # `legal_actions` of state.py, from the seats awaited
            seat = self._seat
            game = self._game or game_of(self._state)
            awaited = seat is not None and seat in self["to_move"]
            value = game.legal_actions(self._state, seat) if awaited and seat is not None else []
        else:
            value = _FIELDS[key](self._state, self._seat)
        got[key] = value
        return value

    def __iter__(self) -> Iterator[str]:
        yield from _FIELDS
        if (self._game or game_of(self._state)).knowledge is not None:
            yield "known"

    def __len__(self) -> int:
        return sum(1 for _ in self)


_INTERNAL = ("digests",)


def shown_event(event: dict, seat: int | None, state: dict, server_seed: bytes) -> dict:
    """`event` as `seat` may see it now (`state` is the game's latest state)."""
    if "sealed" not in event:
        return _shown_v1(event, seat, state)
    pointers = event["sealed"]
    if not pointers:
        out = {k: v for k, v in event.items() if k not in _INTERNAL}
        out["openings"] = {}
        return out
    found = secrets(game_of(state), event, state["options"])
    version = event["version"]
    hidden, openings = [], {}
    for p, d in zip(pointers, event["digests"], strict=True):
        secret = found.get(p)
        if secret is not None and sees(secret, seat, version, state):
            openings[p] = nonce(server_seed, state["id"], version, p).hex()
        else:
            hidden.append((p, d))
    out = sealed_form({**event, "sealed": [p for p, _ in hidden]}, [d for _, d in hidden])
    out["sealed"] = pointers
    out["hash"] = event["hash"]
    out["openings"] = openings
    return out


def closed_as_null(event: dict) -> dict:
    """A served event with each value the caller may not see as null: what tie audits read."""
    closed = [p for p in event.get("sealed", ()) if p not in event.get("openings", {})]
    return replaced(event, dict.fromkeys(closed)) if closed else event


def _shown_v1(event: dict, seat: int | None, state: dict) -> dict:
    """A game of docs/fairness.md version 1 (stored before version 2): its events hash the clear
    values, so while it runs they are served without `hash` and `prev` (those would leak), and
    each value the caller may not see is null."""
    if state["status"] == "finished":
        return event
    found = secrets(game_of(state), event, state["options"])
    version = event["version"]
    nulls = {p: None for p, s in found.items() if not sees(s, seat, version, state)}
    out = replaced(event, nulls) if nulls else dict(event)
    out.pop("hash", None)
    out.pop("prev", None)
    return out

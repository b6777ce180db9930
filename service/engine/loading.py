"""Loading games, and what the engine keeps of them in memory.

The latest state of each recent game (shared, never changed), its seed and token digests, and
the last `PAST_STATES` past versions asked for (`?at=N`) are kept; a load checks the kept
version's hash against the stream, so a Redis that lost writes sends this process back to the
log. What a caller is shown is made per request, never kept, so no caller's cards reach
another.
"""

from __future__ import annotations

from collections import OrderedDict
from contextlib import suppress
from typing import Any

from ..core.state import apply, clone, fold
from ..store import Store

PAST_STATES = 256
DECIDED = 64  # states decided by appends under way or just done, kept for the followers


class NotFound(Exception):
    pass


class Kept:
    """The games this process loaded: their latest states, past states, seeds, token digests."""

    def __init__(self, store: Store, cache_size: int = 512) -> None:
        self.store = store
        self._states: OrderedDict[str, dict] = OrderedDict()
        self._size = cache_size
        self._seeds: OrderedDict[str, bytes] = OrderedDict()
        self._token_digests: OrderedDict[tuple[str, int], str] = OrderedDict()
        self._past: OrderedDict[tuple[str, int], dict] = OrderedDict()
        self._decided: OrderedDict[tuple[str, int], dict] = OrderedDict()  # see `decided`

    def load(self, game_id: str, at: int | None = None) -> dict:
        """The game's state, now or as of version `at`.

        A state handed out is shared with the cache: read it, never change it."""
        if at is not None and (past := self._past_state(game_id, at)) is not None:
            return past
        cached = self._states.get(game_id)
        known = cached if cached and (at is None or cached["version"] <= at) else None
        if at is not None:
            known = self._nearest_past(game_id, at, known)
        snap, events, reset = self.store.load_since(
            game_id, at, known["version"] if known else 0, (known or {}).get("hash") or ""
        )
        if reset:  # the stream no longer holds what we saw (Redis lost writes): start again
            self.forget(game_id)
            self._forget_past(game_id)
            known = None
        if snap is not None:
            state = snap
        elif known is not None:
            state = clone(known) if events else known
        elif events:
            state = fold([])
        else:
            raise NotFound(game_id)
        for event in events:
            apply(state, event)
        if at is not None and state["version"] < at:
            raise NotFound(f"{game_id} has no version {at}")
        if at is None and state is not known:
            self.remember(game_id, state)
        if at is not None:
            self._keep_past(game_id, at, state)
        return state

    # -- past versions -------------------------------------------------------------------------

    def _past_state(self, game_id: str, at: int) -> dict | None:
        name = (game_id, at)
        state = self._past.get(name)
        if state is not None:
            with suppress(KeyError):  # another thread may have let it go meanwhile
                self._past.move_to_end(name)
        return state

    def _nearest_past(self, game_id: str, at: int, known: dict | None) -> dict | None:
        """The kept state of this game closest before `at` (`known`, the latest, counts too)."""
        best = known
        for (gid, version), state in list(self._past.items()):
            if gid == game_id and version < at and (best is None or version > best["version"]):
                best = state
        return best

    def _keep_past(self, game_id: str, at: int, state: dict) -> None:
        self._past[(game_id, at)] = state
        self._past.move_to_end((game_id, at))
        while len(self._past) > PAST_STATES:
            with suppress(KeyError):
                self._past.popitem(last=False)

    def _forget_past(self, game_id: str) -> None:
        for name in [n for n in list(self._past) if n[0] == game_id]:
            self._past.pop(name, None)

    def cached(self, game_id: str) -> dict | None:
        return self._states.get(game_id)

    def decided(self, game_id: str, state: dict) -> None:
        """A state this process decided and is appending, for whoever folds the same events
        meanwhile (a follower whose message came before the append's answer); it may never
        land, so `at` checks the hash of its last event."""
        self._decided[(game_id, state["version"])] = state
        while len(self._decided) > DECIDED:
            with suppress(KeyError):
                self._decided.popitem(last=False)

    def at(self, game_id: str, version: int, tip: str) -> dict | None:
        """The state this process kept or decided at `version`, if its tip's hash is `tip`."""
        for state in (self._states.get(game_id), self._decided.get((game_id, version))):
            if state is not None and state["version"] == version and state["hash"] == tip:
                return state
        return None

    def forget(self, game_id: str) -> None:
        """Drop the kept state: the store disagrees with it (an append found another tip)."""
        self._states.pop(game_id, None)

    def exists(self, game_id: str) -> bool:
        """Whether the game exists; games are never deleted, so one held in memory does."""
        if game_id in self._states:
            return True
        try:
            self.load(game_id)
        except NotFound:
            return False
        return True

    def remember(self, game_id: str, state: dict) -> None:
        """Keep the latest state (shared, never changed: commands copy before they decide)."""
        self._states[game_id] = state
        self._states.move_to_end(game_id)
        while len(self._states) > self._size:
            self._states.popitem(last=False)

    def offer(self, game_id: str, state: dict) -> None:
        """Keep `state` if it is newer than the one kept (a follower folded it from the log)."""
        cached = self._states.get(game_id)
        if cached is None or cached["version"] < state["version"]:
            self.remember(game_id, state)

    def _keep(self, memo: OrderedDict, key: Any, value: Any) -> None:
        memo[key] = value
        while len(memo) > 4 * self._size + 64:
            memo.popitem(last=False)

    def seed(self, game_id: str) -> bytes:
        if game_id not in self._seeds:
            hexseed = self.store.meta(game_id).get("seed")
            if hexseed is None:
                raise NotFound(game_id)
            self._keep(self._seeds, game_id, bytes.fromhex(hexseed))
        return self._seeds[game_id]

    def token_digest(self, game_id: str, seat: int) -> str | None:
        """The stored digest of a seat's token (kept once known: it never changes)."""
        known = self._token_digests.get((game_id, seat))
        if known is not None:
            return known
        digest = self.store.meta(game_id).get(f"token:{seat}")
        if digest is not None:
            self._keep(self._token_digests, (game_id, seat), digest)
        return digest

"""Loading games, and what the engine keeps of them in memory.

The latest state of each recent game is kept (shared, never changed: commands copy before they
decide), so loading an unchanged game costs one round trip that returns nothing new; seeds and
token digests never change once set, so they are kept too, bounded like the states.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from ..core.state import apply, clone, fold
from ..store import Store


class NotFound(Exception):
    pass


class Games:
    def __init__(self, store: Store, cache_size: int = 512) -> None:
        self.store = store
        self._states: OrderedDict[str, dict] = OrderedDict()
        self._size = cache_size
        self._seeds: OrderedDict[str, bytes] = OrderedDict()
        self._token_digests: OrderedDict[tuple[str, int], str] = OrderedDict()

    def load(self, game_id: str, at: int | None = None) -> dict:
        """The game's state, now or as of version `at`.

        A state handed out is shared with the cache: read it, never change it."""
        cached = self._states.get(game_id)
        known = cached if cached and (at is None or cached["version"] <= at) else None
        snap, events = self.store.load(game_id, at, known["version"] if known else 0)
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
        return state

    def cached(self, game_id: str) -> dict | None:
        return self._states.get(game_id)

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

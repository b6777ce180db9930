"""The listing index: every game by creation time, kind and status, and the count of games in
each status, kept as games are created and change status.

All under the hash tag `{games}`, so each change is one atomic, idempotent Lua script, written
on creation and status changes only, never on an ordinary append. The games in play are also
kept by when they are abandoned at the earliest (`IDLE`, docs/rules/common.md#abandoned-games),
a bound from below that only the sweep corrects (`Scheduler.abandon_idle`).
"""

from __future__ import annotations

from collections.abc import Iterator

from .scripts import Script

P = "{games}:"
STATUS = P + "status"  # id -> status
KIND = P + "kind"  # id -> game kind
ALL = P + "all"  # id by creation time (ms)
COUNTS = P + "counts"  # status -> games in it
IDLE = P + "idle"  # id of a game in play -> when it is abandoned at the earliest (ms)

# Every key below is named from the `{games}` prefix, so all share the slot of KEYS[1].
# A game in play is in the idle index (ARGV[n]: when it is abandoned, ms; '' not known),
# any other game is not.
_LUA_IDLE = """
local function idle(id, status, ms)
  if status ~= 'playing' then
    redis.call('ZREM', '{games}:idle', id)
  elseif ms ~= '' then
    redis.call('ZADD', '{games}:idle', ms, id)
  end
end
"""

# KEYS: the status hash. ARGV: id, kind, status, created ms, abandoned ms. A game indexed before
# is left as it is; a status set before the game was indexed (the create's first append) wins.
_INDEX = (
    _LUA_IDLE
    + """
local P, id, kind, ms = '{games}:', ARGV[1], ARGV[2], ARGV[4]
if redis.call('ZSCORE', P .. 'all', id) then return 0 end
local st = redis.call('HGET', KEYS[1], id) or ARGV[3]
idle(id, st, ARGV[5])
redis.call('ZADD', P .. 'all', ms, id)
redis.call('ZADD', P .. 'game:' .. kind, ms, id)
redis.call('ZADD', P .. 'in:' .. st, ms, id)
redis.call('ZADD', P .. 'game:' .. kind .. ':in:' .. st, ms, id)
redis.call('HSET', KEYS[1], id, st)
redis.call('HSET', P .. 'kind', id, kind)
redis.call('HINCRBY', P .. 'counts', st, 1)
return 1
"""
)

# KEYS: the status hash. ARGV: id, the new status, abandoned ms. Moves the game between the
# status sets and counts; nothing when it already has that status.
_SET_STATUS = (
    _LUA_IDLE
    + """
local P, id, new = '{games}:', ARGV[1], ARGV[2]
local old = redis.call('HGET', KEYS[1], id)
if old == new then return 0 end
redis.call('HSET', KEYS[1], id, new)
idle(id, new, ARGV[3])
local ms = redis.call('ZSCORE', P .. 'all', id)
if not ms then return 1 end
local kind = redis.call('HGET', P .. 'kind', id)
if old then
  redis.call('ZREM', P .. 'in:' .. old, id)
  redis.call('ZREM', P .. 'game:' .. kind .. ':in:' .. old, id)
  redis.call('HINCRBY', P .. 'counts', old, -1)
end
redis.call('ZADD', P .. 'in:' .. new, ms, id)
redis.call('ZADD', P .. 'game:' .. kind .. ':in:' .. new, ms, id)
redis.call('HINCRBY', P .. 'counts', new, 1)
return 1
"""
)

# What versions before the `{games}` tag kept (unslotted keys): adopted once, then removed.
LEGACY_STATUS, LEGACY_ALL, LEGACY_GAME = "games:status", "games:all", "games:game:"


def _sorted_set(game: str | None, status: str | None) -> str:
    if game and status:
        return f"{P}game:{game}:in:{status}"
    if game:
        return f"{P}game:{game}"
    if status:
        return f"{P}in:{status}"
    return ALL


class GameIndex:
    def __init__(self, client) -> None:
        self.redis = client
        self._index = Script(client, _INDEX)
        self._set_status = Script(client, _SET_STATUS)

    def add(
        self, game_id: str, game: str, status: str, created_ms: int, idle_ms: int | None = None
    ) -> None:
        """`idle_ms`: when a game in play is abandoned if nothing happens (None: not known)."""
        args = [game_id, game, status, created_ms, "" if idle_ms is None else idle_ms]
        self._index(keys=[STATUS], args=args)

    def set_status(self, game_id: str, status: str, idle_ms: int | None = None) -> None:
        args = [game_id, status, "" if idle_ms is None else idle_ms]
        self._set_status(keys=[STATUS], args=args)

    def idle(self, before_ms: int, limit: int, start: int = 0) -> list[str]:
        """Up to `limit` games whose idle score is at or before `before_ms`, earliest first,
        skipping the first `start` of them: one page of one sorted set, O(log n + limit)."""
        ids = self.redis.zrangebyscore(IDLE, "-inf", before_ms, start=start, num=limit)
        return [i.decode() for i in ids]

    def keep_idle(self, deadlines: dict[str, int], new: bool = False) -> None:
        """Write games' idle scores: of games still in the index (a game that ended meanwhile
        left it, and is not put back), or with `new` of games not in it yet (a back-fill)."""
        if deadlines:
            self.redis.zadd(IDLE, deadlines, nx=new, xx=not new)

    def drop_idle(self, *game_ids: str) -> None:
        if game_ids:
            self.redis.zrem(IDLE, *game_ids)

    def page(
        self, game: str | None, status: str | None, offset: int, limit: int
    ) -> tuple[list[tuple[str, str]], bool]:
        """(id, status) pairs newest first, from `offset`, and whether more follow: one page of
        one sorted set, whatever the number of games."""
        ids = self.redis.zrevrange(_sorted_set(game, status), offset, offset + limit)
        more, ids = len(ids) > limit, ids[:limit]
        statuses = self.redis.hmget(STATUS, ids) if ids else []
        return [(i.decode(), (s or b"").decode()) for i, s in zip(ids, statuses, strict=True)], more

    def having(self, status: str) -> Iterator[str]:
        """The ids of the games in `status` (scanned: a game there throughout is seen once)."""
        for game_id, _ in self.redis.zscan_iter(f"{P}in:{status}", count=500):
            yield game_id.decode()

    def counts(self) -> dict[str, int]:
        return {k.decode(): int(v) for k, v in self.redis.hgetall(COUNTS).items() if int(v)}

    def adopt_legacy(self, kind_of) -> int:
        """Move an index of an older version (unslotted keys) into this one; how many games.
        `kind_of(id)` names a game's kind. Safe to run twice or from two processes at once."""
        if not self.redis.exists(LEGACY_STATUS):
            return 0
        kinds, n = set(), 0
        for raw_id, raw_status in self.redis.hscan_iter(LEGACY_STATUS, count=500):
            game_id, status = raw_id.decode(), raw_status.decode()
            kind = kind_of(game_id)
            if not kind:
                continue
            created = self.redis.zscore(LEGACY_ALL, game_id) or 0
            self.add(game_id, kind, status, int(created))
            kinds.add(kind)
            n += 1
        for name in (LEGACY_STATUS, LEGACY_ALL, *(LEGACY_GAME + k for k in kinds)):
            self.redis.delete(name)  # one key a call: on a cluster they live in other slots
        return n

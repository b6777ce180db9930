"""The event store: one Redis stream per game, appended atomically at an expected version.

Every key of a game shares the hash tag `{ID}`, so one game lives in one Redis Cluster slot and
its Lua scripts touch one slot only. The game index (for listing) is separate, derived data.

Stream entry IDs are `<version>-0`, so reading "after version N" is a plain range.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator

import redis

from . import counters as _counters
from . import health
from .clients import is_cluster
from .index import GameIndex

log = logging.getLogger(__name__)

# KEYS: stream, idempotency key, snapshot, meta. ARGV: expected version, idempotency record
# ('' for none), its TTL, snapshot version ('' for none), snapshot JSON, a meta field and its
# value ('' for none), then the events' JSON. All or nothing: one script.
_APPEND = """
if ARGV[2] ~= '' then
  local prior = redis.call('GET', KEYS[2])
  if prior then return {'idem', prior} end
end
local current = redis.call('XLEN', KEYS[1])
if current ~= tonumber(ARGV[1]) then return {'conflict', tostring(current)} end
for i = 8, #ARGV do
  redis.call('XADD', KEYS[1], (current + i - 7) .. '-0', 'e', ARGV[i])
end
if ARGV[2] ~= '' then redis.call('SET', KEYS[2], ARGV[2], 'EX', tonumber(ARGV[3])) end
if ARGV[4] ~= '' then redis.call('HSET', KEYS[3], 'v', ARGV[4], 's', ARGV[5]) end
if ARGV[6] ~= '' then redis.call('HSET', KEYS[4], ARGV[6], ARGV[7]) end
return {'ok', tostring(current + #ARGV - 7)}
"""

# KEYS: stream, snapshot. ARGV: the version wanted ('+' for the latest), the version the caller
# already holds (0 for none). Returns the snapshot (false when the caller's state is as good)
# and the events after the starting point, in one round trip.
_LOAD = """
local upto = ARGV[1]
local from = tonumber(ARGV[2]) + 1
local snap = false
local snapv = redis.call('HGET', KEYS[2], 'v')
if snapv and tonumber(snapv) >= from and (upto == '+' or tonumber(snapv) <= tonumber(upto)) then
  snap = redis.call('HGET', KEYS[2], 's')
  from = tonumber(snapv) + 1
end
local last = upto == '+' and '+' or (upto .. '-0')
return {snap, redis.call('XRANGE', KEYS[1], from .. '-0', last)}
"""

# KEYS: the ticket. ARGV: now (epoch seconds). A seed ticket is taken once: 'ok' and the seed,
# or why not ('unknown', 'used', 'expired'); the record stays a day past its expiry so that a
# late or repeated use is told apart from a ticket that never was.
_TAKE_TICKET = """
local t = redis.call('HMGET', KEYS[1], 'seed', 'expires', 'used')
if not t[1] then return {'unknown', ''} end
if t[3] then return {'used', ''} end
if tonumber(t[2]) <= tonumber(ARGV[1]) then return {'expired', ''} end
redis.call('HSET', KEYS[1], 'used', '1')
return {'ok', t[1]}
"""

# KEYS: meta. ARGV: field, value pairs, the first being the seed. Set only if the game has no
# seed yet (a fixed test id may be taken).
_CREATE_META = """
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 0 then return 0 end
if #ARGV > 2 then redis.call('HSET', KEYS[1], unpack(ARGV, 3)) end
return 1
"""

IDEMPOTENCY_TTL_S = 24 * 3600
TICKET_KEPT_S = 24 * 3600


class Conflict(Exception):
    """The stream is not at the expected version."""

    def __init__(self, current: int) -> None:
        super().__init__(f"the game is at version {current}")
        self.current = current


class Replayed(Exception):
    """The idempotency key was used before: `record` is what was stored with the first append."""

    def __init__(self, record: dict) -> None:
        super().__init__("idempotent replay")
        self.record = record


def key(game_id: str, part: str) -> str:
    return f"game:{{{game_id}}}:{part}"


def _event(entry: tuple | list) -> dict:
    fields = entry[1]  # a dict from XRANGE, a flat [name, value] list from a script
    return json.loads(fields[b"e"] if isinstance(fields, dict) else fields[1])


class Store:
    def __init__(self, client: redis.Redis) -> None:
        self.redis = client
        self._append = client.register_script(_APPEND)
        self._load = client.register_script(_LOAD)
        self._take_ticket = client.register_script(_TAKE_TICKET)
        self._create_meta = client.register_script(_CREATE_META)
        self.games = GameIndex(client)
        self.clustered = is_cluster(client)

    # -- writing -------------------------------------------------------------------------------

    def append(
        self,
        game_id: str,
        expected: int,
        events: list[dict],
        idem: tuple[str, dict] | None = None,
        snapshot: dict | None = None,
        meta: tuple[str, str] | None = None,
        counts: dict[str, int] | None = None,
    ) -> int:
        """Append `events` if the stream is at `expected`; the new version, else Conflict/Replayed.

        `counts` are added to the service-wide counters (see `count`) in the same round trip
        when the append succeeds."""
        idem_key, idem_record = (
            (key(game_id, f"idem:{idem[0]}"), json.dumps(idem[1])) if idem else ("", "")
        )
        snap_v, snap = (str(snapshot["version"]), json.dumps(snapshot)) if snapshot else ("", "")
        keys = [
            key(game_id, "events"),
            idem_key or key(game_id, "idem:-"),
            key(game_id, "snap"),
            key(game_id, "meta"),
        ]
        args = [expected, idem_record, IDEMPOTENCY_TTL_S, snap_v, snap, *(meta or ("", ""))] + [
            json.dumps(e, ensure_ascii=False) for e in events
        ]
        counts = {name: n for name, n in (counts or {}).items() if n}
        answer = None
        if counts and not self.clustered:
            # one round trip: the script, then the counters; taken back if the script refused
            # (the counters live outside the game's hash slot, so they cannot be in the script;
            # a cluster pipeline refuses EVALSHA, so there the counters follow the script)
            pipe = self.redis.pipeline(transaction=False)
            pipe.evalsha(self._append.sha, len(keys), *keys, *args)
            _counters.add(pipe, counts, game_id)
            answer = pipe.execute(raise_on_error=False)[0]
            if isinstance(answer, Exception) or answer[0] != b"ok":
                self.count(game_id, **{name: -n for name, n in counts.items()})
                if isinstance(answer, redis.exceptions.NoScriptError):
                    answer = None  # the server lost its scripts: the plain call loads it
                elif isinstance(answer, Exception):
                    raise answer
                else:
                    counts = {}
        if answer is None:
            answer = self._append(keys=keys, args=args)
            if answer[0] == b"ok" and counts:
                self._count_after(game_id, counts)
        status, value = answer
        if status == b"conflict":
            raise Conflict(int(value))
        if status == b"idem":
            raise Replayed(json.loads(value))
        return int(value)

    def set_meta(self, game_id: str, fields: dict[str, str]) -> None:
        self.redis.hset(key(game_id, "meta"), mapping=fields)

    def create_meta(self, game_id: str, fields: dict[str, str]) -> bool:
        """Set a new game's meta (its seed first); False if the game exists already."""
        flat = ["seed", fields["seed"]]
        for name, value in fields.items():
            if name != "seed":
                flat += [name, value]
        return bool(self._create_meta(keys=[key(game_id, "meta")], args=flat))

    def issue_ticket(self, ticket: str, seed_hex: str, expires: int, ttl_s: int) -> None:
        name = f"seedticket:{ticket}"
        pipe = self.redis.pipeline(transaction=False)
        pipe.hset(name, mapping={"seed": seed_hex, "expires": expires})
        pipe.expire(name, ttl_s + TICKET_KEPT_S)
        pipe.execute()

    def take_ticket(self, ticket: str, now: int) -> tuple[str, str]:
        """('ok', seed hex) the first time a live ticket is taken, else why not."""
        status, seed = self._take_ticket(keys=[f"seedticket:{ticket}"], args=[now])
        return status.decode(), seed.decode()

    def claim_sweep(self, due: str, every_s: int) -> bool:
        """Whether this process schedules the next sweep (one chain, however many workers)."""
        return bool(self.redis.set("sweep:next", due, nx=True, ex=max(1, every_s - 1)))

    def index(self, game_id: str, game: str, status: str, created_ms: int) -> None:
        """Record the game in the listing indexes (newest first by creation time)."""
        self.games.add(game_id, game, status, created_ms)

    def set_status(self, game_id: str, status: str) -> None:
        self.games.set_status(game_id, status)

    # -- reading -------------------------------------------------------------------------------

    def idempotent(self, game_id: str, idem_hash: str) -> dict | None:
        raw = self.redis.get(key(game_id, f"idem:{idem_hash}"))
        return json.loads(raw) if raw else None

    def claim(self, name: str, record: dict) -> dict | None:
        """Store `record` under a global idempotency key unless one is there: None, or the prior."""
        if self.redis.set(f"idem:{name}", json.dumps(record), nx=True, ex=IDEMPOTENCY_TTL_S):
            return None
        raw = self.redis.get(f"idem:{name}")
        return json.loads(raw) if raw else {}

    def settle_claim(self, name: str, record: dict) -> None:
        self.redis.set(f"idem:{name}", json.dumps(record), ex=IDEMPOTENCY_TTL_S)

    def release_claim(self, name: str) -> None:
        self.redis.delete(f"idem:{name}")

    def meta(self, game_id: str) -> dict[str, str]:
        raw = self.redis.hgetall(key(game_id, "meta"))
        return {k.decode(): v.decode() for k, v in raw.items()}

    def load(
        self, game_id: str, at: int | None = None, known: int = 0
    ) -> tuple[dict | None, list[dict]]:
        """The latest snapshot newer than `known` and at or before `at` (or None when the caller's
        state at `known` is the better start), and the events after that start up to `at`."""
        snap, entries = self._load(
            keys=[key(game_id, "events"), key(game_id, "snap")],
            args=["+" if at is None else at, known],
        )
        return (json.loads(snap) if snap else None), [_event(e) for e in entries]

    def events(self, game_id: str, after: int = 0, limit: int | None = None) -> list[dict]:
        entries = self.redis.xrange(key(game_id, "events"), f"{after + 1}-0", "+", count=limit)
        return [_event(e) for e in entries]

    def version(self, game_id: str) -> int:
        return self.redis.xlen(key(game_id, "events"))

    def follow(self, game_id: str, after: int, block_ms: int) -> list[dict]:
        """Events after `after`, waiting up to `block_ms` for the first one."""
        got = self.redis.xread({key(game_id, "events"): f"{after}-0"}, block=block_ms, count=500)
        return [_event(e) for _, entries in got for e in entries]

    def listing(
        self, game: str | None, status: str | None, offset: int, limit: int
    ) -> tuple[list[tuple[str, str]], bool]:
        """(id, status) pairs newest first, and whether more follow."""
        return self.games.page(game, status, offset, limit)

    def playing(self) -> Iterator[str]:
        """The ids of every game in play (scanned, not loaded at once)."""
        return self.games.having("playing")

    def status_counts(self) -> dict[str, int]:
        return self.games.counts()

    def count(self, game_id: str | None = None, /, **increments: int) -> None:
        """Add to the service-wide counters that /metrics shows (shared by every process), on
        the counter shard of `game_id` (any shard without one)."""
        pipe = self.redis.pipeline(transaction=False)
        _counters.add(pipe, increments, game_id)
        pipe.execute()

    def _count_after(self, game_id: str, counts: dict[str, int]) -> None:
        """Counters of an append that succeeded: a lost count must not fail the move."""
        try:
            self.count(game_id, **counts)
        except redis.RedisError as exc:
            log.warning("counters not updated after an append: %s", exc)

    def counters(self) -> dict[str, int]:
        return _counters.total(self.redis)

    def ping(self) -> bool:
        """True when every node holding games takes a write; else raises (see `health`)."""
        health.check(self.redis)
        return True

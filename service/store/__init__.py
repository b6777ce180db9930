"""The event store: one Redis stream per game, appended atomically at an expected version.

Every key of a game shares the hash tag `{ID}`, so one game lives in one Redis Cluster slot and
its Lua scripts touch one slot only. The game index (for listing) is separate, derived data.

Stream entry IDs are `<version>-0`, so reading "after version N" is a plain range.
"""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import Iterator

import orjson
import redis

from . import counters as _counters
from . import health
from .archive import Archive, ArchivedGame
from .clients import is_cluster
from .index import GameIndex
from .outbox import Beats, Outbox
from .scripts import Script, command, direct

log = logging.getLogger(__name__)

# Lua helpers every game script shares. A stream entry holds the event's JSON (`e`, first)
# and, on a batch's first event, the id of the command that appended it (`c`). The chain hash
# is read from the JSON (a field of its own would cost memory on every event): an event
# is sealed with its hash last, so its compact JSON ends `"hash":"<64 hex>"}` (entries written
# before orjson wrote them: `"hash": "<64 hex>"}`) and the hash is sliced off the end; any
# other JSON is decoded.
_LUA_HASH_AT = """
local function hash_at(v)
  local found = redis.call('XRANGE', KEYS[1], v .. '-0', v .. '-0')[1]
  if not found then return false end
  local e = found[2][2]
  if string.sub(e, -2) == '"}' then
    if string.sub(e, -74, -67) == '"hash":"' or string.sub(e, -75, -67) == '"hash": "' then
      return string.sub(e, -66, -3)
    end
  end
  return cjson.decode(e)['hash']
end
"""

# Finds the command `cmd` among the entries after version `after` (a retried append whose first
# try was applied, its reply lost): the version its batch of `n` events reached, else false.
_LUA_DONE = """
local function done_at(after, cmd, n)
  if cmd == '' then return false end
  local entries = redis.call('XRANGE', KEYS[1], (after + 1) .. '-0', '+', 'COUNT', 512)
  for _, entry in ipairs(entries) do
    local f = entry[2]
    for j = 1, #f - 1, 2 do
      if f[j] == 'c' and f[j + 1] == cmd then
        return tonumber(string.match(entry[1], '^(%d+)')) + n - 1
      end
    end
  end
  return false
end
"""

# Appends ARGV[first..] (each event's JSON) after version `current`, tagging the first with
# the command id.
_LUA_ADD = """
local function add(current, first, cmd)
  local n = #ARGV - first + 1
  for i = 1, n do
    if i == 1 and cmd ~= '' then
      redis.call('XADD', KEYS[1], (current + i) .. '-0', 'e', ARGV[first], 'c', cmd)
    else
      redis.call('XADD', KEYS[1], (current + i) .. '-0', 'e', ARGV[first + i - 1])
    end
  end
  return current + n
end
"""

# KEYS: stream, idempotency key, snapshot, meta. ARGV: expected version, idempotency record
# ('' for none), its TTL, snapshot version ('' for none), snapshot JSON, snapshot hash, a meta
# field and its value ('' for none), the expected tip hash ('' not checked), the command id
# ('' for none), then each event's JSON. All or nothing: one script.
# The append happens only if the stream's length AND the hash of its tip are what the caller
# decided on: a stream that lost events (a failover, a restore) and grew again to the same
# length is told apart. A command already in the stream (a retry after a lost reply) answers
# 'done' with the version its first try reached, and appends nothing.
_APPEND = (
    _LUA_HASH_AT
    + _LUA_DONE
    + _LUA_ADD
    + """
local n = #ARGV - 10
if ARGV[2] ~= '' then
  local prior = redis.call('GET', KEYS[2])
  if prior then return {'idem', prior} end
end
local expected = tonumber(ARGV[1])
local current = redis.call('XLEN', KEYS[1])
if current ~= expected then
  local done = current > expected and done_at(expected, ARGV[10], n)
  if done then return {'done', tostring(done)} end
  return {'conflict', tostring(current)}
end
if ARGV[9] ~= '' and current > 0 and hash_at(current) ~= ARGV[9] then
  return {'diverged', tostring(current)}
end
local new = add(current, 11, ARGV[10])
if ARGV[2] ~= '' then redis.call('SET', KEYS[2], ARGV[2], 'EX', tonumber(ARGV[3])) end
if ARGV[4] ~= '' then redis.call('HSET', KEYS[3], 'v', ARGV[4], 's', ARGV[5], 'h', ARGV[6]) end
if ARGV[7] ~= '' then redis.call('HSET', KEYS[4], ARGV[7], ARGV[8]) end
return {'ok', tostring(new)}
"""
)

# KEYS: stream, meta. ARGV: the command id, then the meta's field count, its fields and values
# (the seed first, the seats' token digests), then each event's JSON. A game is made
# whole or not at all: meta, tokens and first events in one script. 'taken' if the id is in use
# (a fixed test id), 'done' if this very command made it (a retry after a lost reply).
_CREATE = (
    _LUA_DONE
    + _LUA_ADD
    + """
local fields = tonumber(ARGV[2])
local first = 3 + 2 * fields
local n = #ARGV - first + 1
if redis.call('EXISTS', KEYS[1]) == 1 then
  local done = done_at(0, ARGV[1], n)
  if done then return {'done', tostring(done)} end
  return {'taken', ''}
end
if redis.call('HSETNX', KEYS[2], ARGV[3], ARGV[4]) == 0 then return {'taken', ''} end
if fields > 1 then redis.call('HSET', KEYS[2], unpack(ARGV, 5, first - 1)) end
return {'ok', tostring(add(0, first, ARGV[1]))}
"""
)

# KEYS: stream, snapshot. ARGV: the version wanted ('+' for the latest), the version the caller
# already holds (0 for none) and its hash ('' not checked). Returns the snapshot (false when
# the caller's state is as good), the events after the starting point, and 1 when the caller's
# state is not in the stream any more (the stream lost or replaced events: start again), in
# one round trip. A snapshot is used only if the stream holds the very event it was made at.
_LOAD = (
    _LUA_HASH_AT
    + """
local upto = ARGV[1]
local from = tonumber(ARGV[2]) + 1
local reset = 0
if from > 1 and ARGV[3] ~= '' and hash_at(from - 1) ~= ARGV[3] then
  from = 1
  reset = 1
end
local snap = false
local snapv = redis.call('HGET', KEYS[2], 'v')
if snapv and tonumber(snapv) >= from and (upto == '+' or tonumber(snapv) <= tonumber(upto)) then
  local s = redis.call('HMGET', KEYS[2], 's', 'h')
  local h = s[2]
  if not h then h = cjson.decode(s[1])['hash'] end
  if h == '' or hash_at(tonumber(snapv)) == h then
    snap = s[1]
    from = tonumber(snapv) + 1
  end
end
local last = upto == '+' and '+' or (upto .. '-0')
return {snap, redis.call('XRANGE', KEYS[1], from .. '-0', last), reset, redis.call('EXISTS', KEYS[1])}
"""
)

# KEYS: the game's keys (the stream first). ARGV: the version archived. Deletes them only if the
# stream still ends there (an archived game is finished: it cannot grow, but never guess).
_DROP = """
if redis.call('XLEN', KEYS[1]) ~= tonumber(ARGV[1]) then return 0 end
redis.call('DEL', unpack(KEYS))
return 1
"""

# KEYS: meta, stream. The game as Redis holds it, at one instant (one slot: a cluster too).
_DUMP = """
return {redis.call('HGETALL', KEYS[1]), redis.call('XRANGE', KEYS[2], '-', '+')}
"""

# KEYS: stream, audits. ARGV: field, value. Only while the game is in Redis (never recreate a
# key of a game archived meanwhile).
_KEEP_AUDIT = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
return 1
"""

# KEYS: a client's set of games in play. ARGV: a game, the cap. The game joins the set unless the
# client holds `cap` games already: 1 if it is held (now, or by an earlier try), 0 at the cap.
# One script, so two creates at the same instant cannot both take the last place.
_HOLD = """
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then return 1 end
if redis.call('SCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('SADD', KEYS[1], ARGV[1])
return 1
"""

# KEYS: the ticket. ARGV: now (epoch seconds), who takes it. A seed ticket is taken once: 'ok'
# and the seed, or why not ('unknown', 'used', 'expired'); the record stays a day past its
# expiry so that a late or repeated use is told apart from a ticket that never was. The same
# taker again (redis-py resending after a lost reply) gets 'ok' again.
_TAKE_TICKET = """
local t = redis.call('HMGET', KEYS[1], 'seed', 'expires', 'used')
if not t[1] then return {'unknown', ''} end
if t[3] then
  if t[3] == ARGV[2] then return {'ok', t[1]} end
  return {'used', ''}
end
if tonumber(t[2]) <= tonumber(ARGV[1]) then return {'expired', ''} end
redis.call('HSET', KEYS[1], 'used', ARGV[2])
return {'ok', t[1]}
"""

IDEMPOTENCY_TTL_S = 24 * 3600
ARCHIVE_DUE = "archive:due"  # finished games not archived yet, by the time they ended (ms)
# what a game keeps in Redis (its idempotency records expire by themselves)
GAME_PARTS = ("events", "snap", "meta", "audits")
TICKET_KEPT_S = 24 * 3600


# The store not answering (a lost connection, a timeout): what was sent may or may not have been
# applied, so a caller must not take it as a refusal.
STORE_DOWN = (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError)


class Conflict(Exception):
    """The stream is not at the expected version, or is at it with another tip (`diverged`: it
    lost events and grew again, so the caller's state is not the stream's)."""

    def __init__(self, current: int, diverged: bool = False) -> None:
        super().__init__(f"the game is at version {current}")
        self.current = current
        self.diverged = diverged


class Replayed(Exception):
    """The idempotency key was used before: `record` is what was stored with the first append."""

    def __init__(self, record: dict) -> None:
        super().__init__("idempotent replay")
        self.record = record


def key(game_id: str, part: str) -> str:
    return f"game:{{{game_id}}}:{part}"


def _entries(events: list[dict]) -> list[bytes]:
    """Each event's JSON, as the scripts take them: compact UTF-8, its fields in their order."""
    return [_json(e) for e in events]


def _json(event: dict) -> bytes:
    try:
        return orjson.dumps(event, option=orjson.OPT_NON_STR_KEYS)
    except TypeError:  # what orjson refuses (an integer beyond 64 bits): the standard library
        return json.dumps(event, ensure_ascii=False, separators=(",", ":")).encode()


def _event(entry: tuple | list) -> dict:
    fields = entry[1]  # a dict from XRANGE, a flat [name, value] list from a script or a raw read
    # json, not orjson: orjson reads an integer beyond 64 bits as a float
    return json.loads(fields[b"e"] if isinstance(fields, dict) else fields[1])


class Store:
    """Reads of a game whose keys are gone (archived) are answered from `archive`, if any."""

    def __init__(self, client: redis.Redis, archive: Archive | None = None) -> None:
        self.redis = client
        self.archive = archive
        self._direct = direct(client)  # the followers' reads skip redis-py's command path
        self._drop = Script(client, _DROP)
        self._dump = Script(client, _DUMP)
        self._keep_audit = Script(client, _KEEP_AUDIT)
        self._append = Script(client, _APPEND)
        self._load = Script(client, _LOAD)
        self._take_ticket = Script(client, _TAKE_TICKET)
        self._create = Script(client, _CREATE)
        self._hold = Script(client, _HOLD)
        self.game_index = GameIndex(client)
        self.outbox = Outbox(client)  # the jobs made due, until a pump queues them
        self.beats = Beats(client)
        self.tally = _counters.Tally(client)
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
        expected_hash: str = "",
        command_id: str = "",
    ) -> int:
        """Append `events` if the stream is at `expected` and its tip's hash is `expected_hash`
        (when given); the new version, else Conflict/Replayed.

        `command_id` makes the append safe to send twice: redis-py sends a command again when
        its reply is lost, and the second try finds the first in the stream and answers the
        version it reached instead of a conflict (one POST is never two moves).
        `counts` are added to the service-wide counters (see `count`) when the append succeeds,
        with no round trip of their own."""
        idem_key, idem_record = (
            (key(game_id, f"idem:{idem[0]}"), json.dumps(idem[1])) if idem else ("", "")
        )
        snap_v, snap, snap_h = (
            (str(snapshot["version"]), json.dumps(snapshot), snapshot.get("hash") or "")
            if snapshot
            else ("", "", "")
        )
        keys = [
            key(game_id, "events"),
            idem_key or key(game_id, "idem:-"),
            key(game_id, "snap"),
            key(game_id, "meta"),
        ]
        args = [
            expected,
            idem_record,
            IDEMPOTENCY_TTL_S,
            snap_v,
            snap,
            snap_h,
            *(meta or ("", "")),
            expected_hash,
            command_id,
            *_entries(events),
        ]
        counts = {name: n for name, n in (counts or {}).items() if n}
        answer = self._append(keys=keys, args=args)
        # 'done': a resend whose first try's reply (so its counting too) was lost: counted now
        if answer[0] in (b"ok", b"done") and counts:
            self.tally.add(counts, game_id)
        status, value = answer
        if status in (b"conflict", b"diverged"):
            raise Conflict(int(value), diverged=status == b"diverged")
        if status == b"idem":
            raise Replayed(json.loads(value))
        return int(value)

    def create(
        self, game_id: str, fields: dict[str, str], events: list[dict], command_id: str
    ) -> bool:
        """Make a game in one script: its meta (the seed first, the token digests) and its first
        events, or nothing. False if the id is taken; True if made, by this call or by a first
        try of the same `command_id` whose reply was lost."""
        flat = ["seed", fields["seed"]]
        for name, value in fields.items():
            if name != "seed":
                flat += [name, value]
        status, _ = self._create(
            keys=[key(game_id, "events"), key(game_id, "meta")],
            args=[command_id, len(flat) // 2, *flat, *_entries(events)],
        )
        return status != b"taken"

    def set_meta(self, game_id: str, fields: dict[str, str]) -> None:
        self.redis.hset(key(game_id, "meta"), mapping=fields)

    def issue_ticket(self, ticket: str, seed_hex: str, expires: int, ttl_s: int) -> None:
        name = f"seedticket:{ticket}"
        pipe = self.redis.pipeline(transaction=False)
        pipe.hset(name, mapping={"seed": seed_hex, "expires": expires})
        pipe.expire(name, ttl_s + TICKET_KEPT_S)
        pipe.execute()

    def take_ticket(self, ticket: str, now: int) -> tuple[str, str]:
        """('ok', seed hex) the first time a live ticket is taken, else why not."""
        taker = secrets.token_hex(8)
        status, seed = self._take_ticket(keys=[f"seedticket:{ticket}"], args=[now, taker])
        return status.decode(), seed.decode()

    def claim_sweep(self, due: str, every_s: int) -> bool:
        """Whether this process schedules the next sweep (one chain, however many workers)."""
        return bool(self.redis.set("sweep:next", due, nx=True, ex=max(1, every_s - 1)))

    def index(
        self, game_id: str, game: str, status: str, created_ms: int, idle_ms: int | None = None
    ) -> None:
        """Record the game in the listing indexes (newest first by creation time), and a game
        in play in the idle index (`idle_ms`: when it is abandoned if nothing happens)."""
        self.game_index.add(game_id, game, status, created_ms, idle_ms)

    # A create's journal: a game is noted before its script runs and cleared once indexed, so a
    # create cut short between the two (a lost reply, a crash; the index is another slot in a
    # cluster) is finished by the sweep: never a game nobody lists.
    def note_creating(self, game_id: str, at_ms: int) -> None:
        self.redis.zadd("{games}:creating", {game_id: at_ms})

    def done_creating(self, game_id: str) -> None:
        """The create of `game_id` is over (made and indexed, or refused): out of the journal."""
        self.redis.zrem("{games}:creating", game_id)

    def being_created(self, game_id: str) -> bool:
        return self.redis.zscore("{games}:creating", game_id) is not None

    def unsettled(self, before_ms: int, limit: int = 1000) -> list[str]:
        """Games noted as being created before `before_ms` and never cleared, oldest first."""
        ids = self.redis.zrangebyscore("{games}:creating", "-inf", before_ms, start=0, num=limit)
        return [i.decode() for i in ids]

    def exists(self, game_id: str) -> bool:
        return bool(self.redis.exists(key(game_id, "events")))

    # The games in play each client created (a client: a digest of its address), for the cap
    # on games in play per client; a game leaves its creator's set when it ends.
    def client_games(self, client: str, sample: int | None = None) -> tuple[int, list[str]]:
        """How many games the client holds, and (up to `sample` of, or all) their ids."""
        name = f"client:{client}:games"
        pipe = self.redis.pipeline(transaction=False)
        pipe.scard(name)
        pipe.srandmember(name, sample) if sample else pipe.smembers(name)
        count, ids = pipe.execute()
        return count, [i.decode() for i in ids]

    def hold_game(self, client: str, game_id: str, cap: int) -> bool:
        """Count the game as the client's if it holds fewer than `cap` (at once: see _HOLD)."""
        return self._hold(keys=[f"client:{client}:games"], args=[game_id, cap]) == 1

    def release_game(self, client: str, *game_ids: str) -> None:
        if game_ids:
            self.redis.srem(f"client:{client}:games", *game_ids)

    # The sweep's chain: the id of its next scheduled job, so a watchdog can tell when the
    # queue lost it (the queue's keys flushed or evicted) and start the chain again.
    def arm_sweep(self, job_id: str, ttl_s: int) -> None:
        self.redis.set("sweep:job", job_id, ex=ttl_s)

    def armed_sweep(self) -> str | None:
        raw = self.redis.get("sweep:job")
        return raw.decode() if raw else None

    def claim_rearm(self, ttl_s: int) -> bool:
        """Whether this process starts the sweep's chain again (one, however many watch)."""
        if not self.redis.set("sweep:rearm", "1", nx=True, ex=max(1, ttl_s)):
            return False
        self.redis.delete("sweep:next")  # the lost chain's claim would stop the new one
        return True

    def set_status(self, game_id: str, status: str, idle_ms: int | None = None) -> None:
        self.game_index.set_status(game_id, status, idle_ms)

    # -- reading -------------------------------------------------------------------------------

    def idempotent(self, game_id: str, idem_hash: str) -> dict | None:
        raw = self.redis.get(key(game_id, f"idem:{idem_hash}"))
        return json.loads(raw) if raw else None

    def claim(self, name: str, record: dict, ttl_s: int = IDEMPOTENCY_TTL_S) -> dict | None:
        """Store `record` under a global idempotency key unless one is there: None, or the prior.

        Safe to send twice: a record equal to ours is our own first try (a lost reply)."""
        if self.redis.set(f"idem:{name}", json.dumps(record), nx=True, ex=ttl_s):
            return None
        raw = self.redis.get(f"idem:{name}")
        prior = json.loads(raw) if raw else {}
        return None if prior == json.loads(json.dumps(record)) else prior

    def settle_claim(self, name: str, record: dict) -> None:
        self.redis.set(f"idem:{name}", json.dumps(record), ex=IDEMPOTENCY_TTL_S)

    def release_claim(self, name: str) -> None:
        self.redis.delete(f"idem:{name}")

    def meta(self, game_id: str) -> dict[str, str]:
        raw = self.redis.hgetall(key(game_id, "meta"))
        if not raw:
            archived = self.archived(game_id)
            return dict(archived.meta) if archived else {}
        return {k.decode(): v.decode() for k, v in raw.items()}

    def load(
        self, game_id: str, at: int | None = None, known: int = 0
    ) -> tuple[dict | None, list[dict]]:
        """The latest snapshot newer than `known` and at or before `at` (or None when the caller's
        state at `known` is the better start), and the events after that start up to `at`."""
        snap, events, _ = self.load_since(game_id, at, known)
        return snap, events

    def load_since(
        self, game_id: str, at: int | None, known: int, known_hash: str = ""
    ) -> tuple[dict | None, list[dict], bool]:
        """`load`, checking that the stream still holds the caller's version `known` with hash
        `known_hash`; if it does not (it lost or replaced events), the third value is True and
        the rest is a load from scratch (a snapshot the stream agrees with, and events)."""
        snap, entries, reset, exists = self._load(
            keys=[key(game_id, "events"), key(game_id, "snap")],
            args=["+" if at is None else at, known, known_hash],
        )
        if exists or (archived := self.archived(game_id)) is None:
            return (json.loads(snap) if snap else None), [_event(e) for e in entries], bool(reset)
        return (*archived.load(at, known), False)  # finished, so never changed since

    def events(self, game_id: str, after: int = 0, limit: int | None = None) -> list[dict]:
        entries = self.redis.xrange(key(game_id, "events"), f"{after + 1}-0", "+", count=limit)
        if not entries and self.archive is not None and not self.in_redis(game_id):
            archived = self.archived(game_id)
            if archived is not None:
                log = archived.events()
                return log[after : None if limit is None else after + limit]
        return [_event(e) for e in entries]

    def version(self, game_id: str) -> int:
        version = self.redis.xlen(key(game_id, "events"))
        if not version and (archived := self.archived(game_id)) is not None:
            return archived.version
        return version

    # -- the archive ---------------------------------------------------------------------------

    def in_redis(self, game_id: str) -> bool:
        return bool(self.redis.exists(key(game_id, "events")))

    def archived(self, game_id: str) -> ArchivedGame | None:
        """The game from the archive (None: not archived, or no archive)."""
        return self.archive.game(game_id) if self.archive is not None else None

    def dump(self, game_id: str) -> tuple[dict[str, str], list[dict]]:
        """The game's meta and whole log as Redis holds them, read at one instant."""
        flat, entries = self._dump(keys=[key(game_id, "meta"), key(game_id, "events")])
        meta = {flat[i].decode(): flat[i + 1].decode() for i in range(0, len(flat), 2)}
        return meta, [_event(e) for e in entries]

    def drop(self, game_id: str, version: int) -> bool:
        """Delete the game's keys if its stream still ends at `version` (it is archived)."""
        keys = [key(game_id, part) for part in GAME_PARTS]
        return bool(self._drop(keys=keys, args=[version]))

    def mark_finished(self, game_id: str, ended_ms: int) -> None:
        """The game ended: it is archived once the retention delay has passed."""
        self.redis.zadd(ARCHIVE_DUE, {game_id: ended_ms}, nx=True)

    def archive_due(self, ended_before_ms: int, limit: int) -> list[str]:
        """Finished games that ended before `ended_before_ms` and are still in Redis."""
        ids = self.redis.zrangebyscore(ARCHIVE_DUE, "-inf", ended_before_ms, start=0, num=limit)
        return [gid.decode() for gid in ids]

    def unmark_finished(self, game_id: str) -> None:
        self.redis.zrem(ARCHIVE_DUE, game_id)

    def audit(self, game_id: str, name: str) -> dict | list | None:
        """A finished game's cached audit (`name` carries the version it was made at)."""
        raw = self.redis.hget(key(game_id, "audits"), name)
        return json.loads(raw) if raw else None

    def keep_audit(self, game_id: str, name: str, value: dict | list) -> None:
        """Cache an audit with the game (its hash tag): gone with the game when it is archived."""
        keys = [key(game_id, "events"), key(game_id, "audits")]
        self._keep_audit(keys=keys, args=[name, json.dumps(value)])

    # Hints (service/core/advice.py): one key per game, version and seat, with the game's hash
    # tag; "pending" while a worker computes it. They expire by themselves (a version passes).
    def hint(self, game_id: str, version: int, seat: int) -> dict | None:
        """The hint kept for this version and seat: its body, `{"pending": true}` while it is
        computed, or None."""
        raw = self.redis.get(key(game_id, f"hint:{version}:{seat}"))
        return json.loads(raw) if raw else None

    def claim_hint(self, game_id: str, version: int, seat: int, ttl_s: int) -> bool:
        """Whether this caller is the one to have the hint computed (no one has, or did)."""
        name = key(game_id, f"hint:{version}:{seat}")
        return bool(self.redis.set(name, b'{"pending":true}', nx=True, ex=ttl_s))

    def keep_hint(self, game_id: str, version: int, seat: int, hint: dict, ttl_s: int) -> None:
        self.redis.set(key(game_id, f"hint:{version}:{seat}"), json.dumps(hint), ex=ttl_s)

    def follow(self, game_id: str, after: int, block_ms: int) -> list[dict]:
        """Events after `after`, waiting up to `block_ms` for the first one."""
        stream = key(game_id, "events")
        if self._direct is None:
            got = self.redis.xread({stream: f"{after}-0"}, block=block_ms, count=500)
            return [_event(e) for _, entries in got for e in entries]
        # XREAD's raw reply: nil when nothing came, else each stream with its entries, as a
        # map (RESP3, redis-py's protocol here) or as pairs (RESP2); an entry is [id, fields]
        got = command(
            self._direct, "XREAD", "COUNT", 500, "BLOCK", block_ms, "STREAMS", stream, f"{after}-0"
        )
        streams = got.items() if isinstance(got, dict) else got or ()
        return [_event(e) for _, entries in streams for e in entries]

    def listing(
        self, game: str | None, status: str | None, offset: int, limit: int
    ) -> tuple[list[tuple[str, str]], bool]:
        """(id, status) pairs newest first, and whether more follow."""
        return self.game_index.page(game, status, offset, limit)

    def playing(self) -> Iterator[str]:
        """The ids of every game in play (scanned, not loaded at once)."""
        return self.game_index.having("playing")

    def status_counts(self) -> dict[str, int]:
        return self.game_index.counts()

    def count(self, game_id: str | None = None, /, **increments: int) -> None:
        """Add to the service-wide counters that /metrics shows (shared by every process), on
        the counter shard of `game_id` (any shard without one): written within a second (see
        `counters.Tally`)."""
        self.tally.add(increments, game_id)

    def counters(self) -> dict[str, int]:
        self.tally.flush()  # this process's own counts first
        return _counters.total(self.redis)

    def ping(self) -> bool:
        """True when every node holding games takes a write; else raises (see `health`)."""
        health.check(self.redis)
        return True

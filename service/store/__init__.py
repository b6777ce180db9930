"""The event store: one Redis stream per game, appended atomically at an expected version.

Every key of a game shares the hash tag `{ID}`, so one game lives in one Redis Cluster slot and
its Lua scripts touch one slot only. The game index (for listing) is separate, derived data.

Stream entry IDs are `<version>-0`, so reading "after version N" is a plain range.
"""

from __future__ import annotations

import json
import logging
import re
import secrets
from collections.abc import Iterator

import orjson
import redis

from . import counters as _counters
from . import health, lua
from .archive import Archive, ArchivedGame
from .clients import is_cluster
from .index import GameIndex
from .outbox import Beats, Outbox
from .scripts import Script, command, direct

log = logging.getLogger(__name__)

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


def live_channel(game_id: str) -> str:
    """Where a plain Redis publishes each batch the game appends (service/live/push.py)."""
    return key(game_id, "live")


def pushed(data: bytes) -> list[dict]:
    """The events of one message of a game's live channel (the JSON array the append script
    makes of their entries; json, not orjson, as `_event` says)."""
    return json.loads(data)


_FIRST_PUSHED = re.compile(rb'\[\{"version":(\d+),')


def first_pushed(data: bytes) -> int | None:
    """The version of the first event of a live channel's message, read without its JSON (an
    event's `version` is its first field), or None."""
    found = _FIRST_PUSHED.match(data)
    return int(found[1]) if found else None


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
        self._drop = Script(client, lua.DROP)
        self._dump = Script(client, lua.DUMP)
        self._keep_audit = Script(client, lua.KEEP_AUDIT)
        self._append = Script(client, lua.APPEND)
        self._load = Script(client, lua.LOAD)
        self._take_ticket = Script(client, lua.TAKE_TICKET)
        self._create = Script(client, lua.CREATE)
        self._hold = Script(client, lua.HOLD)
        self.game_index = GameIndex(client)
        self.outbox = Outbox(client)  # the jobs made due, until a pump queues them
        self.beats = Beats(client)
        self.tally = _counters.Tally(client)
        self.clustered = is_cluster(client)
        # each append is published for the processes that follow the game; on a cluster
        # they read its stream instead (a PUBLISH there reaches every node)
        self.publishes = not self.clustered
        # in a server, appends go to Redis in the order they are sent, a loop turn's in one
        # send (scripts.Pipe): an action may decide on one whose append is still under way
        self.pipelined = self._append.pipelined

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
        if self.publishes:
            keys.append(live_channel(game_id))
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
        """Count the game as the client's if it holds fewer than `cap` (at once: see lua.HOLD)."""
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

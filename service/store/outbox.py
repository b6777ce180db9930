"""The outbox: the jobs the engine made due, kept in the store until a worker's pump moves them
into the job queue (a Redis of its own that may be away while the store is fine).

Two sorted sets by due time (clocks, everything else) and a hash of bodies under `{outbox}`;
a job with a waiting job's id replaces it. A pump claims due entries under a lease
(`lease_ms`), so a dead pump's jobs are claimed again, and jobs act at their scheduled version,
so one handed over twice changes nothing. The workers' heartbeats live here too (`Beats`).
"""

from __future__ import annotations

import json
from typing import Any

from .scripts import Script

CLOCKS = "{outbox}:clocks"
OTHERS = "{outbox}:due"
BODIES = "{outbox}:jobs"
WAKE = "{outbox}:wake"
BEATS = "{workers}:beats"
BEAT_EVERY_MS = 1000  # how often a worker's loop and pump beat (at most)
STALE_MS = 6000  # a beat older than this: that part is dead (the healthcheck: within 10 s)
BUSY_MS = 300_000  # a loop in a job beats again once it is done

# KEYS: the sorted set, the bodies, the wake list. ARGV: id, due ms, body. The wake list holds
# at most one entry: a pump waiting on it hears that work came.
_PUT = """
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('RPUSH', KEYS[3], '1')
redis.call('LTRIM', KEYS[3], -1, -1)
return 1
"""

# KEYS: the sorted set, the bodies. ARGV: now ms, the most to take, the lease in ms. Returns
# [id, body, due, ...] of the due entries, earliest first; each now due again at now + lease.
_CLAIM = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'WITHSCORES', 'LIMIT', 0,
  tonumber(ARGV[2]))
local out = {}
local again = tonumber(ARGV[1]) + tonumber(ARGV[3])
for i = 1, #due, 2 do
  local body = redis.call('HGET', KEYS[2], due[i])
  if body then
    redis.call('ZADD', KEYS[1], again, due[i])
    out[#out + 1] = due[i]
    out[#out + 1] = body
    out[#out + 1] = due[i + 1]
  else
    redis.call('ZREM', KEYS[1], due[i])
  end
end
return out
"""

# KEYS: the sorted set, the bodies. ARGV: pairs of id and the lease's due ms it was claimed
# with: removed only if nobody put it again since (a new due time, a new body).
_DONE = """
local n = 0
for i = 1, #ARGV, 2 do
  local score = redis.call('ZSCORE', KEYS[1], ARGV[i])
  if score and tonumber(score) == tonumber(ARGV[i + 1]) then
    redis.call('ZREM', KEYS[1], ARGV[i])
    redis.call('HDEL', KEYS[2], ARGV[i])
    n = n + 1
  end
end
return n
"""


# KEYS: the sorted set. ARGV: triples of id, the lease's due ms, the entry's own due ms: an
# entry still under that lease is due again at its own time (its handing over failed).
_RELEASE = """
for i = 1, #ARGV, 3 do
  local score = redis.call('ZSCORE', KEYS[1], ARGV[i])
  if score and tonumber(score) == tonumber(ARGV[i + 1]) then
    redis.call('ZADD', KEYS[1], ARGV[i + 2], ARGV[i])
  end
end
return 1
"""


CLOCK_JOB = "fire_timer"  # the job of a clock: it goes ahead of every other job


def is_clock(job: str) -> bool:
    return job == CLOCK_JOB


def _set_of(job: str) -> str:
    return CLOCKS if is_clock(job) else OTHERS


class Outbox:
    def __init__(self, client: Any) -> None:
        self.redis = client
        self._put = Script(client, _PUT)
        self._claim = Script(client, _CLAIM)
        self._done = Script(client, _DONE)
        self._release = Script(client, _RELEASE)

    def put(self, job_id: str, job: str, args: tuple, due_ms: int) -> None:
        body = json.dumps({"job": job, "args": list(args), "due": due_ms})
        self._put(keys=[_set_of(job), BODIES, WAKE], args=[job_id, due_ms, body])

    def claim(
        self, now_ms: int, limit: int = 500, lease_ms: int = 30_000, clocks: bool = False
    ) -> list[tuple[str, dict, int]]:
        """The due entries of one set (the clocks' with `clocks`): (id, body, leased due)."""
        name = CLOCKS if clocks else OTHERS
        flat = self._claim(keys=[name, BODIES], args=[now_ms, limit, lease_ms])
        leased = now_ms + lease_ms
        return [(_text(flat[i]), json.loads(flat[i + 1]), leased) for i in range(0, len(flat), 3)]

    def done(self, handed: list[tuple[str, int]], clocks: bool = False) -> int:
        """Remove the entries handed over to the queue: (id, the leased due `claim` gave)."""
        if not handed:
            return 0
        name = CLOCKS if clocks else OTHERS
        flat = [x for job_id, leased in handed for x in (job_id, leased)]
        return int(self._done(keys=[name, BODIES], args=flat))

    def release(self, claimed: list[tuple[str, int, int]], clocks: bool = False) -> None:
        """Entries whose handing over failed, due again at their own times: (id, the leased
        due `claim` gave, the entry's due)."""
        if claimed:
            flat = [x for entry in claimed for x in entry]
            self._release(keys=[CLOCKS if clocks else OTHERS], args=flat)

    def wait(self, timeout_s: float) -> bool:
        """Wait up to `timeout_s` for a put (True if one came)."""
        return self.redis.blpop([WAKE], timeout=timeout_s) is not None

    def next_due_ms(self) -> int | None:
        """The earliest due time of any entry (None when empty): a pump idle till then need
        not look before, so a job due in 0.5 s (a paced bot move) is handed over on time."""
        with self.redis.pipeline(transaction=False) as pipe:
            pipe.zrange(CLOCKS, 0, 0, withscores=True)
            pipe.zrange(OTHERS, 0, 0, withscores=True)
            heads = [int(found[0][1]) for found in pipe.execute() if found]
        return min(heads) if heads else None

    def holds(self, job_id: str) -> bool:
        return bool(self.redis.hexists(BODIES, job_id))

    def waiting(self) -> dict[str, int]:
        """How many jobs wait to be handed to the queue: clocks, and the others."""
        return {"clocks": int(self.redis.zcard(CLOCKS)), "others": int(self.redis.zcard(OTHERS))}


class Beats:
    """Each worker process's heartbeats: a field `host|pid|part` (`loop`: its RQ loop, `pump`:
    its pump) holding `ms state`. The healthcheck calls a worker alive while both are fresh."""

    def __init__(self, client: Any) -> None:
        self.redis = client

    def beat(self, who: str, part: str, now_ms: int, state: str = "ok") -> None:
        self.redis.hset(BEATS, f"{who}|{part}", f"{now_ms} {state}")

    def all(self) -> dict[tuple[str, str], tuple[int, str]]:
        """{(who, part): (ms, state)} of every beat kept."""
        out = {}
        for field, value in self.redis.hgetall(BEATS).items():
            who, _, part = _text(field).rpartition("|")
            ms, _, state = _text(value).partition(" ")
            out[(who, part)] = (int(ms), state)
        return out

    def alive(
        self, now_ms: int, host: str | None = None
    ) -> tuple[list[str], list[tuple[str, str]]]:
        """The worker processes (`host|pid`, of `host` only if named) alive, and those dead
        with why: a process is alive while its pump beat within STALE_MS and its loop did too
        (or is in a job, for up to BUSY_MS: a long sweep beats only once it is done)."""
        parts: dict[str, dict[str, tuple[int, str]]] = {}
        for (who, part), beat in self.all().items():
            if host is None or who.rpartition("|")[0] == host:
                parts.setdefault(who, {})[part] = beat
        alive, dead = [], []
        for who, beats in sorted(parts.items()):
            pump, loop = beats.get("pump"), beats.get("loop")
            if pump is None or now_ms - pump[0] > STALE_MS:
                dead.append((who, "its pump stopped"))
            elif loop is None or now_ms - loop[0] > (BUSY_MS if loop[1] == "busy" else STALE_MS):
                dead.append((who, "its worker loop stopped"))
            else:
                alive.append(who)
        return alive, dead

    def prune(self, now_ms: int, older_than_ms: int = 3600_000) -> None:
        """Forget the beats of processes gone this long."""
        self.forget(
            *[f"{w}|{p}" for (w, p), (ms, _) in self.all().items() if now_ms - ms > older_than_ms]
        )

    def forget(self, *fields: str) -> None:
        if fields:
            self.redis.hdel(BEATS, *fields)


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value

"""The archive: finished games, compressed, out of Redis (a folder or any fsspec URL).

One object per game, `<root>/<id[:2]>/<id>.json.zst`: zstd (`LEVEL`) of the game's meta, final
state, audits and events without what the log recomputes (version, `prev`, digests, `hash`),
rebuilt on read exactly as written; an event that would not rebuild to the same bytes is kept
whole, so an archived game is served byte for byte as before.
"""

from __future__ import annotations

import json
import os
import threading
from collections import OrderedDict
from typing import Any

import fsspec
import zstandard

from ..core.chain import GENESIS, canonical, event_hash
from ..core.fairness import digest, nonce
from ..core.sealing import chain_hash, get, sealed_form
from ..core.state import apply, clone, fold

FORMAT = "batayo-archive/1"
LEVEL = 9  # zstd's level: smaller than the default 3 for little more time (bench/archive.py)
RECOMPUTED = ("version", "prev", "digests", "hash")
SNAPSHOT_EVERY = 256  # states kept while an archived game is replayed at `?at=N`
CACHED_EVENTS = 100_000  # decoded events kept in memory, over every archived game


class ArchiveMismatch(Exception):
    """The archive did not read back as what Redis held: nothing is deleted."""


def _dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False)


def rebuild(compact: dict, version: int, prev: str, seed: bytes, game_id: str) -> dict:
    """The stored event from its compact form: the fields in the order the command wrote them."""
    if "raw" in compact:
        return compact["raw"]
    event = {
        "version": version,
        "type": compact["type"],
        "at": compact["at"],
        "actor": compact["actor"],
        "data": compact["data"],
        "prev": prev,
    }
    if "sealed" not in compact:  # docs/fairness.md version 1: the clear event is hashed
        event["hash"] = event_hash(event)
        return event
    pointers = compact["sealed"]
    event["sealed"] = pointers
    event["digests"] = [
        digest(nonce(seed, game_id, version, p), canonical(get(event, p))) for p in pointers
    ]
    event["hash"] = chain_hash(sealed_form(event, event["digests"]))
    return event


def encode(
    game_id: str, meta: dict[str, str], state: dict, events: list[dict], audits: dict
) -> bytes:
    """The archive object of a finished game (`events` as stored, `state` after the last)."""
    seed = bytes.fromhex(meta["seed"])
    compact: list[dict] = []
    prev = GENESIS
    for version, event in enumerate(events, start=1):
        short = {k: v for k, v in event.items() if k not in RECOMPUTED}
        if _dumps(rebuild(short, version, prev, seed, game_id)) != _dumps(event):
            short = {"raw": event}
        compact.append(short)
        prev = event.get("hash") or prev
    doc = {
        "format": FORMAT,
        "id": game_id,
        "meta": meta,
        "state": state,
        "audits": audits,
        "events": compact,
    }
    raw = json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode()
    return zstandard.ZstdCompressor(level=LEVEL).compress(raw)


class ArchivedGame:
    """One archived game, decoded; its events rebuilt the first time they are asked for."""

    def __init__(self, blob: bytes) -> None:
        doc = json.loads(zstandard.ZstdDecompressor().decompress(blob))
        if doc.get("format") != FORMAT:
            raise ValueError(f"not a batayo archive: {doc.get('format')!r}")
        self.id: str = doc["id"]
        self.meta: dict[str, str] = doc["meta"]
        self.audits: dict = doc.get("audits") or {}
        self._state = _dumps(doc["state"])
        self._compact: list[dict] | None = doc["events"]
        self.version = len(doc["events"])
        self._events: list[dict] | None = None
        self._snapshots: list[str] | None = None
        self._lock = threading.RLock()

    def state(self) -> dict:
        """The final state (a fresh copy: the caller may keep it)."""
        return json.loads(self._state)

    def events(self) -> list[dict]:
        """Every event as Redis held it (shared: never change one)."""
        with self._lock:
            if self._events is None:
                seed, prev, out = bytes.fromhex(self.meta["seed"]), GENESIS, []
                for version, short in enumerate(self._compact or (), start=1):
                    event = rebuild(short, version, prev, seed, self.id)
                    out.append(event)
                    prev = event.get("hash") or prev
                self._events, self._compact = out, None
            return self._events

    def load(self, at: int | None, known: int) -> tuple[dict | None, list[dict]]:
        """What `Store.load` answers: a snapshot newer than `known` at or before `at` (None when
        the caller's state is the better start) and the events after the start, up to `at`."""
        upto = self.version if at is None else min(at, self.version)
        if upto == self.version and known < upto:
            return self.state(), []
        start, snap = known, None
        best = (upto // SNAPSHOT_EVERY) * SNAPSHOT_EVERY
        if best > known:
            snap, start = json.loads(self._snapshot(best // SNAPSHOT_EVERY - 1)), best
        return snap, self.events()[start:upto]

    def _snapshot(self, index: int) -> str:
        with self._lock:
            if self._snapshots is None:
                state, shots = fold([]), []
                for event in self.events():
                    apply(state, event)
                    if event["version"] % SNAPSHOT_EVERY == 0:
                        shots.append(_dumps(clone(state)))
                self._snapshots = shots
            return self._snapshots[index]


class Archive:
    """Where archived games are kept: `url` is a folder or any fsspec URL (`memory://`, `s3://`
    with s3fs installed, ...). Archived games read back are kept decoded, bounded in events."""

    def __init__(self, url: str, **storage_options: Any) -> None:
        self.url = url
        self.fs, root = fsspec.core.url_to_fs(url, **storage_options)
        self.root = root.rstrip("/")
        self.local = "file" in _protocols(self.fs)
        self._cache: OrderedDict[str, ArchivedGame] = OrderedDict()
        self._cached_events = 0
        self._lock = threading.Lock()

    def path(self, game_id: str) -> str:
        return f"{self.root}/{game_id[:2]}/{game_id}.json.zst"

    def write(self, game_id: str, blob: bytes) -> None:
        """Store a game's archive whole: a reader sees the old object or the new, never half."""
        path = self.path(game_id)
        if self.local:
            _write_durably(path, blob)
        else:  # an object store's PUT is whole, and durable once acknowledged
            self.fs.makedirs(path.rsplit("/", 1)[0], exist_ok=True)
            self.fs.pipe_file(path, blob)
        with self._lock:
            self._forget(game_id)

    def read(self, game_id: str) -> bytes | None:
        try:
            return self.fs.cat_file(self.path(game_id))
        except FileNotFoundError:
            return None

    def game(self, game_id: str) -> ArchivedGame | None:
        """The archived game, decoded (kept in memory: it never changes), or None."""
        with self._lock:
            found = self._cache.get(game_id)
            if found is not None:
                self._cache.move_to_end(game_id)
                return found
        blob = self.read(game_id)
        if blob is None:
            return None
        found = ArchivedGame(blob)
        with self._lock:
            self._forget(game_id)
            self._cache[game_id] = found
            self._cached_events += found.version
            while self._cached_events > CACHED_EVENTS and len(self._cache) > 1:
                self._forget(next(iter(self._cache)))
        return found

    def _forget(self, game_id: str) -> None:
        gone = self._cache.pop(game_id, None)
        if gone is not None:
            self._cached_events -= gone.version


def _write_durably(path: str, blob: bytes) -> None:
    """Write a file whole and on disk before Redis forgets the game: a temporary file, synced,
    renamed over the name (atomic on one file system), then the folder synced (the rename)."""
    folder = os.path.dirname(path)
    os.makedirs(folder, exist_ok=True)
    part = f"{path}.{os.getpid()}.{threading.get_ident()}.part"  # two archivers never share one
    with open(part, "wb") as out:
        out.write(blob)
        out.flush()
        os.fsync(out.fileno())
    os.replace(part, path)
    handle = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(handle)
    finally:
        os.close(handle)


def _protocols(fs: Any) -> tuple[str, ...]:
    protocol = fs.protocol
    return (protocol,) if isinstance(protocol, str) else tuple(protocol)


def is_local(url: str) -> bool:
    """Whether `url` names a folder of this machine (refused when several boxes share Redis)."""
    fs, _ = fsspec.core.url_to_fs(url)
    return bool({"file", "local"} & set(_protocols(fs)))

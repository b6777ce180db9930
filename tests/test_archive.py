"""Finished games leave Redis for the archive after a retention delay, and
every read route serves them as before, byte for byte (views, `?at=N`, events, ties, verify,
export, the listing, the stream, a seat's private view)."""

from __future__ import annotations

import json
import uuid

import fakeredis
import pytest
import zstandard

from service.api import create_app
from service.config import Settings, archive
from service.engine import Engine
from service.engine.dispatch import QueueDispatcher
from service.store import ARCHIVE_DUE, Store
from service.store.archive import Archive, ArchivedGame
from service.store.clients import StartupError
from tests.support.client import CheckedClient
from tests.support.helpers import auth
from tests.support.service import read_stream

SEATS = {
    "bataille": [{"name": "ana"}, {"bot": "greedy"}],
    "batayo": [{"name": "ana"}, {"bot": "greedy"}],
    "batak": [{"name": "ana"}, {"bot": "greedy"}, {"bot": "random"}, {"bot": "greedy"}],
    "roylet": [{"bot": "greedy"}, {"bot": "random"}, {"name": "ana"}],
}


class Box:
    """One service process: an engine on `client` with the archive at `url`, its jobs run on
    demand, and a client checked against the contract."""

    def __init__(self, client, url: str, after_s: float | None = 0) -> None:
        self.jobs = QueueDispatcher()
        self.store = Store(client, Archive(url))
        self.engine = Engine(self.store, self.jobs, test_games=True)
        self.engine.archiver.after_s = after_s
        app = create_app(self.engine)
        app.config["RATE_LIMIT"] = app.config["RATE_LIMIT_TOKEN"] = 0  # tested on their own
        self.client = CheckedClient(app.test_client())

    def run_jobs(self) -> None:
        while self.jobs.run(lambda job, args: getattr(self.engine, job)(*args)):
            pass


def memory_url() -> str:
    return f"memory://batayo-test-{uuid.uuid4().hex}"  # fsspec's memory store is per process


def finished_game(box: Box, game: str, seed: str | None = None) -> tuple[str, str]:
    """A game with one human seat, played out (the human takes its first legal action)."""
    body = {"game": game, "seats": SEATS[game]}
    if seed:
        body["seed"] = seed
    created = box.client.post("/v1/games", json=body).json
    gid = created["id"]
    seat, token = next((s["seat"], s["token"]) for s in created["seats"] if s.get("token"))
    for _ in range(100_000):
        box.run_jobs()
        view = box.engine.view(gid, seat)
        if view["status"] == "finished":
            return gid, token
        if view["legal_actions"]:
            box.engine.act(gid, seat, view["legal_actions"][0])
    raise AssertionError("the game did not end")


def routes(gid: str, version: int) -> list[str]:
    ats = sorted({1, 2, version // 3, 255, 256, 257, 300, version - 1, version})
    return [
        f"/v1/games/{gid}",
        *(f"/v1/games/{gid}?at={n}" for n in ats if 1 <= n <= version),
        f"/v1/games/{gid}/events",
        f"/v1/games/{gid}/events?after=3&limit=5",
        f"/v1/games/{gid}/events?after={version - 2}",
        f"/v1/games/{gid}/events?after={version}",
        f"/v1/games/{gid}/ties",
        f"/v1/games/{gid}/ties?offset=1&limit=2",
        f"/v1/games/{gid}/verify",
        f"/v1/games/{gid}/export",
        f"/v1/games/{gid}/hint",
        f"/v1/games/{gid}?at={version + 1}",
        "/v1/games?limit=5",
        "/v1/games?status=finished",
    ]


def served(box: Box, gid: str, token: str) -> dict:
    version = box.engine.load(gid)["version"]
    out = {}
    for url in routes(gid, version):
        for headers in ({}, auth(token), auth(token[:-4] + "abcd")):
            r = box.client.get(url, headers=headers)
            out[url, str(headers)] = (r.status_code, r.get_data(), r.headers.get("ETag"))
    for headers in ({}, auth(token)):
        out["stream", str(headers)] = read_stream(
            box.client.client, f"/v1/games/{gid}/stream?view=1", headers
        )
    return out


def game_keys(client, gid: str) -> list[bytes]:
    return [k for k in client.keys(f"game:{{{gid}}}:*") if b":idem:" not in k]


@pytest.mark.parametrize("game", list(SEATS))
def test_every_read_route_serves_an_archived_game_as_before(game):
    """#19.2: 'every read route (views, ?at=N, events, ties, export, verify) serves archived
    games transparently', byte-identical, for a seat (its private view) and a spectator."""
    client = fakeredis.FakeRedis()
    box = Box(client, memory_url())
    gid, token = finished_game(box, game)
    before = served(box, gid, token)
    assert game_keys(client, gid)
    box.engine.sweep()
    assert game_keys(client, gid) == []
    assert client.zscore(ARCHIVE_DUE, gid) is None
    fresh = Box(client, box.store.archive.url)  # another process: nothing of the game in memory
    assert served(fresh, gid, token) == before
    assert served(box, gid, token) == before  # and the process that archived it


def test_a_folder_archive_serves_across_processes(tmp_path):
    """#19.2: 'a folder by default': the object is a file; a second process reads it."""
    client = fakeredis.FakeRedis()
    box = Box(client, str(tmp_path / "archive"))
    gid, token = finished_game(box, "bataille")
    before = served(box, gid, token)
    assert box.engine.archiver.archive(gid) == "archived"
    files = list((tmp_path / "archive").rglob("*.json.zst"))
    assert [f.name for f in files] == [f"{gid}.json.zst"]
    assert not list((tmp_path / "archive").rglob("*.part"))
    assert served(Box(client, str(tmp_path / "archive")), gid, token) == before


def test_the_archive_keeps_nothing_it_can_recompute_and_rebuilds_the_log_exactly():
    """docs/operations.md: the archive drops what the log recomputes (versions, `prev`, digests
    and hashes) and rebuilds every event byte for byte."""
    client = fakeredis.FakeRedis()
    box = Box(client, memory_url())
    gid, _ = finished_game(box, "batak")
    stored = box.store.events(gid)
    assert box.engine.archiver.archive(gid) == "archived"
    blob = box.store.archive.read(gid)
    doc = json.loads(zstandard.ZstdDecompressor().decompress(blob))
    assert len(doc["events"]) == len(stored)
    assert not any({"version", "prev", "digests", "hash", "raw"} & e.keys() for e in doc["events"])
    assert ArchivedGame(blob).events() == stored


def test_the_retention_delay_is_kept_and_a_game_in_play_stays():
    """#19.2: 'after a retention delay (configurable)'; only finished games are archived."""
    client = fakeredis.FakeRedis()
    box = Box(client, memory_url(), after_s=3600)
    gid, _ = finished_game(box, "bataille")
    playing = box.client.post("/v1/games", json={"game": "bataille", "seats": SEATS["batak"][:2]})
    box.engine.sweep()
    assert game_keys(client, gid) and box.store.archived(gid) is None
    box.engine.archiver.after_s = 0
    assert box.engine.archiver.archive(playing.json["id"]) == "playing"
    box.engine.sweep()
    assert game_keys(client, gid) == [] and box.store.archived(gid) is not None
    assert game_keys(client, playing.json["id"])
    box.engine.archiver.after_s = None  # "off": nothing more is archived, reads still work
    other, _ = finished_game(box, "bataille")
    box.engine.sweep()
    assert game_keys(client, other)
    assert box.client.get(f"/v1/games/{gid}").status_code == 200


def test_a_crash_between_writing_and_deleting_leaves_both_then_the_next_sweep_finishes():
    """#19.2: 'write archive, verify it reads back, then delete; a crash between leaves both,
    never neither'."""
    client = fakeredis.FakeRedis()
    box = Box(client, memory_url())
    gid, token = finished_game(box, "bataille")
    before = served(box, gid, token)

    def crash(*_):
        raise SystemExit("killed")

    drop = box.store.drop
    box.store.drop = crash
    with pytest.raises(SystemExit):
        box.engine.archiver.archive(gid)
    assert game_keys(client, gid) and box.store.archive.read(gid) is not None
    assert served(box, gid, token) == before
    box.store.drop = drop
    box.engine.sweep()
    assert game_keys(client, gid) == [] and client.zscore(ARCHIVE_DUE, gid) is None
    assert served(Box(client, box.store.archive.url), gid, token) == before
    assert box.engine.archiver.archive(gid) == "already"  # idempotent


def test_an_archive_that_does_not_read_back_deletes_nothing():
    """#19.2: the archive is checked before anything is deleted (a store that fails to write,
    or writes something else, costs nothing)."""
    client = fakeredis.FakeRedis()
    box = Box(client, memory_url())
    gid, token = finished_game(box, "bataille")
    before = served(box, gid, token)
    archive_ = box.store.archive
    real = archive_.read
    archive_.read = lambda game_id: real(game_id)[:-20]  # a truncated object
    box.engine.sweep()  # logged, not raised: the sweep goes on
    assert game_keys(client, gid) and client.zscore(ARCHIVE_DUE, gid) is not None
    archive_.read = real

    def refuse(*_):
        raise OSError("the bucket is away")

    archive_.write = refuse
    box.engine.sweep()
    assert game_keys(client, gid)
    assert served(Box(client, archive_.url), gid, token) == before


def test_two_archivers_at_once_archive_once():
    client = fakeredis.FakeRedis()
    url = memory_url()
    one, two = Box(client, url), Box(client, url)
    gid, token = finished_game(one, "bataille")
    before = served(one, gid, token)
    assert one.engine.archiver.archive(gid) == "archived"
    assert two.engine.archiver.archive(gid) == "already"
    assert served(two, gid, token) == before


def test_a_test_game_cannot_take_the_id_of_an_archived_one():
    client = fakeredis.FakeRedis()
    box = Box(client, memory_url())
    body = {"game": "bataille", "seats": SEATS["bataille"], "id": "00000000000000aa"}
    box.client.post("/v1/games", json={**body, "seats": [{"bot": "greedy"}] * 2})
    box.run_jobs()
    box.engine.archiver.archive("00000000000000aa")
    r = box.client.post("/v1/games", json=body)
    assert r.status_code == 409 and r.json["code"] == "id_taken"


def test_an_unknown_game_is_still_a_404_with_an_archive():
    box = Box(fakeredis.FakeRedis(), memory_url())
    for url in ("/v1/games/0123456789abcdef", "/v1/games/0123456789abcdef/events"):
        assert box.client.get(url).status_code == 404


def test_cluster_mode_refuses_a_local_folder(monkeypatch, tmp_path):
    """#19.2 brief: 'in cluster mode it must be a shared URL, not a local folder'."""
    monkeypatch.setenv("BATAYO_REDIS_CLUSTER", "1")
    with pytest.raises(StartupError, match="BATAYO_ARCHIVE_URL"):
        archive(Settings(data_dir=tmp_path))
    with pytest.raises(StartupError):
        archive(Settings(data_dir=tmp_path, archive_url=f"file://{tmp_path}/a"))
    assert archive(Settings(data_dir=tmp_path, archive_url=memory_url())).url.startswith("memory")


def test_the_embedded_store_archives_into_its_own_data_folder(monkeypatch, tmp_path):
    """#19.4: 'the embedded store archives into its own data folder'."""
    monkeypatch.delenv("BATAYO_ARCHIVE_URL", raising=False)
    monkeypatch.delenv("BATAYO_REDIS_CLUSTER", raising=False)
    assert archive(Settings(data_dir=tmp_path)).url == str(tmp_path / "archive")


def test_the_retention_setting(monkeypatch):
    monkeypatch.setenv("BATAYO_ARCHIVE_AFTER_S", "off")
    assert Settings().archive_after_s is None
    monkeypatch.setenv("BATAYO_ARCHIVE_AFTER_S", "90")
    assert Settings().archive_after_s == 90
    monkeypatch.setenv("BATAYO_ARCHIVE_AFTER_S", "-1")
    with pytest.raises(ValueError):
        Settings()


@pytest.mark.redis
def test_on_a_real_server_no_byte_of_the_game_stays(real_redis, tmp_path):
    """#19.2: 'Redis bytes per finished game after archiving (target 0)'."""
    box = Box(real_redis, str(tmp_path / "archive"))
    gid, token = finished_game(box, "batayo")
    box.client.get(f"/v1/games/{gid}/verify")  # its audits cached with it too
    before = served(box, gid, token)
    held = sum(real_redis.memory_usage(k) or 0 for k in game_keys(real_redis, gid))
    assert held > 0
    box.engine.sweep()
    assert game_keys(real_redis, gid) == []
    assert served(Box(real_redis, str(tmp_path / "archive")), gid, token) == before


def test_a_retried_move_after_archiving_still_gets_its_first_answer():
    """#19.1/2: a retry with the same Idempotency-Key returns the first outcome; the record
    outlives the game in Redis (it expires on its own), the events come from the archive."""
    client = fakeredis.FakeRedis()
    box = Box(client, memory_url())
    gid = box.engine.create({"game": "bataille", "seats": [{"name": "a"}, {"name": "b"}]})["id"]
    last = None
    for i in range(100_000):
        view = box.engine.view(gid, None)
        if view["status"] == "finished":
            break
        seat = view["to_move"][0]
        key = f"move-{i}"
        last = (seat, key, box.engine.act(gid, seat, {"type": "flip"}, idem_key=key)[0])
    assert box.engine.archiver.archive(gid) == "archived"
    seat, key, first = last
    again, state = Box(client, box.store.archive.url).engine.act(
        gid, seat, {"type": "flip"}, idem_key=key
    )
    assert again == first and state["status"] == "finished"

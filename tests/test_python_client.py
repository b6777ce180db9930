"""The Python client (batayo_client) and the example bot, against a real server process: the
embedded service (`batayo serve`, its own store and worker thread) on a free port, with the toy
game of the tests registered (BATAYO_EXTRA_GAMES), so the example bot plays five games it knows
nothing of but their `legal_actions` and their stream."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from batayo_client import ApiError, Client
from tests.support.processes import wait_until

ROOT = Path(__file__).resolve().parent.parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _ready(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/readyz", timeout=1) as r:
            return r.status == 200
    except OSError:
        return False


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    env = {
        **os.environ,
        "BATAYO_DATA_DIR": str(tmp_path_factory.mktemp("data")),
        "BATAYO_EXTRA_GAMES": "tests.support.toy",
        "BATAYO_RATE_LIMIT": "0",
        "BATAYO_GAMES_PER_CLIENT": "0",
        "BATAYO_RATE_LIMIT_TOKEN": "0",
        "PYTHONPATH": str(ROOT),
    }
    env.pop("REDIS_URL", None)
    log = (tmp_path_factory.mktemp("log") / "serve.log").open("wb")
    batayo = Path(sys.executable).parent / "batayo"
    process = subprocess.Popen(
        [batayo, "serve", "--port", str(port)], env=env, stdout=log, stderr=subprocess.STDOUT
    )
    try:
        assert wait_until(lambda: _ready(url), 30), "the server did not start"
        yield url
    finally:
        process.terminate()
        process.wait(10)
        log.close()


def test_a_person_creates_joins_acts_and_reads_the_log(server):
    api = Client(server)
    created = api.create("bataille", [{"name": "ana", "client_seed": "a"}, {"open": True}])
    gid = created["id"]
    joined = api.join(gid, "bob", "b")
    ana, bob = api.as_seat(created["seats"][0]["token"]), api.as_seat(joined["token"])
    view = ana.view(gid)
    assert view["you"] == 0 and view["legal_actions"] == [{"type": "flip"}]
    with pytest.raises(ApiError) as stale:
        ana.act(gid, {"type": "flip"}, if_match=view["version"] - 1)
    assert (stale.value.status, stale.value.code) == (412, "version_mismatch")
    first = ana.act(gid, {"type": "flip"}, if_match=view["version"], idempotency_key="k1")
    again = ana.act(gid, {"type": "flip"}, if_match=view["version"], idempotency_key="k1")
    assert again["events"] == first["events"]  # a retry: the first answer, nothing appended
    bob.act(gid, {"type": "flip"})
    events = list(api.all_events(gid))
    assert [e["version"] for e in events] == list(range(1, api.view(gid)["version"] + 1))
    assert api.verify(gid)["status"] == "incomplete"
    with pytest.raises(ApiError) as refused:
        api.act(gid, {"type": "flip"})  # a spectator cannot act
    assert (refused.value.status, refused.value.code) == (401, "unauthorized")


def test_follow_resumes_a_dropped_stream_with_no_event_lost_or_repeated(server):
    api = Client(server)
    created = api.create("duel", [{"bot": "random"}, {"bot": "random"}])
    gid = created["id"]
    assert wait_until(lambda: api.view(gid)["status"] == "finished", 30)
    total = api.view(gid)["version"]

    class Flaky(Client):
        """Its connections break after three lines, twice, then hold."""

        drops = 0

        def _stream(self, game_id, after):
            for i, line in enumerate(super()._stream(game_id, after)):
                if i == 3 and Flaky.drops < 2:
                    Flaky.drops += 1
                    raise ConnectionResetError("dropped")
                yield line

    seen = [e["version"] for e in Flaky(server).follow(gid)]
    assert Flaky.drops == 2 and seen == list(range(1, total + 1))
    assert [e["version"] for e in api.follow(gid, after=total - 2)] == [total - 1, total]


def test_a_finished_games_signature_checks_out_with_the_servers_key(server):
    """The quick start makes a signing key: the client reads the keys and a finished game's
    signature, and the signature verifies with the listed key (docs/fairness.md)."""
    from service.core.signing import check_tip, public_key

    api = Client(server)
    gid = api.create("duel", [{"bot": "random"}, {"bot": "random"}])["id"]
    assert wait_until(lambda: api.view(gid)["status"] == "finished", 30)
    trusted = {k["kid"]: public_key(k["public_key"]) for k in api.keys()}  # noqa: SIM118
    signature = api.signature(gid)
    events = list(api.all_events(gid))
    assert check_tip(signature, gid, len(events), events[-1]["hash"], trusted)[0] == "signed"
    forged = {**signature, "tip": "0" * 64}
    assert check_tip(forged, gid, len(events), events[-1]["hash"], trusted)[0] == "failed"
    with pytest.raises(ApiError) as missing:
        api.signature("0123456789abcdef")
    assert missing.value.status == 404


def test_the_served_contract_has_the_extra_game(server):
    with urllib.request.urlopen(f"{server}/openapi.json") as r:
        import json

        spec = json.loads(r.read())
    assert "duel" in spec["components"]["schemas"]["GameName"]["enum"]


@pytest.mark.parametrize(
    ("game", "options"),
    [
        ("bataille", ["deck=32", "max_rounds=40"]),
        ("batak", ["deals=3"]),
        ("batayo", ["format=express"]),
        ("roylet", ["rounds=1"]),
        ("duel", []),
    ],
)
def test_the_example_bot_plays_any_game_to_its_end(server, game, options):
    command = [sys.executable, ROOT / "examples" / "bot.py", "--url", server, "--game", game]
    command += ["--seed", "7", "--quiet", *(a for o in options for a in ("--option", o))]
    out = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "over:" in out.stdout and "verification: ok" in out.stdout, out.stdout


def test_the_client_and_the_example_are_typed_strictly():
    mypy = Path(sys.executable).parent / "mypy"
    if not mypy.exists():
        if os.environ.get("CI"):
            pytest.fail("mypy is missing in CI")
        pytest.skip("mypy is not installed")
    out = subprocess.run(
        [mypy, "--strict", "--no-incremental", "batayo_client", "examples/bot.py"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert out.returncode == 0, out.stdout


def test_a_hint_is_searched_off_the_request_and_waited_for(server):
    """On the embedded server (its in-process worker) a hint that needs a search is 202 first,
    then the strong bot's legal action with its reason (docs/api.md, Teach me)."""
    api = Client(server)
    created = api.create("roylet", [{"name": n} for n in ("k", "a", "b")])
    gid = created["id"]
    seat = api.view(gid)["to_move"][0]
    token = created["seats"][seat]["token"]
    asked = urllib.request.Request(
        f"{server}/v1/games/{gid}/hint", headers={"Authorization": f"Bearer {token}"}
    )
    with urllib.request.urlopen(asked) as first:
        assert first.status == 202 and first.headers["Retry-After"] == "1"
    player = api.as_seat(token)
    hint = player.hint(gid)
    assert hint["action"] in player.view(gid)["legal_actions"]
    assert hint["reason"]["code"] in ("play_high", "play_low", "play_card")

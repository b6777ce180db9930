"""Where a log comes from (docs/fairness.md): the server signs its chain's tip with the deployment's
Ed25519 key, and a verifier trusts only the keys it was given. Without that, a forger who knows
a finished game's revealed seed can write another legal history of the same game, from the
very same first event, that every check of the log passes."""

from __future__ import annotations

import base64
import copy
import json
import threading
import uuid

import fakeredis
import pytest
from click.testing import CliRunner
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from service.cli import main
from service.core import signing
from service.core.chain import event_hash
from service.core.state import awaited, legal_actions
from service.core.verify import verify
from service.engine import Engine, keys
from service.engine.dispatch import QueueDispatcher
from service.sim.table import Table
from service.store import Store
from service.store.archive import Archive
from tests.support import page
from tests.support.helpers import stored_v1_batak
from tests.support.service import Service

T0 = "2026-01-01T00:00:00.000000Z"


def table() -> Table:
    return Table(
        "batak",
        {"deals": 3},
        [{"bot": "greedy"}] * 4,
        seed=b"s" * 32,
        game_id="signed",
        clock=lambda: T0,
    )


@pytest.fixture(scope="module")
def histories() -> tuple[list[dict], list[dict]]:
    """A real game, and another legal history of it from the same first event (the bots'
    choices are not part of the proof: any legal move is one)."""
    real, forged = table(), table()
    real.play_out()
    forged.play_out({seat: "random" for seat in range(4)})
    return real.export(), forged.export()


@pytest.fixture
def ring(tmp_path) -> keys.Keyring:
    return keys.init(tmp_path / "signing-key.pem")[0]


def test_another_legal_history_passes_every_check_of_the_log(histories):
    """Why the signature: without it, nothing tells the real log from the forged one."""
    real, forged = histories
    assert real[0] == forged[0] and real[-1]["hash"] != forged[-1]["hash"]
    assert verify(real)["status"] == verify(forged)["status"] == "ok"
    assert page.check(forged) == ("ok", None)


def test_the_signature_tells_the_real_history_from_the_forged_one(histories, ring):
    real, forged = histories
    signature = ring.sign("signed", len(real), real[-1]["hash"])
    trusted = ring.publics()
    assert signing.check(signature, real, trusted) == ("signed", None)
    status, why = signing.check(signature, forged, trusted)
    assert status == "failed" and "another history" in why
    assert signing.check(None, forged, trusted)[0] == "unsigned"


def test_a_signature_by_a_key_not_trusted_is_unsigned_and_a_forged_one_fails(histories, ring):
    real, _ = histories
    other = Ed25519PrivateKey.generate()
    mine = signing.sign(other, "signed", len(real), real[-1]["hash"])
    assert signing.check(mine, real, ring.publics())[0] == "unsigned"  # the export names it
    theirs = ring.sign("signed", len(real), real[-1]["hash"])
    bad = {**theirs, "signature": base64.b64encode(b"\0" * 64).decode()}
    assert signing.check(bad, real, ring.publics())[0] == "failed"
    for field, value in (("version", float(len(real))), ("version", True), ("game", "other")):
        assert signing.check({**theirs, field: value}, real, ring.publics())[0] == "failed"


def test_the_signed_bytes_are_the_documented_canonical_json(ring):
    signature = ring.sign("g1", 7, "ab" * 32)
    tip = "ab" * 32
    expected = (
        f'{{"context":"batayo-tip-signature/1","game":"g1","key":"{ring.kid}",'
        f'"tip":"{tip}","version":7}}'
    ).encode()
    assert signing.message("g1", 7, "ab" * 32, ring.kid) == expected
    ring.private.public_key().verify(base64.b64decode(signature["signature"]), expected)
    assert ring.kid == signing.key_id(ring.private.public_key()) and len(ring.kid) == 16


def test_verdicts():
    assert signing.verdict("ok", "signed") == "ok"
    assert signing.verdict("ok", "unsigned") == "unsigned"
    assert signing.verdict("ok", "failed") == "failed"
    assert signing.verdict("v1", "signed") == "v1"
    assert signing.verdict("incomplete", "signed") == "incomplete"
    assert signing.verdict("failed", "signed") == "failed"


# -- the key file ------------------------------------------------------------------------------


def test_init_makes_one_key_once_even_when_raced(tmp_path):
    path = tmp_path / "deep" / "signing-key.pem"
    kids, made = [], []

    def init() -> None:
        ring, new = keys.init(path)
        kids.append(ring.kid)
        made.append(new)

    threads = [threading.Thread(target=init) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(kids)) == 1 and made.count(True) == 1
    assert path.stat().st_mode & 0o077 == 0  # readable by its owner only
    assert keys.load(path).kid == kids[0]


def test_rotation_keeps_the_retired_public_key(tmp_path):
    path = tmp_path / "signing-key.pem"
    first, _ = keys.init(path)
    second, retired = keys.rotate(path)
    assert retired == first.kid and second.kid != first.kid
    ring = keys.load(path)
    assert ring.kid == second.kid and set(ring.publics()) == {first.kid, second.kid}


def test_no_key_file_no_keyring(tmp_path):
    assert keys.load(tmp_path / "none.pem") is None


# -- the server --------------------------------------------------------------------------------


def bot_game(svc: Service) -> str:
    body = {"game": "bataille", "options": {"max_rounds": 30}, "seats": [{"bot": "random"}] * 2}
    gid = svc.client.post("/v1/games", json=body).json["id"]
    while svc.run_jobs():
        pass
    assert svc.engine.load(gid)["status"] == "finished"
    return gid


@pytest.fixture
def signed(tmp_path) -> Service:
    svc = Service()
    svc.engine.keys = keys.init(tmp_path / "signing-key.pem")[0]
    return svc


def test_a_finished_game_is_signed_in_its_export_and_at_its_route(signed):
    gid = bot_game(signed)
    export = signed.client.get(f"/v1/games/{gid}/export").json
    signature = export["signature"]
    events = export["events"]
    assert signature == signed.client.get(f"/v1/games/{gid}/signature").json
    assert signature["key"] == signed.engine.keys.kid and signature["version"] == len(events)
    assert signing.check(signature, events, signed.engine.keys.publics()) == ("signed", None)
    report = signed.client.get(f"/v1/games/{gid}/verify").json
    assert report["status"] == "ok" and report["verdict"] == "ok", report
    assert report["signature"] == signature
    audits = signed.engine.audits.finished(gid, signed.engine.load(gid))
    assert audits["signature"] == signature  # kept with the audits, so in the archive too


def test_the_keys_routes_list_current_and_retired_keys(signed, tmp_path):
    old = signed.engine.keys.kid
    signed.engine.keys = keys.rotate(tmp_path / "signing-key.pem")[0]
    listed = signed.client.get("/v1/keys").json["keys"]
    assert [k["kid"] for k in listed] == [old, signed.engine.keys.kid]
    assert [k["current"] for k in listed] == [False, True]
    one = signed.client.get(f"/v1/keys/{old}").json
    assert signing.key_id(signing.public_key(one["pem"])) == old
    assert signing.key_id(signing.public_key(json.dumps(one))) == old
    assert signed.client.get("/v1/keys/0123456789abcdef").status_code == 404


def test_a_game_in_play_is_signed_at_its_version_with_the_tip_every_caller_sees(signed):
    body = {"game": "bataille", "seats": [{"name": "ana"}, {"name": "bob"}]}
    gid = signed.client.post("/v1/games", json=body).json["id"]
    shown = signed.client.get(f"/v1/games/{gid}/events").json["events"]
    signature = signed.client.get(f"/v1/games/{gid}/signature").json
    assert signature["version"] == len(shown) and signature["tip"] == shown[-1]["hash"]
    assert signing.check(signature, shown, signed.engine.keys.publics()) == ("signed", None)
    again = signed.client.get(f"/v1/games/{gid}/signature").json
    assert again == signature  # made once per version
    report = signed.client.get(f"/v1/games/{gid}/verify").json
    assert report["verdict"] == "incomplete" and report["signature"] is None


def test_a_version_1_game_in_play_has_no_signature_its_hashes_are_hidden(signed):
    gid = "00000000000000ab"
    state = stored_v1_batak(signed.engine, gid, T0)
    seat = awaited(state)[0]
    signed.engine.act(gid, seat, legal_actions(state, seat)[0])
    answer = signed.client.get(f"/v1/games/{gid}/signature")
    assert answer.status_code == 409 and answer.json["code"] == "tip_hidden"


def test_without_a_key_the_server_runs_and_its_logs_are_unsigned():
    svc = Service()
    gid = bot_game(svc)
    assert svc.client.get(f"/v1/games/{gid}/export").json["signature"] is None
    answer = svc.client.get(f"/v1/games/{gid}/signature")
    assert answer.status_code == 404 and answer.json["code"] == "unsigned"
    report = svc.client.get(f"/v1/games/{gid}/verify").json
    assert report["status"] == "ok" and report["verdict"] == "unsigned", report
    assert svc.client.get("/v1/keys").json == {"keys": []}


# -- `batayo verify` ---------------------------------------------------------------------------


def test_batayo_verify_trusts_only_the_keys_it_is_given(signed, tmp_path):
    gid = bot_game(signed)
    export = signed.client.get(f"/v1/games/{gid}/export").json
    path = tmp_path / "game.json"
    path.write_text(json.dumps(export))
    key = tmp_path / "key.pem"
    key.write_text(signing.pem(signed.engine.keys.private.public_key()))
    run = CliRunner().invoke
    out = run(main, ["verify", str(path), "--key", str(key)])
    assert out.exit_code == 0 and out.output.startswith("ok"), out.output
    out = run(main, ["verify", str(path)])  # the key the export names is not trusted
    assert out.exit_code == 4 and out.output.startswith("unsigned"), out.output
    assert run(main, ["verify", str(path), "--accept-unsigned"]).exit_code == 0
    other = tmp_path / "other.pem"
    other.write_text(signing.pem(Ed25519PrivateKey.generate().public_key()))
    assert run(main, ["verify", str(path), "--key", str(other)]).exit_code == 4


def test_batayo_verify_fails_another_history_carrying_the_real_signature(histories, tmp_path):
    real, forged = histories
    ring = keys.init(tmp_path / "k.pem")[0]
    key = tmp_path / "key.pem"
    key.write_text(signing.pem(ring.private.public_key()))
    signature = ring.sign("signed", len(real), real[-1]["hash"])
    for log, code in ((real, 0), (forged, 1)):
        path = tmp_path / "game.json"
        path.write_text(json.dumps({"events": log, "signature": signature}))
        out = CliRunner().invoke(main, ["verify", str(path), "--key", str(key)])
        assert out.exit_code == code, out.output


def test_batayo_verify_exit_codes_for_v1_and_incomplete(histories, tmp_path):
    real, _ = histories
    v1 = copy.deepcopy(real)
    del v1[0]["data"]["fairness"]
    prev = "0" * 64
    for e in v1:
        e.pop("sealed")
        e.pop("openings")
        e["prev"] = prev
        e["hash"] = prev = event_hash(e)
    path = tmp_path / "v1.json"
    path.write_text(json.dumps({"events": v1}))
    out = CliRunner().invoke(main, ["verify", str(path)])
    assert out.exit_code == 5 and out.output.startswith("v1"), out.output
    assert CliRunner().invoke(main, ["verify", str(path), "--accept-v1"]).exit_code == 0
    path.write_text(json.dumps({"events": real[:-3]}))
    assert CliRunner().invoke(main, ["verify", str(path), "--accept-unsigned"]).exit_code == 3


def test_an_archived_game_keeps_its_signature(tmp_path):
    jobs, client = QueueDispatcher(), fakeredis.FakeRedis()
    url = f"memory://batayo-sign-{uuid.uuid4().hex}"
    engine = Engine(Store(client, Archive(url)), jobs)
    engine.keys = keys.init(tmp_path / "k.pem")[0]
    gid = engine.create({"game": "bataille", "seats": [{"bot": "greedy"}] * 2})["id"]
    while jobs.run(lambda job, args: getattr(engine, job)(*args)):
        pass
    signature = engine.export(gid)["signature"]
    assert signature is not None
    engine.archiver.after_s = 0
    assert engine.archiver.archive(gid) == "archived"
    other = Engine(Store(client, Archive(url)))
    other.keys = keys.rotate(tmp_path / "k.pem")[0]  # a new key since: the old one signed it
    assert other.export(gid)["signature"] == signature
    assert other.verify(gid, None)["verdict"] == "ok"

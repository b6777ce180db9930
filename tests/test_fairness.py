"""docs/fairness.md, byte for byte: the service's stream against an independent implementation
written here from the page, and the ledger and chain checks against tampering."""

from __future__ import annotations

import copy
import hashlib
import hmac
import json
import struct
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.core import fairness
from service.core.chain import GENESIS, canonical, event_hash
from service.core.state import awaited, fold, legal_actions
from service.core.verify import verify
from service.sim.table import Table
from tests.support import page
from tests.support.helpers import stored_v1_batak

T0 = "2026-01-01T00:00:00.000000Z"


class PageRng:
    """docs/fairness.md read literally: blocks of HMAC-SHA256, four big-endian u64 per block."""

    def __init__(self, seed: bytes, game_id: str, salt: str, v: int) -> None:
        self.seed, self.game_id, self.salt, self.v = seed, game_id, salt, v
        self.words: list[int] = []
        self.k = 0

    def u(self) -> int:
        if not self.words:
            msg = f"{self.game_id}|{self.salt}|{self.v}|{self.k}".encode()
            block = hmac.new(self.seed, msg, hashlib.sha256).digest()
            self.words = list(struct.unpack(">4Q", block))
            self.k += 1
        return self.words.pop(0)

    def randbelow(self, n: int) -> int:
        limit = 2**64 - (2**64 % n)
        while True:
            u = self.u()
            if u < limit:
                return u % n

    def shuffle(self, xs: list) -> list:
        xs = list(xs)
        for i in range(len(xs) - 1, 0, -1):
            j = self.randbelow(i + 1)
            xs[i], xs[j] = xs[j], xs[i]
        return xs


@given(
    st.binary(min_size=32, max_size=32),
    st.text(max_size=20),
    st.integers(1, 10_000),
    st.lists(st.integers(), max_size=60),
    st.lists(st.integers(1, 2**64), min_size=1, max_size=20),
)
def test_the_stream_matches_the_page(seed, game_id, version, xs, ns):
    salt = fairness.salt(["a", None, "é"])
    ours, page = fairness.Rng(seed, game_id, salt, version), PageRng(seed, game_id, salt, version)
    assert ours.shuffle(xs, "x") == page.shuffle(xs)
    assert [ours.randbelow(n) for n in ns] == [page.randbelow(n) for n in ns]
    if xs:
        assert ours.choice(xs, "c") == xs[page.randbelow(len(xs))]


def test_randbelow_rejects_values_at_or_above_the_limit():
    """With n = 2**63 + 1 nearly half of all u64 values are rejected: the page's loop must skip
    them, and both implementations agree over many draws."""
    n = 2**63 + 1
    ours, page = fairness.Rng(b"k" * 32, "g", "s", 1), PageRng(b"k" * 32, "g", "s", 1)
    assert [ours.randbelow(n) for _ in range(200)] == [page.randbelow(n) for _ in range(200)]
    assert page.k > 50  # 200 draws needed well over 200 words: rejections happened


def test_draws_are_close_to_uniform():
    rng = fairness.Rng(b"u" * 32, "g", "s", 7)
    counts = Counter(rng.randbelow(6) for _ in range(6000))
    chi2 = sum((c - 1000) ** 2 / 1000 for c in counts.values())
    assert len(counts) == 6 and chi2 < 25  # 5 degrees of freedom: p < 0.0002 to fail


def test_commitment_and_salt_are_sha256_hex():
    seed = bytes(range(32))
    assert fairness.commitment(seed) == hashlib.sha256(seed).hexdigest()
    assert fairness.salt(["a", None, "b"]) == hashlib.sha256(b"a\n\nb").hexdigest()


def test_the_ledger_records_every_draw_in_order():
    rng = fairness.Rng(b"s" * 32, "g", "salt", 3)
    out = rng.shuffle(["AS", "KS", "QS"], "pack of seat 0", deck=True)
    pick = rng.choice(["2H", "3H"], "a take")
    assert rng.ledger == [
        {
            "op": "shuffle",
            "input": ["AS", "KS", "QS"],
            "output": out,
            "why": "pack of seat 0",
            "deck": True,
        },
        {"op": "choice", "input": ["2H", "3H"], "output": pick, "why": "a take"},
    ]
    assert fairness.replay_ledger(b"s" * 32, "g", "salt", 3, rng.ledger) is None
    assert fairness.replay_ledger(b"s" * 32, "g", "salt", 4, rng.ledger) is not None


def test_canonical_json_sorts_keys_without_spaces_or_ascii_escapes():
    assert canonical({"b": 1, "a": ["é", None]}) == '{"a":["é",null],"b":1}'.encode()
    event = {"version": 1, "data": {}, "prev": GENESIS, "hash": "x"}
    body = {k: v for k, v in event.items() if k != "hash"}
    assert event_hash(event) == hashlib.sha256(canonical(body)).hexdigest()


# -- the whole log: verification and tampering ------------------------------------------------
#
# Every check runs twice: the service's verifier (`verify`, with the rules) and the page read
# literally (`tests/support/page.py`, no service code). A forger who knows the revealed seed
# rebuilds every digest and hash after a change (`page.reseal`), so the chain alone holds: what
# catches the forgery then is the page's other checks, or the rules.


def bot_game(game: str, options: dict, seats: list[dict], **kw) -> Table:
    t = Table(game, options, seats, seed=b"f" * 32, game_id="tamper", **kw)
    t.play_out()
    return t


@pytest.fixture(scope="module")
def finished() -> list[dict]:
    t = bot_game("bataille", {"max_rounds": 60}, [{"bot": "random"}, {"bot": "greedy"}])
    return t.export()


def test_an_untouched_log_verifies_every_check(finished):
    report = verify(finished)
    assert report["status"] == "ok" and report["ok"] and report["seed_revealed"], report
    checked = report["checked"]
    assert checked["draws"] == sum(len(e["data"].get("rng", [])) for e in finished)
    assert checked["decks"] == 1 and checked["client_seeds"]
    assert checked["nonces"] == checked["openings"] == sum(len(e["sealed"]) for e in finished)
    assert checked["play"] == sum(1 for e in finished if "cause" in e["data"])
    assert page.check(finished) == ("ok", None)


def test_the_first_event_says_fairness_2_and_every_event_is_sealed_or_says_none(finished):
    assert finished[0]["data"]["fairness"] == 2
    assert all(isinstance(e["sealed"], list) and isinstance(e["openings"], dict) for e in finished)
    dealt = finished[1]
    # classique: nobody sees a pack, so the packs are sealed as one value
    assert dealt["sealed"] == ["/data/packs", "/data/aside", "/data/rng/0/output"]
    assert dealt["data"]["rng"][0]["deck"] is True
    assert dealt["data"]["rng"][0]["input"] == sorted(
        dealt["data"]["rng"][0]["input"], key=page.ORDER.index
    )


def both_fail_at(events: list[dict], version: int, words: str = "") -> dict:
    report = verify(events)
    assert report["status"] == "failed" and report["version"] == version, report
    assert words in report["reason"], report["reason"]
    return report


def test_a_changed_card_fails_at_its_version(finished):
    events = copy.deepcopy(finished)
    flip = next(e for e in events if e["type"] == "flipped")
    flip["data"]["up"] = "2C" if flip["data"]["up"] != "2C" else "3C"
    both_fail_at(events, flip["version"], "hash")
    assert page.check(events) == ("failed", flip["version"])


def test_a_changed_card_with_a_rebuilt_chain_fails_the_rules(finished):
    """The forger rebuilds every hash: the page alone sees nothing wrong, the rules do."""
    events = copy.deepcopy(finished)
    flip = next(e for e in events if e["type"] == "flipped" and e["version"] > 10)
    flip["data"]["up"] = next(c for c in page.ORDER if c != flip["data"]["up"])
    page.reseal(events, flip["version"])
    assert page.check(events) == ("ok", None)
    both_fail_at(events, flip["version"], "rules")


def test_a_changed_result_fails_the_rules(finished):
    events = copy.deepcopy(finished)
    result = events[-1]["data"]["result"]
    result["winners"] = [1 - result["winners"][0]] if result["winners"] else [0]
    page.reseal(events, len(events))
    assert page.check(events) == ("ok", None)
    both_fail_at(events, len(events), "rules")


def test_an_illegal_move_fails_the_rules():
    """A Batak play that breaks rule 3 (follow suit), with the chain rebuilt around it."""
    t = bot_game("batak", {"deals": 3}, [{"bot": "greedy"}] * 4)
    events = t.export()

    def off_suit(e: dict) -> str | None:
        """A card of the seat's hand that does not follow the led suit, if it holds both."""
        table = fold(events[: e["version"] - 1])["table"]
        if not table["trick"]:
            return None
        led = table["trick"][0]["card"][-1]
        hand = table["hands"][e["data"]["seat"]]
        follows = [c for c in hand if c[-1] == led]
        others = [c for c in hand if c[-1] != led]
        return others[0] if follows and others else None

    forged = next(e for e in events if e["type"] == "played" and off_suit(e))
    card = off_suit(forged)
    forged["data"]["card"] = card
    forged["data"]["cause"]["action"]["body"]["card"] = card
    page.reseal(events, forged["version"])
    report = both_fail_at(events, forged["version"], "rules")
    assert "follow suit" in report["reason"]


def test_a_stacked_deal_fails(finished):
    """A ledger input chosen so that the shuffle gives the deal the forger wants: the deck is
    no longer in canonical order (the page sees it), and the rules deal another deck."""
    events = copy.deepcopy(finished)
    entry = events[1]["data"]["rng"][0]
    entry["input"] = list(reversed(entry["input"]))
    stream = page.Stream(b"f" * 32, "tamper", events[1]["data"]["salt"], 2)
    entry["output"] = stream.shuffle(entry["input"])
    page.reseal(events, 2)
    assert page.check(events) == ("failed", 2)
    both_fail_at(events, 2, "canonical")


def test_replaced_client_seeds_fail(finished):
    events = copy.deepcopy(finished)
    start = events[1]["data"]
    start["client_seeds"] = ["mine", ""]
    start["salt"] = hashlib.sha256(b"mine\n").hexdigest()
    page.reseal(events, 2)
    assert page.check(events) == ("failed", 2)
    both_fail_at(events, 2, "client_seeds")


def test_a_changed_seed_fails_the_commitment(finished):
    events = copy.deepcopy(finished)
    events[-1]["data"]["server_seed"] = "00" * 32
    page.reseal(events, len(events))
    both_fail_at(events, len(events), "commitment")


def test_a_forged_opening_fails(finished):
    events = copy.deepcopy(finished)
    dealt = events[1]
    dealt["openings"]["/data/aside"] = "00" * 32  # the aside (empty) with another nonce
    both_fail_at(events, 2, "hash")
    page.reseal(events, 2)  # and with the chain rebuilt: not the seed's nonce
    assert page.check(events) == ("failed", 2)
    both_fail_at(events, 2, "nonce")


def test_a_removed_event_fails_where_it_was(finished):
    events = copy.deepcopy(finished)
    del events[9]
    both_fail_at(events, 10)


def test_two_swapped_events_fail_at_the_first(finished):
    events = copy.deepcopy(finished)
    events[5], events[6] = events[6], events[5]
    both_fail_at(events, 6)


def test_a_log_that_stops_before_its_end_is_incomplete(finished):
    report = verify(finished[:-5])
    assert report["status"] == "incomplete" and not report["ok"] and report["version"] is None
    assert page.check(finished[:-5]) == ("incomplete", None)


def test_malformed_logs_fail_cleanly():
    for bad in ([], [1, 2], [{"version": 1}], [{"type": "created", "data": {"fairness": 2}}]):
        assert verify(bad)["status"] == "failed"


def test_verification_reads_plain_json(finished, tmp_path):
    """An export is plain JSON: what verify reads back from a file is what it checks."""
    path = tmp_path / "game.json"
    path.write_text(json.dumps({"events": finished}, ensure_ascii=False))
    assert verify(json.loads(path.read_text())["events"])["ok"]


@pytest.mark.parametrize(
    ("game", "options", "seats"),
    [
        (
            "bataille",
            {"variant": "ouverte", "max_rounds": 40, "players": 3},
            [{"bot": "greedy"}] * 3,
        ),
        ("batayo", {"gather": "random"}, [{"bot": "random"}, {"bot": "greedy"}]),
        ("batak", {"deals": 3, "mode": "esli"}, [{"bot": "greedy"}] * 4),
        ("roylet", {"rounds": 3}, [{"bot": "random"}] * 3),
    ],
)
def test_every_game_verifies_by_the_page_and_by_the_rules(game, options, seats):
    events = bot_game(game, options, seats).export()
    assert verify(events)["status"] == "ok", verify(events)
    assert page.check(events) == ("ok", None)


# -- version 1: games begun before version 2 ---------------------------------------------------


@pytest.fixture(scope="module")
def version_1() -> list[dict]:
    t = bot_game("bataille", {"max_rounds": 40}, [{"bot": "random"}] * 2, fairness=1)
    return t.export()


def test_a_version_1_log_is_checked_as_before_but_reported_as_v1(version_1):
    """Everything version 1 can say is checked, and the play refolded, but the verdict is
    `v1`, never `ok`: version 1 sealed nothing, so such a log proves less."""
    assert "fairness" not in version_1[0]["data"] and "sealed" not in version_1[1]
    report = verify(version_1)
    assert report["status"] == "v1" and not report["ok"] and report["fairness"] == 1, report
    assert report["draws_checked"] >= 1
    assert report["checked"]["play"] == sum(1 for e in version_1 if "cause" in e["data"])


def rehash_v1(events: list[dict], start: int) -> None:
    prev = events[start - 2]["hash"] if start > 1 else GENESIS
    for e in events[start - 1 :]:
        e["prev"] = prev
        e["hash"] = event_hash(e)
        prev = e["hash"]


def test_version_1_tampering_fails_the_chain_or_the_ledger(version_1):
    events = copy.deepcopy(version_1)
    events[1]["data"]["rng"][0]["output"].reverse()
    assert verify(events)["version"] == 2
    rehash_v1(events, 2)
    report = verify(events)
    assert not report["ok"] and report["version"] == 2 and "seed" in report["reason"]


def test_a_version_1_game_in_play_goes_on_as_version_1_and_hides_its_hashes(svc):
    """A game stored before version 2 keeps writing version 1 until it ends; while it runs its
    events are served without `hash` and `prev` (they hash the clear values) and each hidden
    value is null; once it ends it verifies as version 1 did."""
    gid = "00000000000000aa"
    assert stored_v1_batak(svc.engine, gid, T0)["fairness"] == 1
    checked = False
    while (state := svc.engine.load(gid))["status"] == "playing":
        seat = awaited(state)[0]
        events, _ = svc.engine.act(gid, seat, legal_actions(state, seat)[0])
        assert all("sealed" not in e for e in events)  # still version 1
        if not checked:
            shown = svc.client.get(f"/v1/games/{gid}/events").json["events"]
            assert all("hash" not in e and "prev" not in e for e in shown)
            assert shown[1]["data"]["hands"][0] is None  # a hand the spectator may not see
            checked = True
    report = svc.client.get(f"/v1/games/{gid}/verify").json
    assert report["status"] == "v1" and report["fairness"] == 1, report


@pytest.mark.parametrize("length", [0, 1, 32, 64, 65, 200])
def test_the_streams_hmac_is_hmac_sha256(length):
    """The stream's HMAC (its key's padding hashed once) is the standard library's, for keys
    shorter than, as long as and longer than SHA-256's block."""
    key = bytes(i % 256 for i in range(length))
    for msg in (b"", b"g|salt|3|0", bytes(range(256)) * 3):
        assert fairness.hmac_sha256(key, msg) == hmac.digest(key, msg, "sha256")

"""FAIRNESS.md, byte for byte: the service's stream against an independent implementation
written here from the page, and the ledger and chain checks against tampering."""

from __future__ import annotations

import copy
import hashlib
import hmac
import json
import random
import struct
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.core import fairness
from service.core.chain import GENESIS, canonical, event_hash
from service.core.verify import verify
from service.sim.table import Table


class PageRng:
    """FAIRNESS.md read literally: blocks of HMAC-SHA256, four big-endian u64 per block."""

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
    out = rng.shuffle(["AS", "KS", "QS"], "pack of seat 0")
    pick = rng.choice(["2H", "3H"], "a take")
    assert rng.ledger == [
        {"op": "shuffle", "input": ["AS", "KS", "QS"], "output": out, "why": "pack of seat 0"},
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


@pytest.fixture(scope="module")
def finished() -> list[dict]:
    t = Table(
        "bataille",
        {"max_rounds": 60},
        [{"bot": "random"}, {"bot": "greedy"}],
        seed=b"f" * 32,
        game_id="tamper",
    )
    t.play_out(random.Random(3))
    assert verify(t.events)["ok"]
    return t.events


def rehash_from(events: list[dict], start: int) -> None:
    """What a forger would do: recompute every hash after a change, so the chain alone holds."""
    prev = events[start - 2]["hash"] if start > 1 else GENESIS
    for e in events[start - 1 :]:
        e["prev"] = prev
        e["hash"] = event_hash(e)
        prev = e["hash"]


def test_an_untouched_log_verifies_every_draw(finished):
    report = verify(finished)
    assert report["ok"] and report["seed_revealed"]
    assert report["draws_checked"] == sum(len(e["data"].get("rng", [])) for e in finished)


def test_a_changed_card_fails_at_its_version(finished):
    events = copy.deepcopy(finished)
    flip = next(e for e in events if e["type"] == "flipped")
    flip["data"]["up"] = "2C" if flip["data"]["up"] != "2C" else "3C"
    report = verify(events)
    assert not report["ok"] and report["version"] == flip["version"]
    assert "hash" in report["reason"]


def test_a_removed_event_fails_where_it_was(finished):
    events = copy.deepcopy(finished)
    del events[9]
    report = verify(events)
    assert not report["ok"] and report["version"] == 10


def test_two_swapped_events_fail_at_the_first(finished):
    events = copy.deepcopy(finished)
    events[5], events[6] = events[6], events[5]
    report = verify(events)
    assert not report["ok"] and report["version"] == 6


def test_a_reshuffled_deal_with_a_rebuilt_chain_fails_the_ledger(finished):
    events = copy.deepcopy(finished)
    dealt = events[1]
    entry = dealt["data"]["rng"][0]
    entry["output"] = list(reversed(entry["output"]))
    rehash_from(events, 2)
    report = verify(events)
    assert not report["ok"] and report["version"] == 2 and "seed" in report["reason"]


def test_a_changed_seed_fails_the_commitment(finished):
    events = copy.deepcopy(finished)
    events[-1]["data"]["server_seed"] = "00" * 32
    rehash_from(events, len(events))
    report = verify(events)
    assert not report["ok"] and report["version"] == len(events)
    assert "commitment" in report["reason"]


def test_a_changed_client_seed_fails_the_salt(finished):
    events = copy.deepcopy(finished)
    events[1]["data"]["client_seeds"][0] = "mine"
    rehash_from(events, 2)
    report = verify(events)
    assert not report["ok"] and report["version"] == 2 and "salt" in report["reason"]


def test_verification_reads_plain_json(finished, tmp_path):
    """An export is plain JSON: what verify reads back from a file is what it checks."""
    path = tmp_path / "game.json"
    path.write_text(json.dumps({"events": finished}, ensure_ascii=False))
    assert verify(json.loads(path.read_text())["events"])["ok"]

"""The rating table's model (bench/ratings.py): the fit finds the strengths that made the
scores, the field and the role counted; each deal is replayed with the seats rotated, as in
the ladder, and a ladder run cut short resumes from its journal. The command itself runs in
tests/test_bench_smoke.py."""

from __future__ import annotations

import math

import pytest

from bench import ladder, ratings
from bench.ladder import rotation


def _expected(truth: dict[str, float], field: int, role: float, n: int, roles: bool) -> dict:
    names = list(truth)
    return {
        (a, b): (n, n * ratings._p(truth[a], truth[b], field, role))
        for a in names
        for b in names
        if a != b or roles
    }


def test_the_fit_finds_the_strengths_behind_the_scores():
    """One strong seat against three others (Batak ihaleli): a level as strong as the field
    wins a quarter of the games, and the fit reads the field right."""
    truth = {"random": -1.5, "greedy": 0.0, "strong": 0.8}
    fitted, role = ratings.fit(_expected(truth, 3, 0.0, 100_000, False), list(truth), 3, False)
    assert all(math.isclose(fitted[n], truth[n], abs_tol=0.01) for n in truth), fitted
    assert role == 0.0
    assert math.isclose(ratings._p(0.0, 0.0, 3, 0.0), 0.25)


def test_the_fit_tells_a_role_from_the_levels():
    """BatailleRoylet: the King's side has a factor of its own, read from every level's games
    as the King and as an Ally."""
    truth = {"random": -1.0, "greedy": 0.0, "strong": 1.2}
    scores = _expected(truth, 1, -0.9, 100_000, True)
    fitted, role = ratings.fit(scores, list(truth), 1, True)
    assert all(math.isclose(fitted[n], truth[n], abs_tol=0.01) for n in truth), fitted
    assert math.isclose(role, -0.9, abs_tol=0.01)


def test_a_level_that_never_lost_has_a_finite_rating():
    scores = {("strong", "random"): (50, 50.0), ("random", "strong"): (50, 0.0)}
    fitted, _ = ratings.fit(scores, ["random", "strong"], 1, False)
    assert 0 < fitted["strong"] - fitted["random"] < 10


def test_a_level_that_never_won_is_only_bounded_from_above():
    """A level that lost all its games has no finite strength (the prior alone would give it
    one, with a bootstrap interval as narrow as it is meaningless): the table gives no
    estimate, and an upper bound from its cells: with 0 wins of 100 against greedy (one
    opponent), a chance of at most 1 - 0.05^(1/100), about 3%, so about -607 Elo."""
    case = next(c for c in ratings.CASES if c.name == "batak_esli")
    games = {
        ("random", "greedy"): [0.0] * 100,
        ("greedy", "random"): [1.0] * 100,
        ("greedy", "strong"): [1.0] * 30 + [0.0] * 70,
        ("strong", "greedy"): [1.0] * 70 + [0.0] * 30,
    }
    rated = ratings.table(case, ["random", "greedy", "strong"], games, boots=20, seed=0)
    random_level = rated["ratings"]["random"]
    assert random_level["elo"] is None and random_level["never"] == "won"
    p = 1 - 0.05 ** (1 / 100)
    assert random_level["interval95"] == [None, round(ratings.elo(math.log(p / (1 - p))))]
    assert random_level["interval95"][1] == -607
    strong = rated["ratings"]["strong"]
    assert strong["elo"] > 0 and "never" not in strong


def test_each_deal_is_replayed_with_the_side_rotated():
    """A lone seat goes round the table, a pair (Batak eşli) moves by one seat; a role (the
    King) keeps its seats, a new deal each game."""
    assert [rotation(4, [0], i) for i in range(5)] == [
        ({0}, 0),
        ({1}, 0),
        ({2}, 0),
        ({3}, 0),
        ({0}, 1),
    ]
    assert [rotation(4, [0, 2], i) for i in range(3)] == [({0, 2}, 0), ({1, 3}, 0), ({0, 2}, 1)]
    assert rotation(3, [0], 5, rotate=False) == ({0}, 5)


def test_a_ladder_run_cut_short_resumes_from_its_journal(tmp_path, monkeypatch):
    """The games a journal holds are not played again, a resumed run counts them, and games
    another `service/` tree played are refused."""
    journal = tmp_path / "games.jsonl"
    target = next(t for t in ladder.TARGETS if t[0] == "bataille_ouverte")
    monkeypatch.setattr(ladder, "_service_tree", lambda: "tree-a")
    first = ladder.measure(target, 2, 1, b"a test seed", journal)
    played = []
    monkeypatch.setattr(ladder, "_one", lambda work: played.append(work[5]) or _row(work[5]))
    resumed = ladder.measure(target, 3, 1, b"a test seed", journal)
    assert played == [2] and resumed["from_journal"] == 2 and first["from_journal"] == 0
    assert resumed["games"] == 3 and resumed["wins"] == first["wins"] + 1
    assert len(journal.read_text().splitlines()) == 3
    monkeypatch.setattr(ladder, "_service_tree", lambda: "tree-b")
    with pytest.raises(SystemExit, match="other code"):
        ladder.measure(target, 3, 1, b"a test seed", journal)


def _row(index: int) -> dict:
    return {"index": index, "win": True, "draw": False, "reason": "last", "seconds": 0.0}

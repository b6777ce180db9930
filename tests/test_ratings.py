"""The rating table's model (bench/ratings.py): the fit finds the strengths that made the
scores, the field and the role counted; and the command runs end to end on a small table."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

from bench import ratings

ROOT = Path(__file__).resolve().parent.parent


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


def test_the_command_writes_its_table(tmp_path):
    out = tmp_path / "ratings.json"
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "ratings.py"),
            *("--only", "batak_esli", "--levels", "random,greedy", "--games", "4"),
            *("--boots", "20", "--out", str(out)),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    (case,) = json.loads(out.read_text())["cases"]
    assert {(c["level"], c["against"], c["games"]) for c in case["cells"]} == {
        ("random", "greedy", 4),
        ("greedy", "random", 4),
    }
    assert case["ratings"]["greedy"]["elo"] == 0
    lo, hi = case["ratings"]["random"]["interval95"]
    assert lo <= case["ratings"]["random"]["elo"] <= hi

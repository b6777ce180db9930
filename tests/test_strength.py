"""The bots' measured strength in `GET /v1/rules`: each ladder target from the newest full
measurement of the committed results, else the newest at all, with the commit it measured."""

from __future__ import annotations

import json
from pathlib import Path

from service.api import strength

RESULTS = Path(__file__).resolve().parent.parent / "bench" / "results"


def _target(name: str, wins: int, games: int) -> dict:
    return {
        "target": name,
        "game": "roylet",
        "options": {},
        "strong_seats": [0],
        "games": games,
        "wins": wins,
        "win_rate": wins / games,
        "interval95": [0.1, 0.9],
        "goal": 0.6,
        "met": False,
        "round_limit_share": 0.0,
    }


def _write(folder: Path, name: str, quick: bool, commit: str, *targets: dict) -> None:
    report = {"commit": commit, "date": name[7:17], "quick": quick, "targets": list(targets)}
    (folder / name).write_text(json.dumps(report))


def test_each_target_comes_from_the_newest_full_measurement_else_the_newest(tmp_path):
    _write(tmp_path, "ladder-2026-01-01.json", False, "a", _target("king", 240, 400))
    _write(tmp_path, "ladder-2026-01-02-quick.json", True, "b", _target("king", 20, 24))
    _write(tmp_path, "ladder-2026-01-02-small.json", False, "c", _target("allies", 10, 30))
    _write(tmp_path, "ladder-2026-01-01-quick.json", True, "d", _target("allies", 9, 24))
    _write(tmp_path, "ladder-notes.json", False, "e", _target("king", 1, 1))  # not a result
    paths = strength.files((tmp_path / "none", tmp_path))
    assert [p.name for p in paths] == [
        "ladder-2026-01-02-small.json",
        "ladder-2026-01-02-quick.json",
        "ladder-2026-01-01.json",
        "ladder-2026-01-01-quick.json",
    ]
    chosen = {
        t["target"]: (t["games"], report["commit"]) for t, report, _ in strength.targets(paths)
    }
    # a newer small run does not replace a full one; without a full one, the newest shows
    assert chosen == {"king": (400, "a"), "allies": (30, "c")}


def test_the_rules_show_each_game_its_measured_strength(svc):
    games = {g["id"]: g for g in svc.client.get("/v1/rules").json["games"]}
    expected = strength.targets(strength.files((RESULTS,)))
    assert expected, "the ladder's results are committed"
    shown = [(g, s["target"], s["commit"]) for g in games for s in games[g]["strength"]]
    # a target measured again later in its file's day names its own commit and date
    assert sorted(shown) == sorted(
        (t["game"], t["target"], t.get("commit", r["commit"])) for t, r, _ in expected
    )
    for t, report, path in expected:
        (entry,) = [s for s in games[t["game"]]["strength"] if s["target"] == t["target"]]
        assert entry["level"] in games[t["game"]]["bots"] and entry["against"] == "greedy"
        assert (entry["wins"], entry["games"], entry["interval95"]) == (
            t["wins"],
            t["games"],
            t["interval95"],
        )
        whole = strength.full(report, path)
        assert entry["quick"] is not whole and entry["date"] == t.get("date", report["date"])
        assert entry["met"] == (whole and t["interval95"][0] >= t["goal"])

"""The bots' measured strength, as `GET /v1/rules` shows it, from the ladder's committed results
(`bench/results/ladder-<date>[-quick|-small].json`, by bench/ladder.py, each naming its commit).

A target is a level in one role's seats against `greedy` in the others: a win rate, its 95%
interval over n games, and a goal met when the interval's lower end reaches it at the ladder's
own n (docs/bots.md#measured-strength). Each target comes from the newest full measurement,
else the newest file that has it. A checkout keeps the files in bench/results; a built package
carries a copy in `service/ladder/` (setup.py). None found: no strength is shown.
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import Any

_HERE = Path(__file__).resolve().parent
FOLDERS = (_HERE.parent.parent / "bench" / "results", _HERE.parent / "ladder")
NAME = re.compile(r"^ladder-(?P<date>\d{4}-\d{2}-\d{2})(?P<kind>-[a-z]+)?\.json$")
_RANK = {None: 2, "-quick": 0}  # a day's full run first, its quick one last
SHOWN = ("games", "wins", "win_rate", "interval95", "goal", "round_limit_share")


def files(folders: tuple[Path, ...] = FOLDERS) -> list[Path]:
    """The ladder's result files of the first folder that has any, the newest first (of one day:
    a full run, then a partial one, then a quick one)."""
    for folder in folders:
        found = [(NAME.match(p.name), p) for p in folder.glob("ladder-*.json")]
        dated = [(m, p) for m, p in found if m]
        if dated:
            dated.sort(key=lambda mp: (mp[0]["date"], _RANK.get(mp[0]["kind"], 1)), reverse=True)
            return [p for _, p in dated]
    return []


def full(report: dict, path: Path) -> bool:
    """Whether a file measured at the ladder's own n (not `--quick`, not a `-small` run)."""
    found = NAME.match(path.name)
    return not report.get("quick") and found is not None and found["kind"] is None


def targets(paths: list[Path]) -> list[tuple[dict, dict, Path]]:
    """(target, its file's report, the file) for each target: from the newest full measurement
    (a file that is neither quick nor `-small`), else the newest at all."""
    chosen: dict[str, tuple[dict, dict, Path]] = {}
    settled: set[str] = set()  # the targets chosen from a full measurement
    for path in paths:
        report = json.loads(path.read_text(encoding="utf-8"))
        whole = full(report, path)
        for t in report["targets"]:
            name = t["target"]
            if name in settled or (name in chosen and not whole):
                continue
            chosen[name] = (t, report, path)
            if whole:
                settled.add(name)
    return list(chosen.values())


@functools.cache
def measured() -> dict[str, list[dict[str, Any]]]:
    """By game: each target of the ladder as the rules show it."""
    out: dict[str, list[dict[str, Any]]] = {}
    for t, report, path in targets(files()):
        whole = full(report, path)
        out.setdefault(t["game"], []).append(
            {
                "target": t["target"],
                # the ladder has always measured `strong` against `greedy`
                "level": t.get("level", "strong"),
                "against": t.get("against", "greedy"),
                "options": t["options"],
                "seats": t["strong_seats"],
                **{k: t[k] for k in SHOWN},
                # a goal is met only at the ladder's own n, fixed in advance
                "met": t["met"] and whole,
                "quick": not whole,
                # a target measured again later in the day names its own commit and date
                "commit": t.get("commit", report["commit"]),
                "date": t.get("date", report["date"]),
            }
        )
    return out

"""docs/performance.md, made from the result files: `python bench/report.py > docs/performance.md`.

The words are `bench/performance.md.in`; each `<!-- results: BENCH -->` line in it (or
`<!-- results: BENCH: TABLE -->` for one table of a bench that keeps several) becomes the
current result of that benchmark: the newest file `bench/results/BENCH-<date>[-quick].json`,
a full run before a quick one of the same day, with its command and its tables. The strong
bots' ladder has a table of its own making: each target at full n where measured, else from
the newest quick run.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH.parent))

from service.api import strength  # noqa: E402 - the ladder's targets, as the rules show them

RESULTS = BENCH / "results"
TEMPLATE = BENCH / "performance.md.in"
PLACE = re.compile(r"^<!-- results: ([\w-]+)(?:: (.+?))? -->$")
NAME = re.compile(r"^(?P<bench>.+?)-(?P<date>\d{4}-\d{2}-\d{2})(?P<quick>-quick)?\.json$")
QUICK = (
    "a quick run: the bench's phases at tiny sizes, which says that they run, not whether a "
    "target is met"
)


def files(bench: str) -> list[Path]:
    """The result files of a bench, the current one first (newest; full before quick)."""
    found = [(NAME.match(p.name), p) for p in RESULTS.glob("*.json")]
    mine = [(m, p) for m, p in found if m and m["bench"] == bench]
    mine.sort(key=lambda mp: (mp[0]["date"], not mp[0]["quick"]), reverse=True)
    return [p for _, p in mine]


def source(path: Path, result: dict) -> str:
    rel = path.relative_to(BENCH.parent).as_posix()
    line = f"Source: [`{rel}`](../{rel})"
    if command := result.get("command"):
        line += f", made by `{command}`"
    if result.get("quick"):
        line += f" ({QUICK})"
    return line + "."


def markdown_table(columns: list[str], rows: list[list[str]]) -> list[str]:
    def cells(row: list[str]) -> str:
        return "| " + " | ".join(str(c).strip().replace("|", "\\|") for c in row) + " |"

    return [cells(columns), "|" + "---|" * len(columns), *(cells(r) for r in rows)]


def results(bench: str, title: str | None) -> list[str]:
    paths = files(bench)
    if not paths:
        return [f"No result of `{bench}` is recorded yet (`--out` keeps one in `bench/results/`)."]
    result = json.loads(paths[0].read_text(encoding="utf-8"))
    tables = [t for t in result["tables"] if title is None or t["title"] == title]
    if not tables:
        raise SystemExit(f"{paths[0].name}: no table {title!r}")
    out = [source(paths[0], result)]
    for table in tables:
        out += ["", *markdown_table(table["columns"], table["rows"])]
    return out


def ladder() -> list[str]:
    """One row a target, as `GET /v1/rules` shows it (service/api/strength.py)."""
    chosen = strength.targets(strength.files((RESULTS,)))
    if not chosen:
        return ["No ladder result is recorded yet (`python bench/ladder.py` keeps one)."]
    rows: list[list[str]] = []
    used: list[Path] = []
    for t, report, path in chosen:
        low, high = t["interval95"]
        whole = strength.full(report, path)
        met = "yes" if t["met"] and whole else "no"
        if not whole and t["win_rate"] >= t["goal"]:
            met = "not shown (n too small)"
        rows.append(
            [
                t["target"],
                f">= {t['goal']:.0%}",
                f"{t['wins']}/{t['games']}",
                f"{t['win_rate']:.1%}",
                f"[{low:.1%}, {high:.1%}]",
                met,
                f"{t['round_limit_share']:.1%}",
                f"`{path.name}`",
            ]
        )
        if path not in used:
            used.append(path)
    columns = ["target", "goal", "wins / n", "rate", "95% interval", "met?", "round limit", "file"]
    for path in used:  # what a file measured without a goal (every seat strong, say)
        for t in json.loads(path.read_text(encoding="utf-8")).get("reported", []):
            low, high = t["interval95"]
            rows.append(
                [
                    f"{t['target']} (against {t['against']})",
                    "reported",
                    f"{t['wins']}/{t['games']}",
                    f"{t['win_rate']:.1%}",
                    f"[{low:.1%}, {high:.1%}]",
                    "-",
                    f"{t['round_limit_share']:.1%}",
                    f"`{path.name}`",
                ]
            )
    links = ", ".join(f"[`{p.name}`](../{p.relative_to(BENCH.parent).as_posix()})" for p in used)
    return [f"Sources: {links}.", "", *markdown_table(columns, rows), *_ladder_time(used)]


def _ladder_time(paths: list[Path]) -> list[str]:
    """How long a complete run of the ladder took: its targets' seconds, and its reported
    measurements' (made in the same run, or after it at the same code)."""
    for path in paths:
        report = json.loads(path.read_text(encoding="utf-8"))
        if report.get("complete"):
            targets = sum(t["seconds"] for t in report["targets"])
            reported = sum(t["seconds"] for t in report.get("reported", []))
            return [
                "",
                f"The complete run in `{path.name}` took {targets / 60:.0f} minutes for its "
                f"targets and {reported / 60:.0f} for what it reports, on the machine that ran it.",
            ]
    return []


def render() -> str:
    out = []
    for line in TEMPLATE.read_text(encoding="utf-8").splitlines():
        if m := PLACE.match(line.strip()):
            out += ladder() if m[1] == "ladder" else results(m[1], m[2])
        else:
            out.append(line)
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.stdout.write(render())

"""A benchmark's result as data: `bench/results/<bench>-<date>[-quick].json`.

Each file names the bench, the command that made it, the date and the commit measured, whether
it was a quick (smoke) run, its tables as printed and the raw figures behind them.
`bench/report.py` makes docs/performance.md from these files: the history of the figures is
the files, not prose.
"""

from __future__ import annotations

import datetime
import json
import platform
import subprocess
import sys
from pathlib import Path

FOLDER = Path(__file__).resolve().parent / "results"


def commit() -> str:
    """The commit measured (with `+` when the code has changes not committed), or `unknown`."""
    try:
        head = _git("rev-parse", "HEAD")
        # the results themselves do not count as a change to the code measured
        dirty = _git("status", "--porcelain", "--untracked-files=no", "--", ".", ":!bench/results")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+" if dirty else "")


def _git(*args: str) -> str:
    out = subprocess.run(
        ["git", *args], capture_output=True, text=True, check=True, cwd=FOLDER.parent.parent
    )
    return out.stdout.strip()


def table(title: str, columns: tuple[str, ...], rows: list[tuple[str, ...]]) -> dict:
    return {"title": title, "columns": list(columns), "rows": [list(r) for r in rows]}


def command(script: str, argv: list[str]) -> str:
    """The command line that reproduces a run: the script and its flags but `--out`."""
    kept, skip = [], False
    for arg in argv:
        if skip:
            skip = False
        elif arg == "--out":
            skip = True
        elif not arg.startswith("--out="):
            kept.append(arg)
    return " ".join(["python", script, *kept])


def record(
    bench: str, script: str, quick: bool, tables: list[dict], data: dict, out: str | None
) -> Path:
    """Write the result file (`out`, or the default name in bench/results/) and say where."""
    today = datetime.datetime.now(datetime.UTC).date().isoformat()
    path = Path(out) if out else FOLDER / f"{bench}-{today}{'-quick' if quick else ''}.json"
    report = {
        "bench": bench,
        "command": command(script, sys.argv[1:]),
        "date": today,
        "commit": commit(),
        "quick": quick,
        "python": platform.python_version(),
        "tables": tables,
        "data": data,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=2, default=str) + "\n")
    print(f"wrote {path}")
    return path


def add_flag(parser) -> None:
    """`--out [PATH]`: write the result file (by default bench/results/<bench>-<date>.json)."""
    parser.add_argument(
        "--out",
        nargs="?",
        const="",
        default=None,
        metavar="PATH",
        help="write the result as JSON (default: bench/results/<bench>-<date>[-quick].json)",
    )

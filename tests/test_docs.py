"""The docs stay true: their links resolve, their prose carries no history, and the shell
walkthroughs marked runnable run against a real server.

- **Links.** Every relative link and image of `README.md`, `CONTRIBUTING.md`, `CHANGELOG.md`
  and `docs/**/*.md` names a file or folder of the repository and, with an anchor, a heading or
  explicit id of that page (the anchors as tests/test_citations.py makes them).
- **No history in prose.** `README.md`, `CONTRIBUTING.md` and `docs/` say what holds, not when
  it was found: no dates (YYYY-MM-DD), no commit ids, no "this box", "this session", "this
  round", "tonight", "the night" and the like. Code blocks are not prose, and a result file
  (`bench/results/ladder-2026-12-02.json`) may be named, its date in its name, in a link or
  not: the history is in those files (each carries its date and commit), which is where a
  reader is sent for it.
- **Runnable blocks.** A fenced block whose info string is `sh run` runs in bash against a
  `batayo serve` of the test's own (embedded store), `localhost:8000` pointing at it. Its
  placeholders are filled from a game the test creates for the page: `ID`/`$GAME` its id,
  `TOKEN`/`$TOKEN` its first seat's token. Every `curl` must get a 2xx (a live stream, `-N`, is
  cut after a moment). Install blocks are never marked: CI's own install runs them.
- **Runnable Python.** The blocks fenced as `python run` of a page make one script, run top to
  bottom with the tests' own Python against that server (`http://127.0.0.1:8000` and
  `http://localhost:8000` pointing at it): it must end on its own, within a minute, and exit 0.
- **Code from a file.** A block whose info string names a file (```` ```python
  file=tests/support/toy.py ````) is a piece of that file, word for word: docs/new-game.md's
  worked example is the toy game the tests play. That page names every part of a `Game`.
- **Performance.** docs/performance.md is `python bench/report.py`'s output, made from the
  result files in `bench/results/`, each of which names its date and the commit it measured.
- **Release.** CHANGELOG.md has an entry for the version in `pyproject.toml`.
- **Settings.** docs/settings.md against the settings object: tests/test_settings.py.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.support.serving import call, serve
from tests.test_citations import anchors

ROOT = Path(__file__).resolve().parent.parent
FENCE = re.compile(r"^\s*(```|~~~)")
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
CODE_SPAN = re.compile(r"(`+).*?\1")
RESULT_FILE = re.compile(r"\b[\w.-]+-\d{4}-\d{2}-\d{2}(-[a-z]+)?\.json\b")  # bench/results/
DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
# an abbreviated commit id (7 to 12 hex digits, with a digit and a letter) or a full one
COMMIT = re.compile(r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)(?:[0-9a-f]{7,12}|[0-9a-f]{40})\b")
SESSION = re.compile(
    r"\b(this (box|session|round|evening|morning|night)|tonight|(the|last) night|yesterday)\b",
    re.IGNORECASE,
)
RUNNABLE = "sh run"
RUNNABLE_PYTHON = "python run"


def pages() -> list[Path]:
    found = [ROOT / name for name in ("README.md", "CONTRIBUTING.md", "CHANGELOG.md")]
    return [p for p in found if p.is_file()] + sorted((ROOT / "docs").rglob("*.md"))


def prose_pages() -> list[Path]:
    return [p for p in pages() if p.name != "CHANGELOG.md"]


def rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def prose(path: Path) -> list[tuple[int, str]]:
    """The page's lines outside fenced blocks, numbered."""
    out, fenced = [], False
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            out.append((n, line))
    return out


def blocks(path: Path) -> list[tuple[int, str, str]]:
    """Every fenced block of a page: its first line's number, its info string, its text."""
    out, info, start, body = [], None, 0, []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if m := FENCE.match(line):
            if info is None:
                info, start, body = line[m.end() :].strip(), n, []
            else:
                out.append((start, info, "\n".join(body)))
                info = None
        elif info is not None:
            body.append(line)
    return out


def test_every_relative_link_and_anchor_resolves():
    bad = []
    for path in pages():
        for n, line in prose(path):
            for m in LINK.finditer(CODE_SPAN.sub("", line)):
                target, _, anchor = m[1].partition("#")
                if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("/"):
                    continue  # another site, or a path of the running service
                where = (path.parent / target).resolve() if target else path
                if not where.exists() or not where.is_relative_to(ROOT):
                    bad.append(f"{rel(path)}:{n}: {m[1]}: no such file")
                elif anchor and (where.suffix != ".md" or anchor not in anchors(where)):
                    bad.append(f"{rel(path)}:{n}: {m[1]}: no anchor #{anchor}")
    assert not bad, "links that do not resolve:\n" + "\n".join(bad)


def test_the_prose_carries_no_dates_commits_or_sessions():
    bad = []
    for path in prose_pages():
        for n, line in prose(path):
            text = RESULT_FILE.sub("", line)
            for pattern in (DATE, COMMIT, SESSION):
                bad += [f"{rel(path)}:{n}: {m[0]!r}" for m in pattern.finditer(text)]
    assert not bad, (
        "say what holds, and leave when it was measured to bench/results/*.json:\n" + "\n".join(bad)
    )


def test_a_block_taken_from_a_file_is_in_that_file_word_for_word():
    checked, bad = 0, []
    for path in pages():
        for n, info, text in blocks(path):
            if m := re.search(r"\bfile=(\S+)", info):
                source = ROOT / m[1]
                checked += 1
                if not source.is_file() or text not in source.read_text(encoding="utf-8"):
                    bad.append(f"{rel(path)}:{n}: not in {m[1]}")
    assert checked, "no block names its file"
    assert not bad, "blocks that no longer match their file:\n" + "\n".join(bad)


def test_the_new_game_guide_names_every_part_of_a_game():
    from service.core.game import Game

    text = (ROOT / "docs/new-game.md").read_text(encoding="utf-8")
    parts = [f.name for f in dataclasses.fields(Game) if f.init]
    missing = [p for p in parts if f"`{p}" not in text]
    assert not missing, f"docs/new-game.md does not name {missing}"


def test_the_performance_page_is_made_from_the_result_files():
    spec = importlib.util.spec_from_file_location("bench_report", ROOT / "bench/report.py")
    report = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(report)
    page = (ROOT / "docs/performance.md").read_text(encoding="utf-8")
    assert page == report.render(), "run `python bench/report.py > docs/performance.md`"


def test_every_result_file_names_its_date_and_commit():
    bad = []
    for path in sorted((ROOT / "bench/results").glob("*.json")):
        result = json.loads(path.read_text(encoding="utf-8"))
        named = re.search(r"\d{4}-\d{2}-\d{2}", path.name)
        if not named or result.get("date") != named[0]:
            bad.append(f"{path.name}: date {result.get('date')!r}, not the one of its name")
        if not re.fullmatch(r"[0-9a-f]{40}\+?", str(result.get("commit"))):
            bad.append(f"{path.name}: commit {result.get('commit')!r}")
    assert not bad, "\n".join(bad)


def test_the_changelog_has_an_entry_for_the_version():
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert re.search(rf"^## \[{re.escape(version)}\]", changelog, re.M), (
        f"CHANGELOG.md has no entry for {version}, the version in pyproject.toml"
    )


def runnable() -> list[tuple[Path, int, str]]:
    return [
        (path, n, text) for path in pages() for n, info, text in blocks(path) if info == RUNNABLE
    ]


def test_the_walkthroughs_are_marked_runnable():
    """The curl walkthroughs of the README and the API guide run (tolerant of more pages)."""
    marked = {rel(path) for path, _, _ in runnable()}
    assert {"README.md", "docs/api.md"} <= marked, marked


# The game each page's placeholders come from: the one its walkthrough creates (a person and
# a bot at Bataille in the README; the API guide's Batak with a seat open for its join).
GAMES = {
    "README.md": {"game": "bataille", "seats": [{"name": "Ana"}, {"bot": "greedy"}]},
}
DEFAULT_GAME = {
    "game": "batak",
    "options": {"deals": 3},
    "seats": [
        {"name": "Ana", "client_seed": "anything I like"},
        {"bot": "expert"},
        {"bot": "greedy"},
        {"open": True},
    ],
}

# curl fails on an HTTP error; a live stream (-N) is cut after a moment, which is no failure
CURL = r"""
set -euo pipefail
curl() {
  local rc=0
  if [[ " $* " =~ \ -[a-zA-Z]*N[a-zA-Z]*\  ]]; then
    command curl --fail-with-body --max-time 1 "$@" || rc=$?
    [[ $rc == 28 ]] && rc=0
  else
    command curl --fail-with-body --max-time 30 "$@" || rc=$?
  fi
  return $rc
}
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    if not shutil.which("curl"):
        pytest.skip("no curl to run the walkthroughs with")
    running = serve(tmp_path_factory.mktemp("docs"))
    yield running
    running.stop()


@pytest.mark.parametrize(
    "path,line,text", runnable(), ids=[f"{rel(p)}:{n}" for p, n, _ in runnable()]
)
def test_a_runnable_block_runs(server, tmp_path, path, line, text):
    status, created, _ = call(server.port, "POST", "/v1/games", GAMES.get(rel(path), DEFAULT_GAME))
    assert status == 201, created
    values = {"GAME": created["id"], "TOKEN": created["seats"][0]["token"]}
    script = text.replace("localhost:8000", f"127.0.0.1:{server.port}")
    script = re.sub(r"\$\{?(GAME|TOKEN)\}?", lambda m: values[m[1]], script)
    script = re.sub(r"\bID\b", values["GAME"], script)
    script = re.sub(r"\bTOKEN\b", values["TOKEN"], script)
    out = subprocess.run(
        ["bash", "-c", CURL + script],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert out.returncode == 0, f"{rel(path)}:{line}\n{script}\n{out.stdout}\n{out.stderr}"


def python_walkthroughs() -> list[Path]:
    return [p for p in pages() if any(info == RUNNABLE_PYTHON for _, info, _ in blocks(p))]


def test_the_python_walkthrough_is_marked_runnable():
    assert "docs/api.md" in {rel(p) for p in python_walkthroughs()}


@pytest.mark.parametrize("path", python_walkthroughs(), ids=rel)
def test_a_python_walkthrough_runs_top_to_bottom_and_ends(server, tmp_path, path):
    """A reader who pastes the page's Python into one file and runs it is not left waiting:
    the script ends on its own (a game played far enough to show each call) and succeeds."""
    script = "\n".join(text for _, info, text in blocks(path) if info == RUNNABLE_PYTHON)
    script = re.sub(
        r"http://(127\.0\.0\.1|localhost):8000", f"http://127.0.0.1:{server.port}", script
    )
    out = subprocess.run(
        [sys.executable, "-c", script],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert out.returncode == 0, f"{rel(path)}\n{out.stdout}\n{out.stderr}"

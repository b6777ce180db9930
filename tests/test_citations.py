"""Citations of the docs resolve in a clone of the repository alone.

Code, tests, bench and docs cite the rules as `docs/rules/<game>.md#rule-N` and the other pages
as `docs/<page>.md#<section>`. Every such citation must name a file that exists and, with an
anchor, a heading (anchored as GitHub does) or an explicit `<a id=...>` / `{#id}` of that file.
The pages the project once cited from outside the repository (the upper-case RULES, FAIRNESS,
API and DESIGN pages) are cited no more. The games' scenario tests keep citing their rules,
and every rule number a game's short summary (texts.py) uses is a numbered rule of its page.

Files others own for now (the viewer's static files, the bots) are left out of
the check of the old names; their citations of docs/ are checked like any other.
"""

from __future__ import annotations

import os
import re
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GAMES = ("bataille", "batak", "batayo", "roylet")

SCANNED = {".py", ".md", ".js", ".ts", ".yaml", ".yml", ".toml"}
SKIP_DIRS = {".git", ".venv", "venv", "node_modules", "__pycache__", "build", "dist"}
# not scanned at all: the viewer's static files and vendored third-party code
SKIP_TREES = ("service/web/static/", "tests/support/vendor/")
# scanned for docs/ citations, but still allowed the old upper-case names: files others are
# editing now (the bots, the ladder bench) and this test itself
OLD_NAMES_ALLOWED = re.compile(
    r"^(service/games/[^/]+/bots\.py|service/core/bots\.py|bench/ladder\.py"
    r"|tests/test_citations\.py)$"
)

CITATION = re.compile(r"(?<![\w./-])(docs/[\w./-]*?\.md)(?:#([\w-]+))?")
LINK = re.compile(r"\]\(([^)\s#]*\.md)?(?:#([\w-]+))?\)")  # a relative markdown link
OLD = re.compile(r"(?<![\w/.-])(RULES|FAIRNESS|API|DESIGN)\.md\b")
RULE_CITED = re.compile(r"(#rule-|\brules? |\bpoint )\d+", re.IGNORECASE)

# Rule citations in each game's scenario tests when this test was written: a floor, so that
# a rewrite of the tests does not quietly drop what they say they check.
SCENARIO_FLOOR = {
    "tests/test_bataille_rules.py": 15,
    "tests/test_batak_rules.py": 24,
    "tests/test_batayo_rules.py": 21,
    "tests/test_batayo_time_rules.py": 13,
    "tests/test_roylet_rules.py": 28,
}


def sources() -> list[Path]:
    found = []
    for top, dirs, files in os.walk(ROOT):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS and not d.endswith(".egg-info")]
        for name in files:
            path = Path(top) / name
            rel = path.relative_to(ROOT).as_posix()
            if path.suffix in SCANNED and not rel.startswith(SKIP_TREES):
                found.append(path)
    return sorted(found)


def slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it: markup dropped, lower case, punctuation
    dropped, each space a hyphen."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link: its text
    text = re.sub(r"<[^>]+>", "", text).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


@cache
def anchors(path: Path) -> frozenset[str]:
    """Every anchor a markdown file has: its headings' (numbered when repeated, as GitHub
    does) and its explicit ids."""
    found: set[str] = set()
    seen: dict[str, int] = {}
    fenced = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if fenced:
            continue
        found.update(re.findall(r"<a\s+(?:id|name)=\"([^\"]+)\"", line))
        found.update(re.findall(r"\{#([\w-]+)\}", line))
        if m := re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line):
            heading = re.sub(r"\s*\{#[\w-]+\}", "", m[1])
            base = slug(heading)
            n = seen.get(base, 0)
            seen[base] = n + 1
            found.add(base if n == 0 else f"{base}-{n}")
    return frozenset(found)


def unresolved(target: Path, anchor: str | None) -> str | None:
    if not target.is_file():
        return "no such file"
    if anchor and anchor not in anchors(target):
        return f"no anchor #{anchor}"
    return None


def test_every_citation_of_a_docs_page_resolves():
    bad = []
    for path in sources():
        rel = path.relative_to(ROOT).as_posix()
        text = path.read_text(encoding="utf-8", errors="replace")
        for n, line in enumerate(text.splitlines(), 1):
            for m in CITATION.finditer(line):
                if why := unresolved(ROOT / m[1], m[2]):
                    bad.append(f"{rel}:{n}: {m[0]}: {why}")
            if path.suffix == ".md":  # relative links between the pages
                for m in LINK.finditer(line):
                    if m[1] and re.match(r"^[a-z]+:", m[1]):
                        continue
                    target = (path.parent / m[1]).resolve() if m[1] else path
                    if target.is_relative_to(ROOT) and (why := unresolved(target, m[2])):
                        bad.append(f"{rel}:{n}: ({m[1] or ''}#{m[2] or ''}): {why}")
    assert not bad, "citations that do not resolve:\n" + "\n".join(bad)


def test_the_pages_that_were_never_in_the_repository_are_cited_no_more():
    bad = []
    for path in sources():
        rel = path.relative_to(ROOT).as_posix()
        if OLD_NAMES_ALLOWED.match(rel):
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            bad += [f"{rel}:{n}: {m[0]}" for m in OLD.finditer(line)]
    assert not bad, (
        "cite docs/rules/<game>.md#rule-N, docs/rules/common.md, docs/fairness.md, docs/api.md "
        "or docs/architecture.md instead:\n" + "\n".join(bad)
    )


@pytest.mark.parametrize("game", GAMES)
def test_every_game_has_its_page_with_numbered_rules_and_its_options(game):
    from service.core.options import options_of
    from service.core.registry import GAMES as REGISTRY

    page = ROOT / "docs/rules" / f"{game}.md"
    assert page.is_file(), page
    assert "rule-1" in anchors(page), f"{page}: no #rule-1"
    text = page.read_text(encoding="utf-8")
    common = (ROOT / "docs/rules/common.md").read_text(encoding="utf-8")
    for option in options_of(REGISTRY.get(game)):
        assert f"`{option.name}`" in text or f"`{option.name}`" in common, (game, option.name)


def test_the_common_ground_has_its_sections():
    have = anchors(ROOT / "docs/rules/common.md")
    for anchor in ("stuck-games", "move-clocks", "round-limit", "event-budget", "abandoned-games"):
        assert anchor in have, anchor


@pytest.mark.parametrize("path", sorted(SCENARIO_FLOOR))
def test_the_scenario_tests_keep_citing_their_rules(path):
    cited = len(RULE_CITED.findall((ROOT / path).read_text(encoding="utf-8")))
    assert cited >= SCENARIO_FLOOR[path], f"{path}: {cited} rule citations, fewer than before"


@pytest.mark.parametrize("game", GAMES)
def test_every_rule_number_in_a_games_summary_is_a_rule_of_its_page(game):
    texts = (ROOT / "service/games" / game / "texts.py").read_text(encoding="utf-8")
    numbers = re.findall(r"(?:#rule-|\b(?:rules?|règles?|kural\w*)\s+)(\d+)", texts, re.I)
    have = anchors(ROOT / "docs/rules" / f"{game}.md")
    missing = sorted({n for n in numbers if f"rule-{n}" not in have}, key=int)
    assert not missing, f"{game}/texts.py cites rules {missing}, not on docs/rules/{game}.md"

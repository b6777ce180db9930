"""Comments and docstrings of `service/` and `workers/` say what and why, briefly: a module
docstring stays short, and no measurement sits in a comment or docstring (figures belong in
docs/performance.md with the command that reproduces them)."""

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MAX_MODULE_DOCSTRING_LINES = 8


# What a measurement looks like in prose. A unit alone names a setting's unit ("in ms",
# "LEVEL = 9", "10 s"): seconds are left out, as they are how timeouts are set.
FRACTION = r"(?:half|third|quarter|fifth|sixth|seventh|eighth|ninth|tenth|twelfth|twentieth|fiftieth|hundredth)s?"
COUNT = r"(?:\d[\d.]*|two|three|four|five|six|seven|eight|nine|ten|a few|few|several|hundreds?)"
MEASUREMENT = re.compile(
    "|".join(
        (
            r"\bpy-spy\b",  # a profile's share
            r"\bpaired runs?\b",  # a benchmark's protocol
            r"\d[\d,.]*\s*(?:µs|us|ns|ms)\b",  # a duration measured
            # a share measured; a confidence level ("95% interval") or a bound ("0%") is not
            r"\d[\d.]*\s*%\s+(?:of|more|less|fewer|smaller|larger|faster|slower|cheaper|off)\b",
            rf"\b{FRACTION} of\b[^.;:]{{0,60}}?\b(?:CPU|samples|memory|time)\b",  # a share in words
            rf"\b{COUNT}\s*(?:x|times)\s+(?:faster|slower|more|less|smaller|larger)\b",  # a ratio
            rf"\b{COUNT} (?:of )?(?:µs|ms|microseconds|milliseconds)\b",  # a duration in words
        )
    ),
    re.IGNORECASE,
)


def modules() -> list[Path]:
    return sorted((ROOT / "service").rglob("*.py")) + sorted((ROOT / "workers").rglob("*.py"))


def prose(source: str) -> list[tuple[int, str]]:
    """(line, text) of every comment and docstring of a module."""
    out = [
        (tok.start[0], tok.string)
        for tok in tokenize.generate_tokens(io.StringIO(source).readline)
        if tok.type == tokenize.COMMENT
    ]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                out.append((getattr(node, "lineno", 1), doc))
    return out


def test_module_docstrings_are_short() -> None:
    long = []
    for path in modules():
        doc = ast.get_docstring(ast.parse(path.read_text()), clean=False)
        if doc and len(doc.strip().splitlines()) > MAX_MODULE_DOCSTRING_LINES:
            long.append(f"{path.relative_to(ROOT)}: {len(doc.strip().splitlines())} lines")
    assert not long, "module docstrings over the bound:\n" + "\n".join(long)


def test_no_measurement_in_comments() -> None:
    found = []
    for path in modules():
        for line, text in prose(path.read_text()):
            for match in MEASUREMENT.finditer(" ".join(text.split())):
                found.append(f"{path.relative_to(ROOT)}:{line}: {match.group(0)!r}")
    assert not found, "measurements in comments or docstrings:\n" + "\n".join(found)


@pytest.mark.parametrize(
    ("text", "measured"),
    [
        ("a lock per action was a fiftieth of its CPU (py-spy)", True),
        ("35 against 70 µs", True),
        ("about a tenth of an action's server CPU", True),
        ("2% of an action", True),
        ("ran 6.6x faster", True),
        ("orjson, four times faster", True),
        ("CPU work of up to a few hundred ms", True),
        ("LEVEL = 9  # zstd's level: smaller archives than the default", False),
        ("its lifetime in ms", False),
        ("one blocking XREAD (10 s)", False),
        ("the Wilson interval (95% by default)", False),
        ("rates with their 95% Wilson interval", False),
        ("sound near 0% and 100%", False),
        ("14% more memory per event", True),
        ("half the pool", False),
    ],
)
def test_what_counts_as_a_measurement(text: str, measured: bool) -> None:
    assert bool(MEASUREMENT.search(text)) is measured

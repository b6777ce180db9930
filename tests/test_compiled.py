"""The compiled build (mypyc, from the same source) plays exactly the games the pure-Python
code plays: every game, simulated in a process that imports the compiled modules."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mypyc")

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from simulate import compiled_tree  # noqa: E402 - the bench's builder of the compiled tree

from service.sim.simulate import simulate  # noqa: E402

CASES = [
    ("bataille", {}, ["random"]),
    ("bataille", {"variant": "ouverte", "players": 3}, ["random", "greedy"]),
    ("bataille", {"gather": "ordered", "deck": 32}, ["greedy"]),
    ("batayo", {}, ["random", "greedy"]),
    ("batak", {"deals": 3}, ["greedy"]),
    ("roylet", {}, ["random"]),
]
NOW = "2026-01-01T00:00:00.000000Z"

PLAY = """
import json, sys
import service.core.command, service.games.bataille.rules
from service.sim.simulate import simulate
compiled = [m.__file__ for m in (service.core.command, service.games.bataille.rules)]
out = [simulate(g, 4, o, b, b"compiled", now=sys.argv[1])[1] for g, o, b in json.loads(sys.argv[2])]
print(json.dumps({"compiled": compiled, "finals": out}))
"""


def test_the_compiled_build_plays_the_same_games():
    tree = compiled_tree()
    out = subprocess.run(
        [sys.executable, "-c", PLAY, NOW, json.dumps(CASES)],
        capture_output=True,
        text=True,
        cwd=tree,  # its `service` first on the path
        timeout=600,
        check=True,
    )
    got = json.loads(out.stdout)
    assert all(f.endswith(".so") for f in got["compiled"]), got["compiled"]
    pure = [simulate(g, 4, o, b, b"compiled", now=NOW)[1] for g, o, b in CASES]
    assert got["finals"] == json.loads(json.dumps(pure))

"""Typed clients from the contract: what client authors generate from openapi.yaml
with third-party tools works without casts or dict round trips.

- TypeScript: openapi-typescript's output, used by clients/typescript/play.ts (a legal action
  posted as is with openapi-fetch, each game's table read through its fields, the stream's
  messages, and lines the types must refuse), compiles under `tsc --strict`.
- Python: openapi-python-client's package has a model for every game's view, table, actions,
  result and events, and parses what the server serves into them exactly (`to_dict()` gives
  back the very JSON).

The tools come from their registries (npm: clients/typescript/package.json, pinned; PyPI: the
test extra). Outside CI a missing tool skips its test; in CI (CI=true) it fails.
"""

from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest

from service.api.openapi import builtin
from service.api.openapi.game_parts import camel
from service.sim.table import Table
from tests.support.client import SPEC

ROOT = Path(__file__).resolve().parent.parent
TS = ROOT / "clients" / "typescript"
SHORT = {
    "bataille": {"deck": 32, "max_rounds": 30},
    "batak": {"deals": 3},
    "batayo": {"format": "express"},
    "roylet": {"rounds": 2},
}


def _tool(path: Path | None, what: str) -> Path:
    if path is not None and path.exists():
        return path
    if os.environ.get("CI"):
        pytest.fail(f"{what} is missing in CI")
    pytest.skip(f"{what} is not installed")


def test_the_typescript_client_compiles_under_tsc_strict(tmp_path):
    bin_ = TS / "node_modules" / ".bin"
    generate = _tool(
        bin_ / "openapi-typescript", "openapi-typescript (npm ci in clients/typescript)"
    )
    tsc = _tool(bin_ / "tsc", "typescript (npm ci in clients/typescript)")
    for name in ("play.ts", "tsconfig.json"):
        shutil.copy(TS / name, tmp_path / name)
    (tmp_path / "node_modules").symlink_to(TS / "node_modules")
    out = tmp_path / "build" / "schema.d.ts"
    subprocess.run([generate, SPEC, "-o", out], check=True, capture_output=True, cwd=tmp_path)
    checked = subprocess.run([tsc, "-p", tmp_path], capture_output=True, text=True, cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr


@pytest.fixture(scope="module")
def python_client(tmp_path_factory):
    """The package openapi-python-client generates from openapi.yaml, imported."""
    found = shutil.which("openapi-python-client", path=str(Path(sys.executable).parent))
    generate = _tool(Path(found) if found else None, "openapi-python-client")
    where = tmp_path_factory.mktemp("python-client")
    config = where / "config.yaml"
    config.write_text("package_name_override: batayo_api\npost_hooks: []\n")
    command = [generate, "generate", "--path", SPEC, "--output-path", where / "batayo_api"]
    out = subprocess.run(
        [*command, "--meta", "none", "--config", config],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "Unable to process" not in out.stdout + out.stderr, out.stdout  # nothing dropped
    sys.path.insert(0, str(where))
    try:
        yield importlib.import_module("batayo_api.models")
    finally:
        sys.path.remove(str(where))
        for name in [m for m in sys.modules if m.startswith("batayo_api")]:
            del sys.modules[name]


@pytest.mark.parametrize("game", sorted(builtin()))
def test_the_python_client_has_typed_models_for_every_game(python_client, game):
    p = camel(game)
    models = python_client
    table = Table(game, SHORT[game], seed=b"\x05" * 32, game_id="00000000000000ab")
    seats = [None, *range(len(table.state["seats"]))]
    for step in range(40):
        if table.state["status"] != "playing":
            break
        if step % 8 == 0:
            for seat in seats:
                view = table.view(seat)
                typed = getattr(models, f"{p}View").from_dict(view)
                assert type(typed.table).__name__ == f"{p}Table"
                assert all(type(a).__name__.startswith(f"{p}Action") for a in typed.legal_actions)
                assert typed.to_dict() == view
        table.bot_move(table.game.to_move(table.state)[0])
    table.play_out()
    final = getattr(models, f"{p}View").from_dict(table.view(None))
    assert type(final.result).__name__ == f"{p}Result" and final.to_dict() == table.view(None)
    for seat in seats:
        shown = [table.shown(e, seat) for e in table.events]
        body = {"game": game, "events": shown, "next_after": None}
        page = getattr(models, f"{p}EventsPage").from_dict(body)
        for other in builtin():  # the answer's game picks the page's type in a union
            if other != game:
                with pytest.raises(ValueError):
                    getattr(models, f"{camel(other)}EventsPage").from_dict(body)
        kinds = {type(e).__name__ for e in page.events}
        assert kinds == {f"{p}Event{camel(e['type'])}" for e in shown}, kinds
        again = page.to_dict()["events"]
        for event, typed in zip(shown, again, strict=True):  # times come back as datetimes
            assert datetime.fromisoformat(typed.pop("at")) == datetime.fromisoformat(event["at"])
            assert typed == {k: v for k, v in event.items() if k != "at"}

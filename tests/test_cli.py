"""The `batayo` command: simulate, verify, and what serve says when it starts (its signatures:
tests/test_signing.py)."""

from __future__ import annotations

import json
import urllib.request

from click.testing import CliRunner

from service.cli import main
from service.cli.serving import site_url
from service.sim.table import Table
from tests.support.serving import serve

SIMULATE = [
    "simulate",
    "bataille",
    "--games",
    "6",
    "--seats",
    "random,greedy",
    "--option",
    "deck=32",
    "--option",
    "max_rounds=300",
    "--seed",
    "ab",
    "--json",
]


def test_simulate_json_has_exactly_the_documented_fields():
    out = CliRunner().invoke(main, SIMULATE)
    assert out.exit_code == 0, out.output
    summary = json.loads(out.output)
    assert set(summary) == {"games", "rounds", "wins", "draws", "reasons", "games_per_s"}
    assert set(summary["rounds"]) == {"mean", "median", "min", "max"}
    assert summary["games"] == 6
    assert sum(summary["wins"].values()) + summary["draws"] == 6
    assert sum(summary["reasons"].values()) == 6
    assert summary["rounds"]["min"] <= summary["rounds"]["median"] <= summary["rounds"]["max"]
    same = {k: v for k, v in summary.items() if k != "games_per_s"}
    for jobs in ("1", "3"):  # same seed, same games, on any number of processes
        again = json.loads(CliRunner().invoke(main, [*SIMULATE, "--jobs", jobs]).output)
        assert {k: v for k, v in again.items() if k != "games_per_s"} == same


def test_simulate_refuses_bad_options_and_bots():
    runner = CliRunner()
    assert runner.invoke(main, ["simulate", "bataille", "--option", "deck=40"]).exit_code == 2
    assert runner.invoke(main, ["simulate", "bataille", "--seats", "genius"]).exit_code == 2
    assert runner.invoke(main, ["simulate", "chess"]).exit_code == 2
    assert runner.invoke(main, ["simulate", "bataille", "--jobs", "0"]).exit_code == 2


def test_verify_says_ok_or_where_a_file_fails(tmp_path):
    t = Table("bataille", {"max_rounds": 30}, seed=b"v" * 32, game_id="cli")
    t.play_out()
    good = tmp_path / "game.json"
    events = t.export()
    good.write_text(json.dumps({"events": events}))
    out = CliRunner().invoke(main, ["verify", str(good)])  # sound, but nobody signed it
    assert out.exit_code == 4 and out.output.startswith("unsigned"), out.output
    out = CliRunner().invoke(main, ["verify", "--accept-unsigned", str(good)])
    assert out.exit_code == 0 and out.output.startswith("unsigned")
    events[4]["data"]["up"] = "QQ"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"events": events}))
    out = CliRunner().invoke(main, ["verify", str(bad)])
    assert out.exit_code == 1 and "version 5" in out.output


def test_verify_says_a_truncated_export_is_incomplete_and_a_bad_file_in_one_line(tmp_path):
    t = Table("bataille", {"max_rounds": 30}, seed=b"v" * 32, game_id="cli")
    t.play_out()
    cut = tmp_path / "cut.json"
    cut.write_text(json.dumps({"events": t.export()[:-3]}))
    out = CliRunner().invoke(main, ["verify", str(cut)])
    assert out.exit_code == 3 and out.output.startswith("incomplete")
    for raw in (b"{", b'{"events": 3}', b"[1, 2]", b'[{"version": "x"}]', b"\xff\xfe"):
        bad = tmp_path / "bad.json"
        bad.write_bytes(raw)
        out = CliRunner().invoke(main, ["verify", str(bad)])
        assert out.exit_code == 1, (raw, out.output)
        assert len(out.output.strip().splitlines()) == 1, out.output


def test_serve_says_where_the_site_is_and_the_site_is_there(tmp_path):
    """The start-up line is the address to open in a browser, and that address serves the site
    (not only the API)."""
    server = serve(tmp_path)
    try:
        url = f"http://127.0.0.1:{server.port}/"
        assert f"batayo: the site is at {url} " in server.text(), server.text()
        with urllib.request.urlopen(url, timeout=10) as response:
            assert response.status == 200
            assert "text/html" in response.headers["Content-Type"]
    finally:
        server.stop()


def test_a_wildcard_host_is_opened_on_loopback():
    assert site_url("0.0.0.0", 8000) == "http://127.0.0.1:8000/"
    assert site_url("::", 8000) == "http://127.0.0.1:8000/"
    assert site_url("::1", 8080) == "http://[::1]:8080/"
    assert site_url("example.org", 80) == "http://example.org:80/"

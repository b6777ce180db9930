"""`batayo balance` (docs/balance.md): its statistics on known inputs, the same report whatever
the number of processes, `--sweep`, and the shape of `--json`. Small N: the report's figures
are checked elsewhere (its statistics here on known inputs), not its games' outcomes."""

from __future__ import annotations

import json
import sys

import pytest
from click.testing import CliRunner

from service.cli import main
from service.sim import balance, balance_view, stats

NOW = "2026-01-01T00:00:00Z"


def test_wilson_interval_matches_published_values():
    # 8 of 10: Wilson's score interval as tabulated (Newcombe 1998, method 3)
    low, high = stats.wilson(8, 10)
    assert (round(low, 4), round(high, 4)) == (0.4902, 0.9433)
    # the docs' quick ladder: 15 of 24 is [42.7%, 78.8%]
    low, high = stats.wilson(15, 24)
    assert (round(low, 3), round(high, 3)) == (0.427, 0.788)
    assert stats.wilson(0, 10)[0] == 0.0 and round(stats.wilson(0, 10)[1], 4) == 0.2775
    assert stats.wilson(0, 0) == (0.0, 1.0)
    for n in (1, 7, 500, 1000):  # the interval holds the rate, at the ends too
        assert stats.wilson(0, n)[0] == 0.0 and stats.wilson(n, n)[1] == 1.0


@pytest.mark.parametrize(
    ("x", "df"),
    [(3.841458820694124, 1), (5.991464547107979, 2), (7.814727903251178, 3), (11.0704977, 5)],
)
def test_chi_square_tail_at_the_tabulated_5_percent_points(x, df):
    assert stats.chi_square_sf(x, df) == pytest.approx(0.05, abs=1e-6)


def test_seat_advantage_tests_on_known_counts():
    # 30 against 10: chi-square 10 on 1 degree of freedom, p = 0.0015654
    statistic, df, p = stats.chi_square_even([30, 10])
    assert (statistic, df) == (10.0, 1) and p == pytest.approx(0.0015654, rel=1e-4)
    assert stats.chi_square_even([10, 10, 10]) == (0.0, 2, 1.0)
    # the exact binomial test's two-sided p-values (as R's binom.test gives them)
    assert stats.binomial_two_sided(7, 10) == pytest.approx(0.34375)
    assert stats.binomial_two_sided(9, 10) == pytest.approx(0.021484375)
    assert stats.binomial_two_sided(5, 10) == 1.0
    assert balance.seat_advantage([9, 1])["test"] == "exact binomial"
    four = balance.seat_advantage([10, 10, 10, 30])
    assert four["test"] == "chi-square" and four["df"] == 3 and four["p_value"] < 0.001


def test_percentiles_interpolate_between_ranks():
    assert stats.percentile([4, 1, 3, 2], 50) == 2.5
    assert stats.percentile([1, 2, 3, 4], 90) == pytest.approx(3.7)
    assert stats.percentile([], 50) == 0.0


def _roylet_record(winners, reason="losing_streak", voids=0):
    ties = {"void_round": voids} if voids else {}
    return {"winners": winners, "reason": reason, "rounds": 4, "events": 200, "ties": ties}


def test_report_counts_roles_limits_and_ties_of_known_records():
    seats = [{"bot": "greedy"}] * 3
    records = [_roylet_record([0])] * 3 + [_roylet_record([1, 2], voids=2)] * 6
    records.append(_roylet_record([], reason="round_limit"))
    options = {"losing_streak": 3}
    report = balance.report_of("roylet", options, seats, records)
    king, allies = report["sides"]
    assert (king["side"], king["count"], allies["side"], allies["count"]) == (
        "King",
        3,
        "Allies",
        6,
    )
    assert king["interval"] == list(stats.wilson(3, 10))
    assert report["draws"]["count"] == 1 and report["limits"]["round_limit"]["count"] == 1
    assert report["ties"]["void_round"]["count"] == 6
    assert report["ties"]["void_round"]["per_game"] == pytest.approx(1.2)
    advantage = report["seat_advantage"]
    assert advantage["decided"] == 9
    assert advantage["p_value"] == pytest.approx(stats.binomial_two_sided(3, 9))


def test_same_report_with_one_and_two_processes():
    one = balance.balance("roylet", 6, {}, ["greedy"], b"balance", jobs=1, now=NOW)
    two = balance.balance("roylet", 6, {}, ["greedy"], b"balance", jobs=2, now=NOW)
    assert one == two
    assert one["games"] == 6 and sum(s["count"] for s in one["sides"]) + one["draws"]["count"] == 6


def test_batak_report_has_points_per_deal_by_pair():
    report = balance.balance("batak", 2, {"mode": "esli"}, ["greedy"], b"pairs", now=NOW)
    points = report["points_per_deal"]
    assert points["deals"] >= 2 * 5  # five deals a game at least (docs/rules/batak.md)
    assert list(points["sides"]) == ["seats 0+2", "seats 1+3"]


def _json(args):
    result = CliRunner().invoke(main, ["balance", *args, "--json", "--jobs", "1"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_sweep_compares_option_values_side_by_side():
    out = _json(["roylet", "--games", "3", "--seed", "ab", "--sweep", "losing_streak=2,4"])
    assert out["sweep"] == {"option": "losing_streak", "values": [2, 4]}
    assert [r["options"]["losing_streak"] for r in out["reports"]] == [2, 4]
    table = balance_view.terminal(out)
    assert [c.header for c in table.columns][1:] == ["losing_streak=2", "losing_streak=4"]


def test_json_shape():
    out = _json(["bataille", "--games", "2", "--seed", "cd", "--seats", "greedy"])
    assert set(out) == {
        "game",
        "options",
        "bots",
        "games",
        "seats",
        "sides",
        "draws",
        "seat_advantage",
        "length",
        "limits",
        "reasons",
        "ties",
        "seed",
    }
    assert set(out["length"]) == {"events", "rounds"}
    assert set(out["length"]["events"]) == {"p10", "p50", "p90", "p99", "max", "mean", "histogram"}
    assert set(out["limits"]) == {"round_limit", "event_limit"}
    assert set(out["seats"][0]) == {"seat", "bot", "count", "rate", "interval"}


def test_refuses_bad_sweeps_and_html_without_the_plotting_extra(tmp_path, monkeypatch):
    runner = CliRunner()
    base = ["balance", "roylet", "--games", "1"]
    assert runner.invoke(main, [*base, "--sweep", "losing_streak=0"]).exit_code == 2
    assert runner.invoke(main, [*base, "--sweep", "losing_streak"]).exit_code == 2
    assert runner.invoke(main, [*base, "--sweep", "colour=red"]).exit_code == 2
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # not installed
    page = tmp_path / "r.html"
    result = runner.invoke(main, [*base, "--html", str(page)])
    assert result.exit_code == 1 and "batayo[report]" in result.output
    assert not page.exists()


def test_html_plots_a_side_that_always_wins():
    """A rate of 0% or 100% (Roylet at losing_streak 1) plots with its interval."""
    pytest.importorskip("matplotlib")
    seats = [{"bot": "greedy"}] * 3
    report = balance.report_of("roylet", {}, seats, [_roylet_record([1, 2])] * 500)
    page = balance_view.page({**report, "seed": "00"})
    assert page.count("<svg") == 2


def test_html_page_embeds_its_plots(tmp_path):
    pytest.importorskip("matplotlib")
    page = tmp_path / "r.html"
    result = CliRunner().invoke(
        main, ["balance", "roylet", "--games", "2", "--jobs", "1", "--html", str(page)]
    )
    assert result.exit_code == 0, result.output
    text = page.read_text()
    assert text.count("<svg") == 2 and "<script" not in text and "http" not in text.split("<svg")[0]


def test_a_report_counts_the_very_games_simulate_plays():
    """The report keeps each game's events (for its tie audit): the games are the same as
    `simulate`'s, which keeps none, game for game."""
    from service.sim.simulate import finals, seats_for, simulate

    seats = seats_for("batayo", {}, ["greedy"])
    records = [
        r for part in finals("batayo", 5, {}, seats, b"same", NOW, 1, balance.record) for r in part
    ]
    _, states = simulate("batayo", 5, {}, ["greedy"], b"same", now=NOW)
    assert [(r["winners"], r["reason"], r["events"]) for r in records] == [
        (s["result"]["winners"], s["result"]["reason"], s["version"]) for s in states
    ]
    for record, state in zip(records, states, strict=True):
        tricks_tied, batayos = record["ties"].get("batayo", 0), state["table"]["batayos"]
        assert (tricks_tied > 0) == (batayos > 0) and tricks_tied <= batayos  # a chain is one


def test_the_plotting_library_is_an_optional_extra_only():
    """matplotlib comes with `pip install batayo[report]`: never in the base install nor in the
    service image (built from requirements.lock, docs/operations.md)."""
    import tomllib
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    assert not any("matplotlib" in d for d in project["dependencies"])
    assert any(d.startswith("matplotlib") for d in project["optional-dependencies"]["report"])
    assert "matplotlib" not in (root / "requirements.lock").read_text().lower()

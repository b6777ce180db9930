"""A balance report shown: rows of text (the terminal's table, the page's table) and a
self-contained HTML page whose plots need the optional `report` extra (matplotlib)."""

from __future__ import annotations

import html
import io
from collections.abc import Callable
from functools import partial

from ..core.options import resolve_options
from ..core.registry import GAMES

Row = tuple[str, Callable[[dict], str]]
MISSING = "\u2013"  # an en dash: the figure does not exist in this column


def _pct(part: dict) -> str:
    low, high = part["interval"]
    return f"{100 * part['rate']:.1f}% [{100 * low:.1f}, {100 * high:.1f}]"


def _p(value: float) -> str:
    return f"{value:.3g}" if value >= 0.001 else f"{value:.1e}"


def _advantage(report: dict) -> str:
    test = report["seat_advantage"]
    text = f"{test['test']}, p = {_p(test['p_value'])}"
    if "statistic" in test:
        text = (
            f"{test['test']} {test['statistic']:.2f} (df {test['df']}), p = {_p(test['p_value'])}"
        )
    return text if test["same_bots"] else f"{text} (levels differ)"


def _length(part: dict) -> str:
    return f"{part['p10']:.0f} / {part['p50']:.0f} / {part['p90']:.0f} / {part['p99']:.0f} / {part['max']}"


def rows(reports: list[dict]) -> list[Row]:
    """The table's rows, each a label and a function from a report to its cell; rows that only
    some reports have (a tie that some option never makes) show MISSING where missing."""
    first = reports[0]
    out: list[Row] = [("games", lambda r: str(r["games"]))]
    out += _sides(reports)  # a side's seats win together: no row of their own
    out += [
        ("draws", lambda r: _pct(r["draws"])),
        ("seat advantage", _advantage),
        ("events p10/50/90/99/max", lambda r: _length(r["length"]["events"])),
        ("rounds p10/50/90/99/max", lambda r: _length(r["length"]["rounds"])),
    ]
    for reason in first["limits"]:
        out.append((f"ended at {reason}", partial(_limit, reason=reason)))
    for kind in sorted({k for r in reports for k in r["ties"]}):
        out.append((f"games with {kind.replace('_', ' ')}", partial(_tie, kind=kind)))
    names = {n: None for r in reports for n in r.get("points_per_deal", {}).get("sides", {})}
    for name in names:
        out.append((f"points a deal, {name}", partial(_points, name=name)))
    return out


def _limit(report: dict, reason: str) -> str:
    return _pct(report["limits"][reason])


def _points(report: dict, name: str) -> str:
    value = report.get("points_per_deal", {}).get("sides", {}).get(name)
    return MISSING if value is None else f"{value:+.2f}"


def _sides(reports: list[dict]) -> list[Row]:
    """A row per side of any report, found by name: a sweep over the number of players or
    Batak's mode has different ones in different columns."""
    found: dict[str, dict] = {}
    for report in reports:
        for entry in report["sides"]:
            found.setdefault(entry["side"], entry)
    out: list[Row] = []
    for name, entry in found.items():
        label = f"{name} ({', '.join(dict.fromkeys(entry['bots']))}) wins"
        out.append((label, partial(_side, name=name)))
    return out


def _side(report: dict, name: str) -> str:
    entry = next((e for e in report["sides"] if e["side"] == name), None)
    return MISSING if entry is None else _pct(entry)


def _tie(report: dict, kind: str) -> str:
    part = report["ties"].get(kind)
    return MISSING if part is None else f"{_pct(part)}, {part['per_game']:.2f} a game"


def headers(result: dict) -> list[str]:
    """A column per report: the option value of a sweep, else the game."""
    if "sweep" in result:
        name = result["sweep"]["option"]
        return [f"{name}={v}" for v in result["sweep"]["values"]]
    return [result["game"]]


def reports_of(result: dict) -> list[dict]:
    return result["reports"] if "sweep" in result else [result]


def title(result: dict) -> str:
    """The game, the options that differ from its defaults, the seed."""
    first = reports_of(result)[0]
    defaults = resolve_options(GAMES[first["game"]], {})
    swept = result.get("sweep", {}).get("option")
    chosen = {k: v for k, v in first["options"].items() if defaults.get(k) != v and k != swept}
    options = ", ".join(f"{k}={v}" for k, v in chosen.items()) or "default options"
    return f"batayo balance {first['game']} ({options}; seed {first['seed']})"


def terminal(result: dict):
    """A rich table: one row per figure, one column per report (95% Wilson intervals)."""
    from rich.table import Table

    reports = reports_of(result)
    table = Table(title=title(result), caption="rates with their 95% Wilson interval")
    table.add_column("")
    for header in headers(result):
        table.add_column(header)
    for label, cell in rows(reports):
        table.add_row(label, *(cell(r) for r in reports))
    return table


def page(result: dict) -> str:
    """A self-contained HTML page: the table and the plots, inline SVG (needs matplotlib:
    `pip install batayo[report]`; ImportError otherwise)."""
    plots = _plots(result)  # first: no page is written without its plots
    reports = reports_of(result)
    head = "".join(f"<th>{html.escape(h)}</th>" for h in ["", *headers(result)])
    body = "".join(
        "<tr><th>"
        + html.escape(label)
        + "</th>"
        + "".join(f"<td>{html.escape(cell(r))}</td>" for r in reports)
        + "</tr>"
        for label, cell in rows(reports)
    )
    name = html.escape(title(result))
    return (
        f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{name}</title>"
        "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
        "th,td{border:1px solid #ccc;padding:.3em .6em;text-align:left}"
        "figure{display:inline-block;margin:1em}</style></head><body>"
        f"<h1>{name}</h1><p>Rates with their 95% Wilson interval.</p>"
        f"<table><tr>{head}</tr>{body}</table>{plots}</body></html>"
    )


def _plots(result: dict) -> str:
    import matplotlib

    matplotlib.use("Agg")  # no display: the figures only go to SVG
    from matplotlib import pyplot
    from matplotlib.patches import Patch

    reports = reports_of(result)
    labels = headers(result)
    figures = []
    fig, ax = pyplot.subplots(figsize=(7, 3.5))
    names = list(dict.fromkeys(e["side"] for r in reports for e in r["sides"]))
    width = 0.8 / len(names)
    for i, name in enumerate(names):
        for x, report in enumerate(reports):
            part = next((e for e in report["sides"] if e["side"] == name), None)
            if part is None:
                continue
            low, high = part["interval"]
            error = [[max(0.0, part["rate"] - low)], [max(0.0, high - part["rate"])]]
            ax.bar(x + i * width, part["rate"], width, yerr=error, capsize=3, color=f"C{i}")
    ax.legend(
        handles=[Patch(color=f"C{i}", label=n) for i, n in enumerate(names)], fontsize="small"
    )
    swept = result.get("sweep")
    ticks = [str(v) for v in swept["values"]] if swept else labels  # the option names the axis
    ax.set_xticks([x + width * (len(names) - 1) / 2 for x in range(len(reports))], ticks)
    if swept:
        ax.set_xlabel(swept["option"])
    ax.set_ylabel("wins (95% interval)")
    ax.set_ylim(0, 1)
    figures.append(("Win rate by side", fig))
    fig, ax = pyplot.subplots(figsize=(7, 3.5))
    for report, label in zip(reports, labels, strict=True):
        shape = report["length"]["events"]["histogram"]
        ax.stairs(shape["counts"], shape["edges"], label=label)
    ax.set_xlabel("events a game")
    ax.set_ylabel("games")
    ax.legend(fontsize="small")
    figures.append(("Game length", fig))
    out = []
    for caption, figure in figures:
        buffer = io.StringIO()
        figure.savefig(buffer, format="svg", bbox_inches="tight")
        pyplot.close(figure)
        svg = buffer.getvalue()
        svg = svg[svg.index("<svg") :]  # inline: without the XML prolog and doctype
        out.append(f"<figure>{svg}<figcaption>{html.escape(caption)}</figcaption></figure>")
    return "".join(out)

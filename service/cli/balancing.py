"""`batayo balance`: a balance report for rule designers (docs/balance.md).

A command of its own rather than a flag of `simulate`: its games keep their events (the tie
audits read them), it runs several sets of games for `--sweep`, and its JSON has another shape;
`simulate` stays the lean, fast run its own contract describes.
"""

from __future__ import annotations

import json
import sys

import click


def _sweep(text: str | None) -> tuple[str, list] | None:
    """`option=a,b,c` as the option's name and its values (typed as `--option`'s)."""
    from . import _parse_option

    if text is None:
        return None
    name, _, raw = text.partition("=")
    values = [_parse_option(f"{name}={v}")[1] for v in raw.split(",") if v != ""]
    if not name or not values:
        raise click.BadParameter("use option=a,b,c", param_hint="--sweep")
    return name, values


@click.command()
@click.argument("game")
@click.option("--games", "count", default=200, show_default=True, type=click.IntRange(1))
@click.option("--option", "options", multiple=True, help="A game option, key=value (repeatable).")
@click.option("--seats", default="greedy", show_default=True, help="Bots by seat, comma-separated.")
@click.option("--seed", default=None, help="Hex seed: the same seed gives the same report.")
@click.option("--sweep", "swept", default=None, help="option=a,b,c: one report per value.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option(
    "--html",
    "html_file",
    type=click.Path(dir_okay=False, writable=True),
    default=None,
    help="Also write a page with plots (needs `pip install batayo[report]`).",
)
@click.option(
    "--jobs",
    type=click.IntRange(1),
    default=None,
    help="Processes to play on (default: every core); the report does not depend on it.",
)
def balance(
    game: str,
    count: int,
    options: tuple[str, ...],
    seats: str,
    seed: str | None,
    swept: str | None,
    as_json: bool,
    html_file: str | None,
    jobs: int | None,
) -> None:
    """Play COUNT all-bot games and report on the rules' balance: wins by seat and by role
    with 95% intervals, a test for seat advantage, game lengths, limits reached, ties."""
    from ..sim import balance as reports
    from ..sim import balance_view
    from ..sim.simulate import cores
    from . import bot_run

    sweep = _sweep(swept)
    more = [{sweep[0]: v} for v in sweep[1]] if sweep else []
    opts, seed_bytes = bot_run(game, options, seats, seed, *more)
    if html_file is not None:
        _need_plots()
    bots, jobs = seats.split(","), jobs or cores()
    total = count * (len(sweep[1]) if sweep else 1)

    def run(progress=None) -> dict:
        if sweep:
            name, values = sweep
            return reports.sweep(game, count, opts, bots, seed_bytes, name, values, jobs, progress)
        return reports.balance(game, count, opts, bots, seed_bytes, jobs, progress)

    if as_json or not sys.stdout.isatty():
        result = run()
    else:
        from rich.progress import Progress

        with Progress(transient=True) as bar:
            task = bar.add_task(f"{game}: {total} games", total=total)
            result = run(lambda done: bar.advance(task, done))
    if html_file is not None:
        with open(html_file, "w", encoding="utf-8") as out:
            out.write(balance_view.page(result))
    if as_json:
        click.echo(json.dumps(result))
        return
    from rich.console import Console

    Console(width=140).print(balance_view.terminal(result))


def _need_plots() -> None:
    """Refuse `--html` before playing when the plotting library is not installed."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise click.ClickException(
            "--html needs matplotlib: pip install 'batayo[report]'"
        ) from None

"""How long one `strong` move takes: positions from greedy games, each timed in CPU time of
the one core it runs on (so other work on a shared machine does not count).

python bench/strong_times.py --moves 200
python bench/strong_times.py --only batayo --plain   # play-outs without their shortcuts
python bench/strong_times.py --only roylet --plain rounds   # only the rounds' shortcut off
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from service.core import bots, search
from service.core.registry import GAMES
from service.sim.table import Table

CASES = [
    ("roylet", {}),
    ("bataille", {"variant": "ouverte"}),
    ("batayo", {"players": 2}),
    ("batayo", {"players": 3}),
    ("batak", {"mode": "ihaleli"}),
    ("batak", {"mode": "esli"}),
]


def times(game: str, options: dict, moves: int, seed: int) -> list[float]:
    """Seconds per strong move (choices only: a move with one legal action costs nothing)."""
    rng = random.Random(seed)
    out: list[float] = []
    index = 0
    while len(out) < moves:
        index += 1
        n = GAMES[game].seat_count({**{o.name: o.default for o in GAMES[game].options}, **options})
        table = Table(
            game,
            options,
            [{"bot": "greedy"}] * n,
            seed=f"{seed}-{index}".encode().ljust(32, b"."),
            simulation=True,
        )
        while table.state["status"] == "playing" and len(out) < moves:
            seat = GAMES[game].to_move(table.state)[0]
            if len(GAMES[game].legal_actions(table.state, seat)) > 1 and rng.random() < 0.3:
                started = time.process_time()
                bots.choose(table.state, seat, b"times", "strong", lazy=True)
                out.append(time.process_time() - started)
            table.bot_move(seat)
            if table.state["table"].get("round", 0) > 200:
                break
    return out


def plain(which: str) -> None:
    """The plain versions of the play-outs' shortcuts (docs/performance.md#bot-shortcuts):
    `policies`, greedy's choice built from each seat's view where BatailleRoylet's Allies read
    it from the state; `rounds`, the play-outs of BatailleRoylet, Bataille ouverte
    and BATAYO played through the rules code; `all`, both."""
    from service.games.bataille import bots as bataille
    from service.games.batayo import bots as batayo
    from service.games.roylet import bots as roylet

    if which in ("all", "rounds"):
        bataille.SEARCH = dataclasses.replace(bataille.SEARCH, fast=None)
        roylet.SEARCH = dataclasses.replace(roylet.SEARCH, fast=None)
        batayo.SEARCH = dataclasses.replace(batayo.SEARCH, fast=None)
    if which in ("all", "policies"):
        allies = search.viewing(roylet.greedy)

        def roylet_policy(state, seat, seats, game, rng):
            if seat == roylet.KING:
                return roylet._king_sees_all(state)
            return allies(state, seat, seats, game, rng)

        roylet.SEARCH = dataclasses.replace(roylet.SEARCH, policy=roylet_policy)


def _quantile(xs: list[float], q: float) -> float:
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=200)
    parser.add_argument("--only", help="one game's cases (roylet, bataille, batayo, batak)")
    parser.add_argument(
        "--plain",
        nargs="?",
        const="all",
        choices=("all", "policies", "rounds"),
        help="play-outs without their shortcuts (all, or only the policies or the rounds)",
    )
    args = parser.parse_args()
    if args.plain:
        plain(args.plain)
    report = {}
    for game, options in CASES:
        if args.only and game != args.only:
            continue
        xs = sorted(times(game, options, args.moves, 7))
        row = {
            "moves": len(xs),
            "p50_ms": _quantile(xs, 0.5) * 1000,
            "p99_ms": _quantile(xs, 0.99) * 1000,
            "max_ms": xs[-1] * 1000,
        }
        row["mean_ms"] = statistics.fmean(xs) * 1000
        report[f"{game} {json.dumps(options)}"] = {k: round(v, 1) for k, v in row.items()}
        print(
            f"{game:8} {json.dumps(options):28} "
            + " ".join(f"{k} {v:.1f}" for k, v in row.items()),
            flush=True,
        )


if __name__ == "__main__":
    main()

"""Compression of the API's answers: `python bench/compression.py`.

For the bodies clients read most (a seat's view of a Batak game under way, a page of 100
events, a finished game's whole log), the size and time of each coding the server offers
(`service.api.compression`: brotli at its quality, gzip at its level) against the other
settings, all measured in this one run: sizes as ratios of the plain JSON, times as ratios of
gzip's at the server's level (the median of `--repeat` runs each).
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import sys
import time
from pathlib import Path

import brotli

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from service.api import compression
from service.sim.table import Table

CODINGS = {
    f"gzip {compression.GZIP_LEVEL} (served)": lambda b: compression.encode(b, "gzip"),
    "gzip 1": lambda b: gzip.compress(b, 1, mtime=0),
    f"brotli {compression.BROTLI_QUALITY} (served)": lambda b: compression.encode(b, "br"),
    "brotli 6": lambda b: brotli.compress(b, quality=6),
}


def bodies() -> dict[str, bytes]:
    table = Table("batak", {"deals": 3}, seed=b"\x05" * 32, game_id="00000000000000ab")
    for _ in range(60):
        table.bot_move(table.game.to_move(table.state)[0])
    view = table.view(0)
    page = [table.shown(e, 0) for e in table.events[:100]]
    table.play_out()
    log = [table.shown(e, None) for e in table.events]
    return {
        "seat view": json.dumps(view).encode(),
        "100 events": json.dumps({"events": page}).encode(),
        "finished log": json.dumps({"events": log}).encode(),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()
    print(f"{'body':<14}{'bytes':>8}  " + "  ".join(f"{c:>26}" for c in CODINGS))
    for name, body in bodies().items():
        times, sizes = {}, {}
        for coding, encode in CODINGS.items():
            runs = []
            for _ in range(args.repeat):
                start = time.perf_counter()
                out = encode(body)
                runs.append(time.perf_counter() - start)
            times[coding], sizes[coding] = statistics.median(runs), len(out)
        base = times[next(iter(CODINGS))]
        cells = [f"size {sizes[c] / len(body):.3f} time {times[c] / base:.2f}x" for c in CODINGS]
        print(f"{name:<14}{len(body):>8}  " + "  ".join(f"{c:>26}" for c in cells))


if __name__ == "__main__":
    main()

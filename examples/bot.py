"""A bot that plays any batayo game through the API, knowing none of the rules: it follows the
game's stream, and whenever its seat is awaited it posts one of its view's `legal_actions`.

    python examples/bot.py --url http://127.0.0.1:8000 --game batak
    python examples/bot.py --url http://127.0.0.1:8000 --join 3f2a9c0d1e4b5a67

Without --join it creates a game of --game with itself in seat 0 and the service's bots (the
`--opponents` bot) in the other seats. It prints each event type as it arrives and the result.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from batayo_client import ApiError, Client
from batayo_client.types import GameView


def _option(text: str) -> tuple[str, object]:
    name, _, raw = text.partition("=")
    value: object = raw
    if raw.lstrip("-").isdigit():
        value = int(raw)
    elif raw in ("true", "false"):
        value = raw == "true"
    return name, value


def seats_for(api: Client, game: str, opponents: str) -> list[dict[str, Any]]:
    rules = {g["id"]: g for g in api.rules()}[game]
    # the fewest seats the game takes (with its default options)
    count = next((o["default"] for o in rules["options"] if o["name"] == "players"), None)
    count = count or rules["seats"]["min"]
    return [{"name": "example bot", "client_seed": f"{random.getrandbits(64):x}"}] + [
        {"bot": opponents}
    ] * (count - 1)


def play(
    api: Client, game_id: str, token: str, rng: random.Random, quiet: bool = False
) -> GameView:
    """Play the seat until the game ends; the final view."""
    me = api.as_seat(token)
    view = me.view(game_id)
    last = view["version"]  # every later event is printed once, the bot's own included
    while view["status"] != "finished":
        if view["legal_actions"]:
            try:
                me.act(game_id, rng.choice(view["legal_actions"]), if_match=view["version"])
            except ApiError as exc:
                if exc.code not in ("version_mismatch", "not_your_turn"):
                    raise  # someone else moved first: look again
            view = me.view(game_id)
            continue
        for event in me.follow(game_id, after=last):
            last = event["version"]
            if not quiet:
                print(f"{event['version']:>5} {event['type']}")
            view = me.view(game_id)
            if view["legal_actions"] or view["status"] == "finished":
                break
    return view


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--game", default="bataille")
    parser.add_argument("--join", metavar="GAME_ID", help="join this game's first open seat")
    parser.add_argument("--opponents", default="random", help="the service's bot for the others")
    parser.add_argument("--seed", type=int, help="this bot's own randomness (reproducible)")
    parser.add_argument(
        "--option", action="append", default=[], metavar="NAME=VALUE", help="a game option"
    )
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args()
    api = Client(args.url)
    if args.join:
        joined = api.join(args.join, "example bot")
        game_id, token = args.join, joined["token"]
    else:
        options = dict(_option(o) for o in args.option)
        created = api.create(args.game, seats_for(api, args.game, args.opponents), options)
        game_id, token = created["id"], created["seats"][0]["token"]
        print(f"created {args.game} game {game_id}")
    rng = random.Random(args.seed)  # noqa: S311 - a player's whims, not a secret
    final = play(api, game_id, token, rng, args.quiet)
    result = final["result"] or {}
    outcome = "a draw" if result.get("draw") else f"won by seat(s) {result.get('winners')}"
    print(f"game {game_id} over: {outcome} ({result.get('reason')}); I was seat {final['you']}")
    report = api.verify(game_id)
    print(f"verification: {report['status']}")
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())

"""Planning a new game from a create request: the rules' checks, the seats, the tokens to mint,
the seed, the id; and the answer docs/api.md gives (tokens shown once)."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..core import bounds
from ..core.chain import canonical
from ..core.game import RuleError, bad_action
from ..core.options import as_before_later, resolve_options
from ..core.registry import GAMES
from . import tokens

GAME_ID = bounds.matcher(bounds.GAME_ID)


def new_game_id() -> str:
    return secrets.token_hex(8)


@dataclass
class Plan:
    id: str
    game: str
    options: dict
    seats: list[dict]
    tokens: dict[int, str]
    test: bool
    deal: dict | None
    seed: bytes | None = None  # the server seed: fixed (a test game) or from a ticket
    fixed_id: bool = False


def plan(
    body: dict, test_games: bool, bot_pace_ms: int = 0, new_id: Callable[[], str] = new_game_id
) -> Plan:
    """Check a create request against the game's rules; what the engine needs to create it.
    `bot_pace_ms` is the server's pace for a game with a human seat whose request names none."""
    name = body["game"]
    if name not in GAMES:
        raise bad_action(f"unknown game {name!r}; games: {', '.join(GAMES)}")
    game = GAMES[name]
    seats_in = body["seats"]
    given = body.get("options") or {}
    if bot_pace_ms and "bot_pace_ms" not in given and any(s.get("bot") is None for s in seats_in):
        given = {**given, "bot_pace_ms": bot_pace_ms}
    try:
        options = resolve_options(game, given)
    except ValueError as exc:
        raise bad_action(str(exc)) from None
    count = game.seat_count(options)
    if len(seats_in) != count:
        raise bad_action(f"{name} with these options has {count} seats, not {len(seats_in)}")
    seed, deal, fixed = body.get("seed"), body.get("deal"), body.get("id")
    if (seed is not None or deal is not None or fixed is not None) and not test_games:
        raise bad_action("seed, deal and id need the server setting BATAYO_TEST_GAMES=1")
    if seed is not None and body.get("seed_ticket") is not None:
        raise bad_action("a game takes a fixed seed or a seed ticket, not both")
    if fixed is not None and not GAME_ID(fixed):
        raise bad_action("id must be 16 lowercase hexadecimal digits")
    if deal is not None:
        _check_deal(game, deal, options)
    seats = []
    for i, s in enumerate(seats_in):
        if s.get("bot") is not None:
            if s["bot"] not in game.bots:
                raise bad_action(f"no bot {s['bot']!r} for {name}; bots: {', '.join(game.bots)}")
            seats.append({"seat": i, "bot": s["bot"]})
        elif s.get("open"):
            seats.append({"seat": i, "open": True})
        else:
            seats.append({"seat": i, "name": s["name"], "client_seed": s.get("client_seed")})
    game_id = fixed or (_test_id(seed, name, options, seats) if seed else new_id())
    return Plan(
        id=game_id,
        game=name,
        options=options,
        seats=seats,
        tokens={s["seat"]: tokens.new(game_id, s["seat"]) for s in seats if "name" in s},
        test=seed is not None or deal is not None,
        deal=deal,
        seed=bytes.fromhex(seed) if seed else None,
        fixed_id=fixed is not None or seed is not None,
    )


def _check_deal(game: Any, deal: Any, options: dict) -> None:
    if game.check_deal is None:
        raise bad_action(f"{game.name} takes no test deal")
    try:
        game.check_deal(deal, options)
    except RuleError:
        raise
    except (ValueError, TypeError, KeyError, IndexError, AttributeError) as exc:
        # a deal is user input: however malformed, it is a 400, never a 500
        raise bad_action(f"bad test deal: {exc}") from None


def _test_id(seed: str, game: str, options: dict, seats: list[dict]) -> str:
    """A test game with a fixed seed and no fixed id: the id is the request's own, so the same
    seed, options, seats and client seeds make the same game (the id enters the random stream),
    whichever version made it: an option added later counts only if it is not its default."""
    described = as_before_later(options)
    request = {"seed": seed.lower(), "game": game, "options": described, "seats": seats}
    return hashlib.sha256(b"batayo-test-game|" + canonical(request)).hexdigest()[:16]


def answer(plan: Plan, state: dict) -> dict:
    """docs/api.md's create answer: each human seat's token, shown this once."""
    seats = []
    for s in plan.seats:
        entry = {k: v for k, v in s.items() if k != "client_seed"}
        entry.setdefault("open", False)
        if s["seat"] in plan.tokens:
            entry["token"] = plan.tokens[s["seat"]]
        seats.append(entry)
    return {
        "id": plan.id,
        "game": plan.game,
        "version": state["version"],
        "status": state["status"],
        "seed_commitment": state["seed_commitment"],
        "seats": seats,
    }

"""BATAYO bots: each sees only its seat's view and returns one of its legal actions."""

from __future__ import annotations

from ...core.cards import value
from ...core.game import BotRng, random_bot


def _hand(view: dict) -> list[str]:
    return [a["card"] for a in view["legal_actions"]]


def _play(card: str) -> dict:
    return {"type": "play", "card": card}


def greedy(view: dict, rng: BotRng) -> dict:
    """One-move heuristic: in a BATAYO, sudden death, or a last-chance trick (empty pack) play the
    highest card; otherwise play an ace when holding one (it cannot lose, at worst it ties),
    and else throw the lowest card, keeping the strong ones for later."""
    cards = _hand(view)
    table = view["table"]
    me = table["players"][view["you"]]
    high = max(cards, key=value)
    if table["batayo"] or table["sudden_death"] or me["last_chance"]:
        return _play(high)
    if value(high) == 14:
        return _play(high)
    return _play(min(cards, key=value))


BOTS = {"random": random_bot, "greedy": greedy}

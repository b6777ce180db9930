"""The Bataille bots: `random` and `greedy`."""

from __future__ import annotations

from collections.abc import Mapping

from ...core.cards import RANKS, value
from ...core.game import BotRng, random_bot


def greedy(view_: Mapping, rng: BotRng) -> dict:
    """Classique: flip. Ouverte: a high card to win a round (else throw the lowest), and in a
    bataille the highest card up and the lowest down."""
    legal = view_["legal_actions"]
    if len(legal) == 1:
        return legal[0]

    def strength(action: dict) -> tuple:
        up = value(action["card"])
        down = value(action["down"]) if "down" in action else 0
        return (up, -down)

    best = max(legal, key=strength)
    if "down" in best or value(best["card"]) >= RANKS.index("Q") + 2:
        return best
    return min(legal, key=strength)


BOTS = {"random": random_bot, "greedy": greedy}

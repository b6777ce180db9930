"""Bots for BatailleRoylet, for both roles. They read only the seat's view.

- `random`: uniformly among the legal actions.
- `greedy`, as the King: plays a royal where it is safe enough (the face-up card does not beat it
  and at least half the cards he cannot place would not either; less picky as his spare battles
  run out), and spends the royals before he runs out of battles; otherwise wins the battle with
  his cheapest likely winner, or throws his weakest card. As an Ally: a strong card goes face
  down, where the King cannot see it (the strongest when a royal is likely, i.e. the King holds
  royals for at least half the battles left; else the cheapest card that beats a jack), and the
  weakest card goes face up, as a lure (or face down when the partner's face-up ace takes anyway).
"""

from __future__ import annotations

from ...core.cards import deck as full_deck
from ...core.cards import rank
from ...core.game import BotRng, random_bot
from .rules import KING, ROYALS, strength


def _king_unseen(table: dict) -> list[str]:
    """The cards the King cannot place: the Allies' hands and the cards out of play."""
    seen = set(table["hand"]) | set(ROYALS)
    for side in ("king", "allies"):
        for trick in table["trick_cards"][side]:
            seen.update(trick)
    up = table["table"]["up"]
    if up is not None:
        seen.add(up["card"])
    return [c for c in full_deck() if c not in seen]


def _beats(ally_card: str, king_card: str) -> bool:
    k = strength(king_card, "king")
    return strength(ally_card, "ally") > k or (rank(king_card) == "A" and rank(ally_card) == "A")


def _king_greedy(view: dict) -> dict:
    table = view["table"]
    hand = table["hand"]
    up = table["table"]["up"]["card"]
    unseen = _king_unseen(table)

    def win_p(card: str) -> float:
        if _beats(up, card):
            return 0.0
        if not unseen:
            return 1.0
        return 1 - sum(_beats(c, card) for c in unseen) / len(unseen)

    left = table["battles_left"]
    royals = [c for c in hand if c in ROYALS]
    others = [c for c in hand if c not in ROYALS]
    # a royal where it is safest; the jacks before the king of hearts when equally safe
    by_safety = sorted(royals, key=lambda c: (-win_p(c), c == "KH"))
    if royals:
        slack = left - len(royals)  # battles he can still spend on other cards
        threshold = 0.5 if slack >= 4 else 0.3 if slack >= 2 else 0.0
        if slack <= 0 or win_p(by_safety[0]) >= threshold:
            return {"type": "play", "card": by_safety[0]}
    if not others:
        return {"type": "play", "card": by_safety[0]}
    winners = [c for c in others if win_p(c) >= 0.6 or (rank(up) == "K" and win_p(c) > 0.4)]
    if winners:
        card = min(winners, key=lambda c: strength(c, "king"))
    else:
        card = min(others, key=lambda c: strength(c, "king"))
    return {"type": "play", "card": card}


def _ally_greedy(view: dict) -> dict:
    table = view["table"]
    faces = {a["face"] for a in view["legal_actions"]}
    by_strength = sorted(table["hand"], key=lambda c: strength(c, "ally"))
    left = max(table["battles_left"], 1)
    royal_likely = table["royals_in_hand"] / left >= 0.5
    up = table["table"]["up"]
    partner_sure = up is not None and rank(up["card"]) == "A"  # an Ally's ace always takes
    if "down" in faces and not partner_sure:
        over_jack = [c for c in by_strength if strength(c, "ally") > strength("JS", "king")]
        card = by_strength[-1] if royal_likely or not over_jack else over_jack[0]
        return {"type": "play", "card": card, "face": "down"}
    face = "up" if "up" in faces else "down"
    return {"type": "play", "card": by_strength[0], "face": face}


def greedy(view: dict, rng: BotRng) -> dict:
    return _king_greedy(view) if view["you"] == KING else _ally_greedy(view)


BOTS = {"random": random_bot, "greedy": greedy}

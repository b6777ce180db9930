"""Helpers shared by the Batak tests (no tests here)."""

from __future__ import annotations

import pytest

from service.core.cards import deck as full_deck
from service.core.game import RuleError
from service.sim.table import Table

SEATS = [{"name": f"p{i}"} for i in range(4)]


def hands_with(fixed: dict[int, list[str]], avoid: dict[int, str] | None = None) -> list[list[str]]:
    """Four hands of 13: the `fixed` cards, then the rest of the deck in deck order, the seats
    with the most suits to `avoid` (in their filler) choosing first."""
    avoid = avoid or {}
    hands = [list(fixed.get(s, [])) for s in range(4)]
    used = {c for h in hands for c in h}
    assert len(used) == sum(len(h) for h in hands), "a fixed card is given twice"
    rest = [c for c in full_deck() if c not in used]
    for seat in sorted(range(4), key=lambda s: -len(avoid.get(s, ""))):
        for card in list(rest):
            if len(hands[seat]) == 13:
                break
            if card[-1] not in avoid.get(seat, ""):
                hands[seat].append(card)
                rest.remove(card)
    assert all(len(h) == 13 for h in hands), "these constraints cannot be dealt"
    return hands


def table(hands: list[list[str]] | None = None, seed: int = 0, **options) -> Table:
    return Table(
        "batak",
        options,
        seats=SEATS,
        seed=seed.to_bytes(32, "big"),
        deal={"hands": hands} if hands is not None else None,
    )


def auction(t: Table, declarer: int, bid: int, trump: str | None = None) -> None:
    """The dealer is seat 0, so seats bid in the order 1, 2, 3, 0: `declarer` bids, the others
    pass; then the declarer names `trump`."""
    for seat in (1, 2, 3, 0):
        if t.state["table"]["declarer"] is not None:  # a bid of 13 ends the auction
            break
        if seat == declarer:
            t.act(seat, {"type": "bid", "tricks": bid})
        else:
            t.act(seat, {"type": "pass"})
    assert t.state["table"]["declarer"] == declarer
    if trump:
        t.act(declarer, {"type": "trump", "suit": trump})


def play(t: Table, seat: int, card: str) -> list[dict]:
    return t.act(seat, {"type": "play", "card": card})


def legal_cards(t: Table, seat: int) -> list[str]:
    return sorted(a["card"] for a in t.game.legal_actions(t.state, seat))


def refused(t: Table, seat: int, action: dict) -> RuleError:
    before = len(t.events)
    with pytest.raises(RuleError) as info:
        t.act(seat, action)
    assert len(t.events) == before  # a rejected action appends nothing
    return info.value


def play_first_legal(t: Table) -> None:
    """Play the current deal out with the first legal action of the seat to move."""
    deal = t.state["table"]["deal"]
    while t.state["status"] == "playing" and t.state["table"]["deal"] == deal:
        seat = t.game.to_move(t.state)[0]
        t.act(seat, t.game.legal_actions(t.state, seat)[0])

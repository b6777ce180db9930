"""Cards as text: rank then suit (`10H`, `QS`, `AD`), the one spelling used everywhere."""

from __future__ import annotations

import re

RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
SUITS = ("S", "H", "D", "C")
CARD_RE = re.compile(r"^(?:10|[2-9JQKA])[SHDC]$")

# Ace high: 2 -> 2 ... A -> 14. Games with other orders define their own.
RANK_VALUE = {rank: i + 2 for i, rank in enumerate(RANKS)}
CARD_VALUE = {rank + suit: v for rank, v in RANK_VALUE.items() for suit in SUITS}


class BadCard(ValueError):
    """Card text that is not rank-then-suit."""


def parse_card(text: object) -> str:
    """Return `text` if it is a well-formed card, else raise BadCard with a clear message."""
    if not isinstance(text, str) or not CARD_RE.match(text):
        raise BadCard(
            f"{text!r} is not a card: write rank (2-10, J, Q, K, A) then suit (S, H, D, C), e.g. 10H"
        )
    return text


def rank(card: str) -> str:
    return card[:-1]


def suit(card: str) -> str:
    return card[-1]


def value(card: str) -> int:
    """Ace-high value of a card: 2..14."""
    return CARD_VALUE[card]


def deck(ranks: tuple[str, ...] | list[str] = RANKS, suits: tuple[str, ...] = SUITS) -> list[str]:
    """The cards of the given ranks and suits, suit by suit, in rank order (a fixed, known order)."""
    return [r + s for s in suits for r in ranks]


def ranks_from(low: str) -> tuple[str, ...]:
    """Ranks from `low` up to the ace: ranks_from("7") is the 32-card pack's ranks."""
    return RANKS[RANKS.index(low) :]

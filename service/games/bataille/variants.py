"""Bataille's variants (docs/rules/bataille.md#options): what differs between them, as objects.

The `variant` option's string is read in one place, `variant(options)`; the rules, the header
and the view ask the object it gives.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Variant:
    name: str
    # cards each contender puts in a bataille: one face up, the others face down (rule 4)
    bataille_cards: int
    # players pick their cards from their own pack, committed face down and revealed together
    # (rule 2); otherwise each turns the top of its pack
    chooses: bool


CLASSIQUE = Variant("classique", bataille_cards=2, chooses=False)
SANS_INCONNUE = Variant("sans_inconnue", bataille_cards=1, chooses=False)  # no face-down card
OUVERTE = Variant("ouverte", bataille_cards=2, chooses=True)

VARIANTS = {v.name: v for v in (CLASSIQUE, SANS_INCONNUE, OUVERTE)}


def variant(options: dict) -> Variant:
    """The variant the game's options choose."""
    return VARIANTS[options["variant"]]

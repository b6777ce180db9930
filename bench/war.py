"""The reference for `simulate`: a bare, minimal War loop in plain Python, written for the bench.

The same rules as two-player, 52-card Bataille classique with its defaults (docs/rules/bataille.md):
the deck shuffled and dealt one card at a time; each round both flip their top card and the higher
takes every card on the table; a tie is a bataille (one card face down, one face up, again until
someone wins); a pack that runs out is replaced by the won pile, shuffled (random gathering); a
player short of cards for a bataille is out; no cards left is out; a leader wins at the round
limit. No events, no hashing, no views: plain lists and `random.Random`.
"""

from __future__ import annotations

import random

RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
VALUE = {r + s: i + 2 for s in "SHDC" for i, r in enumerate(RANKS)}
DECK = list(VALUE)


def war(rng: random.Random, max_rounds: int = 10_000) -> tuple[int | None, int]:
    """One game: (the winner, or None for a draw; the rounds played)."""
    cards = DECK[:]
    rng.shuffle(cards)
    packs = [cards[0::2], cards[1::2]]
    won: list[list[str]] = [[], []]
    for rounds in range(1, max_rounds + 1):
        pot: list[str] = []
        need = 1
        while True:
            ups = [0, 0]
            for s in (0, 1):
                pack = packs[s]
                if len(pack) < need and won[s]:  # the won pile, shuffled, becomes the pack
                    pile = won[s]
                    rng.shuffle(pile)
                    pack += pile
                    won[s] = []
                if len(pack) < need:  # short for a bataille: out, its cards on the table
                    pot += pack
                    pack.clear()
                else:
                    ups[s] = VALUE[pack[need - 1]]
                    pot += pack[:need]
                    del pack[:need]
            a, b = ups
            if a != b:
                won[a < b] += pot
                break
            if not a:
                return None, rounds  # both short in the same bataille: a draw
            need = 2  # a bataille: one card down, one up
        for s in (0, 1):
            if not packs[s] and not won[s]:
                return 1 - s, rounds
    counts = [len(packs[s]) + len(won[s]) for s in (0, 1)]
    return (None if counts[0] == counts[1] else int(counts[1] > counts[0])), max_rounds


def play(games: int, seed: int = 0) -> list[tuple[int | None, int]]:
    rng = random.Random(seed)
    return [war(rng) for _ in range(games)]

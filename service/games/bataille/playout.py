"""Bataille ouverte's round played out without events: the strong bot's fast play-out.

A second copy of the round's sequencing (the reveal, the taker, batailles, rule 6's shortfall,
a won pile turned under a short pack), every seat moved by `greedy_cards`, for play-outs that
only need the searching seat's cards at the round's end. The plain version is `search.play_out`
through `rules.py`; tests/test_bataille_playout.py holds the two to the same score
(docs/performance.md#bot-shortcuts).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .rules import highest, put_count
from .variants import variant

# greedy's choice from the cards a seat may put (a bataille's or not): its face-up card and,
# in a bataille, its face-down one
Choice = Callable[[Sequence[str], bool], tuple[str, str | None]]


def round_end(
    table: dict, options: dict, me: int, action: dict, choice: Choice
) -> tuple[list[str], int]:
    """`me`'s pack and the size of its won pile at the end of the round, when `me` plays
    `action` in `table` and `choice` makes every later move; `table` is left as it was."""
    packs = [list(p) for p in table["packs"]]
    won = [list(w) for w in table["won"]]
    out = list(table["out"])
    put = list(table["put"])  # each seat's entry is replaced, never changed in place
    contenders = list(table["contenders"])
    bataille_cards = variant(options).bataille_cards
    need = 1 if table["step"] == 0 else bataille_cards
    pot = len(table["pot"])
    play_out = options["shortfall"] == "play_out"
    cards = [action["card"], *([action["down"]] if "down" in action else [])]
    seat = me
    while True:
        pack = packs[seat]
        # rule 5: the won pile goes under a pack too short, kept in its order where the rules
        # may shuffle it: greedy takes the first card of a value, so a shuffle only swaps
        # cards of one value, which changes no count or value the score reads
        if len(pack) < need:
            pack += won[seat]
            won[seat] = []
        for card in cards:
            pack.remove(card)
        put[seat] = {"up": cards[0], "down": cards[1:]}
        while True:
            owing = [s for s in contenders if put[s] is None and not out[s]]
            if owing:
                break
            # every contender has put its cards: the reveal, then the highest face-up card
            tied = highest((s, p["up"] if (p := put[s]) else None) for s in contenders)
            if len(tied) <= 1:  # rule 3: the single highest card takes the table; rule 6:
                taken = pot + put_count(put) if tied == [me] else 0  # nobody takes it
                return packs[me], len(won[me]) + taken
            # rule 4: a bataille between the tied players only
            pot += put_count(put)
            put = [None] * len(put)
            contenders = tied
            need = bataille_cards
            for s in tied:  # rule 6: a contender without enough cards
                if len(packs[s]) + len(won[s]) >= need:
                    continue
                short = packs[s] + won[s]
                packs[s], won[s] = [], []
                if play_out and short:
                    put[s] = {"up": short[0], "down": short[1:]}
                else:
                    put[s] = {"up": None, "down": short}
                    out[s] = True
        seat = owing[0]
        pack = packs[seat]
        up, down = choice(pack + won[seat] if len(pack) < need else pack, need > 1)
        cards = [up] if down is None else [up, down]

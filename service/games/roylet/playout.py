"""BatailleRoylet's round played out without events: the strong bots' fast play-out.

A second copy of the round's sequencing (who plays next, the trick, rules 5 to 8), for
play-outs that only need the round's result; the cards are compared by the rules' own
`allies_take` and `forbidden`. The plain version is `search.play_out` through `rules.py`;
tests/test_roylet_playout.py holds the two to the same result (docs/performance.md#bot-shortcuts).
"""

from __future__ import annotations

from collections.abc import Callable

from ...core.cards import rank
from .rules import (
    ALLIES,
    BATTLES,
    FACES,
    KING,
    KING_OF_HEARTS,
    ROYALS,
    allies_take,
    forbidden,
    royals_in_hand,
)

# a seat's move in a play-out: (a state holding the table's hands, put and battles played,
# the seat) to an action
Choice = Callable[[dict, int], dict]


def round_result(table: dict, seat: int, action: dict, choice: Choice) -> str:
    """The round's result ("king", "allies" or "void") when `seat` plays `action` in `table`
    and every later move of the round is `choice`'s; `table` is left as it was."""
    put = table["put"]
    t = {
        "hands": [list(h) for h in table["hands"]],
        "put": {f: None if put[f] is None else dict(put[f]) for f in FACES} | {"king": None},
        "battles_played": table["battles_played"],
    }
    state = {"table": t}  # enough of a state for the policies and `royals_in_hand`
    king_tricks, allies_tricks = len(table["tricks"]["king"]), len(table["tricks"]["allies"])
    captured = list(table["captured"])
    kings_taken = len(table["kings_taken"])
    hands, now = t["hands"], t["put"]
    while True:
        hands[seat].remove(action["card"])
        if seat != KING:
            now[action["face"]] = {"seat": seat, "card": action["card"]}
            seat = _next(now)
            action = choice(state, seat)
            continue
        # the King has played: the trick (rule 3), then rules 7, 5 and, after the tenth
        # battle, 6 and 8, in the order of rules.py's `_resolve` and `_count`
        down, up, king = now["down"]["card"], now["up"]["card"], action["card"]
        if allies_take(down, up, king):
            allies_tricks += 1
            captured += [king] if king in ROYALS else []
        else:
            king_tricks += 1
            kings_taken += sum(1 for c in (down, up) if rank(c) == "K")
        t["battles_played"] += 1
        left = BATTLES - t["battles_played"]
        if kings_taken >= 2:
            return "king"
        if royals_in_hand(t) > left:
            return "allies"
        if left == 0:
            if KING_OF_HEARTS in captured and king_tricks:
                king_tricks, allies_tricks = king_tricks - 1, allies_tricks + 1
            if allies_tricks > king_tricks:
                return "allies"
            return "void" if forbidden(captured) else "king"
        now.update(down=None, up=None)
        seat = ALLIES[0]
        action = choice(state, seat)


def _next(put: dict) -> int:
    """After an Ally's card: the other Ally if it still owes one (Ally 1 before Ally 2), else
    the King: the rules' `to_move` in a battle, without its turn kinds' calls, which cost this
    hot path more (docs/performance.md#bot-shortcuts)."""
    played = {put[f]["seat"] for f in FACES if put[f] is not None}
    owing = [s for s in ALLIES if s not in played]
    return owing[0] if owing else KING

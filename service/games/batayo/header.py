"""BATAYO's declarative header: its action, and the events it writes with what each hides
from whom while the game runs (docs/rules/batayo.md).

Hidden while the game runs: pack orders (nobody, the owner included, sees a face-down pack);
a hand (its owner: the cards drawn into it, the cards leaving play with it); a committed card
(its owner, until the step's reveal); a card taken at random in a BATAYO and put face down
(the player it was taken from: it left their hand under their eyes; the taker takes blind),
turned face up with the cards of its step's reveal.
"""

from __future__ import annotations

from ...core.shapes import (
    CARDS,
    EACH,
    SEAT,
    Action,
    Bool,
    Card,
    Choice,
    Event,
    Hidden,
    Int,
    Ledger,
    ListOf,
    Nullable,
    Obj,
    Opt,
    Pattern,
)

PHASE = Choice(("trick", "sudden_death"))
_RANK = Choice(("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"))
REVEAL = {  # a step's reveal: the event, and the table's `last_reveal`
    "phase": PHASE,
    "trick": Int(0),
    "step": Int(0),
    "cards": ListOf(Nullable(Card())),
    "down": ListOf(Nullable(Card())),
    "best": _RANK,
    "tied": ListOf(SEAT),
    "winner": Nullable(SEAT),
}


def _random_gather(data: dict, options: dict) -> bool:
    return options["gather"] == "random"


ACTIONS = [
    Action(
        "play",
        {"card": Hidden(Card(), to="actor", until="reveal")},
        doc="commit a card from your hand, face down until everyone has",
    )
]

EVENTS = {
    "dealt": Event(
        {"packs": Hidden(ListOf(CARDS)), "aside": CARDS},
        ledger=Ledger(output=Hidden(CARDS)),
        doc='each seat\'s suit in the format, shuffled ("shuffled by an opponent")',
    ),
    "drew": Event(
        {"trick": Int(0), "step": Int(0), "cards": Hidden(ListOf(CARDS), to=EACH)},
        doc="rule 1: hands topped up to 4 from the packs",
    ),
    "committed": Event(
        {
            "seat": SEAT,
            "card": Hidden(Card(), to="seat", until="reveal"),
            "trick": Int(0),
            "step": Int(0),
            "phase": PHASE,
        },
        actor="seat",
        doc="rule 2: a card committed face down",
    ),
    "revealed": Event(
        REVEAL,
        reveals=True,
        doc="every committed card (and the BATAYO's face-down cards) turned at once",
    ),
    "batayo": Event(
        {"trick": Int(0), "step": Int(1), "seats": ListOf(SEAT), "rank": _RANK},
        doc="rule 3: a tie for the highest card, between the tied players only",
    ),
    "taken": Event(
        {
            "trick": Int(0),
            "step": Int(0),
            "seat": SEAT,
            "from": SEAT,
            "card": Hidden(Nullable(Card()), to="from", until="reveal"),
        },
        ledger=Ledger(
            input=Hidden(CARDS, to="from"), output=Hidden(Card(), to="from", until="reveal")
        ),
        doc="rule 3: a card taken at random from the next tied player's hand, face down",
    ),
    "trick_won": Event(
        {
            "trick": Int(0),
            "seat": SEAT,
            "batayos": Int(0),
            "cards": CARDS,
            "order": Hidden(CARDS, when=_random_gather),
        },
        ledger=Ledger(output=Hidden(CARDS)),
        doc="rule 2: the table's cards put under the winner's pack",
    ),
    "left_play": Event({"trick": Int(0), "cards": CARDS}, doc="nobody could win the table"),
    "out": Event(
        {
            "seat": SEAT,
            "reason": Choice(("lost_last_chance", "no_cards")),
            "trick": Int(0),
            "cards": Hidden(CARDS, to="seat"),
        },
        doc="rule 4: a player out of the game; their hand leaves play",
    ),
    "time_up": Event(
        {"trick": Int(0), "under_way": Bool()}, actor="clock", doc="rule 5: time has run out"
    ),
    "sudden_death": Event(
        {"round": Int(1), "seats": ListOf(SEAT), "cards": ListOf(Int(0))},
        doc="rule 6: several players share the most cards",
    ),
}

# -- what a seat sees (view.py) and the result's own fields ---------------------------------------

_PUT = Obj(
    {
        "card": Nullable(Card()),
        "how": Choice(("played", "taken")),
        "step": Int(0),
        "face": Choice(("down", "up")),
        "from": Opt(SEAT),
    },
    doc="a card on the table: `card` is null while the viewer may not see it; `from`: taken "
    "from that seat's hand",
)
_KNOWN_SEAT = Obj(
    {
        "fresh": Int(0),
        "blind": CARDS,
        "seen": CARDS,
        "under": Nullable(CARDS),
    },
    doc="what the public log tells of a seat's cards: `blind`, those of its deal nobody has "
    "seen (in its hand, face down on the table, or among the `fresh` cards on top of its pack); "
    "`seen`, its other cards; `under`, with ordered gathering, its pack under the fresh cards, "
    "top first (null with random gathering)",
)
# the view's `known`: one entry a seat (docs/rules/batayo.md#rule-2)
KNOWN = ListOf(_KNOWN_SEAT)
_PLAYER = Obj(
    {
        "seat": SEAT,
        "suit": Choice(("S", "H", "C", "D")),
        "pack": Int(0),
        "hand": Int(0),
        "cards": Int(0),
        "out": Bool(),
        "contender": Bool(),
        "committed": Bool(),
        "last_chance": Bool(),
        "table": ListOf(_PUT),
    }
)
_REVEAL = Obj(REVEAL)
TIME = Pattern(
    r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z",
    "date-time",
    examples=("2026-11-29T22:53:26.123456Z",),
)

TABLE = Obj(
    {
        "phase": Choice(("trick", "sudden_death", "over")),
        "trick": Int(0),
        "tricks": Int(0),
        "batayo": Int(0),
        "sudden_death": Int(0),
        "contenders": ListOf(SEAT),
        "players": ListOf(_PLAYER),
        "last_reveal": Nullable(_REVEAL),
        "batayos": Int(0),
        "aside": CARDS,
        "gone": Int(0),
        "deadline": Nullable(TIME),
        "time_up": Bool(),
        "under_way": Bool(),
        "hand": Opt(CARDS),
        "your_card": Opt(Nullable(Card())),
    },
    doc="`hand` and `your_card` (the card you committed): a seat's own, absent for a spectator",
)

RESULT = {
    "reason": Choice(
        (
            "last_player",
            "all_out",
            "round_limit",
            "time",
            "sudden_death",
            "sudden_death_draw",
            "event_limit",
            "abandoned",
        )
    ),
    "cards": ListOf(Int(0)),
    "batayos": Int(0),
    "sudden_death": Opt(ListOf(SEAT)),
}

PROBLEMS = {
    "eliminated": "you are out of the game",
    "already_committed": "you have already committed a card; it cannot change",
    "not_in_sudden_death": "only the tied players play the sudden death",
    "not_in_batayo": "only the tied players play a BATAYO",
    "card_not_in_hand": "the card is not in your hand",
}

DEAL = Obj({"packs": ListOf(CARDS)}, doc="a test deal: each seat's pack, top card first")

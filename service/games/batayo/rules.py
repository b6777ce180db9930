"""BATAYO, the rules: docs/rules/batayo.md (seed 000, official rules V1.4.43).

The table is a `Table` (below); every list in it is indexed by seat.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

from ...core.cards import RANKS, ranks_from, value
from ...core.game import Option, RuleError, bad_action, check_dealt, left_out, max_rounds, result
from ...core.state import GameState
from ...core.turn_kinds import CommitReveal

# A card a seat has put on the table in the current trick; `from`: whose hand a taken card
# came from (a keyword in Python, hence this spelling of the type)
Put = TypedDict(
    "Put",
    {
        "card": str,
        "how": Literal["played", "taken"],
        "step": int,
        "from": NotRequired[int],
        "shown": bool,
    },
)


class Table(TypedDict):
    packs: list[list[str]]  # top card first; won cards go under the pack
    hands: list[list[str]]  # in the order the cards entered the hand (the ledger needs it)
    # public knowledge (the view shows it): how many cards on top of each pack are still the
    # ones of its deal, and each seat's cards that nobody has seen since the deal
    fresh: list[int]
    blind: list[list[str]]
    out: list[bool]  # eliminated
    put: list[list[Put]]  # this trick's cards, in the order put down
    committed: list[str | None]  # the card each contender committed in this step
    phase: Literal["deal", "trick", "sudden_death"]
    trick: int  # the trick under way, from 1
    step: int  # 0: the trick's own cards, k: its k-th BATAYO; in sudden death, the round
    contenders: list[int]  # the seats whose card this step awaits
    trick_players: list[int]  # the seats in the game when the trick began
    last_chance: list[bool]  # played this trick with an empty pack
    aside: list[str]  # cards of the format a test deal left out
    gone: list[str]  # cards that left play
    tricks: int  # tricks played
    batayos: int  # BATAYO steps so far
    deepest: int  # the longest BATAYO chain
    clock_start: str | None  # rule 5: when the first trick began
    time_up: bool
    last: dict[str, Any] | None  # the latest `revealed` event's data, for the view


class State(GameState):
    table: NotRequired[Table]  # from `created` on


FORMATS = {"express": "7", "classique": "5", "longue": "2"}
SEAT_SUITS = ("S", "H", "C", "D")  # seat 0 spades, 1 hearts, 2 clubs, 3 diamonds
HAND = 4

OPTIONS = [
    Option("players", 2, min=2, max=4, doc="2 to 4 players"),
    Option(
        "format",
        "classique",
        choices=tuple(FORMATS),
        doc="express (7 to A, 8 cards each), classique (5 to A, 10), longue (2 to A, 13)",
    ),
    Option(
        "time_limit_s",
        None,
        min=1,
        max=86_400 * 7,
        nullable=True,
        type="integer",
        doc="seconds of play from the first trick; none: untimed",
    ),
    Option(
        "gather",
        "ordered",
        choices=("ordered", "random"),
        doc="order in which a winner puts the won cards under the pack",
    ),
    max_rounds(
        2000,
        "tricks after which the player with most cards wins (a BATAYO chain is one)",
        most=5000,
    ),
]


def seat_count(options: dict) -> int:
    return options["players"]


def ranks(options: dict) -> tuple[str, ...]:
    return ranks_from(FORMATS[options["format"]])


def pack_of(seat: int, options: dict) -> list[str]:
    """The cards of one seat's suit in the format, lowest first (a fixed, known order)."""
    return [r + SEAT_SUITS[seat] for r in ranks(options)]


def deck(options: dict) -> list[str]:
    return [c for s in range(options["players"]) for c in pack_of(s, options)]


def setup(options: dict) -> Table:
    n = options["players"]
    return {
        "packs": [[] for _ in range(n)],
        "hands": [[] for _ in range(n)],
        "fresh": [0] * n,
        "blind": [[] for _ in range(n)],
        "out": [False] * n,
        "put": [[] for _ in range(n)],
        "committed": [None] * n,
        "phase": "deal",
        "trick": 0,
        "step": 0,
        "contenders": [],
        "trick_players": [],
        "last_chance": [False] * n,
        "aside": [],
        "gone": [],
        "tricks": 0,
        "batayos": 0,
        "deepest": 0,
        "clock_start": None,
        "time_up": False,
        "last": None,
    }


# -- the deal ---------------------------------------------------------------------------------


def check_deal(deal: dict, options: dict) -> list[list[str]]:
    """A test deal `{"packs": [[top card first, ...], ...]}`: one pack per seat, each of the
    seat's own suit and the format's ranks, no card twice, at least one card each."""
    n = options["players"]
    packs = deal.get("packs") if isinstance(deal, dict) else None
    if not isinstance(deal, dict) or set(deal) != {"packs"} or not isinstance(packs, list):
        raise bad_action("deal must be {'packs': [[top card first, ...], ...]}, one pack a seat")
    if len(packs) != n:
        raise bad_action(f"deal must have {n} packs, one a seat")
    for seat, pack in enumerate(packs):
        if not isinstance(pack, list) or not pack:
            raise bad_action(f"the pack of seat {seat} needs at least one card")
    # each seat's pack holds its own suit, in the format's ranks
    return check_dealt(packs, lambda seat: set(pack_of(seat, options)))


def start(cmd, deal: dict | None) -> None:
    """Each seat gets its suit in the format, shuffled ("pack of seat N"); rule 1: hands of 4."""
    options = cmd.state["options"]
    n = options["players"]
    if deal is not None:
        packs = check_deal(deal, options)
        aside = left_out(deck(options), packs)
    else:
        packs = [
            cmd.rng.shuffle(pack_of(s, options), f"pack of seat {s}", deck=True) for s in range(n)
        ]
        aside = []
    cmd.emit("dealt", {"packs": packs, "aside": aside}, actor="server")
    _top_up(cmd, list(range(n)))
    _open_commits(cmd)


# -- whose move, and which ---------------------------------------------------------------------


def seats_out(state: State) -> list[int]:
    """The seats eliminated so far (docs/rules/batayo.md#rule-4)."""
    return [s for s, out in enumerate(state["table"]["out"]) if out]


def _owing(state: State) -> list[int]:
    """The contenders still to commit their card in this step."""
    t = state["table"]
    if t["phase"] not in ("trick", "sudden_death"):
        return []
    return [s for s in t["contenders"] if t["committed"][s] is None and not t["out"][s]]


# rule 2: every contender commits a card face down; they are revealed together
TURNS = CommitReveal(_owing, commit="committed", reveal="revealed")
to_move = TURNS.to_move


def legal_actions(state: State, seat: int | None) -> list[dict]:
    return [{"type": "play", "card": c} for c in state["table"]["hands"][seat]]


def waiting_reason(state: State, seat: int) -> RuleError:
    """Why `seat` may not play now (the generic layer raises it as a 409)."""
    t = state["table"]
    if t["out"][seat]:
        return RuleError("eliminated", "you are out of the game", 409)
    if t["committed"][seat] is not None:
        return RuleError(
            "already_committed", "you have already committed a card; it cannot change", 409
        )
    if t["phase"] == "sudden_death":
        return RuleError("not_in_sudden_death", "only the tied players play the sudden death", 409)
    if t["step"] > 0:
        return RuleError("not_in_batayo", "only the tied players play this BATAYO", 409)
    return RuleError("not_your_turn", "it is not your turn", 409)


# -- the command side ------------------------------------------------------------------------


def decide(cmd, seat: int, action: dict) -> None:
    state, t = cmd.state, cmd.state["table"]
    card = action["card"]
    if card not in t["hands"][seat]:
        raise RuleError("card_not_in_hand", f"{card} is not in your hand")
    cmd.emit(
        TURNS.commit,
        {"seat": seat, "card": card, "trick": t["trick"], "step": t["step"], "phase": t["phase"]},
    )
    if TURNS.complete(state):
        _resolve(cmd)


def _top_up(cmd, seats: list[int]) -> None:
    """Rule 1: each of `seats` tops its hand up to 4 from its pack, while the pack lasts."""
    t = cmd.state["table"]
    cards = [[] for _ in t["hands"]]
    for s in seats:
        if not t["out"][s]:
            cards[s] = t["packs"][s][: max(0, HAND - len(t["hands"][s]))]
    if any(cards):
        cmd.emit("drew", {"trick": t["trick"], "step": t["step"], "cards": cards}, actor="server")


def _open_commits(cmd) -> None:
    """A choice is now due from every contender. Rule 4: "a player with no card at all when a
    choice is due is out, and the cards they put on the table stay there"."""
    t = cmd.state["table"]
    for s in list(t["contenders"]):
        if not t["hands"][s] and not t["packs"][s]:
            _out(cmd, s, "no_cards")
    if t["phase"] == "trick" and t["step"] == 0:
        _check_end(cmd)
    elif TURNS.complete(cmd.state):
        _resolve(cmd)


def _out(cmd, seat: int, reason: str, trick: int | None = None) -> None:
    t = cmd.state["table"]
    data = {
        "seat": seat,
        "reason": reason,
        "trick": t["trick"] if trick is None else trick,
        "cards": list(t["hands"][seat]),
    }
    cmd.emit("out", data, actor="server")


def _resolve(cmd) -> None:
    """Every contender has committed: reveal together, then the step's winner or a new tie."""
    t = cmd.state["table"]
    n = len(t["hands"])
    ups = [(s, t["committed"][s]) for s in t["contenders"] if t["committed"][s] is not None]
    if not ups:  # every contender went out without a card: nobody wins the table
        _trick_over(cmd, None)
        return
    best = max(value(c) for _, c in ups)
    tied = [s for s, c in ups if value(c) == best]
    played: list[str | None] = [None] * n
    down: list[str | None] = [None] * n
    for s, c in ups:
        played[s] = c
    for s in range(n):
        for entry in t["put"][s]:
            if entry["how"] == "taken" and entry["step"] == t["step"] and not entry["shown"]:
                down[s] = entry["card"]
    cmd.emit(
        TURNS.reveal,
        {
            "phase": t["phase"],
            "trick": t["trick"],
            "step": t["step"],
            "cards": played,
            "down": down,
            "best": RANKS[best - 2],
            "tied": tied if len(tied) > 1 else [],
            "winner": tied[0] if len(tied) == 1 else None,
        },
        actor="server",
    )
    if t["phase"] == "sudden_death":
        _sudden_death_step(cmd, tied)
    elif len(tied) == 1:  # rule 2: the single highest card wins everything on the table
        _trick_over(cmd, tied[0])
    else:  # rule 3: a tie for the highest card starts a BATAYO between the tied players only
        _batayo(cmd, tied)


def _batayo(cmd, tied: list[int]) -> None:
    """Rule 3: top up to 4; each takes at random one card from the hand of the next tied player
    clockwise and puts it face down (lowest taking seat first; an empty hand gives nothing);
    top up again; then a new card from each, committed face down."""
    t = cmd.state["table"]
    cmd.emit(
        "batayo",
        {"trick": t["trick"], "step": t["step"] + 1, "seats": tied, "rank": t["last"]["best"]},
        actor="server",
    )
    _top_up(cmd, tied)
    for i, taker in enumerate(tied):
        victim = tied[(i + 1) % len(tied)]
        hand = t["hands"][victim]
        data = {"trick": t["trick"], "step": t["step"], "seat": taker, "from": victim}
        if hand:
            data["card"] = cmd.rng.choice(hand, f"BATAYO: seat {taker} takes from seat {victim}")
        else:
            data["card"] = None
        cmd.emit("taken", data, actor="server")
    _top_up(cmd, tied)
    _open_commits(cmd)


def gather_order(t: Table, winner: int) -> list[str]:
    """Rule 2, `ordered`: the winner's own cards first, then the others clockwise from the
    winner, each player's cards in the order they were put down."""
    n = len(t["put"])
    return [e["card"] for i in range(n) for e in t["put"][(winner + i) % n]]


def _trick_over(cmd, winner: int | None) -> None:
    """The winner takes the table (or, with no winner, it leaves play); rule 4 eliminations;
    rule 1 top-up; then the game may end."""
    state, t = cmd.state, cmd.state["table"]
    losers = [
        s for s in t["trick_players"] if t["last_chance"][s] and s != winner and not t["out"][s]
    ]
    steps, trick = t["step"], t["trick"]
    if winner is None:
        cards = [e["card"] for put in t["put"] for e in put]
        cmd.emit("left_play", {"trick": t["trick"], "cards": cards}, actor="server")
    else:
        won = gather_order(t, winner)
        data = {"trick": t["trick"], "seat": winner, "batayos": steps, "cards": won}
        if state["options"]["gather"] == "random":
            data["order"] = cmd.rng.shuffle(won, f"gather: trick {t['trick']} won by seat {winner}")
        else:
            data["order"] = list(won)
        cmd.emit("trick_won", data, actor="server")
    for s in losers:  # rule 4: played with an empty pack and did not win: out
        _out(cmd, s, "lost_last_chance", trick)
    _top_up(cmd, [s for s in range(len(t["out"])) if not t["out"][s]])
    _open_commits(cmd)


def _counts(t: Table) -> list[int]:
    return [len(h) + len(p) for h, p in zip(t["hands"], t["packs"], strict=True)]


def _check_end(cmd) -> None:
    """Between tricks: last player standing, time (rule 5), or the trick cap."""
    state, t = cmd.state, cmd.state["table"]
    alive = [s for s, out in enumerate(t["out"]) if not out]
    counts = _counts(t)
    extra = {"cards": counts, "batayos": t["batayos"]}
    if len(alive) <= 1:  # rule 4: the last player wins; all out at once: a draw
        cmd.end(result(alive, "last_player" if alive else "all_out", t["tricks"], **extra))
    elif t["time_up"]:
        _time_finish(cmd)
    elif t["tricks"] >= state["options"]["max_rounds"]:
        cmd.end(_leader_wins(state, "round_limit"))


def _leader_wins(state, reason: str) -> dict:
    """The player still in with the most cards (hand and pack) wins; equal leaders draw."""
    t = state["table"]
    counts = _counts(t)
    alive = [s for s, out in enumerate(t["out"]) if not out]
    top = max(counts)
    leaders = [s for s in alive if counts[s] == top]
    extra = {"cards": counts, "batayos": t["batayos"]}
    return result(leaders if len(leaders) == 1 else [], reason, t["tricks"], **extra)


def over_budget(state) -> dict:
    """docs/rules/common.md#event-budget: at the event budget the game stops where it is, even
    within a trick or a BATAYO; the player still in with the most cards in hand and pack wins (cards
    put down in the trick count for nobody), equal leaders draw (reason `event_limit`)."""
    return _leader_wins(state, "event_limit")


def _time_finish(cmd) -> None:
    """Rule 5: most cards (hand + pack) wins; rule 6: several with the most play sudden death."""
    t = cmd.state["table"]
    counts = _counts(t)
    alive = [s for s, out in enumerate(t["out"]) if not out]
    top = max(counts[s] for s in alive)
    leaders = [s for s in alive if counts[s] == top]
    if len(leaders) == 1:
        cmd.end(result(leaders, "time", t["tricks"], cards=counts, batayos=t["batayos"]))
        return
    _sudden_death_round(cmd, leaders, 1)


def _sudden_death_round(cmd, seats: list[int], round_: int) -> None:
    """Rule 6: the tied players alone, each with the hand as it stands; no drawing."""
    t = cmd.state["table"]
    able = [s for s in seats if t["hands"][s]]
    counts = _counts(t)
    if not able:  # "if the tied players run out of hand cards without a winner": a draw
        cmd.end(
            result(
                [],
                "sudden_death_draw",
                t["tricks"],
                cards=counts,
                batayos=t["batayos"],
                sudden_death=seats,
            )
        )
        return
    if len(able) == 1:  # the others have no card left to play: the one who still has wins
        cmd.end(result(able, "sudden_death", t["tricks"], cards=counts, batayos=t["batayos"]))
        return
    cmd.emit(
        "sudden_death",
        {"round": round_, "seats": able, "cards": [counts[s] for s in able]},
        actor="server",
    )


def _sudden_death_step(cmd, tied: list[int]) -> None:
    t = cmd.state["table"]
    if len(tied) == 1:  # "the highest wins the game"
        counts = _counts(t)
        cmd.end(result(tied, "sudden_death", t["tricks"], cards=counts, batayos=t["batayos"]))
    else:  # "those tied for the highest go again with a new card"
        _sudden_death_round(cmd, tied, t["step"] + 1)


# -- the clock (rule 5) -------------------------------------------------------------------------


def deadline(state: State) -> str | None:
    from ...core.game import add_seconds

    t, limit = state["table"], state["options"].get("time_limit_s")
    if limit is None or t["clock_start"] is None:
        return None
    return add_seconds(t["clock_start"], limit)


def timers(state: State) -> list[tuple[str, str]]:
    """The time limit, while it has not run out."""
    due = deadline(state)
    if due is None or state["table"]["time_up"] or state["status"] != "playing":
        return []
    return [("time_limit", due)]


def under_way(t: Table) -> bool:
    """A trick is under way once at least one card of it is committed (or a BATAYO is on)."""
    return t["phase"] == "trick" and (t["step"] > 0 or any(c is not None for c in t["committed"]))


def on_timer(cmd, key: str) -> None:
    """Rule 5: time is up. A trick under way is played to its end (BATAYOs included), then the
    game stops; between tricks it stops at once."""
    if key != "time_limit":
        return
    t = cmd.state["table"]
    busy = under_way(t)
    cmd.emit("time_up", {"trick": t["trick"], "under_way": busy})
    if not busy:
        _time_finish(cmd)


# -- the reducer -------------------------------------------------------------------------------


def apply(state: State, event: dict) -> None:
    t, d, kind = state["table"], event["data"], event["type"]
    n = len(t["hands"])
    if kind == "dealt":
        t["packs"] = [list(p) for p in d["packs"]]
        t["fresh"] = [len(p) for p in d["packs"]]
        t["blind"] = [sorted(p) for p in d["packs"]]
        t["aside"] = list(d["aside"])
        t["phase"] = "trick"
        t["trick"] = 1
        t["contenders"] = list(range(n))
        t["trick_players"] = list(range(n))
        t["clock_start"] = event["at"]  # rule 5: the clock starts with the first trick
    elif kind == "drew":
        for s, cards in enumerate(d["cards"]):
            if cards:
                if "fresh" in t:  # a snapshot older than the public knowledge has none
                    t["fresh"][s] = max(0, t["fresh"][s] - len(cards))
                t["packs"][s] = t["packs"][s][len(cards) :]
                t["hands"][s] = t["hands"][s] + list(cards)
    elif kind == "committed":
        s, card = d["seat"], d["card"]
        if t["phase"] == "trick" and t["step"] == 0:
            t["last_chance"][s] = not t["packs"][s]
        t["hands"][s] = [c for c in t["hands"][s] if c != card]
        t["put"][s].append({"card": card, "how": "played", "step": t["step"], "shown": False})
        t["committed"][s] = card
    elif kind == "revealed":
        for s, put in enumerate(t["put"]):
            for entry in put:
                entry["shown"] = True
                owner = entry["from"] if entry["how"] == "taken" else s
                if "blind" in t and entry["card"] in t["blind"][owner]:
                    t["blind"][owner] = [c for c in t["blind"][owner] if c != entry["card"]]
        t["last"] = {k: d[k] for k in ("phase", "trick", "step", "cards", "down", "best")}
        t["last"]["winner"] = d["winner"]
        t["last"]["tied"] = list(d["tied"])
    elif kind == "batayo":
        t["step"] = d["step"]
        t["contenders"] = list(d["seats"])
        t["committed"] = [None] * n
        t["batayos"] += 1
        t["deepest"] = max(t["deepest"], d["step"])
    elif kind == "taken":
        if d["card"] is not None:
            victim = d["from"]
            t["hands"][victim] = [c for c in t["hands"][victim] if c != d["card"]]
            t["put"][d["seat"]].append(
                {
                    "card": d["card"],
                    "how": "taken",
                    "step": d["step"],
                    "from": victim,
                    "shown": False,
                }
            )
    elif kind == "trick_won":
        t["packs"][d["seat"]] = t["packs"][d["seat"]] + list(d["order"])
        _next_trick(t)
    elif kind == "left_play":
        t["gone"] = t["gone"] + list(d["cards"])
        _next_trick(t)
    elif kind == "out":
        s = d["seat"]
        t["out"][s] = True
        t["gone"] = t["gone"] + t["hands"][s] + t["packs"][s]
        t["hands"][s], t["packs"][s] = [], []
        if "fresh" in t:
            t["fresh"][s], t["blind"][s] = 0, []
        t["contenders"] = [c for c in t["contenders"] if c != s]
    elif kind == "time_up":
        t["time_up"] = True
    elif kind == "sudden_death":
        t["phase"] = "sudden_death"
        t["step"] = d["round"]
        t["contenders"] = list(d["seats"])
        t["committed"] = [None] * n


def _next_trick(t: Table) -> None:
    n = len(t["hands"])
    t["put"] = [[] for _ in range(n)]
    t["committed"] = [None] * n
    t["tricks"] += 1
    t["trick"] += 1
    t["step"] = 0
    alive = [s for s in range(n) if not t["out"][s]]
    t["contenders"] = list(alive)
    t["trick_players"] = list(alive)
    t["last_chance"] = [False] * n


def cards(state: State) -> list[str]:
    t = state["table"]
    held = [c for pile in t["packs"] + t["hands"] for c in pile]
    table = [e["card"] for put in t["put"] for e in put]
    return held + table + t["aside"] + t["gone"]


def rounds(state: State) -> int:
    return state["table"]["tricks"]

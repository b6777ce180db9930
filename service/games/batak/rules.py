"""Batak: docs/rules/batak.md (seed 002). The rules, the reducer and what each seat sees.

The table is a `Table` (below): the deal in play (its auction, contract, trump and tricks),
and over the whole game the scores of every deal played.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

from ...core.cards import SUITS, suit, value
from ...core.cards import deck as full_deck
from ...core.game import (
    Option,
    RuleError,
    bad_action,
    check_dealt,
    max_rounds,
    not_your_turn,
    result,
)
from ...core.state import GameState
from ...core.turn_kinds import Sequential

SEATS = 4
TRICKS = 13
MAX_BID = 13

SUIT_NAMES = {"S": "spade", "H": "heart", "D": "diamond", "C": "club"}
RANK_NAMES = {"J": "jack", "Q": "queen", "K": "king", "A": "ace"}


OPTIONS = [
    Option(
        "mode",
        "ihaleli",
        choices=("ihaleli", "esli"),
        doc="ihaleli: auction, each for themselves; esli: teams, seats 0+2 against 1+3",
    ),
    Option("deals", 5, choices=(3, 5, 10), doc="deals in a game (more while the top is tied)"),
    Option("first_dealer", 0, min=0, max=3, doc="the seat that deals first"),
    Option(
        "must_overtake_when_trumped",
        True,
        doc="a player following suit must beat the led suit's highest card even after a trump",
    ),
    max_rounds(40, "deals after which the leader wins (round_limit)", most=100),
]


class Played(TypedDict):
    seat: int
    card: str


class Call(TypedDict):
    """One call of the auction, in order."""

    seat: int
    type: Literal["bid", "pass"]
    tricks: NotRequired[int]  # a bid's


class Trick(TypedDict):
    number: int  # 1 to 13
    leader: int
    cards: list[Played]  # in play order
    winner: int


class Table(TypedDict):
    deal: int  # the deal in play, from 1
    deals_played: int
    dealer: int
    phase: Literal["dealing", "bidding", "trump", "play", "scored"]
    turn: int | None  # the seat awaited
    hands: list[list[str]]  # by seat, in the order dealt, less the cards played
    auction: list[Call]
    passed: list[bool]  # by seat
    high_bid: int | None
    high_bidder: int | None
    declarer: int | None
    bid: int | None  # the contract: tricks the declarer must take
    trump: str | None  # a suit
    trump_broken: bool
    trick: list[Played]  # the trick in play
    leader: int | None  # who leads it
    tricks: list[Trick]  # this deal's, completed
    tricks_taken: list[int]  # by seat
    scores: list[dict[str, Any]]  # over the game: each deal's `deal_scored` record
    totals: list[int]  # by seat; in `esli` a seat's total is its team's


class State(GameState):
    table: NotRequired[Table]  # from `created` on


def seat_count(options: dict) -> int:
    return SEATS


def deck(options: dict) -> list[str]:
    return full_deck()


def teams(options: dict) -> list[list[int]]:
    """The scoring units: the two teams in `esli`, else every seat alone."""
    if options["mode"] == "esli":
        return [[0, 2], [1, 3]]
    return [[s] for s in range(SEATS)]


def min_bid(options: dict) -> int:
    """Rule 1: minimum 4 (`esli`: 7)."""
    return 7 if options["mode"] == "esli" else 4


def card_name(card: str) -> str:
    rank = card[:-1]
    return f"the {RANK_NAMES.get(rank, rank)} of {SUIT_NAMES[suit(card)]}s"


def setup(options: dict) -> Table:
    return {
        "deal": 0,
        "deals_played": 0,
        "dealer": options["first_dealer"],
        "phase": "dealing",
        "turn": None,
        "hands": [[] for _ in range(SEATS)],
        "auction": [],
        "passed": [False] * SEATS,
        "high_bid": None,
        "high_bidder": None,
        "declarer": None,
        "bid": None,
        "trump": None,
        "trump_broken": False,
        "trick": [],
        "leader": None,
        "tricks": [],
        "tricks_taken": [0] * SEATS,
        "scores": [],
        "totals": [0] * SEATS,
    }


# -- the legal cards (rule 3) ----------------------------------------------------------------------


def refusal(
    hand: list[str],
    trick: list[Played],
    trump: str,
    broken: bool,
    overtake_when_trumped: bool,
    card: str,
) -> tuple[str, str] | None:
    """Why `card` may not be played now (a stable code and words), or None if it may.

    docs/rules/batak.md#rule-3, in its order: follow suit, and beat the led suit's highest card if
    you can (even when the trick has been trumped, per `must_overtake_when_trumped`); void: a
    trump, higher than every trump in the trick if you can; neither: any card; leading: no trump
    until trump is broken, unless the hand holds only trumps.
    """
    if card not in hand:
        return "card_not_in_hand", f"{card} is not in your hand"
    if not trick:
        if suit(card) == trump and not broken and any(suit(c) != trump for c in hand):
            return (
                "trump_not_broken",
                f"trump ({SUIT_NAMES[trump]}s) is not broken yet: no trump has been played on "
                "another suit's lead, and you hold other suits, so you may not lead a trump",
            )
        return None
    led = suit(trick[0]["card"])
    follow = [c for c in hand if suit(c) == led]
    if follow:
        if suit(card) != led:
            return "must_follow_suit", f"you hold a {SUIT_NAMES[led]}: you must follow suit"
        trumped = led != trump and any(suit(p["card"]) == trump for p in trick)
        if trumped and not overtake_when_trumped:
            return None
        top = max((p["card"] for p in trick if suit(p["card"]) == led), key=value)
        if value(card) < value(top) and any(value(c) > value(top) for c in follow):
            higher = ", ".join(c for c in follow if value(c) > value(top))
            return (
                "must_overtake",
                f"you can beat {card_name(top)}, the highest {SUIT_NAMES[led]} in the trick: "
                f"you must play a higher one ({higher})",
            )
        return None
    trumps = [c for c in hand if suit(c) == trump]
    if trumps:
        if suit(card) != trump:
            return (
                "must_trump",
                f"you have no {SUIT_NAMES[led]} but you hold a trump: you must play a "
                f"{SUIT_NAMES[trump]}",
            )
        in_trick = [p["card"] for p in trick if suit(p["card"]) == trump]
        if in_trick:
            top = max(in_trick, key=value)
            if value(card) < value(top) and any(value(c) > value(top) for c in trumps):
                higher = ", ".join(c for c in trumps if value(c) > value(top))
                return (
                    "must_overtrump",
                    f"you can beat {card_name(top)}, the highest trump in the trick: you must "
                    f"play a higher trump ({higher})",
                )
    return None


def legal_cards(
    hand: list[str], trick: list[Played], trump: str, broken: bool, overtake_when_trumped: bool
) -> list[str]:
    return [
        c for c in hand if refusal(hand, trick, trump, broken, overtake_when_trumped, c) is None
    ]


def trick_winner(trick: list[Played], trump: str) -> int:
    """Rule 4: the highest trump, else the highest card of the led suit."""
    led = suit(trick[0]["card"])
    trumps = [p for p in trick if suit(p["card"]) == trump]
    pool = trumps or [p for p in trick if suit(p["card"]) == led]
    return max(pool, key=lambda p: value(p["card"]))["seat"]


# -- the deal ------------------------------------------------------------------------------------


def check_deal(deal: Any, options: dict) -> list[list[str]]:
    """A test deal for the first deal: `{"hands": [[13 cards], x4]}`, all 52 cards once each."""
    hands = deal.get("hands") if isinstance(deal, dict) else None
    if not isinstance(deal, dict) or set(deal) != {"hands"} or not isinstance(hands, list):
        raise bad_action("deal must be {'hands': [[13 cards] for each of the 4 seats]}")
    if len(hands) != SEATS or any(not isinstance(h, list) or len(h) != TRICKS for h in hands):
        raise bad_action("deal must give 13 cards to each of the 4 seats")
    allowed = set(full_deck())
    return check_dealt(hands, lambda _: allowed, "hand")


def start(cmd, deal: dict | None) -> None:
    _deal(cmd, check_deal(deal, cmd.state["options"]) if deal is not None else None)


def _deal(cmd, hands: list[list[str]] | None) -> None:
    """Shuffle the 52 cards and deal them one at a time, starting at the dealer's right.

    The first deal is dealt by `first_dealer`; the deal then passes to the right (seat + 1).
    """
    t = cmd.state["table"]
    number = t["deal"] + 1
    dealer = t["dealer"] if number == 1 else (t["dealer"] + 1) % SEATS
    if hands is None:
        cards = cmd.rng.shuffle(full_deck(), f"deck for deal {number}", deck=True)
        hands = [[] for _ in range(SEATS)]
        for i, card in enumerate(cards):
            hands[(dealer + 1 + i) % SEATS].append(card)
    cmd.emit("dealt", {"deal": number, "dealer": dealer, "hands": hands}, actor="server")


# -- whose move, and which ------------------------------------------------------------------------


def _turn(state: State) -> int | None:
    return state["table"]["turn"]


TURNS = Sequential(_turn)  # rules 1 to 3: one seat bids, names trump or plays at a time
to_move = TURNS.to_move


def _dealer_forced(t: Table, seat: int) -> bool:
    """Rule 1: the first three players passed, so the dealer must bid."""
    return seat == t["dealer"] and t["high_bid"] is None and sum(t["passed"]) == SEATS - 1


def _lowest_bid(t: Table, options: dict) -> int:
    low = min_bid(options)
    return low if t["high_bid"] is None else max(low, t["high_bid"] + 1)


def legal_actions(state: State, seat: int) -> list[dict]:
    t, options = state["table"], state["options"]
    if t["phase"] == "bidding":
        bids = [{"type": "bid", "tricks": n} for n in range(_lowest_bid(t, options), MAX_BID + 1)]
        return bids if _dealer_forced(t, seat) else [*bids, {"type": "pass"}]
    if t["phase"] == "trump":
        return [{"type": "trump", "suit": s} for s in SUITS]
    if t["phase"] == "play":
        hand = t["hands"][seat]
        cards = legal_cards(
            hand, t["trick"], t["trump"], t["trump_broken"], options["must_overtake_when_trumped"]
        )
        return [{"type": "play", "card": c} for c in cards]
    return []


def waiting_reason(state: State, seat: int) -> RuleError:
    t = state["table"]
    if t["turn"] is None:
        return not_your_turn("nobody is to move now")
    doing = {"bidding": "bid", "trump": "name trump", "play": "play"}.get(t["phase"], "move")
    return not_your_turn(f"it is seat {t['turn']}'s turn to {doing}")


# -- the command side -----------------------------------------------------------------------------

_PHASE_OF = {"bid": "bidding", "pass": "bidding", "trump": "trump", "play": "play"}
_PHASE_WORDS = {
    "bidding": "the auction is on: bid or pass",
    "trump": "the declarer must name trump now",
    "play": "the cards are being played",
}


def decide(cmd, seat: int, action: dict) -> None:
    state = cmd.state
    t = state["table"]
    kind = action["type"]
    if _PHASE_OF[kind] != t["phase"]:
        raise RuleError("wrong_phase", f"you cannot {kind} now: {_PHASE_WORDS[t['phase']]}", 409)
    if kind in ("bid", "pass"):
        _decide_bid(cmd, seat, action)
    elif kind == "trump":
        cmd.emit("trump", {"seat": seat, "suit": action["suit"]})
    else:
        _decide_play(cmd, seat, action["card"])


def _decide_bid(cmd, seat: int, action: dict) -> None:
    """Rule 1: bid higher than the highest bid so far (minimum 4, `esli` 7; maximum 13) or pass
    for good; the auction ends when all others have passed or someone bids 13; if the first three
    pass, the dealer must bid."""
    state = cmd.state
    t, options = state["table"], state["options"]
    if action["type"] == "pass":
        if _dealer_forced(t, seat):
            raise RuleError(
                "dealer_must_bid",
                f"the first three players passed: as dealer you must bid, "
                f"{min_bid(options)} or more",
            )
        cmd.emit("pass", {"seat": seat})
    else:
        tricks = action["tricks"]
        low = min_bid(options)
        if tricks < low:
            raise RuleError("bid_too_low", f"the minimum bid is {low}")
        if t["high_bid"] is not None and tricks <= t["high_bid"]:
            raise RuleError(
                "bid_too_low",
                f"you must bid more than {t['high_bid']}, the highest bid so far",
            )
        if tricks > MAX_BID:
            raise RuleError("bid_too_high", f"the maximum bid is {MAX_BID}")
        cmd.emit("bid", {"seat": seat, "tricks": tricks})
    t = state["table"]
    if t["high_bid"] == MAX_BID or (t["high_bid"] is not None and sum(t["passed"]) == SEATS - 1):
        cmd.emit("declarer", {"seat": t["high_bidder"], "bid": t["high_bid"]}, actor="server")


def _decide_play(cmd, seat: int, card: str) -> None:
    state = cmd.state
    t, options = state["table"], state["options"]
    why = refusal(
        t["hands"][seat],
        t["trick"],
        t["trump"],
        t["trump_broken"],
        options["must_overtake_when_trumped"],
        card,
    )
    if why:
        raise RuleError(*why)
    cmd.emit("played", {"seat": seat, "card": card})
    t = state["table"]
    if len(t["trick"]) < SEATS:
        return
    cmd.emit(
        "trick",
        {
            "number": len(t["tricks"]) + 1,
            "leader": t["leader"],
            "cards": [dict(p) for p in t["trick"]],
            "winner": trick_winner(t["trick"], t["trump"]),
        },
        actor="server",
    )
    if len(state["table"]["tricks"]) == TRICKS:
        _score_deal(cmd)


def deal_points(
    tricks: list[int], declarer: int, bid: int, options: dict
) -> tuple[list[int], bool]:
    """Rule 5: the declarer (`esli`: the declaring team, tricks pooled) makes the bid: + tricks
    taken; fails: - bid. Everyone else: + 1 a trick. Points per seat (a team's for each member)."""
    points = [0] * SEATS
    made = True
    for unit in teams(options):
        taken = sum(tricks[s] for s in unit)
        if declarer in unit:
            made = taken >= bid
            taken = taken if made else -bid
        for s in unit:
            points[s] = taken
    return points, made


def _score_deal(cmd) -> None:
    state = cmd.state
    t, options = state["table"], state["options"]
    points, made = deal_points(t["tricks_taken"], t["declarer"], t["bid"], options)
    totals = [a + b for a, b in zip(t["totals"], points, strict=True)]
    data = {
        "deal": t["deal"],
        "dealer": t["dealer"],
        "declarer": t["declarer"],
        "bid": t["bid"],
        "trump": t["trump"],
        "tricks": list(t["tricks_taken"]),
        "made": made,
        "points": points,
        "totals": totals,
    }
    cmd.emit("deal_scored", data, actor="server")
    _after_deal(cmd)


def _after_deal(cmd) -> None:
    """Rule 6: `deals` deals; highest total wins; a tie at the top plays one more deal, again until
    it breaks. docs/rules/common.md#round-limit: after `max_rounds` deals the leader wins
    (`round_limit`)."""
    state = cmd.state
    t, options = state["table"], state["options"]
    played = t["deals_played"]
    leaders, single, extra = _standing(state)
    if played >= options["deals"] and single:
        cmd.end(result(leaders, "deals_played", played, **extra))
    elif played >= options["max_rounds"]:
        cmd.end(result(leaders if single else [], "round_limit", played, **extra))
    else:
        _deal(cmd, None)


def _standing(state) -> tuple[list[int], bool, dict[str, Any]]:
    """The seats with the highest total (a team's both seats in `esli`), whether one player or
    team alone has it, and the scores the result reports."""
    t, options = state["table"], state["options"]
    units = teams(options)
    unit_totals = [t["totals"][u[0]] for u in units]
    top = max(unit_totals)
    leaders = [s for u, total in zip(units, unit_totals, strict=True) if total == top for s in u]
    extra: dict[str, Any] = {"scores": list(t["totals"])}
    if options["mode"] == "esli":
        extra["team_scores"] = unit_totals
    return leaders, len(leaders) == len(units[0]), extra


def over_budget(state) -> dict:
    """docs/rules/common.md#event-budget: at the event budget the game stops where it is; the deal
    in play is not scored, and the highest total of the deals scored wins (in `esli`, the team's), a
    tie at the top draws (reason `event_limit`)."""
    leaders, single, extra = _standing(state)
    played = state["table"]["deals_played"]
    return result(leaders if single else [], "event_limit", played, **extra)


# -- the reducer ----------------------------------------------------------------------------------


def _next_bidder(t: Table, seat: int) -> int | None:
    for step in range(1, SEATS + 1):
        other = (seat + step) % SEATS
        if not t["passed"][other]:
            return other
    return None


def apply(state: State, event: dict) -> None:
    t, d, kind = state["table"], event["data"], event["type"]
    if kind == "dealt":
        t.update(
            deal=d["deal"],
            dealer=d["dealer"],
            phase="bidding",
            turn=(d["dealer"] + 1) % SEATS,
            hands=[list(h) for h in d["hands"]],
            auction=[],
            passed=[False] * SEATS,
            high_bid=None,
            high_bidder=None,
            declarer=None,
            bid=None,
            trump=None,
            trump_broken=False,
            trick=[],
            leader=None,
            tricks=[],
            tricks_taken=[0] * SEATS,
        )
    elif kind == "bid":
        t["auction"].append({"seat": d["seat"], "type": "bid", "tricks": d["tricks"]})
        t["high_bid"], t["high_bidder"] = d["tricks"], d["seat"]
        t["turn"] = _next_bidder(t, d["seat"])
    elif kind == "pass":
        t["auction"].append({"seat": d["seat"], "type": "pass"})
        t["passed"][d["seat"]] = True
        t["turn"] = _next_bidder(t, d["seat"])
    elif kind == "declarer":
        t.update(declarer=d["seat"], bid=d["bid"], phase="trump", turn=d["seat"])
    elif kind == "trump":
        t.update(trump=d["suit"], phase="play", leader=d["seat"], turn=d["seat"])
    elif kind == "played":
        seat, card = d["seat"], d["card"]
        t["hands"][seat].remove(card)
        if t["trick"] and suit(card) == t["trump"] and suit(t["trick"][0]["card"]) != t["trump"]:
            t["trump_broken"] = True
        t["trick"].append({"seat": seat, "card": card})
        t["turn"] = (seat + 1) % SEATS
    elif kind == "trick":
        t["tricks"].append(
            {
                "number": d["number"],
                "leader": d["leader"],
                "cards": [dict(p) for p in d["cards"]],
                "winner": d["winner"],
            }
        )
        t["trick"] = []
        t["tricks_taken"][d["winner"]] += 1
        t["leader"] = t["turn"] = d["winner"]
        if len(t["tricks"]) == TRICKS:
            t["turn"] = None
    elif kind == "deal_scored":
        t["scores"].append(dict(d))
        t["totals"] = list(d["totals"])
        t["deals_played"] = d["deal"]
        t["phase"] = "scored"
        t["turn"] = None


def cards(state: State) -> list[str]:
    t = state["table"]
    held = [c for h in t["hands"] for c in h]
    return (
        held
        + [p["card"] for p in t["trick"]]
        + [p["card"] for tr in t["tricks"] for p in tr["cards"]]
    )


def rounds(state: State) -> int:
    """Deals played (what `max_rounds` counts)."""
    return state["table"]["deals_played"]

"""BatailleRoylet: the rules (docs/rules/roylet.md, seed 003), command side and reducer.

Seat 0 is the King, seats 1 and 2 the Allies; the table is a `Table` (below). Where the French
text leaves room (who plays first and with which face, the order of rules 7 and 5, rule 6's
trick, void rounds and the streak, the deal), the reading is docs/rules/roylet.md's.
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

from ...core.cards import deck as full_deck
from ...core.cards import rank
from ...core.game import Option, RuleError, bad_action, check_dealt, not_your_turn, result
from ...core.state import GameState
from ...core.turn_kinds import CommitReveal, Sequential

Side = Literal["king", "allies"]


class Played(TypedDict):
    seat: int
    card: str


class Put(TypedDict):
    """The current battle's cards."""

    down: Played | None  # an Ally's face-down card
    up: Played | None  # the other Ally's face-up card
    king: str | None
    revealed: bool  # the face-down card turned


class RoundResult(TypedDict):
    round: int
    result: Literal["king", "allies", "void"]
    reason: str
    tricks: dict[Side, int]  # tricks each side took
    battles: int


class Table(TypedDict):
    round: int  # the round being played (void rounds count here: they were played)
    played: int  # rounds finished
    counted: int  # rounds that count (not void)
    results: list[RoundResult]  # one a finished round
    streak: int  # rounds the King has lost in a row (a void round leaves it as it is)
    voids: int  # void rounds in a row
    hands: list[list[str]]  # by seat, in the order the cards entered the hand
    out: list[str]  # the 20 cards out of play this round
    battle: int  # the battle being played, 1 to 10
    battles_played: int  # in this round
    put: Put
    tricks: dict[Side, list[list[str]]]  # a trick: [face-down card, face-up card, King's card]
    captured: list[str]  # the royals the Allies captured this round
    kings_taken: list[str]  # kings the King took from the Allies this round
    phase: Literal["battle", "between"]  # between: a round has ended, until the next deal


class State(GameState):
    table: NotRequired[Table]  # from `created` on


KING, ALLIES = 0, (1, 2)
BATTLES = 10
ROYALS = ("JS", "JH", "JD", "JC", "KH")
KING_OF_HEARTS = "KH"
NINE_OF_HEARTS = "9H"
KING_DEALT, ALLY_DEALT = 7, 10
FACES = ("down", "up")

OPTIONS = [
    Option("rounds", 12, min=1, max=100, doc="counted rounds the King must survive"),
    Option("losing_streak", 3, min=1, max=100, doc="rounds lost in a row that end the game"),
    Option("max_replays", 12, min=0, max=100, doc="void rounds in a row allowed; one more: a draw"),
]


def seat_count(options: dict) -> int:
    return 3


# Rule 3, on a doubled scale so the 9 of hearts fits between two ranks: 2..9, J Q K 10 A.
_STRENGTH = {str(n): 2 * n for n in range(2, 10)} | {"J": 22, "Q": 24, "K": 26, "10": 28, "A": 30}
_NINE_OF_HEARTS = {"ally": 23, "king": 29}  # just above J (Ally), just above 10 (King)


def deck(options: dict | None = None) -> list[str]:
    return full_deck()


def others() -> list[str]:
    """The 47 cards that are not royals, in deck order: what each round shuffles."""
    return [c for c in full_deck() if c not in ROYALS]


def setup(options: dict) -> Table:
    return {
        "round": 0,
        "played": 0,
        "counted": 0,
        "results": [],
        "streak": 0,
        "voids": 0,
        "hands": [[], [], []],
        "out": [],
        "battle": 0,
        "battles_played": 0,
        "put": _empty_put(),
        "tricks": {"king": [], "allies": []},
        "captured": [],
        "kings_taken": [],
        "phase": "between",
    }


def _empty_put() -> Put:
    return {"down": None, "up": None, "king": None, "revealed": False}


# -- strength (rule 3) ---------------------------------------------------------------------------


def strength(card: str, side: str) -> int:
    """A card's strength when played by `side` ("king" or "ally")."""
    if card == NINE_OF_HEARTS:
        return _NINE_OF_HEARTS[side]
    return _STRENGTH[rank(card)]


def allies_take(down: str, up: str, king: str) -> bool:
    """Rule 3: the Allies take the battle only if one of their two cards is strictly stronger than
    the King's, or if the King played an ace and they played an ace. Otherwise the King does."""
    k = strength(king, "king")
    if any(strength(c, "ally") > k for c in (down, up)):
        return True
    return rank(king) == "A" and any(rank(c) == "A" for c in (down, up))


def forbidden(captured: list[str]) -> bool:
    """Rule 5: the king of hearts with any jack, or three jacks."""
    jacks = sum(1 for c in captured if rank(c) == "J")
    return jacks >= 3 or (KING_OF_HEARTS in captured and jacks >= 1)


def royals_in_hand(t: Table) -> int:
    return sum(1 for c in t["hands"][KING] if c in ROYALS)


# -- the deal (rule 1) ---------------------------------------------------------------------------


def check_deal(deal: object, options: dict) -> list[list[str]]:
    """A test deal for round 1: `{"hands": [King's 12 (the 5 royals among them), Ally 1's 10,
    Ally 2's 10]}`, no card twice. Later rounds are shuffled as usual."""
    hands = deal.get("hands") if isinstance(deal, dict) else None
    if not isinstance(deal, dict) or set(deal) != {"hands"} or not isinstance(hands, list):
        raise bad_action("deal must be {'hands': [King's 12 cards, Ally 1's 10, Ally 2's 10]}")
    sizes = (len(ROYALS) + KING_DEALT, ALLY_DEALT, ALLY_DEALT)
    if len(hands) != 3 or any(
        not isinstance(h, list) or len(h) != n for h, n in zip(hands, sizes, strict=True)
    ):
        raise bad_action("the deal's hands must hold 12, 10 and 10 cards")
    allowed = set(full_deck())
    check_dealt(hands, lambda _: allowed, "hand")
    missing = [c for c in ROYALS if c not in hands[KING]]
    if missing:
        raise bad_action(f"the King always holds the royals; missing: {', '.join(missing)}")
    return [list(h) for h in hands]


def _deal(cmd, round_: int, deal: dict | None = None) -> None:
    """Rule 1: the royals to the King and 7 more; 10 to each Ally; the other 20 out of play."""
    if deal is not None:
        hands = check_deal(deal, cmd.state["options"])
        dealt = {c for h in hands for c in h}
        out = [c for c in full_deck() if c not in dealt]
    else:
        cards = cmd.rng.shuffle(
            others(), f"round {round_}: the cards that are not royals", deck=True
        )
        a, b = KING_DEALT, KING_DEALT + ALLY_DEALT
        hands = [[*ROYALS, *cards[:a]], cards[a:b], cards[b : b + ALLY_DEALT]]
        out = cards[b + ALLY_DEALT :]
    cmd.emit("dealt", {"round": round_, "hands": hands, "out": out}, actor="server")


def start(cmd, deal: dict | None) -> None:
    _deal(cmd, 1, deal)


# -- whose move, and which -----------------------------------------------------------------------


def _played(t: Table, seat: int) -> bool:
    put = t["put"]
    return any(put[f] is not None and put[f]["seat"] == seat for f in FACES)


def _allies_owing(state: State) -> list[int]:
    """The Allies still to play in this battle."""
    t = state["table"]
    return [s for s in ALLIES if not _played(t, s)] if t["phase"] == "battle" else []


def _king(state: State) -> int | None:
    """The King plays once both faces are down (and before the reveal)."""
    t = state["table"]
    down, up = t["put"]["down"], t["put"]["up"]
    return KING if t["phase"] == "battle" and down is not None and up is not None else None


# rule 2: the Allies play at once, one face down (sealed until the reveal), one face up; then
# the King plays, face up; then the face-down card is turned
TURNS = CommitReveal(_allies_owing, commit="played", reveal="revealed", then=Sequential(_king))
to_move = TURNS.to_move


PARTNER_PATIENCE_S = 5


def bot_patience(state: State, seat: int) -> float:
    """An Ally bot lets its human partner choose the face first (rule 2: "the Allies choose
    which of them plays face down"): it waits min(5 s, the move clock) for the partner's card."""
    if seat == KING:
        return 0
    partner = ALLIES[0] if seat == ALLIES[1] else ALLIES[1]
    if state["seats"][partner].get("bot") or _played(state["table"], partner):
        return 0
    timeout = state["options"].get("move_timeout_s")
    return min(PARTNER_PATIENCE_S, timeout) if timeout else PARTNER_PATIENCE_S


def _faces_left(t: Table) -> list[str]:
    return [f for f in FACES if t["put"][f] is None]


def legal_actions(state: State, seat: int) -> list[dict]:
    t = state["table"]
    hand = t["hands"][seat]
    if seat == KING:
        return [{"type": "play", "card": c} for c in hand]
    return [{"type": "play", "card": c, "face": f} for c in hand for f in _faces_left(t)]


def waiting_reason(state: State, seat: int) -> RuleError:
    """Why a seat may not act now (the generic layer asks when the seat is not awaited)."""
    t = state["table"]
    if t["phase"] != "battle":
        return not_your_turn("the round is over")
    if seat == KING:
        if t["put"]["up"] is None:
            return RuleError(
                "king_plays_after_face_up", "the King plays after the face-up card", 409
            )
        return RuleError(
            "king_plays_after_face_down",
            "the King plays once the face-down card is committed",
            409,
        )
    if seat in ALLIES and _played(t, seat):
        return RuleError("already_played", "you have already played in this battle", 409)
    return not_your_turn()


# -- the command side ----------------------------------------------------------------------------


def decide(cmd, seat: int, action: dict) -> None:
    t = cmd.state["table"]
    if (seat == KING) == ("face" in action):
        shape = (
            '{"type": "play", "card": C} (the King always plays face up)'
            if seat == KING
            else '{"type": "play", "card": C, "face": "down" or "up"}'
        )
        raise bad_action(f"the action here is {shape}")
    card = action["card"]
    if seat == KING:
        if card not in t["hands"][KING]:
            raise RuleError("card_not_in_hand", f"{card} is not in your hand")
        cmd.emit(
            "played",
            {"round": t["round"], "battle": t["battle"], "seat": seat, "card": card, "face": "up"},
        )
        _resolve(cmd)
        return
    face = action["face"]
    if t["put"][face] is not None:
        raise RuleError(
            "face_taken",
            f"your partner already played face {face}: you play face {_faces_left(t)[0]}",
            409,
        )
    if card not in t["hands"][seat]:
        raise RuleError("card_not_in_hand", f"{card} is not in your hand")
    cmd.emit(
        "played",
        {"round": t["round"], "battle": t["battle"], "seat": seat, "card": card, "face": face},
    )


def _resolve(cmd) -> None:
    """The hidden card is turned (rule 2), the taker keeps the trick (rules 3-5, 7)."""
    t = cmd.state["table"]
    put, round_, battle = t["put"], t["round"], t["battle"]
    down, up, king = put["down"], put["up"], put["king"]
    cmd.emit(
        TURNS.reveal,
        {"round": round_, "battle": battle, "seat": down["seat"], "card": down["card"]},
        actor="server",
    )
    allies = allies_take(down["card"], up["card"], king)
    cmd.emit(
        "trick",
        {
            "round": round_,
            "battle": battle,
            "taker": "allies" if allies else "king",
            "cards": [down["card"], up["card"], king],
            "seats": [down["seat"], up["seat"], KING],
            "captured": [king] if allies and king in ROYALS else [],
            "kings_taken": []
            if allies
            else [c for c in (down["card"], up["card"]) if rank(c) == "K"],
        },
        actor="server",
    )
    left = BATTLES - t["battles_played"]
    if len(t["kings_taken"]) >= 2:  # rule 7
        _end_round(cmd, "king", "two_kings")
    elif royals_in_hand(t) > left:  # rule 5
        _end_round(cmd, "allies", "royals_unplayed")
    elif left == 0:
        _count(cmd)


def _count(cmd) -> None:
    """Rules 6 and 8, after the tenth battle."""
    t = cmd.state["table"]
    if KING_OF_HEARTS in t["captured"] and t["tricks"]["king"]:
        index = len(t["tricks"]["king"]) - 1  # his most recent trick
        cmd.emit(
            "king_penalty",
            {"round": t["round"], "index": index, "trick": t["tricks"]["king"][index]},
            actor="server",
        )
    king, allies = len(t["tricks"]["king"]), len(t["tricks"]["allies"])
    if allies > king:
        _end_round(cmd, "allies", "tricks")
    elif forbidden(t["captured"]):
        _end_round(cmd, "void", "forbidden_capture")
    else:
        _end_round(cmd, "king", "tricks")


def _end_round(cmd, winner: str, reason: str) -> None:
    """Record the round; then the game may end (rule 9), else the next round is dealt."""
    state, t = cmd.state, cmd.state["table"]
    options = state["options"]
    streak, voids, counted = t["streak"], t["voids"], t["counted"]
    if winner == "void":
        voids += 1
    else:
        voids, counted = 0, counted + 1
        streak = streak + 1 if winner == "allies" else 0
    cmd.emit(
        "round_ended",
        {
            "round": t["round"],
            "result": winner,
            "reason": reason,
            "tricks": {"king": len(t["tricks"]["king"]), "allies": len(t["tricks"]["allies"])},
            "captured": list(t["captured"]),
            "kings_taken": list(t["kings_taken"]),
            "battles": t["battles_played"],
            "counted": counted,
            "streak": streak,
            "voids": voids,
        },
        actor="server",
    )
    if streak >= options["losing_streak"]:
        cmd.end(_result(state, [1, 2], "losing_streak"))
    elif counted >= options["rounds"]:
        cmd.end(_result(state, [KING], "rounds_survived"))
    elif voids > options["max_replays"]:
        cmd.end(_result(state, [], "too_many_replays"))
    else:
        _deal(cmd, t["round"] + 1)


def over_budget(state: State) -> dict:
    """docs/rules/common.md#event-budget: at the event budget the game stops where it is; the King
    has not survived his rounds and the Allies have not beaten him often enough in a row, so nobody
    wins: a draw (reason `event_limit`)."""
    return _result(state, [], "event_limit")


def _result(state: State, winners: list[int], reason: str) -> dict:
    t = state["table"]
    return result(
        winners,
        reason,
        t["played"],
        counted=t["counted"],
        round_results=[r["result"] for r in t["results"]],
        void_rounds=sum(1 for r in t["results"] if r["result"] == "void"),
        streak=t["streak"],
    )


# -- the reducer ---------------------------------------------------------------------------------


def apply(state: State, event: dict) -> None:
    t, d, kind = state["table"], event["data"], event["type"]
    if kind == "dealt":
        t.update(
            round=d["round"],
            hands=[list(h) for h in d["hands"]],
            out=list(d["out"]),
            battle=1,
            battles_played=0,
            put=_empty_put(),
            tricks={"king": [], "allies": []},
            captured=[],
            kings_taken=[],
            phase="battle",
        )
    elif kind == "played":
        seat, card = d["seat"], d["card"]
        t["hands"][seat] = [c for c in t["hands"][seat] if c != card]
        if seat == KING:
            t["put"]["king"] = card
        else:
            t["put"][d["face"]] = {"seat": seat, "card": card}
    elif kind == "revealed":
        t["put"]["revealed"] = True
    elif kind == "trick":
        t["tricks"][d["taker"]].append(list(d["cards"]))
        t["captured"] += d["captured"]
        t["kings_taken"] += d["kings_taken"]
        t["put"] = _empty_put()
        t["battles_played"] += 1
        t["battle"] = min(t["battles_played"] + 1, BATTLES)
    elif kind == "king_penalty":
        trick = t["tricks"]["king"].pop(d["index"])
        t["tricks"]["allies"].append(trick)
    elif kind == "round_ended":
        t["results"].append(
            {
                "round": d["round"],
                "result": d["result"],
                "reason": d["reason"],
                "tricks": dict(d["tricks"]),
                "battles": d["battles"],
            }
        )
        t.update(
            played=t["played"] + 1,
            counted=d["counted"],
            streak=d["streak"],
            voids=d["voids"],
            phase="between",
        )


def cards(state: State) -> list[str]:
    t = state["table"]
    held = [c for h in t["hands"] for c in h] + t["out"]
    put = t["put"]
    on_table = [put[f]["card"] for f in FACES if put[f]] + ([put["king"]] if put["king"] else [])
    tricks = [c for side in ("king", "allies") for trick in t["tricks"][side] for c in trick]
    return held + on_table + tricks


def rounds(state: State) -> int:
    """Rounds played (finished), void rounds included."""
    return state["table"]["played"]

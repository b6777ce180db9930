"""La Bataille (War), the rules: docs/rules/bataille.md (seed 004).

The table is a `Table` (below): each seat's pack and won pile, who is out, the pot, what each
contender has put in the current step, and the cards set aside out of play.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, NotRequired, TypedDict

from ...core.cards import CARD_VALUE, RANKS, ranks_from
from ...core.cards import deck as full_deck
from ...core.game import (
    Option,
    RuleError,
    bad_action,
    check_dealt,
    left_out,
    max_rounds,
    result,
)
from ...core.state import GameState
from ...core.turn_kinds import CommitReveal, Simultaneous
from .variants import VARIANTS, variant

if TYPE_CHECKING:  # the rules are handed a command; they never make one
    from ...core.command import Command


class Put(TypedDict):
    """What a contender has put in this step: its face-up card (None if it had none left) and
    its face-down ones."""

    up: str | None
    down: list[str]


class Table(TypedDict):
    packs: list[list[str]]  # by seat, the top card first
    won: list[list[str]]  # by seat, the pile of cards won, in the order won
    out: list[bool]  # by seat
    aside: list[str]  # out of play: the deal's odd cards, a pot nobody won
    pot: list[str]  # the cards on the table, in the order they reached it
    pot_down: list[str]  # those of them put face down
    put: list[Put | None]  # by seat, in the current step
    contenders: list[int]  # the seats playing this step: everybody in, or a bataille's tied
    step: int  # the round's turn is step 0, each bataille one more
    revealed: bool  # a variant that chooses: this step's face-up cards turned
    round: int  # rounds finished
    seen: str  # ordered gathering: each round's starting position's key, end to end (rule 8)
    repeat: int | None  # the round whose position came back (rule 8)
    # public knowledge, kept in the variant that chooses (the view shows it): by seat, the cards
    # everyone knows are in its pack, and in its won pile (taken face up, not put down since)
    public_pack: NotRequired[list[list[str]]]
    public_won: NotRequired[list[list[str]]]


class State(GameState):
    table: NotRequired[Table]  # from `created` on


OPTIONS = [
    Option("players", 2, min=2, max=6, doc="2 to 6 players"),
    Option("deck", 52, choices=(32, 52), doc="32 (7 to A) or 52 cards"),
    Option("variant", "classique", choices=tuple(VARIANTS)),
    Option("gather", "random", choices=("random", "ordered"), doc="how a won pile becomes a pack"),
    Option("shortfall", "forfeit", choices=("forfeit", "play_out")),
    max_rounds(
        10_000, "rounds after which the leader wins (a bataille chain counts once)", most=20_000
    ),
]


def seat_count(options: dict) -> int:
    return options["players"]


def deck(options: dict) -> list[str]:
    return full_deck(ranks_from("7") if options["deck"] == 32 else RANKS)


def setup(options: dict) -> Table:
    n = options["players"]
    table: Table = {
        "packs": [[] for _ in range(n)],
        "won": [[] for _ in range(n)],
        "out": [False] * n,
        "aside": [],
        "pot": [],
        "pot_down": [],
        "put": [None] * n,
        "contenders": [],
        "step": 0,
        "revealed": False,
        "round": 0,
        "seen": "",
        "repeat": None,
    }
    if variant(options).chooses:  # the only variant whose seats, and bots, choose a card
        table["public_pack"] = [[] for _ in range(n)]
        table["public_won"] = [[] for _ in range(n)]
    return table


# -- the deal ---------------------------------------------------------------------------------


def check_deal(deal: dict, options: dict) -> list[list[str]]:
    """A test deal `{"packs": [[top first, ...], ...]}`: one non-empty pack per seat, no card twice."""
    packs = deal.get("packs") if isinstance(deal, dict) else None
    if set(deal) != {"packs"} or not isinstance(packs, list) or len(packs) != options["players"]:
        raise bad_action(f"deal must be {{'packs': [...]}} with {options['players']} packs")
    if any(not isinstance(p, list) or not p for p in packs):
        raise bad_action("every pack of the deal needs at least one card")
    allowed = set(deck(options))
    return check_dealt(packs, lambda _: allowed)


def start(cmd: Command, deal: dict | None) -> None:
    """Rule 1: shuffle; the last `deck mod players` cards are set aside; deal one at a time."""
    options = cmd.state["options"]
    n = options["players"]
    if deal is not None:
        packs = check_deal(deal, options)
        aside = left_out(deck(options), packs)
    else:
        cards = cmd.rng.shuffle(deck(options), "deck", deck=True)
        keep = len(cards) - len(cards) % n
        aside = cards[keep:]
        packs = [[] for _ in range(n)]
        for i, card in enumerate(cards[:keep]):
            packs[i % n].insert(0, card)  # a dealt card lands on top of the seat's pile
    cmd.emit("dealt", {"packs": packs, "aside": aside}, actor="server")


# -- whose move, and which ---------------------------------------------------------------------


def _need(state: State) -> int:
    """Cards a contender puts in this step: 1 in the round's turn, the variant's in a bataille."""
    step = state["table"]["step"]
    return 1 if step == 0 else variant(state["options"]).bataille_cards


def seats_out(state: State) -> list[int]:
    """The seats out of the game so far (docs/rules/bataille.md#rule-7)."""
    return [s for s, out in enumerate(state["table"]["out"]) if out]


def _owing(state: State) -> list[int]:
    """The contenders still to put their cards in this step (one out of the game puts none)."""
    t = state["table"]
    put, out = t["put"], t["out"]
    return [s for s in t["contenders"] if put[s] is None and not out[s]]


# rules 2 and 4: every contender of a step puts its cards, in any order; in a variant that
# chooses, the chosen cards are committed face down and revealed together
TURNS = Simultaneous(_owing)
CHOICES = CommitReveal(_owing, commit="committed", reveal="revealed")
to_move = TURNS.to_move


def waiting_reason(state: State, seat: int) -> RuleError:
    """Why a seat that is not awaited may not act now (a precise 409)."""
    t = state["table"]
    if t["out"][seat]:
        return RuleError("out", "you are out of the game", 409)
    if t["put"][seat] is not None:
        return RuleError("already_played", "you have already put your cards for this step", 409)
    if seat not in t["contenders"]:
        return RuleError("not_in_bataille", "only the tied players play this bataille", 409)
    return RuleError("not_your_turn", "it is not your turn", 409)


def _available(state: State, seat: int) -> list[str]:
    """The cards a seat can put now: its pack, and its won pile when the pack is too short."""
    t = state["table"]
    pack = t["packs"][seat]
    return pack + t["won"][seat] if len(pack) < _need(state) else list(pack)


def legal_actions(state: State, seat: int) -> list[dict]:
    if not variant(state["options"]).chooses:
        return [{"type": "flip"}]
    cards = _available(state, seat)
    if _need(state) == 1:
        return [{"type": "play", "card": c} for c in cards]
    return [{"type": "play", "card": c, "down": d} for c in cards for d in cards if c != d]


# -- the command side ------------------------------------------------------------------------


def _turn_pack(cmd: Command, seat: int) -> None:
    """Rule 5, for a pack too short for the cards of this step: the won pile, if any, goes under
    it (shuffled when `gather` is random)."""
    t = cmd.state["table"]
    if not t["won"][seat]:
        return
    data: dict[str, Any] = {"seat": seat, "count": len(t["won"][seat])}
    if cmd.state["options"]["gather"] == "random":
        data["order"] = cmd.rng.shuffle(t["won"][seat], f"won pile of seat {seat}")
    cmd.emit("pack_turned", data, actor="server")


def decide(cmd: Command, seat: int, action: dict) -> None:
    if action["type"] == "flip":  # the framework offers `flip` only where nobody chooses
        # rule 2: the seat turns the top card of its pack (in a bataille, one face down first)
        need = _need(cmd.state)
        packs = cmd.state["table"]["packs"]
        if len(packs[seat]) < need:
            _turn_pack(cmd, seat)
        pack = packs[seat]
        cmd.emit("flipped", {"seat": seat, "up": pack[need - 1], "down": pack[: need - 1]})
    else:
        _choose(cmd, seat, action)
    _settle(cmd)


def _choose(cmd: Command, seat: int, action: dict) -> None:
    """A variant that chooses: the seat picks its card(s), committed face down, revealed
    together."""
    state = cmd.state
    need = _need(state)
    if need == 1 and "down" in action:
        raise bad_action('no card goes face down outside a bataille: {"type": "play", "card": C}')
    if need == 2 and "down" not in action:
        raise RuleError("down_card_required", "in a bataille you also choose a face-down card")
    cards = [action["card"], *([action["down"]] if need == 2 else [])]
    available = _available(state, seat)
    for card in cards:
        if card not in available:
            raise RuleError("card_not_in_hand", f"{card} is not in your pack")
    if len(set(cards)) != len(cards):
        raise RuleError("same_card_twice", "the face-up and face-down cards must differ")
    if len(state["table"]["packs"][seat]) < need:
        _turn_pack(cmd, seat)
    cmd.emit(CHOICES.commit, {"seat": seat, "card": cards[0], "down": cards[1:]})


def _settle(cmd: Command) -> None:
    """Once every contender has put its cards: reveal, then take, bataille, or end the round."""
    state: State = cmd.state
    t = state["table"]
    while TURNS.complete(state):
        contenders = t["contenders"]
        put = t["put"]
        if not t["revealed"] and variant(state["options"]).chooses:
            shown = {str(s): p["up"] for s in contenders if (p := put[s]) and p["up"]}
            cmd.emit(CHOICES.reveal, {"up": shown}, actor="server")
        # every contender has put its cards
        tied = highest((s, p["up"] if (p := put[s]) else None) for s in contenders)
        if not tied:  # rule 6: every player of the bataille is out
            cmd.emit("left_play", {"count": len(t["pot"]) + put_count(t["put"])}, actor="server")
            _end_round(cmd)
            return
        if len(tied) == 1:  # rule 3: the single highest card takes every card on the table
            cmd.emit(
                "took",
                {
                    "seat": tied[0],
                    "count": len(t["pot"]) + put_count(t["put"]),
                    "round": t["round"] + 1,
                },
                actor="server",
            )
            _end_round(cmd)
            return
        # rule 4: a tie for the highest is a bataille between the tied players only
        cmd.emit(
            "bataille",
            {"seats": tied, "round": t["round"] + 1, "step": t["step"] + 1},
            actor="server",
        )
        for seat in tied:
            _shortfall(cmd, seat)


def highest(ups: Iterable[tuple[int, str | None]]) -> list[int]:
    """The seats whose face-up card is the highest (rule 3: one takes the table; rule 4: more
    play a bataille), from each contender's seat and face-up card (None: it put none)."""
    best, tied = 0, []
    for seat, up in ups:
        if up:
            v = CARD_VALUE[up]
            if v > best:
                best, tied = v, [seat]
            elif v == best:
                tied.append(seat)
    return tied


def put_count(put: list[Put | None]) -> int:
    """The cards put in the current step (`put`: the table's, by seat)."""
    count = 0
    for p in put:
        if p:
            count += len(p["down"]) + (p["up"] is not None)
    return count


def _shortfall(cmd: Command, seat: int) -> None:
    """Rule 6: a contender without enough cards for the bataille."""
    state: State = cmd.state
    t = state["table"]
    have = len(t["packs"][seat]) + len(t["won"][seat])
    if have >= _need(state):
        return
    _turn_pack(cmd, seat)  # the pack is shorter still
    cards = list(t["packs"][seat])
    if state["options"]["shortfall"] == "play_out" and cards:
        # what they have, the face-up card first; out only with no card at all
        cmd.emit(
            "short", {"seat": seat, "up": cards[0], "down": cards[1:], "out": False}, actor="server"
        )
    else:
        cmd.emit("short", {"seat": seat, "up": None, "down": cards, "out": True}, actor="server")


def _counts(t: Table) -> list[int]:
    """Each seat's cards (pack and won pile): counted only when the game ends."""
    return [len(p) + len(w) for p, w in zip(t["packs"], t["won"], strict=True)]


def _end_round(cmd: Command) -> None:
    """Rule 7: players left without cards are out; then the game may end."""
    state: State = cmd.state
    t = state["table"]
    packs, won = t["packs"], t["won"]
    for seat, out in enumerate(t["out"]):
        if not out and not packs[seat] and not won[seat]:
            cmd.emit("out", {"seat": seat, "reason": "no_cards"}, actor="server")
    alive = [s for s, out in enumerate(t["out"]) if not out]
    rounds = t["round"]
    if len(alive) <= 1:
        cmd.end(result(alive, "all_cards" if alive else "no_cards", rounds, cards=_counts(t)))
    elif t["repeat"] is not None:  # rule 8
        cmd.end(result([], "cycle", rounds, cards=_counts(t), cycle_start=t["repeat"]))
    elif rounds >= state["options"]["max_rounds"]:
        cmd.end(_leader_wins(state, "round_limit"))


def _leader_wins(state: State, reason: str) -> dict:
    """The player still in with the most cards (pack and won pile) wins; equal leaders draw."""
    t = state["table"]
    counts = _counts(t)
    alive = [s for s, out in enumerate(t["out"]) if not out]
    top = max(counts)
    leaders = [s for s in alive if counts[s] == top]
    return result(leaders if len(leaders) == 1 else [], reason, t["round"], cards=counts)


def over_budget(state: State) -> dict:
    """docs/rules/common.md#event-budget: at the event budget the game stops where it is, even
    within a round or a bataille; the player with the most cards in pack and won pile wins (cards on
    the table count for nobody), equal leaders draw (reason `event_limit`)."""
    return _leader_wins(state, "event_limit")


# -- the reducer -------------------------------------------------------------------------------


def apply(state: State, event: dict) -> None:
    t = state["table"]
    d: dict = event["data"]
    kind: str = event["type"]
    if kind == "dealt":
        t["packs"] = [list(p) for p in d["packs"]]
        t["aside"] = list(d["aside"])
        t["contenders"] = list(range(len(t["packs"])))
        _remember_position(state)
    elif kind == "pack_turned":
        seat = d["seat"]
        t["packs"][seat] = t["packs"][seat] + d.get("order", t["won"][seat])
        t["won"][seat] = []
        if "public_won" in t:  # a snapshot older than the public knowledge has none
            t["public_pack"][seat] += t["public_won"][seat]
            t["public_won"][seat] = []
    elif kind == "flipped" or kind == "committed":
        seat = d["seat"]
        up = d["up"] if kind == "flipped" else d["card"]
        down = d["down"]
        pack = t["packs"][seat]
        for card in [*down, up]:
            pack.remove(card)
        t["put"][seat] = {"up": up, "down": list(down)}
        if kind == "flipped":  # a committed card is public only once revealed
            _forget(t, seat, up, bool(down))
    elif kind == "revealed":
        t["revealed"] = True
        for seat, put in enumerate(t["put"]):
            if put:
                _forget(t, seat, put["up"], bool(put["down"]))
    elif kind == "short":
        seat = d["seat"]
        t["packs"][seat], t["won"][seat] = [], []
        t["put"][seat] = {"up": d["up"], "down": list(d["down"])}
        _forget(t, seat, None, True)
        t["out"][seat] = t["out"][seat] or d["out"]
    elif kind == "bataille":
        _collect(t)
        t["contenders"] = list(d["seats"])
        t["step"] += 1
    elif kind == "took":
        _collect(t)
        t["won"][d["seat"]] += t["pot"]
        if "public_won" in t:
            t["public_won"][d["seat"]] += [c for c in t["pot"] if c not in t["pot_down"]]
        _next_round(state)
    elif kind == "left_play":
        _collect(t)
        t["aside"] += t["pot"]
        _next_round(state)
    elif kind == "out":
        t["out"][d["seat"]] = True
        t["contenders"] = [s for s in t["contenders"] if s != d["seat"]]


def _forget(t: Table, seat: int, up: str | None, down: bool) -> None:
    """The face-up card leaves the seat's known cards; a card put face down might be any of
    them, so then nobody knows where its known cards are any more."""
    if "public_pack" not in t:
        return
    if down:
        t["public_pack"][seat], t["public_won"][seat] = [], []
    elif up in t["public_pack"][seat] or up in t["public_won"][seat]:
        t["public_pack"][seat] = [c for c in t["public_pack"][seat] if c != up]
        t["public_won"][seat] = [c for c in t["public_won"][seat] if c != up]


def _collect(t: Table) -> None:
    """The step's cards join the pot: seat by seat, each seat's cards in the order put down."""
    pot, pot_down = t["pot"], t["pot_down"]
    for put in t["put"]:
        if put:
            down = put["down"]
            if down:
                pot += down
                pot_down += down
            if put["up"]:
                pot.append(put["up"])
    t["put"] = [None] * len(t["put"])
    t["revealed"] = False


def _next_round(state: State) -> None:
    t = state["table"]
    t["pot"], t["pot_down"] = [], []
    t["round"] += 1
    t["step"] = 0
    t["contenders"] = [s for s, out in enumerate(t["out"]) if not out]
    if state["options"]["gather"] == "ordered":
        _remember_position(state)


def _remember_position(state: State) -> None:
    """Rule 8: with `ordered` gathering, note each round's starting position (pack and won pile
    as one sequence, by seat); a position seen before is a cycle, from the round it started."""
    if state["options"]["gather"] != "ordered":
        return
    t = state["table"]
    text = "|".join(",".join(p + w) for p, w in zip(t["packs"], t["won"], strict=True))
    key = hashlib.blake2b(text.encode(), digest_size=_KEY // 2).hexdigest()
    t["repeat"] = round_seen(t["seen"], key)
    if t["repeat"] is None:
        t["seen"] += key


# The positions' keys grow by one a round, and a state is copied on every action: a list of
# keys (`round_seen_plain`) would be copied whole each time, so they are kept end to end in
# one string, which a copy shares (docs/performance.md#bataille-positions; the two are checked
# against each other in tests/test_bataille_rules.py).
_KEY = 16  # hex digits of a position's key


def round_seen_plain(keys: list[str], key: str) -> int | None:
    """The round (from 1) whose starting position had `key`, or None: keys in round order."""
    return keys.index(key) + 1 if key in keys else None


def round_seen(keys: str, key: str) -> int | None:
    """`round_seen_plain` over the keys written end to end in one string."""
    at = keys.find(key)
    while at != -1 and at % _KEY:  # only whole keys count
        at = keys.find(key, at + 1)
    return None if at == -1 else at // _KEY + 1


def cards(state: State) -> list[str]:
    t = state["table"]
    held = [c for pile in t["packs"] + t["won"] for c in pile]
    put = [c for p in t["put"] if p for c in [*p["down"], *([p["up"]] if p["up"] else [])]]
    return held + t["pot"] + put + t["aside"]


def rounds(state: State) -> int:
    return state["table"]["round"]

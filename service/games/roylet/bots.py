"""BatailleRoylet's bots for both roles, reading only the seat's view: `random`, `greedy` (the
King's safety estimates, the Allies' strong card face down and lure face up) and `strong`;
how each plays is in docs/bots.md#how-the-simpler-bots-play.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Mapping

from ...core import search
from ...core.cards import deck as full_deck
from ...core.cards import rank
from ...core.game import BotRng, random_bot
from . import playout
from .rules import (
    BATTLES,
    FACES,
    KING,
    KING_OF_HEARTS,
    NINE_OF_HEARTS,
    ROYALS,
    royals_in_hand,
    strength,
)


def _king_unseen(table: dict) -> list[str]:
    """The cards the King cannot place: the Allies' hands and the cards out of play."""
    seen = set(table["hand"]) | set(ROYALS)
    for side in ("king", "allies"):
        for trick in table["trick_cards"][side]:
            seen.update(trick)
    up = table["table"]["up"]
    if up is not None:
        seen.add(up["card"])
    return [c for c in full_deck() if c not in seen]


# Rule 3 as two tables: an Ally's card beats the King's when its strength is above the King's
# card's bar (his strength, one less for an ace: an Ally's ace takes his ace).
_ALLY = {c: strength(c, "ally") for c in full_deck()}
_BAR = {c: strength(c, "king") - (rank(c) == "A") for c in full_deck()}
_JACK = strength("JS", "king")


def _beats(ally_card: str, king_card: str) -> bool:
    return _ALLY[ally_card] > _BAR[king_card]


def _king_greedy(view: dict) -> dict:
    table = view["table"]
    hand = table["hand"]
    up = table["table"]["up"]["card"]
    unseen = sorted(_ALLY[c] for c in _king_unseen(table))
    known: dict[str, float] = {}

    def win_p(card: str) -> float:
        if card in known:
            return known[card]
        if _beats(up, card):
            p = 0.0
        elif not unseen:
            p = 1.0
        else:  # 1 - (the unseen cards that beat it) / (the unseen cards)
            p = 1 - (len(unseen) - bisect_right(unseen, _BAR[card])) / len(unseen)
        known[card] = p
        return p

    left = table["battles_left"]
    royals = [c for c in hand if c in ROYALS]
    others = [c for c in hand if c not in ROYALS]
    # a royal where it is safest; the jacks before the king of hearts when equally safe
    by_safety = sorted(royals, key=lambda c: (-win_p(c), c == "KH"))
    if royals:
        slack = left - len(royals)  # battles he can still spend on other cards
        threshold = 0.5 if slack >= 4 else 0.3 if slack >= 2 else 0.0
        if slack <= 0 or win_p(by_safety[0]) >= threshold:
            return {"type": "play", "card": by_safety[0]}
    if not others:
        return {"type": "play", "card": by_safety[0]}
    winners = [c for c in others if win_p(c) >= 0.6 or (rank(up) == "K" and win_p(c) > 0.4)]
    if winners:
        card = min(winners, key=lambda c: strength(c, "king"))
    else:
        card = min(others, key=lambda c: strength(c, "king"))
    return {"type": "play", "card": card}


def _ally_greedy(view: dict) -> dict:
    table = view["table"]
    up = table["table"]["up"]
    return _ally_choice(
        table["hand"],
        {a["face"] for a in view["legal_actions"]},
        table["battles_left"],
        table["royals_in_hand"],
        None if up is None else up["card"],
    )


def _ally_choice(
    hand: list[str], faces: set[str], battles_left: int, royals: int, up: str | None
) -> dict:
    """The greedy Ally's card: its strongest (or cheapest over a jack) face down when the King
    likely plays a royal, else its weakest face up; any card down when the partner's ace is up."""
    by_strength = sorted(hand, key=_ALLY.__getitem__)
    royal_likely = royals / max(battles_left, 1) >= 0.5
    partner_sure = up is not None and rank(up) == "A"  # an Ally's ace always takes
    if "down" in faces and not partner_sure:
        over_jack = [c for c in by_strength if _ALLY[c] > _JACK]
        card = by_strength[-1] if royal_likely or not over_jack else over_jack[0]
        return {"type": "play", "card": card, "face": "down"}
    face = "up" if "up" in faces else "down"
    return {"type": "play", "card": by_strength[0], "face": face}


def ally_greedy_on_state(state: dict, seat: int) -> dict:
    """The greedy Ally's choice for `seat`, read straight from a sampled state rather than from
    the seat's view of it: the strong bots' play-out policy (docs/performance.md#bot-shortcuts).
    The same inputs as the view's: the hand, the faces still open, the battles left, the King's
    royals in hand and the face-up card."""
    t = state["table"]
    put = t["put"]
    up = put["up"]
    return _ally_choice(
        t["hands"][seat],
        {f for f in FACES if put[f] is None},
        BATTLES - t["battles_played"],
        royals_in_hand(t),
        None if up is None else up["card"],
    )


def greedy(view: dict, rng: BotRng) -> dict:
    return _king_greedy(view) if view["you"] == KING else _ally_greedy(view)


# -- strong: determinized search over the round ------------------------------------------------


def _world(view: Mapping, rng: BotRng) -> dict:
    """A full state agreeing with the seat's view: the cards it cannot see (the other hands,
    a face-down card not its own, the 20 out of play) dealt at random among those places. The
    King's unplayed royals are public: always his."""
    t = view["table"]
    me = view["you"]
    battle = t["table"]
    seen = set(t["hand"]) | set(ROYALS)
    for side in ("king", "allies"):
        for trick in t["trick_cards"][side]:
            seen.update(trick)
    for face in FACES:
        entry = battle[face]
        if entry is not None and entry["card"] is not None:
            seen.add(entry["card"])
    if battle["king"]:
        seen.add(battle["king"])
    pool = [c for c in full_deck() if c not in seen]
    played = {c for side in ("king", "allies") for trick in t["trick_cards"][side] for c in trick}
    royals_left = [c for c in ROYALS if c not in played and c != battle["king"]]
    sizes = list(t["hand_sizes"])
    hidden = [f for f in FACES if battle[f] is not None and battle[f]["card"] is None]
    need = [0 if s == me else sizes[s] - (len(royals_left) if s == KING else 0) for s in range(3)]
    piles = search.deal_out(pool, [*need, len(hidden)], rng)
    hands = [list(t["hand"]) if s == me else piles[s] for s in range(3)]
    if me != KING:
        hands[KING] = royals_left + hands[KING]
    put: dict = {"down": None, "up": None, "king": battle["king"], "revealed": False}
    extra = iter(piles[3])
    for face in FACES:
        entry = battle[face]
        if entry is not None:
            card = entry["card"] if entry["card"] is not None else next(extra)
            put[face] = {"seat": entry["seat"], "card": card}
    dealt = {c for h in hands for c in h} | {put[f]["card"] for f in FACES if put[f]}
    if me == KING and hidden:
        _as_greedy_allies({**t, "_out": [c for c in pool if c not in dealt]}, hands, put, rng)
        dealt = {c for h in hands for c in h} | {put[f]["card"] for f in FACES if put[f]}
    table = {
        "round": t["round"],
        "played": len(t["results"]),
        "counted": t["counted"],
        "results": [dict(r) for r in t["results"]],
        "streak": t["streak"],
        "voids": t["voids"],
        "hands": hands,
        "out": [c for c in pool if c not in dealt],
        "battle": t["battle"],
        "battles_played": BATTLES - t["battles_left"],
        "put": put,
        "tricks": {side: [list(x) for x in t["trick_cards"][side]] for side in ("king", "allies")},
        "captured": list(t["captured"]),
        "kings_taken": list(t["kings_taken"]),
        "phase": "battle",
    }
    return search.state_from(view, table)


def _as_greedy_allies(t: dict, hands: list[list[str]], put: dict, rng: BotRng) -> None:
    """The King reads the Allies' cards as greedy Allies would have played them (a model of
    the opponents from public facts only, not a look at their cards): the first Ally of a
    battle puts its strongest card down (or its cheapest over a jack), which it keeps doing, so
    it holds nothing stronger than its past face-down cards; the other puts its weakest up, so
    it holds nothing weaker than its face-up cards. The Allies' cards are dealt again under
    those bounds (loosened where too few cards fit), and the hidden card is the one the
    greedy rule picks from the first Ally's hand."""
    down, up = put["down"], put["up"]
    first, other = down["seat"], up["seat"]
    tricks = [x for side in ("king", "allies") for x in t["trick_cards"][side]]
    top = max((_ALLY[x[0]] for x in tricks), default=99)
    floor = max([_ALLY[up["card"]]] + [_ALLY[x[1]] for x in tricks])
    unseen = [*hands[first], *hands[other], down["card"], *t["_out"]]
    rng.shuffle(unseen)
    want = {other: len(hands[other]), first: len(hands[first]) + 1}
    dealt: dict[int, list[str]] = {other: [], first: []}
    for seat, fits in ((other, lambda c: _ALLY[c] >= floor), (first, lambda c: _ALLY[c] <= top)):
        for loose in (False, True):
            for c in list(unseen):
                if len(dealt[seat]) < want[seat] and (loose or fits(c)):
                    dealt[seat].append(c)
                    unseen.remove(c)
    choice = _ally_choice(dealt[first], set(FACES), t["battles_left"], t["royals_in_hand"], None)
    card = choice["card"]
    dealt[first].remove(card)
    hands[first], hands[other], down["card"] = dealt[first], dealt[other], card


def _round_over(state: dict, root: dict) -> bool:
    return state["table"]["played"] > root["table"]["played"]


_KING_SCORE = {"king": 1.0, "void": 0.5, "allies": 0.0}  # a void round is replayed: neither wins


def _side_score(outcome: str, seat: int) -> float:
    king = _KING_SCORE[outcome]
    return king if seat == KING else 1.0 - king


def _score(state: dict, root: dict, seat: int) -> float:
    """The round's outcome for the seat's side (a round cut short by the game's end: even)."""
    results = state["table"]["results"]
    done = len(root["table"]["results"])
    return _side_score(results[done]["result"] if len(results) > done else "void", seat)


def _king_sees_all(state: dict) -> dict:
    """The King's play-out policy in a sampled deal, where he knows both Allies' cards: the
    cheapest card that takes the battle, royals first (they must all be played); else a royal
    if he still holds any (the battle is lost anyway), else his weakest card."""
    t = state["table"]
    hand = t["hands"][KING]
    allied = max(_ALLY[t["put"]["down"]["card"]], _ALLY[t["put"]["up"]["card"]])
    takers = [c for c in hand if _BAR[c] >= allied]
    royals = [c for c in hand if c in ROYALS]
    if takers:
        card = min(takers, key=lambda c: (c not in ROYALS, _BAR[c]))
    elif royals:
        card = min(royals, key=lambda c: (c == "KH", _BAR[c]))
    else:
        card = min(hand, key=lambda c: _BAR[c])
    return {"type": "play", "card": card}


def _choice(state: dict, seat: int) -> dict:
    if seat == KING:
        return _king_sees_all(state)
    return ally_greedy_on_state(state, seat)  # the plain version: search.viewing(greedy)


def _policy(state: dict, seat: int, seats: list[int], game, rng: BotRng) -> dict:
    return _choice(state, seat)


def _fast(root: dict, seat: int, action: dict, rng: BotRng, stream: search.Stream) -> float:
    """The round played out by `playout.py` instead of the rules code: the same result."""
    return _side_score(playout.round_result(root["table"], seat, action, _choice), seat)


# twice the generic budget: a round's play-outs are short, and more sampled deals a card made
# the King win more rounds on a tuning seed (docs/bots.md#how-strong-works)
SEARCH = search.Search(
    world=_world,
    score=_score,
    horizon=_round_over,
    policy=_policy,
    budget=240,
    fast=_fast,
)


def _kind(card: str) -> str:
    """Cards alike under every rule: those of one rank (the 9 and the king of hearts are each
    a kind of their own: rules 3 and 5)."""
    return card if card in (NINE_OF_HEARTS, KING_OF_HEARTS) else rank(card)


def _candidates(view: Mapping) -> list[dict]:
    """One legal action for each kind of card and face: cards alike make the same game, so
    trying one of them leaves the budget more sampled deals for each of the others."""
    return search.distinct(view["legal_actions"], lambda a: (_kind(a["card"]), a.get("face")))


def strong(view: Mapping, rng: BotRng) -> dict:
    """PIMC over the round: each kind of legal card (and face) played in sampled deals of the
    cards the seat cannot see, the round played out greedily, the best mean result kept."""
    return search.choose(view, rng, SEARCH, _candidates(view))


BOTS = {"random": random_bot, "greedy": greedy, "strong": strong}

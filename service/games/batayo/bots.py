"""BATAYO bots: each sees only its seat's view and returns one of its legal actions."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from ...core import search
from ...core.cards import value
from ...core.game import BotRng, random_bot
from . import playout
from .rules import deck


def _hand(view: dict) -> list[str]:
    return [a["card"] for a in view["legal_actions"]]


def _play(card: str) -> dict:
    return {"type": "play", "card": card}


# a game this long has most likely fallen into a cycle: with ordered gathering, players who
# keep their high cards and throw their lowest can repeat the same tricks until the round limit
LOOPING_TRICKS = 200
SHAKE = 4  # past it, greedy plays a random card one move in SHAKE


def greedy(view: dict, rng: BotRng) -> dict:
    """One-move heuristic: in a BATAYO, sudden death, or a last-chance trick (empty pack) play the
    highest card; otherwise play an ace when holding one (it cannot lose, at worst it ties),
    and else throw the lowest card, keeping the strong ones for later. In a game past
    LOOPING_TRICKS tricks, one move in SHAKE is a random card."""
    return _play(greedy_card(_hand(view), view["table"]["tricks"], _pressed(view), rng))


def greedy_rule(view: dict) -> dict:
    """`greedy` without its way out of a cycle: the highest card in a tie or a last chance,
    else an ace, else the lowest. Deterministic: the opponent model of the strong bot, and the
    bench's way to a game as long as it needs (bench/archive.py)."""
    return _play(_pick(_hand(view), _pressed(view)))


def _pressed(view: Mapping) -> bool:
    """A BATAYO or sudden death under way, or the seat's last chance: play the highest card."""
    table = view["table"]
    me = table["players"][view["you"]]
    return bool(table["batayo"] or table["sudden_death"] or me["last_chance"])


def greedy_card(cards: list[str], tricks: int, pressed: bool, rng: BotRng) -> str:
    """`greedy`'s card from `cards` after `tricks` tricks, `pressed` as its view says: what the
    fast play-outs call with both read from their own table."""
    if tricks >= LOOPING_TRICKS and rng.randrange(SHAKE) == 0:
        return rng.choice(cards)  # now and then a random card, which ends such a cycle
    return _pick(cards, pressed)


def _pick(cards: list[str], pressed: bool) -> str:
    high = max(cards, key=value)
    if pressed or value(high) == 14:
        return high
    return min(cards, key=value)


# -- strong: determinized search over the next tricks ------------------------------------------

# play-outs go to the end of the game or this many events (some twenty tricks): a horizon of
# a few tricks cannot see the end, and a strong seat that only keeps its share of cards ahead
# lets a game against a hoarding greedy player run to the round limit
HORIZON_EVENTS = 200


def _world(view: Mapping, rng: BotRng) -> dict:
    """A full state agreeing with the seat's view and with what the public log tells of every
    seat's cards (`known`: docs/rules/batayo.md#rule-2): the pack's top `fresh` cards are
    drawn from the seat's `blind` cards, the pack under them is public with ordered gathering
    (else dealt from its `seen` cards), and the rest of its blind and seen cards make its hand
    and the cards it has face down on the table."""
    t = view["table"]
    me = view["you"]
    players = t["players"]
    n = len(players)
    ordered = view["options"]["gather"] == "ordered"
    put: list[list[dict]] = [[] for _ in range(n)]
    hidden: list[list[dict]] = [[] for _ in range(n)]  # face-down entries, by whose cards
    visible: set[str] = set(t["hand"])
    for s, p in enumerate(players):
        for e in p["table"]:
            entry = {"card": e["card"], "how": e["how"], "step": e["step"]}
            entry["shown"] = e["face"] == "up"
            if e["how"] == "taken":
                entry["from"] = e["from"]
            put[s].append(entry)
            if e["card"] is None:
                hidden[e["from"] if e["how"] == "taken" else s].append(entry)
            else:
                visible.add(e["card"])
    hands: list[list[str]] = []
    packs: list[list[str]] = []
    for s, (p, known) in enumerate(zip(players, view["known"], strict=True)):
        blind = [c for c in known["blind"] if c not in visible]
        seen = [c for c in known["seen"] if c not in visible]
        rng.shuffle(blind)
        rng.shuffle(seen)
        keep = _kept_above(t, s) if s != me else None
        if keep is not None:  # a greedy hand kept its cards above its last one: the others on top
            blind.sort(key=lambda c: keep <= value(c) < 14)
        top, blind = blind[: known["fresh"]], blind[known["fresh"] :]
        if ordered:
            under = list(known["under"])
            seen = [c for c in seen if c not in under]
        else:
            cut = p["pack"] - len(top)
            under, seen = seen[:cut], seen[cut:]
        packs.append(top + under)
        rest = blind + seen
        rng.shuffle(rest)
        for entry in hidden[s]:
            entry["card"] = rest.pop() if rest else None
        hands.append(list(t["hand"]) if s == me else rest[: p["hand"]])
    placed = {c for pile in hands + packs for c in pile} | {e["card"] for p in put for e in p}
    # the face-down cards of a seat gone out: any of the cards that left play unseen
    left = [c for c in deck(view["options"]) if c not in placed and c not in t["aside"]]
    rng.shuffle(left)
    for pile in hidden:
        for entry in pile:
            if entry["card"] is None and left:
                entry["card"] = left.pop()
                placed.add(entry["card"])
    committed: list[str | None] = [None] * n
    for s, p in enumerate(players):
        if p["committed"]:
            mine = [e for e in put[s] if e["how"] == "played" and not e["shown"]]
            if mine and s != me:
                _as_greedy(t, s, hands[s], mine[-1])
            committed[s] = mine[-1]["card"] if mine else None
    table = {
        "packs": packs,
        "hands": hands,
        "fresh": [k["fresh"] for k in view["known"]],
        "blind": [list(k["blind"]) for k in view["known"]],
        "out": [p["out"] for p in players],
        "put": put,
        "committed": committed,
        "phase": t["phase"],
        "trick": t["trick"],
        "step": t["batayo"] or t["sudden_death"],
        "contenders": list(t["contenders"]),
        "trick_players": [s for s in range(n) if not players[s]["out"]],
        "last_chance": [p["last_chance"] for p in players],
        "aside": list(t["aside"]),
        "gone": [c for c in deck(view["options"]) if c not in placed and c not in t["aside"]],
        "tricks": t["tricks"],
        "batayos": t["batayos"],
        "deepest": 0,
        "clock_start": None,
        "time_up": t["time_up"],
        "last": t["last_reveal"],
    }
    return search.state_from(view, table)


def _kept_above(t: Mapping, seat: int) -> int | None:
    """A model of a greedy opponent: after a plain trick, where it threw its lowest card (it
    held no ace, else it would have played it), the cards it kept are above that card and no
    ace. The bound, or None when that reading does not hold."""
    last = t["last_reveal"]
    if not last or last["phase"] != "trick" or last["step"] or t["batayo"] or t["sudden_death"]:
        return None
    if last["trick"] != t["trick"] - 1 or last.get("tied"):
        return None
    card = last["cards"][seat]
    if card is None or value(card) == 14:
        return None
    return value(card)


def _as_greedy(t: dict, seat: int, hand: list[str], entry: dict) -> None:
    """A card committed face down is read as a greedy player would have chosen it from its
    hand (a model of the opponent from public facts, not a look at the card): the sampled
    hand and card are pooled and the greedy rule picks the card again."""
    cards = [*hand, entry["card"]]
    model = {
        "legal_actions": [_play(c) for c in cards],
        "you": seat,
        "table": {**t, "players": [dict(p, last_chance=p["last_chance"]) for p in t["players"]]},
    }
    card = greedy_rule(model)["card"]
    cards.remove(card)
    hand[:] = cards
    entry["card"] = card


def _ahead(state: dict, root: dict) -> bool:
    return state["version"] - root["version"] > HORIZON_EVENTS


def _score(state: dict, root: dict, seat: int) -> float:
    """The game's result if it ended, else the seat's share of the cards still in play."""
    if state["status"] == "finished":
        winners = state["result"]["winners"]
        return 1.0 if winners == [seat] else 0.5 if not winners else 0.0
    t = state["table"]
    counts = [len(h) + len(p) for h, p in zip(t["hands"], t["packs"], strict=True)]
    return counts[seat] / max(1, sum(counts)) if not t["out"][seat] else 0.0


# in the play-outs the other seats play greedy but, one move in UNSURE, a random card: a search
# that expects greedy's every move plays answers to greedy, which a player who does not play
# greedy's way undoes (docs/bots.md#batayo-play-outs)
UNSURE = 4


def _unsure_card(cards: list[str], tricks: int, pressed: bool, rng: BotRng) -> str:
    """The other seats' card in the fast play-outs, as `OTHERS` plays them in the plain ones."""
    if rng.randrange(UNSURE) == 0:
        return rng.choice(cards)
    return greedy_card(cards, tricks, pressed, rng)


def _fast(root: dict, seat: int, action: dict, rng: BotRng, stream: search.Stream) -> float:
    """The game played on by `playout.py` instead of the rules code: the same score."""

    def choice(s: int, cards: list[str], tricks: int, pressed: bool, r: BotRng) -> str:
        return (greedy_card if s == seat else _unsure_card)(cards, tricks, pressed, r)

    return playout.score(root, seat, action["card"], rng, stream, choice, HORIZON_EVENTS)


OTHERS = search.unsure(search.viewing(greedy), UNSURE)

SEARCH = search.Search(
    world=_world,
    score=_score,
    horizon=_ahead,
    policy=search.viewing(greedy),
    others=OTHERS,
    budget=60,
    min_worlds=6,
    fast=_fast,
)


# with two players four times the play-outs a move: a seat's cards are known as a set, so a
# move's scores differ mostly by the play-outs' own random cards, which more play-outs average
# out (docs/bots.md#batayo-play-outs); with three, twice the play-outs won no more
TWO_PLAYERS = {"budget": 240, "min_worlds": 24}


def strong(view: Mapping, rng: BotRng) -> dict:
    """PIMC: each rank in the hand tried in sampled deals of the cards the seat cannot place,
    played on to the end of the game (or the horizon) by greedy, the other seats now and then
    playing a random card; the best mean of the result (or the share of the cards kept at the
    horizon)."""
    how = SEARCH
    if len(view["table"]["players"]) == 2:
        how = dataclasses.replace(SEARCH, **TWO_PLAYERS)
    return search.choose(view, rng, how, _distinct(view["legal_actions"]))


def _distinct(legal: list[dict]) -> list[dict]:
    """One card a rank: only the rank counts in a trick."""
    by_rank = {value(a["card"]): a for a in legal}
    return [by_rank[v] for v in sorted(by_rank)]


BOTS = {"random": random_bot, "greedy": greedy, "strong": strong}

"""The Bataille bots: `random`, `greedy` and `strong`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ...core import search
from ...core.cards import RANKS, value
from ...core.game import BotRng, random_bot
from . import playout
from .rules import deck


def greedy(view_: Mapping, rng: BotRng) -> dict:
    """Classique: flip. Ouverte: a high card to win a round (else throw the lowest), and in a
    bataille the highest card up and the lowest down."""
    legal = view_["legal_actions"]
    if len(legal) == 1:
        return legal[0]
    bataille = "down" in legal[0]
    up, down = greedy_cards(list(dict.fromkeys(a["card"] for a in legal)), bataille)
    return {"type": "play", "card": up, **({"down": down} if bataille else {})}


def greedy_cards(cards: Sequence[str], bataille: bool) -> tuple[str, str | None]:
    """Greedy's face-up card (and face-down one in a bataille) from the cards a seat may put,
    each the first of its value: in a bataille the highest up and the lowest of the rest down
    (found without scoring every pair); else the highest if a queen or over, or the lowest."""
    up = max(cards, key=value)
    if bataille:
        return up, min((c for c in cards if c != up), key=value)
    return (up if value(up) >= RANKS.index("Q") + 2 else min(cards, key=value)), None


# -- strong: determinized search over the round (ouverte) ---------------------------------------


def _world(view: Mapping, rng: BotRng) -> dict:
    """A full state agreeing with the seat's view: the cards it cannot place (in the others'
    packs, every won pile, the cards set aside, the pot's face-down cards) dealt at random among
    those places; the cards everyone knows are in a pack or a won pile (`known_pack`,
    `known_won`: won face up, not put down since) stay there. Another seat's choice made but
    not shown is undone: its cards go back to its pack, for the play-out to choose again."""
    t = view["table"]
    me = view["you"]
    players = t["players"]
    n = len(players)
    mine = list(t["pack"])
    # a pack too short for the bataille offers the won pile too: then the seat sees it whole
    offered = {a["card"] for a in view["legal_actions"]} | {
        a["down"] for a in view["legal_actions"] if "down" in a
    }
    my_won = sorted(c for c in offered if c not in mine)
    seen = set(mine) | set(my_won) | set(t["face_up"]) | set(t.get("your_down", ()))
    ups = {p["seat"]: p["up"] for p in players if p["up"] is not None}
    seen |= set(ups.values())
    in_pack = [
        [] if s == me else [c for c in p.get("known_pack", ()) if c not in seen]
        for s, p in enumerate(players)
    ]
    in_won = [
        [] if s == me and my_won else [c for c in p.get("known_won", ()) if c not in seen]
        for s, p in enumerate(players)
    ]
    placed = seen.union(*in_pack, *in_won)
    pool = [c for c in deck(view["options"]) if c not in placed]
    # a choice another seat has made but not shown goes back to its pack: the play-out makes
    # it again with the policy, as if that seat had not chosen yet (its cards are as unknown
    # either way; guessing the choice uniformly would ignore what a player is likely to pick).
    # Rule 6's short players made no choice and keep their cards put: out with nothing up, or
    # playing out their one card up, not shown until the reveal (a choice in a bataille puts two)
    unshown = [p["has_put"] and s != me and s not in ups for s, p in enumerate(players)]
    short = [
        unshown[s] and (p["out"] or (t["bataille"] and not p["down"]))
        for s, p in enumerate(players)
    ]
    taken_back = [
        p["down"] + 1 if unshown[s] and not short[s] else 0 for s, p in enumerate(players)
    ]
    hidden_up = [short[s] and not p["out"] for s, p in enumerate(players)]  # its one card
    sizes = [
        0 if s == me else players[s]["pack"] - len(in_pack[s]) + taken_back[s] for s in range(n)
    ]
    sizes += [0 if s == me and my_won else p["won"] - len(in_won[s]) for s, p in enumerate(players)]
    sizes += [t["aside"], t["pot"] - len(t["face_up"])]
    sizes += [
        p["down"] + hidden_up[s] if p["has_put"] and s != me and not taken_back[s] else 0
        for s, p in enumerate(players)
    ]
    piles = search.deal_out(pool, sizes, rng)
    packs = [mine if s == me else in_pack[s] + piles[s] for s in range(n)]
    won = [in_won[s] + piles[n + s] for s in range(n)]
    if my_won:
        won[me] = my_won
    aside, pot_down = piles[2 * n], piles[2 * n + 1]
    put: list = [None] * n
    for p in players:
        s = p["seat"]
        if p["has_put"] and not taken_back[s]:
            down = list(t.get("your_down", ())) if s == me else piles[2 * n + 2 + s]
            up = down.pop(0) if hidden_up[s] else ups.get(s)
            put[s] = {"up": up, "down": down}
    table = {
        "packs": packs,
        "won": won,
        "out": [p["out"] for p in players],
        "aside": aside,
        "pot": pot_down + list(t["face_up"]),
        "pot_down": pot_down,
        "put": put,
        "contenders": [p["seat"] for p in players if p["contender"]],
        "step": t["bataille"],
        "revealed": False,
        "round": t["round"] - 1,
        "seen": "",
        "repeat": None,
    }
    return search.state_from(view, table)


def _round_over(state: dict, root: dict) -> bool:
    return state["table"]["round"] > root["table"]["round"]


def _score(state: dict, root: dict, seat: int) -> float:
    """Cards gained in the round, and a little for the strength of the pack kept: a round is
    best won cheaply, with the high cards kept for the rounds to come."""
    after = state["table"]
    return _worth(root, seat, after["packs"][seat], len(after["won"][seat]))


def _worth(root: dict, seat: int, pack: list[str], won: int) -> float:
    before = root["table"]
    gained = len(pack) + won - len(before["packs"][seat]) - len(before["won"][seat])
    return gained + sum(value(c) for c in pack) / 1000


def _fast(root: dict, seat: int, action: dict, rng: BotRng, stream: search.Stream) -> float:
    """The round played out by `playout.py` instead of the rules code: the same score."""
    pack, won = playout.round_end(root["table"], root["options"], seat, action, greedy_cards)
    return _worth(root, seat, pack, won)


def _candidates(view: Mapping) -> list[dict]:
    """One card of each rank (cards of a rank are alike); in a bataille the lowest card goes
    face down (it only feeds the pot) and the candidates are the face-up card."""
    legal = view["legal_actions"]
    if "down" not in legal[0]:
        by_rank = {value(a["card"]): a for a in legal}
        return [by_rank[v] for v in sorted(by_rank)]
    cards = sorted({a["card"] for a in legal}, key=lambda c: (value(c), c))
    low = cards[0]
    others = {value(c): c for c in reversed(cards[1:])}
    out = [{"type": "play", "card": c, "down": low} for v, c in sorted(others.items())]
    return out or legal


SEARCH = search.Search(
    world=_world,
    score=_score,
    horizon=_round_over,
    policy=search.viewing(greedy),
    budget=480,
    fast=_fast,
)


def strong(view: Mapping, rng: BotRng) -> dict:
    """Classique and sans inconnue: flip (there is no choice). Ouverte: PIMC over the round,
    each rank of card tried in sampled deals of the cards the seat cannot see, the others
    playing greedy; the most cards gained (the cheapest winner) kept."""
    legal = view["legal_actions"]
    if len(legal) == 1:
        return legal[0]
    return search.choose(view, rng, SEARCH, _candidates(view))


BOTS = {"random": random_bot, "greedy": greedy, "strong": strong}

"""Determinized search for the `strong` bots: perfect-information Monte Carlo over full states
that agree with the seat's view, each candidate played out with the real rules code on clones
(docs/bots.md#how-strong-works). The budget is counted in play-outs, so a seed gives the same
move on any machine; `time_cap` is a wall-clock safety net, off unless a process sets it.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass

from . import fairness
from .command import Command
from .game import Bot, BotRng, Game
from .registry import GAMES
from .state import clone
from .views import LazyView

# a play-out's policy: (the sampled state, the seat to play, the seats awaited, the game, a
# random source) to an action. Inside a sampled state every card is known, so a policy may
# read the whole state, as a perfect-information player of that world would
Policy = Callable[[dict, int, list[int], Game, random.Random], dict]
Score = Callable[[dict, dict, int], float]  # (state at the horizon, state at the root, seat)
Horizon = Callable[[dict, dict], bool]  # (state now, state at the root): stop here?
# the rules' random stream of the event at a version of a play-out, as `Command.rng` makes it
Stream = Callable[[int], fairness.Rng]
# a game's own play-out, with no events: (the sampled state, the seat, its candidate action,
# the play-out's random source, the rules' stream) to the score the plain play-out would give
FastPlayOut = Callable[[dict, int, dict, random.Random, Stream], float]

_cap_s: float | None = None  # the wall-clock safety net, per move (None: off)
_NOW = "2000-01-01T00:00:00.000000Z"  # play-outs read no clock: one fixed instant


def time_cap(seconds: float | None) -> None:
    """Cap each strong move's search at `seconds` of wall clock (None: no cap, the default).
    Only a serving process sets it: a move cut short depends on the machine's speed."""
    global _cap_s
    _cap_s = seconds


@dataclass(frozen=True)
class Search:
    """How one game's strong bot searches: `world(view, rng)` a full state agreeing with the
    view; `score` and `horizon` as above; `policy` plays every seat in the play-outs, or only
    the searching seat when `others` is given for the rest; `budget` play-outs a move (spread
    over the candidates, at least `min_worlds` states each, at most `max_worlds`). `fast`, where
    a game has one, replaces the clone, the candidate's move and `play_out` with the same
    score computed without the rules engine (docs/performance.md#bot-shortcuts)."""

    world: Callable[[Mapping, random.Random], dict]
    score: Score
    horizon: Horizon
    policy: Policy
    budget: int = 120
    min_worlds: int = 8
    max_worlds: int = 60
    others: Policy | None = None
    fast: FastPlayOut | None = None


def viewing(bot: Bot) -> Policy:
    """A bot as a play-out policy: it sees its seat's view of the sampled state, no more."""

    def policy(state: dict, seat: int, seats: list[int], game: Game, rng: random.Random) -> dict:
        return bot(LazyView(state, seat, seats, game), rng)

    return policy


def unsure(policy: Policy, one_in: int) -> Policy:
    """`policy`, except one move in `one_in` (a draw of the play-out's generator) a uniformly
    random legal action: a model of an opponent the search cannot predict move for move."""

    def unsure_policy(
        state: dict, seat: int, seats: list[int], game: Game, rng: random.Random
    ) -> dict:
        if rng.randrange(one_in) == 0:
            return rng.choice(game.legal_actions(state, seat))
        return policy(state, seat, seats, game, rng)

    return unsure_policy


def _split(me: int, mine: Policy, others: Policy) -> Policy:
    """`mine` for seat `me`, `others` for every other seat."""

    def policy(state: dict, seat: int, seats: list[int], game: Game, rng: random.Random) -> dict:
        return (mine if seat == me else others)(state, seat, seats, game, rng)

    return policy


def distinct(
    actions: Sequence[dict], alike: Callable[[dict], Hashable] | None = None
) -> list[dict]:
    """The actions once each (a legal action list never repeats, but be safe), or with `alike`
    the first of the actions it maps to one value (moves that make the same game)."""
    seen: set = set()
    out = []
    for a in actions:
        key = alike(a) if alike is not None else tuple(sorted(a.items()))
        if key not in seen:
            seen.add(key)
            out.append(a)
    return out


def play_out(
    state: dict,
    root: dict,
    game: Game,
    seed: bytes,
    policy: Policy,
    prng: random.Random,
    horizon: Horizon,
) -> dict:
    """Move `state` on in place with `policy` for every seat until `horizon(state, root)` or
    the end of the game."""
    cmd = Command(state, seed, _NOW, "bot", sealed=False, owned=True, kept=False)
    to_move = game.to_move
    for _ in range(10_000):
        if state["status"] != "playing" or horizon(state, root):
            return state
        seats = to_move(state)
        if not seats:
            return state
        seat = seats[0]
        cmd.decide(seat, policy(state, seat, seats, game, prng), "bot")
    return state


def choose(
    view: Mapping,
    rng: BotRng,
    search: Search,
    candidates: Sequence[dict] | None = None,
) -> dict:
    """The candidate (by default, each legal action) with the best mean score over sampled
    states; ties go to the earlier candidate. One candidate: played without a draw."""
    cands = distinct(candidates if candidates is not None else view["legal_actions"])
    if len(cands) == 1:
        return cands[0]
    return _search(view, rng, search, cands)


def _search(view: Mapping, rng: BotRng, search: Search, cands: list[dict]) -> dict:
    # every draw of the search comes from the bot's own stream, through one seeded generator
    prng = random.Random(rng.randrange(1 << 62))  # noqa: S311 - a game move, not a secret
    seed = prng.randbytes(16)
    me: int = view["you"]
    worlds = max(search.min_worlds, min(search.max_worlds, search.budget // len(cands)))
    policy = _seats_policy(search, me)
    totals = [0.0] * len(cands)
    deadline = time.monotonic() + _cap_s if _cap_s is not None else None
    for w in range(worlds):
        if deadline is not None and w and time.monotonic() > deadline:
            break
        root = search.world(view, prng)
        stream = rules_stream(root, seed)
        for i, action in enumerate(cands):
            if search.fast is not None:
                totals[i] += search.fast(root, me, action, prng, stream)
            else:
                totals[i] += _played_out(search, policy, root, me, action, seed, prng)
    best = max(range(len(cands)), key=lambda i: (totals[i], -i))
    return cands[best]


def _played_out(
    search: Search,
    policy: Policy,
    root: dict,
    me: int,
    action: dict,
    seed: bytes,
    prng: random.Random,
) -> float:
    state = clone(root)
    cmd = Command(state, seed, _NOW, "bot", sealed=False, owned=True, kept=False)
    cmd.decide(me, action, "bot")
    end = play_out(state, root, GAMES[root["game"]], seed, policy, prng, search.horizon)
    return search.score(end, root, me)


def rules_stream(root: dict, seed: bytes) -> Stream:
    """The stream the rules draw from in a play-out from `root` with `seed` (`Command.rng`'s:
    one per event, keyed by the game, its salt and the event's version), for a game's fast
    play-out, whose draws must be the plain one's."""
    game_id, salt = root["id"], root.get("salt") or ""
    return lambda version: fairness.Rng(seed, game_id, salt, version)


def plain_score(
    search: Search, root: dict, me: int, action: dict, prng: random.Random, seed: bytes
) -> float:
    """`action`'s score in the sampled state `root` played out through the rules code: what a
    game's `fast` play-out must give (its differential tests compare the two)."""
    return _played_out(search, _seats_policy(search, me), root, me, action, seed, prng)


def _seats_policy(search: Search, me: int) -> Policy:
    """The play-outs' policy for every seat when `me` searches."""
    return search.policy if search.others is None else _split(me, search.policy, search.others)


def state_from(view: Mapping, table: dict) -> dict:
    """A full state around a sampled `table`, with the lifecycle fields the view shows (no
    chain, no salt: play-outs seal nothing, and their chance is the search's own)."""
    return {
        "version": view["version"],
        "hash": None,
        "status": view["status"],
        "id": view["id"],
        "game": view["game"],
        "options": view["options"],
        "seats": [dict(s) for s in view["seats"]],
        "seed_commitment": view["seed_commitment"],
        "test": view["test"],
        "salt": "",
        "result": None,
        "table": table,
        "fairness": view["fairness"],
        "revealed_at": 0,
    }


def deal_out(pool: list, sizes: Sequence[int], rng: random.Random) -> list[list]:
    """`pool` shuffled and cut into piles of `sizes` (the rest, if any, is left over)."""
    cards = list(pool)
    rng.shuffle(cards)
    out, at = [], 0
    for n in sizes:
        out.append(cards[at : at + n])
        at += n
    return out

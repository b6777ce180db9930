"""The `strong` bots: legal, registered, deterministic, and blind to what their seat may not see.

The no-cheating property: a game is played some way in (random and greedy bots), then a twin
of its state is made in which the cards the awaited seat may not see are dealt again among
the places it may not see (each place keeps its size). The twin shows that seat the very same
view; then the other seats get other bots (the view names them: a bot must not play to its
opponents' names). The strong bot, through the path `simulate` uses (`bots.chooser`, lazy
views), with the same bot seed must choose the very same move in both."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from service.core import bots
from service.core.registry import GAMES
from service.core.state import clone
from service.core.views import game_view
from service.games.roylet.rules import FACES, ROYALS
from tests.support.choices import CASES, played_in

SEED = b"strong-bot-test-seed-0123456789a"


def _redeal(places: list[list], rng: random.Random) -> None:
    """The cards of `places` dealt again among them, each keeping its size (in place)."""
    cards = [c for p in places for c in p]
    rng.shuffle(cards)
    at = 0
    for p in places:
        p[:] = cards[at : at + len(p)]
        at += len(p)


def _redeal_unknown(places: list[list], known: set, rng: random.Random) -> None:
    """`_redeal` of the cards of `places` not in `known` (those stay where they are)."""
    spots = [(p, i) for p in places for i, c in enumerate(p) if c not in known]
    singles = [[p[i]] for p, i in spots]
    _redeal(singles, rng)
    for (p, i), (card,) in zip(spots, singles, strict=True):
        p[i] = card


def _twin(state: dict, seat: int, rng: random.Random) -> dict:
    """The state with what `seat` may not see dealt again."""
    twin = clone(state)
    t = twin["table"]
    game = twin["game"]
    if game == "batak":
        _redeal([h for s, h in enumerate(t["hands"]) if s != seat], rng)
    elif game == "roylet":
        hidden = [f for f in FACES if t["put"][f] and t["put"][f]["seat"] != seat]
        hidden = [f for f in hidden if f == "down" and not t["put"]["revealed"]]
        loose = [c for s, h in enumerate(t["hands"]) if s != seat for c in h if c not in ROYALS]
        loose += t["out"] + [t["put"][f]["card"] for f in hidden]
        rng.shuffle(loose)
        deal = iter(loose)
        for s, h in enumerate(t["hands"]):
            if s != seat:
                h[:] = [c if c in ROYALS else next(deal) for c in h]
        t["out"] = [next(deal) for _ in t["out"]]
        for f in hidden:
            t["put"][f]["card"] = next(deal)
    elif game == "bataille":
        offered = {a["card"] for a in GAMES[game].legal_actions(twin, seat)}
        won = [w for s, w in enumerate(t["won"]) if s != seat or not offered - set(t["packs"][s])]
        packs = [p for s, p in enumerate(t["packs"]) if s != seat]
        public = {
            c for s in range(len(t["packs"])) for c in t["public_pack"][s] + t["public_won"][s]
        }
        _redeal_unknown(packs + won + [t["aside"]], public, rng)
    elif game == "batayo":  # within each seat: the public log tells whose cards are whose
        for s, (hand, pack) in enumerate(zip(t["hands"], t["packs"], strict=True)):
            mine = s == seat or t["committed"][s] is not None
            at = [] if mine else [i for i, c in enumerate(hand) if c in t["blind"][s]]
            places = [[hand[i]] for i in at] + [pack[: t["fresh"][s]]]
            _redeal(places, rng)
            for i, place in zip(at, places, strict=False):
                hand[i] = place[0]
            pack[: t["fresh"][s]] = places[-1]
    return twin


@given(st.sampled_from(CASES), st.binary(min_size=8, max_size=8), st.integers(0, 60))
def test_strong_bot_sees_only_its_seats_view(case, seed, steps):
    game, options = case
    table = played_in(game, options, seed * 4, steps)
    state = table.state
    if state["status"] != "playing":
        return
    seat = GAMES[game].to_move(state)[0]
    rng = random.Random(steps)
    twin = _twin(state, seat, rng)
    assert game_view(twin, seat) == game_view(state, seat)  # a twin the seat cannot tell apart
    for other in twin["seats"]:  # and other bots in the other seats, which the view names
        if other["seat"] != seat:
            other["bot"] = rng.choice(list(GAMES[game].bots))
    choose = bots.chooser(GAMES[game], SEED, {seat: "strong"})
    awaited = GAMES[game].to_move(state)
    assert choose(state, seat, awaited) == choose(twin, seat, awaited)


def test_strong_is_offered_by_every_game():
    for game in GAMES.values():
        if game.name in ("bataille", "batak", "batayo", "roylet"):
            assert "strong" in game.bots


def test_strong_plays_legal_moves_the_same_way_for_the_same_seed():
    for game, options in CASES:
        table = played_in(game, options, b"legal" * 6 + b"xx", 7)
        state = table.state
        if state["status"] != "playing":
            continue
        seat = GAMES[game].to_move(state)[0]
        one = bots.choose(state, seat, SEED, "strong", lazy=True)
        assert one in game_view(state, seat)["legal_actions"]
        assert bots.choose(clone(state), seat, SEED, "strong") == one


def test_the_safety_net_still_plays_a_legal_move():
    """A served process caps each search in wall clock: cut after one sampled state, the move
    is still legal."""
    from service.core import search

    table = played_in("roylet", {}, b"offload" * 4 + b"xxxx", 2)
    seat = GAMES["roylet"].to_move(table.state)[0]
    search.time_cap(1e-9)
    try:
        capped = bots.choose(table.state, seat, SEED, "strong")
    finally:
        search.time_cap(None)
    assert capped in game_view(table.state, seat)["legal_actions"]


def test_roylet_tries_one_card_of_each_kind_and_face():
    """Suits count in BatailleRoylet only for the 9 of hearts (docs/rules/roylet.md#rule-3) and
    the king of hearts (docs/rules/roylet.md#rule-5): the strong bot tries one card of each
    other rank, each kind with each face it may take, and drops no kind."""
    from service.games.roylet.bots import _candidates

    king = ["JS", "JH", "JD", "JC", "KH", "KS", "9H", "9S", "7D", "7C"]
    view = {"legal_actions": [{"type": "play", "card": c} for c in king]}
    assert [a["card"] for a in _candidates(view)] == ["JS", "KH", "KS", "9H", "9S", "7D"]
    ally = [{"type": "play", "card": c, "face": f} for c in ["AS", "AD", "9H"] for f in FACES]
    assert [(a["card"], a["face"]) for a in _candidates({"legal_actions": ally})] == [
        ("AS", "down"),
        ("AS", "up"),
        ("9H", "down"),
        ("9H", "up"),
    ]


def test_play_outs_play_the_searching_seat_by_policy_and_the_others_by_others(monkeypatch):
    """`Search.others` plays every seat but the searching one in the plain play-outs (BATAYO:
    greedy with now and then a random card), `Search.policy` the searching seat."""
    import dataclasses

    from service.core import search
    from service.games.batayo import bots as batayo

    table = played_in("batayo", {"players": 3}, b"others" * 5 + b"xx", 4)
    seat = GAMES["batayo"].to_move(table.state)[0]
    moved: dict[str, set[int]] = {"policy": set(), "others": set()}

    def recording(name, policy):
        def record(state, s, seats, game, rng):
            moved[name].add(s)
            action = policy(state, s, seats, game, rng)
            assert action in game.legal_actions(state, s)
            return action

        return record

    always_random = search.unsure(search.viewing(batayo.greedy), 1)
    searching = dataclasses.replace(
        batayo.SEARCH,
        fast=None,
        policy=recording("policy", batayo.SEARCH.policy),
        others=recording("others", always_random),
    )
    monkeypatch.setattr(batayo, "SEARCH", searching)
    move = bots.choose(table.state, seat, SEED, "strong", lazy=True)
    assert move in game_view(table.state, seat)["legal_actions"]
    assert moved["policy"] == {seat}
    assert moved["others"] == {0, 1, 2} - {seat}


def test_bataille_strong_plays_on_beside_a_player_short_in_a_bataille():
    """docs/rules/bataille.md#rule-6: "with `shortfall: play_out`, a player short of cards in a
    bataille lays what they have, the face-up card first". Seats 0 and 2 tie on nines; seat 2
    has one card left and lays it, unseen until the reveal. That card is laid, not chosen: the
    strong bot's sampled deals keep it on the table (taking it back as a choice left seat 2 one
    card to choose two from, and the search failed)."""
    from service.sim.table import Table

    options = {"variant": "ouverte", "players": 3, "deck": 32, "shortfall": "play_out"}
    deal = {"packs": [["9C", "9D", "KS", "AC"], ["7C", "KH"], ["9S", "9H"]]}
    table = Table("bataille", options, [{"bot": "greedy"}] * 3, seed=SEED, deal=deal)
    for seat, card in ((0, "9C"), (1, "7C"), (2, "9S")):
        table.act(seat, {"type": "play", "card": card})
    state = table.state
    assert state["table"]["put"][2] == {"up": "9H", "down": []}  # laid by rule 6
    assert GAMES["bataille"].to_move(state) == [0]
    for bot_seed in (SEED, b"another" * 4 + b"seed"):
        move = bots.choose(state, 0, bot_seed, "strong")
        assert move in game_view(state, 0)["legal_actions"]

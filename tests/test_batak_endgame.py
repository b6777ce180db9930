"""The exact search of a Batak deal's last tricks (service/games/batak/endgame.py) against the
rules code: the same legal cards, and the same value as a plain minimax that plays through the
rules' own `legal_cards` and `trick_winner` (docs/rules/batak.md#rule-3, #rule-4)."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from service.core.cards import suit
from service.core.state import awaited
from service.games.batak import endgame, playout, rules
from service.sim.table import Table
from tests.support.batak import table


def _positions(mode: str, overtake: bool, seeds: range, most: int) -> Iterator[dict]:
    """The table at every turn of play, once the player to move holds `most` cards or fewer, in
    games of random and greedy seats (random cards reach corners greedy never plays)."""
    for seed in seeds:
        t = table(seed=seed, mode=mode, must_overtake_when_trumped=overtake)
        rng = random.Random(seed)
        while t.state["table"]["phase"] != "play":
            t.bot_move(awaited(t.state)[0], "greedy")
        while t.state["status"] == "playing" and t.state["table"]["phase"] == "play":
            tab = t.state["table"]
            if len(tab["hands"][tab["turn"]]) <= most:
                yield tab
            t.bot_move(tab["turn"], rng.choice(["random", "greedy"]))


def _minimax(hands: list[list[str]], trick: list, trump: str, broken: bool, turn: int,
             team: int, overtake: bool) -> int:  # fmt: skip
    """Team `team`'s tricks from here with both pairs at their best, every card tried, through
    the rules' own functions."""
    values = []
    for card in rules.legal_cards(hands[turn], trick, trump, broken, overtake):
        rest = [list(h) for h in hands]
        rest[turn].remove(card)
        now = [*trick, {"seat": turn, "card": card}]
        now_broken = broken or (
            bool(trick) and suit(card) == trump and suit(trick[0]["card"]) != trump
        )
        if len(now) == 4:
            w = rules.trick_winner(now, trump)
            value = int(w % 2 == team)
            if any(rest):
                value += _minimax(rest, [], trump, now_broken, w, team, overtake)
        else:
            value = _minimax(rest, now, trump, now_broken, (turn + 1) % 4, team, overtake)
        values.append(value)
    return max(values) if turn % 2 == team else min(values)


def _masks(tab: dict) -> tuple[list[list[int]], list[tuple[int, int, int]], int]:
    h = [playout.masks(hand) for hand in tab["hands"]]
    trick = [(p["seat"], *playout.card_int(p["card"])) for p in tab["trick"]]
    return h, trick, playout.SUIT_INDEX[tab["trump"]]


@pytest.mark.parametrize("overtake", [True, False])
def test_legal_cards_are_the_rules_own(overtake):
    """At every turn of play, in both modes, `endgame.legal` allows exactly the cards the rules'
    `legal_cards` allows."""
    checked = 0
    for mode in ("ihaleli", "esli"):
        for tab in _positions(mode, overtake, range(6), 13):
            h, trick, trump = _masks(tab)
            hand = tab["hands"][tab["turn"]]
            mine = endgame.legal(h[tab["turn"]], trick, trump, tab["trump_broken"], overtake)
            ruled = rules.legal_cards(
                hand, tab["trick"], tab["trump"], tab["trump_broken"], overtake
            )
            assert sorted(playout.card_text(s, r) for s, r in mine) == sorted(ruled)
            checked += 1
    assert checked == 2 * 6 * 52


@pytest.mark.parametrize("overtake", [True, False])
def test_the_search_finds_the_plain_minimax_value(overtake):
    """With three tricks or fewer to play, the alpha-beta search with equivalent cards tried once
    gives each pair the same tricks as trying every legal card through the rules; and the two
    pairs' values add up to the tricks left, as they must in a game one pair's gain is the
    other's loss."""
    checked = 0
    for tab in _positions("esli", overtake, range(12), 3):
        h, trick, trump = _masks(tab)
        left = len(tab["hands"][tab["turn"]])
        values = []
        for team in (0, 1):
            got = endgame.team_tricks(
                h, trump, tab["trump_broken"], trick, tab["turn"], team, overtake
            )
            assert h == _masks(tab)[0]  # the hands are left as they were
            want = _minimax(tab["hands"], tab["trick"], tab["trump"], tab["trump_broken"], tab["turn"],
                            team, overtake)  # fmt: skip
            assert got == want
            values.append(got)
        assert sum(values) == left
        checked += 1
    assert checked >= 12 * 10


def test_a_complete_trick_is_scored_before_the_search_goes_on():
    """`team_tricks` on a trick the last card completed counts that trick for its winner's pair
    (rule 4), then searches the rest."""
    for tab in _positions("esli", True, range(4), 3):
        if len(tab["trick"]) != 3:
            continue
        h, trick, trump = _masks(tab)
        seat = tab["turn"]
        for s, r in endgame.legal(h[seat], trick, trump, tab["trump_broken"], True):
            h[seat][s] ^= 1 << r
            full = [*trick, (seat, s, r)]
            card = playout.card_text(s, r)
            hands = [list(x) for x in tab["hands"]]
            hands[seat].remove(card)
            played = [*tab["trick"], {"seat": seat, "card": card}]
            w = rules.trick_winner(played, tab["trump"])
            broken = tab["trump_broken"] or (s == trump and trick[0][1] != trump)
            rest = _minimax(hands, [], tab["trump"], broken, w, 0, True) if any(hands) else 0
            assert (
                endgame.team_tricks(h, trump, broken, full, -1, 0, True) == int(w % 2 == 0) + rest
            )
            h[seat][s] ^= 1 << r


def test_the_strong_pair_plays_legal_endgames():
    """The strong bot in eşli searches the last tricks exactly: a deal of four strong seats plays
    to its end through the rules, so every card it chose there was legal."""
    t = Table("batak", {"mode": "esli", "deals": 3}, seats=[{"bot": "strong"}] * 4, seed=bytes(32))
    while not any(e["type"] == "deal_scored" for e in t.events):
        t.bot_move(awaited(t.state)[0], "strong")
    scored = next(e for e in t.events if e["type"] == "deal_scored")
    assert sum(scored["data"]["tricks"]) == 13

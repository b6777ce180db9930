"""The tie audit of Batak: docs/rules/batak.md#rule-6, "a tie at the top plays one more deal, again
until the tie breaks" - one `extra_deal` episode per deal played past `deals`."""

from __future__ import annotations

import pytest

from tests.support.batak import table


@pytest.mark.parametrize(("mode", "seed"), [("ihaleli", 7), ("esli", 175)])
def test_every_extra_deal_is_an_episode_naming_the_tied_leaders(mode, seed):
    t = table(seed=seed, deals=3, mode=mode)
    t.play_out(dict.fromkeys(range(4), "greedy"))
    scores = t.state["table"]["scores"]
    assert len(scores) > 3, "this seed ties at the top after 3 deals"
    episodes = t.game.ties(t.events)
    assert [e["round"] for e in episodes] == list(range(4, len(scores) + 1))
    for episode, before, after in zip(episodes, scores[2:], scores[3:], strict=False):
        totals = before["totals"]
        units = [[0, 2], [1, 3]] if mode == "esli" else [[s] for s in range(4)]
        top = max(totals[u[0]] for u in units)
        assert episode["players"] == [s for u in units if totals[u[0]] == top for s in u]
        assert len(episode["players"]) > len(units[0])  # a real tie
        assert episode["totals_before"] == totals and episode["totals_after"] == after["totals"]
        assert episode["steps"][0]["declarer"] == after["declarer"]
        assert episode["versions"] == sorted(episode["versions"])
    last = episodes[-1]
    assert last["tie_broken"]
    winners = t.state["result"]["winners"]
    assert (last["winner"] == winners[0]) if mode == "ihaleli" else last["winning_team"] == winners
    assert all(not e["tie_broken"] for e in episodes[:-1])


def test_a_game_decided_in_its_planned_deals_has_no_tie_episode():
    for seed in range(6):
        t = table(seed=seed, deals=3)
        t.play_out(dict.fromkeys(range(4), "greedy"))
        if len(t.state["table"]["scores"]) == 3:
            assert t.game.ties(t.events) == []
            return
    pytest.fail("no seed among 0-5 ended in 3 deals")

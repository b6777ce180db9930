"""Forgeries an outside review built against the verifiers, each rebuilt here: a version 2 log
passed off as version 1, times written in another spelling so a clock seems to fire on time,
and values of another JSON kind that Python's `==` takes for the right one. Every forger here
knows the revealed seed and rebuilds the chain after the change (`page.reseal`, or version 1's
hash over the clear event), so only the verifiers' other checks can catch it."""

from __future__ import annotations

import copy

import pytest

from service.core.chain import GENESIS, event_hash
from service.core.verify import verify
from service.sim.table import Table
from tests.support import page
from tests.support.batayo import EXPRESS, hearts, make, play, spades


def failed(events: list[dict], words: str = "", **kw) -> dict:
    report = verify(events, **kw)
    assert report["status"] == "failed" and not report["ok"], report
    assert words in report["reason"], report["reason"]
    return report


@pytest.fixture(scope="module")
def finished() -> list[dict]:
    t = Table(
        "bataille",
        {"max_rounds": 60},
        [{"bot": "random"}, {"bot": "greedy"}],
        seed=b"f" * 32,
        game_id="attacks",
    )
    t.play_out()
    return t.export()


# -- a version 2 log passed off as version 1 ---------------------------------------------------


def downgraded(events: list[dict]) -> list[dict]:
    """The export as a log of fairness version 1: no `fairness`, no seals, no openings, each
    event hashed in clear as version 1 does."""
    out = copy.deepcopy(events)
    del out[0]["data"]["fairness"]
    for e in out:
        e.pop("sealed", None)
        e.pop("openings", None)
    rehash_v1(out)
    return out


def rehash_v1(events: list[dict]) -> None:
    prev = GENESIS
    for e in events:
        e["prev"] = prev
        e["hash"] = event_hash(e)
        prev = e["hash"]


def test_an_honest_version_1_log_is_reported_as_v1_not_ok(finished):
    report = verify(downgraded(finished))
    assert report["status"] == "v1" and not report["ok"] and report["fairness"] == 1, report


def test_a_downgraded_log_with_a_swapped_winner_and_a_card_that_does_not_exist_fails(finished):
    """The whole attack: downgraded, the winner swapped, a card that no deck holds flipped."""
    events = downgraded(finished)
    result = events[-1]["data"]["result"]
    result["winners"] = [1 - result["winners"][0]] if result["winners"] else [0]
    flip = next(e for e in events if e["type"] == "flipped" and e["version"] > 5)
    flip["data"]["up"] = "1Z"
    rehash_v1(events)
    failed(events)
    assert failed(events)["version"] == flip["version"]


def test_a_card_that_does_not_exist_fails_whatever_the_version(finished):
    for log in (copy.deepcopy(finished), downgraded(finished)):
        flip = next(e for e in log if e["type"] == "flipped" and e["version"] > 5)
        flip["data"]["up"] = "1Z"
        if "sealed" in log[0]:
            page.reseal(log)
        else:
            rehash_v1(log)
        assert failed(log, "card", rules=False)["version"] == flip["version"]
        assert failed(log)["version"] == flip["version"]


def test_a_downgraded_log_with_a_swapped_winner_fails_the_rules(finished):
    events = downgraded(finished)
    result = events[-1]["data"]["result"]
    result["winners"] = [1 - result["winners"][0]] if result["winners"] else [0]
    rehash_v1(events)
    assert failed(events, "rules")["version"] == len(events)


def test_a_version_1_log_without_causes_is_v1_and_says_its_play_was_not_refolded(finished):
    """A version 1 log written before causes were recorded cannot be refolded: it is checked
    as far as it can be (its values against the game's declarations), and says so."""
    events = downgraded(finished)
    for e in events:
        e["data"].pop("cause", None)
    rehash_v1(events)
    report = verify(events)
    assert report["status"] == "v1" and "not refolded" in report["reason"], report
    events[3]["data"]["up" if "up" in events[3]["data"] else "cards"] = "1Z"
    rehash_v1(events)
    assert verify(events)["status"] == "failed"


def test_fairness_given_as_true_or_as_a_float_is_unknown(finished):
    for value in (True, 2.0, 1):
        events = copy.deepcopy(finished)
        events[0]["data"]["fairness"] = value
        page.reseal(events)
        assert failed(events, "fairness")["version"] == 1


# -- times: only the server's own spelling -----------------------------------------------------


@pytest.mark.parametrize(
    "spell",
    [
        lambda at: at.replace("T", "~"),
        lambda at: at.replace("Z", "+00:00"),
        lambda at: at.replace("Z", "+01:00"),
        lambda at: at[:-8] + "Z",  # no microseconds
        lambda at: at.replace("Z", "z"),
        lambda at: at.replace("0", "\u0660", 1),  # an Arabic-Indic zero: a digit to `\d`
    ],
)
def test_a_time_in_another_spelling_fails(finished, spell):
    events = copy.deepcopy(finished)
    for e in events[10:]:
        e["at"] = spell(e["at"])
    page.reseal(events)
    assert failed(events, "`at`", rules=False)["version"] == 11
    assert failed(events, "`at`")["version"] == 11


def timed_out() -> list[dict]:
    """A BATAYO game whose time limit (60 s) ran out at 00:01:00."""
    t = make([spades(*EXPRESS), hearts(*EXPRESS)], time_limit_s=60)
    play(t, (0, "AS"), (1, "JH"))
    t.fire("time_limit", now="2030-01-01T00:01:00.000000Z")
    return t.export()


def test_a_clock_fired_early_under_another_spelling_fails():
    """`~` sorts after `T`: 00:00:30 written with it compares as later than the due time
    00:01:00, so the clock would seem to fire on time, 30 s early."""
    events = timed_out()
    assert verify(events)["status"] == "ok"
    fired = next(e for e in events if "timer" in e["data"].get("cause", {}))
    for e in events[fired["version"] - 1 :]:
        e["at"] = "2030-01-01~00:00:30.000000Z"
    page.reseal(events)
    assert page.check(events) == ("ok", None)  # the page alone reads times as text
    assert failed(events, "`at`")["version"] == fired["version"]


def test_a_clock_fired_early_in_the_right_spelling_fails():
    events = timed_out()
    fired = next(e for e in events if "timer" in e["data"].get("cause", {}))
    for e in events[fired["version"] - 1 :]:
        e["at"] = "2030-01-01T00:00:30.000000Z"
    page.reseal(events)
    assert failed(events, "before it was due")["version"] == fired["version"]


def test_a_date_that_does_not_exist_fails(finished):
    events = copy.deepcopy(finished)
    events[-1]["at"] = "2026-02-30T00:00:00.000000Z"
    page.reseal(events)
    failed(events, "`at`")


# -- kinds: false is not 0, 6.0 is not 6 -------------------------------------------------------


def test_a_version_as_true_or_as_a_float_fails(finished):
    for value in (True, 1.0):
        events = copy.deepcopy(finished)
        events[0]["version"] = value
        page.reseal(events)
        assert failed(events, "expected version")["version"] == 1
    events = copy.deepcopy(finished)
    events[5]["version"] = 6.0
    page.reseal(events)
    assert failed(events, "expected version")["version"] == 6


def a_seat_valued(events: list[dict], convert) -> int:
    """Change the first `seat` 0 or 1 in an event's data after the deal to another kind; its
    version."""
    for e in events[2:]:
        if e["data"].get("seat") in (0, 1) and type(e["data"]["seat"]) is int:
            e["data"]["seat"] = convert(e["data"]["seat"])
            return e["version"]
    raise AssertionError("no event with a seat")


@pytest.mark.parametrize("convert", [float, bool])
def test_a_seat_as_a_float_or_a_boolean_in_an_event_fails_the_rules(convert):
    t = Table("batak", {"deals": 3}, [{"bot": "greedy"}] * 4, seed=b"k" * 32, game_id="kinds")
    t.play_out()
    events = t.export()
    version = a_seat_valued(events, convert)
    page.reseal(events)
    assert failed(events)["version"] == version


@pytest.mark.parametrize("convert", [float, bool])
def test_a_seat_as_a_float_or_a_boolean_in_a_cause_fails(convert):
    t = Table("batak", {"deals": 3}, [{"bot": "greedy"}] * 4, seed=b"k" * 32, game_id="kinds")
    t.play_out()
    events = t.export()
    acted = next(
        e
        for e in events
        if "action" in e["data"].get("cause", {}) and e["data"]["cause"]["action"]["seat"] == 1
    )
    acted["data"]["cause"]["action"]["seat"] = convert(1)
    page.reseal(events)
    assert failed(events)["version"] == acted["version"]


def test_a_count_as_a_float_fails_the_rules(finished):
    """`6.0` where the rules write `6`: the same number to `==`, another value in the log."""
    events = copy.deepcopy(finished)
    ended = events[-1]["data"]["result"]
    key = next(k for k, v in ended.items() if type(v) is int)
    ended[key] = float(ended[key])
    page.reseal(events)
    assert failed(events, "rules")["version"] == len(events)


# -- an abandonment written early ---------------------------------------------------------------


def abandoned(after_s: int = 60) -> list[dict]:
    """A Bataille whose person never flipped: abandoned `after_s` after the bot's flip."""
    start = "2030-01-01T00:00:00.000000Z"
    t = Table(
        "bataille",
        {"abandon_after_s": after_s},
        [{"name": "ana"}, {"bot": "random"}],
        seed=b"i" * 32,
        game_id="idle",
        clock=lambda: start,
    )
    t.bot_move(1)
    assert t.abandon("2030-01-01T00:00:59.999999Z") == []  # not due: nothing written
    t.abandon("2030-01-01T00:01:00.000000Z")
    assert t.state["result"]["reason"] == "abandoned"
    return t.export()


def test_an_abandonment_on_time_verifies():
    assert verify(abandoned())["status"] == "ok"


def test_an_abandonment_written_before_the_game_was_idle_for_abandon_after_s_fails():
    """docs/rules/common.md#abandoned-games: abandoned only after abandon_after_s with no new event.
    A forger who ends a game early (to stop a player about to win, say) fails at that event."""
    events = abandoned()
    events[-1]["at"] = "2030-01-01T00:00:59.999999Z"
    page.reseal(events)
    assert failed(events, "before it was idle")["version"] == len(events)


def test_an_abandonment_with_a_shorter_abandon_after_s_than_the_game_has_fails():
    """The forger writes the same end 60 s in, but the game's own option was a week."""
    events = abandoned(after_s=60)
    events[0]["data"]["options"]["abandon_after_s"] = 7 * 86_400
    page.reseal(events)
    assert failed(events, "before it was idle")["version"] == len(events)

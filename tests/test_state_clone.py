"""`clone`: the copy a command decides on. It must be a deep copy of plain data (a change to
the copy never reaches the state every reader shares), however the data nests."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from service.core.state import clone

LEAVES = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
PLAIN = st.recursive(
    LEAVES,
    lambda inner: (
        st.lists(inner, max_size=6)
        | st.dictionaries(st.text(max_size=4), inner, max_size=6)
        | st.tuples(inner, inner)
        | st.sets(st.integers(), max_size=3)
    ),
    max_leaves=40,
)


def _containers(value, into: list) -> list:
    """Every mutable container in `value` (dicts, lists, sets, and those inside tuples)."""
    if isinstance(value, dict | list | set):
        into.append(value)
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list | tuple):
        for item in value:
            _containers(item, into)
    return into


@given(st.dictionaries(st.text(max_size=4), PLAIN, max_size=8))
def test_clone_is_equal_and_shares_no_mutable_container(state):
    copy = clone(state)
    assert copy == state
    originals = {id(c) for c in _containers(state, [])}
    assert not originals & {id(c) for c in _containers(copy, [])}


def test_a_change_to_the_copy_leaves_the_original_as_it_was():
    state = {
        "version": 3,
        "table": {"packs": [["AS", "2H"], ["KD"]], "put": [{"up": "3D", "down": []}, None]},
        "pair": (["QS"], 1),
    }
    copy = clone(state)
    copy["version"] = 4
    copy["table"]["packs"][0].pop()
    copy["table"]["put"][0]["down"].append("9C")
    copy["pair"][0].append("JH")
    assert state == {
        "version": 3,
        "table": {"packs": [["AS", "2H"], ["KD"]], "put": [{"up": "3D", "down": []}, None]},
        "pair": (["QS"], 1),
    }

"""docs/fairness.md's canonical JSON (keys sorted, separators `,` and `:`, UTF-8, no ASCII
escaping), which every chain hash and sealed digest is taken over: `canonical` writes it with
orjson, and must give the very bytes of the reference reading, `json.dumps`, for all that an
event may hold."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from service.core.chain import canonical
from service.core.registry import GAMES
from service.sim.table import Table


def reference(obj: object) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


# docs/fairness.md: events hold integers (no floats), strings of Unicode scalar values, booleans and
# null, in lists and objects. Control characters, quotes, backslashes and characters beyond the
# BMP are where encoders differ; integers beyond 64 bits are what orjson refuses.
scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.text(st.characters(exclude_categories=("Cs",)))
    | st.sampled_from(["\x00\x1f\x7f", '"\\/', "\b\f\n\r\t", "\u2028\u2029", "é€😀"])
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(st.text(st.characters(exclude_categories=("Cs",))), inner, max_size=4)
    ),
    max_leaves=20,
)


@given(values)
def test_canonical_is_the_reference_byte_for_byte(value):
    assert canonical(value) == reference(value)


def test_keys_that_are_not_strings_are_written_as_the_reference_writes_them():
    """orjson refuses them; the reference sorts them as numbers and writes them as strings."""
    value = {10: "a", 9: {2: [1], 1: None}}
    assert canonical(value) == reference(value) == b'{"9":{"1":null,"2":[1]},"10":"a"}'


def _numbers(value: object) -> list[object]:
    if isinstance(value, dict):
        return [n for v in value.values() for n in _numbers(v)]
    if isinstance(value, list | tuple):
        return [n for v in value for n in _numbers(v)]
    return [value] if isinstance(value, float) else []


def test_no_event_of_any_game_holds_a_float():
    """The domain above is every game's: a float (where orjson and the reference write some
    numbers apart, `1e-05` against `0.00001`) is in no event of a whole game of each."""
    for name in GAMES:
        table = Table(name, seed=b"canonical" * 4, game_id="00000000000000c0")
        table.play_out()
        assert table.state["status"] == "finished"
        assert [_numbers(e) for e in table.events if _numbers(e)] == []

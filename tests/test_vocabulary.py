"""One vocabulary for shapes and limits: a request's body is checked by its marshmallow schema
and the contract's schema of it is generated from that schema (service/api/openapi/checked.py),
an option is checked by its shape and the contract is that shape's schema, and every bound on
ids, digests, tickets and keys is written once (service/core/bounds.py).

So, for any value: the check accepts it exactly when the contract does."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import jsonschema_rs
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from service.api.openapi import build, builtin
from service.api.openapi.game_parts import camel
from service.api.schemas import Join, SeatIn
from service.core import bounds, plain, signing, verify
from service.core.options import options_of
from service.core.shapes import (
    AnyOf,
    Choice,
    Default,
    Int,
    Json,
    ListOf,
    Obj,
    Opt,
    ShapeError,
    Text,
    Types,
)
from tests.support.helpers import examples

ROOT = Path(__file__).resolve().parent.parent
DOC = build(builtin())
GAMES = list(builtin().values())
MORE = settings(max_examples=examples(150))


@cache
def _validator(*names: str) -> jsonschema_rs.Draft202012Validator:
    """A validator of one of the contract's components `names`."""
    one_of = [{"$ref": f"#/components/schemas/{name}"} for name in names]
    return jsonschema_rs.Draft202012Validator({"oneOf": one_of, "components": DOC["components"]})


# texts around the bounds of a name and a client seed, with and without refused characters
TEXT = st.one_of(
    st.text(max_size=3),
    st.sampled_from(["", "Ana", "a\nb", "a\u202eb", "x" * plain.NAME_MAX]),
    st.integers(plain.NAME_MAX - 1, plain.CLIENT_SEED_MAX + 1).map(lambda n: "é" * n),
)
VALUE = st.one_of(TEXT, st.booleans(), st.integers(-2, 2), st.none())
FIELDS = ["name", "client_seed", "bot", "open", "seat"]
BODY = st.dictionaries(st.sampled_from(FIELDS), VALUE, max_size=3)


@MORE
@given(BODY)
@example({"open": False})
@example({"bot": "random", "client_seed": "s"})
@example({"name": "Ana", "client_seed": "s"})
@example({"name": "x" * (plain.NAME_MAX + 1)})
def test_a_seat_fits_its_check_exactly_when_it_fits_the_contract(body):
    seats = _validator("SeatPerson", "BatailleSeatBot", "SeatOpen")
    bots = GAMES[0].bots
    checked = not SeatIn().validate(body)
    if checked and "bot" in body:  # the engine, not the body's check, knows the game's bots
        checked = body["bot"] in bots
    assert checked == seats.is_valid(body), body


@MORE
@given(BODY)
@example({"name": "Ana", "client_seed": "é" * plain.CLIENT_SEED_MAX})
@example({"name": "Ana", "client_seed": "é" * (plain.CLIENT_SEED_MAX + 1)})
def test_a_join_fits_its_check_exactly_when_it_fits_the_contract(body):
    assert (not Join().validate(body)) == _validator("Join").is_valid(body), body


OPTION_VALUE = st.one_of(
    st.integers(-1, 400 * 86_400), st.text(max_size=12), st.booleans(), st.none()
)


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
@MORE
@given(st.data())
def test_an_option_fits_its_check_exactly_when_it_fits_the_contract(game, data):
    option = data.draw(st.sampled_from(options_of(game)))
    value = data.draw(st.one_of(st.sampled_from(option.choices or [option.default]), OPTION_VALUE))
    schema = _validator(f"{camel(game.name)}OptionsIn")
    try:
        option.check(value)
        checked = True
    except ValueError:
        checked = False
    assert checked == schema.is_valid({option.name: value}), (option.name, value)


# what each bound's literal looked like when it was written by hand, in more than one place
LITERALS = [
    r"[0-9a-f]{16}",
    r"[0-9a-f]{64}",
    r"[0-9a-fA-F]{64}",
    r"{16,64}",
    r"2**53",
    r"[0-9]{1,15}",
    r"10**15",
]


def test_each_bound_is_written_once():
    found = []
    for path in sorted((ROOT / "service").rglob("*.py")):
        if path.name == "bounds.py" and path.parent.name == "core":
            continue
        text = path.read_text()
        found += [f"{path.relative_to(ROOT)}: {lit}" for lit in LITERALS if lit in text]
    assert found == [], "write these in service/core/bounds.py and read them from there"


def test_the_contract_quotes_the_bounds():
    schemas = DOC["components"]["schemas"]
    assert schemas["GameId"]["pattern"] == bounds.whole(bounds.GAME_ID)
    assert schemas["PublicKey"]["properties"]["kid"]["pattern"] == bounds.whole(bounds.KEY_ID)
    assert schemas["SocketId"]["maxLength"] == bounds.SOCKET_ID_MAX
    key = DOC["components"]["parameters"]["IdempotencyKey"]["schema"]
    assert key["maxLength"] == bounds.IDEMPOTENCY_KEY_MAX
    create = schemas["BatailleCreate"]["properties"]
    assert create["seed_ticket"]["pattern"] == bounds.whole(bounds.SEED_TICKET)
    assert create["seed"]["pattern"] == bounds.whole(bounds.SEED_IN)
    assert schemas["Join"]["properties"]["name"]["maxLength"] == plain.NAME_MAX


@pytest.mark.parametrize(
    "check, text",
    [
        (signing.KID, "0123456789abcdef"),
        (signing.HEX64, "ab" * 32),
        (verify.HEX64, "ab" * 32),
        (bounds.matcher(bounds.GAME_ID), "0123456789abcdef"),
    ],
)
def test_a_bound_matches_the_whole_text(check, text):
    """In Python, `$` matches before a final newline: the checks match whole strings."""
    assert check(text)
    assert not check(text + "\n")


# shapes as the contract's shared parts declare them (service/api/openapi/common.py): the check
# takes a value exactly when the schema does
DECLARED = [
    Text(None),
    Text(3, min=1),
    Text(None, format="date-time", doc="a time", examples=("2026-11-29T22:53:26Z",)),
    Choice((2,), enum=True),
    Choice((True,)),
    Choice((True,), enum=True),
    Types(("integer", "null")),
    Types(("string", "integer"), max=3),
    Types(("null",)),
    AnyOf((Int(0), Choice(("bot", "clock")))),
    AnyOf((ListOf(Text(None)), Int(0, 1)), one=True),
    Obj(),
    Obj(extra=None),
    Obj({"a": Int(), "b": Opt(Text(None))}, extra=None),
    Obj({"a": Int(), "b": Opt(Text(None))}, extra=True),
    Default(Int(0, 3), 1),
]
VALUES = [None, True, False, 0, 1, 3, -1, "", "a", "abcd", "bot", ["a"], [1], {}, {"a": 1}]
VALUES += [{"a": 1, "b": "x"}, {"a": 1, "c": 2}, {"b": "x"}, {"a": "1"}]


@pytest.mark.parametrize("shape", DECLARED, ids=lambda s: type(s).__name__)
def test_a_declared_part_checks_what_its_schema_accepts(shape):
    schema = jsonschema_rs.Draft202012Validator(shape.schema())
    for value in VALUES:
        try:
            shape.check(value, "value")
            checked = True
        except ShapeError:
            checked = False
        assert checked == schema.is_valid(value), value


def test_json_text_is_checked_as_the_shape_it_holds():
    data = Json(Obj({"id": Int(1)}))
    assert data.check('{"id": 3}', "data") == '{"id": 3}'
    for wrong in ['{"id": 0}', "{", 3]:
        with pytest.raises(ShapeError):
            data.check(wrong, "data")
    assert data.schema()["contentSchema"]["required"] == ["id"]

"""marshmallow schemas for every request body and query: unknown fields are refused."""

from __future__ import annotations

import re
from typing import Any

from marshmallow import (
    RAISE,
    Schema,
    ValidationError,
    fields,
    validate,
    validates_schema,
)

from ..core import bounds, plain
from ..core.cards import BadCard, parse_card
from ..core.shapes import whole
from ..core.state import SHOWN_STATUSES

# A number written as text (a header, a query argument): ASCII digits only ("²".isdigit() is
# true, and int("²") raises), at most bounds.DIGITS_MAX of them (a version, a length, a count).
DIGITS_PATTERN = bounds.whole(bounds.NUMBER)
DIGITS = re.compile(DIGITS_PATTERN)


def whole_number(text: str) -> int | None:
    """The number `text` writes, or None if it is not one (see DIGITS)."""
    return int(text) if DIGITS.fullmatch(text) else None


# a test game's seed, in either case (service/core/bounds.py: every pattern, written once)
HEX64 = validate.Regexp(bounds.whole(bounds.SEED_IN), error="must be 64 hexadecimal characters")


class Plain(validate.Validator):
    """Text a person types that others see (service/core/plain.py)."""

    json_schema = {"pattern": plain.PATTERN}

    def __call__(self, value: str) -> str:
        # a search for the characters refused, not a match of `plain.PATTERN`: in Python, `$`
        # matches before a final newline
        if not plain.is_plain(value):
            raise ValidationError(f"must not contain {plain.REFUSED}")
        return value


# what a person types that others see (service/core/plain.py): its length and its characters
PLAIN = Plain()
NAME = [validate.Length(min=1, max=plain.NAME_MAX), PLAIN]
CLIENT_SEED = [validate.Length(max=plain.CLIENT_SEED_MAX), PLAIN]


def _name(**more: Any) -> fields.String:
    doc = f"The seat's name. {plain.DESCRIPTION}"
    return fields.String(validate=NAME, metadata={"description": doc}, **more)


def _client_seed() -> fields.String:
    doc = f"The player's own text, mixed into the deal's salt. {plain.DESCRIPTION}"
    return fields.String(validate=CLIENT_SEED, metadata={"description": doc})


class StrictInt(fields.Integer):
    """A JSON integer: no strings, no booleans, no fractions (`6.0` is 6, as JSON Schema has
    it), within bounds.JSON_INT_MAX."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(strict=True, **kwargs)

    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> int:
        value = whole(value)
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValidationError("must be a whole number")
        if abs(value) > bounds.JSON_INT_MAX:
            raise ValidationError("is too large")
        return value


class StrictBool(fields.Boolean):
    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> bool:
        if not isinstance(value, bool):
            raise ValidationError("must be true or false")
        return value


class Card(fields.String):
    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> str:
        try:
            return parse_card(value)
        except BadCard as exc:
            raise ValidationError(str(exc)) from None


class OptionValue(fields.Raw):
    """An option's value: a JSON scalar (the game checks its meaning)."""

    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> Any:
        value = whole(value)
        if (value is not None and not isinstance(value, str | int | bool)) or isinstance(
            value, float
        ):
            raise ValidationError("must be a string, a whole number, true, false or null")
        if isinstance(value, str) and len(value) > bounds.OPTION_TEXT_MAX:
            raise ValidationError("is too long")
        if (
            isinstance(value, int)
            and not isinstance(value, bool)
            and abs(value) > bounds.JSON_INT_MAX
        ):
            raise ValidationError("is too large")
        return value


class Strict(Schema):
    class Meta:
        unknown = RAISE


SEAT_KINDS = 'a seat is {"name": ...}, {"bot": ...} or {"open": true}'


class SeatIn(Strict):
    """A seat in a create: one of KINDS, told apart by its first field (the contract's
    `SeatPerson`, `SeatBot` and `SeatOpen`)."""

    KINDS = {
        "SeatPerson": ("name", "client_seed"),
        "SeatBot": ("bot",),
        "SeatOpen": ("open",),
    }
    name = _name()
    client_seed = _client_seed()
    bot = fields.String(validate=validate.Length(min=1, max=bounds.NAME_MAX))
    # marshmallow formats the error: the braces of the message escaped
    open = StrictBool(
        validate=validate.Equal(True, error=SEAT_KINDS.replace("{", "{{").replace("}", "}}"))
    )

    @validates_schema
    def _one_kind(self, data: dict, **kwargs: Any) -> None:
        kinds = [name for name, (first, *_) in self.KINDS.items() if first in data]
        if len(kinds) != 1:
            raise ValidationError(SEAT_KINDS)
        if any(k not in self.KINDS[kinds[0]] for k in data):
            raise ValidationError("only a named seat takes a client_seed")


class CreateGame(Strict):
    game = fields.String(required=True, validate=validate.Length(min=1, max=bounds.NAME_MAX))
    options = fields.Dict(
        keys=fields.String(validate=validate.Length(max=bounds.NAME_MAX)),
        values=OptionValue(allow_none=True),
        load_default=dict,
        metadata={"description": "options left out take their default"},
    )
    seats = fields.List(
        fields.Nested(SeatIn),
        required=True,
        validate=validate.Length(min=1, max=8),
        metadata={"description": "one a seat, as many as the options give"},
    )
    seed = fields.String(
        validate=HEX64,
        metadata={"description": "test games only (server setting BATAYO_TEST_GAMES=1)"},
    )
    deal = fields.Dict(metadata={"description": "test games only: the starting cards"})
    id = fields.String(
        validate=validate.Regexp(
            bounds.whole(bounds.GAME_ID), error="must be 16 lowercase hex digits"
        ),
        metadata={"description": "test games only; 409 if taken"},
    )
    seed_ticket = fields.String(
        validate=validate.Regexp(bounds.whole(bounds.SEED_TICKET), error="is not a seed ticket"),
        metadata={
            "description": "a ticket from POST /v1/seeds: the game takes the seed committed there"
        },
    )


class Join(Strict):
    name = _name(required=True)
    client_seed = _client_seed()


class ViewQuery(Strict):
    at = StrictInt(validate=validate.Range(min=1))


class EventsQuery(Strict):
    after = StrictInt(load_default=0, validate=validate.Range(min=0))
    limit = StrictInt(load_default=100, validate=validate.Range(min=1, max=bounds.EVENTS_PAGE_MAX))


class ListQuery(Strict):
    game = fields.String(validate=validate.Length(max=bounds.NAME_MAX))
    status = fields.String(validate=validate.OneOf(SHOWN_STATUSES))
    limit = StrictInt(load_default=20, validate=validate.Range(min=1, max=100))
    offset = StrictInt(load_default=0, validate=validate.Range(min=0, max=100_000))
    waiting = StrictInt(load_default=0, validate=validate.OneOf([0, 1]))


def query_args(args: Any) -> dict:
    """Query strings are text: turn digits into integers so the strict schemas can check them."""
    out: dict[str, Any] = {}
    for k, v in args.items(multi=True) if hasattr(args, "items") else args:
        if k in out:
            raise ValidationError({k: ["given more than once"]})
        number = whole_number(v)
        out[k] = v if number is None else number
    return out


class TiesQuery(Strict):
    kind = fields.String(validate=validate.Length(max=bounds.NAME_MAX))
    offset = StrictInt(load_default=0, validate=validate.Range(min=0, max=1_000_000))
    limit = StrictInt(load_default=50, validate=validate.Range(min=1, max=bounds.TIES_PAGE_MAX))


class StreamQuery(Strict):
    after = StrictInt(validate=validate.Range(min=0))
    view = StrictInt(load_default=0, validate=validate.OneOf([0, 1]))

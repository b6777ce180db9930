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

from ..core import plain
from ..core.cards import BadCard, parse_card
from ..core.shapes import whole

# A number written as text (a header, a query argument): ASCII digits only ("²".isdigit() is
# true, and int("²") raises), at most 15 of them (a version, a length, a count).
DIGITS = re.compile(r"[0-9]{1,15}")


def whole_number(text: str) -> int | None:
    """The number `text` writes, or None if it is not one (see DIGITS)."""
    return int(text) if DIGITS.fullmatch(text) else None


# the patterns a request's text must match, written once: the contract quotes them
SEED_PATTERN = r"^[0-9a-fA-F]{64}$"
GAME_ID_PATTERN = r"^[0-9a-f]{16}$"
TICKET_PATTERN = r"^[A-Za-z0-9_-]{16,64}$"
HEX64 = validate.Regexp(SEED_PATTERN, error="must be 64 hexadecimal characters")


def _plain(value: str) -> None:
    # a search for the characters refused, not a match of `plain.PATTERN`: in Python, `$`
    # matches before a final newline
    if not plain.is_plain(value):
        raise ValidationError(f"must not contain {plain.REFUSED}")


# what a person types that others see (service/core/plain.py): its length and its characters
PLAIN = _plain
NAME = [validate.Length(min=1, max=plain.NAME_MAX), PLAIN]
CLIENT_SEED = [validate.Length(max=plain.CLIENT_SEED_MAX), PLAIN]


class StrictInt(fields.Integer):
    """A JSON integer: no strings, no booleans, no fractions (`6.0` is 6, as JSON Schema has
    it), within 2**53."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(strict=True, **kwargs)

    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> int:
        value = whole(value)
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValidationError("must be a whole number")
        if abs(value) > 2**53:
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
        if isinstance(value, str) and len(value) > 64:
            raise ValidationError("is too long")
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 2**53:
            raise ValidationError("is too large")
        return value


class Strict(Schema):
    class Meta:
        unknown = RAISE


class SeatIn(Strict):
    name = fields.String(validate=NAME)
    client_seed = fields.String(validate=CLIENT_SEED)
    bot = fields.String(validate=validate.Length(min=1, max=32))
    open = StrictBool()

    @validates_schema
    def _one_kind(self, data: dict, **kwargs: Any) -> None:
        kinds = [k for k in ("name", "bot", "open") if k in data]
        if len(kinds) != 1 or data.get("open") is False:
            raise ValidationError('a seat is {"name": ...}, {"bot": ...} or {"open": true}')
        if "client_seed" in data and "name" not in data:
            raise ValidationError("only a named seat takes a client_seed")


class CreateGame(Strict):
    game = fields.String(required=True, validate=validate.Length(min=1, max=32))
    options = fields.Dict(
        keys=fields.String(validate=validate.Length(max=32)),
        values=OptionValue(allow_none=True),
        load_default=dict,
    )
    seats = fields.List(
        fields.Nested(SeatIn), required=True, validate=validate.Length(min=1, max=8)
    )
    seed = fields.String(validate=HEX64)
    deal = fields.Dict()
    id = fields.String(
        validate=validate.Regexp(GAME_ID_PATTERN, error="must be 16 lowercase hex digits")
    )
    seed_ticket = fields.String(
        validate=validate.Regexp(TICKET_PATTERN, error="is not a seed ticket")
    )


class Join(Strict):
    name = fields.String(required=True, validate=NAME)
    client_seed = fields.String(validate=CLIENT_SEED)


class ViewQuery(Strict):
    at = StrictInt(validate=validate.Range(min=1))


class EventsQuery(Strict):
    after = StrictInt(load_default=0, validate=validate.Range(min=0))
    limit = StrictInt(load_default=100, validate=validate.Range(min=1, max=1000))


class ListQuery(Strict):
    game = fields.String(validate=validate.Length(max=32))
    status = fields.String(validate=validate.OneOf(["open", "playing", "finished"]))
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
    kind = fields.String(validate=validate.Length(max=32))
    offset = StrictInt(load_default=0, validate=validate.Range(min=0, max=1_000_000))
    limit = StrictInt(load_default=50, validate=validate.Range(min=1, max=500))


class StreamQuery(Strict):
    after = StrictInt(validate=validate.Range(min=0))
    view = StrictInt(load_default=0, validate=validate.OneOf([0, 1]))

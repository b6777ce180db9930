"""The shapes of what a game declares: action bodies, event payloads, its table and result.

One small vocabulary serves three jobs: the framework checks an action body against the game's
action shapes (a 400 that names the field, before the rules are asked), the contract is
generated from the same declarations (`to_schema`, JSON Schema as OpenAPI 3.1 takes it), and a
`Hidden` field says who may see a value while the game runs (sealing, docs/fairness.md).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from . import bounds
from .cards import CARD_RE, SUITS


class ShapeError(ValueError):
    """A value that does not have its declared shape; the message says why, in words."""


@dataclass(frozen=True)
class Shape:
    """A kind of JSON value: `check` returns the value or raises ShapeError; `schema` is its
    JSON Schema. `schema(sealed)` with the schema of a sealed value is the value as served to a
    caller, where each `Hidden` part may be sealed instead; without it, the value in clear (a
    request body, or what its own seat sees). Any shape may say what it is in words (`doc`, the
    schema's description) and give `examples`. `Shape()` itself is any value."""

    doc: str = field(default="", kw_only=True)
    examples: tuple[Any, ...] = field(default=(), kw_only=True)

    def check(self, value: Any, where: str) -> Any:
        return value

    def schema(self, sealed: dict | None = None) -> dict:
        out = self._schema(sealed)
        if self.doc:
            out["description"] = self.doc
        if self.examples:
            out["examples"] = list(self.examples)
        return out

    def _schema(self, sealed: dict | None) -> dict:
        """The schema without the words and examples every shape may add."""
        return {}


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def whole(value: Any) -> Any:
    """A JSON number with no fraction as an int (`10.0` is the integer 10, as JSON Schema has
    it); anything else as it is."""
    if isinstance(value, float) and value.is_integer() and abs(value) <= bounds.JSON_INT_MAX:
        return int(value)
    return value


@dataclass(frozen=True)
class Card(Shape):
    """A card written rank then suit: `10H`, `QS`."""

    def check(self, value: Any, where: str) -> str:
        if not isinstance(value, str) or not CARD_RE.match(value):
            raise ShapeError(
                f"{where}: {value!r} is not a card: write rank (2-10, J, Q, K, A) then suit "
                "(S, H, D, C), e.g. 10H"
            )
        return value

    def _schema(self, sealed: dict | None) -> dict:
        return {"type": "string", "pattern": CARD_RE.pattern, "examples": ["QH"]}


@dataclass(frozen=True)
class Suit(Shape):
    def check(self, value: Any, where: str) -> str:
        if value not in SUITS:
            raise ShapeError(f"{where}: must be one of S, H, D, C")
        return value

    def _schema(self, sealed: dict | None) -> dict:
        return {"type": "string", "enum": list(SUITS)}


@dataclass(frozen=True)
class Int(Shape):
    min: int | None = None
    max: int | None = None

    def check(self, value: Any, where: str) -> int:
        value = whole(value)
        if not _is_int(value):
            raise ShapeError(f"{where}: must be a whole number")
        if (self.min is not None and value < self.min) or (
            self.max is not None and value > self.max
        ):
            raise ShapeError(f"{where}: must be between {self.min} and {self.max}")
        return value

    def _schema(self, sealed: dict | None) -> dict:
        out: dict[str, Any] = {"type": "integer"}
        if self.min is not None:
            out["minimum"] = self.min
        if self.max is not None:
            out["maximum"] = self.max
        return out


@dataclass(frozen=True)
class Choice(Shape):
    values: tuple[Any, ...]
    enum: bool = False  # an `enum` even of one value (else a `const`)

    def check(self, value: Any, where: str) -> Any:
        for v in self.values:  # a loop, not any(...): every action's type goes through it
            if v == value and type(v) is type(value):
                return value
        allowed = ", ".join(map(str, self.values))
        raise ShapeError(f"{where}: must be one of {allowed}")

    def _schema(self, sealed: dict | None) -> dict:
        kinds = {type(v) for v in self.values}
        # typed clients know booleans, not an enum of them (one boolean is a const)
        if kinds == {bool} and len(self.values) > 1 and not self.enum:
            return {"type": "boolean"}
        out: dict[str, Any] = {"type": _JSON_TYPES[kinds.pop()]} if len(kinds) == 1 else {}
        if len(self.values) == 1 and not self.enum:
            out["const"] = self.values[0]
        else:
            out["enum"] = list(self.values)
        return out


@dataclass(frozen=True)
class Text(Shape):
    """Text of `min` to `max` characters (`max` None: any length)."""

    max: int | None = 200
    min: int = 0
    format: str | None = None  # its kind, for readers of the contract (`date-time`); unchecked

    def check(self, value: Any, where: str) -> str:
        if not isinstance(value, str) or (self.max is not None and len(value) > self.max):
            most = "" if self.max is None else f" of at most {self.max} characters"
            raise ShapeError(f"{where}: must be text{most}")
        if len(value) < self.min:
            raise ShapeError(f"{where}: must be text of at least {self.min} characters")
        return value

    def _schema(self, sealed: dict | None) -> dict:
        out: dict[str, Any] = {"type": "string"}
        if self.min:
            out["minLength"] = self.min
        if self.max is not None:
            out["maxLength"] = self.max
        if self.format:
            out["format"] = self.format
        return out


@dataclass(frozen=True)
class Bool(Shape):
    def check(self, value: Any, where: str) -> bool:
        if not isinstance(value, bool):
            raise ShapeError(f"{where}: must be true or false")
        return value

    def _schema(self, sealed: dict | None) -> dict:
        return {"type": "boolean"}


@dataclass(frozen=True)
class Nullable(Shape):
    of: Shape

    def check(self, value: Any, where: str) -> Any:
        return None if value is None else self.of.check(value, where)

    def _schema(self, sealed: dict | None) -> dict:
        inner = self.of.schema(sealed)
        return {"anyOf": [inner, {"type": "null"}]} if inner else {}


@dataclass(frozen=True)
class ListOf(Shape):
    of: Shape
    max: int | None = None

    def check(self, value: Any, where: str) -> list:
        if not isinstance(value, list) or (self.max is not None and len(value) > self.max):
            raise ShapeError(f"{where}: must be a list")
        return [self.of.check(v, f"{where}[{i}]") for i, v in enumerate(value)]

    def _schema(self, sealed: dict | None) -> dict:
        out: dict[str, Any] = {"type": "array", "items": self.of.schema(sealed)}
        if self.max is not None:
            out["maxItems"] = self.max
        return out


@dataclass(frozen=True)
class Obj(Shape):
    """An object with these fields (an `Opt` field may be absent); nothing else, unless `extra`."""

    fields: Mapping[str, Shape] = field(default_factory=dict)
    title: str | None = None
    extra: bool | None = False  # True: other fields allowed; None: too, the schema silent on it

    def check(self, value: Any, where: str) -> dict:
        if not isinstance(value, dict):
            raise ShapeError(f"{where}: must be an object")
        unknown = [k for k in value if k not in self.fields]
        if unknown and self.extra is False:
            raise ShapeError(f"{where}: unknown field {unknown[0]!r}")
        out = dict(value)
        for name, shape in self.fields.items():
            if name in value:
                out[name] = shape.check(value[name], f"{where}.{name}" if where else name)
            elif not isinstance(shape, Opt):
                raise ShapeError(f"{where + '.' if where else ''}{name}: required")
        return out

    def _schema(self, sealed: dict | None) -> dict:
        out: dict[str, Any] = {"type": "object"}
        if self.fields:  # an object of no fields says only what it allows besides
            out["required"] = [k for k, s in self.fields.items() if not isinstance(s, Opt)]
            out["properties"] = {k: s.schema(sealed) for k, s in self.fields.items()}
        if self.extra is not None:
            out["additionalProperties"] = self.extra
        if self.title:
            out["title"] = self.title
        return out


@dataclass(frozen=True)
class Opt(Shape):
    """A field that may be absent."""

    of: Shape

    def check(self, value: Any, where: str) -> Any:
        return self.of.check(value, where)

    def _schema(self, sealed: dict | None) -> dict:
        return self.of.schema(sealed)


@dataclass(frozen=True)
class Pattern(Shape):
    """Text matching a regular expression (hex digests, ids, times)."""

    regex: str
    format: str | None = None

    def check(self, value: Any, where: str) -> str:
        if not isinstance(value, str) or not re.fullmatch(self.regex, value):
            raise ShapeError(f"{where}: must match {self.regex}")
        return value

    def _schema(self, sealed: dict | None) -> dict:
        out: dict[str, Any] = {"type": "string", "pattern": f"^{self.regex}$"}
        if self.format:
            out["format"] = self.format
        return out


@dataclass(frozen=True)
class MapOf(Shape):
    """An object whose keys are data (seat numbers as text, clock names), all of one shape."""

    of: Shape
    keys: str = ".*"

    def check(self, value: Any, where: str) -> dict:
        if not isinstance(value, dict):
            raise ShapeError(f"{where}: must be an object")
        for k, v in value.items():
            if not re.fullmatch(self.keys, k):
                raise ShapeError(f"{where}: unexpected key {k!r}")
            self.of.check(v, f"{where}.{k}")
        return value

    def _schema(self, sealed: dict | None) -> dict:
        out: dict[str, Any] = {"type": "object", "additionalProperties": self.of.schema(sealed)}
        if self.keys != ".*":
            out["propertyNames"] = {"pattern": f"^{self.keys}$"}
        return out


@dataclass(frozen=True)
class Ref(Shape):
    """The contract's component `name`, by reference; not checked here (any value passes)."""

    name: str

    def _schema(self, sealed: dict | None) -> dict:
        return {"$ref": f"#/components/schemas/{self.name}"}


@dataclass(frozen=True)
class AnyOf(Shape):
    """A value of any of these shapes."""

    of: tuple[Shape, ...]
    one: bool = False  # the schema says "of exactly one" (oneOf); the check takes the first

    def check(self, value: Any, where: str) -> Any:
        errors = []
        for shape in self.of:
            try:
                return shape.check(value, where)
            except ShapeError as exc:
                errors.append(str(exc))
        raise ShapeError(" or ".join(errors))

    def _schema(self, sealed: dict | None) -> dict:
        return {"oneOf" if self.one else "anyOf": [s.schema(sealed) for s in self.of]}


@dataclass(frozen=True)
class Tagged(Shape):
    """One of the components `cases`, told apart by the value of its field `tag`."""

    tag: str
    cases: Mapping[Any, Ref]

    def check(self, value: Any, where: str) -> Any:
        if not isinstance(value, dict) or value.get(self.tag) not in self.cases:
            allowed = ", ".join(map(str, self.cases))
            raise ShapeError(f"{where + '.' if where else ''}{self.tag}: must be one of {allowed}")
        return self.cases[value[self.tag]].check(value, where)

    def _schema(self, sealed: dict | None) -> dict:
        refs = {v: case.schema(sealed) for v, case in self.cases.items()}
        return {
            "oneOf": list(refs.values()),
            "discriminator": {
                "propertyName": self.tag,
                "mapping": {v: r["$ref"] for v, r in refs.items()},
            },
        }


@dataclass(frozen=True)
class Default(Shape):
    """A value of the shape `of` that is `value` when left out (the schema says so)."""

    of: Shape
    value: Any

    def check(self, value: Any, where: str) -> Any:
        return self.of.check(value, where)

    def _schema(self, sealed: dict | None) -> dict:
        return {**self.of.schema(sealed), "default": self.value}


@dataclass(frozen=True)
class Types(Shape):
    """A value of one of these JSON types (`"integer"`, `"null"`...), its text at most `max`."""

    names: tuple[str, ...]
    max: int | None = None

    def check(self, value: Any, where: str) -> Any:
        if not any(_JSON_TYPE_CHECKS[n](value) for n in self.names):
            raise ShapeError(f"{where}: must be {' or '.join(self.names)}")
        if isinstance(value, str) and self.max is not None and len(value) > self.max:
            raise ShapeError(f"{where}: must be text of at most {self.max} characters")
        return value

    def _schema(self, sealed: dict | None) -> dict:
        out: dict[str, Any] = {"type": list(self.names) if len(self.names) > 1 else self.names[0]}
        if self.max is not None:
            out["maxLength"] = self.max
        return out


@dataclass(frozen=True)
class Json(Shape):
    """Text holding a JSON value of the shape `of` (the `data:` line of a server-sent event)."""

    of: Shape

    def check(self, value: Any, where: str) -> str:
        if not isinstance(value, str):
            raise ShapeError(f"{where}: must be text")
        try:
            parsed = json.loads(value)
        except ValueError as exc:
            raise ShapeError(f"{where}: must be JSON ({exc})") from None
        self.of.check(parsed, where)
        return value

    def _schema(self, sealed: dict | None) -> dict:
        return {
            "type": "string",
            "contentMediaType": "application/json",
            "contentSchema": self.of.schema(sealed),
        }


_JSON_TYPES = {str: "string", int: "integer", bool: "boolean", float: "number"}
_JSON_TYPE_CHECKS: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: _is_int(whole(v)),
    "boolean": lambda v: isinstance(v, bool),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "null": lambda v: v is None,
}
ANY = Shape()
CARDS = ListOf(Card())
SEAT = Int(0, 15)

# -- who may see a value: sealed values (docs/fairness.md) -------------------------------------

EACH = "each"  # a list indexed by seat: element i is seat i's
Audience = Callable[[dict, dict], "int | str | None"]


@dataclass(frozen=True)
class Hidden(Shape):
    """A value some callers may not see while the game runs; it is sealed in the chain.

    - `to`: who sees it: None (nobody until the end), the name of a field of the same object
      that holds a seat (`"seat"`, `"from"`; `"actor"` in an action body: the acting seat),
      `EACH` (a list whose element i only seat i sees), or a function of (data, options)
      giving one of these;
    - `until="reveal"`: everybody sees it once a later event of a kind the game marks
      `reveals` has happened (a committed card turned face up);
    - `when`: a function of (data, options) saying whether the value is hidden at all. Like
      `to`, it may read only what every caller sees (docs/fairness.md: which values are sealed
      depends only on public information);
    - `items`: a list whose length is public, each element sealed on its own (a caller sees
      how many cards lie face down, as at the table).
    """

    of: Shape = ANY
    to: str | Audience | None = None
    until: str = "end"
    when: Callable[[dict, dict], bool] | None = None
    items: bool = False

    def check(self, value: Any, where: str) -> Any:
        return self.of.check(value, where)

    def _schema(self, sealed: dict | None) -> dict:
        """In clear, the value's own schema; as served, each part that may be sealed is the
        value or its seal (or null: a game of FAIRNESS version 1 served hidden values as null)."""
        if sealed is None:
            return self.of.schema()
        inner = self.of.schema(sealed)
        one = {"anyOf": [inner, sealed, {"type": "null"}]}
        if not isinstance(self.of, ListOf):
            return one
        per_item = {**inner, "items": {"anyOf": [inner["items"], sealed, {"type": "null"}]}}
        if self.items or self.to == EACH:
            return per_item
        if callable(self.to):  # the whole list, or each seat's element, as the options say
            return {"anyOf": [per_item, sealed, {"type": "null"}]}
        return one

    def audience(self, data: dict, options: dict) -> int | str | None:
        to = self.to(data, options) if callable(self.to) else self.to
        if to is None or to == EACH:
            return to
        seat = data.get(to) if isinstance(to, str) else to
        return seat if _is_int(seat) else None


@dataclass(frozen=True)
class Ledger:
    """Who may see the inputs and outputs of the draws an event records (`data.rng`)."""

    input: Hidden | None = None
    output: Hidden | None = None


@dataclass(frozen=True)
class Event:
    """An event type a game writes: its data fields (a `Hidden` field is sealed), the rule for
    its ledger, and whether it turns face up every value hidden `until="reveal"` before it."""

    fields: Mapping[str, Shape] = field(default_factory=dict)
    ledger: Ledger | None = None
    reveals: bool = False
    actor: str = "server"  # "server", "seat" (the acting seat), "clock"
    doc: str = ""


@dataclass(frozen=True)
class Action:
    """An action body: `{"type": type, **fields}`; `available(options)` says whether the game's
    options offer it at all."""

    type: str
    fields: Mapping[str, Shape] = field(default_factory=dict)
    doc: str = ""
    available: Callable[[dict], bool] | None = None

    def body(self) -> Obj:
        return self._body

    @cached_property
    def _body(self) -> Obj:  # made once: every action checked against it
        return Obj({"type": Choice((self.type,)), **self.fields}, title=self.type, doc=self.doc)


def check_action(actions: Sequence[Action], options: dict, body: Any) -> dict:
    """The body if it is one of the game's actions, as its shape says; else ShapeError."""
    if not isinstance(body, dict):
        raise ShapeError("an action is a JSON object")
    offered = [a for a in actions if a.available is None or a.available(options)]
    by_type = {a.type: a for a in offered}
    kind = body.get("type")
    if kind not in by_type:
        kinds = ", ".join(repr(a.type) for a in offered)
        raise ShapeError(f"type: this game's actions are {kinds}")
    return by_type[kind].body().check(body, "")


_POINTER_ESCAPE = re.compile(r"[~/]")


def pointer(*tokens: str | int) -> str:
    """A JSON Pointer (RFC 6901) under /data: `pointer("hands", 2)` is `/data/hands/2`."""
    parts = ("data", *tokens)
    return "".join(
        "/" + _POINTER_ESCAPE.sub(lambda m: "~0" if m.group() == "~" else "~1", str(t))
        for t in parts
    )

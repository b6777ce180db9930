"""What a marshmallow schema of service/api/schemas.py accepts, as JSON Schema (OpenAPI 3.1):
a request's body and query are declared once, where they are checked, and the contract is
generated from the same declaration (its bounds, patterns, required fields, descriptions).

A field's type comes from its class, its bounds from its validators (`Range`, `Length`,
`OneOf`, `Equal`, `Regexp`, and any validator or field with a `json_schema` of its own), its
description from `metadata["description"]`. Defaults are said only for query parameters: in a
body, a `default` makes openapi-typescript type the field as always present.
"""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, fields, validate

_TYPES: tuple[tuple[type[fields.Field], str], ...] = (
    (fields.Integer, "integer"),
    (fields.Boolean, "boolean"),
    (fields.List, "array"),
    (fields.Dict, "object"),
    (fields.Nested, "object"),
    (fields.String, "string"),
)


def _bounds(rule: Any, kind: str) -> dict[str, Any]:
    if isinstance(rule, validate.Range):
        out = {"minimum": rule.min, "maximum": rule.max}
    elif isinstance(rule, validate.Length):
        low, high = ("minItems", "maxItems") if kind == "array" else ("minLength", "maxLength")
        out = {low: rule.min or None, high: rule.max}
    elif isinstance(rule, validate.OneOf):
        out = {"enum": list(rule.choices)}
    elif isinstance(rule, validate.Equal):
        out = {"const": rule.comparable}
    elif isinstance(rule, validate.Regexp):
        out = {"pattern": rule.regex.pattern}
    else:
        out = getattr(rule, "json_schema", {})
    return {k: v for k, v in out.items() if v is not None}


def field_schema(field: fields.Field, with_default: bool = False) -> dict[str, Any]:
    """The JSON Schema of what `field` accepts."""
    own = getattr(field, "json_schema", None)
    kind = next((name for cls, name in _TYPES if isinstance(field, cls)), None)
    out: dict[str, Any] = dict(own) if own is not None else ({"type": kind} if kind else {})
    if isinstance(field, fields.Nested):
        nested = field.nested
        out = object_schema(nested() if isinstance(nested, type) else nested)
    elif isinstance(field, fields.List):
        out["items"] = field_schema(field.inner)
    elif isinstance(field, fields.Dict) and field.value_field is not None:
        out["additionalProperties"] = field_schema(field.value_field)
    for rule in field.validators:
        out.update(_bounds(rule, out.get("type", "")))
    default = field.load_default
    if with_default and isinstance(default, int | str) and not callable(default):
        out["default"] = default
    if field.metadata.get("description"):
        out["description"] = field.metadata["description"]
    return out


def object_schema(
    schema: Schema, only: tuple[str, ...] | None = None, required: tuple[str, ...] = ()
) -> dict[str, Any]:
    """The JSON Schema of a body `schema` accepts: its fields (`only` these), the required ones
    (and `required`, where the schema's own rule asks for them), and nothing else (every
    request schema refuses unknown fields)."""
    named = {k: f for k, f in schema.fields.items() if only is None or k in only}
    out: dict[str, Any] = {
        "type": "object",
        "required": [k for k, f in named.items() if f.required or k in required],
        "properties": {k: field_schema(f) for k, f in named.items()},
        "additionalProperties": False,
    }
    doc = schema.__doc__ if type(schema).__doc__ != Schema.__doc__ else None
    if doc:
        out["description"] = " ".join(doc.split())
    return out

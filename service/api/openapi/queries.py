"""A route's query parameters, from the marshmallow schema that checks them
(service/api/schemas.py): each bound and default is written once, where the request is checked,
and the contract says the same."""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, fields

from ...core import bounds
from .checked import field_schema

# the largest whole number a query takes without a bound of its own
QUERY_MAX = 10**bounds.DIGITS_MAX - 1


def _schema_of(field: fields.Field) -> dict[str, Any]:
    out = field_schema(field, with_default=True)
    out.pop("description", None)  # the parameter's own description says it
    if out["type"] == "integer" and "enum" not in out:
        out.setdefault("maximum", QUERY_MAX)
    return out


def query(
    schema: type[Schema],
    name: str,
    description: str = "",
    shape: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The parameter `name` of `schema`; `shape` replaces its generated schema where the
    contract names a shared component instead (a game's name, a status)."""
    field = schema().fields[name]
    out: dict[str, Any] = {
        "name": name,
        "in": "query",
        "required": bool(field.required),
        "schema": shape if shape is not None else _schema_of(field),
    }
    if description:
        out["description"] = description
    return out

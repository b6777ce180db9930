"""Two OpenAPI documents compared for what they accept and serve, not how they are written:
descriptions ignored, key order ignored, every `$ref` followed (a component renamed, inlined or
split compares as its content).

`normalized(doc)` is a document with its descriptions dropped and its keys sorted (what the
committed fixture of the contract holds); `differences(old, new)` lists each change as
`<where>: <change>`, `<where>` being the nearest component of the new document (or the path
from the root) and the path below it.
"""

from __future__ import annotations

import json
from typing import Any

IGNORED = {"description"}


def normalized(node: Any) -> Any:
    """`node` without descriptions, its keys sorted (JSON order)."""
    if isinstance(node, dict):
        return {
            k: normalized(v)
            for k, v in sorted(node.items())
            if not (k in IGNORED and isinstance(v, str))
        }
    if isinstance(node, list):
        return [normalized(v) for v in node]
    return node


def dumps(doc: dict) -> str:
    return json.dumps(normalized(doc), indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def _lookup(doc: dict, ref: str) -> Any:
    node: Any = doc
    for part in ref.removeprefix("#/").split("/"):
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


def differences(old: dict, new: dict) -> list[str]:
    """Every difference between `old` and `new` (both normalized), refs resolved."""
    found: list[str] = []
    seen: set[tuple[str, str]] = set()

    def resolve(doc: dict, node: Any) -> tuple[Any, str | None]:
        ref = None
        while isinstance(node, dict) and set(node) == {"$ref"}:
            ref = node["$ref"]
            node = _lookup(doc, ref)
        return node, ref

    def walk(o: Any, n: Any, where: str) -> None:
        o, old_ref = resolve(old, o)
        n, new_ref = resolve(new, n)
        if old_ref or new_ref:
            pair = (old_ref or where, new_ref or where)
            if pair in seen:
                return
            seen.add(pair)
            if new_ref:
                where = new_ref.rsplit("/", 1)[-1]
        if isinstance(o, dict) and isinstance(n, dict):
            for key in sorted(o.keys() | n.keys()):
                if key not in n:
                    found.append(f"{where}: -{key}")
                elif key not in o:
                    found.append(f"{where}: +{key}")
                elif where.startswith("/components/") and where.count("/") == 2:
                    ref = {"$ref": f"#{where}/{key}"}  # named as when reached by a ref
                    walk(ref, ref, f"{where}/{key}")
                else:
                    walk(o[key], n[key], f"{where}/{key}")
        elif isinstance(o, list) and isinstance(n, list) and len(o) == len(n):
            for i, (a, b) in enumerate(zip(o, n, strict=True)):
                walk(a, b, f"{where}/{i}")
        elif o != n:
            found.append(f"{where}: {json.dumps(o)} -> {json.dumps(n)}")

    walk(old, new, "")
    return found

"""Sealed values (docs/fairness.md, version 2): which values of an event are hidden from whom, their
digests, the sealed form the chain hashes, and the copy of an event one caller may see.

What is hidden comes from the game's declarations (`Hidden` fields of its events and action
shapes, the rule for each event's ledger): a whitelist the framework applies to every game
alike. Which pointers are sealed depends only on the event's public parts and the options.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from typing import Any, NamedTuple

from .chain import canonical
from .fairness import digest, nonce
from .game import Game
from .shapes import EACH, Hidden, Opt, Shape, pointer

FAIRNESS = 2  # the version new games follow


class Secret(NamedTuple):
    """Who sees a sealed value while the game runs: one seat (or None: nobody), and everybody
    once a later reveal has happened when `until` is "reveal"."""

    to: int | None
    until: str


def _hidden(shape: Shape) -> Hidden | None:
    while isinstance(shape, Opt):
        shape = shape.of
    return shape if isinstance(shape, Hidden) else None


def _fields(
    fields: Any, data: dict, options: dict, base: tuple, actor: int | None = None
) -> Iterator[tuple[str, Secret]]:
    for name, shape in fields.items():
        hidden = _hidden(shape)
        if hidden is None or name not in data:
            continue
        if hidden.when is not None and not hidden.when(data, options):
            continue
        if hidden.to == "actor":
            to: Any = actor
        else:
            to = hidden.audience(data, options)
        if to == EACH:
            for i in range(len(data[name])):
                yield pointer(*base, name, i), Secret(i, hidden.until)
        elif hidden.items:
            for i in range(len(data[name])):
                yield pointer(*base, name, i), Secret(to, hidden.until)
        else:
            yield pointer(*base, name), Secret(to, hidden.until)


def secrets(game: Game | None, event: dict, options: dict) -> dict[str, Secret]:
    """The sealed values of `event`, by JSON Pointer, with who may see each."""
    data, kind = event["data"], event["type"]
    found: dict[str, Secret] = {}
    if kind == "created":
        if "deal" in data:  # a test game's fixed deal: hidden until the end
            found[pointer("deal")] = Secret(None, "end")
        return found
    declared = game.events.get(kind) if game is not None else None
    if declared is not None:
        found.update(_fields(declared.fields, data, options, ()))
        ledger = declared.ledger
        for i, entry in enumerate(data.get("rng") or ()):
            if ledger is None:
                break
            for part in ("input", "output"):
                rule = getattr(ledger, part)
                if rule is None or (part == "input" and entry.get("deck")):
                    continue  # a deck's input is the canonical deck: public
                if rule.when is not None and not rule.when(data, options):
                    continue
                to = rule.audience(data, options)
                found[pointer("rng", i, part)] = Secret(None if to == EACH else to, rule.until)
    cause = data.get("cause")
    if game is not None and cause and "action" in cause:
        act = cause["action"]
        body = act.get("body") or {}
        shape = next((a for a in game.actions if a.type == body.get("type")), None)
        if shape is not None:
            base = ("cause", "action", "body")
            found.update(_fields(shape.fields, body, options, base, actor=act.get("seat")))
    return found


# -- reading and replacing values by pointer --------------------------------------------------


def _tokens(ptr: str) -> list[str]:
    return [t.replace("~1", "/").replace("~0", "~") for t in ptr.split("/")[1:]]


def _step(node: Any, token: str) -> Any:
    return node[int(token)] if isinstance(node, list) else node[token]


def get(event: dict, ptr: str) -> Any:
    node: Any = event
    for token in _tokens(ptr):
        node = _step(node, token)
    return node


def replaced(event: dict, values: dict[str, Any]) -> dict:
    """A copy of `event` with the value at each pointer replaced: only the containers on the
    way are copied, the rest is shared."""
    out = dict(event)
    for ptr, value in values.items():
        tokens = _tokens(ptr)
        node: Any = out
        for token in tokens[:-1]:
            child = _step(node, token)
            child = list(child) if isinstance(child, list) else dict(child)
            if isinstance(node, list):
                node[int(token)] = child
            else:
                node[token] = child
            node = child
        last = tokens[-1]
        if isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value
    return out


# -- sealing at write time, opening at read time ------------------------------------------------


def seal(
    event: dict, found: dict[str, Secret], server_seed: bytes, game_id: str
) -> tuple[list[str], list[str]]:
    """The event's `sealed` pointers and their digests (same order)."""
    pointers = list(found)
    version = event["version"]
    digests = [
        digest(nonce(server_seed, game_id, version, p), canonical(get(event, p))) for p in pointers
    ]
    return pointers, digests


def sealed_form(event: dict, digests: list[str]) -> dict:
    """The event without `hash` and `openings`, each sealed value replaced by its digest."""
    body = {k: v for k, v in event.items() if k not in ("hash", "openings", "digests")}
    if not digests:
        return body
    return replaced(body, {p: {"sealed": d} for p, d in zip(event["sealed"], digests, strict=True)})


def chain_hash(form: dict) -> str:
    return hashlib.sha256(canonical(form)).hexdigest()


def sees(secret: Secret, seat: int | None, version: int, state: dict) -> bool:
    """Whether `seat` (None: a spectator) may see a sealed value of event `version` now."""
    if state["status"] == "finished":
        return True
    if secret.until == "reveal" and version < state.get("revealed_at", 0):
        return True
    return seat is not None and secret.to == seat

"""How cards, suits, seats and values look in the terminal (rich), for every game."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from rich import box
from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

DEFAULT_URL = "http://127.0.0.1:8000"

CARD_RE = re.compile(r"^(10|[2-9JQKA])([SHDC])$")
SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
RED_SUITS = frozenset("HD")
RED_CARD = "bold red3 on grey93"
BLACK_CARD = "bold black on grey93"
HIDDEN_CARD = "grey62 on grey30"
# keys whose single-letter value is a suit, not a word
SUIT_KEYS = frozenset({"suit", "trump", "led", "lead", "lead_suit", "trump_suit"})
# keys of a seat's own hidden cards in a game's `table` view
HAND_KEYS = ("hand", "pack", "your_card", "your_down")
# lists of seats, never one value per seat
SEAT_LIST_KEYS = frozenset(
    {"contenders", "allies", "winners", "seats", "players", "teams", "tied", "to_move"}
)
# event data that is proof, not play: left out of the compact event lines
EVENT_NOISE = frozenset({"rng", "client_seeds", "salt", "seed_commitment", "server_seed"})
TIE_STYLE = "bold yellow"
# keys whose value is shown without its key in a one-line dict (a null `card` is hidden)
BARE_KEYS = frozenset({"card", "type", "kind"})

Fetch = Callable[[str, dict], tuple[int, bytes]]


# -- cards and values ---------------------------------------------------------------------------


def is_card(value: object) -> bool:
    return isinstance(value, str) and CARD_RE.match(value) is not None


def card(text: str | None) -> Text:
    """One card as a small chip: `Q♥` red, `Q♠` black; None (a hidden card) as a card back."""
    if text is None:
        return Text("▒▒", style=HIDDEN_CARD)
    rank, suit = text[:-1], text[-1]
    return Text(f"{rank}{SUIT_SYMBOLS[suit]}", style=RED_CARD if suit in RED_SUITS else BLACK_CARD)


def suit_text(suit: str) -> Text:
    return Text(SUIT_SYMBOLS[suit], style="bold red3" if suit in RED_SUITS else "bold")


def is_card_list(value: object) -> bool:
    """A non-empty list of cards, some maybe hidden (None); a list of only None counts too: in
    this API a list of nulls is always a list of cards the caller may not see."""
    return isinstance(value, list) and bool(value) and all(v is None or is_card(v) for v in value)


def is_suit_list(value: object) -> bool:
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(v, str) and v in SUIT_SYMBOLS for v in value)
    )


def cards(values: Sequence[str | None], limit: int = 26) -> Text:
    """Cards side by side; a long run of hidden cards is counted rather than drawn."""
    out = Text()
    shown = list(values[:limit])
    i = 0
    while i < len(shown):
        if out:
            out.append(" ")
        if shown[i] is None:
            run = 1
            while i + run < len(shown) and shown[i + run] is None:
                run += 1
            if run > 3:
                out.append_text(card(None))
                out.append(f"x{run}", style="dim")
                i += run
                continue
        out.append_text(card(shown[i]))
        i += 1
    if len(values) > limit:
        out.append(f" … +{len(values) - limit}", style="dim")
    return out


def seat_label(seat: object) -> Text:
    return Text(f"#{seat}", style="bold magenta")


def inline(value: Any, key: str | None = None, limit: int = 26) -> Text:
    """Any JSON value on one line: cards as chips, dicts as `k=v`, lists comma-separated."""
    if value is None:
        return Text("-", style="dim")
    if isinstance(value, bool):
        return Text("yes", style="green") if value else Text("no", style="dim")
    if isinstance(value, int | float):
        return Text(str(value), style="cyan")
    if isinstance(value, str):
        if is_card(value):
            return card(value)
        if key in SUIT_KEYS and value in SUIT_SYMBOLS:
            return suit_text(value)
        return Text(value)
    if isinstance(value, list):
        if not value:
            return Text("-", style="dim")
        if is_card_list(value):
            return cards(value, limit)
        if is_suit_list(value):
            return Text(" ").join(suit_text(s) for s in value)
        sep = Text(" │ ", style="dim") if all(isinstance(v, list) for v in value) else Text(", ")
        out = sep.join(inline(v, key, limit) for v in value[:limit])
        if len(value) > limit:
            out.append(f" … +{len(value) - limit}", style="dim")
        return out
    if isinstance(value, dict):
        return _inline_dict(value, limit)
    return Text(str(value))


def _inline_dict(value: dict, limit: int) -> Text:
    parts: list[Text] = []
    if "seat" in value:
        parts.append(seat_label(value["seat"]))
    for k, v in value.items():
        if k == "seat":
            continue
        if k in BARE_KEYS and v is None:
            parts.append(card(None))  # a card the caller may not see
        elif k in BARE_KEYS or (isinstance(v, str) and not is_card(v) and not k.endswith("id")):
            parts.append(inline(v, k, limit))  # the value says what it is
        elif isinstance(v, dict) and v:
            parts.append(Text(f"{k}={{", style="dim") + inline(v, k, limit) + Text("}", "dim"))
        else:
            parts.append(Text(f"{k}=", style="dim") + inline(v, k, limit))
    return Text(" ").join(parts) if parts else Text("{}", style="dim")


def _is_flat(value: object) -> bool:
    """Fits on one line without losing its shape."""
    if isinstance(value, dict):
        return len(value) <= 4 and all(_is_flat(v) for v in value.values())
    if isinstance(value, list):
        return not any(isinstance(v, dict) and not _is_flat(v) for v in value)
    return True


def block(value: Any, key: str | None = None, max_rows: int = 15) -> RenderableType:
    """Any JSON value as a block: a list of records as a table, a nested dict as `key: value`."""
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        if all(_is_flat(v) and len(v) <= 3 for v in value):
            return inline(value, key)
        return records(value, max_rows=max_rows)
    if isinstance(value, dict) and not _is_flat(value):
        return key_values(value, max_rows=max_rows)
    return inline(value, key)


def records(rows: list[dict], max_rows: int = 15) -> Table:
    """Dicts as a table, one column per key (in order of first appearance)."""
    columns: list[str] = []
    for row in rows:
        columns += [k for k in row if k not in columns]
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False, header_style="dim")
    for c in columns:
        table.add_column(c)
    shown = rows[-max_rows:]
    if len(rows) > len(shown):
        table.caption = f"{len(rows) - len(shown)} earlier not shown"
    for row in shown:
        table.add_row(*(inline(row[c], c) if c in row else Text("") for c in columns))
    return table


def key_values(value: dict, max_rows: int = 15) -> Table:
    grid = Table.grid(padding=(0, 1))
    grid.add_column(style="dim", no_wrap=True)
    grid.add_column()
    for k, v in value.items():
        grid.add_row(f"{k}:", block(v, k, max_rows))
    return grid

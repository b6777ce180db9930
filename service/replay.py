"""`batayo replay ID`: draw a game at any version in the terminal, from the public HTTP API.

Three parts that do not depend on each other:

- pure rendering: `render(view, events, ties, ...)` turns the game view of API.md (any game: its
  `table` is drawn generically), the event log and the tie audit into one rich renderable;
- a small HTTP client (`Client`) over stdlib urllib, or over any injected `fetch(path, headers)`
  (the tests pass Flask's test client);
- the key loop of `--step`: `read_key` reads one key in raw mode, the pure `next_version` maps
  it to the version to show next.

Everything comes from `GET /v1/games/{id}` (`?at=N`), `/events` and `/ties`. The one thing
computed here: once a game is over its whole log is public, so the seats' hidden cards at any
version are rebuilt from that log with the game's own reducers (`seat_tables`).
"""

from __future__ import annotations

import json
import os
import re
import select
import sys
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from typing import Any

import click
from rich import box
from rich.console import Console, Group, RenderableType
from rich.panel import Panel
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


# -- the view ----------------------------------------------------------------------------------


def seat_names(view: dict) -> dict[int, str]:
    out = {}
    for s in view.get("seats") or []:
        if not isinstance(s, dict) or "seat" not in s:
            continue
        if s.get("name"):
            out[s["seat"]] = str(s["name"])
        elif s.get("bot"):
            out[s["seat"]] = f"{s['bot']} (bot)"
        else:
            out[s["seat"]] = "open" if s.get("open") else ""
    return out


def _seat_columns(table: dict, count: int) -> dict[str, list]:
    """Lists in the table with one value per seat (batak's `tricks_taken`, roylet's
    `hand_sizes`, …): scalars or small lists, never cards or lists of seats."""
    out = {}
    for k, v in table.items():
        if (
            isinstance(v, list)
            and len(v) == count
            and k not in SEAT_LIST_KEYS
            and not is_card_list(v)
            and all(not isinstance(x, dict) for x in v)
        ):
            out[k] = v
    return out


def players_table(view: dict, chosen: int | None) -> tuple[Table | None, set[str]]:
    """The seats as rows: the table's `players` records if it has them, else the seats with
    every per-seat list of the table as a column. Returns the keys of `table` it drew."""
    t = view.get("table") if isinstance(view.get("table"), dict) else {}
    names = seat_names(view)
    to_move = set(view.get("to_move") or [])
    result = view.get("result") or {}
    winners = set(result.get("winners") or []) if isinstance(result, dict) else set()
    used: set[str] = set()
    rows: list[dict]
    if isinstance(t.get("players"), list) and all(isinstance(p, dict) for p in t["players"]):
        rows = [dict(p) for p in t["players"]]
        used.add("players")
    elif names:
        columns = _seat_columns(t, len(names))
        used |= set(columns)
        rows = [
            {"seat": s, **{k: v[i] for k, v in columns.items()}}
            for i, s in enumerate(sorted(names))
        ]
    else:
        return None, used
    columns: list[str] = []
    for row in rows:
        columns += [k for k in row if k not in columns and k != "seat"]
    table = Table(box=box.ROUNDED, header_style="bold", title_justify="left")
    table.add_column("", no_wrap=True)
    table.add_column("seat", no_wrap=True)
    for c in columns:
        table.add_column(c)
    for i, row in enumerate(rows):
        s = row.get("seat", i)
        marks = Text()
        if s in to_move:
            marks.append("▶", style="bold green")
        if s in winners:
            marks.append("★", style="bold yellow")
        if s == chosen:
            marks.append("●", style="bold magenta")
        who = seat_label(s) + Text(f" {names.get(s, '')}".rstrip())
        cells = [inline(row[c], c) if c in row else Text("") for c in columns]
        table.add_row(marks, who, *cells, style="bold" if s == chosen else None)
    return table, used


def hand_of(table: dict | None) -> dict[str, Any]:
    """A seat's own cards in its view of the table: `hand`, `pack` (when it is a list of
    cards), `your_card`, `your_down`."""
    if not isinstance(table, dict):
        return {}
    out = {}
    for k in HAND_KEYS:
        v = table.get(k)
        if is_card(v) or (isinstance(v, list) and (not v or is_card_list(v))):
            out[k] = v
    return out


def _hand_line(table: dict | None) -> Text:
    held = hand_of(table)
    parts = [
        Text(f"{k}: ", style="dim") + inline(v, k, limit=52)
        for k, v in held.items()
        if v not in (None, [])
    ]
    return Text("  ").join(parts) if parts else Text("no cards of its own in its view", "dim")


def hands_panel(view: dict, seat: int | None, hands: dict[int, dict] | None) -> RenderableType:
    """The hidden cards of the caller's seat (its token's view), or of the seats `hands` gives
    (their views rebuilt from the full log of a finished game)."""
    names = seat_names(view)
    grid = Table.grid(padding=(0, 1))
    grid.add_column(no_wrap=True)
    grid.add_column()
    own = view.get("you")
    if own is not None:
        hands = {own: view.get("table") or {}}
    if (
        hands
        and len(hands) > 1
        and not any(v not in (None, []) for t in hands.values() for v in hand_of(t).values())
    ):
        return Text("no seat holds cards of its own in its view of the table", style="dim")
    if hands:
        for s, table in sorted(hands.items()):
            grid.add_row(seat_label(s) + Text(f" {names.get(s, '')}"), _hand_line(table))
        return grid
    if seat is not None:
        return Text(
            f"seat {seat}'s cards are hidden while the game runs: pass --token to see them",
            style="dim",
        )
    return Text("spectator: pass --seat S (and --token T while the game runs) to see a hand")


def _header(view: dict, last: int | None) -> Text:
    v = view.get("version")
    text = Text()
    text.append(f"{view.get('game', '?')} ", style="bold")
    text.append(f"{view.get('id', '')}  ", style="dim")
    text.append("version ")
    text.append(str(v), style="bold cyan")
    if last is not None:
        text.append(f" / {last}")
    status = view.get("status", "?")
    text.append("  ")
    text.append(str(status), style={"playing": "green", "finished": "blue"}.get(status, "yellow"))
    if view.get("test"):
        text.append("  test game", style="dim")
    if view.get("rounds") is not None:
        text.append(f"  rounds {view['rounds']}")
    names = seat_names(view)
    if view.get("to_move"):
        text.append("  to move: ")
        text.append_text(
            Text(", ").join(
                seat_label(s) + Text(f" {names.get(s, '')}".rstrip()) for s in view["to_move"]
            )
        )
    result = view.get("result")
    if isinstance(result, dict):
        text.append("\nresult: ", style="bold")
        if result.get("draw"):
            text.append("draw", style="bold yellow")
        elif result.get("winners") is not None:
            text.append("won by ")
            text.append_text(
                Text(", ").join(
                    seat_label(s) + Text(f" {names.get(s, '')}".rstrip()) for s in result["winners"]
                )
            )
        rest = {k: v for k, v in result.items() if k not in ("winners", "draw")}
        if rest:
            text.append("  ")
            text.append_text(inline(rest))
    return text


# -- ties --------------------------------------------------------------------------------------


def _span(versions: Iterable[int]) -> tuple[int, int] | None:
    vs = [v for v in versions if isinstance(v, int)]
    return (min(vs), max(vs)) if vs else None


def tie_at(ties: list[dict], version: int) -> dict | None:
    """The tie episode under way at `version`: from its first event to its last."""
    for tie in ties:
        span = _span(tie.get("versions") or [])
        if span and span[0] <= version <= span[1]:
            return tie
    return None


def tie_versions(ties: list[dict]) -> set[int]:
    return {v for tie in ties for v in tie.get("versions") or [] if isinstance(v, int)}


def tie_starts(ties: list[dict]) -> list[int]:
    return sorted(span[0] for tie in ties if (span := _span(tie.get("versions") or [])))


def step_at(tie: dict, version: int) -> int | None:
    """The index of the tie's step under way at `version` (the last one begun by then)."""
    current = None
    for i, step in enumerate(tie.get("steps") or []):
        span = _span(step.get("versions") or [])
        if span and span[0] <= version:
            current = i
    return current


def acted(events: list[dict], versions: Iterable[int], version: int) -> set | None:
    """The seats that put cards down in the events of `versions` up to `version`; None if
    those events name no seat at all (then there is nothing to go by)."""
    wanted = {v for v in versions if v <= version}
    named = [e for e in events if e.get("version") in set(versions)]
    if not any(isinstance(e.get("data"), dict) and "seat" in e["data"] for e in named):
        return None
    return {
        e["data"]["seat"]
        for e in named
        if e.get("version") in wanted and isinstance(e.get("data"), dict) and "seat" in e["data"]
    }


def tie_banner(tie: dict, version: int, events: list[dict] | None = None) -> RenderableType:
    """The tie under way at `version`: each step begun so far with its cards (of the current
    step only those already put down), and what each finished step decided."""
    steps = tie.get("steps") or []
    current = step_at(tie, version)
    end = (_span(tie.get("versions") or []) or (0, 0))[1]
    title = Text(f"⚔ {str(tie.get('kind', 'tie')).upper()}", style="bold yellow")
    if tie.get("round") is not None:
        title.append(f"  round {tie['round']}", style="yellow")
    if current is not None:
        title.append(f"  step {current + 1}", style="yellow")
        if version >= end:
            title.append(f" of {len(steps)}", style="yellow")
    if tie.get("players"):
        title.append("  between ")
        title.append_text(Text(", ").join(seat_label(s) for s in tie["players"]))
    rows = Table.grid(padding=(0, 1))
    rows.add_column(no_wrap=True)
    rows.add_column()
    for i, step in enumerate(steps):
        span = _span(step.get("versions") or [])
        if current is None or i > current or not span:
            break
        here = i == current
        mark = Text("▶ " if here else "  ", style=TIE_STYLE) + Text(
            f"step {i + 1}", style=TIE_STYLE if here else "dim"
        )
        line = Text()
        seen = acted(events or [], step.get("versions") or [], version)
        for put in step.get("cards") or []:
            if seen is not None and isinstance(put, dict) and put.get("seat") not in seen:
                continue
            if line:
                line.append("   ")
            line.append_text(_put_text(put))
        outcome = {k: step[k] for k in step if k not in ("cards", "versions")}
        if outcome and (not here or version >= span[1]):
            line.append("   → ", style="dim")
            line.append_text(inline(outcome))
        line.append(f"   v{span[0]}-{span[1]}", style="dim")
        rows.add_row(mark, line)
    if version >= end and tie.get("winner") is not None:
        done = {
            k: tie[k] for k in tie if k not in ("kind", "round", "players", "steps", "versions")
        }
        rows.add_row(Text("  done", style="dim"), inline(done))
    return Panel(Group(title, rows), border_style="yellow", box=box.HEAVY, padding=(0, 1))


def _put_text(put: Any) -> Text:
    if not isinstance(put, dict):
        return inline(put)
    out = seat_label(put["seat"]) + Text(" ") if "seat" in put else Text()
    if put.get("down"):  # face down, in brackets
        out.append("(", style="dim")
        out.append_text(inline(put["down"], "down"))
        out.append(") ", style="dim")
    out.append_text(inline(put.get("up", put.get("card")), "up"))
    rest = {k: v for k, v in put.items() if k not in ("seat", "up", "down", "card", "how")}
    if rest:
        out.append(" ")
        out.append_text(inline(rest))
    return out


def ties_panel(ties: list[dict], version: int) -> RenderableType:
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False, header_style="dim")
    for c in ("", "kind", "round", "players", "versions", "steps", "outcome"):
        table.add_column(c)
    for tie in ties:
        span = _span(tie.get("versions") or [])
        here = span is not None and span[0] <= version <= span[1]
        done = span is not None and version >= span[1]
        outcome = {
            k: tie[k] for k in tie if k not in ("kind", "round", "players", "steps", "versions")
        }
        table.add_row(
            Text("▶", style=TIE_STYLE) if here else Text(""),
            str(tie.get("kind", "")),
            inline(tie.get("round")),
            inline(tie.get("players")),
            f"{span[0]}-{span[1]}" if span else "",
            str(len(tie.get("steps") or [])),
            inline(outcome) if done else Text("later" if not here else "under way", style="dim"),
            style=TIE_STYLE if here else (None if done else "dim"),
        )
    return table


def timeline(last: int, version: int, marked: set[int], width: int = 60) -> Text:
    """One line for the whole game: tie versions in yellow, the current one as ▲."""
    width = max(1, min(width, last))
    out = Text("1 ", style="dim")
    for i in range(width):
        lo = 1 + i * last // width
        hi = max(lo, (i + 1) * last // width)
        if lo <= version <= hi:
            out.append("▲", style="bold cyan")
        elif any(v in marked for v in range(lo, hi + 1)):
            out.append("▆", style="yellow")
        else:
            out.append("─", style="dim")
    out.append(f" {last}", style="dim")
    return out


# -- events ------------------------------------------------------------------------------------


def actor_text(actor: Any, names: dict[int, str]) -> Text:
    if isinstance(actor, int) and not isinstance(actor, bool):
        return seat_label(actor) + Text(f" {names.get(actor, '')}".rstrip())
    return Text(str(actor), style="dim")


def events_panel(
    events: list[dict], version: int, names: dict[int, str], marked: set[int], count: int = 8
) -> Table:
    table = Table(
        box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False, header_style="dim", expand=True
    )
    table.add_column("v", justify="right", no_wrap=True)
    table.add_column("type", no_wrap=True)
    table.add_column("actor", no_wrap=True)
    table.add_column("data", no_wrap=True, overflow="ellipsis", ratio=1)
    shown = [e for e in events if isinstance(e.get("version"), int) and e["version"] <= version]
    for e in shown[-count:] if count else []:
        v = e["version"]
        data = e.get("data") if isinstance(e.get("data"), dict) else {}
        data = {k: d for k, d in data.items() if k not in EVENT_NOISE and d not in (None, [])}
        tied = v in marked
        table.add_row(
            Text(f"{'⚔' if tied else ' '}{v}", style=TIE_STYLE if tied else "dim"),
            Text(str(e.get("type", "")), style="bold" if v == version else None),
            actor_text(e.get("actor"), names),
            inline(data, limit=8),
            style="reverse" if v == version else None,
        )
    return table


# -- the whole frame ---------------------------------------------------------------------------


def render(
    view: dict,
    events: list[dict],
    ties: list[dict],
    *,
    last: int | None = None,
    seat: int | None = None,
    hands: dict[int, dict] | None = None,
    count: int = 8,
    table_last: bool = False,
    max_rows: int = 15,
) -> RenderableType:
    """The game at `view["version"]`: header, seats, the rest of the table, the chosen seat's
    hand, the last `count` events up to that version, and the ties (the one under way
    highlighted with its current step). `table_last` draws the rest of the table at the end
    (it is the part that may be cut off at the bottom of a terminal); `max_rows` caps the rows
    of each list of records in it (the latest are kept)."""
    version = int(view.get("version") or 0)
    last = last if last is not None else max([version, *(e.get("version", 0) for e in events)])
    names = seat_names(view)
    marked = tie_versions(ties)
    parts: list[RenderableType] = [_header(view, last)]
    tie = tie_at(ties, version)
    if tie is not None:
        parts.append(tie_banner(tie, version, events))
    chosen = view.get("you") if view.get("you") is not None else seat
    seats, used = players_table(view, chosen)
    if seats is not None:
        parts.append(seats)
    table = view.get("table")
    board: RenderableType | None = None
    if isinstance(table, dict):
        rest = {k: v for k, v in table.items() if k not in used and k not in HAND_KEYS}
        if rest:
            board = Panel(
                key_values(rest, max_rows), title="table", title_align="left", box=box.ROUNDED
            )
    elif table is not None:
        board = Panel(block(table, max_rows=max_rows), title="table", title_align="left")
    if board is not None and not table_last:
        parts.append(board)
    parts.append(
        Panel(hands_panel(view, seat, hands), title="hand", title_align="left", box=box.ROUNDED)
    )
    if count:
        parts.append(
            Panel(
                events_panel(events, version, names, marked, count),
                title=f"events up to {version}",
                title_align="left",
                box=box.ROUNDED,
            )
        )
    if ties:
        parts.append(
            Panel(
                Group(ties_panel(ties, version), timeline(last, version, marked)),
                title=f"ties ({len(ties)})",
                title_align="left",
                box=box.ROUNDED,
                border_style="yellow" if tie else "none",
            )
        )
    if board is not None and table_last:
        parts.append(board)
    return Group(*parts)


# -- the HTTP client ---------------------------------------------------------------------------


class ApiError(Exception):
    """Anything that went wrong talking to the service, in words."""


def urllib_fetch(base_url: str, timeout: float = 10.0) -> Fetch:
    base = base_url.rstrip("/")
    scheme = urllib.parse.urlsplit(base).scheme
    if scheme not in ("http", "https"):
        raise ApiError(f"{base_url!r} is not an http(s) URL")

    def fetch(path: str, headers: dict) -> tuple[int, bytes]:
        request = urllib.request.Request(base + path, headers=headers)  # noqa: S310 (checked)
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310
                return response.status, response.read()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read()
        except urllib.error.URLError as exc:
            raise ApiError(f"cannot reach {base}: {exc.reason}") from None
        except (TimeoutError, OSError) as exc:
            raise ApiError(f"cannot reach {base}: {exc}") from None

    return fetch


class Client:
    """The three read-only calls replay needs, as the bearer of `token` (or a spectator)."""

    def __init__(
        self,
        game_id: str,
        url: str = DEFAULT_URL,
        token: str | None = None,
        fetch: Fetch | None = None,
    ) -> None:
        self.game_id = game_id
        self.url = url
        self.headers = {"Accept": "application/json"}
        if token:
            self.headers["Authorization"] = f"Bearer {token}"
        self.fetch = fetch or urllib_fetch(url)

    def get(self, path: str, **query: Any) -> dict:
        gid = urllib.parse.quote(self.game_id, safe="")
        q = {k: v for k, v in query.items() if v is not None}
        full = f"/v1/games/{gid}{path}" + (f"?{urllib.parse.urlencode(q)}" if q else "")
        status, body = self.fetch(full, dict(self.headers))
        try:
            doc = json.loads(body) if body else None
        except ValueError:
            doc = None
        if status >= 400:
            raise ApiError(problem_message(status, doc, self.game_id))
        if not isinstance(doc, dict):
            raise ApiError(f"{self.url} answered {full} with something that is not batayo JSON")
        return doc

    def view(self, at: int | None = None) -> dict:
        return self.get("", at=at)

    def events(self, page: int = 1000) -> list[dict]:
        out: list[dict] = []
        after: int | None = 0
        while after is not None:
            doc = self.get("/events", after=after, limit=page)
            out += doc.get("events") or []
            following = doc.get("next_after")
            after = following if isinstance(following, int) and following > after else None
        return out

    def ties(self, page: int = 500) -> list[dict]:
        out: list[dict] = []
        offset: int | None = 0
        while offset is not None:
            doc = self.get("/ties", offset=offset, limit=page)
            out += doc.get("ties") or []
            following = doc.get("next_offset")
            offset = following if isinstance(following, int) and following > offset else None
        return out


def problem_message(status: int, doc: Any, game_id: str) -> str:
    """An RFC 9457 problem in one line."""
    if isinstance(doc, dict) and (doc.get("detail") or doc.get("title")):
        code = f" {doc['code']}" if doc.get("code") else ""
        detail = doc.get("detail") or doc.get("title")
        return f"game {game_id}: {status}{code}: {detail}"
    return f"game {game_id}: HTTP {status}"


# -- a replay session --------------------------------------------------------------------------


class Replay:
    """One game fetched once (latest view, whole log, ties); views by version on demand."""

    def __init__(self, client: Client, seat: int | None = None, count: int = 8) -> None:
        self.client = client
        latest = client.view()
        self.last = int(latest["version"])
        self.finished = latest.get("status") == "finished"
        self.you = latest.get("you")
        self.seat = self.you if self.you is not None else seat
        self.count = count
        self.events = client.events()
        self.ties = client.ties()
        self.marks = tie_starts(self.ties)
        self._views: dict[int, dict] = {self.last: latest}
        self._hands: dict[int, dict[int, dict] | None] = {}

    def view(self, version: int) -> dict:
        if version not in self._views:
            self._views[version] = self.client.view(at=version)
        return self._views[version]

    def hands(self, version: int) -> dict[int, dict] | None:
        """After the end the whole log is public, so every seat's view can be rebuilt from it
        with the game's own reducers: the chosen seat's (or every seat's) hidden cards."""
        if self.you is not None or not self.finished:
            return None
        if version not in self._hands:
            self._hands[version] = seat_tables(self.events, version, self.seat)
        return self._hands[version]

    def frame(
        self,
        version: int,
        table_last: bool = False,
        count: int | None = None,
        max_rows: int = 15,
    ) -> RenderableType:
        return render(
            self.view(version),
            self.events,
            self.ties,
            last=self.last,
            seat=self.seat,
            hands=self.hands(version),
            count=self.count if count is None else count,
            table_last=table_last,
            max_rows=max_rows,
        )


def seat_tables(events: list[dict], version: int, seat: int | None) -> dict[int, dict] | None:
    """Each seat's `table` view at `version`, folded from the public log (None if it cannot)."""
    try:
        from .state import fold
        from .views import game_view

        state = fold(events[:version])
        seats = [s["seat"] for s in state.get("seats", [])]
        wanted = [seat] if seat is not None else seats
        return {s: game_view(state, s)["table"] for s in wanted if s in seats}
    except Exception:  # a log this client cannot fold: show what the API gives
        return None


# -- keys --------------------------------------------------------------------------------------

SEQUENCES = {
    b"\x1b[C": "right",
    b"\x1b[D": "left",
    b"\x1b[A": "up",
    b"\x1b[B": "down",
    b"\x1bOC": "right",
    b"\x1bOD": "left",
    b"\x1bOA": "up",
    b"\x1bOB": "down",
    b"\x1b[H": "home",
    b"\x1b[F": "end",
    b"\x1bOH": "home",
    b"\x1bOF": "end",
    b"\x1b[1~": "home",
    b"\x1b[7~": "home",
    b"\x1b[4~": "end",
    b"\x1b[8~": "end",
    b"\x1b[5~": "pgup",
    b"\x1b[6~": "pgdn",
    b"\x1b": "esc",
}
CONTROLS = {b"\x03": "ctrl-c", b"\x04": "ctrl-d", b"\r": "enter", b"\n": "enter", b" ": "space"}
FORWARD = {"right", "n", "l", "space", "enter"}
BACK = {"left", "p", "h", "backspace"}
QUIT = {"q", "Q", "esc", "ctrl-c", "ctrl-d"}
HELP = "←/→ or p/n: step  ↑/↓: 10  home/end or g/G: first/last  [/]: previous/next tie  q: quit"


def next_version(key: str, current: int, last: int, marks: Sequence[int] = ()) -> int | None:
    """The version to show after `key` (clamped to 1..last), or None to quit."""
    if key in QUIT:
        return None
    target = current
    if key in FORWARD:
        target = current + 1
    elif key in BACK:
        target = current - 1
    elif key in ("down", "pgdn"):
        target = current + 10
    elif key in ("up", "pgup"):
        target = current - 10
    elif key in ("home", "g"):
        target = 1
    elif key in ("end", "G"):
        target = last
    elif key == "]":
        target = min((m for m in marks if m > current), default=current)
    elif key == "[":
        target = max((m for m in marks if m < current), default=current)
    return max(1, min(last, target))


def decode_key(raw: bytes) -> str:
    """A key name from the bytes one key press sent."""
    if raw in SEQUENCES:
        return SEQUENCES[raw]
    if raw in CONTROLS:
        return CONTROLS[raw]
    if raw in (b"\x7f", b"\x08"):
        return "backspace"
    if raw.startswith(b"\x1b"):
        return "unknown"
    return raw.decode(errors="replace")


def read_key(fd: int, wait: float = 0.05) -> str:
    """Read one key press from `fd` (in `raw_mode`): an escape sequence is read whole, and only
    it (keys typed ahead stay for the next call)."""

    def more() -> bytes:
        return os.read(fd, 1) if select.select([fd], [], [], wait)[0] else b""

    raw = os.read(fd, 1)
    if raw != b"\x1b":
        return decode_key(raw)
    kind = more()
    raw += kind
    if kind == b"O":  # SS3: one more byte
        raw += more()
    elif kind == b"[":  # CSI: parameters, then a final byte in @..~
        while len(raw) < 16:
            byte = more()
            raw += byte
            if not byte or 0x40 <= byte[0] <= 0x7E:
                break
    return decode_key(raw)


@contextmanager
def raw_mode(fd: int) -> Iterator[None]:
    """Keys one by one, unechoed, Ctrl-C as a byte (no signal), for the whole session; output
    processing stays on so the drawing's newlines still return the carriage. Whatever happens
    inside, the terminal is left as it was."""
    import termios

    saved = termios.tcgetattr(fd)
    mode = termios.tcgetattr(fd)
    mode[0] &= ~(termios.BRKINT | termios.ICRNL | termios.INPCK | termios.ISTRIP | termios.IXON)
    mode[2] = (mode[2] & ~(termios.CSIZE | termios.PARENB)) | termios.CS8
    mode[3] &= ~(termios.ECHO | termios.ICANON | termios.IEXTEN | termios.ISIG)
    mode[6][termios.VMIN], mode[6][termios.VTIME] = 1, 0
    try:
        termios.tcsetattr(fd, termios.TCSANOW, mode)
        yield
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


# the ways to draw a version, most complete first, for a terminal too short for everything:
# (events shown, rows per list of records in the table, the table at the bottom)
FITS = ((None, 15, False), (None, 5, False), (4, 4, False), (2, 3, False), (None, 15, True))


def fit(console: Console, session: Replay, version: int, height: int) -> list[str]:
    """The drawing of `version` as lines of at most `height`: the most complete one that fits,
    else the complete one with the table last and its bottom cut off."""
    lines: list[str] = []
    for count, rows, table_last in FITS:
        if count is not None and count > session.count:
            continue
        with console.capture() as captured:
            console.print(session.frame(version, table_last, count, rows))
        lines = captured.get().splitlines()
        if len(lines) <= height:
            return lines
    with console.capture() as note:
        console.print(Text("… (a taller terminal shows the rest)", style="dim"))
    return [*lines[: max(0, height - 1)], note.get().rstrip("\n")]


def step_loop(console: Console, session: Replay, start: int, read: Callable[[], str]) -> int:
    """Draw, read a key, move; until q. Returns the version shown last."""
    version = start
    while True:
        lines = fit(console, session, version, max(3, console.size.height - 2))
        console.clear()
        console.file.write("\n".join(lines) + "\n")
        console.print(Text(HELP, style="dim"))
        target = next_version(read(), version, session.last, session.marks)
        if target is None:
            return version
        version = target


# -- the command -------------------------------------------------------------------------------


@click.command()
@click.argument("game_id", metavar="ID")
@click.option("--at", type=click.IntRange(min=1), default=None, help="The version to show.")
@click.option("--step", is_flag=True, help="Walk the versions with the keyboard.")
@click.option(
    "--seat", type=click.IntRange(min=0), default=None, help="The seat whose hand to show."
)
@click.option("--token", default=None, help="A seat's token: see its hidden cards.")
@click.option("--url", default=None, help=f"The service [env BATAYO_URL; default {DEFAULT_URL}].")
@click.option(
    "--events",
    "count",
    default=8,
    show_default=True,
    type=click.IntRange(min=0),
    help="How many of the last events to list.",
)
@click.pass_context
def replay(
    ctx: click.Context,
    game_id: str,
    at: int | None,
    step: bool,
    seat: int | None,
    token: str | None,
    url: str | None,
    count: int,
) -> None:
    """Draw game ID at a version (default: the latest), or walk it with --step."""
    fetch = ctx.obj.get("fetch") if isinstance(ctx.obj, dict) else None
    base = url or os.environ.get("BATAYO_URL") or DEFAULT_URL
    console = Console()
    try:
        if step and not sys.stdin.isatty():
            raise ApiError("--step needs a terminal to read keys from")
        session = Replay(Client(game_id, base, token, fetch), seat=seat, count=count)
        if seat is not None and session.you is not None and seat != session.you:
            console.print(
                Text(f"the token is seat {session.you}'s: showing seat {session.you}", "yellow")
            )
        if at is not None and at > session.last:
            raise ApiError(f"game {game_id} has {session.last} versions, not {at}")
        version = at or session.last
        if not step:
            console.print(session.frame(version))
            return
        fd = sys.stdin.fileno()
        with raw_mode(fd):
            console.show_cursor(False)
            try:
                step_loop(console, session, version, lambda: read_key(fd))
            except KeyboardInterrupt:
                pass
            finally:
                console.show_cursor(True)
    except ApiError as exc:
        raise click.ClickException(str(exc)) from None
    except KeyboardInterrupt:
        raise click.exceptions.Exit(130) from None
    except Exception as exc:  # never a traceback
        with suppress(Exception):
            console.show_cursor(True)
        raise click.ClickException(f"replay failed: {type(exc).__name__}: {exc}") from None

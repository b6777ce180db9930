"""One frame of the replay: the game view, the tie under way, the last events."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich import box
from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from .style import (
    EVENT_NOISE,
    HAND_KEYS,
    SEAT_LIST_KEYS,
    TIE_STYLE,
    block,
    inline,
    is_card,
    is_card_list,
    key_values,
    seat_label,
)

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

"""`batayo replay ID`: draw a game at any version in the terminal, from the public HTTP API.

This module is the command; `style` (cards, suits, values), `frame` (one frame), `client` (the
HTTP API and the replay session) and `keys` (the `--step` loop) are its parts. Everything comes
from `GET /v1/games/{id}` (`?at=N`), `/events` and `/ties`; the one thing computed here is a
finished game's hidden cards at any version, rebuilt from its public log (`seat_tables`).
"""

from __future__ import annotations

import sys
from contextlib import suppress

import click
from rich.console import Console
from rich.text import Text

from ...core.plain import stripped
from ...settings import load
from .client import ApiError, Client, Replay, seat_tables
from .frame import render, step_at, tie_at
from .keys import decode_key, next_version, raw_mode, read_key, step_loop
from .style import DEFAULT_URL

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
    base = url or load().url
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
        raise click.ClickException(stripped(str(exc))) from None
    except KeyboardInterrupt:
        raise click.exceptions.Exit(130) from None
    except Exception as exc:  # never a traceback
        with suppress(Exception):
            console.show_cursor(True)
        message = stripped(f"replay failed: {type(exc).__name__}: {exc}")
        raise click.ClickException(message) from None


__all__ = [
    "Client",
    "Replay",
    "decode_key",
    "next_version",
    "render",
    "replay",
    "seat_tables",
    "step_at",
    "step_loop",
    "tie_at",
]

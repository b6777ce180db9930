"""The keys of `--step`: read one in raw mode, map it to the version to show next."""

from __future__ import annotations

import os
import select
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

from rich.console import Console
from rich.text import Text

from .client import Replay

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

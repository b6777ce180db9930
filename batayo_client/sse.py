"""Server-sent events (the WHATWG event-stream format): lines in, messages out."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass


@dataclass(frozen=True)
class Message:
    event: str
    data: str
    id: str | None


def messages(lines: Iterable[bytes]) -> Iterator[Message]:
    """Each message of a stream, as its lines arrive (comments and `retry:` skipped)."""
    event, last_id = "message", None
    data: list[str] = []
    for raw in lines:
        line = raw.decode("utf-8").rstrip("\r\n")
        if not line:  # a blank line ends a message
            if data:
                yield Message(event, "\n".join(data), last_id)
            event, data = "message", []
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "event":
            event = value
        elif name == "data":
            data.append(value)
        elif name == "id":
            last_id = value

"""The project's one HTTP client (standard library only): the Python client, and the command
line's export, verify, replay and health check, all send their requests through it."""

from __future__ import annotations

import http.client
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from email.message import Message

__all__ = ["Answer", "Unreachable", "checked_url", "send", "stream"]


class Unreachable(ConnectionError):
    """No HTTP answer at all: the server could not be reached, or the connection broke."""


@dataclass(frozen=True)
class Answer:
    status: int
    headers: Message
    body: bytes


def checked_url(url: str) -> str:
    """`url` if it is http:// or https:// (urllib would open files and more), else ValueError."""
    if urllib.parse.urlsplit(url).scheme not in ("http", "https"):
        raise ValueError(f"the address must be http:// or https://, not {url!r}")
    return url


def send(
    method: str,
    url: str,
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
    timeout: float = 30.0,
) -> Answer:
    """One request; every HTTP answer (errors included) as an `Answer`, else `Unreachable`."""
    request = urllib.request.Request(  # noqa: S310 - the scheme is checked: http(s) only
        checked_url(url), data=body, headers=headers or {}, method=method
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310
            return Answer(response.status, response.headers, response.read())
    except urllib.error.HTTPError as exc:
        with exc:
            return Answer(exc.code, exc.headers, exc.read())
    except urllib.error.URLError as exc:
        raise Unreachable(f"cannot reach {_origin(url)}: {exc.reason}") from None
    except (OSError, http.client.HTTPException) as exc:
        raise Unreachable(f"cannot reach {_origin(url)}: {exc}") from None


def stream(
    url: str, headers: dict[str, str] | None = None, timeout: float = 30.0
) -> tuple[Answer | None, Iterator[bytes]]:
    """A GET read line by line as it comes (an event stream): (None, its lines), or the error
    answer and no lines."""
    request = urllib.request.Request(checked_url(url), headers=headers or {})  # noqa: S310
    try:
        response = urllib.request.urlopen(request, timeout=timeout)  # noqa: S310
    except urllib.error.HTTPError as exc:
        with exc:
            return Answer(exc.code, exc.headers, exc.read()), iter(())
    except urllib.error.URLError as exc:
        raise Unreachable(f"cannot reach {_origin(url)}: {exc.reason}") from None

    def lines() -> Iterator[bytes]:
        with response:
            yield from response

    return None, lines()


def _origin(url: str) -> str:
    parts = urllib.parse.urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"

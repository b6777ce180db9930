"""The followers of a plain Redis: one pub/sub connection per process carries the batches of
every game followed in it, published by the append that made them (service/store/lua.py); on
a cluster each game has a follower reading its stream (`Channel._run`, service/live/hub.py).
A message can be lost where the stream cannot (the connection dropped), so a game's stream is
read whenever the process cannot be sure it has every batch
(docs/architecture.md#the-path-of-a-live-event).
"""

from __future__ import annotations

import contextlib
import logging
import threading
from typing import Any, Protocol

import redis

from ..store import live_channel
from ..store.clients import listener

log = logging.getLogger("batayo.live")
RETRY_S = 1.0  # between tries while the store does not answer


class Channel(Protocol):
    """What a followed game offers its follower (`Channel` in service/live/hub.py)."""

    game_id: str
    state: dict | None

    def pushed(self, data: bytes) -> None: ...

    def caught_up(self) -> None: ...

    def stopped(self) -> None: ...


class Hub(Protocol):
    """What the follower reads of the process's hub: whether, and since when, it is closing."""

    closing: bool
    stopping: threading.Event


class Push:
    """The process's subscriptions: a game's channel while it is followed here."""

    def __init__(self, hub: Hub, client: redis.Redis) -> None:
        self.hub = hub
        self.pubsub = listener(client).pubsub()
        self.lock = threading.Lock()  # subscriptions are sent in the order they are decided
        self.following: dict[bytes, Channel] = {}
        self.reader: threading.Thread | None = None
        self.resubscribe = False  # a subscription may not have reached the store: send again
        self.unsure: set[Channel] = set()  # channels whose read of their stream failed
        self.failing = False

    def add(self, channel: Channel) -> None:
        name = live_channel(channel.game_id).encode()
        with self.lock:
            self.following[name] = channel
            try:
                self.pubsub.subscribe(name)
            except redis.RedisError:  # the reader subscribes it once the store answers
                self.resubscribe = True
            reader = None
            if self.reader is None:
                reader = self.reader = threading.Thread(
                    target=self._run, name="live-push", daemon=True
                )
        if reader is not None:  # outside the lock: starting a thread waits for it to run
            reader.start()

    def remove(self, channel: Channel) -> None:
        name = live_channel(channel.game_id).encode()
        with self.lock:
            if self.following.get(name) is not channel:
                return
            del self.following[name]
            self.unsure.discard(channel)
            try:
                self.pubsub.unsubscribe(name)
            except redis.RedisError:  # dropped when the reader subscribes again
                self.resubscribe = True

    def close(self) -> None:
        """The hub is closing: a ping's answer wakes the reader, which ends and closes the
        connection itself (closing it from here, under the reader's feet, could hang a
        server's stop)."""
        with self.lock:
            if self.pubsub.subscribed:
                with contextlib.suppress(redis.RedisError):
                    self.pubsub.ping()

    def _run(self) -> None:
        try:
            self._read()
        finally:
            self.pubsub.close()

    def _read(self) -> None:
        hub = self.hub
        while not hub.closing:
            try:
                if self.resubscribe:
                    self._subscribe_again()
                for channel in list(self.unsure):
                    self.unsure.discard(channel)
                    self._caught_up(channel)
                waiting = self.resubscribe or self.unsure
                message = self.pubsub.get_message(timeout=RETRY_S if waiting else None)
            except (redis.RedisError, OSError) as exc:
                if hub.closing:
                    return
                # the store is away: say so once, without a traceback, and try again
                if not self.failing:
                    log.warning("following games: %s; retrying", exc)
                self.failing = self.resubscribe = True
                hub.stopping.wait(RETRY_S)
                continue
            self.failing = False
            if message is not None:
                self._handle(message)

    def _subscribe_again(self) -> None:
        with self.lock:
            self.resubscribe = False
            try:
                stale = [n for n in self.pubsub.channels if n not in self.following]
                if stale:
                    self.pubsub.unsubscribe(*stale)
                if self.following:
                    self.pubsub.subscribe(*self.following)
            except redis.RedisError:
                self.resubscribe = True
                raise

    def _handle(self, message: dict[str, Any]) -> None:
        channel = self.following.get(message["channel"])
        if channel is None:  # a game no longer followed here
            return
        if message["type"] == "subscribe":  # from now on nothing is missed: read what was
            self._caught_up(channel)
        elif message["type"] == "message":
            try:
                channel.pushed(message["data"])
            except redis.RedisError:
                self.unsure.add(channel)
        if channel.state is not None and channel.state["status"] == "finished":
            self.remove(channel)
            channel.stopped()

    def _caught_up(self, channel: Channel) -> None:
        try:
            channel.caught_up()
        except redis.RedisError as exc:
            log.warning("reading %s: %s; retrying", channel.game_id, exc)
            self.unsure.add(channel)

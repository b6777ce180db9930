"""An `act` frame's `acted` answer (service/api/socket_session.py) when the act's events reach
the socket before the append's answer reaches the act (under load they usually do: the
published batch and the script's answer come on two connections): the `acted` frame goes in
the same write, right after its events, once; a replay of the same key still gets its own; a
store that then loses the answer refuses nothing, since the act is applied. The session runs
against a subscription and an engine of the test's own, so the order is not left to chance."""

from __future__ import annotations

import socket
from types import SimpleNamespace

import gevent
import gevent.queue
import pytest
import redis
from wsproto.connection import Connection, ConnectionType
from wsproto.events import TextMessage

from service.api.socket_session import Session
from service.live import wsframes


class Subscription:
    """What the session reads of a live subscription: the chunks the test publishes."""

    def __init__(self) -> None:
        self.after = 0
        self.ended: str | None = None
        self.client = "127.0.0.1"
        self.seat = 0
        self.channel = SimpleNamespace(game_id="g1")
        self.hub = SimpleNamespace(settings=SimpleNamespace(keepalive_s=15.0))
        self.published: gevent.queue.Queue = gevent.queue.Queue()
        self.out: tuple[int, str] | None = None

    def frames(self):
        for version, tip in iter(self.published.get, None):
            self.after, self.out = version, (version, tip)
            yield wsframes.events([{"version": version, "type": "flipped"}])

    def handed(self, version: int, tip: str) -> bool:
        return self.out == (version, tip)

    def close(self) -> None:
        pass


class Engine:
    """An act decided at the next version, whose batch is published before the act resumes
    (`early`), or after; the answer may then be lost (`lose`)."""

    def __init__(self, sub: Subscription) -> None:
        self.sub = sub
        self.version = 0
        self.early = True
        self.lose = False

    def act(self, game_id, seat, action, expected, idem_key, decided=None):
        if idem_key and idem_key == getattr(self, "key", None):  # a replay: nothing decided
            return [], {"version": self.version}
        self.key = idem_key
        self.version += 1
        state = {"version": self.version, "hash": f"h{self.version}"}
        decided(state)
        if self.early:
            self.sub.published.put((self.version, state["hash"]))
            gevent.sleep(0.05)  # the session's writer sends the batch meanwhile
        if self.lose:
            raise redis.exceptions.ConnectionError("the answer was lost")
        if not self.early:
            self.sub.published.put((self.version, state["hash"]))
        return [], state


@pytest.fixture
def session():
    ours, theirs = socket.socketpair()
    sub = Subscription()
    engine = Engine(sub)
    limits = SimpleNamespace(check=lambda *_: (None, None))
    app = SimpleNamespace(extensions={"batayo.engine": engine, "batayo.limits": limits})
    live = Session(app, sub, 0, "Bearer t", False, ours, None, lambda: None)  # type: ignore[arg-type]
    writer = gevent.spawn(live._pump)
    reader = Connection(ConnectionType.CLIENT)
    theirs.settimeout(2)

    def received(reads: list | None = None) -> list[dict]:
        """The messages the client got so far (and each read's, in `reads`)."""
        import orjson

        messages: list[dict] = []
        gevent.sleep(0.1)
        theirs.setblocking(False)
        try:
            while data := theirs.recv(65536):
                reader.receive_data(data)
                events = reader.events()
                read = [orjson.loads(e.data) for e in events if isinstance(e, TextMessage)]
                messages += read
                if reads is not None:
                    reads.append(read)
        except BlockingIOError:
            pass
        return messages

    yield live, engine, received
    writer.kill()
    ours.close()
    theirs.close()


def test_an_acted_frame_goes_with_its_events_when_they_come_first(session):
    live, _, received = session
    live._refuse_or_act("a", {"act": {"type": "flip"}, "id": "a", "key": "k1"})
    reads: list = []
    assert received(reads) == [
        {"event": {"version": 1, "type": "flipped"}},
        {"acted": {"id": "a", "version": 1}},
    ]
    assert len(reads) == 1  # one write: the events and their `acted`

    # the same key again: a replay, answered with its own `acted`
    live._refuse_or_act(7, {"act": {"type": "flip"}, "id": 7, "key": "k1"})
    assert received() == [{"acted": {"id": 7, "version": 1}}]


def test_an_acted_frame_waits_for_its_events_when_the_answer_comes_first(session):
    live, engine, received = session
    engine.early = False
    live._refuse_or_act("b", {"act": {"type": "flip"}, "id": "b"})
    assert received() == [
        {"event": {"version": 1, "type": "flipped"}},
        {"acted": {"id": "b", "version": 1}},
    ]


def test_an_act_whose_events_went_out_is_not_refused_when_its_answer_is_lost(session):
    live, engine, received = session
    engine.lose = True
    live._refuse_or_act("c", {"act": {"type": "flip"}, "id": "c"})
    assert received() == [
        {"event": {"version": 1, "type": "flipped"}},
        {"acted": {"id": "c", "version": 1}},
    ]
    engine.early = False  # lost before anything was published: the store's 503
    live._refuse_or_act("d", {"act": {"type": "flip"}, "id": "d"})
    (refused,) = received()
    assert refused["refused"]["id"] == "d" and refused["refused"]["problem"]["status"] == 503

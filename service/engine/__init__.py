"""The engine: the one door the routes and the workers use. It loads a game (`loading`), decides
with the rules (`service.core.command`), appends, and says what became due (`scheduling`).

Every write is decided against a state at version v and appended only if the stream is still
at v; a conflict means someone else wrote first, so the decision is made again (or, with
If-Match, refused). Workers act through the same methods, at the version they were scheduled
for, so a late or repeated job changes nothing.
"""

from __future__ import annotations

import json
import logging
import secrets as _secrets
import time
import weakref
from collections.abc import Callable
from typing import Any

from ..core import advice, command, signing
from ..core.game import RuleError
from ..core.state import open_seats
from ..core.times import at_ms, utc_now
from ..core.views import game_view, shown_event
from ..store import Conflict, Replayed, Store
from . import idempotency, tokens
from .archiving import Archiver
from .audits import Audits
from .creating import new_game_id
from .dispatch import Dispatcher
from .idempotency import IdempotencyMismatch, fingerprint, scoped
from .keys import Keyring
from .loading import Kept, NotFound
from .lobby import Lobby
from .projections import Appended, Projections
from .scheduling import Scheduler
from .turns import Hold, Turns

__all__ = ["Engine", "IdempotencyMismatch", "NotFound", "Stale", "new_game_id"]

MAX_RETRIES = 50
# a hint being computed: if its job is lost, the next request after this asks again
HINT_CLAIM_S = 30
HINT_KEPT_S = 3600  # a computed hint, for the callers of its version and seat
log = logging.getLogger("batayo.engine")


class Stale(Exception):
    """If-Match named another version than the game's."""

    def __init__(self, current: int) -> None:
        super().__init__(f"the game is at version {current}")
        self.current = current


class Engine:
    def __init__(
        self,
        store: Store,
        dispatcher: Dispatcher | None = None,
        test_games: bool = False,
        clock=utc_now,
        snapshot_every: int = 64,
        cache_size: int = 512,
        event_budget: int | None = command.EVENT_BUDGET,
        games_per_client: int = 0,
        count_loopback: bool = False,
        bot_pace_ms: int = 0,
    ) -> None:
        self.store = store
        self.count_loopback = count_loopback  # whether the per-client caps count loopback too
        self.event_budget = event_budget  # recorded in each game it creates
        self.games_per_client = games_per_client  # games in play one client may create; 0: any
        self.bot_pace_ms = bot_pace_ms  # a create's pace when it names none (a server setting)
        self.dispatcher = dispatcher
        self.test_games = test_games
        self.clock = clock
        self.snapshot_every = snapshot_every
        self.kept = Kept(store, cache_size)
        self.scheduler = Scheduler(self)
        self.audits = Audits(self)
        self.lobby = Lobby(self)
        self.archiver = Archiver(self)
        self.turns = Turns()
        self.projections = Projections(store, lambda: bool(self.games_per_client))
        self.keys: Keyring | None = None  # the deployment's signing key (None: logs unsigned)
        self.listeners: list[weakref.WeakMethod] = []  # see `listen`
        # how a new game's id is drawn: a server of several workers draws one its least busy
        # worker owns (service/handoff.py)
        self.new_game_id: Callable[[], str] = new_game_id

    def listen(self, listener: Callable[[str, list[dict], dict], None]) -> None:
        """Call the bound method `listener(game_id, events, state)` after each append this
        engine makes (the live hub publishes the batch at once); held weakly, so its object
        may go."""
        self.listeners = [ref for ref in self.listeners if ref() is not None]
        self.listeners.append(weakref.WeakMethod(listener))  # type: ignore[arg-type]

    # -- reading -------------------------------------------------------------------------------

    def load(self, game_id: str, at: int | None = None) -> dict:
        return self.kept.load(game_id, at)

    def exists(self, game_id: str) -> bool:
        return self.kept.exists(game_id)

    def view(self, game_id: str, seat: int | None, at: int | None = None) -> dict:
        return game_view(self.load(game_id, at), seat)

    def shown(self, events: list[dict], seat: int | None, state: dict) -> list[dict]:
        """Events as `seat` may see them, given the game's latest state."""
        seed = self.kept.seed(state["id"])
        return [shown_event(e, seat, state, seed) for e in events]

    def events(
        self, game_id: str, seat: int | None, after: int = 0, limit: int | None = None
    ) -> tuple[list[dict], dict]:
        """A page of the log as `seat` may see it, and the game's latest state."""
        state = self.load(game_id)
        return self.shown(self.store.events(game_id, after, limit), seat, state), state

    def all_events(self, game_id: str, after: int = 0, limit: int | None = None) -> list[dict]:
        """The stored log (clear values, seals, digests): for the server's own use."""
        return self.store.events(game_id, after, limit)

    def follow(self, game_id: str, after: int, block_ms: int) -> list[dict]:
        return self.store.follow(game_id, after, block_ms)

    def ties(self, game_id: str, seat: int | None) -> list[dict]:
        """Every tie episode, built from the events as `seat` may see them (`audits`)."""
        return self.audits.ties(game_id, seat)

    def verify(self, game_id: str, seat: int | None) -> dict:
        """docs/fairness.md's checks of the log as `seat` receives it (everything once it ended),
        and its verdict: a finished game's signature checked against this server's own keys."""
        report = dict(self.audits.verify(game_id, seat))
        state = self.load(game_id)
        signature = self.tip_signature(game_id, state) if state["status"] == "finished" else None
        signed = "unsigned"
        if signature is not None:
            trusted = self.keys.publics() if self.keys is not None else {}
            signed, _ = signing.check_tip(
                signature, game_id, state["version"], state["hash"], trusted
            )
        report["verdict"] = signing.verdict(report["status"], signed)
        report["signature"] = signature
        return report

    def export(self, game_id: str) -> dict:
        """A finished game in full: every event with its openings, the revealed seed, and the
        server's signature over its tip (null when this server has no signing key). Made once
        per game and version, and kept (`Audits.export`): it never changes, and every caller
        gets the same."""
        state = self.load(game_id)
        if state["status"] != "finished":  # before the log is read: a game in play is refused
            raise RuleError("game_not_over", "a game can be exported once it has ended", 409)
        return self.audits.export(game_id, state)

    def signature(self, game_id: str) -> dict:
        """The server's signature over the game's tip now: a finished game's (made as it
        ended), or a game in play's at its current version. Its tip is the `hash` every caller
        is served; a game of fairness version 1 in play serves none, so it has none either."""
        state = self.load(game_id)
        if state.get("fairness", 1) == 1 and state["status"] != "finished":
            raise RuleError(
                "tip_hidden", "a game of fairness version 1 in play serves no hashes to sign", 409
            )
        signature = self.tip_signature(game_id, state)
        if signature is None:
            raise RuleError(
                "unsigned", "this server has no signing key: its logs are unsigned", 404
            )
        return signature

    def tip_signature(self, game_id: str, state: dict) -> dict | None:
        """The signature of the log up to `state` (None without a key): a finished game's is
        kept with its audits; a game in play's is made once per version in this process."""
        if self.keys is None:
            return None
        if state["status"] == "finished":
            return self.audits.signature(game_id, state)
        return self.sign_tip(game_id, state)

    def sign_tip(self, game_id: str, state: dict) -> dict | None:
        keys = self.keys
        return None if keys is None else keys.sign(game_id, state["version"], state["hash"])

    def hint(self, game_id: str, seat: int) -> dict | None:
        """Teach me (service/core/advice.py): the strong bot's action for `seat` at the game's
        version, with its reason; None if the game offers no hints. A choice that needs a search
        is computed by a worker, once per version and seat, and kept: until it is, the answer
        is `{"pending": true}` (the caller asks again)."""
        state = self.load(game_id)
        if not advice.offers_hints(state):
            return None
        version = state["version"]
        base = {"seat": seat, "version": version}
        if self.dispatcher is None or not advice.searched(game_view(state, seat)):
            return {**base, **advice.hint(state, seat, self.kept.seed(game_id))}  # no search
        kept = self.store.hint(game_id, version, seat)
        if kept is not None and not kept.get("pending"):
            return {**base, **kept}
        if kept is None and self.store.claim_hint(game_id, version, seat, HINT_CLAIM_S):
            job = f"hint-{game_id}-{version}-{seat}"
            self.dispatcher.enqueue("compute_hint", (game_id, version, seat), job_id=job)
        return {**base, "pending": True}

    def compute_hint(self, game_id: str, version: int, seat: int) -> str:
        """The hint job: the search for `seat` at `version`, kept for the callers; nothing if
        the game has moved on or the hint is kept already (a repeated job)."""
        state = self.load(game_id)
        if state["version"] != version:
            return "stale"
        kept = self.store.hint(game_id, version, seat)
        if kept is not None and not kept.get("pending"):
            return "kept"
        found = advice.hint(state, seat, self.kept.seed(game_id))
        self.store.keep_hint(game_id, version, seat, found, HINT_KEPT_S)
        return "done"

    def listing(
        self,
        game: str | None,
        status: str | None,
        offset: int,
        limit: int,
        idle_s: float | None = None,
    ) -> tuple[list[dict], bool]:
        """A page of games, newest first. With `idle_s`, only the open games waiting for a
        player: a seat still open and an event within the last `idle_s` seconds (a page may then
        hold fewer than `limit`: the filter reads the page the index gives, no more)."""
        found, more = self.store.listing(game, status, offset, limit)
        since_ms = None if idle_s is None else at_ms(self.clock()) - idle_s * 1000
        games = []
        for gid, _ in found:
            try:
                state = self.load(gid)
            except NotFound:  # indexed but its first append never happened
                continue
            if since_ms is not None and not _waiting(state, since_ms):
                continue
            games.append(
                {
                    "id": gid,
                    "game": state["game"],
                    "status": state["status"],
                    "version": state["version"],
                    "created_at": state["created_at"],
                    "seats": game_view(state, None)["seats"],
                    "result": state["result"],
                }
            )
        return games, more

    def ready(self) -> bool:
        return self.store.ping()

    def health(self) -> dict[str, str]:
        """/readyz's parts: the store (`ok`, `down`), the job queue (`ok`, `down`, `inline` in
        this process, `none`), the workers (`ok`: one at least alive, `dead`: all that beat
        stopped, `none`: none ever beat, `inline`, `unknown`: the store away)."""
        try:
            store = "ok" if self.ready() else "down"
        except Exception as exc:  # any failure to write to the store means not ready
            log.warning("the store is not ready: %s", exc)
            store = "down"
        dispatcher = self.dispatcher
        queue = dispatcher if hasattr(dispatcher, "ping") else getattr(dispatcher, "queue", None)
        if dispatcher is None:
            return {"store": store, "queue": "none", "workers": "none"}
        if queue is None:
            return {"store": store, "queue": "inline", "workers": "inline"}
        try:
            queue_state = "ok" if queue.ping() else "down"
        except Exception as exc:  # the job queue away: the store still takes every action
            log.warning("the job queue does not answer: %s", exc)
            queue_state = "down"
        try:
            alive, dead = self.store.beats.alive(int(time.time() * 1000))
            workers = "ok" if alive else "dead" if dead else "none"
        except Exception:
            workers = "unknown"
        return {"store": store, "queue": queue_state, "workers": workers}

    def seat_of(self, game_id: str, token: str) -> int:
        """The seat a token acts for; raises PermissionError (other game) or LookupError."""
        named = tokens.parse(token)
        if named is None:
            raise LookupError("malformed token")
        if named[0] != game_id:
            raise PermissionError("this token belongs to another game")
        if not tokens.matches(token, self.kept.token_digest(game_id, named[1])):
            raise LookupError("unknown token")
        return named[1]

    # -- seeds, creating and joining -----------------------------------------------------------

    def seed_ticket(self) -> dict:
        """A fresh server seed, committed before any client seed is chosen (docs/fairness.md)."""
        return self.lobby.seed_ticket()

    def create(self, body: dict, idem_key: str | None = None, client: str = "") -> dict:
        """Create a game from a validated request body; the answer of docs/api.md (with tokens)."""
        return self.lobby.create(body, idem_key, client)

    def settle_unfinished_creates(self, older_than_s: float = 30.0) -> int:
        """Finish the creates cut short between their script and the index (the sweep's job)."""
        return self.lobby.settle_unfinished_creates(older_than_s)

    def join(self, game_id: str, body: dict, idem_key: str | None = None, client: str = "") -> dict:
        """Take the first open seat (an idempotency key is scoped to the client, as for create)."""
        fp = fingerprint(body) if idem_key else None
        idem_hash = scoped(idem_key, client) if idem_key else None
        for _ in range(MAX_RETRIES):
            state = self.load(game_id)
            if idem_hash:
                prior = self.store.idempotent(game_id, idem_hash)
                if prior is not None:
                    return idempotency.replay_join(game_id, prior, fp, idem_key)
            old_deal = None if "deal" in state else self.store.meta(game_id).get("deal")
            cmd, seat = command.join(  # a test deal: in the state (v2) or the meta (v1)
                state,
                self.kept.seed(game_id),
                body["name"],
                body.get("client_seed"),
                self.clock(),
                json.loads(old_deal) if old_deal else None,
            )
            token = tokens.new(game_id, seat)
            answer = {
                "id": game_id,
                "seat": seat,
                "version": cmd.state["version"],
                "status": cmd.state["status"],
            }
            idem = None
            if idem_hash:
                record = {"fp": fp, "answer": answer, "token": tokens.seal(token, idem_key)}
                idem = (idem_hash, record)
            try:
                self._append(game_id, state, cmd, idem, (f"token:{seat}", tokens.digest(token)))
            except Conflict:
                continue
            except Replayed as replay:
                return idempotency.replay_join(game_id, replay.record, fp, idem_key)
            self.scheduler.schedule(state, cmd.state)
            return {**answer, "token": token}
        raise RuleError("busy", "too many concurrent writes to this game; try again", 409)

    # -- acting --------------------------------------------------------------------------------

    def act(
        self,
        game_id: str,
        seat: int,
        action: dict,
        expected: int | None = None,
        idem_key: str | None = None,
        actor: Any = None,
        schedule: bool = True,
        decided: Callable[[dict], None] | None = None,
    ) -> tuple[list[dict], dict]:
        """Apply a seat's action: the events appended and the new state.

        With `expected` (If-Match) the action applies only at that version (else Stale); with
        `idem_key` (scoped to the seat) a retry returns the first answer's events and appends
        nothing. Without `schedule` the caller enqueues what became due itself. `decided` is
        told each state about to be appended (a conflict decides again): the events may be
        read back before the append's answer comes.
        """
        hold = self.turns.hold(game_id)
        try:
            return self._act(
                game_id, seat, action, expected, idem_key, actor, schedule, hold, decided
            )
        finally:
            hold.end()

    def _act(
        self,
        game_id: str,
        seat: int,
        action: dict,
        expected: int | None,
        idem_key: str | None,
        actor: Any,
        schedule: bool,
        hold: Hold,
        decided: Callable[[dict], None] | None,
    ) -> tuple[list[dict], dict]:
        fp = fingerprint({"seat": seat, "action": action}) if idem_key else None
        idem_hash = scoped(idem_key, f"seat:{seat}") if idem_key else None
        # Optimistic: decide against the state this engine last saw, without reading Redis
        # first; the append only succeeds at that version, and anything the cached state might
        # have got wrong (a conflict, a refusal, another version than If-Match's) is decided
        # again on a fresh load.
        optimistic = idem_hash is None
        seed = None
        for _ in range(MAX_RETRIES):
            hold.again()
            cached = (hold.basis() or self.kept.cached(game_id)) if optimistic else None
            state = cached if cached is not None else self.load(game_id)
            optimistic = False
            if idem_hash:
                prior = self.store.idempotent(game_id, idem_hash)
                if prior is not None:
                    return self._replay_act(game_id, prior, fp)
            if expected is not None and state["version"] != expected:
                if cached is not None:
                    continue
                raise Stale(state["version"])
            seed = seed or self.kept.seed(game_id)
            try:
                cmd = command.act(
                    state, seed, seat, action, self.clock(), seat if actor is None else actor
                )
            except RuleError:
                if cached is not None:
                    continue
                raise
            idem = None
            if idem_hash:
                idem = (idem_hash, {"fp": fp, "from": state["version"], "to": cmd.state["version"]})
            if self.store.pipelined:  # the next action may decide on this one's state now
                hold.hand_on(cmd.state)
            if decided is not None:
                decided(cmd.state)
            try:
                self._append(game_id, state, cmd, idem)
            except Conflict as conflict:
                if cached is not None:  # decided on what this process kept: load and look again
                    continue
                if expected is not None:  # the stream is not at If-Match's version
                    raise Stale(conflict.current) from None
                continue
            except Replayed as replay:
                return self._replay_act(game_id, replay.record, fp)
            finally:
                hold.landed(cmd.state)
            if schedule:
                self.scheduler.schedule(state, cmd.state)
            return cmd.events, cmd.state
        raise RuleError("busy", "too many concurrent writes to this game; try again", 409)

    def _replay_act(self, game_id: str, prior: dict, fp: str) -> tuple[list[dict], dict]:
        idempotency.check(prior, fp)
        events = self.store.events(game_id, prior["from"], prior["to"] - prior["from"])
        return events, self.load(game_id, prior["to"])

    def fire(
        self, state: dict, timer_key: str, now: str, bot: str | None = None
    ) -> command.Command | None:
        return command.fire(state, self.kept.seed(state["id"]), timer_key, now, bot)

    def append_or_retry(self, game_id: str, before: dict, cmd: command.Command) -> bool:
        """Append a command decided at `before`; False if someone wrote first."""
        try:
            self._append(game_id, before, cmd)
        except Conflict:
            return False
        return True

    def _append(
        self, game_id: str, before: dict | None, cmd: command.Command, idem=None, meta=None
    ) -> None:
        old = before["version"] if before else 0
        new = cmd.state["version"]
        snapshot = cmd.state if new // self.snapshot_every > old // self.snapshot_every else None
        counts = {  # sent with the append, in the same round trip
            "events_appended": len(cmd.events),
            "actions": 1 if before else 0,
            "games_created": 0 if before else 1,
            "bot_moves": 1 if cmd.actor == "bot" else 0,
            "timers_fired": 1 if cmd.actor == "clock" else 0,
        }
        self.kept.decided(game_id, cmd.state)
        try:
            self.store.append(
                game_id,
                old,
                cmd.events,
                idem,
                snapshot,
                meta,
                counts,
                expected_hash=before["hash"] if before else "",
                # a new id for each decision: redis-py resending this very append (a lost reply)
                # finds it applied; a new decision after a conflict is another command
                command_id=_secrets.token_hex(8),
            )
        except Conflict as conflict:
            if conflict.diverged:  # the stream lost what this process saw: never build on it
                self.kept.forget(game_id)
            raise
        self.kept.remember(game_id, cmd.state)
        for ref in self.listeners:
            listener = ref()
            if listener is not None:
                listener(game_id, cmd.events, cmd.state)
        if log.isEnabledFor(logging.INFO):  # off under gunicorn (WARNING): no record built there
            types = [e["type"] for e in cmd.events]
            log.info("appended", extra={"game": game_id, "version": new, "event_types": types})
        change = Appended(game_id, cmd.state, before["status"] if before else None)
        self.projections.after_append(change, self.dispatcher)

    # -- the jobs ------------------------------------------------------------------------------

    def bot_moves(self, game_id: str, version: int) -> str:
        return self.scheduler.bot_moves(game_id, version)

    def fire_timer(self, game_id: str, timer_key: str) -> str:
        return self.scheduler.fire_timer(game_id, timer_key)

    def due(self, game_id: str) -> None:
        self.scheduler.due(game_id)

    def skip(self, game_id: str) -> dict:
        return self.scheduler.skip(game_id)

    def abandon(self, game_id: str) -> str:
        return self.scheduler.abandon(game_id)

    def audit(self, game_id: str) -> str:
        """Make and keep a finished game's audits (a job: a long game's take seconds)."""
        state = self.load(game_id)
        if state["status"] != "finished":
            return "playing"
        self.audits.finished(game_id, state)
        return "kept"

    def sweep(self, again_in_s: int = 0) -> int:
        return self.scheduler.sweep(again_in_s)


def _waiting(state: dict, since_ms: float) -> bool:
    """Whether an open game waits for a player: a seat still open, an event since `since_ms`."""
    return state["status"] == "open" and bool(open_seats(state)) and at_ms(state["at"]) >= since_ms

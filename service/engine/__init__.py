"""The engine: load a game (snapshot + newer events), decide, append, and say what became due.

Every write is decided against a state at version v and appended only if the stream is still
at v; a conflict means someone else wrote first, so the decision is made again (or, with
If-Match, refused). Workers act through the same methods, at the version they were scheduled
for, so a late or repeated job changes nothing.
"""

from __future__ import annotations

import hashlib
import json
import logging
import random
import re
import secrets
from collections import OrderedDict
from typing import Any

from ..core import command, fairness
from ..core.clock import utc_now
from ..core.game import RuleError, add_seconds, bad_action
from ..core.state import apply, bot_seats, clone, fold, game_of
from ..core.views import game_view
from ..games import GAMES, resolve_options
from ..store import Conflict, Replayed, Store
from . import tokens
from .dispatch import Dispatcher

MAX_RETRIES = 50
log = logging.getLogger("batayo.engine")


class NotFound(Exception):
    pass


class Stale(Exception):
    """If-Match named another version than the game's."""

    def __init__(self, current: int) -> None:
        super().__init__(f"the game is at version {current}")
        self.current = current


class IdempotencyMismatch(Exception):
    pass


def new_game_id() -> str:
    return secrets.token_hex(8)


def fingerprint(body: Any) -> str:
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


class Engine:
    def __init__(
        self,
        store: Store,
        dispatcher: Dispatcher | None = None,
        test_games: bool = False,
        clock=utc_now,
        snapshot_every: int = 64,
        cache_size: int = 512,
    ) -> None:
        self.store = store
        self.dispatcher = dispatcher
        self.test_games = test_games
        self.clock = clock
        self.snapshot_every = snapshot_every
        self._cache: OrderedDict[str, dict] = OrderedDict()
        self._cache_size = cache_size
        # seeds and token digests never change once set: kept in memory, bounded
        self._seeds: OrderedDict[str, bytes] = OrderedDict()
        self._token_digests: OrderedDict[tuple[str, int], str] = OrderedDict()

    # -- reading -------------------------------------------------------------------------------

    def load(self, game_id: str, at: int | None = None) -> dict:
        """The game's state, now or as of version `at`.

        A state handed out is shared with the engine's cache: read it, never change it (the
        command side works on its own copy), so loading an unchanged game copies nothing."""
        cached = self._cache.get(game_id)
        known = cached if cached and (at is None or cached["version"] <= at) else None
        snap, events = self.store.load(game_id, at, known["version"] if known else 0)
        if snap is not None:
            state = snap
        elif known is not None:
            state = clone(known) if events else known
        elif events:
            state = fold([])
        else:
            raise NotFound(game_id)
        for event in events:
            apply(state, event)
        if at is not None and state["version"] < at:
            raise NotFound(f"{game_id} has no version {at}")
        if at is None and state is not known:
            self._remember(game_id, state)
        return state

    def exists(self, game_id: str) -> bool:
        """Whether the game exists; games are never deleted, so one this engine holds does."""
        if game_id in self._cache:
            return True
        try:
            self.load(game_id)
        except NotFound:
            return False
        return True

    def _remember(self, game_id: str, state: dict) -> None:
        """Keep the latest state (shared, never changed: commands copy before they decide)."""
        self._cache[game_id] = state
        self._cache.move_to_end(game_id)
        while len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)

    def _keep(self, memo: OrderedDict, key: Any, value: Any) -> None:
        """Remember a value that never changes, forgetting the oldest past a bound."""
        memo[key] = value
        while len(memo) > 4 * self._cache_size + 64:
            memo.popitem(last=False)

    def _seed(self, game_id: str) -> bytes:
        if game_id not in self._seeds:
            hexseed = self.store.meta(game_id).get("seed")
            if hexseed is None:
                raise NotFound(game_id)
            self._keep(self._seeds, game_id, bytes.fromhex(hexseed))
        return self._seeds[game_id]

    def all_events(self, game_id: str) -> list[dict]:
        return self.store.events(game_id)

    def view(self, game_id: str, seat: int | None, at: int | None = None) -> dict:
        return game_view(self.load(game_id, at), seat)

    def seat_of(self, game_id: str, token: str) -> int:
        """The seat a token acts for; raises PermissionError (other game) or LookupError."""
        named = tokens.parse(token)
        if named is None:
            raise LookupError("malformed token")
        if named[0] != game_id:
            raise PermissionError("this token belongs to another game")
        if not tokens.matches(token, self._token_digest(game_id, named[1])):
            raise LookupError("unknown token")
        return named[1]

    def _token_digest(self, game_id: str, seat: int) -> str | None:
        """The stored digest of a seat's token (kept in memory once known: it never changes)."""
        known = self._token_digests.get((game_id, seat))
        if known is not None:
            return known
        digest = self.store.meta(game_id).get(f"token:{seat}")
        if digest is not None:
            self._keep(self._token_digests, (game_id, seat), digest)
        return digest

    # -- creating and joining ------------------------------------------------------------------

    def create(self, body: dict, idem_key: str | None = None, client: str = "") -> dict:
        """Create a game from a validated request body; the answer of API.md (with tokens).

        An idempotency key is scoped to the `client` (its address): the answer holds tokens, so
        a key guessed by someone else must not replay it to them."""
        claim = _scoped(idem_key, client) if idem_key else None
        game_id = new_game_id()
        planned = self._plan(body, game_id)
        if claim:
            fp = fingerprint(body)
            sealed = {str(s): tokens.seal(t, idem_key) for s, t in planned["tokens"].items()}
            prior = self.store.claim(f"create:{claim}", {"fp": fp, "id": game_id, "tokens": sealed})
            if prior is not None:
                return self._replay_create(prior, fp, idem_key)
        answer = self._create(game_id, planned)
        if claim:
            record = {"fp": fp, "id": game_id, "tokens": sealed, "answer": _without_tokens(answer)}
            self.store.settle_claim(f"create:{claim}", record)
        return answer

    def _replay_create(self, prior: dict, fp: str, idem_key: str) -> dict:
        if prior.get("fp") != fp:
            raise IdempotencyMismatch("this Idempotency-Key was used with another body")
        if "answer" not in prior:
            raise RuleError(
                "request_in_progress", "the first request with this key is running", 409
            )
        answer = json.loads(json.dumps(prior["answer"]))
        for seat in answer["seats"]:
            sealed = prior["tokens"].get(str(seat["seat"]))
            if sealed:
                seat["token"] = tokens.unseal(sealed, idem_key, prior["id"], seat["seat"])
        return answer

    def _plan(self, body: dict, game_id: str) -> dict:
        """Check a create request against the game's rules; what `_create` needs."""
        name = body["game"]
        if name not in GAMES:
            raise bad_action(f"unknown game {name!r}; games: {', '.join(GAMES)}")
        game = GAMES[name]
        try:
            options = resolve_options(game, body.get("options") or {})
        except ValueError as exc:
            raise bad_action(str(exc)) from None
        seats_in = body["seats"]
        count = game.seat_count(options)
        if len(seats_in) != count:
            raise bad_action(f"{name} with these options has {count} seats, not {len(seats_in)}")
        seed, deal = body.get("seed"), body.get("deal")
        if (seed is not None or deal is not None) and not self.test_games:
            raise bad_action("seed and deal need the server setting BATAYO_TEST_GAMES=1")
        if deal is not None:
            check = getattr(game, "check_deal", None)
            if check is None:
                raise bad_action(f"{name} takes no test deal")
            try:
                check(deal, options)
            except RuleError:
                raise
            except (ValueError, TypeError, KeyError, IndexError, AttributeError) as exc:
                # a deal is user input: however malformed, it is a 400, never a 500
                raise bad_action(f"bad test deal: {exc}") from None
        seats, toks = [], {}
        for i, s in enumerate(seats_in):
            if s.get("bot") is not None:
                if s["bot"] not in game.BOTS:
                    raise bad_action(
                        f"no bot {s['bot']!r} for {name}; bots: {', '.join(game.BOTS)}"
                    )
                seats.append({"seat": i, "bot": s["bot"]})
            elif s.get("open"):
                seats.append({"seat": i, "open": True})
            else:
                seats.append({"seat": i, "name": s["name"], "client_seed": s.get("client_seed")})
                toks[i] = tokens.new(game_id, i)
        return {
            "game": name,
            "options": options,
            "seats": seats,
            "tokens": toks,
            "seed": bytes.fromhex(seed) if seed else fairness.new_server_seed(),
            "test": seed is not None or deal is not None,
            "deal": deal,
        }

    def _create(self, game_id: str, plan: dict) -> dict:
        now = self.clock()
        cmd = command.create(
            game_id,
            plan["game"],
            plan["options"],
            plan["seats"],
            plan["seed"],
            now,
            plan["test"],
            plan["deal"],
        )
        meta = {"seed": plan["seed"].hex(), "game": plan["game"], "created": now}
        meta.update({f"token:{s}": tokens.digest(t) for s, t in plan["tokens"].items()})
        if plan["deal"] is not None:
            meta["deal"] = json.dumps(plan["deal"])
        self.store.set_meta(game_id, meta)
        self._append(game_id, None, cmd)
        created_ms = int(_epoch(now) * 1000)
        self.store.index(game_id, plan["game"], cmd.state["status"], created_ms)
        self._schedule(None, cmd.state)
        seats = []
        for s in plan["seats"]:
            entry = {k: v for k, v in s.items() if k != "client_seed"}
            entry.setdefault("open", False)
            if s["seat"] in plan["tokens"]:
                entry["token"] = plan["tokens"][s["seat"]]
            seats.append(entry)
        return {
            "id": game_id,
            "game": plan["game"],
            "version": cmd.state["version"],
            "status": cmd.state["status"],
            "seats": seats,
        }

    def join(self, game_id: str, body: dict, idem_key: str | None = None, client: str = "") -> dict:
        """Take the first open seat (an idempotency key is scoped to the client, as for create)."""
        fp = fingerprint(body) if idem_key else None
        idem_hash = _scoped(idem_key, client) if idem_key else None
        for _ in range(MAX_RETRIES):
            state = self.load(game_id)
            if idem_hash:
                prior = self.store.idempotent(game_id, idem_hash)
                if prior is not None:
                    return self._replay_join(game_id, prior, fp, idem_key)
            deal = self.store.meta(game_id).get("deal")
            cmd, seat = command.join(
                state,
                self._seed(game_id),
                body["name"],
                body.get("client_seed"),
                self.clock(),
                json.loads(deal) if deal else None,
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
                idem = (
                    idem_hash,
                    {"fp": fp, "answer": answer, "token": tokens.seal(token, idem_key)},
                )
            try:
                self._append(game_id, state, cmd, idem, (f"token:{seat}", tokens.digest(token)))
            except Conflict:
                continue
            except Replayed as replay:
                return self._replay_join(game_id, replay.record, fp, idem_key)
            self._schedule(state, cmd.state)
            return {**answer, "token": token}
        raise RuleError("busy", "too many concurrent writes to this game; try again", 409)

    def _replay_join(self, game_id: str, prior: dict, fp: str, idem_key: str) -> dict:
        if prior.get("fp") != fp:
            raise IdempotencyMismatch("this Idempotency-Key was used with another body")
        answer = prior["answer"]
        return {**answer, "token": tokens.unseal(prior["token"], idem_key, game_id, answer["seat"])}

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
    ) -> tuple[list[dict], dict]:
        """Apply a seat's action: the events appended and the new state.

        With `expected` (If-Match) the action applies only at that version (else Stale); with
        `idem_key` a retry returns the first answer's events and appends nothing. Without
        `schedule` the caller enqueues what became due itself.
        """
        fp = fingerprint({"seat": seat, "action": action}) if idem_key else None
        idem_hash = hashlib.sha256(idem_key.encode()).hexdigest() if idem_key else None
        # Optimistic: decide against the state this engine last saw, without reading Redis
        # first; the append only succeeds at that version, and anything the cached state might
        # have got wrong (a conflict, a refusal, another version than If-Match's) is decided
        # again on a fresh load.
        optimistic = idem_hash is None
        for _ in range(MAX_RETRIES):
            cached = self._cache.get(game_id) if optimistic else None
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
            try:
                cmd = command.act(
                    state,
                    self._seed(game_id),
                    seat,
                    action,
                    self.clock(),
                    seat if actor is None else actor,
                )
            except RuleError:
                if cached is not None:
                    continue
                raise
            idem = None
            if idem_hash:
                idem = (idem_hash, {"fp": fp, "from": state["version"], "to": cmd.state["version"]})
            try:
                self._append(game_id, state, cmd, idem)
            except Conflict as conflict:
                if expected is not None:  # the stream is not at If-Match's version
                    raise Stale(conflict.current) from None
                continue
            except Replayed as replay:
                return self._replay_act(game_id, replay.record, fp)
            if schedule:
                self._schedule(state, cmd.state)
            return cmd.events, cmd.state
        raise RuleError("busy", "too many concurrent writes to this game; try again", 409)

    def _replay_act(self, game_id: str, prior: dict, fp: str) -> tuple[list[dict], dict]:
        if prior.get("fp") != fp:
            raise IdempotencyMismatch("this Idempotency-Key was used with another body")
        events = self.store.events(game_id, prior["from"], prior["to"] - prior["from"])
        return events, self.load(game_id, prior["to"])

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
        self.store.append(game_id, old, cmd.events, idem, snapshot, meta, counts)
        self._remember(game_id, cmd.state)
        log.info(
            "appended",
            extra={"game": game_id, "version": new, "event_types": [e["type"] for e in cmd.events]},
        )
        if before is None or before["status"] != cmd.state["status"]:
            self.store.set_status(game_id, cmd.state["status"])

    # -- what became due -----------------------------------------------------------------------

    def _schedule(self, before: dict | None, state: dict) -> None:
        """Enqueue the bots' job if a bot is awaited, and each clock new since `before`."""
        if self.dispatcher is None or state["status"] != "playing":
            return
        game_id, version = state["id"], state["version"]
        bots = bot_seats(state)
        if any(seat in bots for seat in game_of(state).to_move(state)):
            self.dispatcher.enqueue(
                "bot_moves", (game_id, version), job_id=f"bots-{game_id}-{version}"
            )
        old = set(command.due_timers(before)) if before else set()
        for timer_key, due in command.due_timers(state):
            if (timer_key, due) not in old:
                self._enqueue_timer(game_id, timer_key, due)

    def _enqueue_timer(self, game_id: str, timer_key: str, due: str, *tag: str) -> None:
        """A clock's job at its due time; one job id per clock and due time (and `tag`)."""
        self.dispatcher.enqueue(
            "fire_timer",
            (game_id, timer_key),
            at=due,
            job_id=_job_id("timer", game_id, timer_key, due, *tag),
        )

    def bot_moves(self, game_id: str, version: int) -> str:
        """The bots' job at `version`: every bot awaited there plays, in seat order (a
        simultaneous choice is one job, not one per bot), then what became due is enqueued.
        Nothing happens if the game has moved on, so a late or repeated job changes nothing."""
        start = self.load(game_id)
        if start["version"] != version or start["status"] != "playing":
            return "stale"
        game, bots = game_of(start), bot_seats(start)
        state, played = start, 0
        for seat in [s for s in game.to_move(start) if s in bots]:
            if state["status"] != "playing" or seat not in game.to_move(state):
                continue
            rng = random.Random(f"{game_id}|{state['version']}|{seat}")  # noqa: S311 - a whim
            action = game.BOTS[bots[seat]](game_view(state, seat), rng)
            try:
                _, state = self.act(
                    game_id, seat, action, expected=state["version"], actor="bot", schedule=False
                )
            except Stale:
                return "interrupted"  # whoever moved in between has enqueued what is due
            played += 1
        if not played:
            return "idle"
        self._schedule(start, state)
        return "played"

    def fire_timer(self, game_id: str, timer_key: str) -> str:
        for _ in range(MAX_RETRIES):
            state = self.load(game_id)
            now = self.clock()
            cmd = command.fire(state, self._seed(game_id), timer_key, now)
            if cmd is None:
                due = dict(command.due_timers(state)).get(timer_key)
                if due is not None and due > now and self.dispatcher is not None:
                    self._enqueue_timer(game_id, timer_key, due, now)  # woken early: again
                return "not due"
            try:
                self._append(game_id, state, cmd)
            except Conflict:
                continue
            self._schedule(state, cmd.state)
            return "fired"
        return "busy"

    def due(self, game_id: str) -> None:
        """Enqueue again whatever the game is waiting for (a sweep after lost jobs)."""
        self._schedule(None, self.load(game_id))

    def sweep(self, again_in_s: int = 0) -> int:
        """Restore the due work of every game in play: what is due is derived from the log, so
        after a crash (jobs lost, workers killed) this makes every game move again. Jobs that
        did survive only run twice, which changes nothing. With `again_in_s` the sweep comes
        back after that long (one chain only, however many workers started one). Returns how
        many games it saw."""
        count = 0
        for game_id in self.store.playing():
            self.due(game_id)
            count += 1
        if again_in_s and self.dispatcher is not None:
            due = add_seconds(self.clock(), again_in_s)
            if self.store.redis.set("sweep:next", due, nx=True, ex=max(1, again_in_s - 1)):
                self.dispatcher.enqueue(
                    "sweep", (again_in_s,), at=due, job_id=_job_id("sweep", due)
                )
        return count


def _scoped(idem_key: str, client: str) -> str:
    return hashlib.sha256(f"{client}|{idem_key}".encode()).hexdigest()


def _job_id(*parts: str) -> str:
    """An RQ job id (letters, digits, `_` and `-` only), one per clock and due time."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", "-".join(parts))


def _without_tokens(answer: dict) -> dict:
    return {
        **answer,
        "seats": [{k: v for k, v in s.items() if k != "token"} for s in answer["seats"]],
    }


def _epoch(at: str) -> float:
    from datetime import datetime

    return datetime.fromisoformat(at.replace("Z", "+00:00")).timestamp()

"""Making a game: seed tickets, the create (its idempotency, the client's cap of games in play,
the append) and the creates cut short that the sweep finishes. The planning is `creating`'s."""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta
from typing import TYPE_CHECKING

from ..core import command, fairness
from ..core.game import RuleError
from ..core.times import at_ms, moment
from ..store import STORE_DOWN
from . import idempotency, tokens
from .caps import capped
from .creating import Plan, plan
from .creating import answer as create_answer
from .idempotency import fingerprint, scoped
from .loading import NotFound
from .projections import abandon_ms

if TYPE_CHECKING:
    from . import Engine

# a create's idempotency claim before it is answered: if the request dies with the store away,
# its key is free again this soon (a retry that finds the game made answers it instead)
CREATE_CLAIM_TTL_S = 60
CAP_SAMPLE = 20  # held games checked for an end when a client is at its cap
SEED_TICKET_TTL_S = 15 * 60


class Lobby:
    """The engine's creates (the engine's `create`, `seed_ticket` and the sweep call it)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def seed_ticket(self) -> dict:
        """A fresh server seed, committed before any client seed is chosen (docs/fairness.md)."""
        seed = fairness.new_server_seed()
        ticket = secrets.token_urlsafe(24)
        expires = moment(self.engine.clock()) + timedelta(seconds=SEED_TICKET_TTL_S)
        expires_at = expires.isoformat(timespec="seconds").replace("+00:00", "Z")
        self.engine.store.issue_ticket(
            ticket, seed.hex(), int(expires.timestamp()), SEED_TICKET_TTL_S
        )
        return {
            "ticket": ticket,
            "seed_commitment": fairness.commitment(seed),
            "expires_at": expires_at,
        }

    def _ticket_seed(self, ticket: str) -> bytes:
        status, seed = self.engine.store.take_ticket(
            ticket, int(moment(self.engine.clock()).timestamp())
        )
        if status == "unknown":
            raise RuleError("seed_ticket_unknown", "no such seed ticket", 400)
        if status == "used":
            raise RuleError("seed_ticket_used", "this seed ticket was used by another game", 409)
        if status == "expired":
            raise RuleError("seed_ticket_expired", "this seed ticket has expired", 410)
        return bytes.fromhex(seed)

    def create(self, body: dict, idem_key: str | None = None, client: str = "") -> dict:
        """Create a game from a validated request body; the answer of docs/api.md (with tokens).

        An idempotency key is scoped to the `client` (its address): the answer holds tokens, so
        a key guessed by someone else must not replay it to them."""
        planned = plan(
            body, self.engine.test_games, self.engine.bot_pace_ms, self.engine.new_game_id
        )
        claim = f"create:{scoped(idem_key, client)}" if idem_key else None
        if claim:
            fp = fingerprint(body)
            sealed = {str(s): tokens.seal(t, idem_key) for s, t in planned.tokens.items()}
            record = idempotency.create_record(fp, planned.id, sealed)
            prior = self.engine.store.claim(claim, record, CREATE_CLAIM_TTL_S)
            if prior is not None:
                if (
                    "answer" not in prior
                    and prior.get("id")
                    and self.engine.store.exists(prior["id"])
                ):
                    return self._resume_create(claim, prior, fp, idem_key)
                return idempotency.replay_create(prior, fp, idem_key)
        try:
            if planned.seed is None:
                ticket = body.get("seed_ticket")
                planned.seed = self._ticket_seed(ticket) if ticket else fairness.new_server_seed()
            answer = self._create(planned, client)
        except STORE_DOWN:
            # the game may have been made: the claim stays (it expires soon), and a retry with
            # the key finds the game and answers it (`_resume_create`)
            raise
        except BaseException:
            if claim:
                self.engine.store.release_claim(claim)  # a failed request leaves its key free again
            raise
        if claim:
            self.engine.store.settle_claim(
                claim, idempotency.create_record(fp, planned.id, sealed, answer)
            )
        return answer

    def _hold(self, client: str, game_id: str) -> str | None:
        """Count a new game against its client's cap of games in play: 429 beyond it; the
        client's digest it is held under (None when no cap counts the client). The count and
        the add are one script, so the cap holds exactly under concurrent creates. Games that
        ended leave the count as they end; at the cap, a sample of the held ones is checked
        too, so a count that missed an end (a crash between) heals, at a bounded cost per
        refusal."""
        cap = self.engine.games_per_client
        if not cap or not capped(client, self.engine.count_loopback):
            return None
        who = _client_digest(client)
        if self.engine.store.hold_game(who, game_id, cap):
            return who
        _, sample = self.engine.store.client_games(who, sample=CAP_SAMPLE)
        over = [gid for gid in sample if self._over(gid)]
        if over:
            self.engine.store.release_game(who, *over)
            if self.engine.store.hold_game(who, game_id, cap):
                return who
        raise RuleError(
            "too_many_games",
            f"this client has {cap} games in play, the most allowed: finish one first",
            429,
        )

    def _unhold(self, meta: dict, game_id: str) -> None:
        if "client" in meta:
            self.engine.store.release_game(meta["client"], game_id)

    def _over(self, game_id: str) -> bool:
        """Whether a held game no longer counts: it ended, or it is gone and not being made
        (a create under way holds its place before its game exists)."""
        if self.engine.store.being_created(game_id):  # asked first: its create may end meanwhile
            return False
        try:
            return self.engine.load(game_id)["status"] == "finished"
        except NotFound:
            return True

    def _resume_create(self, claim: str, prior: dict, fp: str, idem_key: str) -> dict:
        """A create whose first request made the game but never answered (the store went away
        after its script): finish it (index, journal) and answer it, tokens from the claim."""
        idempotency.check(prior, fp)
        game_id = prior["id"]
        state = self.engine.load(game_id)
        created = self.engine.all_events(game_id, 0, 1)[0]["data"]
        created_ms = at_ms(state["created_at"])
        self._settle_created(game_id, state["game"], state, created_ms)
        self.engine.scheduler.due(game_id)
        unsealed = {
            int(seat): tokens.unseal(sealed, idem_key, game_id, int(seat))
            for seat, sealed in prior["tokens"].items()
        }
        planned = Plan(
            id=game_id,
            game=state["game"],
            options=state["options"],
            seats=created["seats"],
            tokens=unsealed,
            test=state.get("test", False),
            deal=None,
        )
        answer = create_answer(planned, state)
        self.engine.store.settle_claim(
            claim, idempotency.create_record(fp, game_id, prior["tokens"], answer)
        )
        return answer

    def _create(self, planned, client: str = "") -> dict:
        now = self.engine.clock()
        game_id = planned.id
        cmd = command.create(
            game_id,
            planned.game,
            planned.options,
            planned.seats,
            planned.seed,
            now,
            planned.test,
            planned.deal,
            event_budget=self.engine.event_budget,
        )
        meta = {"seed": planned.seed.hex(), "game": planned.game, "created": now}
        meta.update({f"token:{s}": tokens.digest(t) for s, t in planned.tokens.items()})
        if planned.fixed_id and self.engine.store.archived(game_id) is not None:
            raise RuleError("id_taken", f"a game with id {game_id} exists already", 409)
        created_ms = at_ms(now)
        # noted first, so that a create cut short after its script is finished by the sweep,
        # and so that the cap's check tells this game's held place from one of a game gone
        self.engine.store.note_creating(game_id, created_ms)
        try:
            holder = self._hold(client, game_id)
        except RuleError:
            self.engine.store.done_creating(game_id)  # refused: nothing is being made
            raise
        if holder:
            meta["client"] = holder  # so that its end frees the client's slot
        try:
            made = self.engine.store.create(game_id, meta, cmd.events, secrets.token_hex(8))
        except STORE_DOWN:
            raise  # it may be made: the slot stays held (checked against its status later)
        except BaseException:
            self._unhold(meta, game_id)
            raise
        if not made:
            self._unhold(meta, game_id)
            self.engine.store.done_creating(game_id)
            raise RuleError("id_taken", f"a game with id {game_id} exists already", 409)
        self.engine.kept.remember(game_id, cmd.state)
        self.engine.store.count(game_id, games_created=1, events_appended=len(cmd.events))
        self._settle_created(game_id, planned.game, cmd.state, created_ms)
        self.engine.scheduler.schedule(None, cmd.state)
        return create_answer(planned, cmd.state)

    def _settle_created(self, game_id: str, game: str, state: dict, created_ms: int) -> None:
        """A made game into the listing indexes (another slot in a cluster: not in the create's
        script), then off the create journal."""
        self.engine.store.index(game_id, game, state["status"], created_ms, abandon_ms(state))
        self.engine.store.done_creating(game_id)

    def settle_unfinished_creates(self, older_than_s: float = 30.0) -> int:
        """Finish the creates cut short between their script and the index (the sweep's job):
        a game that was made is indexed with its status and its due work enqueued; a create that
        made nothing leaves the journal. Returns how many were settled."""
        before_ms = int((moment(self.engine.clock()).timestamp() - older_than_s) * 1000)
        settled = 0
        for game_id in self.engine.store.unsettled(before_ms):
            if self.engine.store.exists(game_id):
                state = self.engine.load(game_id)
                created_ms = at_ms(state["created_at"])
                self._settle_created(game_id, state["game"], state, created_ms)
                self.engine.scheduler.due(game_id)
            else:
                self.engine.store.done_creating(game_id)
            settled += 1
        return settled


def _client_digest(client: str) -> str:
    """A client's key in the store: a digest of its address (any text, fixed length)."""
    return hashlib.sha256(client.encode()).hexdigest()[:32]

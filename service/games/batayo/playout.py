"""BATAYO played on without events: the strong bot's fast play-out.

A second copy of the game's sequencing (commits and the reveal, BATAYOs and their takes, the
trick's end, rule 4's eliminations, the end of the game, rule 6's sudden death), each seat's
card from a `Choice`. It counts the events the rules would write, so that its horizon falls
where theirs does, and draws a BATAYO's takes and a random gathering from the same stream as
the rules. The plain version is `search.play_out` through `rules.py`;
tests/test_batayo_playout.py holds the two to the same score (docs/performance.md#bot-shortcuts).
"""

from __future__ import annotations

from collections.abc import Callable

from ...core.cards import value
from ...core.game import BotRng
from ...core.search import Stream

# a seat's card: (the seat, its hand, the tricks played, whether it must play high: a BATAYO,
# sudden death or its last chance, the play-out's generator) to one card of the hand
Choice = Callable[[int, list[str], int, bool, BotRng], str]


def score(
    root: dict, me: int, card: str, rng: BotRng, stream: Stream, choice: Choice, horizon: int
) -> float:
    """`me`'s score when it commits `card` in the sampled state `root` and `choice` plays
    every later card, until the game ends or more than `horizon` events are written: 1 for a
    win, 0.5 for a draw, 0 for a loss; at the horizon, `me`'s share of the cards held."""
    game = _Game(root, stream)
    game.commit(me, card)
    while game.winners is None and game.events <= horizon:
        owing = game.owing()
        if not owing:
            break
        seat = owing[0]
        game.commit(seat, choice(seat, game.hands[seat], game.tricks, game.pressed(seat), rng))
    if game.winners is not None:
        return 1.0 if game.winners == [me] else 0.5 if not game.winners else 0.0
    if game.out[me]:
        return 0.0
    counts = game.counts()
    return counts[me] / max(1, sum(counts))


class _Game:
    """The table of `rules.Table` that the sequencing reads, moved on as `rules.py` moves it;
    `events`: how many events the rules would have written since the root."""

    def __init__(self, root: dict, stream: Stream) -> None:
        t = root["table"]
        self.n = len(t["hands"])
        self.hands = [list(h) for h in t["hands"]]
        self.packs = [list(p) for p in t["packs"]]
        self.out = list(t["out"])
        self.put = [[e["card"] for e in p] for p in t["put"]]
        self.committed = list(t["committed"])
        self.phase = t["phase"]
        self.step = t["step"]
        self.contenders = list(t["contenders"])
        self.trick_players = list(t["trick_players"])
        self.last_chance = list(t["last_chance"])
        self.tricks = t["tricks"]
        self.time_up = t["time_up"]
        self.max_rounds = root["options"]["max_rounds"]
        self.random_gather = root["options"]["gather"] == "random"
        self._stream = stream
        self._root_version = root["version"]
        self.events = 0
        self.winners: list[int] | None = None  # set when the game ends

    def _rng(self):
        """The rules' random stream of the next event."""
        return self._stream(self._root_version + self.events + 1)

    def counts(self) -> list[int]:
        return [len(h) + len(p) for h, p in zip(self.hands, self.packs, strict=True)]

    def owing(self) -> list[int]:
        if self.phase not in ("trick", "sudden_death"):
            return []
        return [s for s in self.contenders if self.committed[s] is None and not self.out[s]]

    def pressed(self, seat: int) -> bool:
        """What greedy reads from its view: a BATAYO or sudden death under way (a step past
        the trick's own cards), or the seat's last chance (about to play with an empty pack)."""
        return self.step > 0 or not self.packs[seat]

    def commit(self, seat: int, card: str) -> None:
        self.events += 1
        if self.phase == "trick" and self.step == 0:
            self.last_chance[seat] = not self.packs[seat]
        self.hands[seat].remove(card)
        self.put[seat].append(card)
        self.committed[seat] = card
        if self.winners is None and not self.owing():
            self._resolve()

    def _resolve(self) -> None:
        ups = [(s, c) for s in self.contenders if (c := self.committed[s]) is not None]
        if not ups:
            self._trick_over(None)
            return
        best = max(value(c) for _, c in ups)
        tied = [s for s, c in ups if value(c) == best]
        self.events += 1  # revealed
        if self.phase == "sudden_death":
            if len(tied) == 1:
                self._end(tied)
            else:
                self._sudden_death_round(tied, self.step + 1)
        elif len(tied) == 1:
            self._trick_over(tied[0])
        else:
            self._batayo(tied)

    def _batayo(self, tied: list[int]) -> None:
        self.events += 1  # batayo
        self.step += 1
        self.contenders = list(tied)
        self.committed = [None] * self.n
        self._top_up(tied)
        for i, taker in enumerate(tied):
            victim = tied[(i + 1) % len(tied)]
            hand = self.hands[victim]
            if hand:
                card = self._rng().choice(hand, "")
                hand.remove(card)
                self.put[taker].append(card)
            self.events += 1  # taken
        self._top_up(tied)
        self._open_commits()

    def _trick_over(self, winner: int | None) -> None:
        losers = [
            s for s in self.trick_players if self.last_chance[s] and s != winner and not self.out[s]
        ]
        if winner is not None:
            won = [c for i in range(self.n) for c in self.put[(winner + i) % self.n]]
            if self.random_gather:
                won = self._rng().shuffle(won, "")
            self.packs[winner] += won
        self.events += 1  # trick_won, or left_play
        self.put = [[] for _ in range(self.n)]
        self.committed = [None] * self.n
        self.tricks += 1
        self.step = 0
        alive = [s for s in range(self.n) if not self.out[s]]
        self.contenders = list(alive)
        self.trick_players = alive
        self.last_chance = [False] * self.n
        for s in losers:
            self._out(s)
        self._top_up([s for s in range(self.n) if not self.out[s]])
        self._open_commits()

    def _top_up(self, seats: list[int]) -> None:
        drew = False
        for s in seats:
            if not self.out[s]:
                cards = self.packs[s][: max(0, 4 - len(self.hands[s]))]
                if cards:
                    drew = True
                    self.packs[s] = self.packs[s][len(cards) :]
                    self.hands[s] += cards
        self.events += drew  # drew

    def _out(self, seat: int) -> None:
        self.events += 1
        self.out[seat] = True
        self.hands[seat], self.packs[seat] = [], []
        self.contenders = [c for c in self.contenders if c != seat]

    def _open_commits(self) -> None:
        for s in list(self.contenders):
            if not self.hands[s] and not self.packs[s]:
                self._out(s)
        if self.phase == "trick" and self.step == 0:
            self._check_end()
        elif self.winners is None and not self.owing():
            self._resolve()

    def _check_end(self) -> None:
        alive = [s for s in range(self.n) if not self.out[s]]
        if len(alive) <= 1:
            self._end(alive)
        elif self.time_up:
            counts = self.counts()
            top = max(counts[s] for s in alive)
            leaders = [s for s in alive if counts[s] == top]
            if len(leaders) == 1:
                self._end(leaders)
            else:
                self._sudden_death_round(leaders, 1)
        elif self.tricks >= self.max_rounds:
            counts = self.counts()
            top = max(counts)
            leaders = [s for s in alive if counts[s] == top]
            self._end(leaders if len(leaders) == 1 else [])

    def _sudden_death_round(self, seats: list[int], round_: int) -> None:
        able = [s for s in seats if self.hands[s]]
        if len(able) <= 1:
            self._end(able)
            return
        self.events += 1  # sudden_death
        self.phase = "sudden_death"
        self.step = round_
        self.contenders = able
        self.committed = [None] * self.n

    def _end(self, winners: list[int]) -> None:
        self.events += 1  # ended
        self.winners = winners

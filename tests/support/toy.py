"""A toy game that lives only in the tests: the proof that a game is one module.

Duel: two seats are each dealt a hidden hand of three cards from a shuffled 12-card deck (2 to 7
of spades and hearts); in each of `rounds` rounds both commit a card face down, and the higher
rank takes the round (a tie scores for nobody). The highest score wins; equal scores draw.

It declares what every game declares and nothing else: the framework does the rest (status
checks, action shapes, sealing the hands and the commits, bots' seeding, the API and its
contract, simulate). Register it with `GAMES.register(GAME)` (the tests do), or for a server
with `BATAYO_EXTRA_GAMES=tests.support.toy`.
"""

from __future__ import annotations

from service.core.cards import deck as cards_of
from service.core.cards import value
from service.core.game import Game, Option, RuleError, Traits, random_bot, result
from service.core.shapes import CARDS, EACH, SEAT, Action, Card, Event, Hidden, Int, Ledger, ListOf
from service.core.turn_kinds import CommitReveal

DECK = cards_of(("2", "3", "4", "5", "6", "7"), ("S", "H"))
HAND = 3

OPTIONS = [Option("rounds", 3, min=1, max=HAND, doc="rounds played (one card each)")]

ACTIONS = [
    Action("commit", {"card": Hidden(Card(), to="actor", until="reveal")}, doc="a card, face down")
]

EVENTS = {
    "dealt": Event(
        {"hands": Hidden(ListOf(CARDS), to=EACH), "rest": Hidden(CARDS)},
        ledger=Ledger(output=Hidden(CARDS)),
        doc="three cards to each seat, the rest out of play",
    ),
    "committed": Event(
        {"seat": SEAT, "card": Hidden(Card(), to="seat", until="reveal")},
        actor="seat",
        doc="a card committed face down",
    ),
    "revealed": Event(
        {"round": Int(1), "cards": CARDS, "winner": Int(-1, 1)},
        reveals=True,
        doc="both cards turned; the winner's seat, or -1 for a tie",
    ),
}


def setup(options: dict) -> dict:
    return {
        "hands": [[], []],
        "rest": [],
        "put": [None, None],
        "played": [],
        "round": 1,
        "scores": [0, 0],
    }


def start(cmd, deal: dict | None) -> None:
    cards = cmd.rng.shuffle(DECK, "deck", deck=True)
    cmd.emit("dealt", {"hands": [cards[:HAND], cards[HAND : 2 * HAND]], "rest": cards[2 * HAND :]})


def _owing(state: dict) -> list[int]:
    return [s for s in (0, 1) if state["table"]["put"][s] is None]


TURNS = CommitReveal(_owing, commit="committed", reveal="revealed")


def legal_actions(state: dict, seat: int) -> list[dict]:
    return [{"type": "commit", "card": c} for c in state["table"]["hands"][seat]]


def decide(cmd, seat: int, action: dict) -> None:
    t = cmd.state["table"]
    if action["card"] not in t["hands"][seat]:
        raise RuleError("card_not_in_hand", f"{action['card']} is not in your hand")
    cmd.emit("committed", {"seat": seat, "card": action["card"]})
    if None in t["put"]:
        return
    a, b = (value(c) for c in t["put"])
    winner = 0 if a > b else 1 if b > a else -1
    cmd.emit("revealed", {"round": t["round"], "cards": list(t["put"]), "winner": winner})
    if t["round"] > cmd.state["options"]["rounds"]:
        s = t["scores"]
        winners = [0] if s[0] > s[1] else [1] if s[1] > s[0] else []
        cmd.end(result(winners, "rounds_played", t["round"] - 1, scores=list(s)))


def apply(state: dict, event: dict) -> None:
    t, d = state["table"], event["data"]
    if event["type"] == "dealt":
        t["hands"], t["rest"] = [list(h) for h in d["hands"]], list(d["rest"])
    elif event["type"] == "committed":
        t["hands"][d["seat"]] = [c for c in t["hands"][d["seat"]] if c != d["card"]]
        t["put"][d["seat"]] = d["card"]
    elif event["type"] == "revealed":
        if d["winner"] >= 0:
            t["scores"][d["winner"]] += 1
        t["played"] += d["cards"]
        t["put"], t["round"] = [None, None], t["round"] + 1
        t["last"] = {"cards": list(d["cards"]), "winner": d["winner"]}


def view(state: dict, seat: int | None) -> dict:
    t = state["table"]
    out = {
        "round": t["round"],
        "scores": list(t["scores"]),
        "committed": [p is not None for p in t["put"]],
        "hand_sizes": [len(h) for h in t["hands"]],
        "last": t.get("last"),
    }
    if seat is not None:
        out["hand"] = list(t["hands"][seat])
    return out


def cards(state: dict) -> list[str]:
    t = state["table"]
    return [*t["hands"][0], *t["hands"][1], *t["rest"], *t["played"], *(p for p in t["put"] if p)]


def greedy(view_: dict, rng) -> dict:
    """The highest card first."""
    return max(view_["legal_actions"], key=lambda a: value(a["card"]))


def ties(events: list[dict]) -> list[dict]:
    """Every round both seats played the same rank."""
    return [
        {
            "kind": "tied_round",
            "round": e["data"]["round"],
            "players": [0, 1],
            "steps": [{"cards": e["data"]["cards"], "versions": [e["version"]]}],
            "versions": [e["version"]],
            "winner": None,
        }
        for e in events
        if e["type"] == "revealed" and e["data"]["winner"] == -1
    ]


def summarize(finals: list[dict]) -> dict:
    return {"draws": sum(1 for s in finals if s["result"]["draw"])}


GAME = Game(
    name="duel",
    title="Duel (a toy game of the tests)",
    options=OPTIONS,
    seat_count=lambda options: 2,
    seat_range=(2, 2),
    actions=ACTIONS,
    events=EVENTS,
    deck=lambda options: list(DECK),
    setup=setup,
    start=start,
    decide=decide,
    apply=apply,
    turns=TURNS,
    legal_actions=legal_actions,
    view=view,
    cards=cards,
    rounds=lambda state: state["table"]["round"] - 1,
    bots={"random": random_bot, "greedy": greedy},
    traits=Traits(simultaneous=True, hidden_information=True, teams=False, chance=True),
    ties=ties,
    summarize=summarize,
)

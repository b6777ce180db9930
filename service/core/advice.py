"""Teach me: the strongest bot's suggestion for a seat, and why, as a code with parameters that
the viewer words in each language (service/web/static/strings.js, `hint:<code>`).

The adviser is the game's `strong` bot (docs/bots.md), called through its public entry with the
seat's view and the seat's own hint stream; it never sees more than that seat may. The reason
is worked out from the same view and the chosen action only: its parameters name the seat's
own cards (which it holds) and public counts, never a card the seat may not see.
"""

from __future__ import annotations

from .bots import play, whims
from .cards import CARD_VALUE
from .state import game_of
from .views import game_view

ADVISER = "strong"
# every reason a hint may give (the viewer words each: `hint:<code>` in strings.js)
HINT_CODES = (
    "not_your_turn",
    "only_action",
    "bid",
    "pass",
    "trump",
    "play_high",
    "play_low",
    "play_card",
)


def offers_hints(state: dict) -> bool:
    return ADVISER in game_of(state).bots


def searched(view: dict) -> bool:
    """Whether the seat's advice needs the adviser's search: more than one action to choose."""
    return len(view.get("legal_actions") or ()) > 1


def hint(state: dict, seat: int, server_seed: bytes) -> dict:
    """The adviser's action for `seat` now (None when the seat has nothing to do), with its
    reason. A search only when there is a choice."""
    view = game_view(state, seat)
    legal = view.get("legal_actions") or []
    if not legal:
        return {"action": None, "reason": reason("not_your_turn")}
    if len(legal) == 1:
        return {"action": legal[0], "reason": reason("only_action", action=legal[0]["type"])}
    action = play(game_of(state), ADVISER, view, whims(state, server_seed, seat, "hint"))
    return {"action": action, "reason": explain(legal, action)}


def reason(code: str, **params: object) -> dict:
    return {"code": code, "params": params}


def explain(legal: list[dict], action: dict) -> dict:
    """Why this action among the legal ones: a bid, a pass, a trump, or where the card played
    stands among the cards the seat may play now (its strongest, its weakest, or between)."""
    kind = action["type"]
    if kind == "bid":
        return reason("bid", tricks=action["tricks"])
    if kind == "pass":
        return reason("pass")
    if kind == "trump":
        return reason("trump", suit=action["suit"])
    card = action.get("card")
    if card is None:
        return reason("only_action", action=kind)
    cards = {a["card"] for a in legal if a.get("card") is not None}
    values = [CARD_VALUE[c] for c in cards]
    mine = CARD_VALUE[card]
    params: dict = {"card": card, "choices": len(cards)}
    if action.get("face") is not None:
        params["face"] = action["face"]
    if len(set(values)) < 2:
        return reason("play_card", **params)
    if mine == max(values):
        return reason("play_high", **params)
    if mine == min(values):
        return reason("play_low", **params)
    return reason("play_card", **params)

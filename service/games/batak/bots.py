"""Batak's bots: `random`, `greedy` and the determinized `expert` (also `strong`, with more
play-outs), each reading only its seat's view and answering one of its `legal_actions`; how
each plays is in docs/bots.md#how-the-simpler-bots-play. The expert plays sampled deals out
on bit masks (playout.py) and, in eşli's last tricks, the strong bot searches them (endgame.py).
"""

from __future__ import annotations

from ...core.cards import SUITS
from ...core.game import BotRng, random_bot
from . import endgame
from .playout import RANKS, SUIT_INDEX, card_int, masks, play_out

SUIT_WORDS = ("spades", "hearts", "diamonds", "clubs")
FULL = (1 << 13) - 1

# expert knobs
BID_WORLDS = 32  # sampled deals to evaluate a hand in the auction (per candidate trump)
PLAY_ROLLOUTS = 300  # play-outs per card decision (spread over the candidate cards)
MIN_WORLDS = 16
MAX_WORLDS = 80
RELATIVE = 0.5  # ihaleli: own points minus this times the others' average
DEFEND_SHARE = 0.5  # what a hand is worth in tricks when someone else declares (share of E[k])
# strong in ihaleli: the same reading, bolder; against greedy bidders declaring more often wins
# more games (docs/bots.md#batak-bidding)
STRONG_DEFEND_SHARE = 0.2
# strong in eşli: the last tricks of each sampled deal searched exactly (endgame.py) once the
# seat holds this many cards or fewer, over this many searches a move (spread over the cards)
ENDGAME_TRICKS = 4
ENDGAME_SEARCHES = 120


def deal_score(taken: list[int], declarer: int, bid: int, esli: bool) -> list[int]:
    """docs/rules/batak.md#rule-5, per seat (a team's points for each member in esli)."""
    if esli:
        team = [taken[0] + taken[2], taken[1] + taken[3]]
        d = declarer & 1
        if team[d] < bid:
            team[d] = -bid
        return [team[0], team[1], team[0], team[1]]
    pts = list(taken)
    if pts[declarer] < bid:
        pts[declarer] = -bid
    return pts


def _utility(taken: list[int], me: int, declarer: int, bid: int, esli: bool) -> float:
    pts = deal_score(taken, declarer, bid, esli)
    if esli:
        return pts[me] - pts[(me + 1) & 3]
    return pts[me] - RELATIVE * (sum(pts) - pts[me]) / 3


# -- what a seat knows ----------------------------------------------------------------------------


def constraints(table: dict, overtake: bool) -> list[list[int]]:
    """For each seat and suit, the ranks it may still hold, from the cards played this deal:
    - not following the led suit shows a void; not trumping then shows no trump either;
    - following below the highest card of the led suit when the rules would force a higher one
      shows it holds none higher; trumping below a trump in the trick shows no higher trump;
    - leading trump before trump is broken shows a hand of trumps only."""
    allow = [[FULL] * 4 for _ in range(4)]
    trump = SUIT_INDEX[table["trump"]] if table["trump"] else -1
    broken = False
    for cards in [*(tr["cards"] for tr in table["tricks"]), table["trick"]]:
        led = top_led = top_tr = -1
        for i, play in enumerate(cards):
            seat = play["seat"]
            s, r = card_int(play["card"])
            if i == 0:
                led, top_led = s, r
                if s == trump and not broken:
                    for x in range(4):
                        if x != trump:
                            allow[seat][x] = 0
                continue
            if s == led:
                forced = not (top_tr >= 0 and not overtake)
                if forced and r < top_led:
                    allow[seat][led] &= (1 << (top_led + 1)) - 1
                top_led = max(top_led, r)
                continue
            allow[seat][led] = 0
            if s == trump:
                broken = True
                if top_tr >= 0 and r < top_tr:
                    allow[seat][trump] &= (1 << (top_tr + 1)) - 1
                top_tr = max(top_tr, r)
            elif trump >= 0:
                allow[seat][trump] = 0
    return allow


def sample_world(
    rng: BotRng,
    unseen: list[tuple[int, int]],
    counts: list[int],
    allow: list[list[int]],
    me: int,
    mine: list[int],
) -> list[list[int]]:
    """Deal the unseen cards to the other seats (their hand sizes), each card only to a seat that
    may hold it; the most constrained cards go first. Relaxes the constraints if it cannot."""
    others = [q for q in range(4) if q != me]
    for level in (0, 1, 2):
        for _ in range(12 if level == 0 else 4):
            cards = list(unseen)
            rng.shuffle(cards)
            if level == 0:
                elig = [[q for q in others if allow[q][s] >> r & 1] for s, r in cards]
            elif level == 1:  # voids only
                elig = [[q for q in others if allow[q][s]] for s, r in cards]
            else:
                elig = [others for _ in cards]
            order = sorted(range(len(cards)), key=lambda i: len(elig[i]))
            cap = list(counts)
            h = [[0, 0, 0, 0] for _ in range(4)]
            h[me] = list(mine)
            for i in order:
                qs = [q for q in elig[i] if cap[q] > 0]
                if not qs:
                    break
                if len(qs) == 1:
                    q = qs[0]
                else:
                    x = rng.random() * sum(cap[q] for q in qs)
                    for q in qs:
                        x -= cap[q]
                        if x < 0:
                            break
                s, r = cards[i]
                h[q][s] |= 1 << r
                cap[q] -= 1
            else:
                return h
    raise AssertionError("unreachable: unconstrained dealing cannot fail")


# -- hand evaluation ------------------------------------------------------------------------------


def heuristic_tricks(hand: list[str]) -> tuple[float, str]:
    """A quick count of the tricks a hand can take as declarer, with its best trump suit."""
    h = masks(hand)
    best = (-1.0, "S")
    for t in range(4):
        total = 0.0
        for s in range(4):
            m = h[s]
            n = m.bit_count()
            ace, king, queen, jack = (m >> 12) & 1, (m >> 11) & 1, (m >> 10) & 1, (m >> 9) & 1
            if s == t:
                total += ace + 0.9 * king * (n >= 2) + 0.7 * queen * (n >= 3)
                total += 0.4 * jack * (n >= 4) + 0.9 * max(0, n - 3)
            else:
                total += ace + 0.7 * king * (n >= 2) + 0.3 * queen * (n >= 3)
                total += 0.5 * (n == 0) + 0.25 * (n == 1)
        if total > best[0]:
            best = (total, SUITS[t])
    return best


def declarer_tricks(
    hand: list[str],
    me: int,
    rng: BotRng,
    suits: list[int],
    worlds: int,
    overtake: bool,
    esli: bool = False,
    own: int = -1,
) -> dict[int, list[int]]:
    """Tricks the hand (in esli: with its partner) takes as declarer, leading first, per
    candidate trump suit, over `worlds` random deals of the other 39 cards (`own` as in
    `play_out`)."""
    mine = masks(hand)
    held = set(hand)
    unseen = [card_int(r + s) for s in SUITS for r in RANKS if r + s not in held]
    out: dict[int, list[int]] = {t: [] for t in suits}
    others = [q for q in range(4) if q != me]
    for _ in range(worlds):
        rng.shuffle(unseen)
        base = [[0, 0, 0, 0] for _ in range(4)]
        base[me] = list(mine)
        for i, (s, r) in enumerate(unseen):
            base[others[i % 3]][s] |= 1 << r
        for t in suits:
            h = [list(x) for x in base]
            taken = play_out(h, t, False, [], me, [0, 0, 0, 0], overtake, own=own)
            out[t].append(taken[me] + (taken[(me + 2) & 3] if esli else 0))
    return out


def _trump_candidates(hand: list[str]) -> list[int]:
    h = masks(hand)
    ranked = sorted(range(4), key=lambda s: (h[s].bit_count(), h[s]), reverse=True)
    return ranked[:2]


def _contract_value(ks: list[int], bid: int) -> float:
    return sum(k if k >= bid else -bid for k in ks) / len(ks)


# -- greedy ---------------------------------------------------------------------------------------


def _value(card: str) -> int:
    return RANKS.index(card[:-1])


def _winning(trick: list[dict], trump: str | None) -> tuple[str, int]:
    """The card currently winning the trick and its seat."""
    best = trick[0]
    for p in trick[1:]:
        c, b = p["card"], best["card"]
        if (c[-1] == b[-1] and _value(c) > _value(b)) or (c[-1] == trump and b[-1] != trump):
            best = p
    return best["card"], best["seat"]


def _beats(card: str, best: str, trump: str | None) -> bool:
    if card[-1] == best[-1]:
        return _value(card) > _value(best)
    return card[-1] == trump


def greedy(view: dict, rng: BotRng) -> dict:
    legal = view["legal_actions"]
    if len(legal) == 1:
        return legal[0]
    t = view["table"]
    kind = legal[0]["type"]
    if kind in ("bid", "pass"):
        bids = [a for a in legal if a["type"] == "bid"]
        if len(bids) == len(legal):  # the dealer must bid: the minimum
            return bids[0]
        if t["mode"] == "esli" and t["high_bidder"] == (view["you"] + 2) % 4:
            return {"type": "pass"}
        estimate, _ = heuristic_tricks(t["hand"])
        if t["mode"] == "esli":
            estimate += 3  # the partner's share
        return bids[0] if bids and bids[0]["tricks"] <= estimate else {"type": "pass"}
    if kind == "trump":
        return {"type": "trump", "suit": heuristic_tricks(t["hand"])[1]}
    cards = [a["card"] for a in legal]
    trump = t["trump"]
    if not t["trick"]:
        gone = set(t["played"]) | set(t["hand"])
        masters = [
            c
            for c in cards
            if all(r + c[-1] in gone for r in RANKS[_value(c) + 1 :]) and c[-1] != trump
        ]
        if masters:
            return {"type": "play", "card": max(masters, key=_value)}
        side = [c for c in cards if c[-1] != trump] or cards
        length = {s: sum(1 for c in t["hand"] if c[-1] == s) for s in SUITS}
        pick = min(side, key=lambda c: (-length[c[-1]], _value(c)))
        return {"type": "play", "card": pick}
    best, seat = _winning(t["trick"], trump)
    partner_winning = t["mode"] == "esli" and seat == (view["you"] + 2) % 4
    winners = [c for c in cards if _beats(c, best, trump)]
    if winners and not partner_winning:
        return {"type": "play", "card": min(winners, key=lambda c: (c[-1] == trump, _value(c)))}
    return {"type": "play", "card": min(cards, key=lambda c: (c[-1] == trump, _value(c)))}


# -- expert ---------------------------------------------------------------------------------------


def _expert(
    view: dict, rng: BotRng, rollouts: int = PLAY_ROLLOUTS, model: bool = False
) -> tuple[dict, str]:
    """The expert's move and its reason. `model` (the strong bot): in ihaleli the other seats
    play `greedy`'s rule in the play-outs (its model of its opponents) and the seat bids more
    boldly; in eşli the deal's last tricks are searched exactly."""
    legal = view["legal_actions"]
    if not legal:
        return {}, "it is not your turn"
    t = view["table"]
    own = view["you"] if model and t["mode"] == "ihaleli" else -1
    kind = legal[0]["type"]
    if kind in ("bid", "pass"):
        return _expert_bid(view, rng, own)
    if kind == "trump":
        return _expert_trump(view, rng, own)
    if len(legal) == 1:
        return legal[0], f"{legal[0]['card']} is your only legal card"
    exact = model and t["mode"] == "esli" and len(t["hand"]) <= ENDGAME_TRICKS
    return _expert_play(view, rng, t, rollouts, own, exact)


def _overtake(view: dict) -> bool:
    return view["options"].get("must_overtake_when_trumped", True)


def _expert_bid(view: dict, rng: BotRng, own: int = -1) -> tuple[dict, str]:
    legal = view["legal_actions"]
    t = view["table"]
    bids = [a for a in legal if a["type"] == "bid"]
    if len(bids) == len(legal):
        low = bids[0]["tricks"]
        return bids[0], f"the first three passed: as dealer you must bid, and {low} is the safest"
    me = view["you"]
    esli = t["mode"] == "esli"
    if esli and t["high_bidder"] == (me + 2) % 4:
        return {"type": "pass"}, "pass: your partner holds the highest bid"
    suits = _trump_candidates(t["hand"])
    table = declarer_tricks(t["hand"], me, rng, suits, BID_WORLDS, _overtake(view), esli, own)
    low = bids[0]["tricks"] if bids else 14
    expected = max(sum(ks) / len(ks) for ks in table.values())
    best_suit = max(suits, key=lambda s: _contract_value(table[s], low) if bids else 0)
    worth = _contract_value(table[best_suit], low) if bids else -99
    # `own` names the seat only for the strong bot in ihaleli, the one that bids more boldly
    defend = (STRONG_DEFEND_SHARE if own >= 0 else DEFEND_SHARE) * expected
    if bids and worth > defend:
        made = sum(k >= low for k in table[best_suit]) / len(table[best_suit])
        return bids[0], (
            f"bid {low}: with {SUIT_WORDS[best_suit]} as trump you expect about {expected:.1f} "
            f"tricks and make {low} in {made:.0%} of sampled deals"
        )
    return {"type": "pass"}, (
        f"pass: about {expected:.1f} tricks expected with your best trump, "
        f"not enough to risk a bid of {low}"
        if bids
        else "pass: no higher bid is possible"
    )


def _expert_trump(view: dict, rng: BotRng, own: int = -1) -> tuple[dict, str]:
    t = view["table"]
    bid = t["bid"]
    suits = [s for s in range(4) if any(c[-1] == SUITS[s] for c in t["hand"])] or [0]
    esli = t["mode"] == "esli"
    overtake = _overtake(view)
    table = declarer_tricks(t["hand"], view["you"], rng, suits, BID_WORLDS, overtake, esli, own)
    best = max(suits, key=lambda s: (_contract_value(table[s], bid), sum(table[s])))
    ks = table[best]
    made = sum(k >= bid for k in ks) / len(ks)
    return {"type": "trump", "suit": SUITS[best]}, (
        f"{SUIT_WORDS[best]} as trump: about {sum(ks) / len(ks):.1f} tricks expected, "
        f"{made:.0%} of sampled deals make your {bid}"
    )


def _expert_play(
    view: dict,
    rng: BotRng,
    t: dict,
    rollouts: int = PLAY_ROLLOUTS,
    own: int = -1,
    exact: bool = False,
) -> tuple[dict, str]:
    """The card with the best mean score over sampled deals, each card played out in each deal
    (`exact`: the rest of the deal searched exactly, both pairs at their best)."""
    me = view["you"]
    overtake = _overtake(view)
    esli = t["mode"] == "esli"
    trump = SUIT_INDEX[t["trump"]]
    mine = masks(t["hand"])
    seen = set(t["played"]) | set(t["hand"])
    unseen = [card_int(r + s) for s in SUITS for r in RANKS if r + s not in seen]
    counts = [0 if q == me else t["hand_counts"][q] for q in range(4)]
    allow = constraints(t, overtake)
    trick = [(p["seat"], *card_int(p["card"])) for p in t["trick"]]
    cands = _distinct([a["card"] for a in view["legal_actions"]], seen)
    if len(cands) == 1:
        card = cands[0]
        return {"type": "play", "card": card}, f"{card}: your legal cards are all worth the same"
    if exact:
        worlds = max(MIN_WORLDS, ENDGAME_SEARCHES // len(cands))
    else:
        most = MAX_WORLDS * rollouts // PLAY_ROLLOUTS
        worlds = max(MIN_WORLDS, min(most, rollouts // len(cands)))
    totals = dict.fromkeys(cands, 0.0)
    wins = dict.fromkeys(cands, 0)
    tricks_now = list(t["tricks_taken"])
    for _ in range(worlds):
        world = sample_world(rng, unseen, counts, allow, me, mine)
        for card in cands:
            s, r = card_int(card)
            h = [list(x) for x in world]
            h[me][s] ^= 1 << r
            broken = t["trump_broken"] or (bool(trick) and s == trump and trick[0][1] != trump)
            after = [*trick, (me, s, r)]
            if exact:
                taken = list(tricks_now)
                ours = endgame.team_tricks(h, trump, broken, after, (me + 1) & 3, me & 1, overtake)
                taken[me] += ours
                taken[(me + 1) & 3] += len(t["hand"]) - ours
            else:
                taken = play_out(
                    h, trump, broken, after, (me + 1) & 3, list(tricks_now), overtake, own=own
                )
            totals[card] += _utility(taken, me, t["declarer"], t["bid"], esli)
            wins[card] += taken[me] - tricks_now[me]
    best = max(cands, key=lambda c: (totals[c], -_value(c)))
    avg = totals[best] / worlds
    more = wins[best] / worlds
    return {"type": "play", "card": best}, (
        f"{best}: best of {len(cands)} choices over {worlds} sampled deals consistent with what "
        f"you have seen (about {more:.1f} more tricks for you, score margin {avg:+.1f})"
    )


def _distinct(cards: list[str], seen: set[str]) -> list[str]:
    """One card per group of equivalent cards: same suit with nothing unseen between them."""
    out = []
    by_suit: dict[str, list[str]] = {}
    for c in cards:
        by_suit.setdefault(c[-1], []).append(c)
    for s, group in by_suit.items():
        group.sort(key=_value)
        prev = None
        for c in group:
            if prev is not None and all(r + s in seen for r in RANKS[_value(prev) + 1 : _value(c)]):
                prev = c
                continue
            out.append(c)
            prev = c
    return out


def expert(view: dict, rng: BotRng) -> dict:
    return _expert(view, rng)[0]


STRONG_ROLLOUTS = 4 * PLAY_ROLLOUTS


def strong(view: dict, rng: BotRng) -> dict:
    """The expert's determinized search with four times its play-outs a card: the same
    inferences from the cards played, more sampled deals, so less noise in each choice; in
    ihaleli its play-outs also model the other seats as greedy players, and it bids more
    boldly."""
    return _expert(view, rng, STRONG_ROLLOUTS, model=True)[0]


BOTS = {"random": random_bot, "greedy": greedy, "expert": expert, "strong": strong}

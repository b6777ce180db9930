"""An exact search of a Batak eşli deal's last tricks with every hand known: the value of one
sampled deal in the strong bot's search once few cards are left (docs/bots.md, "How `strong`
works"). The partners of the searching seat play for their team's tricks, the other pair
against them (alpha-beta over every legal card, equivalent cards tried once). Hands are the bit
masks of playout.py: four 13-bit masks a seat, bit r rank r.
"""

from __future__ import annotations

# (seat, suit, rank) cards of the trick in play, in the order played
Trick = list[tuple[int, int, int]]


def legal(
    hp: list[int], trick: Trick, trump: int, broken: bool, overtake: bool
) -> list[tuple[int, int]]:
    """The cards of hand `hp` the rules allow now (docs/rules/batak.md#rule-3), as (suit, rank):
    follow suit, above the led suit's highest card if the hand can (unless the trick is trumped
    and `overtake` is off); void: a trump, above the trick's highest trump if it can; neither:
    any card; leading: no trump before trump is broken, unless the hand holds only trumps."""
    if not trick:
        suits = [s for s in range(4) if hp[s] and s != trump]
        if broken or not suits:
            suits = [s for s in range(4) if hp[s]]
        return [(s, r) for s in suits for r in _ranks(hp[s])]
    led = trick[0][1]
    top_led = max(r for _, s, r in trick if s == led)
    trumped = [r for _, s, r in trick if s == trump and s != led]
    m = hp[led]
    if m:
        if not (trumped and not overtake):
            higher = m >> (top_led + 1) << (top_led + 1)
            m = higher or m
        return [(led, r) for r in _ranks(m)]
    t = hp[trump] if trump >= 0 else 0
    if t:
        if trumped:
            top = max(trumped)
            t = (t >> (top + 1) << (top + 1)) or t
        return [(trump, r) for r in _ranks(t)]
    return [(s, r) for s in range(4) for r in _ranks(hp[s])]


def _ranks(m: int) -> list[int]:
    out = []
    while m:
        low = m & -m
        out.append(low.bit_length() - 1)
        m ^= low
    return out


def winner(trick: Trick, trump: int) -> int:
    """docs/rules/batak.md#rule-4: the highest trump, else the highest card of the led suit."""
    led = trick[0][1]
    trumps = [(r, p) for p, s, r in trick if s == trump]
    return max(trumps or [(r, p) for p, s, r in trick if s == led])[1]


def distinct(
    cards: list[tuple[int, int]], hp: list[int], h: list[list[int]]
) -> list[tuple[int, int]]:
    """One card of hand `hp` for each run of its cards of one suit with no other hand's card
    between them: such cards take the same tricks whichever is played. (A card of the trick in
    play between them changes nothing: the rules make the hand play above the trick's highest
    card if it can, so either only the higher card is allowed or both lose the trick.) `cards`
    in suit order, each suit's ranks rising, as `legal` gives them."""
    out: list[tuple[int, int]] = []
    for s, r in cards:
        if out and out[-1][0] == s:
            lo = out[-1][1]
            between = ((1 << r) - 1) >> (lo + 1) << (lo + 1)
            if not between & (sum(hand[s] for hand in h) & ~hp[s]):
                continue
        out.append((s, r))
    return out


def team_tricks(
    h: list[list[int]],
    trump: int,
    broken: bool,
    trick: Trick,
    nxt: int,
    team: int,
    overtake: bool,
) -> int:
    """The tricks the pair `team` (0: seats 0 and 2; 1: seats 1 and 3) takes from here to the
    deal's end, both pairs playing their best with every hand known (`h` is left as it was).
    `trick` is the trick in play, possibly complete; `nxt` the seat to play next in it."""
    window = (-1, 14)  # below and above any count of a deal's tricks
    if len(trick) == 4:
        return _scored(h, trump, broken, list(trick), team, overtake, *window)
    return _search(h, trump, broken, list(trick), nxt, team, overtake, *window)


def _scored(
    h: list[list[int]],
    trump: int,
    broken: bool,
    trick: Trick,
    team: int,
    overtake: bool,
    alpha: int,
    beta: int,
) -> int:
    """The value once `trick` is complete: its trick for the winner's pair (rule 4), then the
    search of the rest of the deal, led by the winner."""
    w = winner(trick, trump)
    value = int(w & 1 == team)
    if any(any(hand) for hand in h):
        value += _search(h, trump, broken, [], w, team, overtake, alpha - value, beta - value)
    return value


def _search(
    h: list[list[int]],
    trump: int,
    broken: bool,
    trick: Trick,
    p: int,
    team: int,
    overtake: bool,
    alpha: int,
    beta: int,
) -> int:
    """Alpha-beta over the team's tricks from here, within the window (alpha, beta): a value
    outside it is only a bound, which is all the caller needs then."""
    hp = h[p]
    moves = distinct(legal(hp, trick, trump, broken, overtake), hp, h)
    ours = p & 1 == team
    best = -1 if ours else 99
    for s, r in moves:
        hp[s] ^= 1 << r
        trick.append((p, s, r))
        now_broken = broken or (len(trick) > 1 and s == trump and trick[0][1] != trump)
        if len(trick) == 4:
            value = _scored(h, trump, now_broken, trick, team, overtake, alpha, beta)
        else:
            value = _search(h, trump, now_broken, trick, (p + 1) & 3, team, overtake, alpha, beta)
        trick.pop()
        hp[s] ^= 1 << r
        if ours:
            if value > best:
                best = value
            if best > alpha:
                alpha = best
        else:
            if value < best:
                best = value
            if best < beta:
                beta = best
        if alpha >= beta:
            break
    return best

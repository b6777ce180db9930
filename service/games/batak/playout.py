"""Batak's deal played out on bit masks without events: the expert's and the strong bot's fast
play-out. A hand is four 13-bit masks (suits S, H, D, C; bit r is rank r, 0 the 2, 12 the ace).

A second copy of the rules' trick play (docs/rules/batak.md#rule-3) with a policy for every seat;
tests/test_batak_playout.py holds it to the rules' legal cards and to greedy's choices.
"""

from __future__ import annotations

from ...core.cards import SUITS

RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
SUIT_INDEX = {s: i for i, s in enumerate(SUITS)}


def card_int(card: str) -> tuple[int, int]:
    return SUIT_INDEX[card[-1]], RANKS.index(card[:-1])


def card_text(s: int, r: int) -> str:
    return RANKS[r] + SUITS[s]


def masks(cards: list[str]) -> list[int]:
    h = [0, 0, 0, 0]
    for c in cards:
        s, r = card_int(c)
        h[s] |= 1 << r
    return h


def _low(m: int) -> int:
    return (m & -m).bit_length() - 1


def _lead(h: list[list[int]], p: int, trump: int, broken: bool) -> tuple[int, int]:
    """The play-out policy's lead: a master card of a side suit nobody can ruff, a master trump
    once trump may be led, else low from the longest side suit."""
    hp = h[p]
    q1, q2, q3 = h[(p + 1) & 3], h[(p + 2) & 3], h[(p + 3) & 3]
    best_s, best_len = -1, -1
    for s in range(4):
        m = hp[s]
        if not m or s == trump:
            continue
        hi = m.bit_length() - 1
        if not ((q1[s] | q2[s] | q3[s]) >> hi) and not (
            (not q1[s] and q1[trump]) or (not q2[s] and q2[trump]) or (not q3[s] and q3[trump])
        ):
            return s, hi
        n = m.bit_count()
        if n > best_len:
            best_s, best_len = s, n
    t = hp[trump]
    if t and (broken or best_s < 0):
        hi = t.bit_length() - 1
        others = q1[trump] | q2[trump] | q3[trump]
        if others and not (others >> hi):
            return trump, hi
        if best_s < 0:
            return trump, _low(t)
    return best_s, _low(hp[best_s])


def _greedy_lead(h: list[list[int]], p: int, trump: int) -> tuple[int, int]:
    """`greedy`'s lead with every hand known: its highest master side card, else the lowest
    card of its longest side suit (trump only from a hand of trumps); ties go to the first suit
    (S, H, D, C), as greedy breaks them on a hand sorted by suit."""
    hp = h[p]
    rest = [h[(p + 1) & 3][s] | h[(p + 2) & 3][s] | h[(p + 3) & 3][s] for s in range(4)]
    best_s, best_r = -1, -1
    for s in range(4):
        m = hp[s]
        if m and s != trump:
            hi = m.bit_length() - 1
            if not rest[s] >> hi and hi > best_r:
                best_s, best_r = s, hi
    if best_s >= 0:
        return best_s, best_r
    side = [s for s in range(4) if hp[s] and s != trump] or [s for s in range(4) if hp[s]]
    s = max(side, key=lambda x: (hp[x].bit_count(), -_low(hp[x])))
    return s, _low(hp[s])


def play_out(
    h: list[list[int]],
    trump: int,
    broken: bool,
    trick: list[tuple[int, int, int]],
    nxt: int,
    taken: list[int],
    overtake: bool,
    record: list | None = None,
    own: int = -1,
) -> list[int]:
    """Play the deal to its end with every hand known (`h` is changed), adding tricks to `taken`.

    `trick` is the trick in play as (seat, suit, rank), possibly complete; `nxt` the seat to play
    (or, when the trick is empty, to lead). `record`, if given, receives every (seat, suit, rank)
    played, so tests can check the play-out against the rules. `own`: the one seat that plays
    the play-out's own policy, every other seat playing `greedy`'s rule (the strong bot's model
    of its opponents in ihaleli); -1 (the expert): every seat plays the own policy."""
    left = sum(m.bit_count() for hp in h for m in hp)
    n = len(trick)
    led = top_led = top_led_seat = top_tr = top_tr_seat = -1
    if trick:
        led = trick[0][1]
        for p, s, r in trick:
            if s == led:
                if r > top_led:
                    top_led, top_led_seat = r, p
            elif s == trump and r > top_tr:
                top_tr, top_tr_seat = r, p
    p = nxt
    while True:
        if n == 4:
            w = top_tr_seat if top_tr >= 0 else top_led_seat
            taken[w] += 1
            if not left:
                return taken
            p, n = w, 0
        hp = h[p]
        if n == 0:
            s, r = _lead(h, p, trump, broken) if own < 0 or p == own else _greedy_lead(h, p, trump)
            led, top_led, top_led_seat, top_tr, top_tr_seat = s, r, p, -1, -1
        else:
            m = hp[led]
            if m:
                s = led
                if top_tr >= 0 and not overtake:
                    r = _low(m)
                else:
                    hi = m >> (top_led + 1) << (top_led + 1)
                    if not hi:
                        r = _low(m)
                    elif top_tr >= 0:
                        r = _low(hi)
                    else:
                        threat, ruff, q = 0, False, p
                        for _ in range(3 - n):
                            q = (q + 1) & 3
                            hq = h[q]
                            threat |= hq[led]
                            if not hq[led] and led != trump and hq[trump]:
                                ruff = True
                        if ruff or not threat or (own >= 0 and p != own):
                            r = _low(hi)
                        else:
                            b = threat.bit_length()
                            sure = hi >> b << b
                            r = _low(sure) if sure else _low(hi)
                if r > top_led:
                    top_led, top_led_seat = r, p
            elif hp[trump]:
                s = trump
                t = hp[trump]
                if top_tr >= 0:
                    over = t >> (top_tr + 1) << (top_tr + 1)
                    if over:
                        t = over
                r = _low(t)
                broken = True
                if r > top_tr:
                    top_tr, top_tr_seat = r, p
            else:
                s, r = -1, 99
                for x in range(4):
                    if hp[x]:
                        lr = _low(hp[x])
                        if lr < r:
                            s, r = x, lr
        hp[s] ^= 1 << r
        if record is not None:
            record.append((p, s, r))
        left -= 1
        n += 1
        p = (p + 1) & 3

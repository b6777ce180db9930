// tables.js: how each game's `table` (the game's own part of a view) is drawn.
//
// The shapes come from the API: GET /v1/games/{id} answers a view whose `table` differs per
// game. Each renderer below turns it into the same few parts, which game.js lays out:
//   seats:  {seat number: {stats: [[label, value]], cards: [card nodes], tags: [words]}}
//   center: a node for what lies in the middle of the table (pot, trick, last reveal, ...)
//   hand:   the caller's own cards (a seat token is needed), or null
// A game with no renderer here still shows, through `generic`.

import { cardEl, cardRow, cardText, el, suitText } from "./cards.js";

/** A seat's display name: the player's name, "greedy bot", or "open seat". */
export function seatName(view, seat) {
  const entry = view.seats.find((s) => s.seat === seat) || {};
  if (entry.name) return entry.name;
  if (entry.bot) return `${entry.bot} bot ${seat}`; // "greedy bot 2": bots often share a name
  return entry.open ? "open seat" : `seat ${seat}`;
}

const backs = (n, note) => Array.from({ length: n }, () => cardEl(null, { note }));
const line = (...parts) => el("div", { class: "center-line" }, ...parts);
const cardsInline = (codes) => el("span", { class: "ctext-list" }, codes.map(cardText));

/** Bataille: each seat's pack and won pile; the cards put down this round; the pot. */
function bataille(view) {
  const t = view.table;
  const seats = {};
  for (const p of t.players) {
    const cards = backs(p.down, "face down");
    if (p.up) cards.push(cardEl(p.up));
    else if (p.has_put) cards.push(cardEl(null, { note: "chosen" }));
    const tags = [];
    if (p.out) tags.push("out");
    if (t.bataille > 0 && p.contender && !p.out) tags.push("in the bataille");
    seats[p.seat] = { stats: [["pack", p.pack], ["won", p.won]], cards, tags };
  }
  const center = el(
    "div",
    {},
    line(el("strong", { text: `Round ${t.round}` })),
    t.bataille > 0 ? line(el("span", { class: "alert", text: `Bataille! (step ${t.bataille})` })) : null,
    t.pot > 0
      ? el("div", { class: "pot" }, el("div", { class: "label", text: `Pot: ${t.pot} cards` }),
          cardRow([...t.face_up.map((c) => cardEl(c, { small: true })),
            ...backs(t.pot - t.face_up.length, "face down").map((n) => (n.classList.add("small"), n))]))
      : null,
    t.aside ? line(`${t.aside} cards aside`) : null,
  );
  // Variant "ouverte": a seat sees its own pack and picks from it.
  const hand = Array.isArray(t.pack) ? t.pack : null;
  return { seats, center, hand, handLabel: "Your pack" };
}

/** BATAYO: each seat's suit, pack and hand; the cards on the table; the last reveal. */
function batayo(view) {
  const t = view.table;
  const seats = {};
  for (const p of t.players) {
    const cards = p.table.map((entry) => {
      const note = entry.how === "taken" ? `taken from ${seatName(view, entry.from)}` : undefined;
      if (entry.card === null) return cardEl(null, { note });
      return cardEl(entry.card, { note, known: entry.face === "down" });
    });
    const tags = [];
    if (p.out) tags.push("out");
    if (p.committed) tags.push("committed");
    if (p.last_chance) tags.push("last chance");
    if ((t.batayo > 0 || t.sudden_death > 0) && p.contender) tags.push("in the tie");
    seats[p.seat] = {
      stats: [["suit", suitText(p.suit)], ["pack", p.pack], ["hand", p.hand], ["cards", p.cards]],
      cards,
      tags,
    };
  }
  const reveal = t.last_reveal;
  const phase = { trick: "Trick", sudden_death: "Sudden death", over: "Game over" }[t.phase] || t.phase;
  const center = el(
    "div",
    {},
    line(el("strong", { text: `${phase} ${t.phase === "over" ? "" : t.trick}` }), ` · ${t.tricks} trick${t.tricks === 1 ? "" : "s"} played`),
    t.batayo > 0 ? line(el("span", { class: "alert", text: `BATAYO! (step ${t.batayo})` })) : null,
    t.sudden_death > 0 ? line(el("span", { class: "alert", text: `Sudden death (step ${t.sudden_death})` })) : null,
    reveal
      ? el(
          "div",
          { class: "reveal" },
          el("div", { class: "label", text: `Last reveal (trick ${reveal.trick}${reveal.step ? `, step ${reveal.step}` : ""})` }),
          el(
            "div",
            { class: "reveal-seats" },
            reveal.cards.map((c, s) =>
              c === null && !reveal.down[s]
                ? null
                : el("div", { class: `reveal-seat${reveal.winner === s ? " winner" : ""}` },
                    el("div", { class: "label", text: seatName(view, s) }),
                    cardRow([reveal.down[s] ? cardEl(reveal.down[s], { small: true, note: "taken" }) : null,
                      c ? cardEl(c, { small: true }) : null].filter(Boolean))),
            ),
          ),
          line(
            `best: ${reveal.best ?? "–"}`,
            reveal.winner !== null && reveal.winner !== undefined ? ` · won by ${seatName(view, reveal.winner)}` : "",
            reveal.tied?.length ? ` · tied: ${reveal.tied.map((s) => seatName(view, s)).join(", ")}` : "",
          ),
        )
      : null,
    t.batayos ? line(`${t.batayos} BATAYO${t.batayos > 1 ? "s" : ""} so far`) : null,
    t.aside?.length ? line("aside: ", cardsInline(t.aside)) : null,
    t.gone ? line(`${t.gone} cards left the game`) : null,
    t.time_up ? line(el("span", { class: "alert", text: "time is up" })) : null,
  );
  const notes = [];
  if (t.your_card) notes.push(el("span", {}, "You committed ", cardText(t.your_card)));
  return { seats, center, hand: Array.isArray(t.hand) ? t.hand : null, handLabel: "Your hand", notes };
}

/** Batak: the auction, the trump, the trick on the table, tricks taken and scores. */
function batak(view) {
  const t = view.table;
  const seats = {};
  const lastCall = {};
  for (const call of t.auction || []) lastCall[call.seat] = call.type === "bid" ? `bid ${call.tricks}` : call.type;
  for (let s = 0; s < t.hand_counts.length; s++) {
    const played = (t.trick || []).find((c) => c.seat === s);
    const tags = [];
    if (t.dealer === s) tags.push("dealer");
    if (t.declarer === s) tags.push(`declarer (${t.bid})`);
    if (t.phase === "bidding" && lastCall[s]) tags.push(lastCall[s]);
    if (t.mode === "esli") tags.push(s % 2 === 0 ? "team 0+2" : "team 1+3");
    seats[s] = {
      stats: [["cards", t.hand_counts[s]], ["tricks", t.tricks_taken[s]], ["score", t.totals[s]]],
      cards: played ? [cardEl(played.card)] : [],
      tags,
    };
  }
  const center = el(
    "div",
    {},
    line(el("strong", { text: `Deal ${t.deal} of ${t.deals}` }), ` · ${t.mode} · ${t.phase}`),
    t.phase === "bidding"
      ? line(t.high_bid ? `high bid ${t.high_bid} by ${seatName(view, t.high_bidder)}` : `bids start at ${t.min_bid}`)
      : null,
    t.declarer !== null && t.declarer !== undefined
      ? line(`${seatName(view, t.declarer)} bid ${t.bid}`, " · trump ", t.trump ? suitText(t.trump) : "not named yet",
          t.trump_broken ? " (broken)" : "")
      : null,
    t.last_trick
      ? el("div", { class: "reveal" },
          el("div", { class: "label", text: `Last trick (${t.last_trick.number}), won by ${seatName(view, t.last_trick.winner)}` }),
          el("div", { class: "reveal-seats" }, t.last_trick.cards.map((c) =>
            el("div", { class: `reveal-seat${c.seat === t.last_trick.winner ? " winner" : ""}` },
              el("div", { class: "label", text: seatName(view, c.seat) }), cardEl(c.card, { small: true })))))
      : null,
    t.scores?.length
      ? el("table", { class: "scores" },
          el("tr", {}, el("th", { text: "deal" }), view.seats.map((s) => el("th", { text: seatName(view, s.seat) }))),
          t.scores.map((row) => el("tr", {}, el("td", { text: row.deal }), row.points.map((p) => el("td", { text: p })))),
          el("tr", { class: "total" }, el("td", { text: "total" }), t.totals.map((p) => el("td", { text: p }))))
      : null,
  );
  return { seats, center, hand: Array.isArray(t.hand) ? t.hand : null, handLabel: "Your hand" };
}

/** BatailleRoylet: the King against the two Allies; the battle on the table; rounds won. */
function roylet(view) {
  const t = view.table;
  const seats = {};
  const battle = t.table || {};
  for (let s = 0; s < t.hand_sizes.length; s++) {
    const cards = [];
    if (battle.down && battle.down.seat === s) cards.push(cardEl(battle.down.card, { note: "face down", known: !!battle.down.card && !battle.up }));
    if (battle.up && battle.up.seat === s) cards.push(cardEl(battle.up.card, { note: "face up" }));
    if (s === t.king && battle.king) cards.push(cardEl(battle.king));
    seats[s] = {
      stats: [["role", s === t.king ? "King" : "Ally"], ["hand", t.hand_sizes[s]]],
      cards,
      tags: [],
    };
  }
  const results = t.results || [];
  const center = el(
    "div",
    {},
    line(el("strong", { text: `Round ${t.round}` }), ` · ${t.counted} of ${t.rounds} counted · battle ${t.battle} (${t.battles_left} left)`),
    line(`tricks: King ${t.tricks.king} · Allies ${t.tricks.allies}`, ` · royals in hand: ${t.royals_in_hand}`),
    t.captured?.length ? line("captured: ", cardsInline(t.captured)) : null,
    t.kings_taken?.length ? line("kings taken: ", cardsInline(t.kings_taken)) : null,
    results.length
      ? line("rounds: ", results.map((r) => el("span", { class: `pill ${r.result}`, title: r.reason, text: `${r.round}: ${r.result}` })))
      : null,
    t.streak ? line(`streak ${t.streak} of ${t.losing_streak}`) : null,
    t.voids ? line(`${t.voids} void rounds in a row (max ${t.max_replays})`) : null,
  );
  return { seats, center, hand: Array.isArray(t.hand) ? t.hand : null, handLabel: "Your hand" };
}

/** Any other game: the table as JSON, its cards drawn where they appear. */
function generic(view) {
  const pre = el("pre", { class: "json", text: JSON.stringify(view.table, null, 1) });
  return { seats: {}, center: pre, hand: Array.isArray(view.table?.hand) ? view.table.hand : null, handLabel: "Your hand" };
}

const RENDERERS = { bataille, batayo, batak, roylet };

export function renderTable(view) {
  return (RENDERERS[view.game] || generic)(view);
}

// tables.js: how each game's `table` (the game's own part of a view) is drawn.
//
// The shapes come from the API: GET /v1/games/{id} answers a view whose `table` differs per
// game. Each renderer below turns it into the same few parts, which game.js lays out:
//   seats:  {seat number: {stats: [[label, value]], cards: [card nodes], tags: [words]}}
//   center: a node for what lies in the middle of the table (pot, trick, ...)
//   last:   the last round, trick or battle played, with who won it and why (or null)
//   hand:   the caller's own cards (a seat token is needed), or null
// `events` are the log's events up to the version shown (as many as the page holds): the last
// round of Bataille and the last battle of BatailleRoylet are read from them.
// A game with no renderer here still shows, through `generic`.

import { cardEl, cardRow, cardText, el, parseCard, suitText } from "./cards.js";
import { botName, t } from "./i18n.js";

/** A seat's display name: the player's name, "greedy bot 2", or "open seat". */
export function seatName(view, seat) {
  const entry = view.seats.find((s) => s.seat === seat) || {};
  if (entry.name) return entry.name;
  if (entry.bot) return t("{bot} bot {seat}", { bot: botName(entry.bot), seat }); // bots often share a name
  return entry.open ? t("open seat") : t("seat {seat}", { seat });
}

const backs = (n, note) => Array.from({ length: n }, () => cardEl(null, { note }));
const line = (...parts) => el("div", { class: "center-line" }, ...parts);
const cardsInline = (codes) => el("span", { class: "ctext-list" }, codes.map((c, i) => [i ? " " : "", cardText(c)]));
const rankOf = (code) => parseCard(code)?.rank;

/** The "last played" box: a title, a row per seat with its cards, and a line saying why. */
function lastBox(view, { title, rows, winner, why, id }) {
  return el(
    "div",
    { class: "reveal last-play", id: "last-play", dataset: { key: id }, "aria-live": "polite" },
    el("div", { class: "label", text: title }),
    el("div", { class: "reveal-seats" },
      rows.map((r) => el("div", { class: `reveal-seat${r.seat === winner ? " winner" : ""}`, dataset: { seat: String(r.seat) } },
        el("div", { class: "label", text: r.label ?? seatName(view, r.seat) }),
        cardRow(r.cards)))),
    el("div", { class: "why", id: "last-why" }, why),
  );
}

// ---- La Bataille -----------------------------------------------------------------------

/** The last round finished by `version`, read from the events: each step's cards, and who
 * took them (or that they left play). */
export function bataillePast(events) {
  let end = -1;
  for (let i = events.length - 1; i >= 0; i--) {
    if (events[i].type === "took" || events[i].type === "left_play") { end = i; break; }
  }
  if (end < 0) return null;
  const steps = [{}];
  let start = end - 1;
  for (; start >= 0; start--) {
    const type = events[start].type;
    if (type === "took" || type === "left_play" || type === "dealt" || type === "created") break;
  }
  for (let i = start + 1; i < end; i++) {
    const e = events[i];
    const step = steps[steps.length - 1];
    if (e.type === "flipped" || e.type === "short") step[e.data.seat] = { up: e.data.up, down: e.data.down || [] };
    else if (e.type === "committed") step[e.data.seat] = { up: e.data.card, down: e.data.down || [] };
    else if (e.type === "revealed") for (const [s, c] of Object.entries(e.data.up)) step[s] = { ...(step[s] || { down: [] }), up: c };
    else if (e.type === "bataille") { step.tied = e.data.seats; steps.push({}); }
  }
  const endEvent = events[end];
  if (start < 0 && events[0]?.version > 1) return null; // the round began before the events held
  return { steps, end: endEvent, round: endEvent.data.round ?? null, version: endEvent.version };
}

function batailleLast(view, past) {
  if (!past) return null;
  const { steps, end } = past;
  const last = steps[steps.length - 1];
  const seats = new Set(steps.flatMap((s) => Object.keys(s).filter((k) => k !== "tied").map(Number)));
  const rows = [...seats].sort((a, b) => a - b).map((seat) => ({
    seat,
    cards: steps.flatMap((step, i) => {
      const put = step[seat];
      if (!put) return [];
      return [
        ...put.down.map((d) => cardEl(d, { small: true, known: d !== null, note: d === null ? t("face down") : undefined, flip: true })),
        put.up ? cardEl(put.up, { small: true, flip: true, note: i ? t("bataille") : undefined }) : null,
      ].filter(Boolean);
    }),
  }));
  let why;
  if (end.type === "took") {
    const card = last[end.data.seat]?.up;
    why = [
      el("strong", { text: t("{name} takes {count} cards", { name: seatName(view, end.data.seat), count: end.data.count }) }),
      " ",
      card ? [t("with the highest card,"), " ", cardText(card)] : "",
      steps.length > 1 ? ` ${t("after {n} bataille(s)", { n: steps.length - 1 })}` : "",
    ];
  } else {
    why = el("strong", { text: t("Everyone in the bataille is out: {count} cards leave play.", { count: end.data.count }) });
  }
  return lastBox(view, {
    id: `b${past.version}`,
    // a `left_play` names no round: in a finished game it was the last one played
    title: t("Last round ({n})", { n: past.round ?? (view.status === "finished" ? view.table.round : "?") }),
    rows,
    winner: end.type === "took" ? end.data.seat : null,
    why,
  });
}

/** Bataille: each seat's pack and won pile; the cards put down this round; the pot. */
function bataille(view, events) {
  const tb = view.table;
  const seats = {};
  for (const p of tb.players) {
    const cards = backs(p.down, t("face down"));
    if (p.up) cards.push(cardEl(p.up, { flip: true }));
    else if (p.has_put) cards.push(cardEl(null, { note: t("chosen") }));
    const tags = [];
    if (p.out) tags.push(t("out"));
    if (tb.bataille > 0 && p.contender && !p.out) tags.push(t("in the bataille"));
    seats[p.seat] = { stats: [[t("pack"), p.pack], [t("won"), p.won]], cards, tags };
  }
  const center = el(
    "div",
    {},
    line(el("strong", { text: t("Round {n}", { n: tb.round }) })),
    tb.bataille > 0 ? line(el("span", { class: "alert", text: t("Bataille! (step {n})", { n: tb.bataille }) })) : null,
    tb.pot > 0
      ? el("div", { class: "pot" }, el("div", { class: "label", text: t("Pot: {n} cards", { n: tb.pot }) }),
          cardRow([...tb.face_up.map((c) => cardEl(c, { small: true })),
            ...backs(tb.pot - tb.face_up.length, t("face down")).map((n) => (n.classList.add("small"), n))]))
      : null,
    tb.aside ? line(t("{n} cards aside", { n: tb.aside })) : null,
  );
  // Variant "ouverte": a seat sees its own pack and picks from it.
  const hand = Array.isArray(tb.pack) ? tb.pack : null;
  return { seats, center, last: batailleLast(view, bataillePast(events)), hand, handLabel: t("Your pack"), extraLabel: t("From your won pile") };
}

// ---- BATAYO -------------------------------------------------------------------------------

function batayoLast(view, reveal) {
  if (!reveal) return null;
  const rows = reveal.cards.map((c, s) => ({ seat: s, c, down: reveal.down[s] }))
    .filter((r) => r.c !== null || r.down)
    .map((r) => ({ seat: r.seat, cards: [r.down ? cardEl(r.down, { small: true, known: true, note: t("taken"), flip: true }) : null, r.c ? cardEl(r.c, { small: true, flip: true }) : null].filter(Boolean) }));
  let why;
  if (reveal.winner !== null && reveal.winner !== undefined) {
    why = [el("strong", { text: t("{name} wins it", { name: seatName(view, reveal.winner) }) }), " ", t("with the highest card, {rank}", { rank: reveal.best })];
  } else if (reveal.tied?.length) {
    why = el("strong", { text: t("{names} tie on {rank}: {what}", { names: reveal.tied.map((s) => seatName(view, s)).join(t(" and ")), rank: reveal.best, what: reveal.phase === "sudden_death" ? t("they go again") : "BATAYO!" }) });
  } else why = "";
  const phase = reveal.phase === "sudden_death" ? t("Sudden death") : t("Trick {n}", { n: reveal.trick });
  return lastBox(view, {
    id: `y${reveal.phase}${reveal.trick}.${reveal.step}`,
    title: `${t("Last reveal")}: ${phase}${reveal.step ? `, ${t("step {n}", { n: reveal.step })}` : ""}`,
    rows,
    winner: reveal.winner,
    why,
  });
}

/** BATAYO: each seat's suit, pack and hand; the cards on the table; the last reveal. */
function batayo(view) {
  const tb = view.table;
  const seats = {};
  for (const p of tb.players) {
    const cards = p.table.map((entry) => {
      const note = entry.how === "taken" ? t("taken from {name}", { name: seatName(view, entry.from) }) : undefined;
      if (entry.card === null) return cardEl(null, { note });
      return cardEl(entry.card, { note, known: entry.face === "down" });
    });
    const tags = [];
    if (p.out) tags.push(t("out"));
    if (p.committed) tags.push(t("committed"));
    if (p.last_chance) tags.push(t("last chance"));
    if ((tb.batayo > 0 || tb.sudden_death > 0) && p.contender) tags.push(t("in the tie"));
    seats[p.seat] = {
      stats: [[t("suit"), suitText(p.suit)], [t("pack"), p.pack], [t("hand"), p.hand], [t("cards"), p.cards]],
      cards,
      tags,
    };
  }
  const phase = { trick: t("Trick {n}", { n: tb.trick }), sudden_death: t("Sudden death"), over: t("Game over") }[tb.phase] || tb.phase;
  const center = el(
    "div",
    {},
    line(el("strong", { text: phase }), ` · ${t("{n} tricks played", { n: tb.tricks })}`),
    tb.batayo > 0 ? line(el("span", { class: "alert", text: t("BATAYO! (step {n})", { n: tb.batayo }) })) : null,
    tb.sudden_death > 0 ? line(el("span", { class: "alert", text: t("Sudden death (step {n})", { n: tb.sudden_death }) })) : null,
    tb.batayos ? line(view.status === "finished" ? t("{n} BATAYO in this game", { n: tb.batayos }) : t("{n} BATAYO so far", { n: tb.batayos })) : null,
    tb.aside?.length ? line(`${t("aside")}: `, cardsInline(tb.aside)) : null,
    tb.gone ? line(t("{n} cards left the game", { n: tb.gone })) : null,
    tb.time_up ? line(el("span", { class: "alert", text: t("time is up") })) : null,
  );
  const notes = [];
  if (tb.your_card) notes.push(el("span", {}, t("You committed"), " ", cardText(tb.your_card)));
  return { seats, center, last: batayoLast(view, tb.last_reveal), hand: Array.isArray(tb.hand) ? tb.hand : null, handLabel: t("Your hand"), notes };
}

// ---- Batak --------------------------------------------------------------------------------

function batakLast(view, trick, trump) {
  if (!trick) return null;
  const won = trick.cards.find((c) => c.seat === trick.winner)?.card;
  const led = parseCard(trick.cards[0]?.card)?.suit;
  const suit = parseCard(won)?.suit;
  const why = [
    el("strong", { text: t("{name} takes it", { name: seatName(view, trick.winner) }) }), " ",
    won ? cardText(won) : "", " ",
    suit && suit === trump && led !== trump ? t("the highest trump") : t("the highest card of the suit led"),
    " (", suitText(suit === trump && led !== trump ? trump : led), ")",
  ];
  return lastBox(view, {
    id: `k${trick.number}`,
    title: t("Last trick ({n})", { n: trick.number }),
    rows: trick.cards.map((c) => ({ seat: c.seat, cards: [cardEl(c.card, { small: true, flip: true })] })),
    winner: trick.winner,
    why,
  });
}

/** The deal's title: "Deal 3 of 5", or a tie-break deal once the set deals are played. */
function dealTitle(tb) {
  if (tb.deal > tb.deals) return t("Tie-break deal {n} (after {deals} deals)", { n: tb.deal, deals: tb.deals });
  return t("Deal {n} of {deals}", { n: tb.deal, deals: tb.deals });
}

/** Batak: the auction, the trump, the trick on the table, tricks taken and scores. */
function batak(view) {
  const tb = view.table;
  const seats = {};
  const lastCall = {};
  for (const call of tb.auction || []) lastCall[call.seat] = call.type === "bid" ? t("bid {n}", { n: call.tricks }) : t("pass");
  const declared = tb.declarer !== null && tb.declarer !== undefined;
  for (let s = 0; s < tb.hand_counts.length; s++) {
    const played = (tb.trick || []).find((c) => c.seat === s);
    const tags = [];
    if (tb.dealer === s) tags.push(t("dealer"));
    if (declared && tb.declarer === s) tags.push(`${t("declarer")} · ${t("bid {n}", { n: tb.bid })}`);
    if (tb.phase === "bidding" && lastCall[s]) tags.push(lastCall[s]);
    if (tb.mode === "esli") tags.push(s % 2 === 0 ? t("team 0+2") : t("team 1+3"));
    const stats = [[t("cards"), tb.hand_counts[s]], [t("tricks"), tb.tricks_taken[s]], [t("score"), tb.totals[s]]];
    if (declared && tb.declarer === s) stats.push([t("needs"), Math.max(0, tb.bid - tb.tricks_taken[s])]);
    seats[s] = { stats, cards: played ? [cardEl(played.card, { flip: true })] : [], tags, declarer: declared && tb.declarer === s };
  }
  const scoreRow = (row) => {
    const failed = row.made === false;
    return el("tr", { class: failed ? "failed" : "" },
      el("td", {}, row.deal > tb.deals ? t("{n} (tie-break)", { n: row.deal }) : String(row.deal)),
      row.points.map((p, s) => el("td", { class: s === row.declarer ? "declarer-cell" : "" },
        String(p), s === row.declarer ? el("span", { class: "contract", text: ` ${t("bid {n}", { n: row.bid })}${failed ? ` · ${t("failed")}` : ` · ${t("made")}`}` }) : null)));
  };
  const center = el(
    "div",
    {},
    line(el("strong", { id: "deal-title", text: dealTitle(tb) }), ` · ${tb.mode} · ${t(`phase:${tb.phase}`)}`),
    tb.phase === "bidding"
      ? line(tb.high_bid ? t("high bid {n} by {name}", { n: tb.high_bid, name: seatName(view, tb.high_bidder) }) : t("bids start at {n}", { n: tb.min_bid }))
      : null,
    declared
      ? line(el("span", { class: "contract-line" }, t("{name} declared, bid {n}", { name: seatName(view, tb.declarer), n: tb.bid }), " · ", t("trump"), " ",
          tb.trump ? suitText(tb.trump) : t("not named yet"), tb.trump_broken ? ` (${t("broken")})` : ""))
      : null,
    tb.scores?.length
      ? el("table", { class: "scores" },
          el("caption", { class: "label", text: t("Scores by deal (declarer's bid; a failed contract scores minus the bid)") }),
          el("tr", {}, el("th", { text: t("deal") }), view.seats.map((s) => el("th", { text: seatName(view, s.seat) }))),
          tb.scores.map(scoreRow),
          el("tr", { class: "total" }, el("td", { text: t("total") }), tb.totals.map((p) => el("td", { text: p }))))
      : null,
  );
  return { seats, center, last: batakLast(view, tb.last_trick, tb.trump), hand: Array.isArray(tb.hand) ? tb.hand : null, handLabel: t("Your hand") };
}

// ---- BatailleRoylet -----------------------------------------------------------------------

const ROUND_REASONS = {
  tricks: "more tricks",
  forbidden_capture: "a forbidden capture",
  two_kings: "the King took two kings",
  royals_unplayed: "the King could no longer play all his royals",
};

/** The last battle finished by the version shown, from the events: who played what, face
 * down or up, and who took it. */
export function royletPast(events) {
  let end = -1;
  for (let i = events.length - 1; i >= 0; i--) {
    if (events[i].type === "trick") { end = i; break; }
  }
  if (end < 0) return null;
  const e = events[end];
  const played = {};
  for (let i = end - 1; i >= 0 && events[i].type !== "trick" && events[i].type !== "dealt"; i--) {
    const x = events[i];
    if (x.type === "played" && x.data.round === e.data.round && x.data.battle === e.data.battle) {
      played[x.data.seat] = { ...(played[x.data.seat] || {}), face: x.data.face, card: played[x.data.seat]?.card ?? x.data.card };
    }
    if (x.type === "revealed") played[x.data.seat] = { ...(played[x.data.seat] || { face: "down" }), card: x.data.card };
  }
  return { trick: e, played };
}

function royletLast(view, past, results) {
  const lastResult = results[results.length - 1];
  if (!past) return null;
  const { trick, played } = past;
  const rows = Object.entries(played).map(([seat, p]) => ({
    seat: Number(seat),
    label: `${seatName(view, Number(seat))} (${Number(seat) === view.table.king ? t("King") : t("Ally")})`,
    cards: [cardEl(p.card, { small: true, known: p.face === "down" && !!p.card, note: p.face === "down" ? t("face down") : undefined, flip: true })],
  }));
  const allies = trick.data.taker === "allies";
  const why = [
    el("strong", { text: allies ? t("The Allies take battle {n}", { n: trick.data.battle }) : t("The King takes battle {n}", { n: trick.data.battle }) }),
    " ",
    allies ? t("(an Ally card beats the King's)") : t("(no Ally card beats the King's)"),
    trick.data.captured?.length ? [" · ", t("captured"), ": ", cardsInline(trick.data.captured)] : "",
    trick.data.kings_taken?.length ? [" · ", t("kings taken"), ": ", cardsInline(trick.data.kings_taken)] : "",
  ];
  const box = lastBox(view, {
    id: `r${trick.version}`,
    title: t("Last battle (round {r}, battle {n})", { r: trick.data.round, n: trick.data.battle }),
    rows,
    winner: allies ? null : view.table.king,
    why,
  });
  if (allies) for (const row of box.querySelectorAll(".reveal-seat")) if (Number(row.dataset.seat) !== view.table.king) row.classList.add("winner");
  if (lastResult && lastResult.round === trick.data.round) box.append(roundLine(lastResult));
  return box;
}

function roundLine(r) {
  const who = { king: t("the King wins round {n}", { n: r.round }), allies: t("the Allies win round {n}", { n: r.round }), void: t("round {n} is void (replayed)", { n: r.round }) }[r.result];
  return el("div", { class: "round-result" }, el("strong", { text: who }), `: ${t(ROUND_REASONS[r.reason] || r.reason)} (${t("tricks")} ${t("King")} ${r.tricks.king} · ${t("Allies")} ${r.tricks.allies})`);
}

/** BatailleRoylet: the King against the two Allies; the battle on the table; rounds won. */
function roylet(view, events) {
  const tb = view.table;
  const seats = {};
  const battle = tb.table || {};
  for (let s = 0; s < tb.hand_sizes.length; s++) {
    const cards = [];
    if (battle.down && battle.down.seat === s) cards.push(cardEl(battle.down.card, { note: t("face down"), known: !!battle.down.card }));
    if (battle.up && battle.up.seat === s) cards.push(cardEl(battle.up.card, { note: t("face up"), flip: true }));
    if (s === tb.king && battle.king) cards.push(cardEl(battle.king, { flip: true }));
    seats[s] = { stats: [[t("role"), s === tb.king ? t("King") : t("Ally")], [t("hand"), tb.hand_sizes[s]]], cards, tags: [] };
  }
  const results = tb.results || [];
  const center = el(
    "div",
    {},
    line(el("strong", { text: t("Round {n}", { n: tb.round }) }), ` · ${t("{c} of {r} counted", { c: tb.counted, r: tb.rounds })} · ${t("battle {n} ({left} left)", { n: tb.battle, left: tb.battles_left })}`),
    line(`${t("tricks")}: ${t("King")} ${tb.tricks.king} · ${t("Allies")} ${tb.tricks.allies} · ${t("royals in hand")}: ${tb.royals_in_hand}`),
    tb.captured?.length ? line(`${t("captured")}: `, cardsInline(tb.captured)) : null,
    tb.kings_taken?.length ? line(`${t("kings taken")}: `, cardsInline(tb.kings_taken)) : null,
    results.length ? el("ol", { class: "round-results", "aria-label": t("rounds played") }, results.map((r) => el("li", { class: `pill ${r.result}` }, roundLine(r)))) : null,
    tb.streak ? line(t("streak {s} of {max}", { s: tb.streak, max: tb.losing_streak })) : null,
    tb.voids ? line(t("{n} void rounds in a row (max {max})", { n: tb.voids, max: tb.max_replays })) : null,
  );
  return { seats, center, last: royletLast(view, royletPast(events), results), hand: Array.isArray(tb.hand) ? tb.hand : null, handLabel: t("Your hand") };
}

/** Any other game: the table as JSON, its cards drawn where they appear. */
function generic(view) {
  const pre = el("pre", { class: "json", text: JSON.stringify(view.table, null, 1) });
  return { seats: {}, center: pre, last: null, hand: Array.isArray(view.table?.hand) ? view.table.hand : null, handLabel: t("Your hand") };
}

const RENDERERS = { bataille, batayo, batak, roylet };

/** Whether the game's last play is read from the events (the page then fetches them). */
export const needsEvents = (game) => game === "bataille" || game === "roylet";

export function renderTable(view, events = []) {
  return (RENDERERS[view.game] || generic)(view, events);
}

export { rankOf };

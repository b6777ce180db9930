// story.js: each tie (GET /v1/games/{id}/ties) told in words, step by step, for all four games.
// A step is {text: nodes, versions: [...], version: the one to show}; face-down cards are
// marked as such; random takes say which draw of the fair source made them.

import { cardText, el } from "./cards.js";
import { t } from "./i18n.js";
import { seatName } from "./tables.js";

const names = (view, seats) => seats.map((s) => seatName(view, s)).join(t(" and "));
const rank = (code) => (code ? /^(10|[2-9JQKA])/.exec(code)?.[1] : null);

/** The version to show for a step: its reveal, else the last card put down before it settled. */
export function stepVersion(step) {
  if (step.reveal?.version) return step.reveal.version;
  if (step.revealed?.version) return step.revealed.version;
  const v = step.versions;
  return v.length > 1 ? v[v.length - 2] : v[0];
}

/** Cards one seat put down: the face-down ones marked, then the face-up one. */
function puts(view, seat, down, up) {
  return el("span", { class: "step-seat" }, `${seatName(view, seat)} `,
    down?.length ? [t("lays"), " ", down.map((d) => [cardText(d, { down: true }), " "]), t("face down"), up ? `, ${t("then")} ` : ""] : "",
    up ? cardText(up) : "");
}

function bataille(view, tie) {
  return tie.steps.map((step, i) => {
    const text = [];
    if (i === 0) {
      text.push(t("Round {n}:", { n: tie.round }), " ");
      text.push(...step.cards.flatMap((c, j) => [j ? ", " : "", puts(view, c.seat, c.down, c.up)]), ". ");
    } else {
      text.push(t("Bataille:"), " ", ...step.cards.flatMap((c, j) => [j ? "; " : "", puts(view, c.seat, c.down, c.up)]), ". ");
    }
    if (step.tied?.length) {
      const card = step.cards.find((c) => c.seat === step.tied[0])?.up;
      text.push(el("strong", { text: t("{names} tie on {rank}: bataille!", { names: names(view, step.tied), rank: rank(card) ?? "?" }) }));
    } else if (step.winner !== null && step.winner !== undefined) {
      const card = step.cards.find((c) => c.seat === step.winner)?.up;
      text.push(el("strong", {}, t("{name} wins with", { name: seatName(view, step.winner) }), " ", cardText(card),
        typeof tie.cards === "number" && i === tie.steps.length - 1 ? ` ${t("and takes {n} cards", { n: tie.cards })}` : "", "."));
    } else if (tie.left_play && i === tie.steps.length - 1) {
      text.push(el("strong", { text: t("Everyone in the bataille is out: the cards leave play.") }));
    }
    return { text, versions: step.versions, version: stepVersion(step) };
  });
}

function batayo(view, tie) {
  return tie.steps.map((step) => {
    const text = [];
    for (const take of step.takes || []) {
      const draw = take.ledger
        ? el("span", { class: "draw" }, ` (${t("a random pick among {n} cards, at version {v}, verifiable", { n: take.ledger.input?.length ?? "?", v: take.version })})`)
        : "";
      text.push(el("span", { class: "step-seat" }, t("{taker} takes", { taker: seatName(view, take.taker) }), " ", cardText(take.card, { down: true }), " ",
        t("at random from {from}, face down", { from: seatName(view, take.from) }), draw, ". "));
      if (take.empty_hand) text.push(t("{from} had no card to give.", { from: seatName(view, take.from) }), " ");
    }
    const reveal = step.reveal;
    if (reveal) {
      const shown = reveal.cards.map((c, s) => ({ s, c })).filter((x) => x.c);
      text.push(...shown.flatMap((x, j) => [j ? ", " : "", el("span", { class: "step-seat" }, `${seatName(view, x.s)} `, t("shows"), " ", cardText(x.c),
        reveal.down?.[x.s] ? [" (", t("face down"), ": ", cardText(reveal.down[x.s], { down: true }), ")"] : "")]), ". ");
      if (reveal.tied?.length) {
        text.push(el("strong", { text: tie.kind === "sudden_death"
          ? t("{names} tie on {rank}: they go again.", { names: names(view, reveal.tied), rank: reveal.best })
          : t("{names} tie on {rank}: BATAYO.", { names: names(view, reveal.tied), rank: reveal.best }) }));
      } else if (reveal.winner !== null && reveal.winner !== undefined) {
        const n = step.result?.cards?.length;
        text.push(el("strong", { text: n
          ? t("{name} wins with {rank} and takes {n} cards.", { name: seatName(view, reveal.winner), rank: reveal.best, n })
          : t("{name} wins with {rank}.", { name: seatName(view, reveal.winner), rank: reveal.best }) }));
      }
    } else if (step.committed) {
      text.push(...step.committed.flatMap((c, j) => [j ? ", " : "", el("span", { class: "step-seat" }, `${seatName(view, c.seat)} `, t("commits"), " ", cardText(c.card, { down: true }))]), ".");
    }
    return { text, versions: step.versions, version: stepVersion(step) };
  });
}

function batak(view, tie) {
  const before = tie.totals_before || [];
  const intro = t("After the set deals, {names} share the top score ({score}).", { names: names(view, tie.players), score: Math.max(...before) });
  return tie.steps.map((step, i) => {
    const text = [];
    if (i === 0) text.push(intro, " ");
    text.push(t("Tie-break deal {n}:", { n: tie.round + i }), " ",
      t("{name} declares, bid {bid}, trump", { name: seatName(view, step.declarer), bid: step.bid }), " ", el("span", {}, { S: "♠", H: "♥", D: "♦", C: "♣" }[step.trump] || step.trump), "; ",
      step.made ? t("made it with {n} tricks", { n: step.tricks[step.declarer] }) : el("strong", { class: "failed", text: t("failed with {n} tricks (minus {bid})", { n: step.tricks[step.declarer], bid: step.bid }) }),
      ". ", t("Totals: {totals}.", { totals: step.totals.map((p, s) => `${seatName(view, s)} ${p}`).join(", ") }), " ");
    if (step.leaders_after?.length === 1) text.push(el("strong", { text: t("{name} leads alone: the tie is broken.", { name: seatName(view, step.leaders_after[0]) }) }));
    else if (step.leaders_after) text.push(el("strong", { text: t("Still tied: {names}; one more deal.", { names: names(view, step.leaders_after) }) }));
    return { text, versions: step.versions, version: step.versions[step.versions.length - 1] };
  });
}

const ROYLET_REASON = {
  forbidden_capture: "the Allies captured a forbidden combination (the king of hearts with a jack, or three jacks)",
};

function roylet(view, tie) {
  const steps = tie.steps.map((step) => {
    const c = step.cards || {};
    const text = [t("Battle {n}:", { n: step.battle }), " "];
    if (c.down) text.push(el("span", { class: "step-seat" }, `${seatName(view, c.down.seat)} `, cardText(c.down.card, { down: true }), ` ${t("face down")}`), ", ");
    if (c.up) text.push(el("span", { class: "step-seat" }, `${seatName(view, c.up.seat)} `, cardText(c.up.card)), ", ");
    if (c.king) text.push(el("span", { class: "step-seat" }, `${t("King")} ${seatName(view, c.king.seat)} `, cardText(c.king.card)), ": ");
    text.push(step.taker === "allies" ? t("the Allies take it") : t("the King takes it"));
    if (step.captured?.length) text.push(", ", t("capturing"), " ", step.captured.map((x) => [cardText(x), " "]));
    text.push(".");
    return { text, versions: step.versions, version: stepVersion(step) };
  });
  const reason = t(ROYLET_REASON[tie.reason] || tie.reason);
  const end = [el("strong", { text: t("Round {n} is void: {reason}.", { n: tie.round, reason }) }), " ",
    t("Tricks: King {k}, Allies {a}.", { k: tie.tricks?.king ?? "?", a: tie.tricks?.allies ?? "?" }), " ",
    tie.penalty ? [t("The King lost the king of hearts and handed a trick to the Allies:"), " ", tie.penalty.trick.map((x) => [cardText(x), " "])] : "",
    tie.replayed_by_round ? t("It is replayed as round {n}.", { n: tie.replayed_by_round }) : ""];
  const lastVersions = tie.penalty ? [tie.penalty.version] : steps.length ? steps[steps.length - 1].versions : tie.versions;
  return [...steps, { text: end, versions: lastVersions, version: lastVersions[lastVersions.length - 1] }];
}

function generic(view, tie) {
  return tie.steps.map((step) => ({ text: [JSON.stringify({ ...step, versions: undefined })], versions: step.versions, version: stepVersion(step) }));
}

const STORIES = { bataille, batayo, batak, roylet };

/** A tie's title in words: "Round 11 · bob and cy · cy takes 7 cards". */
export function tieTitle(view, tie) {
  const kind = { bataille: t("Bataille"), batayo: "BATAYO", sudden_death: t("Sudden death"), extra_deal: t("Tie-break deals"), void_round: t("Void round") }[tie.kind] || tie.kind;
  const parts = [kind];
  if (tie.round !== null && tie.round !== undefined) parts.push(t("round {n}", { n: tie.round }));
  parts.push(names(view, tie.players));
  if (tie.winner !== null && tie.winner !== undefined) parts.push(t("won by {name}", { name: seatName(view, tie.winner) }));
  return parts.join(" · ");
}

export function tieSteps(view, tie) {
  return (STORIES[view.game] || generic)(view, tie);
}

// cards.js: drawing cards. Faces and backs are SVG-cards (cards/svg-cards.svg, LGPL-2.1, see
// cards/LICENSE), served by the service: each card is an <svg> that <use>s one symbol of it.
//
// A card is written as in the API: rank then suit, "QH", "10S", "7D", "AC". null is a card
// nobody may see (face down). Hearts and diamonds are red, spades and clubs black.

import { cardName, t } from "./i18n.js";

export const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
const SYMBOL_SUIT = { S: "spade", H: "heart", D: "diamond", C: "club" };
const SYMBOL_RANK = { A: "1", J: "jack", Q: "queen", K: "king" };
const CARD = /^(10|[2-9JQKA])([SHDC])$/;
const SHEET = "/web/static/cards/svg-cards.svg";
const SVG_NS = "http://www.w3.org/2000/svg";

/** "QH" -> {rank: "Q", suit: "H"}; anything else -> null. */
export function parseCard(code) {
  const match = typeof code === "string" ? CARD.exec(code) : null;
  return match ? { rank: match[1], suit: match[2] } : null;
}

export const isRed = (suit) => suit === "H" || suit === "D";

/** A small helper to build elements: el("div", {class: "x", text: "hi"}, child, ...). */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "text") node.textContent = value;
    else if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(node.dataset, value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** The SVG picture of a card (or of a back, for null). */
function picture(card) {
  const svg = document.createElementNS(SVG_NS, "svg");
  svg.setAttribute("viewBox", "0 0 169.075 244.64");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  const use = document.createElementNS(SVG_NS, "use");
  const id = card ? `${SYMBOL_SUIT[card.suit]}_${SYMBOL_RANK[card.rank] || card.rank}` : "back";
  use.setAttribute("href", `${SHEET}#${id}`);
  svg.append(use);
  return svg;
}

/**
 * A card as a DOM element. `code` null (or unknown) draws its back.
 * options: small (a smaller card), note (a short caption under it), known (a face-down card
 * the caller may see: drawn face up, marked "face down"), flip (animate its reveal).
 */
export function cardEl(code, { small = false, note, known = false, flip = false } = {}) {
  const card = parseCard(code);
  const size = small ? " small" : "";
  const motion = flip ? " flip" : "";
  if (!card) {
    return el(
      "div",
      { class: `card back${size}${motion}`, role: "img", "aria-label": note ? `${t("face-down card")} (${note})` : t("face-down card"), title: note || t("face down"), dataset: { card: "" } },
      picture(null),
      note ? el("span", { class: "card-note" }, note) : null,
    );
  }
  const colour = isRed(card.suit) ? "red" : "black";
  const label = cardName(code) + (known ? ` (${t("face down")})` : "") + (note ? `, ${note}` : "");
  return el(
    "div",
    { class: `card ${colour}${size}${known ? " known" : ""}${motion}`, role: "img", "aria-label": label, title: label, dataset: { card: code } },
    picture(card),
    known ? el("span", { class: "down-mark", "aria-hidden": "true", text: t("face down") }) : null,
    note ? el("span", { class: "card-note" }, note) : null,
  );
}

/**
 * A card written inline in text: "Q♥" in its colour. `down` marks a card that was put face
 * down; unknown cards show as "🂠".
 */
export function cardText(code, { down = false } = {}) {
  const card = parseCard(code);
  if (!card) {
    return el("span", { class: `ctext hidden${down ? " down" : ""}`, title: t("face down"), "aria-label": t("face-down card"), text: "🂠" });
  }
  const label = cardName(code) + (down ? ` (${t("face down")})` : "");
  return el("span", {
    class: `ctext ${isRed(card.suit) ? "red" : "black"}${down ? " down" : ""}`,
    title: label,
    "aria-label": label,
    dataset: { card: code },
    text: card.rank + SUITS[card.suit],
  });
}

/** A suit letter ("S") written as its symbol in its colour. */
export function suitText(letter) {
  if (!SUITS[letter]) return document.createTextNode(String(letter ?? "–"));
  return el("span", { class: `ctext ${isRed(letter) ? "red" : "black"}`, title: t(`suit:${letter}`), text: SUITS[letter] });
}

/** A row of cards that wraps. */
export function cardRow(nodes, extraClass = "") {
  return el("div", { class: `card-row ${extraClass}`.trim() }, nodes);
}

/** Replace a node's children, leaving out null, undefined and false (optional parts). */
export function fill(node, ...children) {
  node.replaceChildren(...children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false));
  return node;
}

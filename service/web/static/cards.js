// cards.js: drawing cards with plain DOM and CSS (style.css, ".card").
//
// A card is written as in the API: rank then suit, "QH", "10S", "7D", "AC". null is a card
// nobody may see (face down). Hearts and diamonds are red, spades and clubs black.

export const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
export const SUIT_NAMES = { S: "spades", H: "hearts", D: "diamonds", C: "clubs" };
const RANK_NAMES = { A: "ace", K: "king", Q: "queen", J: "jack" };
const CARD = /^(10|[2-9JQKA])([SHDC])$/;

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
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** The card's name in words, for screen readers and tooltips: "queen of hearts". */
export function cardName(code) {
  const card = parseCard(code);
  if (!card) return "face-down card";
  return `${RANK_NAMES[card.rank] || card.rank} of ${SUIT_NAMES[card.suit]}`;
}

/**
 * A card as a DOM element. `code` null (or unknown) draws its back.
 * options: small (a smaller card), note (a short caption under it), known (a face-down card
 * the caller may see: drawn face up with a dashed border).
 */
export function cardEl(code, { small = false, note, known = false } = {}) {
  const card = parseCard(code);
  const size = small ? " small" : "";
  if (!card) {
    return el(
      "div",
      { class: `card back${size}`, role: "img", "aria-label": "face-down card", title: note || "face down", dataset: { card: "" } },
      note ? el("span", { class: "card-note" }, note) : null,
    );
  }
  const suit = SUITS[card.suit];
  const colour = isRed(card.suit) ? "red" : "black";
  const face = "JQK".includes(card.rank);
  return el(
    "div",
    {
      class: `card ${colour}${size}${known ? " known" : ""}${face ? " face" : ""}`,
      role: "img",
      "aria-label": cardName(code) + (known ? " (face down)" : ""),
      title: cardName(code) + (note ? ` (${note})` : known ? " (face down, you may see it)" : ""),
      dataset: { card: code },
    },
    el("span", { class: "corner tl" }, el("b", { text: card.rank }), el("i", { text: suit })),
    el("span", { class: "pip" }, face ? el("span", { class: "face-box", text: card.rank + suit }) : suit),
    el("span", { class: "corner br" }, el("b", { text: card.rank }), el("i", { text: suit })),
    note ? el("span", { class: "card-note" }, note) : null,
  );
}

/** A card written inline in text: "Q♥" in its colour. Unknown cards show as "🂠". */
export function cardText(code) {
  const card = parseCard(code);
  if (!card) return el("span", { class: "ctext hidden", title: "face down", text: "🂠" });
  return el("span", {
    class: `ctext ${isRed(card.suit) ? "red" : "black"}`,
    title: cardName(code),
    dataset: { card: code },
    text: card.rank + SUITS[card.suit],
  });
}

/** A suit letter ("S") written as its symbol in its colour. */
export function suitText(letter) {
  if (!SUITS[letter]) return document.createTextNode(String(letter ?? "–"));
  return el("span", { class: `ctext ${isRed(letter) ? "red" : "black"}`, title: SUIT_NAMES[letter], text: SUITS[letter] });
}

/** A row of cards that wraps. */
export function cardRow(nodes, extraClass = "") {
  return el("div", { class: `card-row ${extraClass}`.trim() }, nodes);
}

/** Replace a node's children, leaving out null, undefined and false (optional parts). */
export function fill(node, ...children) {
  node.replaceChildren(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
  return node;
}

// i18n.js: the interface in English, French and Turkish. The language is the one chosen on
// the page (kept in this browser), else the browser's (navigator.languages), else English.
// Texts are keyed by their English wording; `{name}` marks a value put in by `t`.

import { STRINGS } from "./strings.js";

export const LANGS = { en: "English", fr: "Français", tr: "Türkçe" };
const KEY = "batayo.lang";
const SPECIAL_EN = {
  "suit:S": "spades", "suit:H": "hearts", "suit:D": "diamonds", "suit:C": "clubs",
  "rank:A": "ace", "rank:K": "king", "rank:Q": "queen", "rank:J": "jack",
};

function chosen() {
  try {
    const saved = localStorage.getItem(KEY);
    if (saved && LANGS[saved]) return saved;
  } catch {
    /* no storage: the browser's language */
  }
  for (const tag of navigator.languages || [navigator.language || "en"]) {
    const base = String(tag).slice(0, 2).toLowerCase();
    if (LANGS[base]) return base;
  }
  return "en";
}

export const lang = chosen();
document.documentElement.lang = lang;

/** Texts asked for that have no translation in the page's language (the tests read it). */
window.__i18nMissing = window.__i18nMissing || new Set();

/** The text for `key` in the page's language, with `{name}`s replaced from `vars`. */
export function t(key, vars = {}) {
  let text;
  if (lang === "en") text = STRINGS.en[key] ?? SPECIAL_EN[key] ?? key;
  else {
    text = STRINGS[lang]?.[key];
    if (text === undefined) {
      window.__i18nMissing.add(key);
      text = SPECIAL_EN[key] ?? key;
    }
  }
  return text.replace(/\{(\w+)\}/g, (_, name) => (vars[name] === undefined ? `{${name}}` : String(vars[name])));
}

/** "QH" -> "queen of hearts" (dame de cœur, kupa kızı). */
export function cardName(code) {
  const match = /^(10|[2-9JQKA])([SHDC])$/.exec(code || "");
  if (!match) return t("face-down card");
  const rank = "AKQJ".includes(match[1]) ? t(`rank:${match[1]}`) : match[1];
  return t("{rank} of {suit}", { rank, suit: t(`suit:${match[2]}`) });
}

/** The text for `key` when the page's language has one, else null (not recorded as missing:
 * for keys made from data, a bot, an option or an event type, with a fallback of their own). */
export function known(key, vars) {
  const table = lang === "en" ? { ...SPECIAL_EN, ...STRINGS.en } : STRINGS[lang] || {};
  return table[key] === undefined ? null : t(key, vars);
}

/** A bot's name in words: "greedy" -> "greedy" (glouton, açgözlü). */
export function botName(bot) {
  return known(`bot:${bot}`) ?? bot;
}

/** An option's name in words: "first_dealer" -> "first dealer" (premier donneur, ilk dağıtan). */
export function optionName(name) {
  return known(`option:${name}`) ?? name.replaceAll("_", " ");
}

/** An option's value in words: true -> "yes", "sans_inconnue" -> "sans inconnue"; `seat`
 * names a seat (the options that are seat numbers). */
export function optionValue(name, value, seat = (s) => String(s)) {
  if (value === true) return t("yes");
  if (value === false) return t("no");
  if (name === "first_dealer") return seat(value);
  if (name === "timeout_bot") return botName(value);
  if (name.endsWith("_s") && typeof value === "number") return t("{n} s", { n: value });
  if (name.endsWith("_ms") && typeof value === "number") return t("{n} ms", { n: value });
  if (typeof value === "string") {
    return known(`value:${value}`) ?? value.replaceAll("_", " ");
  }
  return String(value);
}

/** A text in the page's language from an API `{en, fr, tr}` object (English if missing). */
export function pick(words) {
  if (!words) return "";
  return words[lang] || words.en || "";
}

/** The language switch of the top bar: choosing one reloads the page in it. */
export function langPicker() {
  const select = document.createElement("select");
  select.id = "lang";
  select.setAttribute("aria-label", t("Language"));
  for (const [code, name] of Object.entries(LANGS)) {
    const option = document.createElement("option");
    option.value = code;
    option.textContent = name;
    option.selected = code === lang;
    select.append(option);
  }
  select.addEventListener("change", () => {
    localStorage.setItem(KEY, select.value);
    location.reload();
  });
  return select;
}

/** Fill every element with `data-i18n="English text"` in the page's language. */
export function translatePage() {
  for (const node of document.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
  for (const node of document.querySelectorAll("[data-i18n-label]")) node.setAttribute("aria-label", t(node.dataset.i18nLabel));
  for (const node of document.querySelectorAll("[data-i18n-title]")) node.setAttribute("title", t(node.dataset.i18nTitle));
  for (const node of document.querySelectorAll("[data-i18n-placeholder]")) node.setAttribute("placeholder", t(node.dataset.i18nPlaceholder));
  document.getElementById("lang-slot")?.replaceChildren(langPicker());
}

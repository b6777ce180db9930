// list.js: the front page. The games this browser holds a seat in (their tokens are kept here:
// GET /v1/games/{id} with each), a game against bots in one click, the open games waiting for a
// player (GET /v1/games?waiting=1, POST join), the list of games (GET /v1/games, filtered by game
// and status, newest first, paged) and a form to start a game (GET /v1/rules for the games,
// their rules, options and bots; POST /v1/games).

import * as API from "./api.js";
import { el, fill } from "./cards.js";
import { botName, optionName, optionValue, pick, t, translatePage } from "./i18n.js";

const $ = (id) => document.getElementById(id);
const PAGE = 20;
let rules = []; // GET /v1/rules: [{id, title, seats: {min, max}, options: [...], bots: [...]}]
let offset = 0;

// The form's own defaults where a person is at the table (seat 0 always is): the bots at a pace
// one can follow, about half a second a move (the API's default is the server's, often 0).
const FORM_DEFAULTS = { bot_pace_ms: 500 };

const titleOf = (game) => rules.find((g) => g.id === game)?.title || game;

function seatLabel(seat) {
  if (seat.name) return seat.name;
  if (seat.bot) return t("{bot} bot {seat}", { bot: botName(seat.bot), seat: seat.seat });
  return t("open seat");
}

// ---- the list -----------------------------------------------------------------------------

async function loadGames() {
  const filters = { game: $("filter-game").value, status: $("filter-status").value };
  // Keep the filters in the address, so a filtered list can be bookmarked or shared.
  const q = API.query({ ...filters, offset: offset || "" });
  history.replaceState(null, "", `/${q}`);
  try {
    const page = await API.listGames({ ...filters, limit: PAGE, offset });
    renderGames(page.games);
    $("newer").disabled = offset === 0;
    $("older").disabled = page.next_offset === null;
    $("older").onclick = () => ((offset = page.next_offset), loadGames());
  } catch (error) {
    fill($("games"), el("li", { class: "error", text: t("Could not list games: {why}", { why: error.message }) }));
  }
}

function ago(iso) {
  const s = Math.max(0, (Date.now() - Date.parse(iso)) / 1000);
  if (s < 60) return t("just now");
  if (s < 3600) return t("{n} min ago", { n: Math.floor(s / 60) });
  if (s < 86400) return t("{n} h ago", { n: Math.floor(s / 3600) });
  return new Date(iso).toLocaleDateString();
}

function renderGames(games) {
  if (!games.length) {
    fill($("games"), el("li", { class: "muted", text: t("No game matches.") }));
    return;
  }
  fill($("games"), 
    ...games.map((g) => {
      const names = g.seats.map(seatLabel);
      let result = "";
      if (g.result) {
        result = g.result.draw
          ? t("A draw")
          : t("Won by {names}", { names: g.result.winners.map((s) => names[s]).join(t(" and ")) });
        result += ` (${g.result.reason.replaceAll("_", " ")})`;
      }
      return el(
        "li",
        { class: "game-row", dataset: { id: g.id, game: g.game, status: g.status } },
        el(
          "a",
          { href: `/games/${g.id}` },
          el("span", { class: "game-name", text: titleOf(g.game) }),
          el("span", { class: `badge status-${g.status}`, text: t(`status:${g.status}`) }),
          el("span", { class: "game-seats", text: names.join(" · ") }),
          el("span", { class: "muted small", text: `v${g.version} · ${ago(g.created_at)} · ${g.id}` }),
          result ? el("span", { class: "game-result", text: result }) : null,
        ),
      );
    }),
  );
}

// ---- the new-game form --------------------------------------------------------------------

/** One input per option, from its rules: a choice list, a number, or a checkbox. */
function optionInput(option) {
  const name = `opt-${option.name}`;
  let input;
  if (option.choices) {
    input = el(
      "select",
      { id: name, name: option.name },
      option.nullable ? el("option", { value: "", text: t("none") }) : null,
      option.choices.map((c) => el("option", { value: String(c), text: optionValue(option.name, c), selected: c === option.default })),
    );
  } else if (option.type === "boolean") {
    input = el("input", { id: name, name: option.name, type: "checkbox", checked: option.default === true });
  } else if (option.type === "integer") {
    input = el("input", {
      id: name,
      name: option.name,
      type: "number",
      inputmode: "numeric",
      min: option.min,
      max: option.max,
      value: FORM_DEFAULTS[option.name] ?? option.default ?? "",
      placeholder: option.nullable ? t("none") : "",
    });
  } else {
    input = el("input", { id: name, name: option.name, value: option.default ?? "" });
  }
  // The option's meaning is written under it (no tooltip: a phone has no hover).
  const help = pick(option.docs) || option.doc || "";
  const helpId = `${name}-help`;
  if (help) input.setAttribute("aria-describedby", helpId);
  return el("div", { class: "option-block" },
    el("label", { class: "option", for: name }, el("span", { text: optionName(option.name) }), input),
    help ? el("p", { class: "option-help", id: helpId, text: help }) : null);
}

/** The option values as the API wants them: typed, and left out when blank (the default). */
function optionValues(game) {
  const out = {};
  for (const option of game.options) {
    const input = $(`opt-${option.name}`);
    if (option.type === "boolean") out[option.name] = input.checked;
    else if (input.value === "") continue;
    else out[option.name] = option.type === "integer" ? Number(input.value) : input.value;
  }
  return out;
}

/** How many seats: the `players` option when the game has one (as chosen in the form, else its
 * default), else its fixed seat count. */
function seatCount(game, chosen = $("opt-players")?.value) {
  const players = game.options.find((o) => o.name === "players");
  if (players) return Number(chosen || players.default);
  return game.seats.min;
}

function renderSeats(game) {
  const rows = [];
  for (let seat = 0; seat < seatCount(game); seat++) {
    if (seat === 0) {
      rows.push(el("label", { class: "option" }, el("span", { text: t("seat 0 (you)") }),
        el("input", { id: "seat-0", name: "you", value: "", placeholder: t("your name"), maxlength: 40 })));
    } else {
      rows.push(el("label", { class: "option" }, el("span", { text: t("seat {seat}", { seat }) }),
        el("select", { id: `seat-${seat}`, class: "seat-choice" },
          game.bots.map((b) => el("option", { value: `bot:${b}`, text: t("{bot} bot", { bot: botName(b) }), selected: b === "greedy" })),
          el("option", { value: "open", text: t("open (a friend joins with the invite link)") }))));
    }
  }
  fill($("new-game-seats"), el("legend", { text: t("seats") }), ...rows);
}

function renderForm() {
  const game = rules.find((g) => g.id === $("new-game-game").value);
  fill($("new-game-options"), el("legend", { text: t("options") }), ...game.options.map(optionInput));
  const text = pick(game.rules);
  $("new-game-rules").hidden = !text;
  fill($("new-game-rules-body"), text ? text.split("\n").map((p) => el("p", { text: p })) : []);
  $("opt-players")?.addEventListener("change", () => renderSeats(game));
  renderSeats(game);
}

async function create(e) {
  e.preventDefault();
  const game = rules.find((g) => g.id === $("new-game-game").value);
  const seats = [{ name: $("seat-0").value.trim() || t("Player 1") }];
  for (let seat = 1; seat < seatCount(game); seat++) {
    const choice = $(`seat-${seat}`).value;
    seats.push(choice === "open" ? { open: true } : { bot: choice.slice(4) });
  }
  const body = { game: game.id, options: optionValues(game), seats };
  $("create").disabled = true;
  $("new-game-message").textContent = "";
  try {
    const created = await API.createGame(body);
    // The token of a human seat is shown only once: keep it in this browser for the game page.
    API.saveToken(created.id, created.seats[0].token);
    location.href = `/games/${created.id}`;
  } catch (error) {
    $("new-game-message").textContent = t("Could not start: {why}", { why: error.message });
    $("create").disabled = false;
  }
}

/** Start `game` with its default options, you in seat 0 and a bot of its default level in
 * every other seat, and go to its table. */
async function playAgainstBots(game) {
  const level = game.bots.includes("greedy") ? "greedy" : game.bots[0];
  const bots = Array.from({ length: seatCount(game, "") - 1 }, () => ({ bot: level }));
  const name = $("seat-0")?.value.trim() || t("Player 1");
  $("quick-message").textContent = "";
  try {
    const created = await API.createGame({ game: game.id, options: {}, seats: [{ name }, ...bots] });
    API.saveToken(created.id, created.seats[0].token);
    location.href = `/games/${created.id}`;
  } catch (error) {
    $("quick-message").textContent = t("Could not start: {why}", { why: error.message });
  }
}

function renderQuick() {
  fill($("quick-games"), ...rules.map((game) =>
    el("button", { type: "button", class: "quick", dataset: { game: game.id }, onclick: () => playAgainstBots(game) },
      t("{game} against bots", { game: game.title }))));
}

// ---- my games: the seats whose tokens this browser keeps -----------------------------------

const MINE = 30; // the most recent seats shown (each is one request)

async function loadMine() {
  const tokens = API.savedTokens();
  const ids = Object.keys(tokens).slice(-MINE).reverse(); // the most recently saved first
  const views = await Promise.all(ids.map(async (id) => {
    try {
      return await API.getGame(id, { token: tokens[id] });
    } catch (error) {
      // The game is gone or the token refused: there is nothing to resume there any more.
      if ([401, 403, 404].includes(error.status)) API.saveToken(id, "");
      return null;
    }
  }));
  const mine = views.filter((v) => v && v.you !== null && v.you !== undefined);
  $("mine").hidden = !mine.length;
  fill($("my-games"), ...mine.map((v) => {
    const turn = v.status === "playing" && v.legal_actions.length > 0;
    return el("li", { class: "mine-row", dataset: { id: v.id, status: v.status } },
      el("a", { class: "resume", href: `/games/${v.id}` },
        el("span", { class: "game-name", text: titleOf(v.game) }), " ",
        el("span", { class: `badge status-${v.status}`, text: t(`status:${v.status}`) }),
        turn ? el("span", { class: "badge turn", text: t("your move") }) : null, " ",
        el("span", { class: "game-seats", text: v.seats.map(seatLabel).join(" · ") })),
      el("a", { class: "button primary", href: `/games/${v.id}`, text: v.status === "finished" ? t("See it") : t("Resume") }),
      el("button", {
        type: "button", class: "small-btn forget", title: t("This browser forgets the seat's token"),
        onclick: () => (API.saveToken(v.id, ""), loadMine()),
      }, t("Remove")));
  }));
}

// ---- open games: a seat to take ------------------------------------------------------------

async function loadOpen() {
  try {
    // The games waiting for a player, newest first; the server leaves out those idle too long.
    const page = await API.listGames({ waiting: 1, limit: PAGE });
    const open = page.games;
    if (!open.length) {
      fill($("open-games"), el("li", { class: "muted", text: t("No open game now. Start one with an open seat and share its link.") }));
      return;
    }
    fill($("open-games"), ...open.map((g) => {
      const nameId = `join-name-${g.id}`;
      return el("li", { class: "open-row", dataset: { id: g.id } },
        el("a", { href: `/games/${g.id}` }, el("span", { class: "game-name", text: titleOf(g.game) }), " ",
          el("span", { class: "game-seats", text: g.seats.map(seatLabel).join(" · ") })),
        API.savedToken(g.id)
          ? el("a", { class: "button", href: `/games/${g.id}`, text: t("Resume") })
          : el("form", { class: "row-form", onsubmit: (e) => joinOpen(e, g.id, nameId) },
            el("label", { class: "sr-only", for: nameId, text: t("your name") }),
            el("input", { id: nameId, maxlength: 40, required: true, placeholder: t("your name") }),
            el("button", { type: "submit", class: "primary", text: t("Take the seat") })));
    }));
  } catch (error) {
    fill($("open-games"), el("li", { class: "error", text: t("Could not list games: {why}", { why: error.message }) }));
  }
}

async function joinOpen(e, id, nameId) {
  e.preventDefault();
  try {
    const joined = await API.joinGame(id, { name: $(nameId).value.trim() });
    API.saveToken(id, joined.token);
    location.href = `/games/${id}`;
  } catch (error) {
    $("page-error").hidden = false;
    $("page-error").textContent = t("Could not join: {why}", { why: error.message });
    loadOpen();
  }
}

// ---- start --------------------------------------------------------------------------------

async function start() {
  translatePage();
  try {
    rules = (await API.rules()).games;
  } catch (error) {
    $("page-error").hidden = false;
    $("page-error").textContent = t("The service does not answer: {why}", { why: error.message });
    return;
  }
  const params = new URLSearchParams(location.search);
  for (const g of rules) {
    $("filter-game").append(el("option", { value: g.id, text: g.title }));
    $("new-game-game").append(el("option", { value: g.id, text: g.title, selected: g.id === "batayo" }));
  }
  $("filter-game").value = params.get("game") || "";
  $("filter-status").value = params.get("status") || "";
  offset = Number(params.get("offset")) || 0;
  for (const id of ["filter-game", "filter-status"]) {
    $(id).addEventListener("change", () => ((offset = 0), loadGames()));
  }
  $("refresh").addEventListener("click", loadGames);
  $("newer").addEventListener("click", () => ((offset = Math.max(0, offset - PAGE)), loadGames()));
  $("new-game-game").addEventListener("change", renderForm);
  $("new-game").addEventListener("submit", create);
  renderForm();
  renderQuick();
  await Promise.all([loadMine(), loadGames(), loadOpen()]);
  // Keep the lists fresh while the tab is visible.
  // (not the open games while a name is being typed into one of them)
  setInterval(() => {
    if (document.visibilityState !== "visible") return;
    loadGames();
    if (!document.activeElement?.closest("#open-games")) loadOpen();
  }, 5000);
  // My games cost a request each: again when the tab comes back, and now and then.
  document.addEventListener("visibilitychange", () => document.visibilityState === "visible" && loadMine());
  setInterval(() => document.visibilityState === "visible" && loadMine(), 30000);
}

start();

// game.js: one game's page. Watch it live, replay any version, audit its ties and its
// fairness, and, with a seat's token, play it.
//
// Everything comes from the public API (api.js):
//   GET  /v1/games/{id}            the view now, as a spectator or as the token's seat
//   GET  /v1/games/{id}?at=N       the same view as of version N (the timeline)
//   GET  /v1/games/{id}/events     the event at the version shown (the line under the slider)
//   GET  /v1/games/{id}/stream     live events while the game runs (the `id:` is the version)
//   GET  /v1/games/{id}/ties       every tie, step by step, with the versions of each step
//   GET  /v1/games/{id}/verify     the hash chain and every random draw, checked
//   POST /v1/games/{id}/actions    one of the view's `legal_actions`, exactly as listed
//   POST /v1/games/{id}/join       take an open seat

import * as API from "./api.js";
import { cardEl, cardRow, cardText, el, fill, parseCard, suitText } from "./cards.js";
import { renderTable, seatName } from "./tables.js";

const TITLES = { bataille: "La Bataille", batayo: "BATAYO", batak: "Batak", roylet: "BatailleRoylet" };
const $ = (id) => document.getElementById(id);

const gameId = location.pathname.split("/").filter(Boolean).pop();

// The page's whole state. `view` is the view on screen (at version `view.version`); `latest`
// is the newest version known; `following` means "show the latest as it comes" (live).
const page = {
  token: "",
  view: null,
  latest: 0,
  status: null,
  following: true,
  stream: null,
  request: 0, // increases with every view request: only the newest answer is shown
  autoplay: null,
  eventCache: new Map(),
  busy: false, // an action is being posted
};

// ---- start --------------------------------------------------------------------------------

async function start() {
  // A token may come in the address (?token=...): keep it in this browser, drop it from the URL
  // so it is not shared by copying the address.
  const params = new URLSearchParams(location.search);
  if (params.get("token")) {
    API.saveToken(gameId, params.get("token"));
    params.delete("token");
    const rest = params.toString();
    history.replaceState(null, "", location.pathname + (rest ? `?${rest}` : "") + location.hash);
  }
  page.token = API.savedToken(gameId);
  wireControls();

  let view;
  try {
    view = await API.getGame(gameId, { token: page.token });
  } catch (error) {
    if (page.token && (error.status === 401 || error.status === 403)) {
      // A stale or foreign token: forget it and watch as a spectator.
      API.saveToken(gameId, "");
      page.token = "";
      setMessage(`That token is not valid for this game (${error.code}); watching as a spectator.`);
      view = await API.getGame(gameId).catch(showFatal);
    } else {
      showFatal(error);
      return;
    }
  }
  if (!view) return;
  page.latest = view.version;
  page.status = view.status;
  show(view);
  loadTies();
  loadVerify();
  if (view.status !== "finished") startStream();
  setInterval(tickClocks, 1000);
}

function showFatal(error) {
  const box = $("page-error");
  box.hidden = false;
  box.textContent =
    error.status === 404 ? "No such game." : `Could not load the game: ${error.message}`;
  $("game-title").textContent = "";
}

// ---- live updates -------------------------------------------------------------------------

/** Follow the stream from the latest version; each event moves `latest` on. */
function startStream() {
  page.stream?.stop();
  page.stream = API.follow(gameId, {
    after: page.latest,
    token: page.token,
    onEvent(event) {
      page.eventCache.set(event.version, event); // the line under the slider needs no request
      page.latest = Math.max(page.latest, event.version);
      updateTimeline();
      // Our own action's answer already showed its events; fetch only for newer ones.
      if (page.following && event.version > (page.view?.version ?? 0)) refreshLive();
      if (/bataille|batayo|sudden|void|extra|tie|ended/.test(event.type)) scheduleTies();
      scheduleVerify();
    },
    onEnd() {
      page.status = "finished";
      page.eventCache.clear(); // after the end everybody sees every event in full
      refreshLive();
      loadTies();
      loadVerify();
    },
    onState(state) {
      $("live-state").textContent = { live: "● live", reconnecting: "reconnecting…", ended: "", stopped: "" }[state] ?? "";
      $("live-state").className = `live-state ${state}`;
    },
  });
}

// Fetch the current view when events come: at most one request at a time and one every
// LIVE_GAP_MS, however fast the bots play (the API is rate-limited per client and per token).
const LIVE_GAP_MS = 200;
let liveTimer = null;
let liveInFlight = false;
let livePending = false;
let lastLiveFetch = 0;

function refreshLive() {
  if (liveTimer || liveInFlight) {
    livePending = true;
    return;
  }
  liveTimer = setTimeout(fetchLive, Math.max(0, lastLiveFetch + LIVE_GAP_MS - Date.now()));
}

async function fetchLive() {
  liveTimer = null;
  liveInFlight = true;
  livePending = false;
  lastLiveFetch = Date.now();
  let retryIn = 0;
  try {
    const view = await API.getGame(gameId, { token: page.token });
    page.latest = Math.max(page.latest, view.version);
    page.status = view.status;
    // Never step back: an answer older than the view on screen (say, our own action's answer
    // came first) would show legal actions that are already used.
    if (page.following && view.version >= (page.view?.version ?? 0)) show(view);
    else updateTimeline();
  } catch (error) {
    if (error.status === 429) retryIn = (error.problem?.retry_after || 1) * 1000;
    else setMessage(`Could not refresh: ${error.message}`);
  } finally {
    liveInFlight = false;
    if (retryIn) setTimeout(refreshLive, retryIn);
    else if (livePending) refreshLive();
  }
}

// ---- the timeline -------------------------------------------------------------------------

/** Show version `version` (clamped to 1..latest); the latest one means "follow live". */
async function goTo(version, { keepAutoplay = false } = {}) {
  if (!keepAutoplay) stopAutoplay();
  const target = Math.max(1, Math.min(page.latest, Math.round(version)));
  page.following = target === page.latest;
  const ticket = ++page.request;
  $("slider").value = String(target);
  try {
    const view = page.following
      ? await API.getGame(gameId, { token: page.token })
      : await API.getGame(gameId, { at: target, token: page.token });
    if (ticket !== page.request) return; // a newer request was made meanwhile
    page.latest = Math.max(page.latest, view.version);
    show(view);
  } catch (error) {
    if (ticket === page.request) setMessage(`Could not load version ${target}: ${error.message}`);
  }
}

function stopAutoplay() {
  if (page.autoplay) {
    clearInterval(page.autoplay);
    page.autoplay = null;
    $("play").textContent = "▷ play";
    $("play").setAttribute("aria-label", "replay");
  }
}

/** Replay from the version shown (or from the start at the end), one version at a time. */
function toggleAutoplay() {
  if (page.autoplay) return stopAutoplay();
  if (page.view.version >= page.latest) goTo(1, { keepAutoplay: true });
  $("play").textContent = "❙❙ pause";
  $("play").setAttribute("aria-label", "pause");
  page.autoplay = setInterval(() => {
    if (page.view.version >= page.latest) return stopAutoplay();
    goTo(page.view.version + 1, { keepAutoplay: true });
  }, 600);
}

/** Replay a list of versions (a tie's), one by one. */
function playVersions(versions) {
  stopAutoplay();
  let i = 0;
  goTo(versions[i], { keepAutoplay: true });
  $("play").textContent = "❙❙ pause";
  page.autoplay = setInterval(() => {
    i += 1;
    if (i >= versions.length) return stopAutoplay();
    goTo(versions[i], { keepAutoplay: true });
  }, 700);
}

function wireControls() {
  const slider = $("slider");
  slider.addEventListener("input", () => goTo(Number(slider.value)));
  $("first").addEventListener("click", () => goTo(1));
  $("prev").addEventListener("click", () => goTo(page.view.version - 1));
  $("next").addEventListener("click", () => goTo(page.view.version + 1));
  $("last").addEventListener("click", () => goTo(page.latest));
  $("play").addEventListener("click", toggleAutoplay);
  document.addEventListener("keydown", (e) => {
    if (!page.view || e.target.closest("input, textarea, select")) return;
    if (e.key === "ArrowLeft") goTo(page.view.version - 1);
    if (e.key === "ArrowRight") goTo(page.view.version + 1);
  });
  $("verify-again").addEventListener("click", loadVerify);
  $("token-form").addEventListener("submit", (e) => {
    e.preventDefault();
    useToken($("token-input").value.trim());
  });
  $("forget-token").addEventListener("click", () => useToken(""));
  $("join-form").addEventListener("submit", join);
}

/** Switch to another seat's token (or to watching, with ""), then reload what depends on it. */
async function useToken(token) {
  API.saveToken(gameId, token);
  page.token = token;
  $("token-input").value = "";
  page.eventCache.clear();
  try {
    const view = await API.getGame(gameId, { token });
    page.following = true;
    page.latest = view.version;
    show(view);
    setMessage(token ? "" : "Watching as a spectator.");
    loadTies();
    if (view.status !== "finished") startStream();
  } catch (error) {
    API.saveToken(gameId, "");
    page.token = "";
    setMessage(`That token does not work here (${error.code}).`);
    goTo(page.latest);
  }
}

async function join(e) {
  e.preventDefault();
  try {
    const joined = await API.joinGame(gameId, { name: $("join-name").value.trim() });
    await useToken(joined.token);
  } catch (error) {
    setMessage(`Could not join: ${error.message}`);
  }
}

// ---- drawing the view ---------------------------------------------------------------------

function show(view) {
  page.view = view;
  if (view.version >= page.latest) page.status = view.status;
  $("game-title").textContent = `${TITLES[view.game] || view.game} · ${view.id}`;
  document.title = `batayo · ${TITLES[view.game] || view.game} ${view.id}`;
  renderSummary(view);
  renderTableArea(view);
  renderYou(view);
  updateTimeline();
  renderEventLine(view.version);
  markActiveStep();
  $("join-form").hidden = !(view.status === "open" && !page.token);
}

function renderSummary(view) {
  const toMove = view.to_move.map((s) => seatName(view, s)).join(", ");
  const parts = [
    el("span", { class: `badge status-${view.status}`, text: view.status }),
    view.test ? el("span", { class: "badge test", title: "fixed seed or deal: not a fair game", text: "test game" }) : null,
    el("span", { class: "muted opts" }, `${Object.entries(view.options).filter(([, v]) => v !== null).map(([k, v]) => `${k}: ${v}`).join(" · ")}`),
  ];
  const lines = [el("div", { class: "summary-line" }, parts)];
  if (view.status === "playing" && toMove) lines.push(el("div", { class: "summary-line" }, "To move: ", el("strong", { text: toMove })));
  if (view.status === "open") lines.push(el("div", { class: "summary-line" }, "Waiting for players to join."));
  const clocks = Object.entries(view.clocks || {}).filter(([key]) => !key.startsWith("move:"));
  for (const [key, due] of clocks) lines.push(el("div", { class: "summary-line" }, `${key.replace("_", " ")}: `, clockEl(due)));
  if (view.result) lines.push(resultEl(view));
  fill($("summary"), ...lines);
}

function resultEl(view) {
  const r = view.result;
  const who = r.draw ? "A draw" : `Won by ${r.winners.map((s) => seatName(view, s)).join(" and ")}`;
  const extra = Object.entries(r)
    .filter(([k]) => !["winners", "draw", "reason"].includes(k))
    .map(([k, v]) => `${k.replace("_", " ")}: ${Array.isArray(v) ? v.join(", ") : typeof v === "object" ? JSON.stringify(v) : v}`);
  return el(
    "div",
    { class: "result", id: "result" },
    el("strong", { text: `${who}` }),
    ` (${r.reason.replaceAll("_", " ")})`,
    el("div", { class: "muted small", text: extra.join(" · ") }),
  );
}

/** The felt: a panel per seat (yours last, at the bottom) and the middle of the table. */
function renderTableArea(view) {
  const drawn = renderTable(view);
  const panels = view.seats.map((s) => seatPanel(view, s.seat, drawn.seats[s.seat]));
  const mine = view.you !== null && view.you !== undefined ? panels[view.you] : null;
  fill($("table"), 
    el("div", { class: "seats" }, panels.filter((p) => p !== mine)),
    el("div", { class: "center", id: "center" }, drawn.center),
    mine ? el("div", { class: "seats mine" }, mine) : null,
  );
  page.drawn = drawn;
}

function seatPanel(view, seat, part = { stats: [], cards: [], tags: [] }) {
  const moving = view.to_move.includes(seat);
  const won = view.result?.winners?.includes(seat);
  const clock = view.clocks?.[`move:${seat}`];
  return el(
    "div",
    {
      class: `seat${moving ? " to-move" : ""}${seat === view.you ? " you" : ""}${won ? " winner" : ""}`,
      dataset: { seat: String(seat) },
    },
    el(
      "div",
      { class: "seat-head" },
      el("span", { class: "seat-name", text: seatName(view, seat) }),
      seat === view.you ? el("span", { class: "badge you", text: "you" }) : null,
      moving ? el("span", { class: "badge turn", text: "to move" }) : null,
      won ? el("span", { class: "badge win", text: "winner" }) : null,
      clock ? clockEl(clock) : null,
    ),
    el("div", { class: "seat-stats" }, part.stats.map(([label, value]) => el("span", { class: "stat" }, `${label} `, el("b", {}, value)))),
    cardRow(part.cards, "seat-cards"),
    part.tags.length ? el("div", { class: "tags" }, part.tags.map((t) => el("span", { class: "tag", text: t }))) : null,
  );
}

// ---- clocks: the view's `clocks` map of ISO deadlines -------------------------------------

function clockEl(due) {
  return el("span", { class: "clock", dataset: { deadline: due }, title: `runs out at ${new Date(due).toLocaleTimeString()}` }, clockText(due));
}

/** Time left while following live; at an older version, the time the clock was due. */
function clockText(due) {
  const end = Date.parse(due);
  if (!page.following || page.status === "finished") return `due ${new Date(end).toLocaleTimeString()}`;
  const left = Math.max(0, Math.round((end - Date.now()) / 1000));
  const h = Math.floor(left / 3600);
  const m = Math.floor((left % 3600) / 60);
  const s = String(left % 60).padStart(2, "0");
  return `${h ? `${h}:${String(m).padStart(2, "0")}` : m}:${s} left`;
}

function tickClocks() {
  for (const node of document.querySelectorAll(".clock[data-deadline]")) {
    node.textContent = clockText(node.dataset.deadline);
  }
}

// ---- your seat: your cards and your legal actions -----------------------------------------

/** A readable label for an action body: {"type": "bid", "tricks": 6} -> "Bid 6". */
function actionLabel(action) {
  const parts = [];
  const { type, card, down, tricks, suit, face, ...rest } = action;
  parts.push(type.charAt(0).toUpperCase() + type.slice(1));
  if (card) parts.push(cardText(card));
  if (face) parts.push(` face ${face}`);
  if (down) parts.push(" (down ", cardText(down), ")");
  if (tricks !== undefined) parts.push(` ${tricks}`);
  if (suit) parts.push(" ", suitText(suit));
  for (const [k, v] of Object.entries(rest)) parts.push(` ${k}: ${v}`);
  return parts.flatMap((p, i) => (i && typeof p !== "string" ? [" ", p] : [p]));
}

function renderYou(view) {
  const section = $("you");
  const isSeat = view.you !== null && view.you !== undefined;
  section.hidden = !isSeat;
  if (!isSeat) return;
  const drawn = page.drawn;
  const atLatest = view.version === page.latest && page.following;
  const actions = atLatest ? view.legal_actions : [];
  // Actions by card: a hand card with exactly one action is itself the button.
  const byCard = new Map();
  for (const action of actions) {
    if (action.card) byCard.set(action.card, [...(byCard.get(action.card) || []), action]);
  }
  const hand = drawn.hand || [];
  const clickable = new Set(hand.filter((c) => byCard.get(c)?.length === 1));

  fill($("you-head"), 
    el("strong", { text: `You are ${seatName(view, view.you)}` }),
    ` (seat ${view.you})`,
    ...(drawn.notes || []).map((n) => el("span", { class: "note" }, " · ", n)),
    view.status === "playing" && atLatest
      ? el("span", { class: `badge ${actions.length ? "turn" : ""}`, text: actions.length ? "your move" : "waiting for others" })
      : null,
    view.status === "finished" ? el("span", { class: "badge", text: "game over" }) : null,
  );
  fill($("hand"), 
    hand.length ? el("div", { class: "label", text: drawn.handLabel }) : null,
    cardRow(
      hand.map((code) =>
        clickable.has(code)
          ? el("button", {
              type: "button",
              class: "card-btn",
              dataset: { card: code, action: JSON.stringify(byCard.get(code)[0]) },
              "aria-label": `play ${code}`,
              onclick: () => post(byCard.get(code)[0]),
            }, cardEl(code))
          : cardEl(code),
      ),
      "hand-cards",
    ),
  );
  const others = actions.filter((a) => !(a.card && clickable.has(a.card)));
  fill($("actions"), 
    ...others.map((action) =>
      el("button", {
        type: "button",
        class: "action",
        dataset: { action: JSON.stringify(action) },
        onclick: () => post(action),
      }, actionLabel(action)),
    ),
    !atLatest && view.status !== "finished"
      ? el("button", { type: "button", class: "action secondary", onclick: () => goTo(page.latest) }, "Back to live to play")
      : null,
  );
}

/**
 * Post an action: the exact body from `legal_actions`. No If-Match here on purpose: in games
 * where seats move at once (BATAYO, Bataille), a bot's move between our view and our click
 * bumps the version without making our move illegal; the server checks legality anyway.
 */
async function post(action) {
  if (page.busy) return;
  page.busy = true;
  for (const b of document.querySelectorAll("#you button")) b.disabled = true;
  setMessage("");
  try {
    const answer = await API.act(gameId, action, page.token);
    page.latest = Math.max(page.latest, answer.game.version);
    page.following = true;
    show(answer.game);
  } catch (error) {
    setMessage(`${error.message} (${error.code})`);
    refreshLive();
  } finally {
    page.busy = false;
    for (const b of document.querySelectorAll("#you button")) b.disabled = false;
  }
}

function setMessage(text) {
  $("action-message").textContent = text;
  if (text && $("you").hidden) {
    const box = $("page-error");
    box.hidden = false;
    box.textContent = text;
  }
}

// ---- the timeline's widgets and the event at the version shown ----------------------------

function updateTimeline() {
  const slider = $("slider");
  slider.max = String(Math.max(1, page.latest));
  if (page.view) slider.value = String(page.view.version);
  const shown = page.view?.version ?? 0;
  $("version-label").textContent = `version ${shown} of ${page.latest}${page.following && page.status !== "finished" ? " (live)" : ""}`;
  $("prev").disabled = $("first").disabled = shown <= 1;
  $("next").disabled = $("last").disabled = shown >= page.latest;
}

const SKIP = new Set(["rng", "salt", "client_seeds", "seed_commitment", "options", "seats", "id", "server_seed"]);

/** Event data in words, cards drawn as cards: {"seat": 0, "up": "QS"} -> "seat: Ana · up: Q♠". */
function describeData(view, data) {
  const out = [];
  for (const [key, value] of Object.entries(data || {})) {
    if (SKIP.has(key) || value === null || (Array.isArray(value) && !value.length)) continue;
    if (out.length) out.push(" · ");
    out.push(`${key.replaceAll("_", " ")}: `, describeValue(view, key, value));
  }
  return out;
}

function describeValue(view, key, value, depth = 0) {
  if (typeof value === "string" && parseCard(value)) return cardText(value);
  if ((key === "seat" || key === "from" || key === "taker" || key === "winner") && typeof value === "number") return seatName(view, value);
  if (Array.isArray(value)) {
    if (depth > 1 || value.length > 14) return `${value.length} items`;
    return el("span", {}, "[", value.flatMap((v, i) => [i ? " " : "", v === null ? cardText(null) : describeValue(view, "", v, depth + 1)]), "]");
  }
  if (value && typeof value === "object") {
    if (depth > 1) return "{…}";
    return el("span", {}, "{", describeData(view, value), "}");
  }
  return String(value);
}

async function renderEventLine(version) {
  const line = $("event-line");
  let event = page.eventCache.get(version);
  if (!event) {
    // Until the event comes, say which version it will be (never a stale line).
    fill(line, el("span", { class: "event-type", text: `v${version}` }), el("span", { class: "muted", text: " …" }));
    try {
      // A page of events around this one: stepping through the timeline then needs no request.
      const found = await API.events(gameId, { after: Math.max(0, version - 21), limit: 60, token: page.token });
      for (const e of found.events) page.eventCache.set(e.version, e);
      event = page.eventCache.get(version);
    } catch {
      return;
    }
  }
  if (!event || page.view?.version !== version) return;
  const actor = typeof event.actor === "number" ? seatName(page.view, event.actor) : event.actor;
  fill(line, 
    el("span", { class: "event-type", text: `v${event.version} · ${event.type.replaceAll("_", " ")}` }),
    el("span", { class: "muted", text: ` by ${actor} · ${new Date(event.at).toLocaleTimeString()}` }),
    el("div", { class: "event-data" }, describeData(page.view, event.data)),
  );
}

// ---- ties: GET /ties, each tie step by step -----------------------------------------------

let tiesTimer = null;
function scheduleTies() {
  if (!tiesTimer) tiesTimer = setTimeout(() => ((tiesTimer = null), loadTies()), 3000);
}

let tiesShown = [];
async function loadTies(offset = 0) {
  try {
    const pageOfTies = await API.ties(gameId, { offset, limit: 50, token: page.token });
    tiesShown = offset ? [...tiesShown, ...pageOfTies.ties] : pageOfTies.ties;
    renderTies(pageOfTies);
  } catch (error) {
    fill($("ties-body"), el("p", { class: "error", text: `Could not load the ties: ${error.message}` }));
  }
}

/** The version to show for a step: its reveal, else the last card put down before it settled. */
function stepVersion(step) {
  if (step.reveal?.version) return step.reveal.version;
  const v = step.versions;
  return v.length > 1 ? v[v.length - 2] : v[0];
}

function renderTies(pageOfTies) {
  const view = page.view;
  if (!tiesShown.length) {
    fill($("ties-body"), el("p", { class: "muted", text: "No tie so far." }));
    return;
  }
  const list = el(
    "ol",
    { class: "ties-list" },
    tiesShown.map((tie, i) =>
      el(
        "li",
        { class: "tie", dataset: { tie: String(i) } },
        el(
          "div",
          { class: "tie-head" },
          el("button", { type: "button", class: "small-btn replay", onclick: () => playVersions(tie.versions) }, "▶ replay"),
          el("strong", { text: tie.kind.replaceAll("_", " ") }),
          tie.round !== null && tie.round !== undefined ? ` · round ${tie.round}` : "",
          ` · ${tie.players.map((s) => seatName(view, s)).join(" vs ")}`,
          tie.winner !== null && tie.winner !== undefined ? el("span", { class: "tie-winner" }, ` → ${seatName(view, tie.winner)}`) : "",
          typeof tie.cards === "number" ? ` takes ${tie.cards} cards` : Array.isArray(tie.cards) ? ` takes ${tie.cards.length} cards` : "",
        ),
        el(
          "ol",
          { class: "steps" },
          tie.steps.map((step, j) =>
            el(
              "li",
              {},
              el(
                "button",
                {
                  type: "button",
                  class: "step",
                  dataset: { version: String(stepVersion(step)), versions: step.versions.join(",") },
                  onclick: () => goTo(stepVersion(step)),
                },
                el("span", { class: "step-no", text: `step ${j + 1}` }),
                el("span", { class: "step-body" }, describeStep(view, step)),
                el("span", { class: "muted small", text: ` v${step.versions[0]}–${step.versions[step.versions.length - 1]}` }),
              ),
            ),
          ),
        ),
      ),
    ),
  );
  const more = pageOfTies.next_offset !== null
    ? el("button", { type: "button", onclick: () => loadTies(pageOfTies.next_offset) }, `more (${tiesShown.length} of ${pageOfTies.total})`)
    : null;
  fill($("ties-body"), el("p", { class: "muted", text: `${pageOfTies.total} in all. Click a step to see the table then.` }), list, more);
  markActiveStep();
}

/** One step of a tie in words and small cards; the shapes differ per game (openapi: TieStep). */
function describeStep(view, step) {
  const out = [];
  const seatCards = (seat, nodes) => el("span", { class: "step-seat" }, `${seatName(view, seat)}: `, nodes);
  if (Array.isArray(step.cards) && step.cards.every((c) => c && typeof c === "object")) {
    // Bataille: each seat's face-down cards (once visible) and its face-up card.
    for (const c of step.cards) out.push(seatCards(c.seat, [...(c.down || []).map((d) => cardText(d)), " ", cardText(c.up)]));
  } else if (Array.isArray(step.committed)) {
    // BATAYO: the random takes, then the cards committed and revealed.
    for (const t of step.takes || []) {
      out.push(el("span", { class: "step-seat" }, `${seatName(view, t.taker)} takes `, cardText(t.card), ` from ${seatName(view, t.from)}`,
        t.ledger ? el("span", { class: "muted small", title: `random pick: ${t.ledger.why}`, text: ` (drawn among ${t.ledger.input?.length ?? "?"})` }) : ""));
    }
    if (step.reveal) {
      step.reveal.cards.forEach((c, s) => {
        if (c || step.reveal.down?.[s]) out.push(seatCards(s, [step.reveal.down?.[s] ? cardText(step.reveal.down[s]) : "", " ", c ? cardText(c) : ""]));
      });
    } else {
      for (const c of step.committed) out.push(seatCards(c.seat, cardText(c.card)));
    }
  } else {
    const { versions, ...rest } = step;
    out.push(el("span", {}, describeData(view, rest)));
  }
  if (step.tied?.length) out.push(el("span", { class: "tag", text: `tied: ${step.tied.map((s) => seatName(view, s)).join(", ")}` }));
  if (step.winner !== null && step.winner !== undefined) out.push(el("span", { class: "tag win", text: `won by ${seatName(view, step.winner)}` }));
  return out;
}

/** Highlight the tie steps that contain the version shown. */
function markActiveStep() {
  const v = page.view?.version;
  for (const button of document.querySelectorAll("#ties .step")) {
    button.classList.toggle("active", button.dataset.versions.split(",").map(Number).includes(v));
  }
}

// ---- verification: GET /verify ------------------------------------------------------------

// While the game runs, check the growing chain again now and then (not on every event).
let verifyTimer = null;
function scheduleVerify() {
  if (!verifyTimer) verifyTimer = setTimeout(() => ((verifyTimer = null), loadVerify()), 10000);
}

async function loadVerify() {
  const box = $("verify");
  try {
    const v = await API.verify(gameId);
    box.className = `panel verify ${v.ok ? "ok" : "fail"}`;
    const lines = v.ok
      ? [
          el("p", { class: "verdict", text: "✔ Verified" }),
          el("p", { text: `${v.events} events chained by hash, ${v.draws_checked} random draws checked.` }),
          v.seed_revealed
            ? el("p", { class: "muted", text: "The server seed is revealed: every shuffle and pick was recomputed." })
            : el("p", { class: "muted", text: "The seed is revealed when the game ends; then every draw is checked." }),
        ]
      : [
          el("p", { class: "verdict", text: "✘ Verification failed" }),
          el("p", { text: `at version ${v.version}: ${v.reason}` }),
        ];
    if (v.test_game) lines.push(el("p", { class: "badge test", text: "test game: fixed seed or deal, never presented as fair" }));
    if (page.status === "finished") {
      // The whole log and the revealed seed, to check offline with `batayo verify game.json`.
      lines.push(el("p", {}, el("a", { href: `/v1/games/${gameId}/export`, download: `${gameId}.json` }, "Download the log"),
        el("span", { class: "muted small", text: " (check it offline: batayo verify)" })));
    }
    fill($("verify-body"), ...lines);
  } catch (error) {
    box.className = "panel verify fail";
    fill($("verify-body"), el("p", { text: `Could not verify: ${error.message}` }));
  }
}

start();

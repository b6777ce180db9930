// game.js: one game's page. Watch it live, replay any version, read its ties as stories, audit
// its fairness, share its seats, and, with a seat's token, play it.
//
// Everything comes from the public API (api.js):
//   GET  /v1/games/{id}            the view now, as a spectator or as the token's seat
//   GET  /v1/games/{id}?at=N       the same view as of version N (the timeline)
//   GET  /v1/games/{id}/events     the events around the version shown (event line, last round)
//   GET  /v1/games/{id}/socket     live events and views, and our actions, on a WebSocket
//   GET  /v1/games/{id}/stream     live events while the game runs, when no socket opens
//   GET  /v1/games/{id}/ties       every tie, step by step, with the versions of each step
//   GET  /v1/games/{id}/verify     the hash chain and every random draw, checked
//   GET  /v1/rules                 the rules in words (the "How to play" box)
//   POST /v1/games/{id}/actions    one of the view's `legal_actions`, exactly as listed (when
//                                  there is no socket; on one, the same body as an `act` frame)
//   POST /v1/games/{id}/join       take an open seat
//   POST /v1/games/{id}/skip       the bots play the rest at full speed (pace.js)
//   POST /v1/games                 a rematch with the same settings

import * as API from "./api.js";
import { cardEl, cardRow, cardText, el, fill, suitText } from "./cards.js";
import { cardName, known, optionName, optionValue, pick, t, translatePage } from "./i18n.js";
import * as Pace from "./pace.js";
import { moveFrom, positionOf } from "./replay.js";
import { tieSteps, tieTitle } from "./story.js";
import { needsEvents, renderTable, seatName } from "./tables.js";

const $ = (id) => document.getElementById(id);
const gameId = location.pathname.split("/").filter(Boolean).pop();
const REDUCED = matchMedia("(prefers-reduced-motion: reduce)");

// The page's whole state. `view` is the view on screen (at version `view.version`); `latest`
// is the newest version known; `following` means "show the latest as it comes" (live).
const page = {
  token: "",
  view: null,
  latest: 0,
  status: null,
  following: true,
  live: null, // api.js followGame: the views and events of the game as it goes on
  transport: null, // api.js socket (the default) or follow (?transport=sse)
  request: 0, // increases with every replay request: only the newest answer is shown
  aim: 0, // the version asked for last (the next step starts there, before it is drawn)
  autoplay: null,
  eventCache: new Map(),
  eventGeneration: 0, // bumped when the events held are cleared
  busy: false, // an action is being posted
  handKey: "", // what the hand and actions were drawn from: unchanged, they are not redrawn
  pressed: false, // a pointer is down on the seat panel: redraw it only once released
  deferred: null,
  selected: null, // a card picked whose action needs a second choice (face, face-down card)
  rules: null,
};

// ---- start --------------------------------------------------------------------------------

async function start() {
  translatePage();
  // A token may come in the address (?token=..., a seat link): keep it in this browser, drop it
  // from the URL so it is not shared by copying the address.
  const params = new URLSearchParams(location.search);
  if (params.get("token")) {
    API.saveToken(gameId, params.get("token"));
    params.delete("token");
    const rest = params.toString();
    history.replaceState(null, "", location.pathname + (rest ? `?${rest}` : "") + location.hash);
  }
  page.token = API.savedToken(gameId);
  // The game's WebSocket by default (it falls back to the event stream and POST by itself
  // when it cannot open); `?transport=sse` uses the event stream and POST from the start.
  page.transport = params.get("transport") === "sse" ? API.follow : API.socket;
  wireControls();
  Pace.mount($("pace-bar"), { gameId, token: () => page.token });

  let view;
  try {
    view = await API.getGame(gameId, { token: page.token });
  } catch (error) {
    if (page.token && (error.status === 401 || error.status === 403)) {
      // A stale or foreign token: forget it and watch as a spectator.
      API.saveToken(gameId, "");
      page.token = "";
      setMessage(t("That token is not valid for this game ({code}); watching as a spectator.", { code: error.code }));
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
  loadRules(view.game);
  startFollowing(view);
  setInterval(tickClocks, 1000);
}

function showFatal(error) {
  const box = $("page-error");
  box.hidden = false;
  box.textContent = error.status === 404 ? t("No such game.") : t("Could not load the game: {why}", { why: error.message });
  $("game-title").textContent = "";
}

async function loadRules(game) {
  try {
    page.rules = (await API.rules()).games.find((g) => g.id === game) || null;
  } catch {
    page.rules = null;
  }
  const text = pick(page.rules?.rules);
  fill($("rules-body"), text ? text.split("\n").map((p) => el("p", { text: p })) : el("p", { class: "muted", text: t("No rules text for this game.") }));
  if (page.view) renderSummary(page.view);
}

// ---- live updates -------------------------------------------------------------------------

/** The game's newest status. The end is known by whichever comes first (an action's answer,
 * a pushed view, the transport's end): the ties and the verification say "so far" until then,
 * so both are loaded again at that moment, and the ties never say "so far" meanwhile. */
function setStatus(status) {
  const ends = status === "finished" && page.status !== "finished";
  page.status = status;
  if (!ends) return;
  if (!tiesShown.length) fill($("ties-body"), el("p", { class: "muted", text: "…" }));
  loadTies();
  loadVerify();
}

/** Follow the game from `view` (api.js `followGame`: views and events in version order, never
 * backwards); each event moves `latest` on, each newer view is drawn while following live. */
function startFollowing(view) {
  page.live?.stop();
  page.live = API.followGame(gameId, {
    view,
    token: page.token,
    transport: page.transport,
    onEvent(event) {
      page.eventCache.set(event.version, event); // the event line and last round need no request
      page.latest = Math.max(page.latest, event.version);
      Pace.onEvent(event);
      updateTimeline();
      if (/bataille|batayo|sudden|void|extra|deal_scored|round_ended|ended/.test(event.type)) scheduleTies();
      scheduleVerify();
    },
    onView(next) {
      page.latest = Math.max(page.latest, next.version);
      setStatus(next.status);
      if (page.following) show(next);
      else updateTimeline();
    },
    onEnd(final) {
      setStatus("finished");
      clearEvents(); // after the end everybody sees every event in full
      if (page.following) show(final);
      else updateTimeline();
    },
    onState(state) {
      $("live-state").textContent = { live: `● ${t("live")}`, reconnecting: t("reconnecting…"), ended: "", stopped: "" }[state] ?? "";
      $("live-state").className = `live-state ${state}`;
    },
  });
}

/** Forget the events held (they are fetched again as needed); a fetch under way is ignored. */
function clearEvents() {
  page.eventCache.clear();
  page.eventGeneration += 1;
}

// ---- events around the version shown ------------------------------------------------------

const WINDOW = 80; // events fetched at once around the version shown

/** The events the page holds up to `version`, in order, back to the first gap. */
function eventsUpTo(version) {
  const out = [];
  for (let v = version; v >= 1 && page.eventCache.has(v); v--) out.push(page.eventCache.get(v));
  return out.reverse();
}

const fetching = new Map(); // window start -> the fetch on its way (true once its events are held)
/** Make sure the events before `version` (and the one after it, when there is one: whether
 * the game stopped there) are held; `then()` once they came (if they had to). A caller whose
 * window is already on its way waits for that fetch (else its `then` would never run). */
async function ensureEvents(version, then) {
  const from = Math.max(1, version - WINDOW + 1);
  const to = version < page.latest ? version + 1 : version;
  let missing = false;
  for (let v = from; v <= to; v++) if (!page.eventCache.has(v)) { missing = true; break; }
  if (!missing) return;
  const key = `${from}`;
  if (!fetching.has(key)) fetching.set(key, fetchWindow(from).finally(() => fetching.delete(key)));
  if (await fetching.get(key)) then?.();
}

/** Fetch the events from version `from` on into the cache; whether they were stored. */
async function fetchWindow(from) {
  const generation = page.eventGeneration;
  try {
    const found = await API.events(gameId, { after: from - 1, limit: WINDOW + 20, token: page.token });
    if (generation !== page.eventGeneration) return false; // the events were cleared meanwhile
    for (const e of found.events) page.eventCache.set(e.version, e);
    return true;
  } catch {
    return false;
  }
}

/** Whether the game stopped at `version` (someone was asked to move), from the events held;
 * unknown (true) while the next event is not held. */
function stoppedAt(version) {
  if (version >= page.latest) return true;
  const next = page.eventCache.get(version + 1);
  return next ? API.stoppedAt(next) : true;
}

// ---- the timeline -------------------------------------------------------------------------

/** Show version `version` (clamped to 1..latest); the latest one means "follow live". */
async function goTo(version, { keepAutoplay = false } = {}) {
  if (!keepAutoplay) stopAutoplay();
  const target = Math.max(1, Math.min(page.latest, Math.round(version)));
  page.following = target === page.latest;
  page.aim = target;
  const ticket = ++page.request;
  $("slider").value = String(target);
  if (page.following && page.live) {
    // Back to live: the newest view the follower holds (it draws the newer ones as they come).
    show(page.live.view());
    page.live.refresh();
    return;
  }
  try {
    const view = await API.getGame(gameId, { at: target, token: page.token });
    if (ticket !== page.request || page.following) return; // a newer request was made meanwhile
    page.latest = Math.max(page.latest, view.version);
    show(view);
  } catch (error) {
    if (ticket === page.request) setMessage(t("Could not load version {v}: {why}", { v: target, why: error.message }));
  }
}

function stopAutoplay() {
  if (page.autoplay) {
    clearInterval(page.autoplay);
    page.autoplay = null;
  }
  $("play").textContent = `▷ ${t("play")}`;
  $("play").setAttribute("aria-label", t("replay"));
  for (const b of document.querySelectorAll(".replay[aria-pressed='true']")) b.setAttribute("aria-pressed", "false");
}

/** Replay from the version shown (or from the start at the end), one version at a time. */
function toggleAutoplay() {
  if (page.autoplay) return stopAutoplay();
  if (page.view.version >= page.latest) goTo(1, { keepAutoplay: true });
  $("play").textContent = `❙❙ ${t("pause")}`;
  $("play").setAttribute("aria-label", t("pause"));
  page.autoplay = setInterval(() => {
    if (page.view.version >= page.latest) return stopAutoplay();
    step(1, { keepAutoplay: true });
  }, 600);
}

/** One step on (`dir` 1) or back (-1): to the next move, the server's intermediate versions
 * skipped (replay.js), or with "every event" ticked to the next version. */
async function step(dir, options, byEvent = $("by-event").checked) {
  // From the version asked for last: a second key press before its view came steps on from it.
  const from = page.following ? page.view.version : page.aim || page.view.version;
  if (byEvent) return goTo(from + dir, options);
  const eventAt = (v) => page.eventCache.get(v);
  let target = moveFrom(from, dir, page.latest, eventAt);
  if (target === null) {
    await ensureEvents(dir > 0 ? Math.min(page.latest, from + WINDOW - 1) : from);
    target = moveFrom(from, dir, page.latest, eventAt) ?? from + dir;
  }
  return goTo(target, options);
}

/** Step the table through a tie: each step's version in turn, its words highlighted. */
function playVersions(versions, button) {
  stopAutoplay();
  let i = 0;
  button?.setAttribute("aria-pressed", "true");
  goTo(versions[i], { keepAutoplay: true });
  $("play").textContent = `❙❙ ${t("pause")}`;
  page.autoplay = setInterval(() => {
    i += 1;
    if (i >= versions.length) return stopAutoplay();
    goTo(versions[i], { keepAutoplay: true });
  }, REDUCED.matches ? 1400 : 1100);
}

function wireControls() {
  const slider = $("slider");
  slider.addEventListener("input", () => goTo(Number(slider.value)));
  $("first").addEventListener("click", () => goTo(1));
  $("prev").addEventListener("click", () => step(-1));
  $("next").addEventListener("click", () => step(1));
  $("last").addEventListener("click", () => goTo(page.latest));
  $("play").addEventListener("click", toggleAutoplay);
  document.addEventListener("keydown", (e) => {
    if (!page.view || e.target.closest("input, textarea, select")) return;
    if (e.target.closest("#you") && (e.key === "ArrowLeft" || e.key === "ArrowRight")) {
      // In your hand the arrows move between your cards and actions.
      const buttons = [...document.querySelectorAll("#you button:not(:disabled)")];
      const at = buttons.indexOf(document.activeElement);
      const next = buttons[(at + (e.key === "ArrowRight" ? 1 : -1) + buttons.length) % buttons.length];
      next?.focus();
      e.preventDefault();
      return;
    }
    // The timeline's keys, listed under it (#replay-keys): a move, or an event with Shift.
    const dir = { ArrowLeft: -1, ArrowRight: 1 }[e.key];
    if (dir) step(dir, {}, e.shiftKey || $("by-event").checked);
    else if (e.key === "Home") goTo(1);
    else if (e.key === "End") goTo(page.latest);
    else if (e.key === " " && !e.target.closest("button, a, summary")) toggleAutoplay();
    else return;
    e.preventDefault();
  });
  $("verify-again").addEventListener("click", loadVerify);
  $("debug").addEventListener("toggle", () => $("debug").open && renderDebug());
  $("token-form").addEventListener("submit", (e) => {
    e.preventDefault();
    useToken($("token-input").value.trim());
  });
  $("forget-token").addEventListener("click", () => useToken(""));
  $("join-form").addEventListener("submit", join);
  // No lost clicks: while a pointer is down on your seat, a new view does not redraw it.
  const you = $("you");
  you.addEventListener("pointerdown", () => (page.pressed = true));
  const release = () => {
    page.pressed = false;
    // After the click this release makes (same task), the view held back is drawn, unless a
    // newer one (our own action's answer) was drawn meanwhile.
    setTimeout(() => {
      const held = page.deferred;
      page.deferred = null;
      if (held && held.version >= (page.view?.version ?? 0)) show(held);
    }, 0);
  };
  window.addEventListener("pointerup", release);
  window.addEventListener("pointercancel", release);
}

/** Switch to another seat's token (or to watching, with ""), then reload what depends on it. */
async function useToken(token) {
  API.saveToken(gameId, token);
  page.token = token;
  $("token-input").value = "";
  clearEvents();
  page.handKey = "";
  try {
    const view = await API.getGame(gameId, { token });
    page.following = true;
    page.latest = view.version;
    show(view);
    setMessage(token ? "" : t("Watching as a spectator."));
    loadTies();
    startFollowing(view);
  } catch (error) {
    API.saveToken(gameId, "");
    page.token = "";
    setMessage(t("That token does not work here ({code}).", { code: error.code }));
    goTo(page.latest);
  }
}

async function join(e) {
  e.preventDefault();
  try {
    const joined = await API.joinGame(gameId, { name: $("join-name").value.trim() });
    history.replaceState(null, "", location.pathname + location.search); // the invite is used
    await useToken(joined.token);
  } catch (error) {
    setMessage(t("Could not join: {why}", { why: error.message }));
  }
}

// ---- drawing the view ---------------------------------------------------------------------

function show(view) {
  if (page.pressed) {
    // A pointer is down on your seat: redrawing now could move the card from under it (the
    // click would land elsewhere). Drawn once released; the newest view wins.
    if (!page.deferred || view.version >= page.deferred.version) page.deferred = view;
    page.latest = Math.max(page.latest, view.version);
    updateTimeline();
    return;
  }
  page.view = view;
  if (view.version >= page.latest) setStatus(view.status);
  const title = page.rules?.title || view.game;
  $("game-title").textContent = title; // the id is in the address and in the debug panel
  document.title = `batayo · ${title}`;
  Pace.onView(view, { live: page.following, moving: movers(view) });
  renderSummary(view);
  renderEnd(view);
  renderTableArea(view);
  renderYou(view);
  updateTimeline();
  renderEventLine(view.version);
  markActiveStep();
  renderShare(view);
  if ($("debug").open) renderDebug();
  const canJoin = view.status === "open" && !page.token && view.seats.some((s) => s.open);
  $("join-banner").hidden = !canJoin;
  if (canJoin && location.hash === "#join") $("join-name").focus();
  // An invite opened once its seat was taken says so (not only the game, as to a spectator).
  $("invite-taken").hidden = !(location.hash === "#join" && !page.token && !view.seats.some((s) => s.open));
  // The last round, the event line and who was to move come from the events: fetch them,
  // then draw again (the seats too when the events say nobody was asked to move after all).
  const drawnMovers = movers(view).join();
  ensureEvents(view.version, () => {
    // Whichever view of that version is on screen now (a redraw may have replaced this one).
    const now = page.view;
    if (now?.version === view.version && !page.pressed) {
      if (needsEvents(now.game) || movers(now).join() !== drawnMovers) renderTableArea(now);
      renderSummary(now);
      renderEventLine(now.version);
    }
  });
}

/** The seats asked to move at the version shown: none inside a batch (the server was still
 * writing the move's consequences: a reveal, a trick taken). */
const movers = (view) => (stoppedAt(view.version) ? view.to_move : []);

function renderSummary(view) {
  const toMove = movers(view).map((s) => seatName(view, s)).join(", ");
  const docs = new Map((page.rules?.options || []).map((o) => [o.name, o]));
  const opts = Object.entries(view.options).filter(([, v]) => v !== null)
    .map(([k, v]) => [k, `${optionName(k)}: ${optionValue(k, v, (s) => seatName(view, s))}`]);
  const parts = [
    el("span", { class: `badge status-${view.status}`, text: t(`status:${view.status}`) }),
    view.test ? el("span", { class: "badge test", text: t("test game: fixed seed or deal, not a fair game") }) : null,
    el("details", { class: "opts" }, el("summary", { class: "muted" }, opts.map(([, words]) => words).join(" · ")),
      el("dl", {}, opts.map(([k, words]) => [el("dt", {}, words), el("dd", { class: "muted small", text: pick(docs.get(k)?.docs) || docs.get(k)?.doc || "" })]))),
  ];
  const lines = [el("div", { class: "summary-line" }, parts)];
  if (view.status === "playing" && toMove) lines.push(el("div", { class: "summary-line" }, `${t("To move")}: `, el("strong", { text: toMove })));
  if (view.status === "open") lines.push(el("div", { class: "summary-line" }, t("Waiting for players to join.")));
  const clocks = Object.entries(view.clocks || {}).filter(([key]) => !key.startsWith("move:"));
  for (const [key, due] of clocks) lines.push(el("div", { class: "summary-line" }, `${clockName(key)}: `, clockEl(due)));
  fill($("summary"), ...lines);
}

/** The end of the game: who won and why, the scores, and what next (a rematch, a new game).
 * The table stays drawn under it with the last round, trick or battle. */
function renderEnd(view) {
  const banner = $("end-banner");
  banner.hidden = !(view.status === "finished" && view.result);
  if (banner.hidden) return;
  const isSeat = page.token && view.you !== null && view.you !== undefined;
  fill(banner,
    el("h2", { id: "end-title", text: t("Game over") }),
    resultEl(view),
    el("div", { class: "end-actions" },
      isSeat ? el("button", { type: "button", id: "rematch", class: "primary", onclick: rematch }, t("Rematch with the same settings")) : null,
      el("a", { id: "new-game", class: "button", href: "/#new-game" }, t("New game"))),
  );
}

function resultEl(view, id = "result") {
  const r = view.result;
  const who = r.draw ? t("A draw") : t("Won by {names}", { names: r.winners.map((s) => seatName(view, s)).join(t(" and ")) });
  return el(
    "div",
    { class: "result", id },
    el("strong", { text: who }),
    ` (${t(`reason:${r.reason}`) === `reason:${r.reason}` ? r.reason.replaceAll("_", " ") : t(`reason:${r.reason}`)})`,
    Array.isArray(r.cards) ? el("div", { class: "muted small", text: `${t("cards")}: ${r.cards.map((c, s) => `${seatName(view, s)} ${c}`).join(" · ")}` }) : null,
    Array.isArray(r.scores) ? el("div", { class: "muted small", text: `${t("score")}: ${r.scores.map((c, s) => `${seatName(view, s)} ${c}`).join(" · ")}` }) : null,
  );
}

/** Where each seat sits: you at the bottom, then clockwise (left, top, right). */
const POSITIONS = { 1: ["b"], 2: ["b", "t"], 3: ["b", "l", "r"], 4: ["b", "l", "t", "r"], 5: ["b", "l", "tl", "tr", "r"], 6: ["b", "l", "tl", "t", "tr", "r"] };

/** The felt: a panel per seat around the middle of the table, yours at the bottom. */
function renderTableArea(view) {
  const drawn = renderTable(view, eventsUpTo(view.version));
  const n = view.seats.length;
  const me = view.you ?? 0;
  const spots = POSITIONS[n] || [];
  const panels = view.seats.map((s) => {
    const panel = seatPanel(view, s.seat, drawn.seats[s.seat]);
    panel.dataset.pos = spots[(s.seat - me + n) % n] || "t";
    return panel;
  });
  const table = $("table");
  const animated = new Set([...table.querySelectorAll(".card.flip")].map(flipKey));
  const lastKey = table.querySelector("#last-play")?.dataset.key;
  const center = el("div", { class: "center", id: "center" }, drawn.center, drawn.last);
  fill(table, ...panels, center);
  // A round or trick just over is gathered in once, as a reveal is turned once.
  const last = table.querySelector("#last-play");
  if (last && lastKey !== undefined && last.dataset.key !== lastKey) last.classList.add("gather");
  table.dataset.seats = String(n);
  // A reveal is animated once: cards already on screen in the same place are not flipped again.
  for (const card of table.querySelectorAll(".card.flip")) if (animated.has(flipKey(card))) card.classList.remove("flip");
  page.drawn = drawn;
}

function flipKey(card) {
  const box = card.closest("[data-key]")?.dataset.key || card.closest("[data-seat]")?.dataset.seat || "";
  return `${box}:${card.dataset.card}`;
}

function seatPanel(view, seat, part = { stats: [], cards: [], tags: [] }) {
  const moving = movers(view).includes(seat);
  const won = view.result?.winners?.includes(seat);
  const clock = view.clocks?.[`move:${seat}`];
  return el(
    "div",
    {
      class: `seat${moving ? " to-move" : ""}${seat === view.you ? " you" : ""}${won ? " winner" : ""}${part.declarer ? " declarer" : ""}`,
      dataset: { seat: String(seat) },
      role: "group",
      "aria-label": seatName(view, seat),
    },
    el(
      "div",
      { class: "seat-head" },
      el("span", { class: "seat-name", text: seatName(view, seat) }),
      seat === view.you ? el("span", { class: "badge you", text: t("you") }) : null,
      moving ? el("span", { class: "badge turn", text: t("to move") }) : null,
      won ? el("span", { class: "badge win", text: t("winner") }) : null,
      clock ? clockEl(clock) : null,
    ),
    el("div", { class: "seat-stats" }, part.stats.map(([label, value]) => el("span", { class: "stat" }, `${label} `, el("b", {}, value)))),
    cardRow(part.cards, "seat-cards"),
    part.tags.length ? el("div", { class: "tags" }, part.tags.map((x) => el("span", { class: `tag${/declarer|déclarant|ihale/.test(x) ? " declarer-tag" : ""}`, text: x }))) : null,
  );
}

// ---- clocks: the view's `clocks` map of ISO deadlines -------------------------------------

/** A clock's name in words ("game" -> "game clock"); an unknown one as written. */
function clockName(key) {
  return known(`clock:${key}`) ?? key.replaceAll("_", " ");
}

function clockEl(due) {
  return el("span", { class: "clock", dataset: { deadline: due }, title: t("runs out at {time}", { time: new Date(due).toLocaleTimeString() }) }, clockText(due));
}

/** Time left while following live; at an older version, the time the clock was due. */
function clockText(due) {
  const end = Date.parse(due);
  if (!page.following || page.status === "finished") return t("due {time}", { time: new Date(end).toLocaleTimeString() });
  const left = Math.max(0, Math.round((end - Date.now()) / 1000));
  const h = Math.floor(left / 3600);
  const m = Math.floor((left % 3600) / 60);
  const s = String(left % 60).padStart(2, "0");
  return t("{time} left", { time: `${h ? `${h}:${String(m).padStart(2, "0")}` : m}:${s}` });
}

function tickClocks() {
  for (const node of document.querySelectorAll(".clock[data-deadline]")) node.textContent = clockText(node.dataset.deadline);
}

// ---- your seat: your cards and your legal actions -----------------------------------------

/** A readable label for an action body: {"type": "bid", "tricks": 6} -> "Bid 6". */
function actionLabel(action) {
  const { type, card, down, tricks, suit, face, ...rest } = action;
  const parts = [t(`action:${type}`) === `action:${type}` ? type : t(`action:${type}`)];
  if (card) parts.push(" ", cardText(card));
  if (face) parts.push(" ", face === "down" ? t("face down") : t("face up"));
  if (down) parts.push(" (", t("face down"), " ", cardText(down, { down: true }), ")");
  if (tricks !== undefined) parts.push(` ${tricks}`);
  if (suit) parts.push(" ", suitText(suit), " ", t(`suit:${suit}`));
  for (const [k, v] of Object.entries(rest)) parts.push(` ${k}: ${v}`);
  return parts;
}

/** The words a screen reader says for an action's button. */
function actionSpoken(action) {
  const { type, card, down, tricks, suit, face } = action;
  const words = [t(`action:${type}`) === `action:${type}` ? type : t(`action:${type}`)];
  if (card) words.push(cardName(card));
  if (face) words.push(face === "down" ? t("face down") : t("face up"));
  if (down) words.push(`${t("face down")}: ${cardName(down)}`);
  if (tricks !== undefined) words.push(String(tricks));
  if (suit) words.push(t(`suit:${suit}`));
  return words.join(", ");
}

function renderYou(view) {
  const section = $("you");
  const isSeat = view.you !== null && view.you !== undefined;
  section.hidden = !isSeat;
  if (!isSeat) return;
  // Following live, the view drawn is the newest the follower delivered: its actions are the
  // ones to offer (the server checks them anyway).
  const atLatest = page.following;
  const actions = atLatest ? view.legal_actions : [];
  const hand = page.drawn.hand || [];
  // The controls come from `legal_actions`, not from the table: a card an action names that
  // the hand drawn does not hold (Bataille ouverte's won pile once the pack is empty) gets a
  // row of its own, so every legal body has something to click.
  const inHand = new Set(hand);
  const extra = [...new Set(actions.flatMap((a) => [a.card, a.down]).filter((c) => typeof c === "string" && !inHand.has(c)))];
  // Unchanged hand and actions: nothing to redraw (a click under way is never lost).
  const key = JSON.stringify([hand, extra, actions, atLatest, view.status, page.selected, page.hint]);
  if (key === page.handKey) return;
  page.handKey = key;
  // Actions by card: a card with one action is itself the button; with several (a face to
  // choose, a face-down card to add), a click picks it and the second choice follows.
  const byCard = new Map();
  for (const action of actions) if (action.card) byCard.set(action.card, [...(byCard.get(action.card) || []), action]);
  if (page.selected && !byCard.has(page.selected)) page.selected = null;
  const selected = page.selected;
  const choices = selected ? byCard.get(selected) : null;
  const downChoice = choices?.every((a) => a.down) ? new Map(choices.map((a) => [a.down, a])) : null;

  fill($("you-head"),
    el("strong", { text: t("You are {name}", { name: seatName(view, view.you) }) }),
    ...(page.drawn.notes || []).map((n) => el("span", { class: "note" }, " · ", n)),
    view.status === "playing" && atLatest
      ? el("span", { class: `badge ${actions.length ? "turn" : ""}`, text: actions.length ? t("your move") : t("waiting for others") })
      : null,
    view.status === "finished" ? el("span", { class: "badge", text: t("game over") }) : null,
  );
  const cardButton = (code) => {
    if (downChoice && code !== selected) {
      const action = downChoice.get(code);
      if (!action) return cardEl(code);
      return el("button", { type: "button", class: "card-btn down-choice", dataset: { card: code, action: JSON.stringify(action) }, "aria-label": t("Lay {card} face down", { card: cardName(code) }), onclick: () => post(action) }, cardEl(code));
    }
    const list = byCard.get(code);
    if (!list) return cardEl(code);
    if (list.length === 1) {
      return el("button", { type: "button", class: "card-btn", dataset: { card: code, action: JSON.stringify(list[0]) }, "aria-label": actionSpoken(list[0]), onclick: () => post(list[0]) }, cardEl(code));
    }
    const isSel = code === selected;
    return el("button", {
      type: "button", class: `card-btn pick${isSel ? " selected" : ""}`, dataset: { card: code }, "aria-pressed": isSel ? "true" : "false",
      "aria-label": t("Choose {card}", { card: cardName(code) }),
      onclick: () => { page.selected = isSel ? null : code; renderYou(page.view); document.querySelector(`#you .card-btn[data-card="${code}"]`)?.focus(); },
    }, cardEl(code));
  };
  fill($("hand"),
    hand.length ? el("div", { class: "label", id: "hand-label", text: page.drawn.handLabel }) : null,
    cardRow(hand.map(cardButton), "hand-cards"),
    extra.length ? el("div", { class: "label", id: "extra-label", text: page.drawn.extraLabel || t("Other cards you can play") }) : null,
    extra.length ? cardRow(extra.map(cardButton), "extra-cards") : null,
  );
  const others = actions.filter((a) => !a.card);
  const prompt = [];
  if (selected && downChoice) prompt.push(el("p", { class: "prompt", id: "prompt" }, t("Face up:"), " ", cardText(selected), ". ", t("Now choose the card to lay face down.")));
  else if (selected && choices) prompt.push(el("p", { class: "prompt", id: "prompt" }, t("How do you play"), " ", cardText(selected), "?"));
  else if ([...byCard.values()].some((l) => l.length > 1)) prompt.push(el("p", { class: "prompt muted", id: "prompt", text: t("Choose a card to play.") }));
  fill($("actions"),
    ...prompt,
    ...(selected && choices && !downChoice ? choices : []).map((action) =>
      el("button", { type: "button", class: "action primary", dataset: { action: JSON.stringify(action) }, "aria-label": actionSpoken(action), onclick: () => post(action) }, actionLabel(action))),
    selected ? el("button", { type: "button", class: "action secondary", id: "cancel-choice", onclick: () => { page.selected = null; renderYou(page.view); } }, t("Cancel")) : null,
    ...others.map((action) =>
      el("button", { type: "button", class: "action", dataset: { action: JSON.stringify(action) }, "aria-label": actionSpoken(action), onclick: () => post(action) }, actionLabel(action))),
    actions.length ? el("button", { type: "button", class: "action secondary", id: "hint-button", onclick: () => askHint(view.version) }, t("Hint")) : null,
    page.hint?.version === view.version ? el("p", { class: "prompt", id: "hint", "aria-live": "polite", text: page.hint.text }) : null,
    !atLatest && view.status !== "finished"
      ? el("button", { type: "button", class: "action secondary", onclick: () => goTo(page.latest) }, t("Back to live to play"))
      : null,
  );
  if (page.busy) setBusy(true);
}

/**
 * Play an action: the exact body from `legal_actions`, through the follower (an `act` frame on
 * the game's WebSocket, or `POST …/actions` when there is none). No If-Match here on purpose:
 * in games where seats move at once (BATAYO, Bataille), a bot's move between our view and our
 * click bumps the version without making our move illegal; the server checks legality anyway.
 * A refusal says its problem's detail and code, then the page waits for the next view.
 */
async function post(action) {
  if (page.busy) return;
  setBusy(true);
  page.selected = null;
  setMessage("");
  try {
    const live = page.live;
    const answer = await live.act(action);
    page.latest = Math.max(page.latest, answer.version);
    page.following = true;
    page.handKey = "";
    // The follower delivered the answer's view (the POST's, or the socket's pushed before
    // its `acted`) unless a newer one was drawn meanwhile: draw its newest (never step back).
    if (live === page.live) show(live.view());
  } catch (error) {
    setMessage(`${error.message} (${error.code})`);
    page.handKey = "";
    page.live.refresh();
  } finally {
    setBusy(false);
  }
}

/**
 * An action on its way: the seat's panel says so (`aria-busy`) and its buttons, those drawn
 * meanwhile too (the socket pushes the answer's view before its `acted`), wait for the answer.
 */
function setBusy(busy) {
  page.busy = busy;
  $("you").setAttribute("aria-busy", String(busy));
  for (const b of document.querySelectorAll("#you button")) b.disabled = busy;
}

/**
 * Teach me: the strong bot's suggestion for this version, worded from its reason's code. While a
 * worker searches the server answers 202 `{pending: true}`: ask again a second later, a few times.
 */
async function askHint(version) {
  const shown = (text) => { page.hint = { version, text }; renderYou(page.view); };
  shown(t("Thinking…"));
  for (let tries = 0; tries < 10; tries += 1) {
    let answer;
    try {
      answer = await API.hint(gameId, page.token);
    } catch (error) {
      return shown(`${error.message} (${error.code})`);
    }
    if (!answer.pending) return shown(hintText(answer.reason));
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  shown(t("No hint yet: try again."));
}

// the parameters each hint code's text shows (the others, such as `face`, are worded apart)
const HINT_PARAMS = {
  only_action: { action: 1 }, bid: { tricks: 1 }, trump: { suit: 1 },
  play_high: { card: 1 }, play_low: { card: 1 }, play_card: { card: 1, choices: 1 },
};

/** A hint's reason in the page's language: `hint:<code>` with its parameters worded. */
function hintText(reason) {
  const p = reason.params || {};
  const vars = { ...p };
  if (p.card) vars.card = cardName(p.card);
  if (p.suit) vars.suit = t(`suit:${p.suit}`);
  if (p.action) vars.action = t(`action:${p.action}`);
  // the key names the code's placeholders (strings.js: a translation keeps them all)
  const key = [`hint:${reason.code}`, ...Object.keys(HINT_PARAMS[reason.code] || {}).map((k) => `{${k}}`)].join(" ");
  const text = t(key, vars);
  return p.face ? `${text} ${t(`hint-face:${p.face}`)}` : text;
}

function setMessage(text) {
  $("action-message").textContent = text;
  if (text && $("you").hidden) {
    const box = $("page-error");
    box.hidden = false;
    box.textContent = text;
  }
}

// ---- sharing: invite a friend, move your seat, rematch ------------------------------------

function copyBox(id, label, url) {
  const input = el("input", { id, readonly: true, value: url, "aria-label": label });
  const button = el("button", {
    type: "button",
    class: "small-btn",
    onclick: async () => {
      input.select();
      try {
        await navigator.clipboard.writeText(url);
        button.textContent = t("Copied");
      } catch {
        button.textContent = t("Selected: copy it");
      }
    },
  }, t("Copy"));
  return el("div", { class: "share-row" }, el("label", { for: id, class: "label", text: label }), el("div", { class: "row-form" }, input, button));
}

function renderShare(view) {
  const parts = [];
  const base = `${location.origin}/games/${gameId}`;
  if (view.seats.some((s) => s.open) && view.status === "open") {
    parts.push(copyBox("invite-link", t("Invite a friend: this link seats them"), `${base}#join`));
  }
  if (page.token) {
    parts.push(copyBox("seat-link", t("Your seat link: open it on another device to play there (keep it private)"), `${base}?token=${page.token}`));
  }
  if (!parts.length) parts.push(el("p", { class: "muted", text: t("Watching. With a seat link or token you can play here.") }));
  fill($("share"), ...parts);
}

/** A new game with the same game, options and seats: you where you sat, the same bots, an open
 * seat for every other person (they join with the invite link). */
async function rematch() {
  const view = page.view;
  const options = Object.fromEntries(Object.entries(view.options).filter(([, v]) => v !== null));
  const seats = view.seats.map((s) => {
    if (s.seat === view.you) return { name: s.name || t("Player 1") };
    if (s.bot) return { bot: s.bot };
    return { open: true };
  });
  try {
    const created = await API.createGame({ game: view.game, options, seats });
    API.saveToken(created.id, created.seats[view.you].token);
    location.href = `/games/${created.id}`;
  } catch (error) {
    setMessage(t("Could not start a rematch: {why}", { why: error.message }));
  }
}

// ---- the timeline's widgets and the event at the version shown ----------------------------

function updateTimeline() {
  const slider = $("slider");
  slider.max = String(Math.max(1, page.latest));
  if (page.view) slider.value = String(page.view.version);
  const shown = page.view?.version ?? 0;
  $("version-label").textContent = t("version {v} of {n}", { v: shown, n: page.latest }) + (page.following && page.status !== "finished" ? ` (${t("live")})` : "");
  $("version-label").dataset.version = String(shown);
  const where = page.view ? positionOf(page.view) : "";
  $("slider-position").textContent = where;
  slider.setAttribute("aria-valuetext", [t("version {v} of {n}", { v: shown, n: page.latest }), where].filter(Boolean).join(" · "));
  $("prev").disabled = $("first").disabled = shown <= 1;
  $("next").disabled = $("last").disabled = shown >= page.latest;
}


/** An event in words: who did what, with cards drawn as cards ("Ana flipped Q♠"). The raw
 * event is in the debug panel, not on the table. */
function describeEvent(view, event) {
  const d = event.data || {};
  const who = (s) => (typeof s === "number" ? seatName(view, s) : "");
  const downs = (list) => (list?.length ? [" (", t("face down"), ": ", list.map((c) => [cardText(c, { down: true }), " "]), ")"] : "");
  const cards = (list) => (Array.isArray(list) ? list.filter((c) => typeof c === "string" || c === null).map((c) => [" ", cardText(c)]) : "");
  switch (event.type) {
    case "created": return t("The game is set up.");
    case "seat_taken": return t("{name} takes a seat", { name: who(d.seat) });
    case "dealt": return typeof d.deal === "number" ? t("Deal {n}: {name} deals", { n: d.deal, name: who(d.dealer) }) : t("The cards are dealt.");
    case "drew": return t("The hands are filled up.");
    case "flipped": return [t("{name} turns", { name: who(d.seat) }), " ", cardText(d.up), downs(d.down)];
    case "short": return [t("{name} is short of cards", { name: who(d.seat) }), d.out ? ` · ${t("out")}` : ""];
    case "committed": return [t("{name} commits a card", { name: who(d.seat) }), d.card ? [" ", cardText(d.card, { down: true })] : ""];
    case "revealed":
      if (typeof d.seat === "number") return [t("{name}'s face-down card is turned:", { name: who(d.seat) }), " ", cardText(d.card)];
      return [t("The cards are turned:"), d.up && typeof d.up === "object" ? Object.entries(d.up).map(([s, c]) => [" ", who(Number(s)), " ", cardText(c)]) : ""];
    case "took": return t("{name} takes {count} cards (round {n})", { name: who(d.seat), count: d.count, n: d.round });
    case "left_play": return t("Everyone in the bataille is out: {count} cards leave play.", { count: d.count });
    case "pack_turned": return t("{name} turns the won pile over as a new pack ({count} cards)", { name: who(d.seat), count: d.count });
    case "out": return t("{name} is out", { name: who(d.seat) });
    case "bataille": return el("strong", { text: t("{names} tie on the highest card: bataille!", { names: (d.seats || []).map(who).join(t(" and ")) }) });
    case "batayo": return el("strong", { text: t("A tie on {rank}: BATAYO!", { rank: d.rank }) });
    case "taken": return [t("{name} takes a card from {from}", { name: who(d.seat), from: who(d.from) }), d.card ? [" ", cardText(d.card, { down: true })] : ""];
    case "trick_won": return [t("{name} wins trick {n}", { name: who(d.seat), n: d.trick }), cards(d.cards)];
    case "played": return [t("{name} plays", { name: who(d.seat) }), " ", d.card ? cardText(d.card, { down: d.face === "down" }) : cardText(null), " ", d.face ? (d.face === "down" ? t("face down") : t("face up")) : ""];
    case "trick": return d.taker ? (d.taker === "allies" ? t("the Allies take it") : t("the King takes it")) : [t("{name} takes it", { name: who(d.winner) })];
    case "round_ended": return t("Round {n} is over", { n: d.round });
    case "king_penalty": return t("The King could not play all his royals (round {n})", { n: d.round });
    case "bid": return t("{name} bids {n}", { name: who(d.seat), n: d.tricks });
    case "pass": return t("{name} passes", { name: who(d.seat) });
    case "declarer": return t("{name} declares, bid {n}", { name: who(d.seat), n: d.bid });
    case "trump": return [t("{name} names trump", { name: who(d.seat) }), " ", d.suit ? suitText(d.suit) : ""];
    case "deal_scored": return d.made ? t("Deal {n}: {name} makes the bid of {bid}", { n: d.deal, name: who(d.declarer), bid: d.bid }) : t("Deal {n}: {name} fails the bid of {bid}", { n: d.deal, name: who(d.declarer), bid: d.bid });
    case "time_up": return t("Time is up.");
    case "ended": return view.result ? resultEl(view, null) : t("Game over");
    default: return "";
  }
}

/** An event type in words ("trick_won" -> "trick won"). */
function eventName(type) {
  return known(`event:${type}`) ?? type.replaceAll("_", " ");
}

async function renderEventLine(version) {
  const line = $("event-line");
  const event = page.eventCache.get(version);
  if (!event) {
    // Until the event comes, say which version it will be (never a stale line).
    fill(line, el("span", { class: "event-type", text: `v${version}` }), el("span", { class: "muted", text: " …" }));
    return;
  }
  if (page.view?.version !== version) return;
  const actor = typeof event.actor === "number" ? seatName(page.view, event.actor) : t(`actor:${event.actor}`);
  fill(line,
    el("span", { class: "event-type", text: `v${event.version} · ${eventName(event.type)}` }),
    el("span", { class: "muted", text: ` · ${actor} · ${new Date(event.at).toLocaleTimeString()}` }),
    el("div", { class: "event-data" }, describeEvent(page.view, event)),
  );
}

// ---- the debug panel: the raw view and event, for developers, folded away ---------------

function renderDebug() {
  const view = page.view;
  if (!view) return;
  $("debug-id").textContent = `${t("game")} ${view.id} · v${view.version}`;
  $("debug-view").textContent = JSON.stringify(view, null, 1);
  const event = page.eventCache.get(view.version);
  $("debug-event").textContent = event ? JSON.stringify(event, null, 1) : "…";
}

// ---- ties: GET /ties, each tie a story with a replay ---------------------------------------

let tiesTimer = null;
function scheduleTies() {
  if (!tiesTimer) tiesTimer = setTimeout(() => ((tiesTimer = null), loadTies()), 3000);
}

let tiesShown = [];
let tiesAsked = 0; // only the newest request is drawn: an older answer may arrive last
async function loadTies(offset = 0) {
  const asked = ++tiesAsked;
  try {
    const pageOfTies = await API.ties(gameId, { offset, limit: 50, token: page.token });
    if (asked !== tiesAsked) return;
    tiesShown = offset ? [...tiesShown, ...pageOfTies.ties] : pageOfTies.ties;
    renderTies(pageOfTies);
  } catch (error) {
    if (asked !== tiesAsked) return;
    fill($("ties-body"), el("p", { class: "error", text: t("Could not load the ties: {why}", { why: error.message }) }));
  }
}

function renderTies(pageOfTies) {
  const view = page.view;
  if (!view) return;
  if (!tiesShown.length) {
    fill($("ties-body"), el("p", { class: "muted", text: page.status === "finished" ? t("No tie in this game.") : t("No tie so far.") }));
    return;
  }
  const list = el("ol", { class: "ties-list" },
    tiesShown.map((tie, i) => {
      const steps = tieSteps(view, tie);
      const replay = el("button", { type: "button", class: "small-btn replay", "aria-pressed": "false", "aria-label": t("Replay this tie on the table"), onclick: () => playVersions(steps.map((s) => s.version), replay) }, `▶ ${t("replay")}`);
      return el("li", { class: "tie", dataset: { tie: String(i) } },
        el("div", { class: "tie-head" }, replay, el("strong", { text: tieTitle(view, tie) })),
        el("ol", { class: "steps" }, steps.map((step, j) =>
          el("li", {},
            el("button", {
              type: "button",
              class: "step",
              dataset: { version: String(step.version), versions: step.versions.join(",") },
              onclick: () => goTo(step.version),
            },
            el("span", { class: "step-no", text: t("step {n}", { n: j + 1 }) }),
            el("span", { class: "step-body" }, step.text),
            el("span", { class: "muted small", text: ` v${step.versions[0]}–${step.versions[step.versions.length - 1]}` }))))));
    }));
  const more = pageOfTies.next_offset !== null
    ? el("button", { type: "button", onclick: () => loadTies(pageOfTies.next_offset) }, t("more ({n} of {total})", { n: tiesShown.length, total: pageOfTies.total }))
    : null;
  fill($("ties-body"), el("p", { class: "muted", text: t("{n} in all. Click a step to see the table then, or replay a tie.", { n: pageOfTies.total }) }), list, more);
  markActiveStep();
}

/** Highlight the tie steps that contain the version shown. */
function markActiveStep() {
  const v = page.view?.version;
  for (const button of document.querySelectorAll("#ties .step")) {
    const active = button.dataset.versions.split(",").map(Number).includes(v);
    button.classList.toggle("active", active);
    if (active) button.setAttribute("aria-current", "step");
    else button.removeAttribute("aria-current");
  }
}

// ---- verification: GET /verify ------------------------------------------------------------

// While the game runs, check the growing chain again now and then (not on every event).
let verifyTimer = null;
function scheduleVerify() {
  if (!verifyTimer) verifyTimer = setTimeout(() => ((verifyTimer = null), loadVerify()), 10000);
}

/** What was checked and what is still to check: a running game has its seed hidden, so its
 * draws cannot be recomputed yet; that is pending, not verified. */
let verifyAsked = 0; // as for the ties: an answer from before the end must not come back
async function loadVerify() {
  const box = $("verify");
  const asked = ++verifyAsked;
  try {
    const v = await API.verify(gameId);
    if (asked !== verifyAsked) return;
    const c = v.checked || {};
    let lines;
    if (v.status === "ok") {
      box.className = "panel verify ok";
      lines = [
        el("p", { class: "verdict", text: `✔ ${t("Verified")}` }),
        el("ul", { class: "checks" },
          el("li", { text: t("{n} events chained by hash: none changed or missing", { n: c.chain ?? v.events }) }),
          el("li", { text: t("the server seed matches the commitment made before the game") }),
          el("li", { text: t("{n} random draws (shuffles, picks) recomputed from the seed", { n: c.draws ?? v.draws_checked }) }),
          el("li", { text: t("{n} hidden values opened and matched", { n: c.openings ?? 0 }) }),
          c.play ? el("li", { text: t("{n} moves replayed by the rules", { n: c.play }) }) : null),
      ];
    } else if (v.status === "incomplete") {
      box.className = "panel verify pending";
      lines = [
        el("p", { class: "verdict", text: `… ${t("Checked so far, more when the game ends")}` }),
        el("p", { class: "label", text: t("Checked now") }),
        el("ul", { class: "checks" }, el("li", { text: t("{n} events chained by hash: none changed or missing", { n: c.chain ?? v.events }) })),
        el("p", { class: "label", text: t("Pending until the game ends") }),
        el("ul", { class: "checks pending-list" },
          el("li", { text: t("the server seed is revealed and compared with its commitment") }),
          el("li", { text: t("every random draw (shuffles, picks) is recomputed from it") }),
          el("li", { text: t("hidden cards are opened and matched against their seals") })),
      ];
    } else {
      box.className = "panel verify fail";
      lines = [el("p", { class: "verdict", text: `✘ ${t("Verification failed")}` }), el("p", { text: t("at version {v}: {why}", { v: v.version, why: v.reason }) })];
    }
    if (v.test_game) lines.push(el("p", { class: "badge test", text: t("test game: fixed seed or deal, never presented as fair") }));
    if (page.status === "finished") {
      // The whole log and the revealed seed, to check offline with `batayo verify game.json`.
      lines.push(el("p", {}, el("a", { href: `/v1/games/${gameId}/export`, download: `${gameId}.json` }, t("Download the log")),
        el("span", { class: "muted small", text: ` (${t("check it offline: batayo verify")})` })));
    }
    fill($("verify-body"), ...lines);
  } catch (error) {
    if (asked !== verifyAsked) return;
    box.className = "panel verify fail";
    fill($("verify-body"), el("p", { text: t("Could not verify: {why}", { why: error.message }) }));
  }
}

start();

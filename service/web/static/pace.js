// pace.js: following a game at a person's pace. The bots' pace itself is the server's (the
// game's option `bot_pace_ms`, docs/api.md#bot-pace); this page adds:
//   - a "your turn" signal: the tab's title, and a notification if the player allowed them;
//   - sounds, off by default (a toggle kept in this browser): a card laid, your turn;
//   - "Skip to the end" once no human plays (the view's `skippable`):
//     POST /v1/games/{id}/skip, after which the bots play the rest at full speed.

import { api } from "./api.js";
import { el, fill } from "./cards.js";
import { t } from "./i18n.js";

const SOUND_KEY = "batayo.sound";
const CARD_EVENTS = new Set(["flipped", "played", "committed", "revealed", "taken", "trick_won", "took"]);
const SOUND_GAP_MS = 120; // a burst of events (a skip, a catch-up) plays one sound, not dozens

const state = {
  gameId: "",
  token: () => "",
  box: null,
  mine: false, // the seat shown has a move to make now
  skipped: false,
  soundOn: stored(SOUND_KEY) === "on",
  soundAt: 0,
  sounds: {},
};

function stored(key) {
  try {
    return localStorage.getItem(key);
  } catch {
    return null; // no storage: sound stays off
  }
}

/** The controls, in `box`: the sound toggle, the notification button, the skip button. */
export function mount(box, { gameId, token }) {
  Object.assign(state, { box, gameId, token });
  const notify = "Notification" in window && Notification.permission === "default"
    ? el("button", { type: "button", id: "notify-turn", class: "small-btn", onclick: askNotifications }, t("Notify me when it is my turn"))
    : null;
  fill(box,
    el("label", { class: "toggle" },
      el("input", { type: "checkbox", id: "sound-toggle", checked: state.soundOn, onchange: (e) => setSound(e.target.checked) }),
      ` ${t("Sound")}`),
    notify,
    el("button", { type: "button", id: "skip-end", class: "small-btn primary", hidden: true, onclick: skip }, t("Skip to the end")),
    el("span", { id: "pace-message", class: "muted small", role: "status" }));
}

function setSound(on) {
  state.soundOn = on;
  try {
    localStorage.setItem(SOUND_KEY, on ? "on" : "off");
  } catch {
    /* not kept: on for this page only */
  }
  if (on) play("card");
}

async function askNotifications(e) {
  const answer = await Notification.requestPermission().catch(() => "denied");
  e.target.remove();
  if (answer !== "granted") say(t("Notifications are off: the tab's title still says when it is your turn."));
}

function play(name) {
  if (!state.soundOn) return;
  const now = Date.now();
  if (now - state.soundAt < SOUND_GAP_MS) return;
  state.soundAt = now;
  const sound = (state.sounds[name] ||= new Audio(`/web/static/sounds/${name}.wav`));
  sound.currentTime = 0;
  sound.play().catch(() => {}); // the browser may refuse sound before a click on the page
}

function say(text) {
  const line = state.box?.querySelector("#pace-message");
  if (line) line.textContent = text;
}

/** A new event while following live: a card sound (when sounds are on). */
export function onEvent(event) {
  if (CARD_EVENTS.has(event.type)) play("card");
}

/** After the page drew `view` (its title set): the turn signal and the skip button. `live`:
 * the page follows the game's newest version; `moving`: the seats asked to move now. */
export function onView(view, { live, moving }) {
  const you = view.you;
  const mine = live && view.status === "playing" && you !== null && you !== undefined
    && moving.includes(you) && view.legal_actions.length > 0;
  if (mine) {
    document.title = `● ${t("Your turn")} · ${document.title}`;
    if (!state.mine) yourTurn(view);
  }
  state.mine = mine;
  const button = state.box?.querySelector("#skip-end");
  if (button) button.hidden = !(live && view.skippable && state.token() && !state.skipped);
}

function yourTurn(view) {
  play("turn");
  if (document.hidden && "Notification" in window && Notification.permission === "granted") {
    try {
      new Notification(t("Your turn"), { body: document.title, tag: `batayo-${view.id}` });
    } catch {
      /* some browsers only notify from a service worker: the title says it */
    }
  }
}

async function skip(e) {
  e.target.disabled = true;
  try {
    await api(`/v1/games/${state.gameId}/skip`, { method: "POST", token: state.token() });
    state.skipped = true;
    e.target.hidden = true;
    say(t("The bots play the rest at full speed."));
  } catch (error) {
    e.target.disabled = false;
    say(`${error.message} (${error.code})`);
  }
}

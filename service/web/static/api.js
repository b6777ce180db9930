// api.js: the whole public API this site uses, in one small module.
//
// Every request goes through `api()`. It sends JSON, adds `Authorization: Bearer <token>` when a
// seat token is given (without one the caller is a spectator), and turns an error answer
// (application/problem+json, RFC 9457) into an ApiError carrying the problem's stable `code`.

/** An error answer of the API: `status`, the problem's `code` and its `detail` in words. */
export class ApiError extends Error {
  constructor(status, problem) {
    super(problem?.detail || `HTTP ${status}`);
    this.status = status;
    this.code = problem?.code || "http_error";
    this.problem = problem;
  }
}

/**
 * Call the API. `path` starts with /v1 (same origin as the page).
 * options: method ("GET"), body (sent as JSON), token (a seat's token), signal (AbortSignal).
 */
export async function api(path, { method = "GET", body, token, signal } = {}) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = `Bearer ${token}`;
  const response = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal,
    cache: "no-store",
  });
  const data = await response.json().catch(() => null);
  if (!response.ok) throw new ApiError(response.status, data);
  return data;
}

/** A query string from an object, leaving out empty values: {a: 1, b: ""} -> "?a=1". */
export function query(params) {
  const q = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== "") q.set(key, String(value));
  }
  const text = q.toString();
  return text ? `?${text}` : "";
}

// ---- the endpoints (openapi.yaml) -------------------------------------------------------

export const rules = () => api("/v1/rules");
export const listGames = (filters) => api(`/v1/games${query(filters)}`);
export const createGame = (body) => api("/v1/games", { method: "POST", body });
export const joinGame = (id, body) => api(`/v1/games/${id}/join`, { method: "POST", body });

/** The game as the caller may see it; `at` (a version) replays it as of that version. */
export const getGame = (id, { at, token, signal } = {}) =>
  api(`/v1/games/${id}${query({ at })}`, { token, signal });

/** Post one of the bodies listed in the view's `legal_actions`, exactly as listed. */
export const act = (id, action, token) =>
  api(`/v1/games/${id}/actions`, { method: "POST", body: action, token });

export const events = (id, { after = 0, limit = 100, token, signal } = {}) =>
  api(`/v1/games/${id}/events${query({ after, limit })}`, { token, signal });
export const ties = (id, { offset = 0, limit = 50, token } = {}) =>
  api(`/v1/games/${id}/ties${query({ offset, limit })}`, { token });
export const verify = (id) => api(`/v1/games/${id}/verify`);
/** Teach me: `{action, reason: {code, params}}`, or `{pending: true}` while a worker searches. */
export const hint = (id, token) => api(`/v1/games/${id}/hint`, { token });

// ---- live events: GET /v1/games/{id}/stream (server-sent events) -------------------------

/**
 * Follow a game's events live. `onEvent(event)` gets each event (the same JSON as the log);
 * its `version` is the SSE `id:`. Resumes after the last version seen if the connection drops,
 * so no event is missed or repeated; stops when the game has ended (the server closes the
 * stream after the final event) or when `stop()` is called.
 *
 * Why fetch() and not EventSource: EventSource cannot send `Authorization` (a seat sees its
 * own cards in its events), and it only delivers named events (`event: played`, ...) to
 * listeners registered for each name, with no catch-all. Reading the stream with fetch() and
 * parsing the text/event-stream format below is a few lines and has neither limit. With
 * EventSource, a spectator would do:
 *   const source = new EventSource(`/v1/games/${id}/stream?after=${version}`);
 *   source.addEventListener("played", (m) => ...);  // one listener per event type
 */
export function follow(id, { after = 0, token, onEvent, onEnd, onState }) {
  const controller = new AbortController();
  let last = after;
  let stopped = false;
  let ended = false;

  async function readOnce() {
    const headers = { Accept: "text/event-stream" };
    if (token) headers.Authorization = `Bearer ${token}`;
    // `?after=N` (or the Last-Event-ID header) resumes right after version N.
    const response = await fetch(`/v1/games/${id}/stream${query({ after: last })}`, {
      headers,
      signal: controller.signal,
      cache: "no-store",
    });
    if (!response.ok) throw new ApiError(response.status, await response.json().catch(() => null));
    onState?.("live");
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
      // Messages end with a blank line; fields are "name: value" lines; ":" starts a comment.
      let cut;
      while ((cut = buffer.search(/\r?\n\r?\n/)) >= 0) {
        const message = buffer.slice(0, cut);
        buffer = buffer.slice(cut).replace(/^\r?\n\r?\n/, "");
        const fields = { data: [] };
        for (const line of message.split(/\r?\n/)) {
          if (!line || line.startsWith(":")) continue;
          const colon = line.indexOf(":");
          const name = colon < 0 ? line : line.slice(0, colon);
          const text = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
          if (name === "data") fields.data.push(text);
          else fields[name] = text;
        }
        if (fields.id === undefined || !fields.data.length) continue; // "retry:" or keep-alive
        const event = JSON.parse(fields.data.join("\n"));
        last = Number(fields.id);
        if (event.type === "ended") ended = true;
        onEvent(event);
      }
    }
  }

  (async () => {
    let delay = 500;
    while (!stopped && !ended) {
      try {
        await readOnce();
        delay = 500;
      } catch (error) {
        if (stopped || error.name === "AbortError") break;
        if (error instanceof ApiError && error.status < 500 && error.status !== 429) break;
        onState?.("reconnecting");
        delay = Math.min(delay * 2, 8000);
      }
      if (stopped || ended) break;
      // The stream closed without the final event (a proxy timeout, a restart): resume.
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
    onState?.(ended ? "ended" : "stopped");
    if (ended) onEnd?.();
  })();

  return {
    stop() {
      stopped = true;
      controller.abort();
    },
  };
}

// ---- live over a WebSocket: GET /v1/games/{id}/socket -----------------------------------

/**
 * Follow a game over its WebSocket and play on it: the same contract as `follow` (each event
 * once, in order, resuming after the last version on any close but the game's end), plus the
 * views the server pushes (`view=1`: `onView(view)` after each batch) and `act(body)`, sent as
 * an `act` frame and answered by `acted` (resolves `{version}`) or `refused` (rejects with the
 * ApiError the POST would have thrown).
 *
 * The token never goes in the URL: a browser cannot set `Authorization` on a WebSocket, so a
 * seat offers the subprotocol `batayo.v1` and sends `{"auth": TOKEN}` first; a spectator
 * offers none and sends nothing. Close 1000 comes after a finished game's last event (the
 * end: no reconnection); 1008 says the token is refused (stop); anything else reconnects with
 * `after` = the last version received, and the actions not yet answered are sent again with
 * the same idempotency key (the server answers a repeat with the first one's answer).
 *
 * When the socket cannot open at all (no WebSocket in this browser, or the first upgrade
 * refused or failing), it falls back to `fallback` (server-sent events, `follow`) for the
 * events and to `POST …/actions` for `act`, for the rest of the page's life.
 */
export function socket(id, { after = 0, token, onEvent, onView, onEnd, onState, fallback = follow }) {
  let last = after;
  let stopped = false;
  let ended = false;
  let opened = false; // a socket opened once: later closes reconnect rather than fall back
  let ws = null;
  let retry = null;
  let delay = 500;
  let sse = null; // the fallback's follower, once the socket could not open
  let serial = 0;
  const waiting = new Map(); // id -> {frame, resolve, reject}: actions not answered yet

  function url() {
    const address = new URL(`/v1/games/${id}/socket${query({ after: last || undefined, view: 1 })}`, location.href);
    address.protocol = address.protocol === "https:" ? "wss:" : "ws:";
    return address.href;
  }

  function fallBack() {
    if (stopped || sse) return;
    ws = null;
    sse = fallback(id, { after: last, token, onEvent: deliver, onEnd, onState });
    // what was sent on no socket is posted now (each answer as the POST gives it)
    for (const [key, w] of waiting) {
      waiting.delete(key);
      act(id, w.action, token).then((answer) => w.resolve({ version: answer.game.version, game: answer.game }), w.reject);
    }
  }

  function deliver(event) {
    if (event.version <= last) return;
    last = event.version;
    if (event.type === "ended") ended = true;
    onEvent(event);
  }

  function answer(key, settle) {
    const w = waiting.get(key);
    if (!w) return;
    waiting.delete(key);
    settle(w);
  }

  function connect() {
    retry = null;
    if (stopped) return;
    if (typeof WebSocket !== "function") return fallBack();
    let me;
    try {
      me = token ? new WebSocket(url(), "batayo.v1") : new WebSocket(url());
    } catch {
      return fallBack();
    }
    ws = me;
    me.onopen = () => {
      if (me !== ws) return;
      opened = true;
      delay = 500;
      if (token) me.send(JSON.stringify({ auth: token }));
      onState?.("live");
      for (const w of waiting.values()) me.send(w.frame);
    };
    me.onmessage = (message) => {
      if (me !== ws || stopped) return;
      let msg;
      try {
        msg = JSON.parse(message.data);
      } catch {
        return;
      }
      if (msg.event) deliver(msg.event);
      else if (msg.view) onView?.(msg.view);
      else if (msg.acted) answer(String(msg.acted.id), (w) => w.resolve({ version: msg.acted.version }));
      else if (msg.refused && msg.refused.id !== null) {
        const problem = msg.refused.problem;
        answer(String(msg.refused.id), (w) => w.reject(new ApiError(problem?.status || 400, problem)));
      }
    };
    me.onclose = (close) => {
      if (me !== ws) return;
      ws = null;
      if (stopped) return;
      if (!opened) return fallBack(); // refused or unreachable from the start
      if (close.code === 1000) {
        // The game is over: its last event came; nothing to resume. An action still
        // unanswered was the one that ended it, or came too late to matter: either way what
        // it answers is the final view, which comes next.
        ended = true;
        onState?.("ended");
        onEnd?.();
        for (const [key, w] of waiting) (waiting.delete(key), w.resolve({ version: last }));
        return;
      }
      if (close.code === 1008) {
        stopped = true;
        onState?.("stopped");
        for (const [key, w] of waiting) (waiting.delete(key), w.reject(new ApiError(401, { code: "unauthorized", detail: close.reason || "the token was refused" })));
        return;
      }
      onState?.("reconnecting");
      retry = setTimeout(connect, delay);
      delay = Math.min(delay * 2, 8000);
    };
  }

  connect();

  return {
    /** Whether views come with the events (no need to fetch one after each event). */
    pushesViews: () => !sse,
    act(action) {
      if (sse) return act(id, action, token).then((answer) => ({ version: answer.game.version, game: answer.game }));
      const key = `a${++serial}`;
      // an idempotency key, so that a frame sent again after a reconnection acts once
      const idem = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}-${serial}`;
      const frame = JSON.stringify({ act: action, id: key, key: idem });
      return new Promise((resolve, reject) => {
        waiting.set(key, { action, frame, resolve, reject });
        if (ws && ws.readyState === WebSocket.OPEN) ws.send(frame);
      });
    },
    stop() {
      stopped = true;
      clearTimeout(retry);
      ws?.close(1000);
      ws = null;
      sse?.stop();
    },
  };
}

// ---- following a game: views and events in version order, never backwards ---------------

/**
 * Follow a game live: the one way the page hears of a game's progress. `onEvent(event)` gets
 * each event and `onView(view)` each view, both in version order, and neither ever goes
 * backwards: whatever brings a view (a refresh after an event, a view pushed on the socket,
 * the answer to one's own action, a reconnection), one not newer than the view last delivered
 * is dropped. So an answer that comes after a newer refresh never hides the move, and a
 * refresh that started before our action never undoes it. `onEnd(view)` comes once, after
 * the final view (the game's end) was delivered.
 *
 * `view` is the view the page starts from (its version is where the events resume). The
 * transport brings the events (`transport(id, {after, token, onEvent, onView, onEnd,
 * onState})`, returning `{stop()}` and optionally `act(body)` and `pushesViews()`): by
 * default `socket` (the game's WebSocket, which pushes views and carries our actions, and
 * falls back to server-sent events and POST when it cannot open); `follow` is server-sent
 * events alone. When the transport does not push views, they are fetched when events come:
 * at most one request at a time and one every `gap` ms, however fast the bots play (the API
 * is rate-limited per client and per token).
 *
 * Returns {act(body) -> the answer {version, game?} (rejects with an ApiError), offer(view)
 * -> whether it was delivered, refresh(), view() (the newest view delivered), version() (the
 * newest version heard of), stop()}.
 */
export function followGame(id, { view, token, onView, onEvent, onEnd, onState, transport = socket, gap = 200 }) {
  let newest = view;
  let heard = view.version;
  let lastEvent = view.version;
  let ended = view.status === "finished";
  let endSaid = false;
  let stopped = false;
  let timer = null;
  let inFlight = false;
  let pending = false;
  let lastFetch = 0;

  function offer(next) {
    if (stopped || !next || next.version <= newest.version) return false;
    newest = next;
    heard = Math.max(heard, next.version);
    onView?.(next);
    sayEnd();
    return true;
  }

  function sayEnd() {
    if (ended && !endSaid && newest.status === "finished" && newest.version >= heard) {
      endSaid = true;
      onEnd?.(newest);
    }
  }

  function refresh() {
    if (stopped) return;
    if (timer || inFlight) {
      pending = true;
      return;
    }
    timer = setTimeout(fetchView, Math.max(0, lastFetch + gap - Date.now()));
  }

  async function fetchView() {
    timer = null;
    inFlight = true;
    pending = false;
    lastFetch = Date.now();
    let retryIn = 0;
    try {
      const got = await getGame(id, { token });
      heard = Math.max(heard, got.version);
      if (!offer(got)) sayEnd();
    } catch (error) {
      retryIn = error.status === 429 ? (error.problem?.retry_after || 1) * 1000 : 2000;
      onState?.("reconnecting");
    } finally {
      inFlight = false;
      if (retryIn) setTimeout(refresh, retryIn);
      else if (pending || newest.version < heard) refresh();
    }
  }

  const pushed = () => stream?.pushesViews?.() === true;
  const stream = ended
    ? null
    : transport(id, {
        after: view.version,
        token,
        onEvent(event) {
          if (stopped || event.version <= lastEvent) return; // each event once, in order
          lastEvent = event.version;
          heard = Math.max(heard, event.version);
          if (event.type === "ended") ended = true;
          onEvent?.(event);
          if (!pushed()) refresh(); // else the batch's view follows its events
        },
        onView(next) {
          if (!offer(next)) sayEnd();
        },
        onEnd() {
          ended = true;
          if (newest.status === "finished" && newest.version >= heard) sayEnd();
          else refresh();
        },
        onState: (state) => onState?.(state),
      });

  /** Play `action` (one of the view's legal_actions, exactly as listed) on the transport
   * (an `act` frame on the socket), or by POST when it has no way to act. */
  async function play(action) {
    const answer = stream?.act
      ? await stream.act(action)
      : await act(id, action, token).then((a) => ({ version: a.game.version, game: a.game }));
    heard = Math.max(heard, answer.version);
    if (answer.game) offer(answer.game);
    if (newest.version < answer.version) refresh();
    return answer;
  }

  return {
    act: play,
    offer,
    refresh,
    view: () => newest,
    version: () => heard,
    stop() {
      stopped = true;
      clearTimeout(timer);
      stream?.stop();
    },
  };
}

/**
 * Whether the game stopped at `version`, given the event after it (or undefined when there is
 * none yet): the server writes a move's consequences (a reveal, a trick taken, a new deal) in
 * the same batch as the move, and only the first event of a batch says what caused it. A
 * version inside a batch is a moment nobody was asked to move at.
 */
export const stoppedAt = (next) => !next || "cause" in (next.data || {});

// ---- seat tokens, kept in this browser only ----------------------------------------------

const TOKENS = "batayo.tokens";

function allTokens() {
  try {
    return JSON.parse(localStorage.getItem(TOKENS) || "{}");
  } catch {
    return {};
  }
}

/** Every token this browser keeps, as {game id: token}, the most recently saved last: the
 * games it holds a seat in (the lobby's "My games"). */
export const savedTokens = () => allTokens();

/** The token saved for a game (shown once by create or join), or "". */
export function savedToken(gameId) {
  return allTokens()[gameId] || "";
}

export function saveToken(gameId, token) {
  const tokens = allTokens();
  delete tokens[gameId]; // saved again, it is the most recent
  if (token) tokens[gameId] = token;
  localStorage.setItem(TOKENS, JSON.stringify(tokens));
}

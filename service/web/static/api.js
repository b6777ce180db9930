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

// ---- following a game: views and events in version order, never backwards ---------------

/**
 * Follow a game live: the one way the page hears of a game's progress. `onEvent(event)` gets
 * each event and `onView(view)` each view, both in version order, and neither ever goes
 * backwards: whatever brings a view (a refresh after an event, the answer to one's own
 * action handed in with `offer`, a reconnection), one not newer than the view last delivered
 * is dropped. So an answer that comes after a newer refresh never hides the move, and a
 * refresh that started before our action never undoes it. `onEnd(view)` comes once, after
 * the final view (the game's end) was delivered.
 *
 * `view` is the view the page starts from (its version is where the events resume). The
 * transport only brings events (`transport(id, {after, token, onEvent, onEnd, onState})`,
 * returning `{stop()}`); today it is `follow` (server-sent events); another (a WebSocket) can
 * take its place with no change to the page. Views are fetched when events come: at most one
 * request at a time and one every `gap` ms, however fast the bots play (the API is
 * rate-limited per client and per token).
 *
 * Returns {offer(view) -> whether it was delivered, refresh(), view() (the newest view
 * delivered), version() (the newest version heard of), stop()}.
 */
export function followGame(id, { view, token, onView, onEvent, onEnd, onState, transport = follow, gap = 200 }) {
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
          refresh();
        },
        onEnd() {
          ended = true;
          refresh();
        },
        onState: (state) => onState?.(state),
      });

  return {
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

/** The token saved for a game (shown once by create or join), or "". */
export function savedToken(gameId) {
  return allTokens()[gameId] || "";
}

export function saveToken(gameId, token) {
  const tokens = allTokens();
  if (token) tokens[gameId] = token;
  else delete tokens[gameId];
  localStorage.setItem(TOKENS, JSON.stringify(tokens));
}

// A client of the generated contract, type-checked by `tsc --strict` (no `any`, no cast): it
// reads a view, posts one of its legal actions as is, reads each game's table, and types the
// messages of the live stream. tests/test_typed_clients.py generates build/schema.d.ts from
// openapi.yaml with openapi-typescript, then compiles this file.
import createClient from "openapi-fetch";
import type { components, paths } from "./build/schema";

type Schemas = components["schemas"];
type GameView = Schemas["GameView"];

const api = createClient<paths>({ baseUrl: "http://127.0.0.1:8000" });

/** One move for the seat: the first of its legal actions, posted exactly as the view gave it. */
export async function moveOnce(gameId: string, token: string): Promise<string> {
  const headers = { Authorization: `Bearer ${token}` };
  const path = { game_id: gameId };
  const got = await api.GET("/v1/games/{game_id}", { params: { path }, headers });
  if (got.error) return `refused: ${got.error.code} (${got.error.detail})`;
  const view: GameView = got.data;
  const action = view.legal_actions[0];
  if (action === undefined) return `nothing to do; ${describe(view)}`;
  const posted = await api.POST("/v1/games/{game_id}/actions", {
    params: { path, header: { "If-Match": `"${view.version}"` } },
    headers,
    body: action,
  });
  if (posted.error) return `refused: ${posted.error.code}`;
  const events = posted.data.events.map((e) => `${e.version} ${e.type}`).join(", ");
  return `${events}; now ${describe(posted.data.game)}`;
}

/** Each game's own table, read through its fields (the view's `game` tells them apart). */
export function describe(view: GameView): string {
  switch (view.game) {
    case "bataille": {
      const t: Schemas["BatailleTable"] = view.table;
      return `round ${t.round}, pot ${t.pot}, packs ${t.players.map((p) => p.pack).join("/")}`;
    }
    case "batak": {
      const t = view.table;
      const hand = t.hand === null ? "spectator" : t.hand.join(" ");
      return `deal ${t.deal} ${t.phase}, trump ${t.trump ?? "not named"}, hand ${hand}`;
    }
    case "batayo": {
      const t = view.table;
      const mine = t.your_card === undefined ? "" : `, committed ${t.your_card ?? "nothing"}`;
      return `trick ${t.trick}, ${t.players.map((p) => p.cards).join("/")} cards${mine}`;
    }
    case "roylet": {
      const t = view.table;
      return `round ${t.round} battle ${t.battle}: King ${t.tricks.king}, Allies ${t.tricks.allies}`;
    }
  }
}

/** The result, once there is one: each game's own figures. */
export function outcome(view: GameView): string {
  if (view.result === null) return "still playing";
  const winners = view.result.draw ? "a draw" : `won by ${view.result.winners.join(", ")}`;
  if (view.game === "batak" && view.result !== null) return `${winners}: ${view.result.scores}`;
  return `${winners} (${view.result.reason})`;
}

/** A message of /stream, its `data:` parsed: an event, or the view of `?view=1`. */
export function onMessage(message: Schemas["StreamMessage"]): string {
  if (message.event === "view" && "legal_actions" in message.data) {
    return describe(message.data);
  }
  return `event ${message.id}`;
}

/** A create body per game, typed: the options and bots are each game's own. */
export const create: Schemas["CreateGame"] = {
  game: "batak",
  options: { deals: 3, mode: "esli" },
  seats: [{ name: "Ana", client_seed: "mine" }, { bot: "expert" }, { bot: "greedy" }, { open: true }],
};

// What the types refuse: each marked line below must be a compile error (tsc fails when a
// marked line compiles), so none of the types above is `any` or too loose.
export function refused(view: GameView): void {
  if (view.game === "batak") {
    // @ts-expect-error: a Batak table has no pot
    void view.table.pot;
    // @ts-expect-error: tricks is a number of tricks, not text
    const bid: Schemas["BatakAction"] = { type: "bid", tricks: "6" };
    void bid;
  }
  // @ts-expect-error: no game has an action "fold"
  const fold: Schemas["Action"] = { type: "fold" };
  // @ts-expect-error: a seat is a person, a bot or open: not an empty object
  const seat: Schemas["BatakSeatRequest"] = {};
  void fold;
  void seat;
}

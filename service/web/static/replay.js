// replay.js: stepping through a game by move, and where in the game a version is.
//
// The server writes a move and its consequences (a reveal, a trick taken, a new deal) as one
// batch of events; only the first event of a batch carries its `cause`. A version inside a batch
// is a moment nobody was asked to move at, so a replay by move goes from the end of one batch to
// the end of the next, skipping those versions (the timeline can still step by event).

import { stoppedAt } from "./api.js";
import { t } from "./i18n.js";

/**
 * The version one move after (`dir` 1) or before (`dir` -1) `version`: the nearest version
 * where the game stopped (the next event starts a batch, or there is none yet). `eventAt(v)`
 * gives the event of version `v` when it is held; null when one needed is not held (fetch the
 * events, then ask again). Stepping back past the first stop gives version 1.
 */
export function moveFrom(version, dir, latest, eventAt) {
  for (let v = version + dir; v >= 1 && v <= latest; v += dir) {
    if (v === latest) return v;
    const next = eventAt(v + 1);
    if (!next) return null;
    if (stoppedAt(next)) return v;
  }
  return Math.max(1, Math.min(latest, version + dir));
}

const sum = (list) => (Array.isArray(list) ? list.reduce((a, b) => a + (Number(b) || 0), 0) : 0);

/** Where the game is at `view` in words, for the timeline's slider: the round, the deal and
 * trick, or the trick (empty for a game this page does not know). */
export function positionOf(view) {
  const tb = view?.table || {};
  if (!view || view.status === "open") return ""; // not dealt yet
  switch (view.game) {
    case "bataille":
      return t("Round {n}", { n: tb.round });
    case "batayo":
      if (tb.phase === "sudden_death") return t("Sudden death");
      return t("Trick {n}", { n: tb.trick });
    case "batak":
      if (tb.phase !== "play") return [t("Deal {n} of {deals}", { n: tb.deal, deals: tb.deals }), t(`phase:${tb.phase}`)].join(" · ");
      return [t("Deal {n} of {deals}", { n: tb.deal, deals: tb.deals }), t("Trick {n}", { n: Math.min(13, sum(tb.tricks_taken) + 1) })].join(" · ");
    case "roylet":
      return [t("Round {n}", { n: tb.round }), t("Battle {n}", { n: tb.battle })].join(" · ");
    default:
      return "";
  }
}

// How a finished game is told: who sat where, the match's length, and how
// each deal ended. The history list and the replay viewer both speak so.

import { t } from "./i18n.js";
import { botName, givenName, seatName, teamName } from "./model.js";

// Whether this browser's player sat at a seat (alone: a hot-seat table has no "you").
export function isYouSeat(seats, seat, mine = null) {
  const info = seats?.[seat];
  if (!info || info.kind !== "human") return false;
  if (mine) return mine.length === 1 && mine.includes(seat);
  return seats.filter((s) => s.kind === "human").length === 1;
}

// The name of whoever sat at a seat, as this browser's player reads it.
export function sitterName(seats, seat, mine = null) {
  const info = seats?.[seat];
  if (!info) return seatName(seat);
  if (info.kind === "bot") return botName(info);
  if (isYouSeat(seats, seat, mine)) return t("player.you");
  return givenName(info.name) || seatName(seat);
}

export function lengthText(matchTarget) {
  return matchTarget ? t("history.match_to", { target: matchTarget }) : t("history.single_deals");
}

// One line on how a deal ended (from the engine's verdict of the deal).
export function dealOutcome(v, seats, mine = null) {
  const who = (seat) => sitterName(seats, seat, mine);
  switch (v.result) {
    case "made":
    case "failed":
      return t(`history.result_${v.result}`, { team: teamName(v.bidder & 1), bid: v.bid, points: v.points[v.bidder & 1] });
    case "single-made":
    case "single-failed":
      return t(`history.result_${v.result.replace("-", "_")}`, { who: who(v.single) });
    default:
      return v.bidder === null ? t("result.headline_redeal") : t("result.headline_cancelled");
  }
}

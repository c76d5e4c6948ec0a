// Reading an observation: whose turn, what is legal, why a card is not,
// and every event in words. Nothing here touches the page.

import { cardName, cardShort, pointsOf, rankOf, strength, suitName, suitOf, SYMBOL } from "./cards.js";
import { has, num, t } from "./i18n.js";

export const SEAT_KEYS = ["south", "west", "north", "east"];
export const team = (seat) => seat & 1;
export const partner = (seat) => (seat + 2) % 4;

// The game as the client knows it (set by messages.js).
export const game = {
  id: null,
  setup: null, // public setup from the server
  seats: [], // seats this device controls
  views: {}, // seat -> observation
  events: {}, // seat -> event views of this deal
  hold: null,
  holdAt: null,
  canUndo: false,
  over: false,
  v: 0,
};

export function isHuman(seat) {
  return game.setup?.seats?.[seat]?.kind === "human";
}
export function isMine(seat) {
  return game.seats.includes(seat);
}
export function hotSeat() {
  return game.seats.length > 1;
}

export function seatName(seat) {
  return t(`seat.${SEAT_KEYS[seat]}`);
}

// A bot's name in the page's language: the characters' names are in the
// catalog ("রাজু", "राजू"); a contest bot keeps the name it was given.
export function botName(info) {
  const id = info?.character;
  if (id && has(`botname.${id}`)) return t(`botname.${id}`);
  if (!id && info?.name === "contest bot") return t("botname.contest"); // the server's default
  return info?.name || "";
}

// A character's rating on the bots' ladder (twentynine ladder), when the server
// has one: "1630 (±40)", the sentence that explains it, and the character as a
// seat's choice ("Dada · 1630 (±40)"). Nothing without a rating.
function rated(c) {
  return typeof c?.rating === "number" && Number.isFinite(c.rating);
}
function interval(c) {
  const ci = c.rating_ci95;
  return Array.isArray(ci) && ci.length === 2 && ci.every(Number.isFinite) ? ci : null;
}
export function ratingLabel(c) {
  if (!rated(c)) return "";
  const ci = interval(c);
  const rating = Math.round(c.rating);
  return ci ? t("rating.label", { rating, margin: Math.round((ci[1] - ci[0]) / 2) }) : num(rating);
}
export function ratingTitle(c) {
  if (!rated(c)) return null;
  const ci = interval(c);
  const rating = Math.round(c.rating);
  return ci ? t("rating.title", { rating, low: Math.round(ci[0]), high: Math.round(ci[1]) }) : t("rating.title_bare", { rating });
}
export function characterChoice(c) {
  const name = botName({ character: c.id, name: c.name });
  return rated(c) ? `${name} · ${ratingLabel(c)}` : name;
}

// The server names a person who gave no name after the seat or the host, in
// English ("South", "Host"): such a name is no name, and the page says the
// seat in its own language instead.
const DEFAULT_NAMES = new Set(["Host", "South", "West", "North", "East"]);
export function givenName(name) {
  return name && !DEFAULT_NAMES.has(name) ? name : "";
}

// The name of whoever sits at a seat, as the viewer should read it.
export function playerName(seat, viewer) {
  const info = game.setup?.seats?.[seat];
  if (!info) return seatName(seat);
  if (info.kind === "bot") return botName(info);
  if (!hotSeat() && seat === viewer) return t("player.you");
  return givenName(info.name) || seatName(seat);
}

// Subject of a sentence: "You" for the viewer in a one-person game, else the name.
export function who(seat, viewer) {
  return playerName(seat, viewer);
}

export function isYou(seat, viewer) {
  return seat !== null && seat === viewer && !hotSeat();
}

// The message `key`, or its "_you" form when the sentence is about the viewer.
export function tYou(key, seat, viewer, params = {}) {
  if (isYou(seat, viewer)) {
    const you = `${key}_you`;
    if (has(you) || has(`${you}.one`)) return t(you, params);
  }
  return t(key, { who: who(seat, viewer), ...params });
}

export function teamName(tm, short = false) {
  return t(short ? (tm === 0 ? "team.ns_short" : "team.ew_short") : tm === 0 ? "team.ns" : "team.ew");
}

export function groupLegal(legal) {
  const g = {
    any: legal.length > 0,
    bids: [],
    pass: false,
    trumps: [],
    seventh: false,
    single: false,
    double: false,
    redouble: false,
    set: false,
    pair: false,
    reveal: false,
    plays: new Set(),
  };
  for (const a of legal) {
    if ("bid" in a) g.bids.push(a.bid);
    else if ("pass" in a) g.pass = true;
    else if ("trump" in a) g.trumps.push(a.trump);
    else if ("play" in a) g.plays.add(a.play);
    else for (const k of ["seventh", "single", "double", "redouble", "set", "pair", "reveal"]) if (k in a) g[k] = true;
  }
  g.bids.sort((a, b) => a - b);
  return g;
}

export function myTurn(obs) {
  return obs && obs.seat !== null && obs.to_act === obs.seat && obs.legal.length > 0;
}

// The highest bid of the auction so far: {seat, bid} or null.
export function highestBid(obs) {
  let best = null;
  for (const a of obs.auction) if (a.bid > 0 && (!best || a.bid >= best.bid)) best = a;
  return best;
}

// Which card of the trick on the table wins so far (public knowledge only).
export function winningIndex(trick, obs) {
  if (!trick.length) return -1;
  const led = suitOf(trick[0].card);
  const trump = obs.trump_revealed && obs.single === null ? obs.trump : null;
  let best = 0;
  for (let i = 1; i < trick.length; i++) {
    const c = trick[i].card;
    const b = trick[best].card;
    const cTrump = trump && suitOf(c) === trump;
    const bTrump = trump && suitOf(b) === trump;
    if (cTrump && !bTrump) best = i;
    else if (cTrump === bTrump && suitOf(c) === suitOf(b) && strength(c) > strength(b)) best = i;
    else if (!cTrump && !bTrump && suitOf(c) === led && suitOf(b) !== led) best = i;
  }
  return best;
}

// Why a card of the viewer's hand cannot be played now (null when it can).
export function whyNot(obs, card, hold) {
  if (!obs) return t("why.wait");
  if (obs.phase === "over") return t("why.deal_over");
  const g = groupLegal(obs.legal);
  if (myTurn(obs) && g.plays.has(card)) return null;
  if (obs.phase === "auction") return t("why.auction");
  if (["trump", "single", "double", "redouble", "set"].includes(obs.phase))
    return myTurn(obs) ? t("why.decide_first") : t("why.before_play");
  if (obs.phase === "pair" && myTurn(obs)) return t("why.pair_first");
  if (!myTurn(obs)) return hold === "trick" ? t("why.next_trick") : t("why.not_turn");
  if (obs.asked === obs.seat) return t("why.must_trump");
  if (obs.trick.length) {
    const led = suitOf(obs.trick[0].card);
    return t("why.follow", { suit: suitName(led) });
  }
  return t("why.not_turn");
}

// What the viewer is asked to do now, in one line.
export function prompt(obs, viewer, hold = null) {
  if (!obs) return "";
  if (obs.phase === "over") return "";
  if (game.forfeit) return t("forfeit.title");
  if (hold === "trick" && !(myTurn(obs) && obs.phase === "pair")) return myTurn(obs) ? t("prompt.review_lead") : t("prompt.review");
  if (!myTurn(obs)) {
    if (obs.to_act === null) return t("prompt.waiting");
    return isHuman(obs.to_act) ? t("prompt.turn_of", { who: who(obs.to_act, viewer) }) : t("prompt.thinking", { who: who(obs.to_act, viewer) });
  }
  const g = groupLegal(obs.legal);
  switch (obs.phase) {
    case "auction": {
      const high = highestBid(obs);
      if (obs.duel && obs.duel.defender === obs.seat && obs.duel.challenger_bid)
        return t("prompt.duel_defend", { who: who(obs.duel.challenger, viewer), bid: obs.duel.challenger_bid });
      return high ? tYou("prompt.bid_over", high.seat, viewer, { bid: high.bid }) : t("prompt.bid_first", { min: g.bids[0] ?? "" });
    }
    case "trump":
      return g.seventh ? t("prompt.trump_seventh") : t("prompt.trump");
    case "single":
      return t("prompt.single");
    case "double":
      return t("prompt.double", { who: who(obs.bidder, viewer), bid: obs.bid });
    case "redouble":
      return t("prompt.redouble", { who: who(obs.doubler, viewer) });
    case "set":
      return t("prompt.set");
    case "pair":
      return t("prompt.pair");
    case "play": {
      if (obs.asked === obs.seat) return t("prompt.after_ask");
      if (!obs.trick.length) return t("prompt.lead");
      const led = suitOf(obs.trick[0].card);
      const follows = [...g.plays].some((c) => suitOf(c) === led);
      if (follows) return t("prompt.follow", { suit: suitName(led) });
      return g.reveal ? t("prompt.void_ask", { suit: suitName(led) }) : t("prompt.void", { suit: suitName(led) });
    }
    default:
      return "";
  }
}

// ----------------------------------------------------------------- events in words

// A sentence for the log and screen readers; null for events that say nothing.
export function describe(ev, viewer) {
  const w = (seat) => who(seat, viewer);
  switch (ev.type) {
    case "deal_start":
      return t("ev.deal_start", { n: ev.deal + 1, who: w(ev.dealer) });
    case "bid":
      return tYou("ev.bid", ev.seat, viewer, { bid: ev.bid });
    case "pass":
      return tYou(`ev.pass_${ev.stage}`, ev.seat, viewer);
    case "contract":
      return tYou(ev.forced ? "ev.contract_forced" : "ev.contract", ev.bidder, viewer, { bid: ev.bid });
    case "redeal":
      return t("ev.redeal");
    case "trump_chosen":
      if (ev.seventh) return tYou("ev.seventh", ev.seat, viewer);
      if (ev.trump && ev.seat === viewer) return t("ev.trump_mine", { suit: suitName(ev.trump) });
      return t("ev.trump_chosen", { who: w(ev.seat) });
    case "second_batch":
      return t("ev.second_batch");
    case "single":
      return tYou("ev.single", ev.seat, viewer);
    case "double":
    case "redouble":
    case "set":
      return tYou(`ev.${ev.type}`, ev.seat, viewer, { x: ev.multiplier });
    case "reveal":
      return tYou(ev.asked ? "ev.reveal_asked" : "ev.reveal", ev.seat, viewer, { suit: suitName(ev.trump) });
    case "play": {
      const line = tYou("ev.play", ev.seat, viewer, { card: cardName(ev.card) });
      return ev.signal ? `${line} ${t(`signal.${ev.signal}_said`)}` : line;
    }
    case "trick":
    {
      // the last trick's extra point (Modern) is said apart from the points of its cards
      const cardPoints = (ev.cards || []).reduce((sum, c) => sum + pointsOf(c), 0);
      if (ev.cards && ev.points > cardPoints) return tYou("ev.trick_last", ev.winner, viewer, { n: ev.trick, count: cardPoints });
      return tYou("ev.trick", ev.winner, viewer, { n: ev.trick, count: ev.points });
    }
    case "pair":
      return tYou("ev.pair", ev.seat, viewer, { suit: suitName(ev.trump), target: ev.target });
    case "deal_end":
      return t(`ev.deal_end_${ev.result.replace("-", "_")}`, { count: ev.stake ?? 0 });
    case "match_end":
      return t("ev.match_end", { team: teamName(ev.winner) });
    case "forfeit":
      return t("forfeit.event", { who: w(ev.seat), team: teamName(ev.team), message: ev.message });
    default:
      return null;
  }
}

// A short chip for the recent-events strip; null for events not shown there.
export function chip(ev, viewer) {
  const name = (seat) => playerName(seat, viewer);
  switch (ev.type) {
    case "bid":
      return { text: t("chip.bid", { who: name(ev.seat), bid: ev.bid }), kind: "bid" };
    case "pass":
      if (ev.stage === "auction") return { text: t("chip.pass", { who: name(ev.seat) }), kind: "pass" };
      if (ev.stage === "pair") return null;
      return { text: t(`chip.pass_${ev.stage}`, { who: name(ev.seat) }), kind: "pass" };
    case "contract":
      return { text: t(ev.forced ? "chip.contract_forced" : "chip.contract", { who: name(ev.bidder), bid: ev.bid }), kind: "contract" };
    case "redeal":
      return { text: t("chip.redeal"), kind: "contract" };
    case "trump_chosen":
      if (ev.seventh) return { text: t("chip.seventh", { who: name(ev.seat) }), kind: "trump" };
      if (ev.trump && ev.seat === viewer) return { text: t("chip.trump_mine", { sym: SYMBOL[ev.trump] }), kind: "trump", suit: ev.trump };
      return { text: t("chip.trump_chosen", { who: name(ev.seat) }), kind: "trump" };
    case "single":
      return { text: t("chip.single", { who: name(ev.seat) }), kind: "double" };
    case "double":
    case "redouble":
    case "set":
      return { text: t(`chip.${ev.type}`, { who: name(ev.seat), x: ev.multiplier }), kind: "double" };
    case "reveal":
      return { text: t(ev.asked ? "chip.reveal_asked" : "chip.reveal", { who: name(ev.seat), sym: SYMBOL[ev.trump], n: ev.trick }), kind: "trump", suit: ev.trump };
    case "pair":
      return { text: t("chip.pair", { who: name(ev.seat), target: ev.target }), kind: "pair" };
    default:
      return null;
  }
}

export { cardName, cardShort, pointsOf, rankOf, suitOf };

// The score sheet of a table that plays with real cards: the browser's copy of
// twentynine/game/scoring.py, rule for rule, so the page works offline without the
// server. A browser test runs one table of cases through both and compares.
// No DOM here: the page lives in scorepage.js.
//
// An entry (the JSON form of scoring.Entry):
//   {kind: "contract", team: 0|1, bid, pair: 0|1|null, points | failed_by | made,
//    under_half: bool, doubling: 1|2|4|6}
//   {kind: "single", team, made}      {kind: "cancelled"}
// Rules are the options object of a profile (meta.profiles[name] plus overrides).

export const CONTRACT = "contract";
export const SINGLE = "single";
export const VOID = "cancelled";
export const KINDS = [CONTRACT, SINGLE, VOID];
export const DOUBLINGS = [1, 2, 4, 6];
const SET_MULTIPLIER = 6;
const PAIR_SHIFT = 4;
const BANGLADESH_PAIR_FLOOR = 16;
const CARD_POINTS = 28;
const ABSOLUTE_MAX_BID = 29;
const SINGLE_HAND_DEFAULT_STAKE = 3;
const ENTRY_KEYS = ["kind", "team", "bid", "pair", "points", "failed_by", "made", "under_half", "doubling"];

export class ScoreError extends Error {
  constructor(code, params = {}, deal = null) {
    super(code);
    this.code = code;
    this.params = params;
    this.deal = deal;
  }
  at(deal) {
    return new ScoreError(this.code, this.params, deal);
  }
}

const fail = (code, params = {}) => new ScoreError(code, params);

export function totalPoints(r) {
  return CARD_POINTS + (r.last_trick_point ? 1 : 0);
}

export function singleStake(r) {
  if (!r.single_hand) return 0;
  return r.single_hand === true ? SINGLE_HAND_DEFAULT_STAKE : Number(r.single_hand);
}

// engine.lowered_target / raised_target
export function loweredTarget(r, bid) {
  if (r.pair === "bangladesh") {
    if (bid <= BANGLADESH_PAIR_FLOOR + 2) return bid;
    if (bid <= BANGLADESH_PAIR_FLOOR + PAIR_SHIFT) return Math.max(BANGLADESH_PAIR_FLOOR, r.min_bid);
    return Math.max(bid - PAIR_SHIFT, r.min_bid);
  }
  return Math.max(bid - PAIR_SHIFT, r.min_bid);
}

export function raisedTarget(r, bid) {
  return Math.min(bid + PAIR_SHIFT, r.max_bid);
}

export function contractTarget(r, bid, pair, team) {
  if (pair === null || pair === undefined) return bid;
  return pair === team ? loweredTarget(r, bid) : raisedTarget(r, bid);
}

export function contractStake(r, bid, doubling, underHalfLoss) {
  let stake = 1;
  if (r.auto_double_from !== null && r.auto_double_from !== undefined && bid >= r.auto_double_from) stake = 2;
  stake *= doubling;
  if (underHalfLoss) stake *= 2;
  return stake;
}

// Options that cannot be played together (rules._check, for the options the scorer offers).
export function checkRules(r) {
  if (!(r.min_bid >= 1)) return { code: "rules_min_low", params: { min: r.min_bid } };
  if (r.max_bid > ABSOLUTE_MAX_BID) return { code: "rules_max_high", params: { max: r.max_bid } };
  if (r.max_bid > CARD_POINTS && !r.last_trick_point) return { code: "rules_max_needs_last", params: { max: r.max_bid } };
  if (r.min_bid > r.max_bid) return { code: "rules_min_above_max", params: { min: r.min_bid, max: r.max_bid } };
  if (r.allow_set && !r.doubling) return { code: "rules_set_needs_doubling", params: {} };
  if (r.auto_double_from !== null && r.auto_double_from !== undefined && !(r.min_bid <= r.auto_double_from && r.auto_double_from <= r.max_bid))
    return { code: "rules_auto_double", params: { bid: r.auto_double_from, min: r.min_bid, max: r.max_bid } };
  if (r.match_target !== null && r.match_target !== undefined && !(r.match_target >= 1)) return { code: "rules_match_target", params: {} };
  return null;
}

function isInt(v) {
  return typeof v === "number" && Number.isInteger(v);
}

// Entry.from_json: a stored or typed entry, read strictly.
export function readEntry(obj) {
  if (!obj || typeof obj !== "object" || Array.isArray(obj)) throw fail("entry_type");
  for (const k of Object.keys(obj)) if (!ENTRY_KEYS.includes(k)) throw fail("entry_key", { key: k });
  const kind = obj.kind ?? CONTRACT;
  if (!KINDS.includes(kind)) throw fail("entry_kind", { kind: String(kind) });
  const e = { kind, team: null, bid: null, pair: null, points: null, failed_by: null, made: null, under_half: false, doubling: 1 };
  for (const key of ["team", "pair"]) {
    const v = obj[key] ?? null;
    if (v !== null && v !== 0 && v !== 1) throw fail("entry_team");
    e[key] = v;
  }
  for (const key of ["bid", "points", "failed_by"]) {
    const v = obj[key] ?? null;
    if (v !== null && !isInt(v)) throw fail("entry_number");
    e[key] = v;
  }
  for (const key of ["made", "under_half"]) {
    const v = obj[key] ?? (key === "made" ? null : false);
    if (v !== null && typeof v !== "boolean") throw fail("entry_flag");
    e[key] = v;
  }
  const d = obj.doubling ?? 1;
  if (!DOUBLINGS.includes(d)) throw fail("entry_doubling");
  e.doubling = d;
  return e;
}

// Entry.to_json: the entry without its defaults.
export function entryJson(e) {
  const out = { kind: e.kind };
  const defaults = { team: null, bid: null, pair: null, points: null, failed_by: null, made: null, under_half: false, doubling: 1 };
  for (const key of ENTRY_KEYS.slice(1)) {
    const v = e[key] ?? defaults[key];
    if (v !== defaults[key]) out[key] = v;
  }
  return out;
}

function checkBid(r, bid) {
  if (bid < r.min_bid) throw fail("bid_low", { bid, min: r.min_bid });
  if (bid > r.max_bid) throw fail("bid_high", { bid, max: r.max_bid });
}

// scoring.check_entry
export function checkEntry(r, e) {
  if (e.kind === VOID) {
    if (r.unrevealed !== "cancel" && r.all_pass !== "redeal") throw fail("void_impossible");
    for (const key of ["pair", "points", "failed_by", "made"]) if (e[key] !== null) throw fail("void_extra");
    if (e.under_half || e.doubling !== 1) throw fail("void_extra");
    if (e.bid !== null) checkBid(r, e.bid);
    return;
  }
  if (e.team !== 0 && e.team !== 1) throw fail("team_missing");
  if (e.kind === SINGLE) {
    if (!r.single_hand) throw fail("single_off");
    if (e.bid !== null || e.pair !== null || e.doubling !== 1) throw fail("single_with_bid");
    if (e.points !== null || e.failed_by !== null || e.under_half) throw fail("single_with_points");
    if (e.made === null) throw fail("single_outcome");
    return;
  }
  if (e.bid === null) throw fail("bid_missing");
  checkBid(r, e.bid);
  if (e.pair !== null) {
    if (r.pair === "off") throw fail("pair_off");
    if (e.pair !== 0 && e.pair !== 1) throw fail("pair_team");
  }
  if (e.doubling !== 1) {
    if (!r.doubling) throw fail("doubling_off");
    if (e.doubling === SET_MULTIPLIER && !r.allow_set) throw fail("set_off");
  }
  const given = ["points", "failed_by", "made"].filter((k) => e[k] !== null);
  if (!given.length) throw fail("outcome_missing");
  if (given.length > 1) throw fail("outcome_twice");
  const total = totalPoints(r);
  if (e.points !== null && !(e.points >= 0 && e.points <= total)) {
    if (e.points < 0) throw fail("points_negative", { points: e.points });
    throw fail("points_above_total", { points: e.points, total });
  }
  if (e.failed_by !== null) {
    const target = contractTarget(r, e.bid, e.pair, e.team);
    if (e.failed_by < 1) throw fail("failed_by_low");
    if (e.failed_by > target) throw fail("failed_by_high", { failed_by: e.failed_by, target });
  }
  if (e.under_half) {
    if (!r.under_half) throw fail("under_half_off");
    if (e.made !== true && e.made !== false) throw fail("under_half_with_points");
    if (e.made) throw fail("under_half_made");
  }
}

// scoring.score_entry: {target, points, result, stake, delta, under_half, capped, floored}
export function scoreEntry(r, e) {
  checkEntry(r, e);
  if (e.kind === VOID) return { target: null, points: null, result: "cancelled", stake: 0, delta: [0, 0], under_half: false, capped: false, floored: false };
  if (e.kind === SINGLE) {
    const stake = singleStake(r);
    const sign = e.made ? 1 : -1;
    const delta = e.team === 0 ? [sign * stake, 0] : [0, sign * stake];
    return { target: null, points: null, result: e.made ? "single-made" : "single-failed", stake, delta, under_half: false, capped: false, floored: false };
  }
  const target = contractTarget(r, e.bid, e.pair, e.team);
  const capped = e.pair !== null && e.pair !== e.team && e.bid + PAIR_SHIFT > r.max_bid;
  const floored = e.pair === e.team && r.pair === "standard" && e.bid - PAIR_SHIFT < r.min_bid;
  let points = e.points;
  if (e.failed_by !== null) points = target - e.failed_by;
  let made;
  let under;
  if (points !== null) {
    made = points >= target;
    under = !made && !!r.under_half && 2 * points < e.bid;
  } else {
    made = !!e.made;
    under = !made && !!e.under_half;
  }
  const stake = contractStake(r, e.bid, e.doubling, under);
  const sign = made ? 1 : -1;
  const delta = e.team === 0 ? [sign * stake, 0] : [0, sign * stake];
  return { target, points, result: made ? "made" : "failed", stake, delta, under_half: under, capped, floored };
}

// engine.Match._deal_over
export function matchWinner(r, score) {
  const target = r.match_target;
  if (target === null || target === undefined) return null;
  let winner = null;
  for (const team of [0, 1]) {
    if (score[team] >= target) winner = team;
    else if (score[team] <= -target) winner = 1 - team;
  }
  return winner;
}

// scoring.score_sheet: every entry scored in order; throws ScoreError (with .deal).
export function scoreSheet(r, entries) {
  const lines = [];
  let score = [0, 0];
  let winner = null;
  entries.forEach((raw, i) => {
    if (winner !== null) throw new ScoreError("after_end", { deal: i, winner }, i);
    let line;
    try {
      const e = readEntry(raw);
      line = { entry: entryJson(e), ...scoreEntry(r, e) };
    } catch (err) {
      if (err instanceof ScoreError) throw err.at(i);
      throw err;
    }
    score = [score[0] + line.delta[0], score[1] + line.delta[1]];
    winner = matchWinner(r, score);
    lines.push({ ...line, score, winner });
  });
  return lines;
}

// Sheet.replace: correct entry i; a change that would end the match before the
// later entries is refused.
export function replaceEntry(r, entries, index, entry) {
  if (!(index >= 0 && index < entries.length)) throw new ScoreError("no_such_deal", { deal: index + 1, count: entries.length });
  const next = entries.slice();
  next[index] = entry;
  try {
    scoreSheet(r, next);
  } catch (err) {
    if (err instanceof ScoreError && err.code === "after_end") throw new ScoreError("edit_ends_match", { deal: err.params.deal }, index);
    throw err;
  }
  return next;
}

export function deleteEntry(r, entries, index) {
  if (!(index >= 0 && index < entries.length)) throw new ScoreError("no_such_deal", { deal: index + 1, count: entries.length });
  const next = entries.slice(0, index).concat(entries.slice(index + 1));
  scoreSheet(r, next);
  return next;
}

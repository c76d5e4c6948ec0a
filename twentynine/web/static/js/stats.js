// Statistics of this browser's games, kept in localStorage: deals and
// matches played and won, contracts made as bidder and beaten as defender,
// by rules profile and by the bots faced, with a small chart (SVG, drawn
// here). Each finished deal is noted once (by game and deal number), from
// the side of the first person at the table; a watcher notes nothing.
// The server counts the same figures from the games' own moves, for the
// games this browser holds a token of (POST /api/stats, server/stats.py).

import { postJson } from "./api.js";
import { h, replace, s } from "./dom.js";
import { knownGames } from "./history.js";
import { num, t } from "./i18n.js";

const KEY = "twentynine.stats";

function load() {
  try {
    const saved = JSON.parse(localStorage.getItem(KEY) || "null");
    if (saved && Array.isArray(saved.deals) && Array.isArray(saved.matches)) return saved;
  } catch {
    /* a damaged record starts again */
  }
  return { deals: [], matches: [], names: {} };
}

function save(data) {
  try {
    localStorage.setItem(KEY, JSON.stringify(data));
  } catch {
    /* private mode or full: the statistics last for this page only */
  }
}

const team = (seat) => seat & 1;

// After an update: note a finished deal, and a finished match.
export function note(events, { id, obs, setup, seats, spectator, fresh }) {
  if (fresh || spectator || !setup || !seats?.length) return;
  const ends = events.filter((e) => e.type === "deal_end" || e.type === "match_end");
  if (!ends.length) return;
  const mine = team(seats[0]);
  const bots = setup.seats.filter((p) => p.kind === "bot" && team(p.seat) !== mine).map((p) => p.character || p.name);
  const partner = setup.seats.find((p) => p.seat === (seats[0] + 2) % 4);
  const data = load();
  data.names ||= {};
  for (const p of setup.seats) if (p.kind === "bot" && p.character) data.names[p.character] = p.name;
  for (const ev of ends) {
    if (ev.type === "deal_end") {
      const key = `${id}:${obs?.deal_index}`;
      if (!obs || data.deals.some((d) => d.key === key)) continue;
      const declarer = obs.single ?? obs.bidder ?? null;
      if (declarer === null || ev.result === "cancelled") continue; // a redeal or a cancelled deal is no contest
      const bidding = team(declarer) === mine;
      const made = ev.result === "made" || ev.result === "single-made";
      data.deals.push({ key, at: Date.now(), profile: setup.profile, bots, partner: partner?.character || null, bidding, made, won: bidding === made });
    } else {
      if (data.matches.some((m) => m.id === id)) continue;
      data.matches.push({ id, at: Date.now(), profile: setup.profile, bots, won: ev.winner === mine });
    }
  }
  if (data.deals.length > 5000) data.deals.splice(0, data.deals.length - 5000);
  save(data);
}

// The figures the page shows (and the tests read).
export function summary() {
  const { deals, matches } = load();
  const tally = (list) => ({ played: list.length, won: list.filter((d) => d.won).length });
  const group = (key) => {
    const out = {};
    for (const d of deals) for (const k of [].concat(d[key])) (out[k] ||= []).push(d);
    return Object.fromEntries(Object.entries(out).map(([k, list]) => [k, tally(list)]));
  };
  const bidder = deals.filter((d) => d.bidding);
  const defender = deals.filter((d) => !d.bidding);
  return {
    deals: tally(deals),
    matches: tally(matches),
    bidder: { played: bidder.length, made: bidder.filter((d) => d.made).length },
    defender: { played: defender.length, beaten: defender.filter((d) => !d.made).length },
    byProfile: group("profile"),
    byBot: group("bots"),
    names: load().names || {},
  };
}

export function clear() {
  save({ deals: [], matches: [], names: {} });
}

const pct = (won, played) => (played ? Math.round((100 * won) / played) : 0);

// Bars of the deals won against each bot (and by each profile).
function chart(rows, label) {
  const bar = 18;
  const gap = 8;
  const width = 320;
  const left = 96;
  const height = rows.length * (bar + gap) + gap;
  const svg = s("svg", { class: "stats-chart", viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": label, "data-testid": "stats-chart" });
  rows.forEach(([name, tl], i) => {
    const y = gap + i * (bar + gap);
    const share = pct(tl.won, tl.played);
    svg.append(
      s("text", { x: left - 6, y: y + bar * 0.72, "text-anchor": "end", class: "stats-chart-label" }, name),
      s("rect", { x: left, y, width: width - left - 40, height: bar, rx: 4, class: "stats-bar-bg" }),
      s("rect", { x: left, y, width: ((width - left - 40) * share) / 100, height: bar, rx: 4, class: "stats-bar", "data-name": name, "data-share": share }),
      s("text", { x: width - 34, y: y + bar * 0.72, class: "stats-chart-value" }, `${num(share)}%`),
    );
  });
  return svg;
}

function figure(testid, label, value) {
  return h("div", { class: "stats-figure", dataset: { testid } }, h("span", { class: "stats-label" }, label), h("b", { class: "stats-value" }, value));
}

// The figures of a summary (this browser's or the server's), then by bot and by profile.
function figures(sm, { botName, profileName, prefix = "" }) {
  const line = (tl) => t("stats.won_of", { won: tl.won, count: tl.played, pct: pct(tl.won, tl.played) });
  const bots = Object.entries(sm.byBot).map(([k, v]) => [sm.names[k] || botName(k), v]);
  const profiles = Object.entries(sm.byProfile).map(([k, v]) => [profileName(k), v]);
  const chartOf = (rows, aria) => {
    const svg = chart(rows, aria);
    svg.dataset.testid = `${prefix}stats-chart`;
    return svg;
  };
  return [
    h(
      "div",
      { class: "stats-figures" },
      figure(`${prefix}stats-deals`, t("stats.deals"), line(sm.deals)),
      figure(`${prefix}stats-matches`, t("stats.matches"), line(sm.matches)),
      figure(`${prefix}stats-bidder`, t("stats.as_bidder"), t("stats.made_of", { made: sm.bidder.made, count: sm.bidder.played })),
      figure(`${prefix}stats-defender`, t("stats.as_defender"), t("stats.beaten_of", { beaten: sm.defender.beaten, count: sm.defender.played })),
    ),
    h("section", { class: "rules-section" }, h("h3", {}, t("stats.by_bot")), chartOf(bots, t("stats.chart_aria"))),
    h("section", { class: "rules-section" }, h("h3", {}, t("stats.by_profile")), chartOf(profiles, t("stats.chart_profile_aria"))),
  ];
}

// The page's body: this browser's figures, then the server's (filled in when they come).
export function statsBody({ botName = (id) => id, profileName, onClear }) {
  const sm = summary();
  const names = { botName, profileName };
  const mine =
    !sm.deals.played && !sm.matches.played
      ? [h("p", { class: "lead", dataset: { testid: "stats-empty" } }, t("stats.empty"))]
      : [...figures(sm, names), h("p", {}, h("button", { type: "button", dataset: { testid: "stats-clear" }, onclick: onClear }, t("stats.clear")))];
  const server = h(
    "section",
    { class: "stats-server", dataset: { testid: "stats-server", state: "loading" }, "aria-live": "polite" },
    h("h2", {}, t("stats.server_title")),
    h("p", {}, t("stats.server_loading")),
  );
  fillServer(server, names);
  return [h("section", { class: "stats-browser" }, h("h2", {}, t("stats.browser_title")), ...mine), server];
}

// The server's count of the games this browser holds a token of.
export function serverSummary() {
  const games = knownGames().map((e) => ({ game: e.id, token: e.token }));
  if (!games.length) return Promise.resolve({ games: 0, missing: [] });
  return postJson("/api/stats", { games: games.slice(0, 200) }, (body) => typeof body.games === "number");
}

async function fillServer(section, names) {
  const answer = await serverSummary();
  const head = h("h2", {}, t("stats.server_title"));
  if (answer.offline || answer.error) {
    section.dataset.state = answer.offline ? "offline" : "error";
    replace(section, head, h("p", {}, answer.offline ? t("stats.server_offline") : t("stats.server_failed", { text: answer.error })));
  } else if (!answer.games) {
    section.dataset.state = "none";
    replace(section, head, h("p", {}, t("stats.server_none")));
  } else {
    section.dataset.state = "ready";
    replace(section, head, h("p", { class: "lead" }, t("stats.server_lead", { count: answer.games })), ...figures(answer, { ...names, prefix: "server-" }));
  }
}

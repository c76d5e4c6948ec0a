// The history page (#history): the games this browser has held, as the
// server sums them up, with a replay (#replay/<id>, see replay.js) and a JSON
// export of each. The server keeps no list of anyone's games: this browser
// remembers every (game id, token) pair it was given (localStorage) and asks
// the server about those. The history needs the server; without it the page
// says so and offers to try again.

import { postJson } from "./api.js";
import { h, replace } from "./dom.js";
import { formatDate, num, t } from "./i18n.js";
import { teamName } from "./model.js";
import { buildReplay } from "./replay.js";
import { dealOutcome, lengthText, sitterName } from "./summary.js";

const KEY = "twentynine.history";
const LIMIT = 200; // the server answers for at most 200 games at a time
const ROUTE = /^#(history|replay\/([A-Za-z0-9_\-.~]{1,128}))$/;

// ------------------------------------------------------------------ the list of games

function readList() {
  try {
    const list = JSON.parse(localStorage.getItem(KEY) || "[]");
    if (!Array.isArray(list)) return [];
    return list.filter((e) => e && typeof e.id === "string" && typeof e.token === "string");
  } catch {
    return []; // a broken list starts afresh
  }
}

function writeList(list) {
  try {
    localStorage.setItem(KEY, JSON.stringify(list.slice(0, LIMIT)));
  } catch {
    /* private mode or a full storage: the history just stays as it was */
  }
}

// Every game id and token this browser holds, the most recently seen first.
export function knownGames() {
  return readList();
}

// Remember a game this browser holds a token for (the seats, when the token
// is for some seats of a multiplayer table). Calling it again moves it first.
export function rememberGame({ id, token, seats } = {}) {
  if (typeof id !== "string" || typeof token !== "string" || !id || !token) return;
  const list = readList();
  const now = Date.now();
  const i = list.findIndex((e) => e.id === id && e.token === token);
  const old = i >= 0 ? list.splice(i, 1)[0] : null;
  const entry = { id, token, at: old?.at ?? now, last: now };
  const held = Array.isArray(seats) ? seats : old?.seats;
  if (Array.isArray(held)) entry.seats = held.filter((s) => Number.isInteger(s) && s >= 0 && s < 4);
  list.unshift(entry);
  writeList(list);
}

function forget(ids) {
  const gone = new Set(ids);
  writeList(readList().filter((e) => !gone.has(e.id)));
}

// The entries of one game (a browser may hold several seats' tokens for it).
export function entriesOf(id) {
  return readList().filter((e) => e.id === id);
}

export function isHistoryRoute(hash) {
  return ROUTE.test(hash || "");
}

export function exportUrl(id, token) {
  return `/api/games/${encodeURIComponent(id)}/export?token=${encodeURIComponent(token)}`;
}

// ------------------------------------------------------------------ words

function signed(n) {
  return n > 0 ? `+${num(n)}` : num(n);
}

function when(seconds, fallbackMs) {
  const ms = typeof seconds === "number" ? seconds * 1000 : fallbackMs;
  if (typeof ms !== "number") return "";
  return formatDate(new Date(ms));
}

function playersLine(g, mine) {
  return [0, 1]
    .map((tm) => t("history.team_players", { team: teamName(tm, true), a: sitterName(g.seats, tm, mine), b: sitterName(g.seats, tm + 2, mine) }))
    .join(" · ");
}

function resultLine(g, mine) {
  if (g.winner !== null) return t("history.match_won", { team: teamName(g.winner), a: signed(g.score[0]), b: signed(g.score[1]) });
  const parts = [];
  if (g.status !== "finished") parts.push(t("history.in_progress"));
  if (g.last_deal) parts.push(dealOutcome(g.last_deal, g.seats, mine));
  if (g.match_target && g.deals) parts.push(t("history.score", { ns: teamName(0, true), a: signed(g.score[0]), ew: teamName(1, true), b: signed(g.score[1]) }));
  if (!g.deals) parts.push(t("history.no_deal_yet"));
  return parts.join(" · ");
}

// ------------------------------------------------------------------ the page

function askServer(entries) {
  const games = entries.map((e) => ({ game: e.id, token: e.token }));
  return postJson("/api/history", { games }, (body) => Array.isArray(body.games));
}

function header(titleKey, leadKey, onBack) {
  return h(
    "header",
    { class: "history-header" },
    h("div", { class: "history-title-row" }, h("h1", { id: "history-title", tabindex: "-1" }, t(titleKey)), h("button", { type: "button", class: "quiet", dataset: { testid: "history-back" }, onclick: onBack }, t("history.back"))),
    leadKey ? h("p", { class: "lead muted" }, t(leadKey)) : null,
  );
}

function gameCard(g, entry, { onResume }) {
  const mine = entry.seats || null;
  const changed = Object.keys(g.options || {}).filter((k) => k !== "match_target").length;
  const facts = [when(g.created, entry.at), t(`profile.${g.profile}.name`), lengthText(g.match_target)];
  if (changed) facts.push(t("history.options_changed", { count: changed }));
  const actions = h("div", { class: "history-actions" });
  if (g.deals) {
    actions.append(h("a", { class: "button primary", href: `#replay/${encodeURIComponent(g.game)}`, dataset: { testid: "history-replay" } }, t("history.replay")));
  }
  actions.append(
    h("a", { class: "button", href: exportUrl(g.game, entry.token), download: `29-${g.game}.json`, dataset: { testid: "history-export" } }, t("history.export")),
  );
  if (g.status !== "finished" && g.resumable) {
    actions.append(h("button", { type: "button", dataset: { testid: "history-resume" }, onclick: () => onResume(g.game, entry.token) }, t("history.resume")));
  }
  return h(
    "li",
    { class: ["history-game", `status-${g.status}`], dataset: { testid: "history-game", game: g.game, status: g.status } },
    h("p", { class: "history-facts" }, facts.filter(Boolean).join(" · ")),
    h("p", { class: "history-players" }, playersLine(g, mine)),
    h("p", { class: "history-result", dataset: { testid: "history-result" } }, g.status !== "finished" ? h("span", { class: "badge badge-live" }, t("history.live_badge")) : null, " ", resultLine(g, mine)),
    h("p", { class: "history-deals muted" }, t("history.deals", { count: g.deals })),
    actions,
  );
}

function buildList(root, { onBack, onResume }) {
  const status = h("div", { class: "history-status", role: "status", dataset: { testid: "history-status" } }, t("history.loading"));
  const list = h("ol", { class: "history-list", dataset: { testid: "history-list" } });
  const page = h("div", { class: "history-page" }, header("history.title", "history.lead", onBack), status, list);
  replace(root, page);

  async function load() {
    const entries = readList();
    replace(status, t("history.loading"));
    status.dataset.state = "loading";
    replace(list);
    if (!entries.length) {
      replace(status, t("history.empty"));
      status.dataset.state = "empty";
      return;
    }
    const answer = await askServer(entries);
    if (!root.isConnected || !page.isConnected) return;
    if (answer.offline || answer.error) {
      status.dataset.state = answer.offline ? "offline" : "error";
      replace(
        status,
        h("p", { class: "history-problem" }, answer.offline ? t("history.offline") : t("history.failed", { text: answer.error })),
        h("button", { type: "button", dataset: { testid: "history-retry" }, onclick: load }, t("history.retry")),
      );
      return;
    }
    const byId = new Map();
    for (const e of entries) if (!byId.has(e.id)) byId.set(e.id, e);
    const found = new Map(answer.games.map((g) => [g.game, g]));
    const shown = [...byId.values()].filter((e) => found.has(e.id));
    replace(list, shown.map((e) => gameCard(found.get(e.id), e, { onResume })));
    status.dataset.state = "ready";
    const notes = [];
    if (!shown.length) notes.push(h("p", {}, t("history.none_found")));
    if (answer.missing.length) {
      notes.push(
        h(
          "p",
          { class: "muted" },
          t("history.missing", { count: answer.missing.length }),
          " ",
          h(
            "button",
            {
              type: "button",
              class: "quiet small",
              dataset: { testid: "history-forget" },
              onclick: () => {
                forget(answer.missing);
                load();
              },
            },
            t("history.forget"),
          ),
        ),
      );
    }
    replace(status, notes);
  }

  load();
  return { focus: () => page.querySelector("#history-title")?.focus() };
}

// Show the page of a history route (#history or #replay/<id>) in `root`.
export function buildHistory(root, hash, { onBack, onResume }) {
  const m = ROUTE.exec(hash || "");
  if (m && m[2]) {
    const id = decodeURIComponent(m[2]);
    const entry = entriesOf(id)[0] || null;
    return buildReplay(root, {
      id,
      token: entry?.token ?? null,
      mine: entry?.seats ?? null,
      exportUrl: entry ? exportUrl(id, entry.token) : null,
      onBack: () => {
        location.hash = "#history";
      },
    });
  }
  return buildList(root, { onBack, onResume });
}

// The analysis of a finished deal in the replay viewer: each card coloured by
// what it cost, a small chart of the chance to make the contract through the
// deal, the turning points, and a switch between the two ways of judging a
// card: "every card known" (the exact solver, all four hands face up) and
// "as each seat saw it" (the expert's view from that seat's cards alone).
// The server works the analysis out (GET /api/games/<id>/analysis); nothing
// of it is computed here. The format is described in docs/analysis.md.

import { SYMBOL, cardShort } from "./cards.js";
import { h, s } from "./dom.js";
import { num, t } from "./i18n.js";

export const ALL = "all"; // every card known
export const SEAT = "seat"; // as each seat saw it
const KINDS = { [ALL]: "all-hands", [SEAT]: "seat-view" };
// Seat's-view costs in expected game points (a stake of 1): below FREE a choice
// was as good as the best; from TURNING on it is a turning point of the deal.
const FREE = 0.05;
const MINOR = 0.2;
const TURNING = 0.5;
const CHART_W = 320;
const CHART_H = 72;

export async function fetchAnalysis(id, token, index) {
  let res;
  const url = `/api/games/${encodeURIComponent(id)}/analysis?token=${encodeURIComponent(token)}&deal=${index}`;
  try {
    res = await fetch(url, { cache: "no-store" });
  } catch {
    return { offline: true };
  }
  try {
    const body = await res.json();
    return res.ok ? { data: body.analysis } : { error: body?.error || String(res.status) };
  } catch {
    return { error: String(res.status) };
  }
}

// What an action cost, as a class: free, minor, major or turning (null: nothing to say).
export function costOf(row, mode) {
  if (!row) return null;
  if (mode === ALL) {
    if (row.dd_points_after === undefined) return null;
    if (row.dd_outcome_lost) return "turning";
    if (!row.dd_cost_points) return "free";
    return row.dd_cost_points <= 2 ? "minor" : "major";
  }
  const view = row.seat_view;
  if (!view) return row.forced ? "forced" : null;
  const cost = view.cost_score;
  if (cost < FREE) return "free";
  if (cost < MINOR) return "minor";
  return cost < TURNING ? "major" : "turning";
}

export function label(choice) {
  if (choice.play) return (choice.reveal ? t("analysis.ask_then") : "") + cardShort(choice.play);
  if (choice.bid !== undefined) return t("analysis.bid", { bid: choice.bid });
  if (choice.trump) return t("analysis.trump", { suit: SYMBOL[choice.trump] });
  for (const kind of ["pass", "pair", "double", "redouble", "set", "single", "seventh", "reveal"]) {
    if (choice[kind]) return t(`analysis.choice_${kind}`);
  }
  return "?";
}

function pct(p) {
  return t("analysis.percent", { p: Math.round(100 * p) });
}

// The make chance after each action, as the chosen view sees it: [index, p] pairs.
export function chartPoints(analysis, mode) {
  const out = [];
  for (const row of analysis.actions) {
    if (mode === ALL) {
      if (row.dd_outcome_after === undefined) continue;
      out.push([row.index, row.dd_outcome_after === "made" ? 1 : row.dd_outcome_after === "failed" ? 0 : 0.5]);
    } else {
      const view = row.seat_view;
      if (!view || view.p_make === null || row.stage === "auction") continue;
      out.push([row.index, view.p_make]);
    }
  }
  return out;
}

function chart(analysis, mode, step) {
  const total = Math.max(1, analysis.actions.length);
  const x = (i) => ((i + 1) / total) * (CHART_W - 8) + 4;
  const y = (p) => CHART_H - 6 - p * (CHART_H - 12);
  const pts = chartPoints(analysis, mode);
  const made = analysis.result === "made" || analysis.result === "single-made";
  const line = pts.map(([i, p]) => `${x(i).toFixed(1)},${y(p).toFixed(1)}`).join(" ");
  const dots = pts.map(([i, p]) => s("circle", { cx: x(i).toFixed(1), cy: y(p).toFixed(1), r: 2.2, class: "chart-dot" }));
  return h(
    "figure",
    { class: "analysis-chart" },
    s(
      "svg",
      {
        viewBox: `0 0 ${CHART_W} ${CHART_H}`,
        role: "img",
        "aria-label": t(mode === ALL ? "analysis.chart_all_aria" : "analysis.chart_seat_aria"),
        "data-testid": "analysis-chart",
        "data-points": pts.length,
        preserveAspectRatio: "none",
      },
      s("line", { x1: 0, x2: CHART_W, y1: y(0.5), y2: y(0.5), class: "chart-half" }),
      s("line", { x1: 0, x2: CHART_W, y1: y(1), y2: y(1), class: "chart-edge" }),
      s("line", { x1: 0, x2: CHART_W, y1: y(0), y2: y(0), class: "chart-edge" }),
      pts.length ? s("polyline", { points: line, class: "chart-line" }) : null,
      dots,
      step > 0 ? s("line", { x1: x(step - 1), x2: x(step - 1), y1: 0, y2: CHART_H, class: "chart-now", "data-testid": "analysis-chart-now" }) : null,
    ),
    h("figcaption", { class: "muted" }, t("analysis.chart_caption", { result: t(made ? "analysis.made" : "analysis.not_made") })),
  );
}

// One sentence on the action of this step, in the chosen view.
function verdict(row, mode, name) {
  if (!row) return t("analysis.pick_step");
  const what = label(row.action);
  const who = name(row.seat);
  if (mode === ALL) {
    if (row.dd_points_after === undefined) return t("analysis.all_nothing", { who, what });
    const best = row.dd_best.map(label).join(", ");
    if (row.dd_outcome_lost) return t("analysis.all_turning", { who, what, before: t(`analysis.res_${row.dd_best_outcome}`), after: t(`analysis.res_${row.dd_outcome_after}`), best });
    if (row.dd_cost_points) return t("analysis.all_cost", { who, what, count: row.dd_cost_points, points: row.dd_points_after, best });
    return t("analysis.all_free", { who, what, points: row.dd_points_after });
  }
  const view = row.seat_view;
  if (!view) return t(row.forced ? "analysis.seat_forced" : "analysis.seat_nothing", { who, what });
  const chosen = view.choices[view.chosen];
  const best = view.choices[view.best];
  const p = chosen.p_make === null ? t("analysis.no_contract") : pct(chosen.p_make);
  if (view.chosen === view.best || view.cost_score < FREE) return t("analysis.seat_best", { who, what, p, worlds: view.worlds });
  const bp = best.p_make === null ? t("analysis.no_contract") : pct(best.p_make);
  return t("analysis.seat_cost", { who, what, p, best: label(best), bp, cost: num(Math.round(100 * view.cost_score) / 100) });
}

function cardGrid(analysis, mode, step, onGo) {
  const rows = [];
  let trick = null;
  let current = null;
  for (const row of analysis.actions) {
    if (!row.action.play) continue;
    if (row.trick !== trick) {
      trick = row.trick;
      current = h("li", { class: "analysis-trick" }, h("span", { class: "analysis-trick-n" }, num(trick)));
      rows.push(current);
    }
    const cost = costOf(row, mode);
    current.append(
      h(
        "button",
        {
          type: "button",
          class: ["analysis-card", cost && `cost-${cost}`, row.index === step - 1 && "now"],
          dataset: { testid: "analysis-card", index: row.index, cost: cost || "none", card: row.action.play },
          title: t(`analysis.cost_${cost || "none"}`),
          "aria-label": `${cardShort(row.action.play)}: ${t(`analysis.cost_${cost || "none"}`)}`,
          onclick: () => onGo(row.index + 1),
        },
        cardShort(row.action.play),
      ),
    );
  }
  return h("ol", { class: "analysis-cards", dataset: { testid: "analysis-cards" }, "aria-label": t("analysis.cards_aria") }, rows);
}

function turningList(analysis, mode, name, onGo) {
  const kind = KINDS[mode];
  const items = analysis.turning_points
    .filter((tp) => tp.kinds.includes(kind))
    .map((tp) => {
      const row = analysis.actions[tp.index];
      const where = row.trick ? t("analysis.in_trick", { n: row.trick }) : t(`analysis.stage_${row.stage}`);
      return h(
        "li",
        {},
        h(
          "button",
          { type: "button", class: "quiet analysis-turn", dataset: { testid: "analysis-turning-point", index: tp.index }, onclick: () => onGo(tp.index + 1) },
          `${where} · ${verdict(row, mode, name)}`,
        ),
      );
    });
  return h(
    "section",
    { class: "analysis-turning" },
    h("h3", {}, t("analysis.turning_title")),
    items.length ? h("ol", { dataset: { testid: "analysis-turning" } }, items) : h("p", { class: "muted", dataset: { testid: "analysis-turning-none" } }, t(mode === ALL ? "analysis.turning_none_all" : "analysis.turning_none_seat")),
  );
}

// The analysis panel of one deal. `got` is {state: "loading" | "ready" | "error" |
// "offline", data, error}; `step` the replay's step (0: before the first action).
export function analysisPanel({ got, mode, step, name, onMode, onGo, onRetry }) {
  const toggle = h(
    "div",
    { class: "analysis-toggle", role: "radiogroup", "aria-label": t("analysis.view_aria") },
    [ALL, SEAT].map((m) =>
      h(
        "button",
        {
          type: "button",
          role: "radio",
          class: ["analysis-mode", m === mode && "selected"],
          "aria-checked": m === mode ? "true" : "false",
          dataset: { testid: `analysis-mode-${m}` },
          onclick: () => onMode(m),
        },
        t(`analysis.mode_${m}`),
      ),
    ),
  );
  const head = h("header", { class: "analysis-head" }, h("h2", {}, t("analysis.title")), toggle);
  const state = got?.state || "loading";
  const section = (...children) =>
    h("section", { class: "replay-analysis", "aria-label": t("analysis.title"), dataset: { testid: "analysis", state, mode } }, head, children);
  if (state === "loading") return section(h("p", { class: "muted", role: "status" }, t("analysis.loading")));
  if (state !== "ready") {
    return section(
      h("p", { class: "history-problem", role: "status" }, state === "offline" ? t("history.offline") : t("analysis.failed", { text: got.error || "" })),
      h("button", { type: "button", dataset: { testid: "analysis-retry" }, onclick: onRetry }, t("history.retry")),
    );
  }
  const analysis = got.data;
  const row = step > 0 ? analysis.actions[step - 1] : null;
  return section(
    h("p", { class: "analysis-now", dataset: { testid: "analysis-now", cost: costOf(row, mode) || "none" } }, verdict(row, mode, name)),
    h("p", { class: "muted analysis-lead" }, t(mode === ALL ? "analysis.lead_all" : "analysis.lead_seat")),
    chart(analysis, mode, step),
    cardGrid(analysis, mode, step, onGo),
    h(
      "p",
      { class: "analysis-legend muted" },
      ["free", "minor", "major", "turning"].map((c) => h("span", { class: ["legend-item", `cost-${c}`] }, t(`analysis.cost_${c}`))),
    ),
    turningList(analysis, mode, name, onGo),
  );
}

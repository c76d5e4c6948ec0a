// The replay viewer (#replay/<id>): the finished deals of a game, step by
// step, with all four hands face up. Every step comes from the server, where
// the engine replayed the game (who won each trick, the points, the reveal,
// the target, the result): nothing of the rules is worked out here. This
// module only counts which cards have left each hand and draws the table.
// Keys: ←/→ one step, Home/End the start and the end of the deal. Under the
// table, the analysis of the deal (analysis.js), asked of the server once per
// deal shown; each card on the table is coloured by what it cost.

import { ALL, analysisPanel, costOf, fetchAnalysis } from "./analysis.js";
import { cardFace, cardName, suitIcon, suitName, suitTitle } from "./cards.js";
import { h, replace, s } from "./dom.js";
import { has, num, t } from "./i18n.js";
import { seatName, teamName } from "./model.js";
import { dealOutcome, isYouSeat, lengthText, sitterName } from "./summary.js";
import { sortHand } from "./table.js";

const POS = ["bottom", "left", "top", "right"]; // South is drawn at the bottom
const TRICKS = 8;
// The step buttons' icons: a bar for the ends of the deal, a triangle for one step.
const ICONS = {
  first: ["M7 6v12", "M18 6 10 12l8 6z"],
  prev: [null, "M16 6 8 12l8 6z"],
  next: [null, "M8 6l8 6-8 6z"],
  last: ["M17 6v12", "M6 6l8 6-8 6z"],
};

function icon(name) {
  const [bar, arrow] = ICONS[name];
  return s(
    "svg",
    { class: "icon", viewBox: "0 0 24 24", "aria-hidden": "true", focusable: "false" },
    bar ? s("path", { d: bar, stroke: "currentColor", "stroke-width": 2.4, "stroke-linecap": "round" }) : null,
    s("path", { d: arrow, fill: "currentColor", "stroke-linejoin": "round" }),
  );
}

let active = null; // the viewer the keyboard drives, while it is on the page

document.addEventListener("keydown", (e) => {
  if (!active || !active.shown()) return;
  if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey) return;
  if (document.querySelector("dialog[open]")) return;
  const target = e.target;
  if (target && target.matches && target.matches("input, select, textarea")) return;
  const moves = { ArrowRight: 1, ArrowLeft: -1, Home: "first", End: "last" };
  if (!(e.key in moves)) return;
  e.preventDefault();
  active.go(moves[e.key]);
});

function signed(n) {
  return n > 0 ? `+${num(n)}` : num(n);
}

async function fetchReplay(id, token) {
  let res;
  try {
    res = await fetch(`/api/games/${encodeURIComponent(id)}/replay?token=${encodeURIComponent(token)}`, { cache: "no-store" });
  } catch {
    return { offline: true };
  }
  if (res.status === 404 || res.status === 403) return { gone: true };
  try {
    const data = await res.json();
    return res.ok ? { data } : { error: data?.error || String(res.status) };
  } catch {
    return { error: String(res.status) };
  }
}

export function buildReplay(root, { id, token, mine, exportUrl, onBack }) {
  const body = h("div", { class: "replay-body" });
  const exportLink = exportUrl
    ? h("a", { class: "button", href: exportUrl, download: `29-${id}.json`, dataset: { testid: "replay-export" } }, t("history.export"))
    : null;
  const facts = h("p", { class: "muted replay-facts" });
  const page = h(
    "div",
    { class: "history-page replay-page", dataset: { testid: "replay" } },
    h(
      "header",
      { class: "history-header" },
      h(
        "div",
        { class: "history-title-row" },
        h("h1", { id: "history-title", tabindex: "-1" }, t("replay.title")),
        h("div", { class: "replay-head-actions" }, exportLink, h("button", { type: "button", class: "quiet", dataset: { testid: "replay-back" }, onclick: onBack }, t("replay.back"))),
      ),
      facts,
    ),
    body,
  );
  replace(root, page);

  // analyses: per deal index, {state, data, error}; mode: which view judges the cards
  const view = { data: null, deal: 0, step: 0, analyses: new Map(), mode: ALL };
  const name = (seat) => sitterName(view.data.seats, seat, mine);
  // The message `key` about a seat, in its "_you" form when that seat was this browser's player.
  const about = (key, seat, params = {}) => {
    const you = `${key}_you`;
    if (isYouSeat(view.data.seats, seat, mine) && (has(you) || has(`${you}.one`))) return t(you, params);
    return t(key, { who: name(seat), ...params });
  };

  function problem(text, retry) {
    replace(
      body,
      h(
        "div",
        { class: "history-status", role: "status", dataset: { testid: "replay-status", state: retry ? "offline" : "error" } },
        h("p", { class: "history-problem" }, text),
        retry ? h("button", { type: "button", dataset: { testid: "history-retry" }, onclick: retry }, t("history.retry")) : null,
      ),
    );
  }

  async function load() {
    replace(body, h("p", { class: "history-status", role: "status" }, t("history.loading")));
    if (!token) {
      problem(t("replay.unknown"));
      return;
    }
    const got = await fetchReplay(id, token);
    if (!page.isConnected) return;
    if (got.offline) return problem(t("history.offline"), load);
    if (got.gone) return problem(t("replay.gone"));
    if (got.error) return problem(t("history.failed", { text: got.error }));
    view.data = got.data;
    view.deal = Math.max(0, view.data.deals.length - 1);
    view.step = 0;
    const d = view.data;
    replace(facts, [t(`profile.${d.profile}.name`), lengthText(d.match_target), [0, 1].map((tm) => t("history.team_players", { team: teamName(tm, true), a: name(tm), b: name(tm + 2) })).join(" · ")].join(" · "));
    draw();
  }

  // ---------------------------------------------------------------- one step

  function current() {
    const deal = view.data.deals[view.deal];
    const steps = deal.steps;
    const i = Math.min(Math.max(view.step, 0), steps.length);
    const step = i > 0 ? steps[i - 1] : null;
    const gone = new Set();
    for (let k = 0; k < i; k++) if (steps[k].action.play) gone.add(steps[k].action.play);
    return { deal, steps, i, step, gone };
  }

  // ---------------------------------------------------------------- the analysis

  async function loadAnalysis(index) {
    const known = view.analyses.get(index);
    if (known && (known.state === "ready" || known.state === "loading")) return;
    view.analyses.set(index, { state: "loading" });
    const got = await fetchAnalysis(id, token, index);
    if (!page.isConnected) return;
    if (got.data) view.analyses.set(index, { state: "ready", data: got.data });
    else view.analyses.set(index, { state: got.offline ? "offline" : "error", error: got.error });
    if (view.data && view.data.deals[view.deal]?.index === index) draw();
  }

  function analysisRow(c, k) {
    const got = view.analyses.get(c.deal.index);
    return got?.state === "ready" ? got.data.actions[k] : null;
  }

  function analysisSection(c) {
    return analysisPanel({
      got: view.analyses.get(c.deal.index),
      mode: view.mode,
      step: c.i,
      name,
      onMode: (m) => {
        view.mode = m;
        draw();
        body.querySelector(`[data-testid=analysis-mode-${m}]`)?.focus({ preventScroll: true });
      },
      onGo: (n) => {
        view.step = n;
        draw();
      },
      onRetry: () => {
        view.analyses.delete(c.deal.index);
        loadAnalysis(c.deal.index);
        draw();
      },
    });
  }

  function go(move) {
    if (!view.data || !view.data.deals.length) return;
    const total = view.data.deals[view.deal].steps.length;
    let next = view.step;
    if (move === "first") next = 0;
    else if (move === "last") next = total;
    else next = Math.min(Math.max(view.step + move, 0), total);
    if (next === view.step) return;
    view.step = next;
    draw();
  }

  function describe(ev) {
    switch (ev.type) {
      case "bid":
        return about("ev.bid", ev.seat, { bid: ev.bid });
      case "pass":
        return about(ev.stage === "pair" ? "replay.pass_pair" : `ev.pass_${ev.stage}`, ev.seat);
      case "contract":
        return ev.forced ? t("ev.contract_forced", { who: name(ev.bidder), bid: ev.bid }) : about("ev.contract", ev.bidder, { bid: ev.bid });
      case "redeal":
        return t("ev.redeal");
      case "trump_chosen":
        return ev.seventh ? `${about("ev.seventh", ev.seat)} ${t("replay.trump_is", { suit: suitName(ev.trump) })}` : about("replay.trump_chosen", ev.seat, { suit: suitName(ev.trump) });
      case "second_batch":
        return t("ev.second_batch");
      case "single":
        return about("ev.single", ev.seat);
      case "double":
      case "redouble":
      case "set":
        return about(`ev.${ev.type}`, ev.seat, { x: ev.multiplier });
      case "reveal":
        return about(ev.asked ? "ev.reveal_asked" : "ev.reveal", ev.seat, { suit: suitName(ev.trump) });
      case "play":
        return about("ev.play", ev.seat, { card: cardName(ev.card) });
      case "trick":
        return about("ev.trick", ev.winner, { n: ev.trick, count: ev.points });
      case "pair":
        return about("ev.pair", ev.seat, { suit: suitName(ev.trump), target: ev.target });
      case "deal_end":
        return t(`ev.deal_end_${ev.result.replace("-", "_")}`, { count: ev.stake ?? 0 });
      default:
        return "";
    }
  }

  // ---------------------------------------------------------------- drawing

  function stat(key, label, value, extra = null) {
    return h("div", { class: "stat", dataset: { testid: key } }, h("span", { class: "stat-label" }, label), h("span", { class: "stat-value" }, extra, value));
  }

  function statusBar(c) {
    const { deal, steps, i, step } = c;
    const v = deal.verdict;
    let contract = t("status.no_bid");
    if (step && step.single !== null) contract = t("status.single", { who: name(step.single) });
    else if (step && step.bidder !== null) {
      contract = t(deal.forced ? "status.contract_forced" : "status.contract", { who: name(step.bidder), bid: step.bid });
      if (step.doubling > 1) contract += ` · ×${step.doubling}`;
    } else {
      let high = null;
      for (let k = 0; k < i; k++) if (steps[k].action.bid) high = steps[k].action;
      if (high) contract = t("status.highest", { bid: high.bid, who: name(high.seat) });
    }
    let trump = t("status.trump_unchosen");
    let suit = null;
    if (step && step.single !== null) trump = t("status.trump_none");
    else if (step && step.trump) {
      suit = step.trump;
      trump = step.trumps_active ? t("status.trump_revealed", { suit: suitTitle(suit), n: v.revealed_in_trick }) : t("replay.trump_hidden", { suit: suitTitle(suit) });
    }
    const pts = step ? step.points : [0, 0];
    const items = [
      stat("replay-contract", t("status.contract_label"), contract),
      stat("replay-trump", t("status.trump_label"), trump, suit ? suitIcon(suit) : null),
    ];
    if (step && step.target !== null && step.target !== step.bid) items.push(stat("replay-target", t("status.target_label"), num(step.target)));
    items.push(
      stat(
        "replay-points",
        t("status.points_label"),
        h(
          "span",
          { class: "points" },
          [0, 1].map((tm) => h("span", { class: ["team-points", `team-${tm}`], dataset: { testid: `replay-points-${tm}`, value: pts[tm] } }, h("span", { class: "team-name" }, teamName(tm, true)), h("b", {}, num(pts[tm])))),
        ),
      ),
    );
    const score = i === steps.length ? deal.score_after : deal.score_before;
    items.push(
      stat(
        "replay-score",
        view.data.match_target ? t("status.match_label", { target: view.data.match_target }) : t("status.total_label"),
        h("span", { class: "points" }, [0, 1].map((tm) => h("span", { class: ["team-points", `team-${tm}`] }, h("span", { class: "team-name" }, teamName(tm, true)), h("b", {}, signed(score[tm]))))),
      ),
    );
    return h("section", { class: "status replay-status", "aria-label": t("status.aria") }, items);
  }

  function handOf(c, seat) {
    const { deal, step, gone } = c;
    const dealt = deal.hands[seat];
    const second = step ? step.second_batch : false;
    const trump = step && step.single === null ? step.trump : null;
    const held = (cards) => sortHand(cards.filter((x) => !gone.has(x)));
    const cards = second ? held(dealt).map((x) => [x, false]) : [...held(dealt.slice(0, 4)).map((x) => [x, false]), ...held(dealt.slice(4)).map((x) => [x, true])];
    const out = step && step.single !== null && seat === (step.single + 2) % 4;
    const badges = [];
    if (deal.dealer === seat) badges.push(h("span", { class: "badge badge-dealer", title: t("seat.dealer") }, t("seat.dealer_short")));
    if (step && step.bidder === seat && step.single === null) badges.push(h("span", { class: "badge badge-bidder" }, t("seat.bidder_badge", { bid: step.bid })));
    if (step && step.single === seat) badges.push(h("span", { class: "badge badge-bidder" }, t("seat.single_badge")));
    const label = name(seat);
    return h(
      "div",
      { class: ["replay-seat", `at-${POS[seat]}`, `team-${seat & 1}`, out && "sitting-out"], dataset: { testid: `replay-hand-${seat}`, seat } },
      h("div", { class: "replay-plate" }, h("span", { class: "name" }, label), label !== seatName(seat) ? h("span", { class: "sub" }, seatName(seat)) : null, badges),
      h(
        "div",
        { class: "replay-cards", role: "list", "aria-label": t("replay.hand_aria", { who: label, count: cards.length }) },
        cards.map(([card, later]) =>
          h(
            "span",
            {
              class: ["mini-card", trump && card.endsWith(trump) && "is-trump", later && "later"],
              role: "listitem",
              "aria-label": later ? t("replay.not_dealt", { card: cardName(card) }) : cardName(card),
              dataset: { card },
            },
            cardFace(card),
          ),
        ),
      ),
    );
  }

  function trickArea(c) {
    const { steps, i, step } = c;
    const table = step ? step.table : [];
    const winner = step ? step.winner : null;
    const phase = step ? step.phase : "auction";
    let caption;
    if (winner !== null && winner !== undefined) caption = about("trick.won", winner, { n: step.trick, count: step.trick_points });
    else if (table.length) caption = t("trick.playing", { n: step.trick, total: TRICKS, who: name(table[0].seat) });
    else if (phase === "play" && steps[i]) caption = t("trick.to_lead", { n: (step?.trick ?? 0) + 1, total: TRICKS, who: name(steps[i].seat) });
    else if (phase === "auction") caption = t("trick.auction");
    else if (phase === "over") caption = t("replay.deal_over");
    else caption = t(`trick.phase_${phase}`);
    // the step of each card on the table (the latest play of that card in the deal)
    const stepOf = (card) => {
      for (let k = i - 1; k >= 0; k--) if (steps[k].action.play === card) return k;
      return -1;
    };
    const cards = table.map((p) => {
      const cost = costOf(analysisRow(c, stepOf(p.card)), view.mode);
      return h(
        "div",
        {
          class: ["replay-played", `at-${POS[p.seat]}`, p.seat === winner && "winner", cost && `cost-${cost}`],
          role: "img",
          "aria-label": t("trick.card_aria", { who: name(p.seat), card: cardName(p.card) }) + (p.seat === winner ? `, ${t("trick.wins")}` : ""),
          dataset: { testid: `replay-played-${p.seat}`, card: p.card, seat: p.seat, cost: cost || "none" },
        },
        cardFace(p.card),
        p.seat === winner ? h("span", { class: "win-flag" }, t("trick.wins")) : null,
      );
    });
    return h("div", { class: "replay-trick", dataset: { testid: "replay-trick" } }, h("p", { class: "replay-caption", dataset: { testid: "replay-caption" } }, caption), h("div", { class: "replay-trick-cards" }, cards));
  }

  function auctionList(c) {
    const { steps, i, step } = c;
    const chips = [];
    for (let k = 0; k < i; k++) {
      const a = steps[k].action;
      if (steps[k].stage !== "auction") continue;
      chips.push(h("li", { class: ["chip", a.bid ? "chip-bid" : "chip-pass", k === i - 1 && "latest"] }, a.bid ? t("chip.bid", { who: name(a.seat), bid: a.bid }) : t("chip.pass", { who: name(a.seat) })));
    }
    if (step && step.bidder !== null && steps.some((s, k) => k < i && s.stage !== "auction")) {
      chips.push(h("li", { class: "chip chip-contract" }, t(c.deal.forced ? "chip.contract_forced" : "chip.contract", { who: name(step.bidder), bid: step.bid })));
    }
    return h("section", { class: "replay-auction", "aria-label": t("replay.auction") }, h("h2", {}, t("replay.auction")), chips.length ? h("ol", { class: "replay-chips" }, chips) : h("p", { class: "muted" }, t("replay.auction_none")));
  }

  function resultPanel(c) {
    const { deal, steps, i } = c;
    if (i < steps.length) return null;
    const v = deal.verdict;
    const rows = [];
    const row = (key, label, shown) => rows.push(h("tr", { dataset: { testid: `replay-result-${key}` } }, h("th", { scope: "row" }, label), h("td", {}, shown)));
    if (v.single !== null) {
      row("contract", t("result.contract"), t("status.single", { who: name(v.single) }));
    } else if (v.bidder !== null) {
      row("contract", t("result.contract"), t("result.contract_value", { who: name(v.bidder), team: teamName(v.bidder & 1, true), bid: v.bid }) + (v.doubling > 1 ? ` ×${v.doubling}` : ""));
      if (v.target !== null) row("needed", t("result.needed"), num(v.target));
      row("taken", t("result.taken"), num(v.points[v.bidder & 1]));
    }
    row("stake", t("result.stake"), num(v.stake ?? 0));
    row("points", t("result.card_points"), `${teamName(0, true)} ${num(v.points[0])} · ${teamName(1, true)} ${num(v.points[1])}`);
    row("score", t("replay.game_points"), [0, 1].map((tm) => `${teamName(tm, true)} ${signed(deal.score_after[tm])}${v.delta[tm] ? ` (${signed(v.delta[tm])})` : ""}`).join(" · "));
    const last = view.deal === view.data.deals.length - 1;
    const won = last && view.data.winner !== null ? h("p", { class: "replay-match-won" }, t("result.match_won", { team: teamName(view.data.winner) })) : null;
    return h(
      "section",
      { class: "replay-result", dataset: { testid: "replay-result", result: v.result } },
      h("h2", {}, dealOutcome(v, view.data.seats, mine)),
      h("table", { class: "result-table" }, h("tbody", {}, rows)),
      won,
    );
  }

  function controls(c) {
    const { steps, i } = c;
    const button = (testid, label, move, disabled, name) =>
      h("button", { type: "button", class: ["replay-step-button", testid === "replay-next" && "primary"], dataset: { testid }, "aria-label": label, title: label, disabled, onclick: () => go(move) }, icon(name));
    return h(
      "div",
      { class: "replay-controls", role: "group", "aria-label": t("replay.controls") },
      button("replay-first", t("replay.first"), "first", i === 0, "first"),
      button("replay-prev", t("replay.prev"), -1, i === 0, "prev"),
      h("span", { class: "replay-counter", dataset: { testid: "replay-step", step: i, total: steps.length } }, t("replay.step", { n: i, total: steps.length })),
      button("replay-next", t("replay.next"), 1, i === steps.length, "next"),
      button("replay-last", t("replay.last"), "last", i === steps.length, "last"),
    );
  }

  // How a deal ended, in a few words (for the deal picker).
  function shortOutcome(v) {
    if (v.result === "made" || v.result === "failed") return t(`replay.short_${v.result}`, { team: teamName(v.bidder & 1, true), bid: v.bid });
    if (v.single !== null) return t(`replay.short_${v.result.replace("-", "_")}`, { who: name(v.single) });
    return t("replay.short_void");
  }

  function dealPicker() {
    const d = view.data;
    const select = h(
      "select",
      {
        id: "replay-deal",
        dataset: { testid: "replay-deal" },
        onchange: (e) => {
          view.deal = Number(e.target.value);
          view.step = 0;
          draw();
          select.focus();
        },
      },
      d.deals.map((deal, k) => h("option", { value: k, selected: k === view.deal }, t("replay.deal_option", { n: deal.index + 1, result: shortOutcome(deal.verdict) }))),
    );
    return h("div", { class: "replay-picker" }, h("label", { for: "replay-deal" }, t("replay.deal")), select, h("span", { class: "muted replay-keys" }, t("replay.keys")));
  }

  function draw() {
    const d = view.data;
    const notes = [];
    if (d.deal_in_play) notes.push(h("p", { class: "muted replay-note", dataset: { testid: "replay-hidden-note" } }, t("replay.in_play_hidden")));
    if (!d.deals.length) {
      replace(body, h("p", { class: "history-status", dataset: { testid: "replay-status", state: "empty" } }, t("replay.no_deals")), notes);
      return;
    }
    const focused = document.activeElement?.dataset?.testid;
    const c = current();
    if (!view.analyses.has(c.deal.index)) loadAnalysis(c.deal.index);
    const words = c.step ? c.step.events.map(describe).filter(Boolean).join(" ") : t("ev.deal_start", { n: c.deal.index + 1, who: name(c.deal.dealer) });
    replace(
      body,
      dealPicker(),
      statusBar(c),
      h(
        "div",
        { class: "replay-felt", dataset: { testid: "replay-felt", deal: c.deal.index, step: c.i } },
        [0, 1, 2, 3].map((seat) => handOf(c, seat)),
        trickArea(c),
      ),
      h("p", { class: "replay-say", "aria-live": "polite", dataset: { testid: "replay-say" } }, words),
      controls(c),
      analysisSection(c),
      resultPanel(c),
      auctionList(c),
      notes,
    );
    if (focused) {
      const again = body.querySelector(`[data-testid="${focused}"]`);
      if (again && !again.disabled) again.focus({ preventScroll: true });
      else if (focused.startsWith("replay-")) body.querySelector("[data-testid=replay-next]:not(:disabled), [data-testid=replay-prev]")?.focus({ preventScroll: true });
    }
  }

  const me = { go, shown: () => page.isConnected && !root.hidden };
  active = me;
  load();
  return { focus: () => page.querySelector("#history-title")?.focus() };
}

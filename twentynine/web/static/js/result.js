// The result of a deal, over the table once it is over: the contract, what was
// needed and taken, the stake, the score and its change, the four hands, and the
// buttons for what comes next. Drawn once a deal (its key is the whole observation).

import { cardFace, cardName, suitName } from "./cards.js";
import { h, replace } from "./dom.js";
import { num, t } from "./i18n.js";
import { game, hotSeat, playerName, suitOf, team, teamName, tYou } from "./model.js";
import { pipsSix, signed, sortHand } from "./table.js";

function handRow(seat, cards, viewer, trump) {
  return h(
    "div",
    { class: "deal-hand" },
    h("span", { class: "deal-hand-name" }, playerName(seat, viewer)),
    h(
      "span",
      { class: "deal-hand-cards" },
      sortHand(cards).map((c) => h("span", { class: ["mini-card", suitOf(c) === trump && "is-trump"], role: "img", "aria-label": cardName(c) }, cardFace(c))),
    ),
  );
}

export function resultInfo(obs) {
  const bidTeam = obs.bidder !== null ? team(obs.bidder) : null;
  const single = obs.single !== null;
  return {
    result: obs.result,
    bidTeam,
    needed: single ? null : obs.target,
    taken: single ? obs.tricks.filter((tr) => tr.winner === obs.single).length : bidTeam !== null ? obs.points[bidTeam] : null,
    stake: obs.stake,
    delta: obs.delta,
  };
}

// What the result draws from while it is on show (the whole observation: it
// is drawn once a deal), `record` being the address of the game's record.
export function resultKey(obs, viewer, peek, record) {
  if (!obs || obs.phase !== "over" || game.hold !== "deal") return null;
  return [viewer, peek, obs, game.seats[0] ?? null, !!game.forfeit, record];
}

export function renderResult(el, obs, viewer, actions, peek = false) {
  if (!obs || obs.phase !== "over" || game.hold !== "deal") {
    el.hidden = true;
    el.classList.remove("peek");
    replace(el);
    return;
  }
  el.hidden = false;
  el.classList.toggle("peek", peek);
  if (peek) {
    // the result steps aside: the last trick (and the deal log) can be looked at
    replace(
      el,
      h("div", { class: "result-peek" }, h("button", { type: "button", class: "primary", dataset: { testid: "result-back" }, onclick: () => actions.peek(false) }, t("result.back"))),
    );
    return;
  }
  const info = resultInfo(obs);
  const mine = viewer !== null ? team(viewer) : hotSeat() ? null : team(game.seats[0]);
  let headline;
  let tone = "neutral";
  const r = obs.result;
  if (r === "made" || r === "failed") {
    headline = t(`result.headline_${r}`, { team: teamName(info.bidTeam) });
    const good = (r === "made") === (info.bidTeam === mine);
    tone = mine === null ? "neutral" : good ? "good" : "bad";
  } else if (r === "single-made" || r === "single-failed") {
    headline = tYou(`result.headline_${r.replace("-", "_")}`, obs.single, viewer);
    const good = (r === "single-made") === (team(obs.single) === mine);
    tone = mine === null ? "neutral" : good ? "good" : "bad";
  } else headline = obs.bidder === null ? t("result.headline_redeal") : t("result.headline_cancelled");
  if (obs.winner !== null) {
    headline = t("result.match_won", { team: teamName(obs.winner) });
    tone = mine === null ? "neutral" : obs.winner === mine ? "good" : "bad";
  }
  // Each row keeps its raw value in data-value (what tests compare with the engine's verdict).
  const rows = [];
  const row = (key, label, value, shown = value) =>
    rows.push(
      h(
        "tr",
        { dataset: { testid: `result-${key}` } },
        h("th", { scope: "row" }, label),
        h("td", { dataset: { value: value === null ? "" : String(value) } }, shown === null ? "–" : typeof shown === "number" ? num(shown) : shown),
      ),
    );
  if (obs.single !== null) {
    row("contract", t("result.contract"), obs.single, t("status.single", { who: playerName(obs.single, viewer) }));
    row("needed", t("result.needed"), 8, t("result.all_tricks"));
    row("taken", t("result.taken_tricks"), info.taken);
  } else if (obs.bidder !== null) {
    const doubled = obs.doubling > 1 ? ` ×${obs.doubling}` : "";
    row("contract", t("result.contract"), obs.bid, t("result.contract_value", { who: playerName(obs.bidder, viewer), team: teamName(info.bidTeam, true), bid: obs.bid }) + doubled);
    row("needed", t("result.needed"), info.needed);
    row("taken", t("result.taken"), info.taken);
  }
  const outcome = { made: "result.made", failed: "result.not_made", cancelled: "result.cancelled_short", "single-made": "result.made", "single-failed": "result.not_made" }[r];
  row("outcome", t("result.outcome"), r, t(outcome));
  row("stake", t("result.stake"), obs.stake ?? 0);
  row("points", t("result.card_points"), obs.points.join(","), `${teamName(0, true)} ${num(obs.points[0])} · ${teamName(1, true)} ${num(obs.points[1])}`);
  const target = game.setup?.options?.match_target ?? null;
  const scoreBox = h(
    "div",
    { class: "result-score", dataset: { testid: "result-score", value: obs.score.join(",") } },
    [0, 1].map((tm) =>
      h(
        "div",
        { class: ["result-team", mine === tm && "mine"] },
        h("span", { class: "team-name" }, teamName(tm)),
        target ? pipsSix(obs.score[tm], target, t("status.score_aria", { team: teamName(tm), score: signed(obs.score[tm]) })) : null,
        h("b", {}, signed(obs.score[tm])),
        obs.delta[tm] ? h("span", { class: ["delta", obs.delta[tm] > 0 ? "up" : "down"] }, signed(obs.delta[tm])) : null,
      ),
    ),
  );
  const hands = obs.hands
    ? h(
        "details",
        { class: "deal-hands" },
        h("summary", {}, t("result.show_deal")),
        [0, 1, 2, 3].map((seat) => handRow(seat, obs.hands[seat], viewer, obs.trump)),
        obs.trump ? h("p", { class: "muted" }, t("result.trump_was", { suit: suitName(obs.trump) })) : null,
      )
    : null;
  // Modern stops a deal once its result is settled: say after which trick
  const early = (r === "made" || r === "failed") && obs.tricks.length > 0 && obs.tricks.length < 8;
  const earlyNote = early ? h("p", { class: "result-note", dataset: { testid: "result-early" } }, t("result.early_end", { n: obs.tricks.length })) : null;
  const buttons = h("div", { class: "result-actions" });
  // a spectator watches: the next deal is the players' to ask for, the record theirs to take
  if (obs.winner === null && !game.spectator && !game.forfeit)
    buttons.append(h("button", { type: "button", class: "primary", dataset: { testid: "next-deal" }, onclick: actions.nextDeal }, t("ctl.next_deal")));
  buttons.append(h("button", { type: "button", class: obs.winner === null && !game.spectator ? "" : "primary", dataset: { testid: "result-new-game" }, onclick: actions.newGame }, t("ctl.new_game")));
  if (obs.tricks.length) buttons.append(h("button", { type: "button", class: "quiet", dataset: { testid: "result-last-trick" }, onclick: () => actions.peek(true) }, t("result.last_trick")));
  const record = actions.recordUrl();
  if (record !== "#") buttons.append(h("a", { class: "button link", href: record, target: "_blank", rel: "noopener", download: "" }, t("ctl.record")));
  replace(
    el,
    h(
      "div",
      { class: ["result-card", `tone-${tone}`], role: "dialog", "aria-modal": "false", "aria-labelledby": "result-title", dataset: { testid: "result", result: r } },
      h("h2", { id: "result-title" }, headline),
      earlyNote,
      h("table", { class: "result-table" }, h("tbody", {}, rows)),
      scoreBox,
      hands,
      buttons,
    ),
  );
}


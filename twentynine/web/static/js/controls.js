// The decision controls: one panel for whatever the viewer must decide now,
// built from the legal actions of its observation. Every button names its
// keyboard shortcut; keys.js maps the same shortcuts.

import { cardName, cardShort, pointsOf, suitIcon, suitTitle } from "./cards.js";
import { h, on, patch } from "./dom.js";
import { num, t } from "./i18n.js";
import { game, groupLegal, myTurn, prompt, who } from "./model.js";

function kbd(key) {
  if (!key) return null;
  return h("kbd", { class: "keyhint", "aria-hidden": "true" }, key.length > 1 ? t(`key.${key.toLowerCase()}`) : key);
}

function button(label, { key, onclick, primary = false, testid, disabled = false, cls = "", aria } = {}) {
  return h(
    "button",
    {
      type: "button",
      class: [primary && "primary", cls],
      onclick,
      disabled,
      dataset: { testid, key: testid },
      "aria-keyshortcuts": key ? key.toUpperCase() : null,
      "aria-label": aria || null,
    },
    h("span", { class: "label" }, label),
    kbd(key),
  );
}

// What the prompt line draws from (besides the words' language and the setup's
// names, which board.js adds to every section's key): prompt() reads these.
export function promptKey(obs, ui) {
  if (!obs || ui.viewer === null) return null;
  return [
    ui.viewer,
    game.hold,
    !!game.forfeit,
    obs.seat,
    obs.to_act,
    obs.phase,
    obs.legal,
    obs.auction,
    obs.duel,
    obs.bidder,
    obs.bid,
    obs.doubler,
    obs.asked,
    obs.trick.length ? obs.trick[0].card : null,
  ];
}

// The line that says what the viewer is asked to do now.
export function renderPrompt(promptEl, obs, ui) {
  if (!obs || ui.viewer === null) {
    patch(promptEl, "");
    return;
  }
  patch(promptEl, prompt(obs, ui.viewer, game.hold));
  promptEl.classList.toggle("my-turn", myTurn(obs));
}

// What the panel of controls draws from (the hint's part apart: hint.js keys it).
export function controlsKey(obs, ui) {
  if (!obs || ui.viewer === null) return [null, game.hold];
  const g = groupLegal(obs.legal);
  const mine = myTurn(obs);
  const deciding = mine && game.hold !== "deal" ? obs.phase : null;
  let choice = null;
  if (deciding === "auction") choice = [obs.duel, ui.bidValue];
  else if (deciding === "trump") choice = obs.hand;
  else if (deciding === "play") choice = [ui.selected && g.plays.has(ui.selected) ? ui.selected : null, !!game.setup?.signals, ui.signal];
  return [ui.viewer, game.hold, game.canUndo, obs.seat, obs.phase, mine, obs.legal, choice];
}

// ui: {viewer, selected, bidValue, busy}; act: {send(action), play(card), ...}
// The prompt line is drawn apart (renderPrompt); `promptEl`, when given, is drawn too.
export function renderControls(el, promptEl, obs, ui, act, extra = []) {
  if (promptEl) renderPrompt(promptEl, obs, ui);
  const parts = [];
  if (!obs || ui.viewer === null) {
    if (game.hold === "trick") parts.push(nextTrickButton(act));
    patch(el, parts, extra);
    return;
  }
  const seat = obs.seat;
  const g = groupLegal(obs.legal);
  const mine = myTurn(obs);
  if (game.hold === "trick" && !(mine && obs.phase === "pair")) {
    parts.push(nextTrickButton(act));
  } else if (obs.phase === "play" && (mine || game.canUndo || undoRoom(obs))) parts.push(nextTrickRoom());
  if (mine && game.hold !== "deal") {
    switch (obs.phase) {
      case "auction":
        parts.push(auctionControls(obs, g, ui, act));
        break;
      case "trump":
        parts.push(
          h(
            "div",
            { class: "choice-row suits", role: "group", "aria-label": t("ctl.trump_group"), dataset: { key: "row:trump" } },
            g.trumps.map((suit) => {
              const count = obs.hand.filter((c) => c.endsWith(suit)).length;
              return h(
                "button",
                { type: "button", class: `suit-btn suit-${suit}`, dataset: { testid: `trump-${suit}`, key: `trump-${suit}` }, onclick: () => act.send({ seat, trump: suit }), "aria-keyshortcuts": suit },
                suitIcon(suit),
                h("span", { class: "label" }, suitTitle(suit)),
                h("span", { class: "count" }, t("ctl.in_hand", { count })),
                kbd(suit),
              );
            }),
            g.seventh ? button(t("ctl.seventh"), { key: "V", testid: "seventh", onclick: () => act.send({ seat, seventh: true }) }) : null,
          ),
        );
        break;
      case "single":
        parts.push(row("single", button(t("ctl.single"), { key: "A", testid: "single", primary: false, onclick: () => act.send({ seat, single: true }) }), passButton(seat, act, "ctl.single_pass")));
        break;
      case "double":
        parts.push(row("double", button(t("ctl.double"), { key: "D", testid: "double", onclick: () => act.send({ seat, double: true }) }), passButton(seat, act, "ctl.no_double")));
        break;
      case "redouble":
        parts.push(row("redouble", button(t("ctl.redouble"), { key: "R", testid: "redouble", onclick: () => act.send({ seat, redouble: true }) }), passButton(seat, act, "ctl.no_redouble")));
        break;
      case "set":
        parts.push(row("set", button(t("ctl.set"), { key: "S", testid: "set", onclick: () => act.send({ seat, set: true }) }), passButton(seat, act, "ctl.no_set")));
        break;
      case "pair":
        parts.push(row("pair", button(t("ctl.pair"), { key: "K", testid: "pair", primary: true, onclick: () => act.send({ seat, pair: true }) }), passButton(seat, act, "ctl.no_pair")));
        break;
      case "play": {
        const sel = ui.selected && g.plays.has(ui.selected) ? ui.selected : null;
        const playBtn = button(sel ? t("ctl.play_card", { card: cardShort(sel) }) : t("ctl.play"), {
          key: "Enter",
          testid: "play",
          primary: true,
          disabled: !sel,
          onclick: () => sel && act.play(sel),
        });
        playBtn.id = "play-button";
        // The selected card's points show beside its name. What is seen is what a screen
        // reader hears too: the short name and the points are hidden from it and the
        // card's full name said instead (no aria-label that could differ from the words).
        const label = playBtn.querySelector(".label");
        label.setAttribute("aria-hidden", "true");
        // new words on the button are a new label, not the old one moved (no layout shift)
        label.dataset.key = `label:${label.textContent}`;
        const hint = playBtn.querySelector(".keyhint");
        if (hint) hint.dataset.key = `hint:${label.textContent}`;
        if (sel) label.after(h("span", { class: "play-points", "aria-hidden": "true" }, t("ctl.play_points", { count: pointsOf(sel) })));
        playBtn.prepend(h("span", { class: "sr-only" }, sel ? t("ctl.play_aria", { card: cardName(sel) }) : t("ctl.play_none")));
        const items = [playBtn];
        if (g.reveal) items.push(button(t("ctl.reveal"), { key: "R", testid: "reveal", onclick: () => act.send({ seat, reveal: true }) }));
        if (game.setup?.signals) {
          // a table signal goes with the next card played: pressed again, it is taken back
          for (const kind of ["slam", "drop"]) {
            const on = ui.signal === kind;
            const btn = button(t(`signal.${kind}`), { testid: `signal-${kind}`, cls: on ? "toggle on" : "toggle", aria: t(`signal.${kind}_aria`), onclick: () => act.toggleSignal(kind) });
            btn.setAttribute("aria-pressed", String(on));
            btn.title = t(`signal.${kind}_help`);
            items.push(btn);
          }
        }
        parts.push(row("play", ...items));
        break;
      }
      default:
        break;
    }
  }
  // Taking a card back joins the first row (the next trick, or the decision): a row of
  // its own under two others would make the panel taller than the room the table keeps
  // for it (hand.css), and move the felt. Where the game allows it, its place is kept in
  // that row through the play, unseen until there is a card to take back: the button
  // beside it does not move when it comes.
  const undoing = game.canUndo && game.hold !== "deal";
  if (undoing || undoRoom(obs)) {
    const undo = undoing
      ? button(t("ctl.undo"), { key: "U", testid: "undo", cls: "quiet", onclick: act.undo })
      : h("span", { class: "button quiet room", "aria-hidden": "true" }, h("span", { class: "label" }, t("ctl.undo")), kbd("U"));
    if (parts[0]?.classList.contains("choice-row")) parts[0].append(undo);
    else if (undoing) parts.push(row("undo", undo));
  }
  // the controls that stay stay (patch): a focused button keeps the focus, nothing is rebuilt for nothing
  patch(el, parts, extra);
}

// A row of the panel, named (`row:<name>`): a row that stays is kept by patch()
// with its buttons, whatever rows come or go before it (the focused Play
// button stays the same element when the next-trick row above it goes).
function row(name, ...items) {
  return h("div", { class: "choice-row", dataset: { key: `row:${name}` } }, items);
}

function passButton(seat, act, label = "ctl.pass") {
  return button(t(label), { key: "P", testid: "pass", onclick: () => act.send({ seat, pass: true }) });
}

function nextTrickButton(act) {
  const b = button(t("ctl.next_trick"), { key: "N", testid: "next-trick", primary: true, onclick: act.nextTrick });
  b.id = "next-trick";
  return row("next-trick", b);
}

// Whether the place of taking a card back is kept (the game allows it; none to take back yet).
function undoRoom(obs) {
  return !!game.setup?.undo && obs.phase === "play" && game.hold !== "deal";
}

// The next trick's place, kept unseen through the play whenever a row stays under it
// (Play and its signals) or a button beside it (taking a card back): the trick held
// is taken away and neither moves (no layout shift).
function nextTrickRoom() {
  return row(
    "next-trick",
    // (a button's box, not a button: nothing to find, reach or press)
    h("span", { class: "button primary room", "aria-hidden": "true" }, h("span", { class: "label" }, t("ctl.next_trick")), kbd("N")),
  );
}

function auctionControls(obs, g, ui, act) {
  const seat = obs.seat;
  const bids = g.bids;
  const items = [];
  if (bids.length === 1 && obs.duel && obs.duel.defender === seat && obs.duel.challenger_bid === bids[0]) {
    items.push(button(t("ctl.match", { bid: bids[0] }), { key: "B", testid: "bid", primary: true, onclick: () => act.send({ seat, bid: bids[0] }) }));
  } else if (bids.length) {
    const lo = bids[0];
    const hi = bids[bids.length - 1];
    const value = Math.min(Math.max(ui.bidValue ?? lo, lo), hi);
    ui.bidValue = value;
    const input = h("input", {
      type: "number",
      inputmode: "numeric",
      min: lo,
      max: hi,
      step: 1,
      value,
      id: "bid-input",
      class: "bid-input",
      dataset: { testid: "bid-input", key: "bid-input" },
      "aria-label": t("ctl.bid_value", { lo, hi }),
    });
    const bidLabel = () => t("ctl.bid", { bid: ui.bidValue });
    const bidBtn = button(bidLabel(), { key: "B", testid: "bid", primary: true, onclick: () => act.send({ seat, bid: ui.bidValue }) });
    // The handlers below may end up on the elements already on the page (the
    // panel is patched, not rebuilt): they find the stepper on the page.
    const shown = () => {
      const box = document.getElementById("controls");
      return {
        input: box?.querySelector("#bid-input") || input,
        label: box?.querySelector("[data-testid=bid] .label") || bidBtn.querySelector(".label"),
        minus: box?.querySelector("[data-testid=bid-minus]") || minus,
        plus: box?.querySelector("[data-testid=bid-plus]") || plus,
      };
    };
    const setValue = (v) => {
      const n = Math.min(Math.max(Number.isFinite(v) ? v : lo, lo), hi);
      ui.bidValue = n;
      const on = shown();
      on.input.value = String(n);
      on.label.textContent = bidLabel();
      on.minus.disabled = n <= lo;
      on.plus.disabled = n >= hi;
    };
    const minus = h("button", { type: "button", class: "step", dataset: { testid: "bid-minus", key: "bid-minus" }, "aria-label": t("ctl.bid_down"), disabled: value <= lo, onclick: () => setValue(ui.bidValue - 1) }, "−");
    const plus = h("button", { type: "button", class: "step", dataset: { testid: "bid-plus", key: "bid-plus" }, "aria-label": t("ctl.bid_up"), disabled: value >= hi, onclick: () => setValue(ui.bidValue + 1) }, "+");
    on(input, {
      change: () => setValue(parseInt(shown().input.value, 10)),
      input: () => {
        const v = parseInt(shown().input.value, 10);
        if (v >= lo && v <= hi) {
          ui.bidValue = v;
          shown().label.textContent = bidLabel();
        }
      },
      keydown: (e) => {
        if (e.key === "Enter") {
          e.preventDefault();
          e.stopPropagation();
          setValue(parseInt(shown().input.value, 10));
          act.send({ seat, bid: ui.bidValue });
        }
      },
    });
    ui.setBid = setValue;
    items.push(h("div", { class: "stepper" }, minus, input, plus), bidBtn);
  }
  if (g.pass) items.push(passButton(seat, act));
  const range = bids.length > 1 ? h("span", { class: "range muted" }, t("ctl.bid_range", { lo: num(bids[0]), hi: num(bids[bids.length - 1]) })) : null;
  return h("div", { class: "choice-row auction", dataset: { key: "row:auction" } }, items, range);
}

export { who };

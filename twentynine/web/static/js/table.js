// Drawing the table from the viewer's observation: status strip, recent
// events, seats, the trick and the hand (the result: result.js). Decisions live
// in controls.js; this module only shows what the observation says.

import { cardBack, cardFace, pointsOf, RANKS, suitIcon, suitTitle } from "./cards.js";
import { h, patch, patchElement, replace, s, setClasses, whenIdle } from "./dom.js";
import { num, t } from "./i18n.js";
import {
  chip,
  game,
  groupLegal,
  highestBid,
  isHuman,
  myTurn,
  playerName,
  seatName,
  team,
  teamName,
  tYou,
  whyNot,
  winningIndex,
} from "./model.js";
import { cardName, suitOf } from "./model.js";
import { reducedMotion } from "./settings.js";

const POSITIONS = ["bottom", "left", "top", "right"];
const TURN_WORD = { auction: "auction", trump: "trump", play: "play" }; // other phases: "deciding"
const HAND_SUIT_ORDER = ["S", "H", "C", "D"]; // colours alternate: black red black red

export function position(seat, anchor) {
  return POSITIONS[(seat - anchor + 4) % 4];
}

// --------------------------------------------------------------------- status strip

// A value's words keep to one line (cut short with an ellipsis where they do not fit,
// the whole of them in its title): a longer one must not add a line to the strip and
// move the table under it.
function statusItem(key, label, value, extra = {}) {
  return h(
    "div",
    { class: ["stat", extra.class], dataset: { testid: key } },
    h("span", { class: "stat-label" }, label),
    h("span", { class: "stat-value" }, h("span", { class: "stat-text", title: value }, value)),
  );
}

export function pipsSix(score, target, label) {
  // The sixes of the pack keep the score: red pips count up, black pips count down.
  const n = Math.min(Math.abs(score), target);
  const slots = Math.max(target, 1);
  const cols = slots > 6 ? 3 : 2;
  const rows = Math.ceil(slots / cols);
  const w = 40;
  const hgt = 56;
  const svg = s("svg", { class: "six", viewBox: `0 0 ${w} ${hgt}`, role: "img", "aria-label": label });
  svg.append(s("rect", { x: 1, y: 1, width: w - 2, height: hgt - 2, rx: 5, class: "six-bg" }));
  for (let i = 0; i < slots; i++) {
    const col = i % cols;
    const row = Math.floor(i / cols);
    const cx = ((col + 1) * w) / (cols + 1);
    const cy = 8 + ((row + 0.5) * (hgt - 16)) / rows;
    const filled = i < n;
    svg.append(
      s("circle", {
        cx,
        cy,
        r: cols > 2 ? 4 : 5.5,
        class: filled ? (score > 0 ? "pip-red" : "pip-black") : "pip-empty",
      }),
    );
  }
  return svg;
}

export function signed(n) {
  return n > 0 ? `+${num(n)}` : num(n);
}

// What the status strip draws from (besides the words' language and the
// setup's names, which board.js adds to every section's key): it is drawn
// again only when this changes.
export function statusKey(obs, viewer) {
  if (!obs) return null;
  return [
    viewer,
    obs.single,
    obs.bidder,
    obs.forced,
    obs.bid,
    obs.doubling,
    obs.phase,
    obs.phase === "auction" ? highestBid(obs) : null,
    obs.target,
    obs.pair,
    obs.trump_revealed,
    obs.trump,
    obs.revealed_in_trick,
    obs.seventh,
    obs.points,
    obs.score,
    game.setup?.options?.match_target ?? null,
  ];
}

export function renderStatus(el, obs, viewer) {
  if (!obs) return replace(el);
  const items = [];
  // contract
  let contract = t("status.none");
  if (obs.single !== null) contract = t("status.single", { who: playerName(obs.single, viewer) });
  else if (obs.bidder !== null) {
    contract = t(obs.forced ? "status.contract_forced" : "status.contract", { who: playerName(obs.bidder, viewer), bid: obs.bid });
    if (obs.doubling > 1) contract += ` · ×${obs.doubling}`;
  } else if (obs.phase === "auction") {
    const high = highestBid(obs);
    contract = high ? t("status.highest", { bid: high.bid, who: playerName(high.seat, viewer) }) : t("status.no_bid");
  }
  const contractItem = statusItem("status-contract", t("status.contract_label"), contract);
  // the target a pair moved, beside the contract: an item of its own would add a row
  // to the strip as the pair is shown, and move the whole table down
  if (obs.target !== null && (obs.pair || obs.target !== obs.bid)) {
    const target = obs.pair ? t("status.target_pair", { target: obs.target }) : num(obs.target);
    const said = `${t("status.target_label")}: ${target}`;
    contractItem
      .querySelector(".stat-value")
      .append(
        h(
          "span",
          { class: "stat-target", dataset: { testid: "status-target" }, title: said },
          h("span", { "aria-hidden": "true" }, `${t("status.target_label")} ${num(obs.target)}`),
          h("span", { class: "sr-only" }, said),
        ),
      );
  }
  items.push(contractItem);
  // trump
  let trump;
  let trumpSuit = null;
  if (obs.single !== null) trump = t("status.trump_none");
  else if (obs.trump_revealed) {
    trumpSuit = obs.trump;
    trump = t("status.trump_revealed", { suit: suitTitle(obs.trump), n: obs.revealed_in_trick });
  } else if (obs.trump !== null && viewer !== null && obs.phase !== "over") {
    trumpSuit = obs.trump;
    trump = t("status.trump_secret", { suit: suitTitle(obs.trump) });
  } else if (obs.phase === "over" && obs.trump !== null) {
    trumpSuit = obs.trump;
    trump = t("status.trump_never", { suit: suitTitle(obs.trump) });
  } else if (obs.bidder !== null && obs.phase !== "trump") trump = obs.seventh ? t("status.trump_seventh") : t("status.trump_hidden");
  else trump = t("status.trump_unchosen");
  const trumpItem = statusItem("status-trump", t("status.trump_label"), trump, { class: trumpSuit ? "has-suit" : "" });
  if (trumpSuit) trumpItem.querySelector(".stat-value").prepend(suitIcon(trumpSuit));
  items.push(trumpItem);
  // points
  const mine = viewer !== null ? team(viewer) : null;
  const pts = h(
    "span",
    { class: "points" },
    [0, 1].map((tm) =>
      h(
        "span",
        { class: ["team-points", `team-${tm}`, mine === tm && "mine"], dataset: { testid: `points-${tm}` } },
        h("span", { class: "team-name" }, teamName(tm, true)),
        h("b", {}, num(obs.points[tm])),
      ),
    ),
  );
  items.push(h("div", { class: "stat", dataset: { testid: "status-points" } }, h("span", { class: "stat-label" }, t("status.points_label")), h("span", { class: "stat-value" }, pts)));
  // match
  const target = game.setup?.options?.match_target ?? null;
  if (target) {
    const six = h(
      "span",
      { class: "match-pips" },
      [0, 1].map((tm) =>
        h(
          "span",
          { class: ["team-six", mine === tm && "mine"], dataset: { testid: `score-${tm}` } },
          h("span", { class: "team-name" }, teamName(tm, true)),
          pipsSix(obs.score[tm], target, t("status.score_aria", { team: teamName(tm), score: signed(obs.score[tm]) })),
          h("b", {}, signed(obs.score[tm])),
        ),
      ),
    );
    items.push(h("div", { class: "stat stat-match" }, h("span", { class: "stat-label" }, t("status.match_label", { target })), h("span", { class: "stat-value" }, six)));
  } else {
    items.push(
      h(
        "div",
        { class: "stat stat-match" },
        h("span", { class: "stat-label" }, t("status.total_label")),
        h("span", { class: "stat-value" }, [0, 1].map((tm) => h("span", { class: ["team-points", `team-${tm}`, mine === tm && "mine"] }, h("span", { class: "team-name" }, teamName(tm, true)), h("b", {}, signed(obs.score[tm]))))),
      ),
    );
  }
  patch(el, items);
}

// --------------------------------------------------------------------- recent events

// The chips the strip shows (the deal's, from its start): its drawing is made of
// these alone. Each keeps the place of its event in the list (`at`) as its key: a new
// chip is added after the others and moves none of them (the strip once kept the
// newest twelve, and each new one rewrote the twelve and moved them along).
export function stripChips(events, viewer) {
  let from = 0;
  events.forEach((ev, at) => {
    if (ev.type === "deal_start") from = at;
  });
  const chips = [];
  for (let at = from; at < events.length; at++) {
    const c = chip(events[at], viewer);
    if (c) chips.push({ ...c, at });
  }
  return chips;
}

export function renderStrip(el, events, viewer, shown = stripChips(events, viewer)) {
  const changed = patch(
    el,
    shown.length
      ? shown.map((c, i) =>
          h(
            "li",
            { class: ["chip", `chip-${c.kind}`, i === shown.length - 1 && "latest"], dataset: { key: `chip:${c.at}` } },
            c.suit ? [suitIcon(c.suit), h("span", { class: "sr-only" }, `${suitTitle(c.suit)}: `)] : null,
            c.text,
          ),
        )
      : h("li", { class: "chip chip-empty" }, t("strip.empty")),
  );
  // the newest chip in view, once everything is drawn (reading the width lays the page out)
  if (changed) toLayOut.strip = el;
  if (el.tabIndex !== 0) el.tabIndex = 0; // it scrolls sideways: the keyboard can reach (and scroll) it too
}

// --------------------------------------------------------------------- seats

function cardsLeft(obs, seat) {
  if (obs.phase === "over" && obs.hands) return 0;
  let played = 0;
  for (const tr of obs.tricks) played += tr.seats.filter((x) => x === seat).length;
  played += obs.trick.filter((x) => x.seat === seat).length;
  return (obs.second_batch ? 8 : 4) - played;
}

// What the plate of `seat` draws from, seat by seat (each expression as
// seatPlate has it), so that a move redraws the plates it changed and no
// other: the one who played (a card fewer) and the ones whose turn came or went.
export function seatKey(seat, obs, viewer, anchor) {
  const acting = obs.to_act === seat && game.hold === null && obs.phase !== "over" && !game.forfeit;
  const lastBid = obs.phase === "auction" ? [...obs.auction].reverse().find((a) => a.seat === seat) || null : null;
  return [
    seat,
    viewer,
    position(seat, anchor),
    obs.phase,
    acting,
    obs.dealer === seat,
    obs.bidder === seat && obs.single === null ? [obs.bid] : null,
    obs.single,
    obs.doubler === seat ? [obs.doubling] : null,
    !!(obs.pair && obs.pair.seat === seat),
    lastBid,
    cardsLeft(obs, seat),
  ];
}

function seatPlate(seat, obs, viewer, anchor) {
  const info = game.setup.seats[seat];
  const pos = position(seat, anchor);
  const name = playerName(seat, viewer);
  const acting = obs.to_act === seat && game.hold === null && obs.phase !== "over" && !game.forfeit;
  // Over the plate's top edge, from its corner inwards (plates.css), in the order they
  // come and stay: the dealer's mark for the whole deal, then the auction's last word,
  // whose place the contract takes when the auction ends, then a double, then a pair.
  // One that comes goes beyond the others, and none moves another; one that says
  // something new is a new mark (keyed by its words), not the old one grown or shrunk.
  const badges = [];
  const mark = (cls, words, attrs = {}) => h("span", { class: cls, dataset: { key: `mark:${words}` }, ...attrs }, words);
  if (obs.dealer === seat) badges.push(mark("badge badge-dealer", t("seat.dealer_short"), { title: t("seat.dealer") }));
  const lastBid = [...obs.auction].reverse().find((a) => a.seat === seat);
  if (obs.phase === "auction" && lastBid) badges.push(mark(["said", lastBid.bid ? "said-bid" : "said-pass"], lastBid.bid ? num(lastBid.bid) : t("seat.passed")));
  if (obs.bidder === seat && obs.single === null) badges.push(mark("badge badge-bidder", t("seat.bidder_badge", { bid: obs.bid })));
  if (obs.single === seat) badges.push(mark("badge badge-bidder", t("seat.single_badge")));
  if (obs.doubler === seat) badges.push(mark("badge badge-double", `×${obs.doubling}`));
  if (obs.pair && obs.pair.seat === seat) badges.push(mark("badge badge-pair", t("seat.pair_badge")));
  let sub = info.kind === "bot" ? t("seat.sub_bot", { seat: seatName(seat), level: t(`level.${info.level}`) }) : seatName(seat);
  if (sub === name) sub = t("seat.person");
  const out = obs.single !== null && seat === (obs.single + 2) % 4;
  const count = cardsLeft(obs, seat);
  const fan = h("span", { class: "fan", "aria-hidden": "true" });
  if (pos !== "bottom" || seat !== viewer) for (let i = 0; i < Math.min(count, 8); i++) fan.append(h("span", { class: "mini-back" }, cardBack()));
  const thinking = acting && !isHuman(seat);
  return h(
    "div",
    {
      class: ["seat", `seat-${pos}`, `team-${team(seat)}`, acting && "acting", out && "sitting-out", seat === viewer && "viewer"],
      dataset: { seat, testid: `seat-${seat}` },
      "aria-label": t("seat.aria", { name, seat: seatName(seat), count }),
    },
    h(
      "div",
      { class: "plate" },
      h("span", { class: "avatar", "aria-hidden": "true" }, name.slice(0, 1).toUpperCase()),
      h(
        "span",
        { class: "who" },
        h("span", { class: "name" }, name),
        // the team at a glance: its short name in its colour
        h("span", { class: "sub" }, h("span", { class: ["team-name", "team-tag", `team-tag-${team(seat)}`], dataset: { testid: `team-${seat}` } }, teamName(team(seat), true)), " ", sub),
      ),
      turnBadge(seat, viewer, obs.phase, acting),
      h("span", { class: "badges" }, badges),
      // over the plate's edge, not in its flow (plates.css): coming and going, it moves nothing
      thinking ? h("div", { class: "thinking" }, h("span", {}), h("span", {}), h("span", {}), h("span", { class: "sr-only" }, t("seat.thinking"))) : null,
    ),
    pos === "bottom" && seat === viewer ? null : h("div", { class: "held" }, fan, h("span", { class: "count" }, out ? t("seat.sits_out") : t("seat.cards", { count }))),
  );
}

// Whose turn it is, in words on the plate (not only its glow). Every word the plate
// may say there (each phase's; the player's own on the player's plate) takes the same
// place, one shown: the plate keeps one size from the auction to the result, and on
// the plates whose turn it is not, the words keep their place unseen.
const PHASE_WORDS = ["auction", "trump", "play", "other"];

function turnBadge(seat, viewer, phase, acting) {
  const words = seat === viewer ? ["you"] : PHASE_WORDS;
  const shown = seat === viewer ? "you" : TURN_WORD[phase] || "other";
  return h(
    "span",
    { class: ["turn", !acting && "resting"], dataset: acting ? { testid: `turn-${seat}` } : {}, "aria-hidden": acting ? null : "true" },
    words.map((w) => h("span", { class: ["badge", "badge-turn", "turn-word", w !== shown && "unseen"], "aria-hidden": w === shown ? null : "true" }, t(`seat.turn_${w}`))),
  );
}

// `decorate(box)` may add to the plates (a room's presence and clock) before they go on the page.
// `only`: the seats whose plates are drawn again (the others are left as they are on the page).
export function renderSeats(el, obs, viewer, anchor, decorate = null, only = null) {
  if (!obs) return replace(el);
  if (only && el.children.length === 4) {
    for (const seat of only) {
      const box = h("div", {}, seatPlate(seat, obs, viewer, anchor));
      if (decorate) decorate(box);
      patchElement(el.children[seat], box.firstChild);
    }
    return;
  }
  const box = h("div", {}, [0, 1, 2, 3].map((seat) => seatPlate(seat, obs, viewer, anchor)));
  if (decorate) decorate(box);
  patch(el, Array.from(box.childNodes));
}

// --------------------------------------------------------------------- trick

let lastTrickKey = "";

// The cards on the table: the trick being played, else (while it is held, or the deal is over) the last one.
function trickOnShow(obs) {
  if (!obs.trick.length && obs.tricks.length && (game.hold !== null || obs.phase === "over")) return obs.tricks[obs.tricks.length - 1];
  return null;
}

// What the trick draws from (its decoration, the cards' signals, is keyed in board.js).
export function trickKey(obs, viewer, anchor) {
  if (!obs) return null;
  return [
    viewer,
    anchor,
    reducedMotion(),
    game.hold,
    obs.phase,
    obs.trick,
    trickOnShow(obs),
    obs.tricks.length,
    obs.trick_leader,
    obs.trump_revealed,
    obs.single,
    obs.trump,
    obs.phase === "auction" ? highestBid(obs) : null,
  ];
}

// `decorate(box)` may mark the played cards (their signals) before they go on the page.
export function renderTrick(el, obs, viewer, anchor, decorate = null) {
  if (!obs) return replace(el);
  let cards = obs.trick;
  const done = trickOnShow(obs);
  if (done) cards = done.cards.map((card, i) => ({ seat: done.seats[i], card }));
  const key = cards.map((c) => c.card).join(",");
  const previous = new Set(lastTrickKey.split(","));
  lastTrickKey = key;
  const best = done ? done.seats.indexOf(done.winner) : winningIndex(cards, obs);
  const slots = cards.map((c, i) => {
    const pos = position(c.seat, anchor);
    const winner = i === best && cards.length > 1;
    return h(
      "div",
      {
        class: ["played", `from-${pos}`, !previous.has(c.card) && !reducedMotion() && "enter", winner && (done ? "winner" : "leading")],
        dataset: { card: c.card, seat: c.seat, testid: `played-${c.seat}` },
        role: "img",
        "aria-label": t("trick.card_aria", { who: playerName(c.seat, viewer), card: cardName(c.card) }) + (winner && done ? `, ${t("trick.wins")}` : ""),
      },
      cardFace(c.card),
      // keyed: a flag that comes is a new element, never the card's signal tag made over
      winner && done ? h("span", { class: "win-flag", dataset: { key: "win-flag" } }, t("trick.wins")) : null,
    );
  });
  let caption = "";
  const total = 8;
  if (done) {
    // the last trick's extra point (Modern) is said apart from the points of its cards
    const cardPoints = done.cards.reduce((sum, c) => sum + pointsOf(c), 0);
    const bonus = done.points - cardPoints;
    caption = tYou(bonus > 0 ? "trick.won_last" : "trick.won", done.winner, viewer, { n: obs.tricks.length, count: cardPoints });
  } else if (obs.phase === "play" || (obs.phase === "pair" && obs.trick_leader !== null) || (obs.trick_leader !== null && obs.phase !== "over")) {
    const n = obs.tricks.length + 1;
    caption = cards.length
      ? t("trick.playing", { n, total, who: playerName(cards[0].seat, viewer) })
      : t("trick.to_lead", { n, total, who: playerName(obs.trick_leader, viewer) });
  } else if (obs.phase === "auction") caption = t("trick.auction");
  else if (obs.phase !== "over") caption = t(`trick.phase_${obs.phase}`);
  const centre = h("div", { class: "centre-note" });
  const high = obs.phase === "auction" ? highestBid(obs) : null;
  if (!cards.length && high) centre.append(h("span", { class: "big-bid", "aria-hidden": "true" }, num(high.bid)));
  // a caption that says something new is a new element (new words, not words moved)
  const box = h("div", {}, h("p", { class: "trick-caption", dataset: { testid: "trick-caption", key: caption } }, caption ? h("span", {}, caption) : null), h("div", { class: "trick-cards" }, slots, centre));
  if (decorate) decorate(box);
  patch(el, Array.from(box.childNodes));
}

// --------------------------------------------------------------------- hand

export function sortHand(cards) {
  return [...cards].sort((a, b) => {
    const sa = HAND_SUIT_ORDER.indexOf(suitOf(a));
    const sb = HAND_SUIT_ORDER.indexOf(suitOf(b));
    if (sa !== sb) return sa - sb;
    return RANKS.indexOf(a.slice(0, -1)) - RANKS.indexOf(b.slice(0, -1));
  });
}

// What the hand draws from, its selected card aside (selectInHand shows that alone).
// While it is another's turn the hand says the same whoever is to play and whatever
// was led (whyNot): a bot's card does not draw the hand again.
export function handKey(obs, ui) {
  if (!obs || ui.viewer === null) return null;
  const mine = myTurn(obs);
  return [ui.viewer, obs.seat, obs.phase, obs.hand, game.hold, mine, mine ? [obs.to_act, obs.legal, obs.asked, obs.trick.length ? obs.trick[0].card : null] : null];
}

function cardClasses(legal, dim, selected, suitStart) {
  return ["card", legal ? "legal" : "illegal", dim && "dim", selected && "selected", suitStart && "suit-start"];
}

// A new selection in a hand drawn for the same state: the selected card's mark
// moves, and nothing else is drawn (the classes and the pressed state as renderHand writes them).
export function selectInHand(el, selected) {
  for (const btn of el.querySelectorAll("button.card")) {
    const legal = btn.classList.contains("legal");
    const on = legal && selected === btn.dataset.card;
    setClasses(btn, cardClasses(legal, btn.classList.contains("dim"), selected === btn.dataset.card, btn.classList.contains("suit-start")));
    if (legal && btn.getAttribute("aria-pressed") !== String(on)) btn.setAttribute("aria-pressed", String(on));
  }
}

export function renderHand(el, obs, ui) {
  if (!obs || ui.viewer === null) {
    replace(el);
    el.removeAttribute("aria-label");
    el[SHAPE] = undefined;
    return [];
  }
  const cards = sortHand(obs.hand);
  const g = groupLegal(obs.legal);
  const playing = myTurn(obs) && g.plays.size > 0;
  el.setAttribute("aria-label", t("hand.aria", { count: cards.length }));
  el.classList.toggle("playing", playing);
  el.dataset.count = cards.length;
  let prevSuit = null;
  const buttons = cards.map((card, i) => {
    const legal = playing && g.plays.has(card);
    const reason = legal ? null : whyNot(obs, card, game.hold);
    const suitStart = prevSuit !== null && suitOf(card) !== prevSuit;
    prevSuit = suitOf(card);
    const selected = ui.selected === card;
    return h(
      "button",
      {
        type: "button",
        class: cardClasses(legal, playing && !legal, selected, suitStart),
        dataset: { card, key: `card-${card}`, testid: `card-${card}`, index: i + 1 },
        "aria-disabled": legal ? null : "true",
        "aria-pressed": legal ? String(selected) : null,
        title: reason || cardName(card),
        style: { "--i": i },
      },
      // the name is the button's own words (the face is a picture): nothing to mismatch
      h("span", { class: "sr-only" }, cardName(card) + (reason ? `. ${reason}` : "")),
      cardFace(card),
      // what a pointer hits: the face under it is restyled for nothing the play changes (hand.css)
      h("span", { class: "pane", "aria-hidden": "true" }),
      h("span", { class: "keyhint", "aria-hidden": "true" }, String(i + 1)),
    );
  });
  patch(el, buttons);
  // the hand is fitted to its width when its cards change in number (or the page's size does)
  el[SHAPE] = `${cards.length}:${buttons.filter((b) => b.classList.contains("suit-start")).length}`;
  return cards;
}

const SHAPE = Symbol("shape"); // the hand's cards and suit breaks as last drawn
const FITTED = Symbol("fitted"); // ... and as last fitted to its width
const MEASURED = Symbol("measured"); // the sizes it was fitted with
const toLayOut = { strip: null };

// What needs the page laid out, done once the whole table is drawn (read
// once, not between one drawing and the next, and every reading before any
// writing): the hand fitted to its width when its cards changed, the newest
// event chip scrolled into view when the chips did.
export function layOutTable(hand) {
  const { strip } = toLayOut;
  toLayOut.strip = null;
  const fit = hand && hand[SHAPE] !== undefined && hand[FITTED] !== hand[SHAPE];
  // the sizes the hand was last fitted with hold while the page keeps its size (the
  // hand's ResizeObserver measures them again when it does): no layout to read here
  const sizes = fit ? hand[MEASURED] || measureHand(hand) : null;
  if (fit && spreadHand(hand, sizes)) hand[FITTED] = hand[SHAPE];
  if (strip) scrollSoon(strip);
}

// The newest chip is scrolled into view in idle time, once the frame that shows
// the move is drawn: its width read at the update (before the motion's own reading)
// laid the whole page out an extra time at every card played, in the frames a
// motion wants on time.
const idle = (fn) => whenIdle(fn, 600);
let stripSoon = null;

function scrollSoon(strip) {
  if (stripSoon === strip) return;
  stripSoon = strip;
  idle(() => {
    stripSoon = null;
    if (!strip.isConnected) return;
    const width = strip.scrollWidth;
    const room = strip.clientWidth;
    if (strip.scrollLeft !== width - room) strip.scrollLeft = width;
    strip.classList.toggle("scrolled", width > room);
  });
}

const SPREAD = 0.06; // the gap between the cards of a hand with room to spare, as a share of a card
const SUIT_GAP = 7; // the extra gap where a suit starts (px, as in the CSS)

// The sizes a hand is fitted with: a card's width, the room inside the hand, and
// the most overlap the CSS allows at this size. Null while the hand is not on show.
function measureHand(el) {
  const card = el.querySelector(".card");
  if (!card) return null;
  // its layout width, as the room is measured (not its box on screen, which a card
  // flying in, scaled, would make small)
  const width = card.offsetWidth;
  if (!width) return null; // not on show: fitted when it is
  const style = getComputedStyle(el);
  const room = el.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 2;
  // the most overlap the CSS allows at this size (set on the root, the hand's own value aside)
  const most = parseFloat(getComputedStyle(document.documentElement).getPropertyValue("--ov")) || -0.44;
  const sizes = { width, room, most };
  el[MEASURED] = sizes;
  return sizes;
}

// The overlap written for the cards on show, with `sizes`; says whether it could.
function spreadHand(el, sizes) {
  const n = el.querySelectorAll(".card").length;
  if (n < 2) return true;
  if (!sizes) return false;
  const { width, room, most } = sizes;
  const breaks = el.querySelectorAll(".card.suit-start").length * SUIT_GAP;
  const fit = (room - n * width - breaks) / ((n - 1) * width);
  const ov = Math.min(SPREAD, Math.max(most, fit)).toFixed(3);
  if (el.style.getPropertyValue("--ov") !== ov) el.style.setProperty("--ov", ov);
  return true;
}

// Lay the hand out in the width it has: side by side with a small gap where the
// cards fit, overlapping just enough where they do not (never more than the CSS says).
// Called when the page's size does (reading sizes lays the page out): the sizes are
// measured again and kept for the next change of the hand's cards (layOutTable).
// Says whether it could (a hand not on show has no width).
export function fitHand(el) {
  el[MEASURED] = null;
  if (el.querySelectorAll(".card").length < 2) return true; // measured when there are cards to fit
  const done = spreadHand(el, measureHand(el));
  if (done && el[SHAPE] !== undefined) el[FITTED] = el[SHAPE];
  return done;
}

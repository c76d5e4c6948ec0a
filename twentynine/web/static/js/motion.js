// Motion that tells the story of a deal: the cards dealt out by batches, a
// card flying from the hand or a seat to its place in the trick, the trick
// swept to its winner, the trump indicator turned over on the reveal, a pair
// or a double given its moment, the result arriving with the score's change.
//
// Only transforms and opacity move (the compositor's work, never a layout
// shift). The table is drawn again from each observation (table.js), keeping
// the elements that stay (dom.js's patch): capture() reads where things were
// before a render, play() starts the motions after it, and settle() puts a
// running motion back on an element that replaced its own in a later render.
// The player's own taps start their motions at once, before the server answers
// (playAhead: the card played; sweepAhead: the trick taken away).
// Nothing runs when the player asked for reduced motion (the setting or the
// system's preference).

import { cardBack } from "./cards.js";
import { h, liveMarks, whenIdle } from "./dom.js";
import { reducedMotion } from "./settings.js";

const FLY_MS = 340;
const SEAT_SCALE = 0.35; // a card leaving a seat's plate starts this small
const EASE_OUT = "cubic-bezier(0.2, 0.8, 0.25, 1)";
const running = new Map(); // selector -> { anim, keyframes, options }
const played = []; // the kinds started, newest last (read by the tests and the bench)
let cost = 0; // milliseconds of script spent here (the bench says how much of a frame is motion's)

// Where things stand before a render: rectangles of the hand's cards, the
// trick's cards (kept, for the sweep) and the seats' plates, the number of backs
// in each seat's fan. They are read here, in one pass, while the page's layout is
// still the one on the screen (reading it costs nothing): the plates keep their
// place through a deal (plates.css), so the motions after the render read theirs here
// and do not lay the page out again for them.
export function capture() {
  if (reducedMotion()) return null;
  const t0 = performance.now();
  const hand = new Map();
  for (const el of document.querySelectorAll("#hand .card")) hand.set(el.dataset.card, el.getBoundingClientRect());
  const trick = [];
  for (const el of document.querySelectorAll("#trick .played")) {
    const rect = el.getBoundingClientRect();
    trick.push({ node: el, card: el.dataset.card, seat: Number(el.dataset.seat), rect });
    // where a card played from that side lands, while one stands there at rest (playAhead)
    const side = el.className.match(/from-(top|bottom|left|right)/)?.[1];
    if (side && rect.width && !el.matches(".in-flight, .aside, .winner")) places.set(side, docRect(rect));
  }
  const fans = new Map();
  const seats = new Map(); // seat -> { where: its place on the felt, rect: its plate's }
  for (const el of document.querySelectorAll("#seats .seat")) {
    const seat = Number(el.dataset.seat);
    fans.set(seat, el.querySelectorAll(".mini-back").length);
    const plate = el.querySelector(".plate") || el;
    seats.set(seat, { where: el.className.match(/seat-(top|bottom|left|right)/)?.[0], rect: plate.getBoundingClientRect() });
  }
  cost += performance.now() - t0;
  return { hand, trick, fans, seats, result: !!document.querySelector("#result:not([hidden]) .result-card") };
}

function centre(r) {
  return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
}

// A rectangle on the page (scrolling aside), and back on the screen.
function docRect(r) {
  return { left: r.left + scrollX, top: r.top + scrollY, width: r.width, height: r.height };
}
function screenRect(r) {
  return { left: r.left - scrollX, top: r.top - scrollY, width: r.width, height: r.height };
}

// Where a card played from each side of the felt lands, as last seen at rest;
// forgotten when the felt changes size (install), and read ahead in idle time
// where no card has stood yet (placesSoon).
const places = new Map();
const SIDES = ["top", "bottom", "left", "right"];
let placing = false;

function placesSoon() {
  if (placing || places.size === SIDES.length) return;
  placing = true;
  idle(readPlaces);
}

// An unseen card of the trick's size (a back) stands on each side not known yet,
// is measured, and goes: nothing on the screen changes.
function readPlaces() {
  placing = false;
  const box = document.querySelector("#trick .trick-cards");
  if (reducedMotion() || document.body.dataset.screen !== "table" || !box) return;
  const t0 = performance.now();
  const missing = SIDES.filter((side) => !places.has(side));
  const probes = missing.map((side) => h("div", { class: `played from-${side} place-probe`, "aria-hidden": "true" }, cardBack()));
  box.append(...probes);
  probes.forEach((probe, i) => {
    const rect = probe.getBoundingClientRect();
    if (rect.width) places.set(missing[i], docRect(rect));
  });
  for (const probe of probes) probe.remove();
  cost += performance.now() - t0;
}

let plates = new Map();

function plateRect(seat) {
  if (plates.has(seat)) return plates.get(seat);
  const rect = readPlate(seat);
  plates.set(seat, rect);
  return rect;
}

// The plates as capture() read them, for the seats still in the same place on the
// felt (the table turned round to another player's seat on a shared device moves
// them: those are read again).
function platesOf(scene) {
  const out = new Map();
  for (const [seat, { where, rect }] of scene.seats || []) {
    const el = where && rect.width ? document.querySelector(`#seats [data-seat="${seat}"]`) : null;
    if (el?.classList.contains(where)) out.set(seat, rect);
  }
  return out;
}

function readPlate(seat) {
  const el = document.querySelector(`#seats [data-seat="${seat}"] .plate`) || document.querySelector(`#seats [data-seat="${seat}"]`);
  return el ? el.getBoundingClientRect() : null;
}

// Start a motion on the element `selector` finds, and keep it so that a
// render replacing the element does not cut it short.
// An element on its way (a card flying in) is not where it is drawn: it lets a
// pointer through to what lies under it (a tap on a button it passes over
// reaches the button) until it lands.
liveMarks({ classes: ["in-flight"] });

// An element may be given a new flight while one is still on its way (the
// second batch's deal over the first's): it lands when the last one does.
const flying = new WeakMap(); // element -> its flights on the way

function inFlight(el, anim) {
  el.classList.add("in-flight");
  flying.set(el, (flying.get(el) || 0) + 1);
  let landed = false;
  const land = () => {
    if (landed) return; // a finished flight may be cancelled later: it lands once
    landed = true;
    const left = (flying.get(el) || 1) - 1;
    flying.set(el, left);
    if (!left) el.classList.remove("in-flight");
  };
  anim.addEventListener("finish", land);
  anim.addEventListener("cancel", land);
}

function run(kind, selector, keyframes, options, { flight = false } = {}) {
  const el = document.querySelector(selector);
  if (!el) return null;
  const anim = el.animate(keyframes, { fill: "backwards", ...options });
  running.set(selector, { anim, keyframes, options, flight });
  if (flight) inFlight(el, anim);
  anim.addEventListener("finish", () => {
    if (running.get(selector)?.anim === anim) running.delete(selector);
  });
  played.push(kind);
  if (played.length > 200) played.shift();
  return anim;
}

// After any render: a motion whose element was replaced goes on, at the same
// point, on the element now standing in its place.
export function settle() {
  for (const [selector, entry] of running) {
    const target = entry.anim.effect?.target;
    if (target && target.isConnected) continue;
    const el = document.querySelector(selector);
    if (!el || entry.anim.playState === "finished") {
      running.delete(selector);
      continue;
    }
    const time = entry.anim.currentTime;
    entry.anim.cancel();
    const anim = el.animate(entry.keyframes, { fill: "backwards", ...entry.options });
    anim.currentTime = time;
    entry.anim = anim;
    if (entry.flight) inFlight(el, anim);
    anim.addEventListener("finish", () => {
      if (running.get(selector)?.anim === anim) running.delete(selector);
    });
  }
}

// A card (or any element) flies from the rectangle `from` to where it stands.
// Flights are gathered first and started together (flush), so that the
// page's layout is read once and not again after every start.
let flights = [];

function flyFrom(kind, selector, from, { delay = 0, duration = FLY_MS, fade = true, scale = null, defer = false } = {}) {
  if (from) flights.push({ kind, selector, from, delay, duration, fade, scale, defer });
}

// The deal's flights start once the update that dealt the cards is on the screen.
// The first drawing of a table is the page's longest frame (about 35 ms with a
// phone's CPU), and sixteen flights made in it made it longer still: the compositor
// waited for it and dropped the motion's first frame. Started two frames later (the
// page's next frame, then the one after it), each `wait` ms after that (its place in
// the deal), a flight is made in a short frame of its own. Until then the card waits
// unseen (the class `undealt`, a live mark: a drawing meanwhile keeps it; it goes from
// whatever element `selector` finds when the flight starts) and counts as running.
let dealing = null; // the starts waiting for the two frames
let pending = 0;
liveMarks({ classes: ["undealt"] });

function dealLater(selector, wait, start) {
  document.querySelector(selector)?.classList.add("undealt");
  pending++;
  dealing ??= [];
  const now = () => {
    pending--;
    document.querySelector(selector)?.classList.remove("undealt");
    const t0 = performance.now();
    start();
    cost += performance.now() - t0;
  };
  dealing.push(wait > 0 ? () => setTimeout(now, wait) : now);
  if (dealing.length === 1)
    requestAnimationFrame(() =>
      requestAnimationFrame(() => {
        const due = dealing;
        dealing = null;
        for (const go of due) go();
      }),
    );
}

function flush() {
  const jobs = flights
    .map((f) => ({ ...f, el: document.querySelector(f.selector) }))
    .filter((f) => f.el)
    .map((f) => ({ ...f, to: f.el.getBoundingClientRect() }));
  flights = [];
  for (const f of jobs) {
    if (!f.to.width) continue;
    const a = centre(f.from);
    const b = centre(f.to);
    // a card from a seat starts as small as the backs held there; from the hand, at the hand's size
    const scale = f.scale ?? Math.max(0.3, Math.min(2, f.from.width / f.to.width || 1));
    const start = (delay) =>
      run(
        f.kind,
        f.selector,
        [
          { translate: `${a.x - b.x}px ${a.y - b.y}px`, scale: String(scale), opacity: f.fade ? 0.35 : 1 },
          { translate: "0px 0px", scale: "1" }, // the opacity ends where the page has it (a dimmed card stays dim)
        ],
        { duration: f.duration, delay, easing: EASE_OUT },
        { flight: true },
      );
    if (f.defer) dealLater(f.selector, f.delay, () => start(0));
    else start(f.delay);
  }
}

function pop(kind, selector, { delay = 0, big = 1.35 } = {}) {
  return run(
    kind,
    selector,
    [
      { scale: "0.3", opacity: 0 },
      { scale: String(big), opacity: 1, offset: 0.6 },
      { scale: "1", opacity: 1 },
    ],
    { duration: 520, delay, easing: "ease-out" },
  );
}

function pulse(kind, selector, { delay = 0, big = 1.12 } = {}) {
  // no fill: while it waits, a pulse leaves the element to its other motions
  return run(kind, selector, [{ scale: "1" }, { scale: String(big), offset: 0.4 }, { scale: "1" }], { duration: 560, delay, easing: "ease-in-out", fill: "none" });
}

// The deal: each seat's batch flies out from the dealer, seat after seat.
function deal(scene, dealer, second) {
  const from = plateRect(dealer);
  if (!from) return;
  for (let k = 0; k < 4; k++) {
    const seat = (dealer + 1 + k) % 4;
    const delay = k * 170;
    const hand = document.querySelectorAll("#hand .card");
    const mine = document.querySelector(`#seats [data-seat="${seat}"].viewer`) && hand.length;
    if (mine) {
      let i = 0;
      for (const el of hand) {
        if (second && scene?.hand.has(el.dataset.card)) continue;
        flyFrom("deal", `#hand [data-card="${el.dataset.card}"]`, from, { delay: delay + i * 40, scale: SEAT_SCALE, defer: true });
        i++;
      }
      continue;
    }
    const backs = document.querySelectorAll(`#seats [data-seat="${seat}"] .mini-back`);
    const before = second ? (scene?.fans.get(seat) ?? 0) : 0;
    for (let i = before; i < backs.length; i++)
      flyFrom("deal", `#seats [data-seat="${seat}"] .mini-back:nth-child(${i + 1})`, from, { delay: delay + (i - before) * 40, scale: 1, defer: true });
  }
}

// The trick taken away: the cards that left the table fly, as copies over
// the page, to the seat that won them (those the tap sent on their way already
// aside: sweepAhead).
function sweep(scene, obs) {
  const gone = scene.trick.filter((c) => !document.querySelector(`#trick .played[data-card="${c.card}"]`));
  for (const card of ahead) if (!scene.trick.some((c) => c.card === card)) ahead.delete(card);
  const left = gone.filter((c) => !ahead.delete(c.card));
  if (!left.length) return;
  const won = [...(obs?.tricks || [])].reverse().find((tr) => tr.cards.includes(left[0].card));
  if (!won) return;
  const to = plateRect(won.winner);
  if (to) sweepCards(left, to);
}

// The trick on show swept at the tap that takes it away, not at the server's
// answer: on a phone's CPU the drawing of the answer held the sweep's first
// frames back; started at the tap, the sweep is on its way (the compositor's)
// while the answer is drawn. The cards on the table stand aside unseen until
// the answer takes them off (or come back if the tap is refused: unsweep).
const ahead = new Set(); // the cards swept at the tap, not yet off the table
// a card whose copy is on its way stands aside, unseen (motion.css), through renders
liveMarks({ classes: ["aside"] });

export function sweepAhead(trick) {
  if (!trick || reducedMotion() || document.body.dataset.screen !== "table") return;
  const t0 = performance.now();
  const nodes = [...document.querySelectorAll("#trick .played")].filter((el) => trick.cards.includes(el.dataset.card) && !ahead.has(el.dataset.card));
  // every reading before any writing
  const to = nodes.length ? readPlate(trick.winner) : null;
  const cards = nodes.map((el) => ({ node: el, card: el.dataset.card, rect: el.getBoundingClientRect() }));
  if (to && cards.every((c) => c.rect.width)) {
    sweepCards(cards, to);
    for (const c of cards) {
      ahead.add(c.card);
      c.node.classList.add("aside");
    }
  }
  cost += performance.now() - t0;
}

export function unsweep() {
  ahead.clear();
  for (const el of document.querySelectorAll("#trick .played.aside")) el.classList.remove("aside");
}

// Copies of `cards` (each with the rectangle its card stands in) fly to the plate at `to`.
function sweepCards(cards, to) {
  const b = centre(to);
  const swept = [];
  // the copies are taken off the page together once the last has landed, in idle
  // time: each taken off alone restyled the page in the frames of the others' flight
  const landed = () => {
    if (swept.every((a) => a.playState === "finished" || a.playState === "idle"))
      idle(() => {
        for (const a of swept) a.effect?.target?.remove();
      });
  };
  cards.forEach((c, i) => {
    const copy = ghostFor(c);
    if (!copy) return;
    const { ghost, rect } = copy;
    // a copy made ahead stands where its card stood then (a pulse may have
    // scaled it, the page may have changed its size): the sweep starts from
    // where the card stands now, moved and scaled from there
    const at = centre(rect);
    const a = centre(c.rect);
    const k = rect.width ? c.rect.width / rect.width : 1;
    const anim = ghost.animate(
      [
        { translate: `${a.x - at.x}px ${a.y - at.y}px`, scale: String(k), opacity: 1 },
        { translate: `${b.x - at.x}px ${b.y - at.y}px`, scale: String(0.35 * k), opacity: 0 },
      ],
      { duration: 420, delay: i * 45, easing: "cubic-bezier(0.5, 0, 0.75, 0.4)", fill: "both" },
    );
    played.push("sweep");
    if (played.length > 200) played.shift();
    swept.push(anim);
    anim.addEventListener("finish", landed);
    anim.addEventListener("cancel", landed);
  });
}

// The sweep's copies are made while the trick waits for its next tap, in
// idle time: four faces put on the page at the tap cost a style and layout
// of some 150 elements, which on a phone's CPU fell in the sweep's first
// frames and dropped them. A copy waits unseen (opacity 0; the sweep's
// keyframes give it its opacity) where its card stands.
const copies = new Map(); // card -> { ghost, face, rect }
let preparing = false;
const idle = (fn) => whenIdle(fn, 500);

// A copy of the face `face` over the page, at the rectangle `r`.
function ghostOf(face, r) {
  const ghost = h("div", { class: "motion-ghost", "aria-hidden": "true" }, face);
  Object.assign(ghost.style, { left: `${r.left}px`, top: `${r.top}px`, width: `${r.width}px`, height: `${r.height}px` });
  return ghost;
}

// The copy of a swept card (`c` as capture() read it) and where it stands:
// the one made ahead when it shows the same face, else one made now.
function ghostFor(c) {
  const face = c.node.querySelector("svg");
  const copy = copies.get(c.card);
  copies.delete(c.card);
  if (copy && face && copy.face.isEqualNode(face)) return copy;
  copy?.ghost.remove();
  if (!face) return null;
  const ghost = ghostOf(face.cloneNode(true), c.rect);
  document.body.append(ghost);
  return { ghost, rect: c.rect };
}

function discardCopies() {
  for (const { ghost } of copies.values()) ghost.remove();
  copies.clear();
}

function prepareSoon() {
  if (preparing) return;
  preparing = true;
  idle(prepare);
}

// Copies of the cards of the trick on show, while it is held. A card still
// on its way is copied once it has landed.
function prepare() {
  preparing = false;
  if (reducedMotion() || document.body.dataset.screen !== "table" || document.body.dataset.hold !== "trick") return;
  const t0 = performance.now();
  const cards = [...document.querySelectorAll("#trick .played")];
  const shown = new Set(cards.map((el) => el.dataset.card));
  for (const [card, { ghost }] of copies)
    if (!shown.has(card)) {
      ghost.remove();
      copies.delete(card);
    }
  const still = [];
  let landing = false;
  for (const el of cards) {
    const face = el.querySelector("svg");
    const copy = copies.get(el.dataset.card);
    if (!face || (copy && copy.face.isEqualNode(face))) continue;
    if (el.classList.contains("in-flight") || el.classList.contains("aside")) {
      landing = true;
      continue;
    }
    const rect = el.getBoundingClientRect();
    if (rect.width) still.push({ card: el.dataset.card, face, rect }); // (a trick not on show is copied at the sweep)
  }
  const ghosts = still.map(({ card, face, rect }) => {
    copies.get(card)?.ghost.remove();
    const clone = face.cloneNode(true);
    const ghost = ghostOf(clone, rect);
    ghost.style.opacity = "0";
    copies.set(card, { ghost, face: clone, rect });
    return ghost;
  });
  if (ghosts.length) document.body.append(...ghosts);
  cost += performance.now() - t0;
  if (landing) setTimeout(prepareSoon, FLY_MS);
}

// Start the motions of what just happened. `events` are the events of this
// update for the seat on show; `scene` is what capture() read before the
// render; `fresh` is a whole state (a join or a reload): only a deal not yet
// begun is dealt again then.
export function play(scene, events, { obs, viewer, fresh = false } = {}) {
  if (fresh) unplay();
  if (!scene || reducedMotion() || document.body.dataset.screen !== "table") {
    discardCopies();
    unplay();
    return;
  }
  const t0 = performance.now();
  try {
    story(scene, events, obs, viewer, fresh);
  } finally {
    // copies the sweep did not take belong to a trick no longer held
    if (document.body.dataset.hold === "trick") prepareSoon();
    else discardCopies();
    placesSoon();
    cost += performance.now() - t0;
  }
}

function story(scene, events, obs, viewer, fresh) {
  const types = new Set(events.map((e) => e.type));
  if (fresh && !(obs && obs.phase === "auction" && obs.auction.length === 0)) return;
  plates = platesOf(scene); // read before the render; a plate not read then, once, at the layout it left
  let dealt = false;
  let second = false; // the second batch dealt: the four cards held already make room
  let flying = 0;
  const later = []; // motions that read nothing: started after every reading is done
  for (const ev of events) {
    if (ev.type === "deal_start" && !types.has("deal_end")) {
      deal(scene, ev.dealer, false);
      dealt = true;
    } else if (ev.type === "second_batch" && obs) {
      deal(scene, obs.dealer, true);
      dealt = true;
      second = true;
    } else if (ev.type === "play" && !fresh && leaving.has(ev.card)) {
      landAhead(ev.card);
    } else if (ev.type === "play" && !fresh) {
      const selector = `#trick .played[data-card="${ev.card}"]`;
      const fromHand = ev.seat === viewer && scene.hand.get(ev.card);
      const from = fromHand ? scene.hand.get(ev.card) : plateRect(ev.seat);
      flyFrom("play", selector, from, { delay: flying * 120, fade: !fromHand, scale: fromHand ? null : SEAT_SCALE });
      flying++;
    } else if (ev.type === "trick") {
      later.push(() => pulse("trick", "#trick .played.winner", { delay: flying * 120 + FLY_MS, big: 1.14 }));
    } else if (ev.type === "reveal") {
      later.push(() =>
        run("reveal", "[data-testid=status-trump]", [{ transform: "perspective(500px) rotateX(90deg)", opacity: 0.2 }, { transform: "perspective(500px) rotateX(0deg)", opacity: 1 }], {
          duration: 620,
          easing: EASE_OUT,
        }),
      );
    } else if (ev.type === "pair") {
      later.push(() => {
        pop("pair", `#seats [data-seat="${ev.seat}"] .badge-pair`);
        pulse("pair", "[data-testid=status-target]", { delay: 200, big: 1.18 });
      });
    } else if (ev.type === "double" || ev.type === "redouble" || ev.type === "set") {
      later.push(() => {
        pop("double", `#seats [data-seat="${ev.seat}"] .badge-double`, { big: 1.6 });
        pulse("double", "[data-testid=status-contract]", { delay: 200 });
      });
    } else if (ev.type === "single") {
      later.push(() => pop("double", `#seats [data-seat="${ev.seat}"] .badge-bidder`, { big: 1.6 }));
    }
  }
  const closing = [];
  if (!dealt || second) {
    // the hand closes up where a card left it, or opens where the second batch's cards
    // come in: each card held glides from where it was (a card that jumped there would
    // be a layout shift, and is seen as one)
    for (const el of document.querySelectorAll("#hand .card")) {
      const was = scene.hand.get(el.dataset.card);
      if (was) closing.push({ card: el.dataset.card, was, now: el.getBoundingClientRect() });
    }
  }
  flush();
  for (const { card, was, now } of closing) {
    if (Math.abs(was.left - now.left) < 1 && Math.abs(was.top - now.top) < 1) continue;
    run("hand", `#hand [data-card="${card}"]`, [{ translate: `${was.left - now.left}px ${was.top - now.top}px` }, { translate: "0px 0px" }], { duration: 260, easing: EASE_OUT });
  }
  sweep(scene, obs);
  for (const start of later) start();
  if (!scene.result && document.querySelector("#result:not([hidden]) .result-card")) {
    run("result", "#result .result-card", [{ translate: "0px 40px", opacity: 0 }, { translate: "0px 0px", opacity: 1 }], { duration: 420, delay: 250, easing: EASE_OUT });
    document.querySelectorAll("#result .result-team").forEach((el, i) => {
      if (el.querySelector(".delta")) pop("score", `#result .result-team:nth-child(${i + 1}) .delta`, { delay: 700 + i * 160, big: 1.5 });
      pulse("score", `#result .result-team:nth-child(${i + 1}) b`, { delay: 700 + i * 160 });
    });
  }
}

// The player's card flown at the Play tap (or key, or drag), as a copy over the page,
// to where a card from the player's side lands, not when the server's answer comes:
// on a phone's CPU the drawing of the answer held the flight's first frames back;
// started at the tap, it is on its way (the compositor's) while the answer is drawn.
// The card stands aside unseen in the hand meanwhile; the answer's card on the
// table waits unseen under the copy until it lands (landAhead). Where the place
// is not known yet (the first card from that side since the felt changed size),
// the card flies when the answer comes, as every other card does.
const leaving = new Map(); // card -> { ghost, anim }

export function playAhead(card) {
  if (reducedMotion() || document.body.dataset.screen !== "table" || leaving.has(card)) return;
  const t0 = performance.now();
  const el = document.querySelector(`#hand .card[data-card="${card}"]`);
  const side = document.querySelector("#seats .seat.viewer")?.className.match(/seat-(top|bottom|left|right)/)?.[1];
  const place = side && places.get(side);
  const face = el?.querySelector("svg");
  if (!el || !place || !face) return;
  // every reading before any writing
  const from = el.getBoundingClientRect();
  if (!from.width) return;
  const to = screenRect(place);
  const a = centre(from);
  const b = centre(to);
  const ghost = ghostOf(face.cloneNode(true), from);
  document.body.append(ghost);
  el.classList.add("aside");
  const anim = ghost.animate(
    [
      { translate: "0px 0px", scale: "1" },
      { translate: `${b.x - a.x}px ${b.y - a.y}px`, scale: String(to.width / from.width) },
    ],
    { duration: FLY_MS, easing: EASE_OUT, fill: "forwards" },
  );
  leaving.set(card, { ghost, anim });
  played.push("play");
  if (played.length > 200) played.shift();
  cost += performance.now() - t0;
}

// The answer came with the card on the table: it shows there once its copy has landed.
function landAhead(card) {
  const { ghost, anim } = leaving.get(card);
  leaving.delete(card);
  const selector = `#trick .played[data-card="${card}"]`;
  const shown = document.querySelector(selector);
  if (anim.playState === "finished") {
    ghost.remove();
    return;
  }
  shown?.classList.add("aside");
  const land = () => {
    document.querySelector(selector)?.classList.remove("aside");
    ghost.remove();
  };
  anim.addEventListener("finish", land);
  anim.addEventListener("cancel", land);
}

// The play was refused (or the game left): the card comes back to the hand.
export function unplay() {
  for (const [card, { ghost }] of leaving) {
    ghost.remove();
    document.querySelector(`#hand .card[data-card="${card}"]`)?.classList.remove("aside");
  }
  leaving.clear();
}

// For the tests and the bench: the kinds of motion started so far, and how
// many are running now.
export function record() {
  // (a motion waiting for the update to be on the screen counts as running)
  return { played: [...played], running: running.size + pending, cost_ms: cost };
}

export function install() {
  document.documentElement.classList.add("motion");
  const felt = document.getElementById("felt");
  if (felt)
    new ResizeObserver(() => {
      places.clear();
      placesSoon();
    }).observe(felt);
}

// Drag to play: press a legal card of the hand, slide along the hand to
// take a neighbour instead, push it up toward the trick and let go to play
// it; let go short of that and it goes back. A card the rules forbid is not
// lifted: the player is told why, as a tap tells them. Pointer events, so
// the mouse, a pen and a finger all work; taps, clicks and keys stay as they
// were (a drag that moved swallows the click that ends it).

import { liveMarks } from "./dom.js";
import { reducedMotion } from "./settings.js";

// a card held in a drag stays held when the hand is drawn again
liveMarks({ classes: ["dragging", "drag-ready"], styles: ["translate"] });

const START_PX = 8; // a press that moves less than this is a tap
const BAND_PX = 28; // above the hand by less than this, sliding changes the card

let drag = null; // { id, card, x0, y0, lift, moved, cards: [{card, left, legal}], need }
let swallowClick = false;

function cardAt(x) {
  let found = null;
  for (const c of drag.cards) if (x >= c.left) found = c;
  return found;
}

function element(hand, card) {
  return hand.querySelector(`.card[data-card="${CSS.escape(card)}"]`);
}

function place(hand, x, y) {
  const el = element(hand, drag.card);
  if (!el) return;
  const dx = x - drag.x0;
  const dy = Math.min(0, y - drag.y0);
  drag.last = `${dx}px ${dy}px`;
  el.style.translate = drag.last;
  el.classList.add("dragging");
  el.classList.toggle("drag-ready", -dy >= drag.need);
}

function letGo(hand, card, animate) {
  const el = element(hand, card);
  if (!el) return;
  const from = el.style.translate;
  el.style.translate = "";
  el.classList.remove("dragging", "drag-ready");
  if (animate && from && !reducedMotion()) el.animate([{ translate: from }, { translate: "0px 0px" }], { duration: 200, easing: "ease-out" });
}

// How far up a card must be pushed to be played: part of the way from the
// hand to the middle of the trick, and never less than a short push.
function needed(hand) {
  const trick = document.querySelector("#trick .trick-cards") || document.getElementById("trick");
  const top = hand.getBoundingClientRect().top;
  if (!trick) return 60;
  const r = trick.getBoundingClientRect();
  return Math.max(50, Math.min(160, (top - (r.top + r.height / 2)) * 0.35));
}

// `hand` is the hand's element; `canPlay(card)` says whether the card may be
// played now, `play(card)` plays it, `refuse(card)` says why it may not.
export function installDrag(hand, { canPlay, play, refuse }) {
  hand.addEventListener("pointerdown", (e) => {
    if (drag || (e.pointerType === "mouse" && e.button !== 0)) return;
    const btn = e.target.closest(".card");
    if (!btn || !hand.classList.contains("playing")) return;
    const cards = [...hand.querySelectorAll(".card")].map((el) => ({ card: el.dataset.card, left: el.getBoundingClientRect().left, legal: canPlay(el.dataset.card) }));
    drag = { id: e.pointerId, card: btn.dataset.card, x0: e.clientX, y0: e.clientY, moved: false, cards, need: needed(hand) };
  });
  hand.addEventListener("pointermove", (e) => {
    if (!drag || e.pointerId !== drag.id) return;
    const dx = e.clientX - drag.x0;
    const dy = e.clientY - drag.y0;
    if (!drag.moved) {
      if (Math.hypot(dx, dy) < START_PX) return;
      drag.moved = true;
      if (!canPlay(drag.card)) {
        // an illegal card stays where it is; the player hears why
        refuse(drag.card);
        drag.refused = true;
        return;
      }
      hand.setPointerCapture?.(e.pointerId);
    }
    if (drag.refused) return;
    e.preventDefault();
    if (-dy < BAND_PX) {
      // still in the hand: the card under the finger, if legal, is the one held
      const under = cardAt(e.clientX);
      if (under && under.legal && under.card !== drag.card) {
        letGo(hand, drag.card, false);
        drag.card = under.card;
        const el = element(hand, under.card);
        const r = el.getBoundingClientRect();
        drag.x0 = r.left + r.width / 2; // the new card's middle comes under the pointer
      }
    }
    place(hand, e.clientX, e.clientY);
  });
  const end = (e, cancelled) => {
    if (!drag || e.pointerId !== drag.id) return;
    const d = drag;
    drag = null;
    if (!d.moved) return; // a tap: the click does what a click does
    swallowClick = true;
    setTimeout(() => {
      swallowClick = false;
    }, 0);
    if (d.refused) return;
    const lift = d.y0 - e.clientY;
    if (!cancelled && lift >= d.need && canPlay(d.card)) {
      letGo(hand, d.card, false);
      play(d.card);
    } else letGo(hand, d.card, true);
  };
  hand.addEventListener("pointerup", (e) => end(e, false));
  hand.addEventListener("pointercancel", (e) => end(e, true));
  // the click that ends a drag is not a tap on the card
  hand.addEventListener(
    "click",
    (e) => {
      if (!swallowClick) return;
      swallowClick = false;
      e.stopPropagation();
      e.preventDefault();
    },
    true,
  );
  // a render in the middle of a drag draws the hand again: the held card stays held
  new MutationObserver(() => {
    if (drag && drag.moved && !drag.refused) {
      const el = element(hand, drag.card);
      if (el && !el.classList.contains("dragging")) {
        el.classList.add("dragging");
        el.style.translate = drag.last || "";
      }
    }
  }).observe(hand, { childList: true });
}

// For the tests: the card being dragged, if any.
export function dragging() {
  return drag && drag.moved && !drag.refused ? drag.card : null;
}

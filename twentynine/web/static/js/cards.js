// The project's own cards, drawn by code as SVG: suit shapes, pips, courts, backs.
// Colours come from CSS (currentColor), so the four-colour deck and the dark
// theme are a matter of CSS variables.

import { s, whenIdle } from "./dom.js";
import { num, t } from "./i18n.js";

export const SUITS = ["S", "H", "D", "C"];
export const RANKS = ["J", "9", "A", "T", "K", "Q", "8", "7"]; // high to low in every suit
const POINTS = { J: 3, 9: 2, A: 1, T: 1 };
const SUIT_WORD = { S: "spades", H: "hearts", D: "diamonds", C: "clubs" };
const RANK_WORD = { J: "jack", 9: "nine", A: "ace", T: "ten", K: "king", Q: "queen", 8: "eight", 7: "seven" };

export function rankOf(card) {
  return card.slice(0, -1);
}
export function suitOf(card) {
  return card.slice(-1);
}
export function pointsOf(card) {
  return POINTS[rankOf(card)] || 0;
}
export function rankLabel(rank) {
  return rank === "T" ? "10" : rank;
}
export function strength(card) {
  return 7 - RANKS.indexOf(rankOf(card));
}

// "Jack of spades, 3 points": each of the 32 names is a message of its own
// ("card.jack_spades"), since languages join rank and suit differently
// (Hindi "पान की बेगम" but "पान का गुलाम", Bengali "ইস্কাপনের গোলাম").
export function cardName(card) {
  const name = t(`card.${RANK_WORD[rankOf(card)]}_${SUIT_WORD[suitOf(card)]}`);
  const pts = pointsOf(card);
  return pts ? t("card.name_points", { name, count: pts }) : name;
}

// The rank as players call it ("Jack", "গোলাম", "गुलाम").
export function rankName(rank) {
  return t(`rank.${RANK_WORD[rank]}`);
}

export function suitName(suit) {
  return t(`suit.${SUIT_WORD[suit]}`);
}

export function suitTitle(suit) {
  return t(`suit_title.${SUIT_WORD[suit]}`);
}

// Short form for captions: "J♠" with the 10 written out.
export function cardShort(card) {
  return rankLabel(rankOf(card)) + SYMBOL[suitOf(card)];
}
export const SYMBOL = { S: "♠", H: "♥", D: "♦", C: "♣" };

// --------------------------------------------------------------------- sprites
const SHAPES = {
  S:
    "M50 4C40 20 8 38 8 60c0 14 10 23 23 23 8 0 14-4 17-9-1 10-5 17-13 22h30c-8-5-12-12-13-22 " +
    "3 5 9 9 17 9 13 0 23-9 23-23C92 38 60 20 50 4z",
  H:
    "M50 92C44 84 6 58 6 32 6 16 18 6 31 6c9 0 16 5 19 13 3-8 10-13 19-13 13 0 25 10 25 26 " +
    "0 26-38 52-44 60z",
  D: "M50 3c10 16 24 32 40 47-16 15-30 31-40 47C40 81 26 65 10 50 26 35 40 19 50 3z",
  C:
    "M50 6a20 20 0 0 0-15 33 20 20 0 1 0 12 33c-1 9-5 16-13 22h32c-8-6-12-13-13-22a20 20 0 1 0 " +
    "12-33A20 20 0 0 0 50 6z",
};

export function installSprites() {
  if (document.getElementById("card-sprites")) return;
  const defs = s("defs", {});
  for (const suit of SUITS) {
    defs.append(
      s("symbol", { id: `pip-${suit}`, viewBox: "0 0 100 100" }, s("path", { d: SHAPES[suit], fill: "currentColor" })),
    );
  }
  defs.append(
    s(
      "pattern",
      { id: "back-lattice", width: 20, height: 20, patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" },
      s("rect", { width: 20, height: 20, class: "lattice-a" }),
      s("rect", { width: 10, height: 10, class: "lattice-b" }),
      s("rect", { x: 10, y: 10, width: 10, height: 10, class: "lattice-b" }),
    ),
  );
  // the back of a card, drawn once: every back on the table is a use of it
  defs.append(s("symbol", { id: "card-back", viewBox: "0 0 200 280" }, backArt()));
  const svg = s("svg", { id: "card-sprites", width: 0, height: 0, "aria-hidden": "true", style: "position:absolute" }, defs);
  document.body.prepend(svg);
}

function pip(suit, x, y, size, flip = false) {
  const attrs = { href: `#pip-${suit}`, x: x - size / 2, y: y - size / 2, width: size, height: size };
  if (flip) attrs.transform = `rotate(180 ${x} ${y})`;
  return s("use", attrs);
}

// Pip layouts of the number cards in the central frame: [column, row] with
// columns 0 1 2 (left, middle, right) and rows from 0 (top) to 1 (bottom).
const LAYOUTS = {
  7: [[0, 0], [2, 0], [1, 0.25], [0, 0.5], [2, 0.5], [0, 1], [2, 1]],
  8: [[0, 0], [2, 0], [1, 0.25], [0, 0.5], [2, 0.5], [1, 0.75], [0, 1], [2, 1]],
  9: [[0, 0], [2, 0], [0, 1 / 3], [2, 1 / 3], [1, 0.5], [0, 2 / 3], [2, 2 / 3], [0, 1], [2, 1]],
  T: [[0, 0], [2, 0], [1, 1 / 6], [0, 1 / 3], [2, 1 / 3], [0, 2 / 3], [2, 2 / 3], [1, 5 / 6], [0, 1], [2, 1]],
};

function numberArt(rank, suit) {
  const g = s("g", { class: "pips" });
  const xs = [74, 100, 126];
  const size = rank === "T" ? 30 : 34;
  for (const [col, row] of LAYOUTS[rank]) {
    const y = 62 + row * 156;
    g.append(pip(suit, xs[col], y, size, row > 0.5));
  }
  return g;
}

function aceArt(suit) {
  return s(
    "g",
    { class: "ace" },
    s("circle", { cx: 100, cy: 140, r: 56, fill: "none", stroke: "currentColor", "stroke-width": 2, opacity: 0.35 }),
    pip(suit, 100, 140, 78),
  );
}

const HEADGEAR = {
  K: "M68 96V62l16 14 16-24 16 24 16-14v34z",
  Q: "M70 96c4-22 14-34 30-34s26 12 30 34z",
  J: "M70 94c2-18 14-28 30-28 10 0 18 4 23 11l16-20c4 2 5 6 3 9l-14 19c1 3 2 6 2 9z",
};

function courtArt(rank, suit) {
  const g = s("g", { class: "court" });
  g.append(
    s("rect", { x: 52, y: 36, width: 96, height: 208, rx: 12, class: "court-frame" }),
    s("path", { d: HEADGEAR[rank], fill: "currentColor", opacity: 0.85 }),
  );
  if (rank === "Q") {
    for (const x of [80, 100, 120]) g.append(s("circle", { cx: x, cy: 58, r: 5, fill: "currentColor" }));
  }
  g.append(
    s("text", { x: 100, y: 176, class: "court-letter", "text-anchor": "middle" }, rank),
    pip(suit, 100, 214, 34),
  );
  return g;
}

function corner(rank, suit) {
  const label = rankLabel(rank);
  return s(
    "g",
    { class: "corner" },
    s("text", { x: 27, y: 50, class: label.length > 1 ? "rank rank-10" : "rank", "text-anchor": "middle" }, label),
    pip(suit, 27, 78, 32),
  );
}

// Each face is drawn once (for the page's digits: the points badge), as a
// symbol among the sprites, and every face on the page is a use of it: a
// table shows the same faces again at every move, and a use is two elements
// to build and compare, not forty. The symbol carries the class `card-svg`
// so that the art's style rules (`.card-svg .rank`) reach its drawing.
const faces = new Map(); // "card digits" -> the symbol's id

function faceSymbol(card) {
  const digits = num(1234567890);
  const key = `${card} ${digits}`;
  let id = faces.get(key);
  if (!id) {
    installSprites();
    id = `face-${card}-${faces.size}`;
    const symbol = s("symbol", { id, viewBox: "0 0 200 280", class: "card-svg" });
    symbol.append(...drawFace(card).childNodes);
    document.querySelector("#card-sprites defs").append(symbol);
    faces.set(key, id);
  }
  return id;
}

// Every face drawn ahead, in idle time once the page has started: a face first drawn
// in the middle of a trick (a card not seen before) changed the sprites then, and
// their first drawing fell in the frames of the card's flight.
export function drawFacesAhead() {
  const idle = (fn) => whenIdle(fn, 2000);
  const cards = SUITS.flatMap((suit) => RANKS.map((rank) => rank + suit));
  const next = (deadline) => {
    while (cards.length && (!deadline || deadline.timeRemaining() > 2)) faceSymbol(cards.shift());
    if (cards.length) idle(next);
  };
  idle(next);
}

// The face of a card as an SVG element (decorative: the button around it has the label).
export function cardFace(card) {
  return s(
    "svg",
    { class: `card-svg suit-${suitOf(card)}`, viewBox: "0 0 200 280", "aria-hidden": "true", focusable: "false" },
    s("use", { href: `#${faceSymbol(card)}` }),
  );
}

function drawFace(card) {
  const rank = rankOf(card);
  const suit = suitOf(card);
  const svg = s("svg", {
    class: `card-svg suit-${suit}`,
    viewBox: "0 0 200 280",
    "aria-hidden": "true",
    focusable: "false",
  });
  svg.append(s("rect", { class: "card-bg", x: 2, y: 2, width: 196, height: 276, rx: 16 }));
  svg.append(corner(rank, suit));
  const bottom = corner(rank, suit);
  bottom.setAttribute("transform", "rotate(180 100 140)");
  svg.append(bottom);
  if (rank in LAYOUTS) svg.append(numberArt(rank, suit));
  else if (rank === "A") svg.append(aceArt(suit));
  else svg.append(courtArt(rank, suit));
  const pts = pointsOf(card);
  if (pts) {
    svg.append(
      s(
        "g",
        { class: "badge" },
        s("rect", { x: 8, y: 104, width: 38, height: 30, rx: 15 }),
        s("text", { x: 27, y: 126, "text-anchor": "middle" }, num(pts)),
      ),
    );
  }
  return svg;
}

// The back of a card: a use of the one drawn among the sprites (a seat's fan shows
// eight of them, drawn again at every move).
export function cardBack() {
  return s("svg", { class: "card-svg back", viewBox: "0 0 200 280", "aria-hidden": "true", focusable: "false" }, s("use", { href: "#card-back" }));
}

function backArt() {
  return [
    s("rect", { class: "back-bg", x: 2, y: 2, width: 196, height: 276, rx: 16 }),
    s("rect", { x: 16, y: 16, width: 168, height: 248, rx: 10, fill: "url(#back-lattice)" }),
    s("rect", { x: 16, y: 16, width: 168, height: 248, rx: 10, class: "back-line" }),
    s("circle", { cx: 100, cy: 140, r: 34, class: "back-medal" }),
    s("text", { x: 100, y: 154, "text-anchor": "middle", class: "back-text" }, "29"),
  ];
}

// A suit symbol as a small inline SVG (for buttons, captions and the status strip).
export function suitIcon(suit, extra = "") {
  return s(
    "svg",
    { class: `suit-icon suit-${suit} ${extra}`, viewBox: "0 0 100 100", "aria-hidden": "true", focusable: "false" },
    s("use", { href: `#pip-${suit}` }),
  );
}

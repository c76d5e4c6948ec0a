// Online rooms in the browser: the lobby before the start (code, invite link,
// seats, bots, start), and what a room adds to the table after it: who is
// here or away (with the grace countdown), the turn clock, spectators and
// table signals. The server decides everything; this module only shows it
// and sends the requests.

import { h, replace } from "./dom.js";
import { t } from "./i18n.js";
import { botName, characterChoice, givenName, ratingTitle, SEAT_KEYS, game } from "./model.js";

const TOKENS = "twentynine.rooms"; // code -> this browser's seat token
const NAME = "twentynine.name";
const LEVEL_ORDER = ["random", "novice", "casual", "strong", "expert"];

// ------------------------------------------------------------------ memory

export function roomTokens() {
  try {
    return JSON.parse(localStorage.getItem(TOKENS) || "{}") || {};
  } catch {
    return {};
  }
}

export function keepToken(code, token) {
  const all = roomTokens();
  if (token) all[code] = token;
  else delete all[code];
  try {
    localStorage.setItem(TOKENS, JSON.stringify(all));
  } catch {
    /* private mode: the seat lasts as long as the page */
  }
}

export function playerName() {
  try {
    return localStorage.getItem(NAME) || "";
  } catch {
    return "";
  }
}

export function keepName(name) {
  try {
    localStorage.setItem(NAME, name);
  } catch {
    /* ignore */
  }
}

export function formatCode(code) {
  return code && code.length === 8 ? `${code.slice(0, 4)}-${code.slice(4)}` : code || "";
}

export function inviteLink(code) {
  return `${location.origin}/#room/${formatCode(code)}`;
}

// "#room/ABCD-EFGH" -> "ABCDEFGH" (null when the hash is not a room link)
export function codeFromHash(hash) {
  const m = /^#room\/([A-Za-z0-9-]{8,12})$/.exec(hash || "");
  return m ? m[1].replace(/-/g, "").toUpperCase() : null;
}

// ------------------------------------------------------------------ the lobby

function seatTitle(i) {
  return t(`seat.${SEAT_KEYS[i]}`);
}

function botChoices(meta, profile) {
  const groups = [h("option", { value: "" }, t("room.open_seat"))];
  for (const level of LEVEL_ORDER) {
    const of = meta.characters.filter((c) => c.level === level);
    if (of.length) groups.push(h("optgroup", { label: t(`level.${level}`) }, of.map((c) => h("option", { value: c.id, title: ratingTitle(c) }, characterChoice(c)))));
  }
  if (profile === "bhoos") groups.push(h("option", { value: "url" }, t("room.url_bot")));
  return groups;
}

// Draw the room's lobby into `root`. `send(type, body)` returns a promise.
export function renderLobby(root, room, meta, { send, onLeave, onError }) {
  const you = room.you;
  const host = room.host;
  const full = room.seats.every((s) => s.kind !== "open");
  const code = formatCode(room.code);
  const link = inviteLink(room.code);
  const run = (type, body) => send(type, body).catch((err) => onError(err));

  const copy = h(
    "button",
    {
      type: "button",
      dataset: { testid: "copy-link" },
      onclick: async () => {
        try {
          await navigator.clipboard.writeText(link);
          replace(copy, t("room.copied"));
        } catch {
          replace(copy, t("room.copy_failed"));
        }
      },
    },
    t("room.copy_link"),
  );

  const seats = room.seats.map((s, i) => {
    const mine = you === i;
    let who;
    if (s.kind === "open") who = h("span", { class: "muted" }, t("room.open"));
    else if (s.kind === "human")
      who = h(
        "span",
        {},
        h("b", {}, givenName(s.name) || seatTitle(i)),
        mine ? ` ${t("room.you")}` : "",
        s.host ? h("span", { class: "badge" }, t("room.host")) : null,
        s.here ? null : h("span", { class: "badge badge-away" }, t("room.not_here")),
      );
    else if (s.kind === "bot") who = h("span", {}, h("b", {}, botName(s)), " ", h("span", { class: "muted" }, t(`level.${s.level}`)));
    else who = h("span", {}, h("b", {}, s.name), " ", h("span", { class: "muted" }, t("room.url_bot")));
    const controls = [];
    if (s.kind === "open" && !mine)
      controls.push(
        h("button", { type: "button", class: "primary", dataset: { testid: `sit-${i}` }, onclick: () => run("sit", { seat: i, name: nameInput.value.trim() || undefined }) }, t("room.sit")),
      );
    if (mine && !s.host) controls.push(h("button", { type: "button", class: "quiet", dataset: { testid: "stand" }, onclick: () => run("stand", {}) }, t("room.stand")));
    if (host && !(s.kind === "human" && s.host)) {
      const select = h(
        "select",
        {
          "aria-label": t("room.seat_choice", { seat: seatTitle(i) }),
          dataset: { testid: `seat-bot-${i}` },
          onchange: (e) => {
            let bot = e.target.value;
            if (bot === "url") {
              bot = window.prompt(t("room.url_prompt"), "http://127.0.0.1:8001") || "";
              if (!bot) return;
            }
            run("seat_bot", { seat: i, bot });
          },
        },
        h("option", { value: "-", selected: true, disabled: true }, t("room.put_here")),
        botChoices(meta, room.setup.profile),
      );
      controls.push(select);
    }
    if (host) {
      const others = [0, 1, 2, 3].filter((j) => j !== i);
      controls.push(
        h(
          "select",
          {
            "aria-label": t("room.swap_aria", { seat: seatTitle(i) }),
            dataset: { testid: `swap-${i}` },
            onchange: (e) => run("swap", { a: i, b: Number(e.target.value) }),
          },
          h("option", { value: "-", selected: true, disabled: true }, t("room.swap")),
          others.map((j) => h("option", { value: j }, seatTitle(j))),
        ),
      );
    }
    return h(
      "li",
      { class: ["room-seat", `team-${i & 1}`, mine && "mine"], dataset: { testid: `room-seat-${i}`, kind: s.kind } },
      h("span", { class: "room-seat-name" }, seatTitle(i), i === 2 || i === 0 ? "" : ""),
      who,
      h("span", { class: "room-seat-controls" }, controls),
    );
  });

  const nameInput = h("input", {
    type: "text",
    maxlength: 24,
    value: playerName(),
    placeholder: t("room.name_placeholder"),
    dataset: { testid: "room-name" },
    oninput: (e) => keepName(e.target.value.trim()),
  });

  const table = room.table;
  const facts = [
    t(`profile.${room.setup.profile}.name`) || room.setup.profile,
    room.setup.match ? t("room.match") : t("room.single"),
    table.clock ? t("room.clock_on", { n: table.clock }) : t("room.clock_off"),
    t("room.grace", { n: table.grace }),
    room.setup.signals ? t("room.signals_on") : t("room.signals_off"),
  ];
  let status;
  if (host) status = full ? t("room.ready_host") : t("room.waiting_host");
  else if (you === null) status = full ? t("room.full_watch") : t("room.pick_seat");
  else status = t("room.waiting_start");

  replace(
    root,
    h(
      "div",
      { class: "room-lobby" },
      h("h1", { tabindex: "-1" }, t("room.title")),
      h(
        "div",
        { class: "room-code" },
        h("span", { class: "muted" }, t("room.code")),
        h("strong", { class: "code", dataset: { testid: "room-code" } }, code),
        copy,
      ),
      h("p", { class: "room-link" }, h("a", { href: link, dataset: { testid: "room-link" } }, link)),
      h("p", { class: "room-facts" }, facts.join(" · ")),
      h("label", { class: "room-name" }, t("room.your_name"), " ", nameInput),
      h("ol", { class: "room-seats" }, seats),
      h("p", { class: "room-status", role: "status", dataset: { testid: "room-status" } }, status),
      h(
        "div",
        { class: "form-actions" },
        host
          ? h("button", { type: "button", class: "primary big", disabled: !full, dataset: { testid: "room-start" }, onclick: () => run("start", {}) }, t("room.start"))
          : null,
        h("button", { type: "button", class: "quiet", dataset: { testid: "room-leave" }, onclick: onLeave }, t("room.leave")),
      ),
    ),
  );
}

// ------------------------------------------------------------------ at the table

// Seconds left of a countdown the server sent `left` seconds ago (at `at`).
function left(seconds, at) {
  return Math.max(0, Math.ceil(seconds - (performance.now() - at) / 1000));
}

// Badges for presence and the turn clock, added to the seat plates drawn by table.js.
export function decorateSeats(el, tableInfo, receivedAt) {
  if (!tableInfo) return;
  for (const plate of el.querySelectorAll(".seat")) {
    const seat = Number(plate.dataset.seat);
    const p = tableInfo.presence?.[seat];
    const badges = plate.querySelector(".badges");
    if (!badges || !p) continue;
    if (p.state === "away") {
      badges.append(
        h(
          "span",
          { class: "badge badge-away", dataset: { testid: `away-${seat}`, countdown: String(p.grace_left), at: String(receivedAt) } },
          t("room.away", { n: left(p.grace_left, receivedAt) }),
        ),
      );
      plate.classList.add("away");
    } else if (p.state === "bot" && game.setup?.seats?.[seat]?.kind === "human") {
      badges.append(h("span", { class: "badge badge-away", dataset: { testid: `standin-${seat}` } }, t("room.standin")));
      plate.classList.add("away");
    }
    const clock = tableInfo.clock;
    if (clock && clock.seat === seat) {
      badges.append(
        h(
          "span",
          {
            class: ["badge", "badge-clock", clock.running ? "running" : "paused"],
            dataset: { testid: `clock-${seat}`, countdown: clock.running ? String(clock.left) : "", at: String(receivedAt), fixed: String(Math.ceil(clock.left)) },
          },
          t("room.clock", { n: clock.running ? left(clock.left, receivedAt) : Math.ceil(clock.left) }),
        ),
      );
    }
  }
}

// What decorateSeats adds to the plate of `seat` draws from. The countdowns'
// words change with the time, not with this: tickCountdowns keeps them going
// between drawings, from the time they were received (part of the key where a
// countdown is shown).
export function seatDecorationKey(tableInfo, receivedAt, seat) {
  if (!tableInfo) return null;
  const p = tableInfo.presence?.[seat] || null;
  const clock = tableInfo.clock && tableInfo.clock.seat === seat ? tableInfo.clock : null;
  const counting = p?.state === "away" || !!clock;
  return [p, clock, counting ? receivedAt : null];
}

// Refresh the countdowns once a second without redrawing the table.
export function tickCountdowns() {
  for (const badge of document.querySelectorAll("[data-countdown]")) {
    const total = badge.dataset.countdown;
    if (total === "") continue;
    const n = left(Number(total), Number(badge.dataset.at));
    badge.textContent = badge.classList.contains("badge-clock") ? t("room.clock", { n }) : t("room.away", { n });
  }
}

// The line under the status strip for a room: code, spectators, "watching".
export function roomLine(tableInfo, spectator) {
  if (!tableInfo) return null;
  const bits = [t("room.code_short", { code: formatCode(tableInfo.code) })];
  if (tableInfo.spectators) bits.push(t("room.spectators", { count: tableInfo.spectators }));
  if (spectator) bits.push(t("room.watching"));
  return h("p", { class: "room-line", dataset: { testid: "room-line" } }, bits.join(" · "));
}

// The signal of each card played this deal, from the observation.
export function signalOf(obs, seat, card) {
  const found = (obs?.signals || []).find((s) => s.seat === seat && s.card === card);
  return found ? found.signal : null;
}

// Mark the cards of the trick that carry a signal (an animated tag on the card).
export function decorateTrick(el, obs) {
  for (const slot of el.querySelectorAll(".played")) {
    const signal = signalOf(obs, Number(slot.dataset.seat), slot.dataset.card);
    if (!signal) continue;
    slot.classList.add("signalled", `signal-${signal}`);
    slot.append(h("span", { class: "signal-tag", dataset: { testid: `signal-${slot.dataset.seat}`, key: "signal-tag" } }, t(`signal.${signal}`)));
  }
}

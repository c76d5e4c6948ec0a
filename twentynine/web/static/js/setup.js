// The new-game form: profile (with its summary), any option over it, the
// length, who sits where (people at this device or bot characters), and a
// few table settings. It remembers the last choice in this browser.

import { h, replace } from "./dom.js";
import { has, num, t } from "./i18n.js";
import { characterChoice, ratingLabel, ratingTitle, SEAT_KEYS } from "./model.js";
import { playerName as roomPlayerName } from "./room.js";

const KEY = "twentynine.setup";
const LEVEL_ORDER = ["random", "novice", "casual", "strong", "expert"];

function saved() {
  try {
    return JSON.parse(localStorage.getItem(KEY) || "null");
  } catch {
    return null;
  }
}

function valueLabel(option, value) {
  if (value === true) return t("value.yes");
  if (value === false) return t("value.no");
  if (value === null) return t("value.none");
  const key = `value.${option}.${value}`;
  return typeof value === "string" ? t(key) : num(value);
}

// The form state: {profile, options (overrides), length, target, seats, pace, undo, autoPair, seed}
function defaults(meta) {
  return {
    profile: "pagat",
    options: {},
    length: "match",
    target: meta.default_match_target,
    seats: ["human", ...meta.default_bots],
    names: ["", "", "", ""],
    pace: "normal",
    undo: null, // null: the default for the length
    hint: false, // the expert's hint and bid chances on request (practice only)
    autoPair: false,
    seed: "",
    where: "here", // "here": people at this device; "room": an online room
    clock: 0,
    grace: 60,
    signals: true,
  };
}

const CLOCKS = [0, 15, 30, 60, 120];
const GRACES = [30, 60, 120, 300];

// The form being filled, so that a change of language redraws it with the
// player's choices kept (keepDraft).
let draft = null;

export function buildSetup(root, meta, { onStart, onCreateRoom, onJoinRoom, onRules, onCancel, canCancel, extra = null, keepDraft = false }) {
  const prev = saved();
  const st = { ...defaults(meta), ...(prev || {}), ...(keepDraft && draft ? draft : {}) };
  draft = st;
  if (!meta.profiles[st.profile]) st.profile = "pagat";
  st.options = Object.fromEntries(Object.entries(st.options || {}).filter(([k]) => meta.options.some((o) => o.name === k)));
  const chars = new Map(meta.characters.map((c) => [c.id, c]));
  st.seats = st.seats.map((s, i) => (i === 0 ? "human" : s === "human" || chars.has(s) ? s : meta.default_bots[i - 1]));

  const form = h("form", { class: "setup-form", novalidate: true, "aria-labelledby": "setup-title" });
  const error = h("p", { class: "form-error", role: "alert", dataset: { testid: "setup-error" } });

  function profileValue(name) {
    return meta.profiles[st.profile][name];
  }
  function current(name) {
    return name in st.options ? st.options[name] : profileValue(name);
  }

  // ---------------------------------------------------------------- profiles
  const profileList = h("div", { class: "profiles", role: "radiogroup", "aria-label": t("setup.profile") });
  for (const name of meta.profile_order) {
    const id = `profile-${name}`;
    profileList.append(
      h(
        "label",
        { class: "profile-card", for: id },
        h("input", {
          type: "radio",
          name: "profile",
          id,
          value: name,
          checked: st.profile === name,
          dataset: { testid: id },
          onchange: () => {
            st.profile = name;
            st.options = {};
            if (meta.profiles[name].match_target === null) st.length = "single";
            else st.length = "match";
            refresh();
          },
        }),
        h("span", { class: "profile-name" }, t(`profile.${name}.name`)),
        h("span", { class: "profile-summary" }, t(`profile.${name}.summary`)),
      ),
    );
  }

  // ---------------------------------------------------------------- options
  const optionsBox = h("div", { class: "options-grid" });
  const changedNote = h("span", { class: "changed-note muted" });
  function optionControl(o) {
    const id = `opt-${o.name}`;
    const val = current(o.name);
    const set = (v) => {
      if (v === profileValue(o.name)) delete st.options[o.name];
      else st.options[o.name] = v;
      refresh(false);
    };
    let control;
    if (o.kind === "bool") {
      control = h("input", {
        type: "checkbox",
        id,
        checked: !!val,
        onchange: (e) => {
          if (o.name === "doubling" && !e.target.checked) {
            delete st.options.double_by;
            delete st.options.allow_set;
          }
          set(e.target.checked);
        },
      });
    } else if (o.kind === "choice") {
      control = h(
        "select",
        { id, onchange: (e) => set(e.target.value) },
        o.choices.map((c) => h("option", { value: c, selected: c === val }, valueLabel(o.name, c))),
      );
    } else if (o.kind === "int") {
      control = h("input", { type: "number", id, min: o.min, max: o.max, value: val, inputmode: "numeric", onchange: (e) => set(parseInt(e.target.value, 10)) });
    } else if (o.kind === "optional_int") {
      const lo = current("min_bid");
      const hi = current("max_bid");
      const opts = [h("option", { value: "", selected: val === null }, t("value.none"))];
      for (let b = lo; b <= hi; b++) opts.push(h("option", { value: b, selected: val === b }, num(b)));
      control = h("select", { id, onchange: (e) => set(e.target.value === "" ? null : parseInt(e.target.value, 10)) }, opts);
    } else if (o.kind === "stake") {
      const opts = [h("option", { value: "", selected: val === false }, t("value.no"))];
      for (let n = 1; n <= 6; n++) opts.push(h("option", { value: n, selected: val === n }, t("value.stake", { n })));
      control = h("select", { id, onchange: (e) => set(e.target.value === "" ? false : parseInt(e.target.value, 10)) }, opts);
    }
    if ((o.name === "double_by" || o.name === "allow_set") && !current("doubling")) control.disabled = true;
    const changed = o.name in st.options;
    return h(
      "div",
      { class: ["option", changed && "changed"], dataset: { option: o.name } },
      h("label", { for: id }, t(`option.${o.name}.label`), changed ? h("span", { class: "changed-dot", title: t("setup.changed") }, " •") : null),
      control,
      h("p", { class: "help muted" }, t(`option.${o.name}.help`)),
    );
  }
  const seedInput = h("input", {
    type: "text",
    inputmode: "numeric",
    id: "setup-seed",
    value: st.seed,
    placeholder: t("setup.seed_placeholder"),
    dataset: { testid: "setup-seed" },
    oninput: (e) => {
      st.seed = e.target.value.trim();
    },
  });

  // ---------------------------------------------------------------- length
  const lengthBox = h("div", { class: "length", role: "radiogroup", "aria-label": t("setup.length") });
  const targetInput = h("input", {
    type: "number",
    min: 1,
    max: 30,
    value: st.target,
    class: "target-input",
    "aria-label": t("setup.target_aria"),
    dataset: { testid: "setup-target" },
    onchange: (e) => {
      // nothing else depends on the target: redrawing would move this very input mid-event
      st.target = Math.max(1, parseInt(e.target.value, 10) || meta.default_match_target);
      targetInput.value = st.target;
    },
  });

  // ---------------------------------------------------------------- seats
  const seatsBox = h("div", { class: "seats-setup" });
  function seatControl(i) {
    const id = `seat-${i}`;
    const value = st.seats[i];
    const blurb = h("p", { class: "help muted" });
    const nameInput = h("input", {
      type: "text",
      maxlength: 24,
      class: "name-input",
      value: st.names[i] || "",
      placeholder: t(`seat.${SEAT_KEYS[i]}`),
      "aria-label": t("setup.name_aria", { seat: t(`seat.${SEAT_KEYS[i]}`) }),
      oninput: (e) => {
        st.names[i] = e.target.value;
      },
    });
    const describe = () => {
      const v = st.seats[i];
      if (v === "human") replace(blurb, i === 0 ? t("setup.you_here") : t("setup.person_here"));
      else {
        const c = chars.get(v);
        const rating = c && ratingLabel(c);
        const about = c && (has(`character.${c.id}`) ? t(`character.${c.id}`) : c.blurb);
        if (!c) replace(blurb, "");
        else if (!rating) replace(blurb, `${t(`level.${c.level}`)} · ${about}`);
        else replace(blurb, `${t(`level.${c.level}`)} · `, h("span", { class: "rating", title: ratingTitle(c), dataset: { testid: `rating-${i}` } }, rating), ` · ${about}`);
      }
      nameInput.hidden = v !== "human" || humans() < 2;
    };
    let control;
    if (i === 0) {
      control = h("span", { class: "fixed-seat" }, t("setup.you"));
    } else {
      const groups = [h("option", { value: "human", selected: value === "human" }, t("setup.person"))];
      for (const level of LEVEL_ORDER) {
        const of = meta.characters.filter((c) => c.level === level);
        if (!of.length) continue;
        groups.push(h("optgroup", { label: t(`level.${level}`) }, of.map((c) => h("option", { value: c.id, selected: value === c.id, title: ratingTitle(c) }, characterChoice(c)))));
      }
      control = h(
        "select",
        {
          id,
          dataset: { testid: id },
          onchange: (e) => {
            st.seats[i] = e.target.value;
            refresh(false);
          },
        },
        groups,
      );
    }
    describe();
    const role = i === 2 ? t("setup.partner") : t("setup.opponent");
    return h(
      "div",
      { class: ["seat-setup", `seat-setup-${SEAT_KEYS[i]}`] },
      h("label", { for: i === 0 ? null : id }, h("b", {}, t(`seat.${SEAT_KEYS[i]}`)), " ", h("span", { class: "muted" }, i === 0 ? "" : role)),
      control,
      nameInput,
      blurb,
    );
  }
  const humans = () => (st.where === "room" ? 1 : st.seats.filter((s) => s === "human").length);

  // ---------------------------------------------------------------- here, or an online room
  const whereBox = h(
    "div",
    { class: "where", role: "radiogroup", "aria-label": t("setup.where") },
    ["here", "room"].map((w) =>
      h(
        "label",
        { class: "radio" },
        h("input", { type: "radio", name: "where", value: w, checked: st.where === w, dataset: { testid: `where-${w}` }, onchange: () => { st.where = w; refresh(false); } }),
        t(`setup.where_${w}`),
      ),
    ),
  );
  const roomName = h("input", { type: "text", maxlength: 24, value: roomPlayerName(), dataset: { testid: "room-create-name" }, placeholder: t("room.name_placeholder") });
  function roomSettings() {
    const select = (testid, values, current, label, onchange) =>
      h("select", { dataset: { testid }, onchange: (e) => onchange(Number(e.target.value)) }, values.map((v) => h("option", { value: v, selected: v === current }, label(v))));
    return h(
      "div",
      { class: "room-settings" },
      h("p", { class: "note" }, t("setup.room_help")),
      h("label", {}, t("room.your_name"), " ", roomName),
      h("label", {}, t("setup.clock"), " ", select("setup-clock", CLOCKS, st.clock, (v) => (v ? t("setup.clock_n", { n: v }) : t("setup.clock_off")), (v) => { st.clock = v; })),
      h("label", {}, t("setup.grace"), " ", select("setup-grace", GRACES, st.grace, (v) => t("setup.grace_n", { n: v }), (v) => { st.grace = v; })),
    );
  }

  // ---------------------------------------------------------------- table settings
  const tableBox = h("div", { class: "table-settings" });

  function refresh(full = true) {
    error.textContent = "";
    // options
    replace(optionsBox, meta.options.map(optionControl));
    const n = Object.keys(st.options).length;
    changedNote.textContent = n ? t("setup.changed_count", { count: n }) : t("setup.as_profile");
    // length
    replace(
      lengthBox,
      h("label", { class: "radio" }, h("input", { type: "radio", name: "length", value: "single", checked: st.length === "single", dataset: { testid: "length-single" }, onchange: () => { st.length = "single"; refresh(false); } }), t("setup.single")),
      h("label", { class: "radio" }, h("input", { type: "radio", name: "length", value: "match", checked: st.length === "match", dataset: { testid: "length-match" }, onchange: () => { st.length = "match"; refresh(false); } }), t("setup.match_to"), targetInput),
    );
    targetInput.value = st.target;
    targetInput.disabled = st.length !== "match";
    // seats, or the room's settings
    for (const input of whereBox.querySelectorAll("input")) input.checked = input.value === st.where;
    if (st.where === "room") replace(seatsBox, roomSettings());
    else replace(seatsBox, [0, 1, 2, 3].map(seatControl));
    startBtn.textContent = st.where === "room" ? t("setup.create_room") : t("setup.start");
    // table
    const undoDefault = st.length === "single";
    const undo = st.undo === null ? undoDefault : st.undo;
    const multi = humans() > 1;
    replace(
      tableBox,
      h(
        "label",
        {},
        t("setup.pace"),
        " ",
        h(
          "select",
          { dataset: { testid: "setup-pace" }, onchange: (e) => { st.pace = e.target.value; } },
          ["slow", "normal", "fast"].map((p) => h("option", { value: p, selected: st.pace === p }, t(`setup.pace_${p}`))),
        ),
      ),
      h(
        "label",
        { class: "check" },
        h("input", { type: "checkbox", checked: undo && !multi, disabled: multi, dataset: { testid: "setup-undo" }, onchange: (e) => { st.undo = e.target.checked; } }),
        t("setup.undo"),
        h("span", { class: "help muted" }, multi ? t("setup.undo_hotseat") : t("setup.undo_help")),
      ),
      h(
        "label",
        { class: "check" },
        h("input", { type: "checkbox", checked: st.hint && !multi, disabled: multi, dataset: { testid: "setup-hint" }, onchange: (e) => { st.hint = e.target.checked; } }),
        t("setup.hint"),
        h("span", { class: "help muted" }, multi ? t("setup.undo_hotseat") : t("setup.hint_help")),
      ),
      h(
        "label",
        { class: "check" },
        h("input", { type: "checkbox", checked: st.autoPair || multi, disabled: multi, dataset: { testid: "setup-autopair" }, onchange: (e) => { st.autoPair = e.target.checked; } }),
        t("setup.auto_pair"),
        h("span", { class: "help muted" }, multi ? t("setup.auto_pair_hotseat") : t("setup.auto_pair_help")),
      ),
      h(
        "label",
        { class: "check" },
        h("input", { type: "checkbox", checked: st.signals, dataset: { testid: "setup-signals" }, onchange: (e) => { st.signals = e.target.checked; } }),
        t("setup.signals"),
        h("span", { class: "help muted" }, t("setup.signals_help")),
      ),
    );
    if (full) {
      for (const input of profileList.querySelectorAll("input")) input.checked = input.value === st.profile;
    }
  }

  function toRoomSetup() {
    const setup = { profile: st.profile, options: { ...st.options }, length: st.length, signals: st.signals, clock: st.clock, grace: st.grace };
    if (st.length === "match") setup.target = st.target;
    return setup;
  }

  function toSetup() {
    const seats = st.seats.map((v, i) => (v === "human" ? { human: true, ...(st.names[i]?.trim() ? { name: st.names[i].trim() } : {}) } : { bot: v }));
    const multi = humans() > 1;
    const setup = {
      profile: st.profile,
      options: { ...st.options },
      length: st.length,
      seats,
      pace: st.pace,
      undo: multi ? false : st.undo === null ? st.length === "single" : st.undo,
      auto_pair: st.autoPair || multi,
      signals: st.signals,
      hint: !multi && st.hint,
    };
    if (st.length === "match") setup.target = st.target;
    if (st.seed !== "") {
      const n = Number(st.seed);
      if (!Number.isInteger(n) || n < 0) throw new Error(t("setup.bad_seed"));
      setup.seed = n;
    }
    return setup;
  }

  function rulesPreview() {
    const opts = { ...meta.profiles[st.profile], ...st.options };
    opts.match_target = st.length === "match" ? st.target : null;
    return { profile: st.profile, options: opts };
  }

  const startBtn = h("button", { type: "submit", class: "primary big", dataset: { testid: "start-game" } }, t("setup.start"));
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    error.textContent = "";
    let setup;
    try {
      setup = toSetup();
    } catch (err) {
      error.textContent = err.message;
      return;
    }
    try {
      localStorage.setItem(KEY, JSON.stringify(st));
    } catch {
      /* ignore */
    }
    startBtn.disabled = true;
    try {
      if (st.where === "room") await onCreateRoom(toRoomSetup(), roomName.value.trim());
      else await onStart(setup);
    } catch (err) {
      error.textContent = err?.message || String(err);
    } finally {
      startBtn.disabled = false;
    }
  });

  const codeInput = h("input", { type: "text", maxlength: 12, autocomplete: "off", spellcheck: false, placeholder: "ABCD-EFGH", "aria-label": t("setup.join_code"), dataset: { testid: "join-code" } });
  const joinError = h("p", { class: "form-error", role: "alert", dataset: { testid: "join-error" } });
  const joinBtn = h(
    "button",
    {
      type: "button",
      dataset: { testid: "join-room" },
      onclick: async () => {
        joinError.textContent = "";
        const code = codeInput.value.trim();
        if (!code) {
          joinError.textContent = t("setup.join_empty");
          return;
        }
        joinBtn.disabled = true;
        try {
          await onJoinRoom(code);
        } catch (err) {
          joinError.textContent = err?.message || String(err);
        } finally {
          joinBtn.disabled = false;
        }
      },
    },
    t("setup.join"),
  );
  codeInput.addEventListener("keydown", (e) => {
    if (e.key === "Enter") {
      e.preventDefault();
      joinBtn.click();
    }
  });
  const joinBox = h("div", { class: "join-room" }, h("label", {}, t("setup.join_code"), " ", codeInput), joinBtn, joinError);

  const quick = h(
    "div",
    { class: "quick-start" },
    h("p", {}, t("setup.quick_text")),
    h(
      "button",
      {
        type: "button",
        class: "primary",
        dataset: { testid: "quick-start" },
        onclick: async (e) => {
          const btn = e.currentTarget;
          btn.disabled = true;
          try {
            await onStart({ profile: "pagat", length: "match", seats: [{ human: true }, ...meta.default_bots.map((b) => ({ bot: b }))], pace: "normal", undo: false, auto_pair: false });
          } catch (err) {
            error.textContent = err?.message || String(err);
          } finally {
            btn.disabled = false;
          }
        },
      },
      t("setup.quick"),
    ),
  );
  form.append(
    h("h1", { id: "setup-title" }, t("setup.title")),
    quick,
    joinBox,
    h("section", {}, h("h2", {}, t("setup.profile")), profileList),
    h(
      "details",
      { class: "options", dataset: { testid: "setup-options" } },
      h("summary", {}, t("setup.options"), " ", changedNote),
      optionsBox,
      h("div", { class: "option" }, h("label", { for: "setup-seed" }, t("setup.seed")), seedInput, h("p", { class: "help muted" }, t("setup.seed_help"))),
    ),
    h("section", {}, h("h2", {}, t("setup.length")), lengthBox),
    h("section", {}, h("h2", {}, t("setup.players")), whereBox, h("p", { class: "note" }, t("setup.bots_honest")), seatsBox),
    h("section", {}, h("h2", {}, t("setup.table")), tableBox),
    extra,
    error,
    h(
      "div",
      { class: "form-actions" },
      startBtn,
      h("button", { type: "button", onclick: () => onRules(rulesPreview()), dataset: { testid: "setup-rules" } }, t("setup.read_rules")),
      canCancel() ? h("button", { type: "button", class: "quiet", onclick: onCancel }, t("setup.back")) : null,
    ),
  );
  refresh();
  replace(root, form);
  return { focus: () => form.querySelector("input[name=profile]:checked")?.focus() };
}

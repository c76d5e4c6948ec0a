// The score sheet page (#score): for a table that plays with real cards. The
// players enter each deal; the page shows the target, the result, the game
// points and the running score with the pips of the sixes. The sheet lives in
// this browser (localStorage) and the arithmetic in scorer.js, so the page
// works offline once the app has been opened.

import { h, replace } from "./dom.js";
import { num, t } from "./i18n.js";
import { teamName } from "./model.js";
import { CONTRACT, DOUBLINGS, SINGLE, VOID, checkRules, contractTarget, deleteEntry, readEntry, replaceEntry, ScoreError, scoreSheet } from "./scorer.js";
import { pipsSix } from "./table.js";

const KEY = "twentynine.scoresheet";
const DEFAULT_TARGET = 6;
// The options that change a score (the others only change how a deal is played).
const SCORE_OPTIONS = ["min_bid", "max_bid", "pair", "last_trick_point", "unrevealed", "all_pass", "doubling", "allow_set", "single_hand", "under_half", "auto_double_from"];
const DOUBLING_KEYS = { 1: "score.x1", 2: "score.x2", 4: "score.x4", 6: "score.x6" };

function load() {
  try {
    const saved = JSON.parse(localStorage.getItem(KEY) || "null");
    if (saved && typeof saved === "object" && Array.isArray(saved.entries)) return saved;
  } catch {
    /* a broken sheet starts afresh */
  }
  return { profile: "pagat", options: {}, entries: [] };
}

function store(st) {
  try {
    localStorage.setItem(KEY, JSON.stringify({ profile: st.profile, options: st.options, entries: st.entries }));
  } catch {
    /* private mode: the sheet lasts while the page is open */
  }
}

function signed(n) {
  return n > 0 ? `+${num(n)}` : num(n);
}

// A number typed in the form: digits only (the Bengali and Devanagari digits too);
// what is missing or not a whole number is said so, the range is the rules' to check.
export function wholeNumber(text, what) {
  const s = String(text ?? "")
    .trim()
    .replace(/[\u0966-\u096f\u09e6-\u09ef]/g, (d) => String(d.charCodeAt(0) - (d.charCodeAt(0) >= 0x09e6 ? 0x09e6 : 0x0966)));
  if (s === "") throw new ScoreError(`${what}_missing`);
  if (!/^[+-]?\d+$/.test(s)) throw new ScoreError(`${what}_not_whole`, { text: s.length > 12 ? `${s.slice(0, 12)}…` : s });
  return parseInt(s, 10);
}

export function errorText(err) {
  if (err instanceof ScoreError) {
    const text = t(`score.err.${err.code}`, err.params);
    return err.deal === null || err.deal === undefined ? text : t("score.err_at", { n: err.deal + 1, text });
  }
  return String(err?.message || err);
}

function valueLabel(option, v) {
  if (v === true) return t("value.yes");
  if (v === false) return t("value.no");
  if (v === null) return t("value.none");
  return typeof v === "string" ? t(`value.${option}.${v}`) : String(v);
}

export function buildScorer(root, meta, { onBack }) {
  const st = load();
  if (!meta.profiles[st.profile]) st.profile = "pagat";
  st.options = st.options && typeof st.options === "object" ? st.options : {};
  const form = { kind: CONTRACT, team: 0, bid: "", pair: "", doubling: 1, outcome: "points", value: "", underHalf: false, made: true };
  let editing = null; // index of the entry being corrected
  let clearArmed = false;

  const rules = () => ({ ...meta.profiles[st.profile], ...st.options });
  const profileValue = (name) => meta.profiles[st.profile][name];

  // ---------------------------------------------------------------- elements
  const rulesError = h("p", { class: "form-error", role: "alert", dataset: { testid: "score-rules-error" } });
  const formError = h("p", { class: "form-error", role: "alert", dataset: { testid: "score-error" } });
  const totals = h("section", { class: "score-totals", "aria-live": "polite", dataset: { testid: "score-totals" } });
  const optionsBox = h("div", { class: "options-grid" });
  const formBox = h("div", { class: "score-form-fields" });
  const sheetBox = h("div", { class: "table-wrap" });
  const submit = h("button", { type: "submit", class: "primary", dataset: { testid: "score-add" } });
  const cancel = h("button", { type: "button", class: "quiet", dataset: { testid: "score-cancel" }, onclick: () => stopEditing() });
  const clearBtn = h("button", {
    type: "button",
    class: "quiet",
    dataset: { testid: "score-clear" },
    onclick: () => {
      if (!st.entries.length) return;
      if (!clearArmed) {
        clearArmed = true;
        clearBtn.textContent = t("score.clear_confirm");
        return;
      }
      st.entries = [];
      clearArmed = false;
      stopEditing();
      store(st);
      refresh();
    },
  });

  // ---------------------------------------------------------------- rules
  function trySetRules(change) {
    const before = { profile: st.profile, options: { ...st.options } };
    change();
    const r = rules();
    const bad = checkRules(r);
    if (bad) {
      Object.assign(st, before);
      rulesError.textContent = t(`score.err.${bad.code}`, bad.params);
      refresh();
      return;
    }
    try {
      scoreSheet(r, st.entries);
    } catch (err) {
      Object.assign(st, before);
      rulesError.textContent = t("score.rules_refused", { text: errorText(err) });
      refresh();
      return;
    }
    rulesError.textContent = "";
    store(st);
    refresh();
  }

  function setOption(name, v) {
    trySetRules(() => {
      if (v === profileValue(name)) delete st.options[name];
      else st.options[name] = v;
      if (name === "doubling" && !v) delete st.options.allow_set;
    });
  }

  const profileSelect = h(
    "select",
    {
      id: "score-profile",
      dataset: { testid: "score-profile" },
      onchange: (e) => trySetRules(() => {
        st.profile = e.target.value;
        st.options = {};
      }),
    },
    meta.profile_order.map((p) => h("option", { value: p }, t(`profile.${p}.name`))),
  );

  function optionControl(name) {
    const schema = meta.options.find((o) => o.name === name) || { kind: "int" };
    const r = rules();
    const val = r[name];
    const id = `score-opt-${name}`;
    let control;
    if (schema.kind === "bool") {
      control = h("input", { type: "checkbox", id, checked: !!val, onchange: (e) => setOption(name, e.target.checked) });
      if (name === "allow_set" && !r.doubling) control.disabled = true;
    } else if (schema.kind === "choice") {
      control = h("select", { id, onchange: (e) => setOption(name, e.target.value) }, schema.choices.map((c) => h("option", { value: c, selected: c === val }, valueLabel(name, c))));
    } else if (schema.kind === "optional_int") {
      const opts = [h("option", { value: "", selected: val === null }, t("value.none"))];
      for (let b = r.min_bid; b <= r.max_bid; b++) opts.push(h("option", { value: b, selected: val === b }, String(b)));
      control = h("select", { id, onchange: (e) => setOption(name, e.target.value === "" ? null : parseInt(e.target.value, 10)) }, opts);
    } else if (schema.kind === "stake") {
      const opts = [h("option", { value: "", selected: val === false }, t("value.no"))];
      for (let n = 1; n <= 6; n++) opts.push(h("option", { value: n, selected: val === n }, t("value.stake", { n })));
      control = h("select", { id, onchange: (e) => setOption(name, e.target.value === "" ? false : parseInt(e.target.value, 10)) }, opts);
    } else {
      control = h("input", { type: "number", id, min: 1, max: 29, value: val, inputmode: "numeric", onchange: (e) => setOption(name, parseInt(e.target.value, 10)) });
    }
    return h(
      "div",
      { class: ["option", name in st.options && "changed"], dataset: { option: name } },
      h("label", { for: id }, t(`option.${name}.label`)),
      control,
    );
  }

  function matchControl() {
    const r = rules();
    const single = r.match_target === null;
    const input = h("input", {
      type: "number",
      min: 1,
      max: 30,
      value: single ? DEFAULT_TARGET : r.match_target,
      disabled: single,
      "aria-label": t("setup.target_aria"),
      dataset: { testid: "score-target" },
      onchange: (e) => setOption("match_target", Math.max(1, parseInt(e.target.value, 10) || DEFAULT_TARGET)),
    });
    const box = h("input", {
      type: "checkbox",
      id: "score-single-deals",
      checked: single,
      dataset: { testid: "score-single-deals" },
      onchange: (e) => setOption("match_target", e.target.checked ? null : profileValue("match_target") || DEFAULT_TARGET),
    });
    return h(
      "div",
      { class: ["option", "match_target" in st.options && "changed"] },
      h("label", {}, t("option.match_target.label")),
      h("span", { class: "score-match" }, t("setup.match_to"), input),
      h("label", { class: "check", for: "score-single-deals" }, box, " ", t("score.single_deals")),
    );
  }

  // ---------------------------------------------------------------- the entry form
  function radio(name, value, current, label, onchange, testid) {
    const id = `score-${name}-${value}`;
    return h(
      "label",
      { class: "radio", for: id },
      h("input", { type: "radio", name: `score-${name}`, id, value, checked: String(current) === String(value), dataset: { testid: testid || id }, onchange }),
      label,
    );
  }

  function field(label, control, forId) {
    return h("div", { class: "option" }, h("label", { for: forId || null }, label), control);
  }

  function teamRadios(name) {
    return h(
      "div",
      { class: "choice-row", role: "radiogroup", "aria-label": t("score.team") },
      [0, 1].map((tm) => radio(name, tm, form.team, teamName(tm), () => { form.team = tm; renderForm(); })),
    );
  }

  function renderForm() {
    const r = rules();
    const kinds = [h("legend", {}, t("score.kind"))];
    kinds.push(radio("kind", CONTRACT, form.kind, t("score.kind_contract"), () => { form.kind = CONTRACT; renderForm(); }));
    if (r.single_hand || form.kind === SINGLE) kinds.push(radio("kind", SINGLE, form.kind, t("score.kind_single"), () => { form.kind = SINGLE; renderForm(); }));
    if (r.unrevealed === "cancel" || r.all_pass === "redeal" || form.kind === VOID) kinds.push(radio("kind", VOID, form.kind, t("score.kind_cancelled"), () => { form.kind = VOID; renderForm(); }));
    const parts = [h("fieldset", { class: "score-kinds" }, kinds)];
    if (form.kind === CONTRACT) {
      const bid = h("input", {
        type: "text",
        autocomplete: "off",
        id: "score-bid",
        inputmode: "numeric",
        value: form.bid,
        placeholder: `${r.min_bid}–${r.max_bid}`,
        dataset: { testid: "score-bid" },
        oninput: (e) => { form.bid = e.target.value; preview(); },
      });
      parts.push(field(t("score.bidding_team"), teamRadios("team")), field(t("score.bid"), bid, "score-bid"));
      if (r.pair !== "off" || form.pair !== "") {
        const pair = h(
          "select",
          { id: "score-pair", dataset: { testid: "score-pair" }, onchange: (e) => { form.pair = e.target.value; preview(); } },
          [["", t("score.pair_none")], ["0", teamName(0)], ["1", teamName(1)]].map(([v, l]) => h("option", { value: v, selected: form.pair === v }, l)),
        );
        parts.push(field(t("score.pair"), pair, "score-pair"));
      }
      const allowed = DOUBLINGS.filter((d) => d === 1 || (r.doubling && (d !== 6 || r.allow_set)) || d === form.doubling);
      if (allowed.length > 1) {
        const dbl = h(
          "select",
          { id: "score-doubling", dataset: { testid: "score-doubling" }, onchange: (e) => { form.doubling = parseInt(e.target.value, 10); preview(); } },
          allowed.map((d) => h("option", { value: d, selected: d === form.doubling }, t(DOUBLING_KEYS[d]))),
        );
        parts.push(field(t("score.doubling"), dbl, "score-doubling"));
      }
      const outcome = h(
        "select",
        { id: "score-outcome", dataset: { testid: "score-outcome" }, onchange: (e) => { form.outcome = e.target.value; renderForm(); } },
        ["points", "failed_by", "made", "failed"].map((o) => h("option", { value: o, selected: form.outcome === o }, t(`score.outcome_${o}`))),
      );
      parts.push(field(t("score.outcome"), outcome, "score-outcome"));
      if (form.outcome === "points" || form.outcome === "failed_by") {
        const value = h("input", {
          type: "text",
          autocomplete: "off",
          id: "score-value",
          inputmode: "numeric",
          value: form.value,
          dataset: { testid: "score-value" },
          oninput: (e) => { form.value = e.target.value; preview(); },
        });
        parts.push(field(t(form.outcome === "points" ? "score.points_taken" : "score.failed_by"), value, "score-value"));
      }
      if (form.outcome === "failed" && (r.under_half || form.underHalf)) {
        parts.push(
          h(
            "label",
            { class: "check" },
            h("input", { type: "checkbox", checked: form.underHalf, dataset: { testid: "score-under-half" }, onchange: (e) => { form.underHalf = e.target.checked; } }),
            " ",
            t("score.under_half"),
          ),
        );
      }
    } else if (form.kind === SINGLE) {
      parts.push(
        field(t("score.declarer_team"), teamRadios("team")),
        field(
          t("score.single_result"),
          h("div", { class: "choice-row" }, [
            radio("made", "true", String(form.made), t("score.single_made"), () => { form.made = true; }),
            radio("made", "false", String(form.made), t("score.single_lost"), () => { form.made = false; }),
          ]),
        ),
      );
    } else {
      parts.push(h("p", { class: "muted" }, t("score.cancelled_help")));
    }
    parts.push(h("p", { class: "score-preview muted", dataset: { testid: "score-preview" } }));
    replace(formBox, parts);
    submit.textContent = editing === null ? t("score.add") : t("score.save", { n: editing + 1 });
    cancel.textContent = t("score.cancel_edit");
    cancel.hidden = editing === null;
    preview();
  }

  // The target as it stands while the form is filled in.
  function preview() {
    const el = formBox.querySelector(".score-preview");
    if (!el) return;
    let bid = null;
    try {
      bid = wholeNumber(form.bid, "bid");
    } catch {
      /* no target to show until the bid is a number */
    }
    if (form.kind !== CONTRACT || bid === null) {
      el.textContent = "";
      return;
    }
    const r = rules();
    const pair = form.pair === "" ? null : Number(form.pair);
    el.textContent = t("score.preview_target", { target: contractTarget(r, bid, pair, form.team) });
  }


  function entryFromForm() {
    if (form.kind === VOID) return { kind: VOID };
    if (form.kind === SINGLE) return { kind: SINGLE, team: form.team, made: form.made };
    const bid = wholeNumber(form.bid, "bid");
    const e = { kind: CONTRACT, team: form.team, bid, doubling: form.doubling };
    if (form.pair !== "") e.pair = Number(form.pair);
    if (form.outcome === "points" || form.outcome === "failed_by") {
      e[form.outcome] = wholeNumber(form.value, form.outcome);
    } else {
      e.made = form.outcome === "made";
      if (!e.made && form.underHalf) e.under_half = true;
    }
    return e;
  }

  function formFromEntry(e) {
    form.kind = e.kind;
    form.team = e.team ?? 0;
    form.bid = e.bid ?? "";
    form.pair = e.pair === null || e.pair === undefined ? "" : String(e.pair);
    form.doubling = e.doubling ?? 1;
    form.underHalf = !!e.under_half;
    form.made = e.made ?? true;
    if (e.points !== null && e.points !== undefined) [form.outcome, form.value] = ["points", String(e.points)];
    else if (e.failed_by !== null && e.failed_by !== undefined) [form.outcome, form.value] = ["failed_by", String(e.failed_by)];
    else [form.outcome, form.value] = [e.made ? "made" : "failed", ""];
  }

  function resetForm() {
    Object.assign(form, { bid: "", pair: "", doubling: 1, value: "", underHalf: false, made: true });
    if (form.kind === VOID) form.kind = CONTRACT;
  }

  function stopEditing() {
    editing = null;
    formError.textContent = "";
    resetForm();
    renderForm();
    renderSheet();
  }

  function onSubmit(ev) {
    ev.preventDefault();
    formError.textContent = "";
    const r = rules();
    try {
      const entry = readEntry(entryFromForm());
      const clean = Object.fromEntries(Object.entries(entry).filter(([k, v]) => v !== null && !(k === "under_half" && !v) && !(k === "doubling" && v === 1)));
      if (editing === null) {
        scoreSheet(r, [...st.entries, clean]);
        st.entries = [...st.entries, clean];
      } else {
        st.entries = replaceEntry(r, st.entries, editing, clean);
        editing = null;
      }
    } catch (err) {
      // the deal in the form needs no number; another deal's does
      const own = err instanceof ScoreError && err.deal === (editing ?? st.entries.length);
      formError.textContent = errorText(own ? err.at(null) : err);
      return;
    }
    store(st);
    resetForm();
    refresh();
    formBox.querySelector("#score-bid, #score-value")?.focus();
  }

  // ---------------------------------------------------------------- the sheet
  function renderTotals(lines) {
    const r = rules();
    const score = lines.length ? lines[lines.length - 1].score : [0, 0];
    const winner = lines.length ? lines[lines.length - 1].winner : null;
    const target = r.match_target;
    const teams = [0, 1].map((tm) =>
      h(
        "div",
        { class: ["score-team", `team-${tm}`, winner === tm && "winner"], dataset: { testid: `score-total-${tm}` } },
        h("span", { class: "team-name" }, teamName(tm)),
        target ? pipsSix(score[tm], target, t("status.score_aria", { team: teamName(tm), score: signed(score[tm]) })) : null,
        h("b", { class: "score-value" }, signed(score[tm])),
      ),
    );
    const head = target ? t("status.match_label", { target }) : t("score.single_deals");
    replace(
      totals,
      h("p", { class: "score-head muted" }, head),
      h("div", { class: "score-teams" }, teams),
      winner !== null ? h("p", { class: "score-winner", dataset: { testid: "score-winner" } }, t("result.match_won", { team: teamName(winner) })) : null,
    );
  }

  function renderSheet() {
    const r = rules();
    let lines = [];
    let sheetError = null;
    try {
      lines = scoreSheet(r, st.entries);
    } catch (err) {
      sheetError = errorText(err);
    }
    renderTotals(lines);
    if (!st.entries.length) {
      replace(sheetBox, h("p", { class: "muted", dataset: { testid: "score-empty" } }, t("score.empty")));
      return;
    }
    const head = ["#", t("score.col_bid"), t("score.col_pair"), "×", t("score.col_took"), t("score.col_target"), t("score.col_result"), "±", teamName(0, true), teamName(1, true), ""];
    const rows = lines.map((line, i) => {
      const e = line.entry;
      let bidCell;
      if (e.kind === VOID) bidCell = "—";
      else if (e.kind === SINGLE) bidCell = t("score.single_of", { team: teamName(e.team, true) });
      else bidCell = `${teamName(e.team, true)} ${num(e.bid)}`;
      const notes = [];
      if (line.under_half) notes.push(t("score.note_under_half"));
      if (line.capped) notes.push(t("score.note_capped", { max: r.max_bid }));
      if (line.floored) notes.push(t("score.note_floored", { min: r.min_bid }));
      const delta = e.kind === VOID ? 0 : line.delta[e.team];
      return h(
        "tr",
        { class: [editing === i && "editing", `result-${line.result}`], dataset: { testid: `score-row-${i + 1}` } },
        h("th", { scope: "row" }, num(i + 1)),
        h("td", {}, bidCell),
        h("td", {}, e.pair === undefined || e.pair === null ? "" : teamName(e.pair, true)),
        h("td", {}, e.doubling && e.doubling > 1 ? `×${e.doubling}` : ""),
        h("td", {}, line.points === null ? "" : num(line.points)),
        h("td", { dataset: { testid: "score-target-cell" } }, line.target === null ? "" : num(line.target)),
        h("td", { class: "score-result" }, t(`score.result_${line.result.replace("-", "_")}`), notes.length ? h("small", { class: "muted" }, " · ", notes.join(" · ")) : null),
        h("td", { class: "num", dataset: { testid: "score-delta" } }, signed(delta)),
        h("td", { class: "num" }, signed(line.score[0])),
        h("td", { class: "num" }, signed(line.score[1])),
        h(
          "td",
          { class: "score-actions" },
          h("button", { type: "button", class: "quiet small", dataset: { testid: `score-edit-${i + 1}` }, "aria-label": t("score.edit_aria", { n: i + 1 }), onclick: () => startEditing(i) }, t("score.edit")),
          h("button", { type: "button", class: "quiet small", dataset: { testid: `score-delete-${i + 1}` }, "aria-label": t("score.delete_aria", { n: i + 1 }), onclick: () => remove(i) }, t("score.delete")),
        ),
      );
    });
    replace(
      sheetBox,
      sheetError ? h("p", { class: "form-error" }, sheetError) : null,
      h("table", { class: "score-table", dataset: { testid: "score-table" } }, h("thead", {}, h("tr", {}, head.map((c) => h("th", { scope: "col" }, c)))), h("tbody", {}, rows)),
    );
  }

  function startEditing(i) {
    editing = i;
    formError.textContent = "";
    formFromEntry(readEntry(st.entries[i]));
    renderForm();
    renderSheet();
    formBox.querySelector("input, select")?.focus();
  }

  function remove(i) {
    try {
      st.entries = deleteEntry(rules(), st.entries, i);
    } catch (err) {
      formError.textContent = errorText(err);
      return;
    }
    if (editing !== null) editing = null;
    store(st);
    refresh();
  }

  function refresh() {
    profileSelect.value = st.profile;
    replace(optionsBox, SCORE_OPTIONS.map(optionControl), matchControl());
    clearBtn.textContent = clearArmed ? t("score.clear_confirm") : t("score.clear");
    clearBtn.hidden = !st.entries.length;
    renderForm();
    renderSheet();
    const over = (() => {
      try {
        const lines = scoreSheet(rules(), st.entries);
        return lines.length && lines[lines.length - 1].winner !== null;
      } catch {
        return false;
      }
    })();
    submit.disabled = over && editing === null;
    formBox.closest("form")?.classList.toggle("match-over", over && editing === null);
  }

  const page = h(
    "div",
    { class: "score-page" },
    h(
      "header",
      { class: "score-header" },
      h("h1", { id: "score-title", tabindex: "-1" }, t("score.title")),
      h("p", { class: "lead" }, t("score.intro")),
      h("button", { type: "button", class: "quiet", dataset: { testid: "score-back" }, onclick: onBack }, t("score.back")),
    ),
    totals,
    h(
      "form",
      { class: "score-form", novalidate: true, dataset: { testid: "score-form" }, onsubmit: onSubmit, "aria-labelledby": "score-form-title" },
      h("h2", { id: "score-form-title" }, t("score.enter")),
      formBox,
      formError,
      h("div", { class: "form-actions" }, submit, cancel),
    ),
    h("section", {}, h("h2", {}, t("score.sheet")), sheetBox, clearBtn),
    h(
      "details",
      { class: "options", dataset: { testid: "score-options" } },
      h("summary", {}, t("score.rules")),
      h("div", { class: "option" }, h("label", { for: "score-profile" }, t("setup.profile")), profileSelect),
      optionsBox,
      rulesError,
    ),
  );
  refresh();
  replace(root, page);
  return { focus: () => page.querySelector("#score-title")?.focus() };
}

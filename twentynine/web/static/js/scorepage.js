// The score sheet page (#score): for a table that plays with real cards. The
// players enter each deal; the page shows the target, the result, the game
// points and the running score with the pips of the sixes. The sheets (one a
// match) live in this browser (scorebook.js), the arithmetic in scorer.js, so
// the page works offline once the app has been opened. Every change can be
// undone; the teams, matches, export and share panels are scoretools.js'.

import { h, replace } from "./dom.js";
import { num, t } from "./i18n.js";
import { teamName } from "./model.js";
import { addDeal, changeRules, clearDeals, correctDeal, deleteDeal, loadBook, newSheet, readSheetFile, rulesOf, saveBook, sheetFromLink, undo, LINK_FRAGMENT } from "./scorebook.js";
import { CONTRACT, DOUBLINGS, SINGLE, VOID, contractTarget, readEntry, ScoreError, scoreSheet } from "./scorer.js";
import { rulesPanel, rulesSummary } from "./scorerules.js";
import { changesPanel, editText, importPanel, matchesPanel, sharePanel, teamsPanel } from "./scoretools.js";
import { pipsSix } from "./table.js";

const DOUBLING_KEYS = { 1: "score.x1", 2: "score.x2", 4: "score.x4", 6: "score.x6" };
const TOAST_MS = 9000;
const PANELS = ["teams", "rules", "matches", "share"];

export function signed(n) {
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
    const text = err.code === "rules_refused" ? t("score.rules_refused", { text: errorText(err.params.reason) }) : t(`score.err.${err.code}`, err.params);
    return err.deal === null || err.deal === undefined ? text : t("score.err_at", { n: err.deal + 1, text });
  }
  return String(err?.message || err);
}

export function buildScorer(root, meta, { onBack, hash = "" }) {
  const book = loadBook(meta);
  if (!book.current) {
    const first = newSheet(meta);
    book.sheets.push(first);
    book.current = first.id;
  }
  if (book.migrated) saveBook(book); // the sheet of an earlier version, kept the new way
  const form = { kind: CONTRACT, team: 0, bid: "", pair: "", doubling: 1, outcome: "points", value: "", underHalf: false, made: true };
  let editing = null; // index of the entry being corrected
  let clearArmed = false;
  let panel = null; // the tools panel open, if any
  let incoming = null; // {sheet} or {error}: a shared sheet being opened
  let toastTimer = null;
  let removed = null; // the sheet last removed from the list, while its toast shows

  const sheet = () => book.sheets.find((s) => s.id === book.current);
  const rules = () => rulesOf(meta, sheet());
  const name = (tm, short = false) => sheet().names[tm] || teamName(tm, short);

  // ---------------------------------------------------------------- keeping
  const storeNote = h("p", { class: "form-error", role: "alert", dataset: { testid: "score-store-error" } });

  function store() {
    storeNote.textContent = saveBook(book) ? "" : t("score.not_kept");
  }

  // Put the changed sheet in the book, keep it, draw it, and offer to undo `edit`.
  function commit(next, edit = null) {
    book.sheets = book.sheets.map((s) => (s.id === next.id ? next : s));
    store();
    refresh();
    if (edit) showToast(t("score.done", { what: editText(edit, next.entries.length) }), () => undoLast());
  }

  // Take back the last `steps` edits (one by default), saying what the last one was.
  function undoSteps(steps = 1) {
    let prior = sheet();
    let edit = null;
    try {
      for (let i = 0; i < steps; i++) ({ sheet: prior, edit } = undo(meta, prior));
    } catch (err) {
      formError.textContent = errorText(err);
      return;
    }
    stopEditing(false);
    commit(prior);
    const what = editText(edit, prior.entries.length + 1);
    showToast(steps === 1 ? t("score.undone", { what }) : t("score.undone_many", { n: steps, what }), null);
  }
  const undoLast = () => undoSteps(1);

  // ---------------------------------------------------------------- the toast
  const toastText = h("span", { dataset: { testid: "score-toast-text" } });
  const toastUndo = h("button", { type: "button", class: "quiet small", dataset: { testid: "score-toast-undo" } }, t("score.undo_short"));
  const toast = h("div", { class: "score-toast", role: "status", hidden: true, dataset: { testid: "score-toast" } }, toastText, toastUndo);
  function showToast(text, action) {
    toastText.textContent = text;
    toastUndo.hidden = !action;
    toastUndo.onclick = () => {
      toast.hidden = true;
      action?.();
    };
    toast.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => {
      toast.hidden = true;
    }, TOAST_MS);
  }

  // ---------------------------------------------------------------- elements
  const rulesError = h("p", { class: "form-error", role: "alert", dataset: { testid: "score-rules-error" } });
  const formError = h("p", { class: "form-error", role: "alert", dataset: { testid: "score-error" } });
  const totals = h("section", { class: "score-totals", "aria-live": "polite", dataset: { testid: "score-totals" } });
  const sheetHead = h("p", { class: "score-sheet-head", dataset: { testid: "score-summary" } });
  const formBox = h("div", { class: "score-form-fields" });
  const sheetBox = h("div", { class: "score-sheet-box" });
  const panelBox = h("div", { class: "score-panel-box" });
  const importBox = h("div", {});
  const changesBox = h("div", {});
  const undoBtn = h("button", { type: "button", class: "score-undo", dataset: { testid: "score-undo" }, onclick: () => undoLast() });
  const submit = h("button", { type: "submit", class: "primary", dataset: { testid: "score-add" } });
  const cancel = h("button", { type: "button", class: "quiet", dataset: { testid: "score-cancel" }, onclick: () => stopEditing() });
  const clearBtn = h("button", {
    type: "button",
    class: "quiet",
    dataset: { testid: "score-clear" },
    onclick: () => {
      if (!sheet().entries.length) return;
      if (!clearArmed) {
        clearArmed = true;
        clearBtn.textContent = t("score.clear_confirm");
        return;
      }
      clearArmed = false;
      stopEditing(false);
      const next = clearDeals(sheet());
      commit(next, next.history.at(-1));
    },
  });
  const tabs = Object.fromEntries(
    PANELS.map((p) => [
      p,
      h("button", {
        type: "button",
        class: "score-tab",
        "aria-expanded": "false",
        "aria-controls": "score-panel",
        dataset: { testid: `score-tab-${p}` },
        onclick: () => {
          panel = panel === p ? null : p;
          refresh();
        },
      }),
    ]),
  );

  // ---------------------------------------------------------------- rules
  function trySetRules(profile, options) {
    try {
      const next = changeRules(meta, sheet(), profile, options);
      rulesError.textContent = "";
      if (next) commit(next, next.history.at(-1));
    } catch (err) {
      rulesError.textContent = errorText(err);
      refresh();
    }
  }

  // ---------------------------------------------------------------- the entry form
  function radio(group, value, current, label, onchange, testid) {
    const id = `score-${group}-${value}`;
    return h(
      "label",
      { class: "radio", for: id },
      h("input", { type: "radio", name: `score-${group}`, id, value, checked: String(current) === String(value), dataset: { testid: testid || id }, onchange }),
      label,
    );
  }

  function field(label, control, forId) {
    return h("div", { class: "option" }, h("label", { for: forId || null }, label), control);
  }

  function teamRadios(group) {
    return h(
      "div",
      { class: "choice-row", role: "radiogroup", "aria-label": t("score.team") },
      [0, 1].map((tm) => radio(group, tm, form.team, name(tm), () => { form.team = tm; renderForm(); })),
    );
  }

  function numberInput(id, value, onvalue, placeholder = null) {
    return h("input", { type: "text", autocomplete: "off", id, inputmode: "numeric", value, placeholder, dataset: { testid: id }, oninput: (e) => { onvalue(e.target.value); preview(); } });
  }

  function renderForm() {
    const r = rules();
    const kinds = [h("legend", {}, t("score.kind"))];
    kinds.push(radio("kind", CONTRACT, form.kind, t("score.kind_contract"), () => { form.kind = CONTRACT; renderForm(); }));
    if (r.single_hand || form.kind === SINGLE) kinds.push(radio("kind", SINGLE, form.kind, t("score.kind_single"), () => { form.kind = SINGLE; renderForm(); }));
    if (r.unrevealed === "cancel" || r.all_pass === "redeal" || form.kind === VOID) kinds.push(radio("kind", VOID, form.kind, t("score.kind_cancelled"), () => { form.kind = VOID; renderForm(); }));
    const parts = [h("fieldset", { class: "score-kinds" }, kinds)];
    if (form.kind === CONTRACT) {
      const bid = numberInput("score-bid", form.bid, (v) => { form.bid = v; }, `${num(r.min_bid)}–${num(r.max_bid)}`);
      parts.push(field(t("score.bidding_team"), teamRadios("team")), field(t("score.bid"), bid, "score-bid"));
      if (r.pair !== "off" || form.pair !== "") {
        const pair = h(
          "select",
          { id: "score-pair", dataset: { testid: "score-pair" }, onchange: (e) => { form.pair = e.target.value; preview(); } },
          [["", t("score.pair_none")], ["0", name(0)], ["1", name(1)]].map(([v, l]) => h("option", { value: v, selected: form.pair === v }, l)),
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
        const value = numberInput("score-value", form.value, (v) => { form.value = v; });
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
    const pair = form.pair === "" ? null : Number(form.pair);
    el.textContent = t("score.preview_target", { target: contractTarget(rules(), bid, pair, form.team) });
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

  function stopEditing(draw = true) {
    editing = null;
    formError.textContent = "";
    resetForm();
    if (draw) {
      renderForm();
      renderSheet();
    }
  }

  function onSubmit(ev) {
    ev.preventDefault();
    formError.textContent = "";
    let next;
    try {
      const entry = entryFromForm();
      next = editing === null ? addDeal(meta, sheet(), entry) : correctDeal(meta, sheet(), editing, entry);
    } catch (err) {
      // the deal in the form needs no number; another deal's does
      const own = err instanceof ScoreError && err.deal === (editing ?? sheet().entries.length);
      formError.textContent = errorText(own ? err.at(null) : err);
      return;
    }
    editing = null;
    resetForm();
    commit(next, next.history.at(-1));
    formBox.querySelector("#score-bid, #score-value")?.focus();
  }

  // ---------------------------------------------------------------- the sheet
  function renderTotals(lines) {
    const target = rules().match_target;
    const score = lines.length ? lines[lines.length - 1].score : [0, 0];
    const winner = lines.length ? lines[lines.length - 1].winner : null;
    const teams = [0, 1].map((tm) =>
      h(
        "div",
        { class: ["score-team", `team-${tm}`, winner === tm && "winner"], dataset: { testid: `score-total-${tm}` } },
        h("span", { class: "team-name" }, name(tm)),
        target ? pipsSix(score[tm], target, t("status.score_aria", { team: name(tm), score: signed(score[tm]) })) : null,
        h("b", { class: "score-value" }, signed(score[tm])),
      ),
    );
    replace(
      totals,
      h("div", { class: "score-teams" }, teams),
      winner !== null
        ? h(
            "p",
            { class: "score-winner", dataset: { testid: "score-winner" } },
            t("result.match_won", { team: name(winner) }),
            " ",
            h("button", { type: "button", class: "quiet small", dataset: { testid: "score-next-match" }, onclick: () => startMatch() }, t("score.next_match")),
          )
        : null,
    );
  }

  function cell(label, content, attrs = {}) {
    return h("td", { ...attrs, dataset: { ...(attrs.dataset || {}), label } }, content);
  }

  function renderSheet() {
    const r = rules();
    let lines = [];
    let sheetError = null;
    try {
      lines = scoreSheet(r, sheet().entries);
    } catch (err) {
      sheetError = errorText(err);
    }
    renderTotals(lines);
    sheetHead.textContent = `${name(0)} – ${name(1)} · ${rulesSummary(meta, sheet())}`;
    if (!sheet().entries.length) {
      replace(sheetBox, h("p", { class: "muted", dataset: { testid: "score-empty" } }, t("score.empty")));
      return;
    }
    const head = ["#", t("score.col_bid"), t("score.col_pair"), "×", t("score.col_took"), t("score.col_target"), t("score.col_result"), "±", name(0, true), name(1, true), h("span", { class: "sr-only" }, t("score.col_actions"))];
    const rows = lines.map((line, i) => {
      const e = line.entry;
      let bidCell;
      if (e.kind === VOID) bidCell = "—";
      else if (e.kind === SINGLE) bidCell = t("score.single_of", { team: name(e.team, true) });
      else bidCell = `${name(e.team, true)} ${num(e.bid)}`;
      const notes = [];
      if (line.under_half) notes.push(t("score.note_under_half"));
      if (line.capped) notes.push(t("score.note_capped", { max: r.max_bid }));
      if (line.floored) notes.push(t("score.note_floored", { min: r.min_bid }));
      const delta = e.kind === VOID ? 0 : line.delta[e.team];
      return h(
        "tr",
        { class: [editing === i && "editing", `result-${line.result}`], dataset: { testid: `score-row-${i + 1}` } },
        h("th", { scope: "row", class: "score-n" }, num(i + 1)),
        cell("", bidCell, { class: "score-bid" }),
        cell(t("score.col_pair"), e.pair === undefined || e.pair === null ? "" : name(e.pair, true), { class: "score-pair" }),
        cell("", e.doubling && e.doubling > 1 ? `×${e.doubling}` : "", { class: "score-dbl" }),
        cell(t("score.col_took"), line.points === null ? "" : num(line.points), { class: "score-took" }),
        cell(t("score.col_target"), line.target === null ? "" : num(line.target), { class: "score-target", dataset: { testid: "score-target-cell" } }),
        cell("", [t(`score.result_${line.result.replace("-", "_")}`), notes.length ? h("small", { class: "muted" }, " · ", notes.join(" · ")) : null], { class: "score-result" }),
        cell("±", signed(delta), { class: "num score-delta", dataset: { testid: "score-delta" } }),
        cell(name(0, true), signed(line.score[0]), { class: "num score-run-0" }),
        cell(name(1, true), signed(line.score[1]), { class: "num score-run-1" }),
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
    formFromEntry(readEntry(sheet().entries[i]));
    renderForm();
    renderSheet();
    formBox.querySelector("input, select")?.focus();
  }

  function remove(i) {
    let next;
    try {
      next = deleteDeal(meta, sheet(), i);
    } catch (err) {
      formError.textContent = errorText(err);
      return;
    }
    stopEditing(false);
    commit(next, next.history.at(-1));
  }

  // ---------------------------------------------------------------- sheets of the book
  function open(id) {
    if (!book.sheets.some((s) => s.id === id)) return;
    book.current = id;
    stopEditing(false);
    clearArmed = false;
    rulesError.textContent = "";
    store();
    refresh();
  }

  // A new match: the same teams and rules as the sheet in front of them.
  function startMatch() {
    const s = sheet();
    const next = newSheet(meta, { profile: s.rules.profile, options: s.rules.options, names: s.names });
    book.sheets.push(next);
    panel = null;
    open(next.id);
    showToast(t("score.match_started"), null);
  }

  function removeSheet(id) {
    const gone = book.sheets.find((s) => s.id === id);
    if (!gone) return;
    const wasCurrent = book.current === id;
    book.sheets = book.sheets.filter((s) => s.id !== id);
    if (!book.sheets.length) book.sheets.push(newSheet(meta, { profile: gone.rules.profile, options: gone.rules.options, names: gone.names }));
    if (wasCurrent) book.current = book.sheets.reduce((a, b) => ((b.updated || "") > (a.updated || "") ? b : a)).id;
    removed = { sheet: gone, wasCurrent };
    open(book.current);
    showToast(t("score.sheet_removed"), () => {
      if (!removed) return;
      book.sheets.push(removed.sheet);
      if (removed.wasCurrent) book.current = removed.sheet.id;
      removed = null;
      open(book.current);
    });
  }

  // Keep a shared or imported sheet as a new one of this browser's.
  function keepIncoming() {
    if (!incoming?.sheet) return;
    book.sheets.push(incoming.sheet);
    const id = incoming.sheet.id;
    incoming = null;
    panel = null;
    open(id);
    showToast(t("score.imported"), null);
  }

  function offer(read) {
    try {
      incoming = { sheet: read() };
    } catch (err) {
      incoming = { error: errorText(err) };
    }
    renderImport();
    importBox.scrollIntoView?.({ block: "nearest" });
  }

  const ctx = {
    meta,
    book,
    sheet,
    name,
    commit,
    open,
    startMatch,
    removeSheet,
    undoLast,
    undoSteps,
    errorText,
    trySetRules,
    offerFile: (text, code = null) =>
      offer(() => {
        if (code) throw new ScoreError(code);
        return readSheetFile(meta, parseJson(text));
      }),
    rulesSummary: (s) => rulesSummary(meta, s),
  };

  function parseJson(text) {
    try {
      return JSON.parse(text);
    } catch {
      throw new ScoreError("import_json");
    }
  }

  // ---------------------------------------------------------------- drawing
  function renderPanel() {
    for (const p of PANELS) {
      tabs[p].setAttribute("aria-expanded", String(panel === p));
      tabs[p].classList.toggle("open", panel === p);
    }
    tabs.teams.textContent = t("score.tab_teams");
    tabs.rules.textContent = t("score.tab_rules");
    tabs.matches.textContent = t("score.tab_matches", { n: book.sheets.length });
    tabs.share.textContent = t("score.tab_share");
    const content = { teams: () => teamsPanel(ctx), rules: () => rulesPanel(ctx, rulesError), matches: () => matchesPanel(ctx), share: () => sharePanel(ctx) }[panel];
    replace(panelBox, content ? h("div", { id: "score-panel" }, content()) : null);
    panelBox.hidden = !content;
  }

  function renderImport() {
    replace(importBox, incoming ? importPanel(ctx, incoming, { keep: keepIncoming, dismiss: () => { incoming = null; renderImport(); } }) : null);
  }

  function renderUndo() {
    const last = sheet().history.at(-1);
    undoBtn.disabled = !last;
    undoBtn.textContent = t("score.undo_short");
    undoBtn.title = last ? t("score.undo_what", { what: editText(last, sheet().entries.length) }) : t("score.err.nothing_to_undo");
    undoBtn.setAttribute("aria-label", undoBtn.title);
    replace(changesBox, changesPanel(ctx));
  }

  // Redraw everything. Removing a focused input fires its change (and blur) again
  // while it is being removed: a redraw asked for during one runs after it.
  let drawing = false;
  let again = false;
  function refresh() {
    if (drawing) {
      again = true;
      return;
    }
    drawing = true;
    try {
      draw();
    } finally {
      drawing = false;
    }
    if (again) {
      again = false;
      refresh();
    }
  }

  function draw() {
    clearBtn.textContent = clearArmed ? t("score.clear_confirm") : t("score.clear");
    clearBtn.hidden = !sheet().entries.length;
    renderPanel();
    renderForm();
    renderSheet();
    renderUndo();
    let over = false;
    try {
      const lines = scoreSheet(rules(), sheet().entries);
      over = lines.length > 0 && lines[lines.length - 1].winner !== null;
    } catch {
      over = false;
    }
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
    h("nav", { class: "score-bar", "aria-label": t("score.tools") }, PANELS.map((p) => tabs[p]), undoBtn),
    panelBox,
    storeNote,
    importBox,
    sheetHead,
    totals,
    h(
      "form",
      { class: "score-form", novalidate: true, dataset: { testid: "score-form" }, onsubmit: onSubmit, "aria-labelledby": "score-form-title" },
      h("h2", { id: "score-form-title" }, t("score.enter")),
      formBox,
      formError,
      h("div", { class: "form-actions" }, submit, cancel),
    ),
    h("section", { class: "score-sheet-section" }, h("h2", {}, t("score.sheet")), sheetBox, clearBtn),
    changesBox,
    toast,
  );
  refresh();
  replace(root, page);
  if (hash.startsWith(LINK_FRAGMENT)) {
    offer(() => sheetFromLink(meta, hash));
    history.replaceState(null, "", location.pathname + location.search + "#score");
  }
  return { focus: () => (incoming ? importBox.querySelector("button, [tabindex]") : page.querySelector("#score-title"))?.focus() };
}

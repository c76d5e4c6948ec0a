// The score sheets this browser keeps, and the edits of one sheet: the
// browser's copy of twentynine/scoresheet.py. A sheet is the same JSON as a
// file of `twentynine score --sheet`, so a file exported here opens there and
// the other way round; a link carries the same JSON in the address. No DOM
// here: the page is scorepage.js, its panels scoretools.js.
//
// A sheet (kept as plain data, never changed in place: each edit returns a new one):
//   {id, rules: {profile, options}, names: [ns, ew] ("" for the seat pair's own name),
//    entries: [entry JSON], history: [edit JSON], created, updated}
// An edit as kept in the history (the same as scoresheet.Edit.to_json):
//   {edit: "add"} | {edit: "correct" | "delete", deal: n (from 1), was: entry}
//   {edit: "clear", was: [entries]} | {edit: "rules", was: rules} | {edit: "names", was: [a, b]}

import { ScoreError, checkRules, entryJson, readEntry, replaceEntry, scoreSheet } from "./scorer.js";

export const SHEET_FORMAT = "29-scoresheet/1";
const SHEET_KEYS = ["format", "rules", "names", "entries", "history", "created", "updated"];
const REPORT_KEYS = ["lines", "score", "winner"];
export const NAME_LIMIT = 40;
const STAMP_LIMIT = 40;
export const HISTORY_LIMIT = 200;
const EDITS = ["add", "correct", "delete", "clear", "rules", "names"];
// The names a file from the command line gives the seat pairs: "" here.
const FILE_NAMES = ["North-South", "East-West"];
export const LINK_FRAGMENT = "#score/sheet/";
const LINK_LIMIT = 200000;
const BOOK_KEY = "twentynine.scorebook";
const OLD_KEY = "twentynine.game.scoresheet"; // the single sheet of earlier versions
export const BOOK_LIMIT = 100;

const fail = (code, params = {}) => new ScoreError(code, params);
const now = () => new Date().toISOString().replace(/\.\d+Z$/, "+00:00");

function newId() {
  if (globalThis.crypto?.randomUUID) return crypto.randomUUID();
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
}

// ------------------------------------------------------------------ rules

export function rulesOf(meta, sheet) {
  return { ...meta.profiles[sheet.rules.profile], ...sheet.rules.options };
}

function optionOk(schema, v) {
  if (schema.kind === "bool") return typeof v === "boolean";
  if (schema.kind === "choice") return schema.choices.includes(v);
  if (schema.kind === "int") return Number.isInteger(v) && v >= schema.min && v <= schema.max;
  if (schema.kind === "optional_int") return v === null || (Number.isInteger(v) && v >= schema.min && v <= schema.max);
  if (schema.kind === "stake") return v === false || v === true || (Number.isInteger(v) && v >= 1);
  return false;
}

// The rules object of a file ({profile, option: value...}) read strictly into {profile, options}.
export function readRules(meta, obj) {
  if (obj === null || obj === undefined) return { profile: "pagat", options: {} };
  if (typeof obj !== "object" || Array.isArray(obj)) throw fail("sheet_rules", { why: "type" });
  const profile = obj.profile ?? "pagat";
  if (typeof profile !== "string" || !meta.profiles[profile]) throw fail("sheet_profile", { profile: String(profile) });
  const options = {};
  for (const [k, raw] of Object.entries(obj)) {
    if (k === "profile") continue;
    let v = raw;
    if (k === "match_target") {
      if (!(v === null || (Number.isInteger(v) && v >= 1))) throw fail("sheet_option", { option: k });
    } else {
      const schema = meta.options.find((o) => o.name === k);
      if (!schema) throw fail("sheet_option_unknown", { option: k });
      if (!optionOk(schema, v)) throw fail("sheet_option", { option: k });
      if (k === "single_hand" && v === true) v = 3;
    }
    if (v !== meta.profiles[profile][k]) options[k] = v;
  }
  const bad = checkRules({ ...meta.profiles[profile], ...options });
  if (bad) throw fail(bad.code, bad.params);
  return { profile, options };
}

export function rulesJson(rules) {
  return { profile: rules.profile, ...rules.options };
}

// ------------------------------------------------------------------ names

// Two team names, trimmed, "" for the seat pair's own; the display names must differ.
export function readNames(obj, display = (tm) => FILE_NAMES[tm]) {
  if (!Array.isArray(obj) || obj.length !== 2) throw fail("names_type");
  const names = obj.map((raw, tm) => {
    if (typeof raw !== "string") throw fail("names_type");
    const name = raw.split(/\s+/).filter(Boolean).join(" ");
    if (name.length > NAME_LIMIT) throw fail("name_long", { limit: NAME_LIMIT });
    if (/[\p{C}\p{Zl}\p{Zp}]/u.test(name)) throw fail("name_control");
    return name === FILE_NAMES[tm] ? "" : name;
  });
  const shown = names.map((n, tm) => n || display(tm));
  if (shown[0].toLowerCase() === shown[1].toLowerCase()) throw fail("names_same", { name: shown[0] });
  return names;
}

// ------------------------------------------------------------------ edits

function readEdit(meta, obj) {
  if (!obj || typeof obj !== "object" || !EDITS.includes(obj.edit)) throw fail("sheet_history");
  for (const k of Object.keys(obj)) if (!["edit", "deal", "was"].includes(k)) throw fail("sheet_history");
  const { edit, deal, was } = obj;
  if (edit === "correct" || edit === "delete") {
    if (!Number.isInteger(deal) || deal < 1) throw fail("sheet_history");
    return { edit, deal, was: entryJson(readEntry(was)) };
  }
  if (deal !== undefined && deal !== null) throw fail("sheet_history");
  if (edit === "add") {
    if (was !== undefined && was !== null) throw fail("sheet_history");
    return { edit };
  }
  if (edit === "clear") {
    if (!Array.isArray(was)) throw fail("sheet_history");
    return { edit, was: was.map((e) => entryJson(readEntry(e))) };
  }
  return { edit, was: edit === "rules" ? rulesJson(readRules(meta, was)) : readNames(was) };
}

// The rules, names and deals as they were before `edit` (scoresheet._before).
function before(meta, edit, sheet) {
  let { rules, names } = sheet;
  const entries = sheet.entries.slice();
  const i = (edit.deal ?? 0) - 1;
  if (edit.edit === "add") {
    if (!entries.length) throw fail("sheet_history");
    entries.pop();
  } else if (edit.edit === "correct") {
    if (!(i >= 0 && i < entries.length)) throw fail("sheet_history");
    entries[i] = edit.was;
  } else if (edit.edit === "delete") {
    if (!(i >= 0 && i <= entries.length)) throw fail("sheet_history");
    entries.splice(i, 0, edit.was);
  } else if (edit.edit === "clear") {
    if (entries.length) throw fail("sheet_history");
    entries.push(...edit.was);
  } else if (edit.edit === "rules") {
    rules = readRules(meta, edit.was);
  } else {
    names = edit.was;
  }
  return { rules, names, entries };
}

function recorded(sheet, change, edit) {
  const history = [...sheet.history, edit].slice(-HISTORY_LIMIT);
  return { ...sheet, ...change, history, updated: now() };
}

export function addDeal(meta, sheet, entry) {
  const clean = entryJson(readEntry(entry));
  const entries = [...sheet.entries, clean];
  scoreSheet(rulesOf(meta, sheet), entries);
  return recorded(sheet, { entries }, { edit: "add" });
}

export function correctDeal(meta, sheet, index, entry) {
  const clean = entryJson(readEntry(entry));
  const entries = replaceEntry(rulesOf(meta, sheet), sheet.entries, index, clean);
  return recorded(sheet, { entries }, { edit: "correct", deal: index + 1, was: sheet.entries[index] });
}

export function deleteDeal(meta, sheet, index) {
  if (!(index >= 0 && index < sheet.entries.length)) throw new ScoreError("no_such_deal", { deal: index + 1, count: sheet.entries.length });
  const entries = sheet.entries.filter((_, i) => i !== index);
  scoreSheet(rulesOf(meta, sheet), entries);
  return recorded(sheet, { entries }, { edit: "delete", deal: index + 1, was: sheet.entries[index] });
}

export function clearDeals(sheet) {
  if (!sheet.entries.length) throw fail("empty");
  return recorded(sheet, { entries: [] }, { edit: "clear", was: sheet.entries });
}

// Other rules for the sheet: refused (with the deal that does not fit and why) unless
// every deal still scores; null when nothing changes.
export function changeRules(meta, sheet, profile, options) {
  const rules = readRules(meta, { ...options, profile });
  if (JSON.stringify(rulesJson(rules)) === JSON.stringify(rulesJson(sheet.rules))) return null;
  try {
    scoreSheet({ ...meta.profiles[profile], ...rules.options }, sheet.entries);
  } catch (err) {
    if (!(err instanceof ScoreError)) throw err;
    const count = sheet.entries.length;
    const reason = err.code === "after_end" ? new ScoreError("rules_end_match", { deal: err.params.deal, count }) : err;
    throw new ScoreError("rules_refused", { reason, deal: (err.deal ?? 0) + 1, count });
  }
  return recorded(sheet, { rules }, { edit: "rules", was: rulesJson(sheet.rules) });
}

export function changeNames(sheet, names, display) {
  const clean = readNames(names, display);
  if (clean[0] === sheet.names[0] && clean[1] === sheet.names[1]) return null;
  return recorded(sheet, { names: clean }, { edit: "names", was: sheet.names });
}

// Take back the last edit, whatever it was: {sheet, edit}.
export function undo(meta, sheet) {
  if (!sheet.history.length) throw fail("nothing_to_undo");
  const edit = sheet.history[sheet.history.length - 1];
  const prior = before(meta, edit, sheet);
  scoreSheet({ ...meta.profiles[prior.rules.profile], ...prior.rules.options }, prior.entries);
  return { sheet: { ...sheet, ...prior, history: sheet.history.slice(0, -1), updated: now() }, edit };
}

// ------------------------------------------------------------------ the file form

export function newSheet(meta, { profile = "pagat", options = {}, names = ["", ""] } = {}) {
  const rules = readRules(meta, { ...options, profile });
  const stamp = now();
  return { id: newId(), rules, names: names.slice(), entries: [], history: [], created: stamp, updated: stamp };
}

export function sheetFile(sheet, { history = true } = {}) {
  const out = { format: SHEET_FORMAT, rules: rulesJson(sheet.rules) };
  if (sheet.names[0] || sheet.names[1]) out.names = sheet.names.map((n, tm) => n || FILE_NAMES[tm]);
  out.entries = sheet.entries.slice();
  if (history && sheet.history.length) out.history = sheet.history.slice();
  for (const key of ["created", "updated"]) if (sheet[key]) out[key] = sheet[key];
  return out;
}

function readStamp(obj, key) {
  const v = obj[key];
  if (v === undefined || v === null) return null;
  if (typeof v !== "string" || v.length > STAMP_LIMIT) throw fail("sheet_stamp", { key });
  return v;
}

// A sheet file (or a `twentynine score --json` report) read strictly: any fault throws a
// ScoreError saying what; `checkHistory` also replays the history back to its start.
export function readSheetFile(meta, obj, { checkHistory = true } = {}) {
  if (!obj || typeof obj !== "object" || Array.isArray(obj) || obj.format !== SHEET_FORMAT) throw fail("sheet_format");
  for (const k of Object.keys(obj)) if (!SHEET_KEYS.includes(k) && !REPORT_KEYS.includes(k)) throw fail("sheet_key", { key: k });
  const rules = readRules(meta, obj.rules);
  const names = obj.names === undefined || obj.names === null ? ["", ""] : readNames(obj.names);
  const raw = obj.entries ?? [];
  if (!Array.isArray(raw)) throw fail("sheet_entries");
  const entries = raw.map((e, i) => {
    try {
      return entryJson(readEntry(e));
    } catch (err) {
      throw err instanceof ScoreError ? err.at(i) : err;
    }
  });
  const rawHistory = obj.history ?? [];
  if (!Array.isArray(rawHistory)) throw fail("sheet_history");
  const history = rawHistory.map((e) => readEdit(meta, e)).slice(-HISTORY_LIMIT);
  const stamp = readStamp(obj, "created");
  const sheet = { id: newId(), rules, names, entries, history, created: stamp, updated: readStamp(obj, "updated") || stamp };
  scoreSheet(rulesOf(meta, sheet), entries);
  if (checkHistory) {
    let state = sheet;
    for (const edit of history.slice().reverse()) {
      state = { ...state, ...before(meta, edit, state) };
      scoreSheet(rulesOf(meta, state), state.entries);
    }
  }
  return sheet;
}

// The text of a JSON file chosen to open: {sheet} or a ScoreError thrown.
export function readSheetText(meta, text) {
  let obj;
  try {
    obj = JSON.parse(text);
  } catch {
    throw fail("import_json");
  }
  return readSheetFile(meta, obj);
}

// ------------------------------------------------------------------ CSV (scoresheet.csv_rows)

const cellText = (text) => (/^[=+\-@\t\r]/.test(text) ? `'${text}` : text);
const signedText = (n) => (n > 0 ? `+${n}` : String(n));

// The sheet as rows of a spreadsheet, a header then a deal a row, in the words of
// `word(key, params)` (the catalog's score.csv.*: in English, scoresheet.csv_rows's).
export function csvRows(meta, sheet, word) {
  const r = rulesOf(meta, sheet);
  const lines = scoreSheet(r, sheet.entries);
  const [a, b] = sheet.names.map((n, tm) => cellText(n || FILE_NAMES[tm]));
  const name = (tm) => (tm === null || tm === undefined ? "" : tm === 0 ? a : b);
  const head = ["deal", "bidder", "bid", "pair", "doubling", "took", "target", "result", "notes"].map((k) => word(`score.csv.${k}`));
  const rows = [[...head, word("score.csv.change", { team: a }), word("score.csv.change", { team: b }), word("score.csv.total", { team: a }), word("score.csv.total", { team: b })]];
  lines.forEach((line, i) => {
    const e = line.entry;
    const notes = [];
    if (line.under_half) notes.push(word("score.csv.under_half"));
    if (line.capped) notes.push(word("score.csv.capped", { max: r.max_bid }));
    if (line.floored) notes.push(word("score.csv.floored", { min: r.min_bid }));
    rows.push([
      String(i + 1),
      e.kind === "cancelled" ? "" : name(e.team),
      e.bid === undefined || e.bid === null || e.kind === "single" ? "" : String(e.bid),
      name(e.pair),
      e.doubling && e.doubling !== 1 ? `x${e.doubling}` : "",
      line.points === null ? "" : String(line.points),
      line.target === null ? "" : String(line.target),
      word(`score.csv.${line.result.replace("-", "_")}`),
      notes.join("; "),
      ...line.delta.map(signedText),
      ...line.score.map(signedText),
    ]);
  });
  return rows;
}

export function csvText(rows) {
  const cell = (c) => (/[",\r\n]/.test(c) ? `"${c.replace(/"/g, '""')}"` : c);
  return rows.map((row) => row.map(cell).join(",") + "\r\n").join("");
}

// ------------------------------------------------------------------ links (scoresheet.link_payload)

export function linkPayload(sheet) {
  const data = sheetFile(sheet, { history: false });
  delete data.updated;
  const bytes = new TextEncoder().encode(JSON.stringify(data));
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function sheetLink(sheet, base = location.origin + location.pathname) {
  return base + LINK_FRAGMENT + linkPayload(sheet);
}

// The sheet of a link (the whole address, its #score/sheet/... part or the payload).
export function sheetFromLink(meta, text) {
  let s = String(text).trim();
  if (s.includes(LINK_FRAGMENT)) s = s.split(LINK_FRAGMENT)[1];
  if (!s) throw fail("link_empty");
  if (s.length > LINK_LIMIT) throw fail("link_long", { limit: LINK_LIMIT });
  if (!/^[A-Za-z0-9_-]+$/.test(s)) throw fail("link_bad");
  let obj;
  try {
    const bin = atob(s.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (s.length % 4)) % 4));
    const bytes = Uint8Array.from(bin, (c) => c.charCodeAt(0));
    obj = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    throw fail("link_bad");
  }
  return readSheetFile(meta, obj);
}

// ------------------------------------------------------------------ the book (localStorage)

// {current: id, sheets: [sheet...], broken: [...]}: every sheet this browser keeps,
// read back from its file form. One that no longer reads (a newer version's, a
// damaged one) is left out of the list but kept as it was.
export function loadBook(meta) {
  let saved = null;
  try {
    saved = JSON.parse(localStorage.getItem(BOOK_KEY) || "null");
  } catch {
    saved = null;
  }
  const sheets = [];
  const broken = []; // kept as they were, never lost by a save
  let migrated = false;
  if (saved && Array.isArray(saved.sheets)) {
    for (const item of saved.sheets) {
      try {
        const sheet = readSheetFile(meta, item.file, { checkHistory: false });
        sheets.push({ ...sheet, id: typeof item.id === "string" ? item.id : sheet.id });
      } catch {
        broken.push(item);
      }
    }
  } else {
    const old = migrateOld(meta);
    if (old) sheets.push(old);
    migrated = !!old;
  }
  let current = saved && typeof saved.current === "string" ? saved.current : null;
  if (!sheets.some((s) => s.id === current)) current = sheets.length ? latest(sheets).id : null;
  return { current, sheets, broken, migrated };
}

function latest(sheets) {
  return sheets.reduce((a, b) => ((b.updated || "") > (a.updated || "") ? b : a));
}

function migrateOld(meta) {
  try {
    const old = JSON.parse(localStorage.getItem(OLD_KEY) || "null");
    if (!old || !Array.isArray(old.entries)) return null;
    const sheet = newSheet(meta, { profile: meta.profiles[old.profile] ? old.profile : "pagat" });
    const rules = readRules(meta, { ...(old.options || {}), profile: sheet.rules.profile });
    const entries = old.entries.map((e) => entryJson(readEntry(e)));
    scoreSheet({ ...meta.profiles[rules.profile], ...rules.options }, entries);
    return { ...sheet, rules, entries };
  } catch {
    return null; // an old sheet that cannot be read starts afresh, as it always did
  }
}

// False when the browser would not keep it (private mode, full storage).
export function saveBook(book) {
  // beyond the limit the matches changed longest ago go first, never the open one
  const newest = book.sheets.slice().sort((a, b) => (a.id === book.current ? -1 : b.id === book.current ? 1 : (b.updated || "") > (a.updated || "") ? 1 : -1));
  const kept = new Set(newest.slice(0, BOOK_LIMIT).map((s) => s.id));
  const sheets = book.sheets.filter((s) => kept.has(s.id)).map((s) => ({ id: s.id, file: sheetFile(s) }));
  sheets.push(...(book.broken || []));
  try {
    localStorage.setItem(BOOK_KEY, JSON.stringify({ format: "29-scorebook/1", current: book.current, sheets }));
    localStorage.removeItem(OLD_KEY);
    return true;
  } catch {
    return false;
  }
}

// The score sheet's tools (scorepage.js opens them): the team names, the
// matches kept in this browser with the finished ones apart, export (JSON,
// CSV, print) and share (a link, a file to open), the list of changes that
// undo takes back, and the panel that offers a shared sheet before keeping it.
// Each panel is drawn from `ctx` (the page's sheet, book and actions).

import { h } from "./dom.js";
import { formatDate, num, t } from "./i18n.js";
import { teamName } from "./model.js";
import { changeNames, csvRows, csvText, rulesOf, sheetFile, sheetLink } from "./scorebook.js";
import { scoreSheet } from "./scorer.js";

const IMPORT_LIMIT = 1_000_000; // bytes: a sheet file is a few kilobytes

// What an edit did, in words. `n` is the number of the deal an "add" added.
export function editText(edit, n) {
  if (edit.edit === "add") return t("score.edit_add", { n });
  if (edit.edit === "correct" || edit.edit === "delete") return t(`score.edit_${edit.edit}`, { n: edit.deal });
  if (edit.edit === "clear") return t("score.edit_clear", { count: edit.was.length });
  return t(`score.edit_${edit.edit}`);
}

// The history newest first, each with the deal number an "add" gave (counted back
// from the deals the sheet has now).
export function historyView(sheet) {
  let count = sheet.entries.length;
  const out = [];
  for (const edit of sheet.history.slice().reverse()) {
    out.push({ edit, n: count });
    if (edit.edit === "add") count -= 1;
    else if (edit.edit === "delete") count += 1;
    else if (edit.edit === "clear") count = edit.was.length;
  }
  return out;
}

function signed(n) {
  return n > 0 ? `+${num(n)}` : num(n);
}

function facts(ctx, sheet) {
  let lines = [];
  try {
    lines = scoreSheet(rulesOf(ctx.meta, sheet), sheet.entries);
  } catch {
    lines = [];
  }
  const last = lines[lines.length - 1];
  return { score: last ? last.score : [0, 0], winner: last ? last.winner : null, deals: sheet.entries.length };
}

const shownName = (sheet, tm) => sheet.names[tm] || teamName(tm);

// ---------------------------------------------------------------- team names

export function teamsPanel(ctx) {
  const s = ctx.sheet();
  const error = h("p", { class: "form-error", role: "alert", dataset: { testid: "score-names-error" } });
  const inputs = [0, 1].map((tm) =>
    h("input", { type: "text", id: `score-name-${tm}`, maxlength: 60, autocomplete: "off", value: s.names[tm], placeholder: teamName(tm), dataset: { testid: `score-name-${tm}` } }),
  );
  const onsubmit = (ev) => {
    ev.preventDefault();
    try {
      const next = changeNames(ctx.sheet(), inputs.map((i) => i.value), teamName);
      if (next) ctx.commit(next, next.history.at(-1));
    } catch (err) {
      error.textContent = ctx.errorText(err);
    }
  };
  return h(
    "form",
    { class: "score-panel score-names", novalidate: true, onsubmit, "aria-labelledby": "score-names-title", dataset: { testid: "score-panel-teams" } },
    h("h2", { id: "score-names-title" }, t("score.teams_title")),
    h("p", { class: "muted" }, t("score.teams_help")),
    [0, 1].map((tm) => h("div", { class: "option" }, h("label", { for: `score-name-${tm}` }, t(tm === 0 ? "score.name_ns" : "score.name_ew")), inputs[tm])),
    error,
    h("div", { class: "form-actions" }, h("button", { type: "submit", class: "primary", dataset: { testid: "score-names-save" } }, t("score.names_save"))),
  );
}

// ---------------------------------------------------------------- matches

function when(stamp) {
  const d = stamp ? new Date(stamp) : null;
  return d ? formatDate(d) : "";
}

function matchItem(ctx, sheet) {
  const f = facts(ctx, sheet);
  const current = sheet.id === ctx.book.current;
  const state = f.winner !== null ? t("score.match_won_by", { team: shownName(sheet, f.winner) }) : t("score.match_playing");
  return h(
    "li",
    { class: ["score-match-item", current && "current"], dataset: { testid: "score-sheet-item", sheet: sheet.id } },
    h(
      "div",
      { class: "score-match-text" },
      h("b", {}, `${shownName(sheet, 0)} – ${shownName(sheet, 1)}`),
      current ? h("span", { class: "badge" }, t("score.match_current")) : null,
      h("span", { class: "muted" }, t("score.match_facts", { count: f.deals, a: signed(f.score[0]), b: signed(f.score[1]), state })),
      h("small", { class: "muted" }, `${ctx.rulesSummary(sheet)} · ${when(sheet.updated)}`),
    ),
    h(
      "div",
      { class: "score-match-actions" },
      current ? null : h("button", { type: "button", class: "quiet small", dataset: { testid: "score-open" }, onclick: () => ctx.open(sheet.id) }, t("score.match_open")),
      h("button", { type: "button", class: "quiet small", dataset: { testid: "score-remove" }, onclick: () => ctx.removeSheet(sheet.id) }, t("score.match_remove")),
    ),
  );
}

export function matchesPanel(ctx) {
  const newest = ctx.book.sheets.slice().sort((a, b) => ((b.updated || "") > (a.updated || "") ? 1 : -1));
  const finished = newest.filter((s) => facts(ctx, s).winner !== null);
  const playing = newest.filter((s) => facts(ctx, s).winner === null);
  const list = (title, sheets, testid) =>
    sheets.length ? [h("h3", {}, title), h("ul", { class: "score-match-list", dataset: { testid } }, sheets.map((s) => matchItem(ctx, s)))] : null;
  return h(
    "section",
    { class: "score-panel", "aria-labelledby": "score-matches-title", dataset: { testid: "score-panel-matches" } },
    h("h2", { id: "score-matches-title" }, t("score.matches_title")),
    h("p", { class: "muted" }, t("score.matches_help")),
    h("button", { type: "button", class: "primary", dataset: { testid: "score-new-match" }, onclick: () => ctx.startMatch() }, t("score.new_match")),
    list(t("score.matches_playing"), playing, "score-playing"),
    list(t("score.matches_finished"), finished, "score-finished"),
    ctx.book.broken?.length ? h("p", { class: "muted", dataset: { testid: "score-broken" } }, t("score.matches_broken", { n: ctx.book.broken.length })) : null,
  );
}

// ---------------------------------------------------------------- export and share

function fileName(sheet, ext) {
  const day = (sheet.created || new Date().toISOString()).slice(0, 10);
  const who = [0, 1]
    .map((tm) => shownName(sheet, tm))
    .join("-")
    .normalize("NFKD")
    .replace(/[^A-Za-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40);
  return `29-sheet-${day}-${who || "match"}.${ext}`;
}

function download(name, type, text) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = h("a", { href: url, download: name, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

async function copy(text, input) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    input.select();
    return document.execCommand?.("copy") ?? false;
  }
}

export function sharePanel(ctx) {
  const s = ctx.sheet();
  const link = sheetLink(s);
  const status = h("p", { class: "muted", role: "status", dataset: { testid: "score-share-status" } });
  const linkInput = h("input", { type: "text", readonly: true, value: link, id: "score-share-link", dataset: { testid: "score-share-link" }, onfocus: (e) => e.target.select() });
  const fileInput = h("input", {
    type: "file",
    accept: ".json,application/json",
    id: "score-import-file",
    dataset: { testid: "score-import-file" },
    onchange: async (e) => {
      const file = e.target.files?.[0];
      e.target.value = "";
      if (!file) return;
      if (file.size > IMPORT_LIMIT) {
        ctx.offerFile(null, "import_big");
        return;
      }
      ctx.offerFile(await file.text());
    },
  });
  return h(
    "section",
    { class: "score-panel", "aria-labelledby": "score-share-title", dataset: { testid: "score-panel-share" } },
    h("h2", { id: "score-share-title" }, t("score.share_title")),
    h("p", { class: "muted" }, t("score.share_help")),
    h("div", { class: "option" }, h("label", { for: "score-share-link" }, t("score.share_link")), linkInput),
    h(
      "div",
      { class: "score-share-actions" },
      h(
        "button",
        {
          type: "button",
          class: "primary",
          dataset: { testid: "score-share-copy" },
          onclick: async () => {
            status.textContent = (await copy(link, linkInput)) ? t("score.share_copied") : t("score.share_copy_failed");
          },
        },
        t("score.share_copy"),
      ),
      h("button", { type: "button", dataset: { testid: "score-export-json" }, onclick: () => download(fileName(s, "json"), "application/json", JSON.stringify(sheetFile(s), null, 1) + "\n") }, t("score.export_json")),
      h("button", { type: "button", dataset: { testid: "score-export-csv" }, onclick: () => download(fileName(s, "csv"), "text/csv", csvText(csvRows(ctx.meta, s, t))) }, t("score.export_csv")),
      h("button", { type: "button", dataset: { testid: "score-print" }, onclick: () => window.print() }, t("score.print")),
    ),
    status,
    h("div", { class: "option" }, h("label", { for: "score-import-file" }, t("score.import_file")), fileInput),
  );
}

// ---------------------------------------------------------------- a sheet arriving

export function importPanel(ctx, incoming, { keep, dismiss }) {
  if (incoming.error) {
    return h(
      "section",
      { class: "score-panel score-import bad", role: "alert", dataset: { testid: "score-import" } },
      h("h2", {}, t("score.import_bad_title")),
      h("p", { dataset: { testid: "score-import-error" } }, incoming.error),
      h("p", { class: "muted" }, t("score.import_unchanged")),
      h("button", { type: "button", dataset: { testid: "score-import-dismiss" }, onclick: dismiss }, t("score.import_dismiss")),
    );
  }
  const s = incoming.sheet;
  const f = facts(ctx, s);
  const state = f.winner !== null ? t("score.match_won_by", { team: shownName(s, f.winner) }) : t("score.match_playing");
  return h(
    "section",
    { class: "score-panel score-import", dataset: { testid: "score-import" }, "aria-labelledby": "score-import-title" },
    h("h2", { id: "score-import-title" }, t("score.import_title")),
    h("p", {}, h("b", {}, `${shownName(s, 0)} – ${shownName(s, 1)}`), " · ", t("score.match_facts", { count: f.deals, a: signed(f.score[0]), b: signed(f.score[1]), state })),
    h("p", { class: "muted" }, ctx.rulesSummary(s)),
    h(
      "div",
      { class: "form-actions" },
      h("button", { type: "button", class: "primary", dataset: { testid: "score-import-keep" }, onclick: keep }, t("score.import_keep")),
      h("button", { type: "button", class: "quiet", dataset: { testid: "score-import-dismiss" }, onclick: dismiss }, t("score.import_dismiss")),
    ),
  );
}

// ---------------------------------------------------------------- the changes

export function changesPanel(ctx) {
  const steps = historyView(ctx.sheet());
  if (!steps.length) return null;
  return h(
    "details",
    { class: "score-changes", dataset: { testid: "score-changes" } },
    h("summary", {}, t("score.changes", { n: steps.length })),
    h("p", { class: "muted" }, t("score.changes_help")),
    h(
      "ol",
      { class: "score-change-list" },
      steps.map(({ edit, n }, k) =>
        h(
          "li",
          { dataset: { testid: "score-change" } },
          h("span", {}, editText(edit, n)),
          " ",
          h(
            "button",
            { type: "button", class: "quiet small", dataset: { testid: `score-undo-to-${k + 1}` }, onclick: () => ctx.undoSteps(k + 1) },
            k === 0 ? t("score.undo_short") : t("score.undo_to_here", { n: k + 1 }),
          ),
        ),
      ),
    ),
  );
}

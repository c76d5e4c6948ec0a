// The rules panel of the score sheet (scorepage.js opens it) and the one-line
// summary of a sheet's rules: the profile, every option changed, the length.
// A change goes through ctx.trySetRules, which refuses rules that a deal of the
// sheet would not score under (scorebook.changeRules) and records the edit.

import { h, replace } from "./dom.js";
import { num, t } from "./i18n.js";
import { rulesOf } from "./scorebook.js";

const DEFAULT_TARGET = 6;
// The options that change a score (the others only change how a deal is played).
const SCORE_OPTIONS = ["min_bid", "max_bid", "pair", "last_trick_point", "unrevealed", "all_pass", "doubling", "allow_set", "single_hand", "under_half", "auto_double_from"];

export function valueLabel(option, v) {
  if (v === true) return t("value.yes");
  if (v === false) return t("value.no");
  if (v === null) return t("value.none");
  if (option === "single_hand") return t("value.stake", { n: v });
  return typeof v === "string" ? t(`value.${option}.${v}`) : num(v);
}

// The rules of a sheet in one line: the profile, every option changed, the length.
export function rulesSummary(meta, sheet) {
  const r = rulesOf(meta, sheet);
  const changed = meta.options
    .filter((o) => o.name in sheet.rules.options)
    .map(({ name: k }) => t("score.summary_option", { option: t(`option.${k}.label`), value: valueLabel(k, sheet.rules.options[k]) }));
  const parts = [t("score.summary_profile", { profile: t(`profile.${sheet.rules.profile}.name`) })];
  if (changed.length) parts.push(t("score.summary_changed", { list: changed.join("; ") }));
  parts.push(r.match_target ? t("status.match_label", { target: r.match_target }) : t("score.single_deals"));
  return parts.join(" · ");
}

export function rulesPanel(ctx, rulesError) {
  const meta = ctx.meta;
  const sheet = ctx.sheet;
  const rules = () => rulesOf(meta, sheet());
  const profileValue = (key) => meta.profiles[sheet().rules.profile][key];
  const optionsBox = h("div", { class: "options-grid" });

  function setOption(key, v) {
    const options = { ...sheet().rules.options };
    if (v === profileValue(key)) delete options[key];
    else options[key] = v;
    if (key === "doubling" && !v) delete options.allow_set;
    ctx.trySetRules(sheet().rules.profile, options);
  }

  const profileSelect = h(
    "select",
    { id: "score-profile", dataset: { testid: "score-profile" }, onchange: (e) => ctx.trySetRules(e.target.value, {}) },
    meta.profile_order.map((p) => h("option", { value: p }, t(`profile.${p}.name`))),
  );

  function optionControl(key) {
    const schema = meta.options.find((o) => o.name === key) || { kind: "int" };
    const r = rules();
    const val = r[key];
    const id = `score-opt-${key}`;
    let control;
    if (schema.kind === "bool") {
      control = h("input", { type: "checkbox", id, checked: !!val, onchange: (e) => setOption(key, e.target.checked) });
      if (key === "allow_set" && !r.doubling) control.disabled = true;
    } else if (schema.kind === "choice") {
      control = h("select", { id, onchange: (e) => setOption(key, e.target.value) }, schema.choices.map((c) => h("option", { value: c, selected: c === val }, valueLabel(key, c))));
    } else if (schema.kind === "optional_int") {
      const opts = [h("option", { value: "", selected: val === null }, t("value.none"))];
      for (let b = r.min_bid; b <= r.max_bid; b++) opts.push(h("option", { value: b, selected: val === b }, num(b)));
      control = h("select", { id, onchange: (e) => setOption(key, e.target.value === "" ? null : parseInt(e.target.value, 10)) }, opts);
    } else if (schema.kind === "stake") {
      const opts = [h("option", { value: "", selected: val === false }, t("value.no"))];
      for (let n = 1; n <= 6; n++) opts.push(h("option", { value: n, selected: val === n }, t("value.stake", { n })));
      control = h("select", { id, onchange: (e) => setOption(key, e.target.value === "" ? false : parseInt(e.target.value, 10)) }, opts);
    } else {
      control = h("input", { type: "number", id, min: 1, max: 29, value: val, inputmode: "numeric", onchange: (e) => setOption(key, parseInt(e.target.value, 10)) });
    }
    return h("div", { class: ["option", key in sheet().rules.options && "changed"], dataset: { option: key } }, h("label", { for: id }, t(`option.${key}.label`)), control);
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
      { class: ["option", "match_target" in sheet().rules.options && "changed"] },
      h("label", {}, t("option.match_target.label")),
      h("span", { class: "score-match" }, t("setup.match_to"), input),
      h("label", { class: "check", for: "score-single-deals" }, box, " ", t("score.single_deals")),
    );
  }

  profileSelect.value = sheet().rules.profile;
  replace(optionsBox, SCORE_OPTIONS.map(optionControl), matchControl());
  return h(
    "section",
    { class: "score-panel options", dataset: { testid: "score-options" }, "aria-labelledby": "score-rules-title" },
    h("h2", { id: "score-rules-title" }, t("score.rules")),
    h("p", { class: "muted" }, t("score.rules_help")),
    h("div", { class: "option" }, h("label", { for: "score-profile" }, t("setup.profile")), profileSelect),
    optionsBox,
    rulesError,
  );
}

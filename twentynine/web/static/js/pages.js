// Pages shown over the table: the rules (written from the active profile's
// options), how to play, and the settings.

import { cardFace, RANKS, rankName } from "./cards.js";
import { h, replace } from "./dom.js";
import { openGuide } from "./guide.js";
import { has, num, t } from "./i18n.js";
import { digitsSelect, languageSelect } from "./language.js";
import { settings, update } from "./settings.js";
import { clear as clearStats, statsBody } from "./stats.js";

function dialog(id, titleKey, body, { onClose } = {}) {
  let dlg = document.getElementById(id);
  if (!dlg) {
    dlg = h("dialog", { id, class: "page", "aria-labelledby": `${id}-title` });
    document.body.append(dlg);
    dlg.addEventListener("close", () => onClose?.());
    dlg.addEventListener("click", (e) => {
      if (e.target === dlg) dlg.close();
    });
  }
  replace(
    dlg,
    h(
      "div",
      { class: "page-inner" },
      h(
        "header",
        { class: "page-head" },
        h("h1", { id: `${id}-title` }, t(titleKey)),
        h("button", { type: "button", class: "close quiet", "aria-label": t("ctl.close"), dataset: { testid: `${id}-close` }, onclick: () => dlg.close() }, "✕"),
      ),
      h("div", { class: "page-body", tabindex: "0" }, body), // it scrolls: the keyboard reaches it
    ),
  );
  if (!dlg.open) dlg.showModal();
  dlg.querySelector(".page-body").scrollTop = 0;
  return dlg;
}

function value(option, v) {
  if (v === true) return t("value.yes");
  if (v === false) return t("value.no");
  if (v === null || v === undefined) return t("value.none");
  if (typeof v === "string") return t(`value.${option}.${v}`);
  return num(v);
}

// The rules as sentences, from the options of a profile (with any overrides).
export function rulesBody(profile, o) {
  const p = (key, params = {}) => h("p", {}, t(key, params));
  const sec = (key, ...content) => h("section", { class: "rules-section" }, h("h2", {}, t(key)), content);
  const total = o.last_trick_point ? 29 : 28;
  const rankRow = h(
    "div",
    { class: "rank-row", role: "list", "aria-label": t("rules.rank_aria") },
    RANKS.map((r) => h("span", { class: "mini-card", role: "listitem", "aria-label": rankName(r) }, cardFace(`${r}H`))),
  );
  const out = [
    h("p", { class: "lead" }, t("rules.for_profile", { name: t(`profile.${profile}.name`) }), " ", t(`profile.${profile}.summary`)),
    sec("rules.h_cards", p("rules.cards"), rankRow, p("rules.points", { total }), o.last_trick_point ? p("rules.last_trick") : null),
    sec(
      "rules.h_table",
      p("rules.teams"),
      p(`rules.direction_${o.direction}`),
    ),
    sec(
      "rules.h_auction",
      p("rules.first_batch"),
      p(`rules.auction_${o.auction}`, { min: o.min_bid, max: o.max_bid }),
      p(`rules.all_pass_${o.all_pass}`, { min: o.min_bid }),
    ),
    sec("rules.h_trump", p("rules.trump"), o.seventh_card ? p("rules.seventh") : null, p("rules.second_batch")),
  ];
  if (o.single_hand) out.push(sec("rules.h_single", p("rules.single", { stake: o.single_hand })));
  if (o.doubling)
    out.push(sec("rules.h_doubling", p(`rules.double_${o.double_by}`), p("rules.redouble"), o.allow_set ? p("rules.set") : null));
  out.push(
    sec("rules.h_play", p("rules.play"), p(`rules.reveal_${o.reveal}`), p("rules.trick_winner")),
    sec("rules.h_pair", p(`rules.pair_${o.pair}`)),
    sec(
      "rules.h_scoring",
      p("rules.made", { total }),
      p(`rules.unrevealed_${o.unrevealed}`),
      o.under_half ? p("rules.under_half") : null,
      o.auto_double_from ? p("rules.auto_double", { bid: o.auto_double_from }) : null,
      o.early_end ? p("rules.early_end") : null,
      o.match_target ? p("rules.match", { target: o.match_target }) : p("rules.single_deals"),
    ),
  );
  const rows = Object.keys(o)
    .filter((k) => k !== "profile")
    .map((k) => h("tr", {}, h("th", { scope: "row" }, t(`option.${k}.label`)), h("td", {}, value(k, o[k])), h("td", { class: "muted" }, t(`option.${k}.help`))));
  out.push(sec("rules.h_options", h("div", { class: "table-wrap" }, h("table", { class: "options-table" }, h("tbody", {}, rows)))));
  return out;
}

export function openRules(profile, options) {
  return dialog("dlg-rules", "rules.title", rulesBody(profile, options));
}

export function openHowTo() {
  const keys = [
    ["1–8", "howto.key_select"],
    ["← →", "howto.key_arrows"],
    [`${t("key.enter")} / ${t("key.space")}`, "howto.key_play"],
    ["B / P", "howto.key_bid"],
    ["↑ ↓ + −", "howto.key_adjust"],
    ["S H D C / V", "howto.key_trump"],
    ["D · R · S · A · K", "howto.key_decisions"],
    ["R", "howto.key_reveal"],
    ["N", "howto.key_next"],
    ["U", "howto.key_undo"],
    ["I / T", "howto.key_hint"],
    [t("key.escape"), "howto.key_escape"],
    [t("key.tab"), "howto.key_tab"],
    ["?", "howto.key_help"],
  ];
  const body = [
    h("p", { class: "lead" }, t("howto.intro")),
    h(
      "section",
      { class: "rules-section guide-link" },
      h("p", {}, t("howto.guide_intro")),
      h("button", { type: "button", class: "primary", dataset: { testid: "howto-guide" }, onclick: () => { document.getElementById("dlg-howto")?.close(); openGuide(); } }, t("howto.guide")),
    ),
    ...["goal", "cards", "auction", "trump", "play", "pair", "score"].map((k) => h("section", { class: "rules-section" }, h("h2", {}, t(`howto.h_${k}`)), h("p", {}, t(`howto.${k}`)))),
    h("section", { class: "rules-section" }, h("h2", {}, t("howto.h_table")), h("p", {}, t("howto.table")), h("p", {}, t("howto.bots"))),
    h(
      "section",
      { class: "rules-section", dataset: { testid: "howto-examples" } },
      h("h2", {}, t("howto.h_examples")),
      ["trump", "follow", "count", "pair"].map((k) => [h("h3", {}, t(`howto.ex_${k}_title`)), h("p", { dataset: { example: k } }, t(`howto.ex_${k}`))]),
    ),
    h(
      "section",
      { class: "rules-section", dataset: { testid: "howto-stuck" } },
      h("h2", {}, t("howto.h_stuck")),
      h("ul", {}, ["trick", "card", "wait", "reconnect", "trump", "pair"].map((k) => h("li", { dataset: { stuck: k } }, t(`howto.stuck_${k}`)))),
    ),
    h(
      "section",
      { class: "rules-section" },
      h("h2", {}, t("howto.h_keys")),
      h("table", { class: "keys-table" }, h("tbody", {}, keys.map(([k, d]) => h("tr", {}, h("th", { scope: "row" }, h("kbd", {}, k)), h("td", {}, t(d)))))),
    ),
  ];
  return dialog("dlg-howto", "howto.title", body);
}

export function openSettings({ onChange, install }) {
  const st = settings();
  const field = (key, label, control, help) =>
    control.type === "checkbox"
      ? h("div", { class: "setting check" }, control, h("label", { for: `set-${key}` }, t(label)), help ? h("p", { class: "help muted" }, t(help)) : null)
      : h("div", { class: "setting" }, h("label", { for: `set-${key}` }, t(label)), control, help ? h("p", { class: "help muted" }, t(help)) : null);
  const select = (key, choices) =>
    h(
      "select",
      {
        id: `set-${key}`,
        onchange: (e) => {
          update({ [key]: e.target.value });
          onChange?.(key);
        },
      },
      choices.map(([v, label]) => h("option", { value: v, selected: st[key] === v }, t(label))),
    );
  const check = (key) =>
    h("input", {
      type: "checkbox",
      id: `set-${key}`,
      checked: !!st[key],
      dataset: { testid: `set-${key}` },
      onchange: (e) => {
        update({ [key]: e.target.checked });
        onChange?.(key);
      },
    });
  const digits = digitsSelect("set-digits", () => onChange?.("digits"));
  const body = [
    field("theme", "settings.theme", select("theme", [["auto", "settings.theme_auto"], ["light", "settings.theme_light"], ["dark", "settings.theme_dark"]])),
    field("fourColour", "settings.four_colour", check("fourColour"), "settings.four_colour_help"),
    field("motion", "settings.motion", select("motion", [["auto", "settings.motion_auto"], ["reduced", "settings.motion_reduced"]])),
    field("oneTap", "settings.one_tap", check("oneTap"), "settings.one_tap_help"),
    field("autoNext", "settings.auto_next", check("autoNext"), "settings.auto_next_help"),
    field("autoPair", "settings.auto_pair", check("autoPair"), "settings.auto_pair_help"),
    field("keyHints", "settings.key_hints", check("keyHints")),
    field("sound", "settings.sound", check("sound"), "settings.sound_help"),
    field(
      "volume",
      "settings.volume",
      h("input", {
        type: "range",
        id: "set-volume",
        min: 0,
        max: 100,
        step: 5,
        value: st.volume,
        dataset: { testid: "set-volume" },
        onchange: (e) => {
          update({ volume: Number(e.target.value) });
          onChange?.("volume");
        },
      }),
    ),
    field("lang", "settings.language", languageSelect("set-lang", () => onChange?.("lang")), "settings.language_help"),
    digits ? field("digits", "settings.digits", digits) : null,
    h("section", { class: "rules-section" }, h("h2", {}, t("settings.install")), install()),
  ];
  return dialog("dlg-settings", "settings.title", body);
}

// The statistics of this browser's games (stats.js draws them).
export function openStats() {
  const body = () =>
    statsBody({
      profileName: (p) => (has(`profile.${p}.name`) ? t(`profile.${p}.name`) : p),
      onClear: () => {
        clearStats();
        openStats();
      },
    });
  return dialog("dlg-stats", "stats.title", body());
}

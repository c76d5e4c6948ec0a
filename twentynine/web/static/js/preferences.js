// The settings page as the table opens it, and what a change there redraws:
// every word on show in a new language or digits, the table's auto-pair, and
// the section that installs the app.

import { redraw } from "./board.js";
import { $, h, replace } from "./dom.js";
import { t, translatePage } from "./i18n.js";
import { onStatus } from "./messages.js";
import { game, hotSeat } from "./model.js";
import * as offline from "./offline.js";
import { page, ui } from "./page.js";
import { openSettings } from "./pages.js";
import { showHistory, showRoom, showScorer, showSetup } from "./screens.js";
import { settings } from "./settings.js";

function installSection() {
  if (page.installEvent) {
    return h(
      "p",
      {},
      h(
        "button",
        {
          type: "button",
          class: "primary",
          onclick: async () => {
            page.installEvent.prompt();
            await page.installEvent.userChoice.catch(() => null);
            page.installEvent = null;
            $("#btn-install").hidden = true;
          },
        },
        t("install.button"),
      ),
    );
  }
  const standalone = window.matchMedia("(display-mode: standalone)").matches;
  if (standalone) return h("p", { class: "muted" }, t("install.installed"));
  // with Pyodide served, games against the bots need no server once the app is kept
  return h("p", { class: "muted", dataset: { testid: "install-manual" } }, t(offline.available() ? "install.manual_offline" : "install.manual"));
}

export function openSettingsPage() {
  return openSettings({
    onChange: (key) => {
      if (key === "lang" || key === "digits") {
        relocalize();
        openSettingsPage(); // the page itself in the new words
        $(`#set-${key}`)?.focus();
        return;
      }
      if (key === "autoPair" && game.setup && !hotSeat()) page.net.request("configure", { auto_pair: settings().autoPair }).catch(() => {});
      redraw(); // a setting may change how anything on the table is drawn
    },
    install: installSection,
  });
}

// The catalog (or the digits) changed: redraw every word on show, in place.
export function relocalize() {
  document.title = t("app.title");
  translatePage();
  onStatus(ui.connection);
  offline.showBadge(page.engineWhere);
  if (ui.screen === "setup") {
    showSetup({ keepDraft: true });
    $("#first-lang")?.focus();
  } else if (ui.screen === "score") showScorer();
  else if (ui.screen === "history") showHistory();
  else if (ui.screen === "room" && game.room) showRoom(game.room);
  else if (ui.screen === "loading") replace($("#setup"), h("p", { class: "muted" }, t("app.rejoining")));
  redraw(); // every section of the table in the new words
}

// The browser table of 29: start-up. It wires the page's shell (the top bar,
// the hand, the install prompt, the keys) to the modules that do each job,
// loads what the page needs from the server, and resumes the game this
// browser holds.

import { actions, moveSelection, onHandClick, selectIndex } from "./actions.js";
import { installBoard, record as boardRecord, redraw, render } from "./board.js";
import { drawFacesAhead, installSprites } from "./cards.js";
import { $, h, replace } from "./dom.js";
import { installDrag } from "./drag.js";
import { installGuide } from "./guide.js";
import { installHintKeys } from "./hint.js";
import { isHistoryRoute } from "./history.js";
import { t, translatePage } from "./i18n.js";
import { installKeys } from "./keys.js";
import { applyLanguage } from "./language.js";
import { onStatus, showConnection } from "./messages.js";
import { game, groupLegal, myTurn, whyNot } from "./model.js";
import * as motion from "./motion.js";
import { toast } from "./notice.js";
import * as offline from "./offline.js";
import { currentObs, page, SAVED_GAME, ui, viewerObs } from "./page.js";
import { openHowTo, openRules, openStats } from "./pages.js";
import { openSettingsPage, relocalize } from "./preferences.js";
import { codeFromHash, roomTokens, tickCountdowns } from "./room.js";
import { connectionSettled, installScreens, isScoreRoute, leaveScorer, show, showHistory, showScorer, showSetup } from "./screens.js";
import { createRoom, joinRoom, startGame, useEngine } from "./seating.js";
import { loadSettings, settings, update as updateSettings } from "./settings.js";
import * as sound from "./sound.js";
import * as stats from "./stats.js";
import { fitHand, sortHand } from "./table.js";

function registerWorker() {
  if (!("serviceWorker" in navigator) || window.top !== window.self) return;
  navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => {});
}

async function loadMeta() {
  for (let attempt = 0; ; attempt++) {
    try {
      const res = await fetch("/api/meta", { cache: "no-cache" });
      if (res.ok) return res.json();
    } catch {
      /* offline: the service worker may answer from its cache */
    }
    if (page.net) onStatus("offline"); // before the connection starts, it will say so itself
    await new Promise((r) => setTimeout(r, Math.min(8000, 500 * 2 ** attempt)));
  }
}

function wireShell() {
  $("#btn-new").addEventListener("click", () => showSetup());
  $("#btn-score").addEventListener("click", () => {
    if (location.hash !== "#score") location.hash = "#score";
    else showScorer();
  });
  $("#btn-history").addEventListener("click", () => {
    if (location.hash !== "#history") location.hash = "#history";
    else showHistory();
  });
  window.addEventListener("hashchange", () => {
    if (isScoreRoute(location.hash)) showScorer();
    else if (isHistoryRoute(location.hash)) showHistory();
    else if (codeFromHash(location.hash)) {
      const code = codeFromHash(location.hash);
      if (page.net.room?.code !== code) joinRoom(code).catch((err) => toast(err.message, "error"));
    } else leaveScorer();
  });
  $("#btn-rules").addEventListener("click", () => {
    if (game.setup) openRules(game.setup.profile, game.setup.options);
    else if (page.meta) openRules("pagat", page.meta.profiles.pagat);
  });
  $("#btn-howto").addEventListener("click", () => openHowTo());
  $("#btn-stats").addEventListener("click", () => openStats());
  $("#btn-settings").addEventListener("click", () => openSettingsPage());
  $("#btn-install").addEventListener("click", async () => {
    if (!page.installEvent) return;
    page.installEvent.prompt();
    await page.installEvent.userChoice.catch(() => null);
    page.installEvent = null;
    $("#btn-install").hidden = true;
  });
  for (const kind of ["input", "change"]) $("#setup").addEventListener(kind, () => (page.formTouched = true));
  $("#hand").addEventListener("click", onHandClick);
  installDrag($("#hand"), {
    canPlay: (card) => {
      const obs = viewerObs();
      return !!obs && myTurn(obs) && groupLegal(obs.legal).plays.has(card);
    },
    play: (card) => actions.play(card),
    refuse: (card) => {
      const obs = viewerObs();
      if (obs) toast(whyNot(obs, card, game.hold), "warn");
    },
  });
  $("#hand").addEventListener("dblclick", (e) => {
    const btn = e.target.closest("button.card.legal");
    if (btn) actions.play(btn.dataset.card);
  });
  window.addEventListener("beforeinstallprompt", (e) => {
    e.preventDefault();
    page.installEvent = e;
    $("#btn-install").hidden = false;
  });
  window.matchMedia("(prefers-color-scheme: dark)").addEventListener?.("change", () => redraw());
  // the hand is fitted again whenever its width changes (the window, the side column, the screen)
  new ResizeObserver(() => fitHand($("#hand"))).observe($("#hand"));
  // the felt's inner height sizes the trick's cards (table.css, .trick)
  new ResizeObserver(([entry]) => {
    const felt = entry.target;
    const px = `${Math.round(entry.contentRect.height)}px`;
    if (felt.style.getPropertyValue("--felt-h") !== px) felt.style.setProperty("--felt-h", px);
  }).observe($("#felt"));
  // the deal log opened: its newest line in view (it is not scrolled while it is shut: notice.js)
  $(".log")?.addEventListener("toggle", (e) => {
    const list = $("#log-list");
    if (e.target.open && list) list.scrollTop = list.scrollHeight;
  });
}

async function boot() {
  // the modules that draw and show the screens call back up to the ones built on them
  installBoard(actions);
  installScreens({ startGame, createRoom, joinRoom, relocalize });
  loadSettings();
  // what the page needs from the server, asked for at once rather than in turn
  const configLoaded = offline.loadConfig();
  const metaLoaded = loadMeta();
  await applyLanguage();
  document.title = t("app.title");
  installSprites();
  drawFacesAhead();
  motion.install();
  translatePage();
  wireShell();
  installKeys({
    obs: viewerObs,
    ui,
    act: actions,
    handoverShown: () => ui.handover !== null,
    setupShown: () => ui.screen !== "table",
    result: () => !$("#result").hidden,
    holdTrick: () => game.hold === "trick",
    canUndo: () => game.canUndo,
    nextDeal: () => actions.nextDeal(),
    selectIndex,
    moveSelection,
    deselect: () => {
      ui.selected = null;
      render();
    },
    openHowTo,
  });
  installHintKeys();
  installGuide({ onFinish: () => showSetup() });
  registerWorker();
  setInterval(() => {
    tickCountdowns();
    showConnection();
  }, 1000);
  let saved = null;
  try {
    saved = JSON.parse(sessionStorage.getItem(SAVED_GAME) || "null");
  } catch {
    saved = null;
  }
  if (!(saved && saved.id && saved.token)) saved = null;
  // a game kept in this browser (unfinished) resumes there, unless the address is a room's
  await configLoaded;
  const linked = codeFromHash(location.hash);
  const kept = offline.available() && !linked ? offline.keptGame() : null;
  if (kept && (!saved || saved.id === kept.id)) useEngine("browser", kept);
  else {
    useEngine("server", saved);
    if (linked) page.net.room = { code: linked, token: roomTokens()[linked] || null };
  }
  page.meta = await metaLoaded;
  if (ui.connection === "offline" && page.net.ws) onStatus(page.net.status);
  if (isScoreRoute(location.hash)) showScorer();
  else if (isHistoryRoute(location.hash)) showHistory();
  else if (!page.net.game && !page.net.room) {
    if (ui.connection === "connecting") {
      // the form says where a game runs and who plays: it waits for the server's first answer
      replace($("#setup"), h("p", { class: "muted", dataset: { testid: "setup-connecting" } }, t("app.connecting")));
      show("setup");
      document.body.classList.remove("booting");
      await connectionSettled(3000);
    }
    showSetup();
  } else if (ui.screen === "loading") replace($("#setup"), h("p", { class: "muted" }, t("app.rejoining")));
  document.body.classList.remove("booting");
  window.twentynine = {
    game,
    ui,
    obs: () => viewerObs(),
    view: () => currentObs(),
    idle: () => !ui.busy && page.net.pending.size === 0,
    version: () => page.net.v,
    connection: () => ({ status: page.net.status, closes: [...page.net.closes] }),
    net: () => page.net,
    engine: () => page.engineWhere,
    offline,
    settings: () => settings(),
    setSettings: async (c) => {
      updateSettings(c);
      if ("lang" in c || "digits" in c) {
        await applyLanguage();
        relocalize();
      }
      redraw();
    },
    // the table drawn anew, every section, whatever it last drew (the tests compare the two)
    redraw,
    board: () => boardRecord(),
    sortHand,
    motion: () => motion.record(),
    sound: sound.player,
    stats: () => stats.summary(),
  };
}

boot();

// Keyboard: everything can be done without a pointer.
//   1-8 select a card, arrows move the selection (or change the bid),
//   Enter/Space play the selected card, B bid, P pass, S/H/D/C trumps,
//   V seventh card, A single hand, D double, R redouble or ask for trumps,
//   S set, K pair, N next trick, U undo, ? how to play (I hint and T bid chances: hint.js). Tab reaches every button.

import { groupLegal, myTurn } from "./model.js";

function isTyping(el) {
  return el && (el.matches("input, textarea, select") || el.isContentEditable);
}

function isActivatable(el) {
  return el && el !== document.body && el.matches("button, a[href], summary, [role=button], input, select, textarea");
}

export function installKeys(ctx) {
  document.addEventListener("keydown", (e) => {
    if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey) return;
    if (document.querySelector("dialog[open]")) return; // dialogs handle their own keys
    const target = document.activeElement;
    if (ctx.handoverShown()) {
      return; // the hand-over button has the focus; Enter/Space press it
    }
    if (ctx.setupShown()) return;
    const key = e.key;
    if (isTyping(target)) return; // the bid field handles Enter itself
    const obs = ctx.obs();
    const ui = ctx.ui;
    const act = ctx.act;
    const g = obs ? groupLegal(obs.legal) : groupLegal([]);
    const mine = myTurn(obs);
    const seat = obs?.seat;
    const done = () => {
      e.preventDefault();
      e.stopPropagation();
    };

    if (key === "Escape" && ui.selected) {
      done();
      ctx.deselect();
      return;
    }
    if (key === "?") {
      done();
      ctx.openHowTo();
      return;
    }
    if (/^[1-8]$/.test(key)) {
      done();
      ctx.selectIndex(Number(key) - 1);
      return;
    }
    if (key === "ArrowLeft" || key === "ArrowRight") {
      if (target && target.closest && target.closest(".choice-row.suits")) return;
      done();
      ctx.moveSelection(key === "ArrowRight" ? 1 : -1);
      return;
    }
    if ((key === "ArrowUp" || key === "ArrowDown" || key === "+" || key === "=" || key === "-") && mine && obs.phase === "auction" && ui.setBid) {
      done();
      ui.setBid(ui.bidValue + (key === "ArrowUp" || key === "+" || key === "=" ? 1 : -1));
      return;
    }
    if (key === "Enter" || key === " ") {
      if (isActivatable(target)) return; // the focused control does its own thing
      if (ctx.result()) {
        done();
        ctx.nextDeal();
        return;
      }
      if (ui.selected && mine && g.plays.has(ui.selected)) {
        done();
        act.play(ui.selected);
        return;
      }
      if (ctx.holdTrick()) {
        done();
        act.nextTrick();
      }
      return;
    }
    const k = key.length === 1 ? key.toLowerCase() : "";
    if (!k) return;
    if (k === "n" && ctx.holdTrick()) {
      done();
      act.nextTrick();
      return;
    }
    if (k === "u" && ctx.canUndo()) {
      done();
      act.undo();
      return;
    }
    if (!mine) return;
    const send = (action) => {
      done();
      act.send({ seat, ...action });
    };
    switch (obs.phase) {
      case "auction":
        if (k === "b" && g.bids.length) send({ bid: g.bids.length === 1 ? g.bids[0] : ui.bidValue ?? g.bids[0] });
        else if (k === "p" && g.pass) send({ pass: true });
        break;
      case "trump":
        if ("shdc".includes(k) && g.trumps.includes(k.toUpperCase())) send({ trump: k.toUpperCase() });
        else if (k === "v" && g.seventh) send({ seventh: true });
        break;
      case "single":
        if (k === "a") send({ single: true });
        else if (k === "p") send({ pass: true });
        break;
      case "double":
        if (k === "d") send({ double: true });
        else if (k === "p") send({ pass: true });
        break;
      case "redouble":
        if (k === "r") send({ redouble: true });
        else if (k === "p") send({ pass: true });
        break;
      case "set":
        if (k === "s") send({ set: true });
        else if (k === "p") send({ pass: true });
        break;
      case "pair":
        if (k === "k") send({ pair: true });
        else if (k === "p") send({ pass: true });
        break;
      case "play":
        if (k === "r" && g.reveal) send({ reveal: true });
        break;
      default:
        break;
    }
  });
}

// Tiny DOM helpers: build elements without innerHTML (no text is ever parsed as markup).
// A number given as a child is written in the language's digits.

import { num } from "./i18n.js";

export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

const SVG_NS = "http://www.w3.org/2000/svg";

export function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    el.setAttribute(k, String(v));
  }
  append(el, children);
  return el;
}

function setAttrs(el, attrs) {
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") el.className = Array.isArray(v) ? v.filter(Boolean).join(" ") : v;
    else if (k === "dataset") Object.assign(el.dataset, v);
    else if (k === "style" && typeof v === "object") Object.assign(el.style, v);
    else if (k.startsWith("on") && typeof v === "function") listen(el, k.slice(2), v);
    else if (v === true) el.setAttribute(k, "");
    else el.setAttribute(k, String(v));
  }
}

// The nodes a list of children stands for: nested lists flattened, nothing for
// null/undefined/false, a text for a number (the page's digits) or a string.
function nodesOf(children) {
  const nodes = [];
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    nodes.push(c instanceof Node ? c : document.createTextNode(typeof c === "number" ? num(c) : String(c)));
  }
  return nodes;
}

export function append(el, children) {
  el.append(...nodesOf(children));
  return el;
}

export function clear(el) {
  while (el.firstChild) el.removeChild(el.firstChild);
  return el;
}

export function replace(el, ...children) {
  clear(el);
  return append(el, children);
}

// An element's handlers given to h() (`onclick: fn`) are kept on the element
// and reached through one listener per kind of event, so that patch() can hand
// the new handlers to an element it keeps.
const HANDLERS = Symbol("handlers");

function dispatch(e) {
  const fn = this[HANDLERS]?.[e.type];
  if (fn) fn.call(this, e);
}

function listen(el, type, fn) {
  const own = el[HANDLERS] || (el[HANDLERS] = {});
  if (own[type] === undefined) el.addEventListener(type, dispatch);
  own[type] = fn;
}

// on(el, {type: fn, ...}): handlers given after h() built the element, kept as h()'s are.
export function on(el, handlers) {
  for (const [type, fn] of Object.entries(handlers)) listen(el, type, fn);
  return el;
}

// patch(el, ...children): as replace(), but the elements already on the page
// that the new children match stay (their attributes, text and handlers made
// the new ones'): no element is rebuilt for nothing, a focused control keeps
// the focus, a running animation goes on, and the browser restyles only what
// changed. A child matches an old one of the same tag and the same identity
// (its id, else its data-key, else its data-card); children without one
// match in order. Says whether anything on the page changed.
export function patch(el, ...children) {
  return patchChildren(el, nodesOf(children));
}

// What the page puts on an element while it runs, not what it draws (a card in
// flight, a card being dragged): a class or an inline style property named
// here stays on an element patch() keeps, until its owner takes it off.
const LIVE_CLASSES = new Set();
const LIVE_STYLES = new Set();

// `fn` once the page is idle (at the latest after `timeout` ms); where the browser
// has no idle callback, a tenth of that later.
export function whenIdle(fn, timeout) {
  if (window.requestIdleCallback) requestIdleCallback(fn, { timeout });
  else setTimeout(fn, timeout / 10);
}

export function liveMarks({ classes = [], styles = [] }) {
  for (const c of classes) LIVE_CLASSES.add(c);
  for (const p of styles) LIVE_STYLES.add(p);
}

// The classes of an element set to `classes` (a list, falsy entries left out, in
// the order h() writes them), its live marks kept: says whether it changed.
export function setClasses(el, classes) {
  const want = classes.filter(Boolean);
  for (const c of LIVE_CLASSES) if (el.classList.contains(c) && !want.includes(c)) want.push(c);
  const value = want.join(" ");
  if (el.getAttribute("class") === value) return false;
  el.setAttribute("class", value);
  return true;
}

// the new drawing `n` takes on the live marks the element `old` has now
function carryLive(old, n) {
  if (old.hasAttribute("class")) for (const c of LIVE_CLASSES) if (old.classList.contains(c)) n.classList.add(c);
  if (old.hasAttribute("style"))
    for (const p of LIVE_STYLES) {
      const v = old.style.getPropertyValue(p);
      if (v) n.style.setProperty(p, v);
    }
}

function identity(node) {
  if (node.nodeType !== 1) return null;
  if (node.id) return `#${node.id}`;
  const key = node.getAttribute("data-key");
  if (key !== null) return `k:${key}`;
  const card = node.getAttribute("data-card");
  return card === null ? null : `c:${card}`;
}

function sameKind(a, b) {
  return a.nodeType === b.nodeType && a.nodeName === b.nodeName && a.namespaceURI === b.namespaceURI;
}

function patchChildren(parent, fresh) {
  let changed = false;
  const ids = fresh.map(identity);
  const wanted = new Set(ids.filter((id) => id !== null));
  // the old children by identity (the first of each that a new child wants)
  const was = new Map(); // old child -> its identity
  const keyed = new Map();
  for (let old = parent.firstChild; old; old = old.nextSibling) {
    const id = identity(old);
    was.set(old, id);
    if (id !== null && wanted.has(id) && !keyed.has(id)) keyed.set(id, old);
  }
  let cursor = parent.firstChild;
  for (let i = 0; i < fresh.length; i++) {
    const n = fresh[i];
    const id = ids[i];
    // an old child that none of the new ones wants is taken away first (nothing moves past it)
    while (cursor && was.get(cursor) !== null && keyed.get(was.get(cursor)) !== cursor) {
      const gone = cursor;
      cursor = cursor.nextSibling;
      gone.remove();
      changed = true;
    }
    let old = null;
    if (id !== null) old = keyed.get(id) || null;
    else if (cursor && was.get(cursor) === null) old = cursor;
    if (old && sameKind(old, n)) {
      if (id !== null) keyed.delete(id);
      if (old !== cursor) {
        parent.insertBefore(old, cursor);
        changed = true;
      } else cursor = cursor.nextSibling;
      if (patchNode(old, n)) changed = true;
    } else {
      parent.insertBefore(n, cursor);
      changed = true;
    }
  }
  while (cursor) {
    const gone = cursor;
    cursor = cursor.nextSibling;
    gone.remove();
    changed = true;
  }
  return changed;
}

// One element on the page made what `n` (just built) is, as patch() makes a
// child that stays: the same element kept when it is of the same kind, else
// replaced by `n`. Says whether anything changed.
export function patchElement(old, n) {
  if (sameKind(old, n)) return patchNode(old, n);
  old.replaceWith(n);
  return true;
}

// Make the element `old` (on the page) what `n` (just built) is; says whether it changed.
function patchNode(old, n) {
  if (old.nodeType !== 1) {
    // new words are a new text, not the old one moved (the browser counts no layout shift for it)
    if (old.nodeValue === n.nodeValue) return false;
    old.replaceWith(n);
    return true;
  }
  if (old.namespaceURI === SVG_NS) {
    // a picture (a card's face): the same, or drawn anew whole
    if (old.isEqualNode(n)) return false;
    old.replaceWith(n);
    return true;
  }
  carryLive(old, n);
  let changed = false;
  // (by name: walking .attributes would make an Attr object of each)
  for (const name of old.getAttributeNames()) {
    if (!n.hasAttribute(name)) {
      old.removeAttribute(name);
      changed = true;
    }
  }
  for (const name of n.getAttributeNames()) {
    const value = n.getAttribute(name);
    if (old.getAttribute(name) !== value) {
      old.setAttribute(name, value);
      changed = true;
    }
  }
  const mine = old[HANDLERS];
  const theirs = n[HANDLERS];
  if (mine || theirs) {
    for (const type of Object.keys(mine || {})) if (!theirs || theirs[type] === undefined) mine[type] = null;
    for (const [type, fn] of Object.entries(theirs || {})) listen(old, type, fn);
  }
  if ((old.nodeName === "INPUT" || old.nodeName === "SELECT" || old.nodeName === "TEXTAREA") && old !== document.activeElement) {
    if (old.value !== n.value) old.value = n.value;
    if (old.checked !== n.checked) old.checked = n.checked;
  }
  if (patchChildren(old, Array.from(n.childNodes))) changed = true;
  return changed;
}

export const $ = (sel, root = document) => root.querySelector(sel);
export const $$ = (sel, root = document) => Array.from(root.querySelectorAll(sel));

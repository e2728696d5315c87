// Drawing a screen again without undoing what the player is doing (docs/client.md,
// "Redrawing").
//
// Every frame of a table, and every answer a screen waits for, draws the screen again from
// the state. Replacing the page's HTML (innerHTML) threw away every element with what the
// browser keeps in it: the focus, a selection, a field's caret, an open list, an inner
// scroll, a hover's tooltip, a running animation (a spinner started over at each frame, a
// chat bubble popped again), and a screen reader heard a live region anew. Here the fresh
// HTML is parsed aside and the page is changed only where it differs (morphdom, which
// keeps an element that is drawn again as the same element), so all of that stays.
//
// What the markup alone does not say is settled here, once for every screen:
// - a form control shows what the fresh copy holds once ``prepare`` filled it (app.js puts
//   back what the player chose), and is left alone where that is what it already shows, so
//   a field being typed in keeps its caret and a list being chosen from stays open;
// - a section the player opened (``details`` with a ``data-open-key``) stays open while it
//   is drawn with the same key;
// - an animation class (``anim-*``, which app.js adds to what is new) stays while its
//   animation runs, so a frame in the middle of a discard's drop does not cut it short.

import morphdom from "./vendor/morphdom.js";

/** Whether ``el`` still runs an animation, its own or one of its descendants'. */
function animating(el) {
  return typeof el.getAnimations === "function"
    && el.getAnimations({ subtree: true }).some((a) => a.playState === "running");
}

/** A list's choices, to tell whether a fresh copy offers the same ones. */
function choices(select) {
  return [...select.options].map((o) => `${o.value}\u0000${o.text}`).join("\u0001");
}

/** The attributes of ``to`` on ``from``, and no others. */
function copyAttributes(from, to) {
  for (const { name } of [...from.attributes]) if (!to.hasAttribute(name)) from.removeAttribute(name);
  for (const { name, value } of to.attributes) if (from.getAttribute(name) !== value) from.setAttribute(name, value);
}

const SVG = "http://www.w3.org/2000/svg";

/** The elements of the page being drawn whose ``anim-*`` animation still runs, found
 * before the redraw changes anything (asking during it would make the browser work out
 * the half-changed page's style, at every element). */
let animated = new Set();

function beforeUpdate(from, to) {
  // a tile's face drawn again as it was (most of them, at every frame): nothing to walk
  // through (it holds no control, and the browser compares it faster than morphdom)
  if ((from.namespaceURI === SVG || from.classList.contains("tile")) && from.isEqualNode(to)) return false;
  if (from.tagName === "DETAILS" && from.open && from.dataset.openKey && to.dataset.openKey === from.dataset.openKey) to.open = true;
  if (animated.has(from)) for (const cls of from.classList) if (cls.startsWith("anim-")) to.classList.add(cls);
  if (from.tagName === "SELECT" && to.tagName === "SELECT") {
    // morphdom would choose the option marked ``selected`` in the markup, not the one
    // ``prepare`` chose; and a list whose options are all redrawn closes its picker
    const value = to.value; // before its options move over
    copyAttributes(from, to);
    if (choices(from) !== choices(to)) from.replaceChildren(...to.childNodes);
    if (from.value !== value) from.value = value;
    return false;
  }
  return true;
}

/** What makes an element drawn again the same one: its ``data-key`` (a chat bubble's,
 * since a new phrase is a new bubble that pops) or its id. Others are matched in order. */
function nodeKey(node) {
  return (node.getAttribute && (node.getAttribute("data-key") || node.getAttribute("id"))) || undefined;
}

/** Draw ``html`` as the content of ``root``, changing only what differs. ``prepare``
 * gets the fresh content first, detached (to fill its forms). */
export function draw(root, html, prepare = null) {
  animated = new Set([...root.querySelectorAll("[class*='anim-']")].filter(animating));
  const fresh = root.cloneNode(false);
  fresh.innerHTML = html;
  if (prepare) prepare(fresh);
  // the benchmark's peer (bench/client_redraw_bench.py): the page's HTML replaced, as the
  // client drew until 7 December 2026
  if (window.__wmDrawReplace) root.replaceChildren(...fresh.childNodes);
  else morphdom(root, fresh, { childrenOnly: true, getNodeKey: nodeKey, onBeforeElUpdated: beforeUpdate });
  // a test may compare every redraw with the same HTML drawn from scratch (test_redraw.py)
  if (typeof window.__wmDrawCheck === "function") window.__wmDrawCheck(root, html);
}

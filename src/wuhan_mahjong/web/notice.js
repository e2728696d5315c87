// The notice to every player (系统公告, docs/protocol.md `announcement`): an admin gives it
// on the staff pages (or an operator with `wuhan-mahjong admin announce`); it comes with the
// `welcome` frame and, when it is given, taken down or expires, as an `announcement` frame
// on every connection.  It shows as a slim banner under the menu bar on every screen (the
// `#notice` element of index.html, below the connection banner).  Its × hides that notice
// on this device: the dismissed id is kept in localStorage ("wm.notice.dismissed"), so a
// reload does not bring it back, and a new notice (another id) shows again.  The text is
// the admin's, up to 200 characters: it is set as text, never as HTML.
//
// At a table on a phone the banner is one line (its text cut with an ellipsis; a tap on it
// shows the whole of it), so that the own hand and its buttons stay on the first screen;
// `body.has-notice` tells style.css that it is there (the table's height leaves it room).

import { t } from "./i18n.js";

const KEY = "wm.notice.dismissed";
const box = document.getElementById("notice");
let shown = null; // {id, text, expires_at} or null
let expiry = null; // the timer that takes the notice down at its expires_at (the server's frame does too)
let open = false; // the whole text at the table (a tap on the cut line)
let dismissedHere = null; // the id dismissed on this page (without localStorage, this visit only)

function isDismissed(id) {
  let kept = null;
  try { kept = localStorage.getItem(KEY); } catch { /* none */ }
  return String(id) === kept || String(id) === dismissedHere;
}

/** The notice the server sent (the welcome's or an `announcement` frame's `announcement`),
 * or null: none any more. */
export function setAnnouncement(a) {
  const fresh = a && typeof a.text === "string" ? { id: a.id, text: a.text, expires_at: a.expires_at || null } : null;
  if (!fresh || !shown || fresh.id !== shown.id) open = false;
  shown = fresh;
  clearTimeout(expiry);
  if (shown && shown.expires_at) {
    const left = Date.parse(shown.expires_at) - Date.now();
    if (Number.isFinite(left) && left < 2 ** 31 - 1) {
      const id = shown.id;
      expiry = setTimeout(() => { if (shown && shown.id === id) setAnnouncement(null); }, Math.max(0, left) + 1000);
    }
  }
  renderNotice();
}

/** The notice on screen now (for tests and debugging). */
export function currentAnnouncement() {
  return shown;
}

let screenNow = "";

/** Draw the banner (after every render: the language or the screen may have changed). */
export function renderNotice(screen = screenNow) {
  screenNow = screen;
  if (!box) return;
  const visible = !!shown && !isDismissed(shown.id);
  box.hidden = !visible;
  document.body.classList.toggle("has-notice", visible);
  if (!visible) {
    if (box.firstChild) box.replaceChildren();
    delete box.dataset.noticeId;
    return;
  }
  box.setAttribute("role", "status");
  box.setAttribute("aria-label", t("notice.label"));
  box.dataset.noticeId = String(shown.id);
  box.classList.toggle("open", open);
  box.classList.toggle("at-table", ["table", "fixture", "watch"].includes(screenNow)); // one line there
  let text = box.querySelector(".notice-text");
  let close = box.querySelector(".notice-close");
  if (!text || !close) {
    const tag = document.createElement("span");
    tag.className = "notice-tag";
    text = document.createElement("span");
    text.className = "notice-text";
    text.dataset.notice = "open";
    close = document.createElement("button");
    close.type = "button";
    close.className = "notice-close";
    close.dataset.notice = "close";
    close.textContent = "×";
    box.replaceChildren(tag, text, close);
  }
  box.querySelector(".notice-tag").textContent = t("notice.tag");
  if (text.textContent !== shown.text) text.textContent = shown.text; // as text: never HTML
  text.title = shown.text;
  text.setAttribute("aria-expanded", open ? "true" : "false");
  close.setAttribute("aria-label", t("notice.close"));
  close.title = t("notice.close");
}

document.addEventListener("click", (ev) => {
  const el = ev.target.closest && ev.target.closest("#notice [data-notice]");
  if (!el || !shown) return;
  if (el.dataset.notice === "close") {
    dismissedHere = String(shown.id);
    try { localStorage.setItem(KEY, dismissedHere); } catch { /* this visit only */ }
    open = false;
    renderNotice();
  } else if (el.dataset.notice === "open") {
    open = !open;
    renderNotice();
  }
});

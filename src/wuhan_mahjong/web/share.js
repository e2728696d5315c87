// Sharing: a hand's player publishes it (private by default) and gets its public links;
// the calculator's address carries its record (compact, URL-safe base64 of the JSON).
//
// Public replay: #/replay?public={match}/{n} opens the replay viewer on the published hand
// with no account (its frames come from GET /api/public/hands/{match}/{n}/frames).
// The server decides who may publish (docs/protocol.md "Shareable replays").

import { errorText, t } from "./i18n.js";
import { esc } from "./table.js";

// ------------------------------------------------------------------ URL-safe base64 JSON
/** JSON → UTF-8 → base64url without padding (fits in a URL's hash as is). */
export function encodeState(obj) {
  const bytes = new TextEncoder().encode(JSON.stringify(obj));
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The inverse of encodeState; null when the text is not such an encoding. */
export function decodeState(text) {
  try {
    const b64 = String(text).replace(/-/g, "+").replace(/_/g, "/");
    const bin = atob(b64 + "===".slice((b64.length + 3) % 4));
    const bytes = Uint8Array.from(bin, (c) => c.charCodeAt(0));
    return JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    return null;
  }
}

// ------------------------------------------------------------------ publishing a replay
const STATE = new Map(); // "match/n" -> {published, error, loading}
let deps = { api: null, rerender: () => {} };

/** app.js gives its API helper (method, path, body) and a redraw. */
export function initShare({ api, rerender }) {
  deps = { api, rerender };
}

function parts(id) {
  const [match, n] = String(id).split("/");
  return { match, n };
}

export function publicRecordPath(id) {
  const { match, n } = parts(id);
  return `/api/public/hands/${encodeURIComponent(match)}/${encodeURIComponent(n)}/record.jsonl`;
}

export function publicReplayURL(id) {
  return `${location.origin}${location.pathname}#/replay?public=${encodeURIComponent(id)}`;
}

async function load(id, method) {
  const { match, n } = parts(id);
  const st = STATE.get(id) || {};
  STATE.set(id, { ...st, loading: true, error: "" });
  try {
    const r = await deps.api(method, `/api/hands/${encodeURIComponent(match)}/${encodeURIComponent(n)}/publish`);
    STATE.set(id, { published: !!r.published, loading: false, error: "" });
  } catch (e) {
    STATE.set(id, { ...st, loading: false, error: e && e.code ? errorText(e) : String(e) });
  }
  deps.rerender();
}

/** The publish switch and public links of a hand the player sat at (replay viewer, by id). */
export function shareBarHTML(id) {
  if (!id || !String(id).includes("/") || !deps.api) return "";
  let st = STATE.get(id);
  if (!st) { st = { loading: true }; STATE.set(id, st); load(id, "GET"); }
  if (st.published === undefined) {
    return st.error ? `<div class="share-bar" data-share="${esc(id)}"><p class="error">${esc(t("share.failed", { msg: st.error }))}</p></div>` : "";
  }
  const err = st.error ? `<p class="error" role="alert">${esc(t("share.failed", { msg: st.error }))}</p>` : "";
  const btn = `<button type="button" data-publish="${esc(id)}" data-on="${st.published ? "0" : "1"}" ${st.loading ? "disabled" : ""}>${t(st.published ? "share.unpublish" : "share.publish")}</button>`;
  const links = st.published
    ? `<p>${t("share.public")}</p><p><a class="public-link" href="${esc(publicReplayURL(id))}">${t("share.link")}</a> · ` +
      `<a class="record-download" href="${esc(publicRecordPath(id))}" download>${t("share.download")}</a></p>`
    : `<p>${t("share.private")}</p>`;
  return `<div class="share-bar" data-share="${esc(id)}" data-published="${st.published ? "1" : "0"}">${links}${btn}${err}</div>`;
}

document.addEventListener("click", (ev) => {
  const el = ev.target.closest && ev.target.closest("[data-publish]");
  if (!el) return;
  ev.preventDefault();
  load(el.dataset.publish, el.dataset.on === "1" ? "POST" : "DELETE");
});

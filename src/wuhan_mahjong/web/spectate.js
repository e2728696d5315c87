// Spectating (观战): the lobby's list of tables one may watch, and the read-only table of a
// spectator at #/watch?id=TABLE (docs/protocol.md "Spectating").
//
// The server sends the engine's spectator view (no concealed tile) a few moves late
// (`watching.delay`); this page only draws what it gets.  The players see how many watch
// (`watchers` in their `table` frame, then `watchers` frames): watchersHTML.  The lobby's
// card also says how many play now over the platform (GET /api/now: 在线 N 人 · M 桌对局中).

import { errorText, failureText, t } from "./i18n.js";
import { esc, renderSettlement, renderTable } from "./table.js";

let deps = { S: null, api: null, send: () => false, rerender: () => {} };

/** app.js gives its state, its API helper, its socket sender and a redraw. */
export function initSpectate({ S, api, send, rerender }) {
  deps = { S, api, send, rerender };
  S.watch = { id: null, table: null, frame: null, error: "", ended: false, sent: false };
  S.live = { tables: null, delay: null, error: "", loading: false };
  S.watchers = null; // {table_id, count}: the players' own table
}

// ------------------------------------------------------------------ the lobby's list
/** Ask the server which tables may be watched (GET /api/tables/live). */
export async function loadLive() {
  const L = deps.S.live;
  if (L.loading) return;
  L.loading = true;
  try {
    const [data, now] = await Promise.all([deps.api("GET", "/api/tables/live"),
      deps.api("GET", "/api/now").catch(() => null)]); // how many play now: a nicety
    L.tables = data.tables || [];
    L.delay = data.delay;
    L.now = now;
    L.error = "";
  } catch (e) {
    L.error = failureText(e);
  }
  L.loading = false;
  deps.rerender();
}

function playersLine(players) {
  return players.map((p) => esc(p.name) + (p.bot ? ` · ${t("room.bot")}` : "")).join("、");
}

/** The lobby's card: every watchable table, a link to watch it. */
export function watchListHTML() {
  const L = deps.S.live;
  let body;
  // a refresh that failed says so above the list it could not renew (not shown as fresh)
  const failed = L.error ? `<p class="error" role="alert">${esc(L.error)}</p>` : "";
  if (L.tables === null) body = failed || `<p>${t("app.loading")}</p>`;
  else if (!L.tables.length) body = `${failed}<p class="watch-none">${t("watch.none")}</p>`;
  else {
    body = `${failed}<ul class="watch-list">${L.tables.map((tb) => `<li data-table="${esc(tb.table_id)}">` +
      `<a href="#/watch?id=${encodeURIComponent(tb.table_id)}" data-watch="${esc(tb.table_id)}">${t("watch.watch")}</a> ` +
      `${esc(t(`opt.profile.${tb.profile}`))} · ${t("table.hand_no", { n: tb.hand_no + 1 })}/${tb.hands} · ` +
      `${playersLine(tb.players)}${tb.watchers ? ` · ${t("watch.count", { n: tb.watchers })}` : ""}</li>`).join("")}</ul>`;
  }
  const note = L.delay ? `<p class="watch-note">${t("watch.delay", { n: L.delay })}</p>` : "";
  const now = L.now ? `<p class="now-playing" data-online="${L.now.online}" data-tables="${L.now.tables}">${t("lobby.now", { online: L.now.online, tables: L.now.tables })}</p>` : "";
  return `<div class="card watch-card"><h3>${t("watch.title")}</h3>${now}${body}${note}` +
    `<button type="button" data-do="watch-refresh">${t("watch.refresh")}</button></div>`;
}

// ------------------------------------------------------------------ watching
/** Start watching `id` (from the route); sent again after a reconnection. */
export function openWatch(id) {
  const W = deps.S.watch;
  if (id && id !== W.id) Object.assign(W, { id, table: null, frame: null, error: "", ended: false });
  W.sent = !!W.id && !W.ended && deps.send({ type: "watch", table: W.id, ref: "watch" });
}

/** Leaving the watch page: stop the frames. */
export function closeWatch() {
  const W = deps.S.watch;
  if (W.id && !W.ended) deps.send({ type: "unwatch", ref: "unwatch" });
  Object.assign(W, { id: null, table: null, frame: null, error: "", ended: false, sent: false });
}

/** Handle a spectating frame; true when it was one.  (An error answering `watch` too.) */
export function onWatchMessage(msg) {
  const S = deps.S;
  const W = S.watch;
  switch (msg.type) {
    case "watching":
      if (msg.table_id !== W.id) return true;
      W.table = msg; W.error = "";
      break;
    case "watch_state":
      if (msg.table_id !== W.id) return true;
      W.frame = msg;
      break;
    case "unwatched":
      if (msg.table_id !== W.id || msg.reason !== "ended") return true;
      W.ended = true;
      break;
    case "watchers":
      S.watchers = { table_id: msg.table_id, count: msg.count };
      break;
    case "error":
      if (msg.ref === "unwatch") return true;
      if (msg.ref !== "watch") return false;
      W.error = errorText(msg);
      break;
    default:
      return false;
  }
  if (S.screen === "watch" || msg.type === "watchers") deps.rerender();
  return true;
}

/** The players' badge: how many watch their table now. */
export function watchersHTML(table) {
  if (!table) return "";
  const w = deps.S.watchers;
  const n = w && w.table_id === table.table_id ? w.count : (table.watchers || 0);
  // nobody watching: nothing said (a "0 人观战" beside every table was noise)
  return `<span class="watchers" data-watchers="${n}"${n ? "" : " hidden"} title="${t("watch.players_note")}">${t("watch.count", { n })}</span>`;
}

/** The spectator's page: the table as the server shows it, read-only. */
export function watchHTML() {
  const W = deps.S.watch;
  const back = `<button type="button" data-nav="lobby">${t("watch.back")}</button>`;
  if (W.error) return `<div class="screen"><div class="card"><p class="error" role="alert">${esc(W.error)}</p>${back}</div></div>`;
  const info = W.table;
  const f = W.frame;
  const names = [null, null, null, null];
  for (const p of (f ? f.players : info ? info.players : [])) names[p.seat] = p.name + (p.bot ? ` · ${t("room.bot")}` : "");
  const head = `<div class="watch-bar" data-watching="${esc(W.id || "")}"><b>${t("watch.watching")}</b>` +
    (info ? ` · ${esc(t(`opt.profile.${info.profile}`))} · ${t("watch.delay", { n: info.delay })} · ${t("watch.count", { n: info.watchers })}` : "") +
    (f ? ` · ${t("table.hand_no", { n: f.hand_no + 1 })}` : "") +
    (W.ended ? ` · <b data-ended="1">${t("watch.ended")}</b>` : "") + ` ${back}</div>`;
  if (!f) return `<div class="watch">${head}<p class="watch-wait">${info ? t("watch.waiting", { n: info.delay }) : t("app.loading")}</p></div>`;
  const c = { names, selected: null, deadline: null, hint: null, pending: true, chooser: null, replayHands: null, caption: "", players: f.players, bubbles: {}, muted: new Set() };
  const totals = f.totals.map((n, seat) => `<span data-total="${seat}">${esc(names[seat] || t(`seat.${seat}`))} ${n > 0 ? "+" : ""}${n}</span>`).join(" · ");
  const result = f.view.result ? `<div class="watch-result">${renderSettlement(f.view, { names, continueLabel: "" })}</div>` : "";
  return `<div class="watch">${head}<p class="watch-totals">${totals}</p>${renderTable(f.view, c)}${result}</div>`;
}

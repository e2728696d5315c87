// The browser client: screens, the WebSocket connection (docs/protocol.md), keyboard.
//
// Screens (hash routes): #/login, #/lobby, #/room, #/table, #/summary, #/replay, #/profile,
// and #/fixture?src=URL&frame=NAME (renders stored seat views without a server, for tests).
// The table is drawn only from the "state" frames' seat view (table.js).

import { getLang, setLang, t, tileName } from "./i18n.js";
import { framesFromRecord, parseRecord } from "./replay.js";
import {
  actionLabel, actionsForTile, chooserList, esc, groupActions, handTiles, renderSettlement, renderTable,
} from "./table.js";

const $ = (sel, root = document) => root.querySelector(sel);
const app = $("#app");
const overlay = $("#overlay");
const banner = $("#banner");

const S = {
  token: null, account: null, ws: null, wsOpen: false, reconnectDelay: 500, wantSocket: false,
  screen: "login", table: null, state: null, view: null, players: null, totals: null,
  selected: null, chooser: null, chooserTile: null, pending: false, deadline: null, timerKind: null,
  hint: null, hintFor: null, hintEndpoint: "/api/hint", queued: null, room: null, handEnds: [], matchEnd: null,
  settlementOpen: false, settledHand: null, lastSettlement: null, replay: null, fixture: null,
  error: "", atTable: false,
};
window.__wm = S; // for tests and debugging

try { S.token = localStorage.getItem("wm.token"); } catch { /* ignore */ }

// ============================================================ HTTP helpers
async function api(method, path, body) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (S.token) headers.Authorization = `Bearer ${S.token}`;
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const type = res.headers.get("content-type") || "";
  const data = type.includes("json") ? await res.json() : await res.text();
  if (!res.ok) {
    const e = data && typeof data === "object" ? data.error || data : null;
    const msg = (e && (e.message || e.detail || e.code)) || `${res.status}`;
    const err = new Error(typeof msg === "string" ? msg : JSON.stringify(msg));
    err.status = res.status;
    throw err;
  }
  return data;
}

function saveToken(token) {
  S.token = token;
  try { if (token) localStorage.setItem("wm.token", token); else localStorage.removeItem("wm.token"); } catch { /* ignore */ }
}

// ============================================================ WebSocket
function wsURL() {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  return `${proto}//${location.host}/ws`;
}

function connect() {
  if (!S.token) return;
  S.wantSocket = true;
  if (S.ws && (S.ws.readyState === WebSocket.OPEN || S.ws.readyState === WebSocket.CONNECTING)) return;
  const ws = new WebSocket(wsURL());
  S.ws = ws;
  ws.onopen = () => {
    ws.send(JSON.stringify({ type: "hello", token: S.token }));
  };
  ws.onmessage = (ev) => {
    let msg;
    try { msg = JSON.parse(ev.data); } catch { return; }
    onMessage(msg);
  };
  ws.onclose = () => {
    S.wsOpen = false;
    if (S.ws !== ws) return;
    S.ws = null;
    if (!S.wantSocket) return;
    showBanner(t("app.offline"));
    setTimeout(connect, S.reconnectDelay);
    S.reconnectDelay = Math.min(S.reconnectDelay * 2, 8000);
  };
  ws.onerror = () => { /* onclose follows */ };
}

function send(msg) {
  if (S.ws && S.ws.readyState === WebSocket.OPEN) {
    S.ws.send(JSON.stringify(msg));
    return true;
  }
  return false;
}

function showBanner(text) {
  banner.textContent = text;
  banner.hidden = !text;
}

function onMessage(msg) {
  switch (msg.type) {
    case "welcome":
      S.wsOpen = true; S.reconnectDelay = 500; showBanner("");
      S.account = msg.account;
      S.atTable = msg.at_table;
      if (msg.at_table) send({ type: "snapshot" });
      else if (S.screen === "table" || S.screen === "login") go("lobby");
      else render();
      break;
    case "error":
      if (msg.code === "auth_failed" || msg.code === "not_authenticated") {
        S.wantSocket = false; saveToken(null); S.account = null;
        if (S.ws) S.ws.close();
        go("login");
        return;
      }
      S.pending = false;
      S.error = msg.message || msg.code;
      render();
      break;
    case "queued":
      S.queued = msg; render();
      break;
    case "room":
      S.room = msg; S.queued = null; go("room");
      break;
    case "left":
      S.room = null; S.queued = null;
      if (msg.where === "table") { S.table = null; S.state = null; S.view = null; }
      if (S.screen !== "summary") go("lobby");
      break;
    case "table":
      S.table = msg; S.players = msg.players; S.queued = null; S.room = null; S.matchEnd = null;
      if (!S.handEndsFor || S.handEndsFor !== msg.match_id) { S.handEnds = []; S.handEndsFor = msg.match_id; }
      go("table");
      break;
    case "state":
      onState(msg);
      break;
    case "hand_end":
      S.handEnds = S.handEnds.filter((h) => h.hand_no !== msg.hand_no).concat([msg]);
      S.totals = msg.totals;
      break;
    case "match_end":
      S.matchEnd = msg;
      if (msg.account) S.account = msg.account;
      S.deadline = null;
      // the settlement of the last hand stays on top; its button leads to the summary
      if (!S.settlementOpen) go("summary"); else renderOverlay();
      break;
    case "notice":
      if (msg.code === "replaced") { S.wantSocket = false; showBanner(msg.message); }
      break;
    default:
      break;
  }
}

function onState(msg) {
  const prev = S.view;
  S.state = msg; S.view = msg.view; S.players = msg.players; S.totals = msg.totals;
  S.deadline = msg.timer ? Date.now() + msg.timer.seconds * 1000 : null;
  S.timerKind = msg.timer ? msg.timer.kind : null;
  S.pending = false; S.error = "";
  const handChanged = !prev || prev.hand_no !== msg.view.hand_no || prev.phase !== msg.view.phase ||
    prev.hand !== msg.view.hand || (prev.legal_actions || []).length !== (msg.view.legal_actions || []).length;
  if (handChanged) { S.selected = null; S.chooser = null; S.chooserTile = null; }
  if (msg.view.hint !== undefined) S.hint = msg.view.hint;
  else if (msg.hint !== undefined) S.hint = msg.hint;
  if (msg.view.phase === "ended" && msg.view.result) {
    if (S.settledHand !== `${msg.match_id}/${msg.hand_no}`) {
      S.settledHand = `${msg.match_id}/${msg.hand_no}`;
      S.lastSettlement = msg.view;
      S.settlementOpen = true;
    }
  } else if (prev && prev.hand_no !== msg.view.hand_no) {
    S.settlementOpen = false; // a new hand began: the table is live again
  }
  if (S.screen !== "table") go("table");
  else render();
  maybeFetchHint();
}

// Help for the own hand: asked from the server (docs/protocol.md); shown only when present.
let hintSeq = 0;
async function maybeFetchHint() {
  const v = S.view;
  if (!v || v.viewer === null || !v.hand || v.phase === "ended" || !S.hintEndpoint) return;
  const key = `${v.hand_no}/${v.hand}/${v.wall}`;
  if (S.hintFor === key) return;
  S.hintFor = key;
  const seq = ++hintSeq;
  try {
    const h = await api("GET", `${S.hintEndpoint}?match_id=${encodeURIComponent(S.state ? S.state.match_id : "")}`);
    if (seq === hintSeq) { S.hint = h; render(); }
  } catch { if (seq === hintSeq) { S.hint = null; render(); } } // e.g. between hands: no help now
}

// ============================================================ actions
function sendAction(a) {
  if (S.fixture) { S.fixture.sent.push(a); window.__lastAction = a; S.chooser = null; render(); return; }
  if (S.pending) return;
  // the view's decision id: a late click is refused (stale_decision), never applied to the next decision
  const ok = send({ type: "action", action: a, decision: S.view ? S.view.decision : undefined, hand_no: S.view ? S.view.hand_no : undefined });
  if (ok) { S.pending = true; S.chooser = null; S.selected = null; render(); }
}

function openGroup(key) {
  const v = S.view;
  if (!v) return;
  const g = groupActions(v.legal_actions)[key] || [];
  if (!g.length) return;
  if (g.length === 1) { sendAction(g[0]); return; }
  S.chooser = S.chooser === key ? null : key;
  render();
}

function playTile(idx) {
  const v = S.view;
  const { all } = handTiles(v);
  const tile = all[idx];
  if (!tile) return;
  const acts = actionsForTile(v, tile);
  if (!acts.length) { S.selected = idx; render(); return; }
  if (acts.length === 1) { sendAction(acts[0]); return; }
  S.chooser = "tile"; S.chooserTile = tile; render();
}

function clickTile(idx) {
  if (S.selected === idx) playTile(idx);
  else { S.selected = idx; S.chooser = null; render(); }
}

// ============================================================ rendering
function names() {
  if (!S.players) return null;
  const out = [null, null, null, null];
  for (const p of S.players) out[p.seat] = p.name + (p.bot ? ` · ${t("room.bot")}` : "") + (p.escaped ? ` · ${t("profile.escaped")}` : "") + (p.auto ? ` (${t("table.auto_on")})` : "") + (p.connected === false && !p.bot ? ` (${t("table.offline")})` : "");
  return out;
}

function ctx() {
  return {
    names: names(), selected: S.selected, deadline: S.deadline, hint: S.hint, pending: S.pending,
    chooser: S.chooser, chooserTile: S.chooserTile, replayHands: null, caption: "",
  };
}

function renderNav() {
  const nav = $("#nav");
  const items = S.account ? [["lobby", "nav.lobby"], ["profile", "nav.profile"], ["replay", "nav.replay"]] : [["replay", "nav.replay"]];
  nav.innerHTML = items.map(([k, key]) => `<button data-nav="${k}" ${S.screen === k ? "disabled" : ""}>${t(key)}</button>`).join("");
  $("#lang").textContent = t("app.lang");
  $("#title").textContent = t("app.title");
  $("#subtitle").textContent = ` · ${t("app.subtitle")}`;
  document.title = `${t("app.title")} · ${t("app.subtitle")}`;
}

function render() {
  renderNav();
  const fn = SCREENS[S.screen] || SCREENS.login;
  // A re-render (e.g. the profile's history arriving) must not wipe what the player is typing.
  const typed = [...app.querySelectorAll("form[id] input[name]")]
    .filter((el) => el.value).map((el) => [`#${el.form.getAttribute("id")} input[name="${el.name}"]`, el.value]);
  const focused = document.activeElement && app.contains(document.activeElement) && document.activeElement.id;
  app.innerHTML = fn();
  for (const [sel, value] of typed) {
    const el = app.querySelector(sel);
    if (el && !el.value) el.value = value;
  }
  if (focused) { const el = document.getElementById(focused); if (el) el.focus(); }
  app.dataset.screen = S.screen;
  renderOverlay();
  tick();
}

function renderOverlay() {
  let html = "";
  if (S.screen === "table" && S.settlementOpen && S.lastSettlement) {
    const c = ctx();
    c.continueLabel = S.matchEnd ? t("summary.title") : t("settle.continue");
    html = renderSettlement(S.lastSettlement, c);
  } else if (S.screen === "replay" && S.replay && S.replay.showSettlement) {
    const f = S.replay.frames[S.replay.i];
    if (f && f.view.result) html = renderSettlement(f.view, { names: null, continueLabel: t("app.close") });
  } else if (S.screen === "fixture" && S.fixture && S.fixture.view && S.fixture.view.result && !S.fixture.hideSettlement) {
    html = renderSettlement(S.fixture.view, { names: S.fixture.names, continueLabel: t("settle.continue") });
  }
  overlay.innerHTML = html;
  overlay.hidden = !html;
}

const SCREENS = {
  login() {
    return `<div class="screen"><div class="card"><h2>${t("login.title")}</h2>
      <button class="primary big-button" data-do="guest">${t("login.guest")}</button>
      <p>${t("login.or")}</p>
      <form id="login-form">
        <div class="form-row"><label for="u">${t("login.user")}</label><input id="u" name="username" autocomplete="username" value="${esc(S.loginName || "")}" required></div>
        <div class="form-row"><label for="p">${t("login.password")}</label><input id="p" name="password" type="password" autocomplete="current-password" required></div>
        <div class="form-row"><button class="primary" type="submit" data-mode="login">${t("login.submit")}</button>
        <button type="submit" data-mode="register">${t("login.register")}</button></div>
      </form>
      <p class="error">${esc(S.error)}</p></div></div>`;
  },

  lobby() {
    const a = S.account;
    const hello = a ? `<p>${t("lobby.hello", { name: esc(a.username) })} · ${t("profile.silver")} ${a.silver} · ${t("profile.points")} ${a.points}</p>` : "";
    const queued = S.queued ? `<p class="queued">${t("room.waiting")} (${S.queued.waiting}/4)</p>` : "";
    const profiles = ["yuanhang", "bianfeng", "laizishanzhuang"];
    return `<div class="screen">${hello}
      <div class="card"><button class="primary big-button" data-do="quick">${t("lobby.quick")}</button>${queued}</div>
      <div class="card"><h3>${t("lobby.create")}</h3><form id="create-form">
        <div class="form-row"><label>${t("opt.profile")}</label><select name="profile">${profiles.map((p) => `<option value="${p}">${t(`opt.profile.${p}`)}</option>`).join("")}</select></div>
        <div class="form-row"><label>${t("opt.opening")}</label><select name="opening_scoring"><option value="">${t("opt.opening.default")}</option><option value="per_opening">${t("opt.opening.per_opening")}</option><option value="once">${t("opt.opening.once")}</option></select></div>
        <div class="form-row"><label>${t("opt.cap")}</label><input name="cap" type="number" min="1" placeholder="${t("opt.default")}"></div>
        <div class="form-row"><label>${t("opt.hands")}</label><input name="hands" type="number" min="1" max="64" value="4"></div>
        <div class="form-row"><label>${t("opt.claim")}</label><input name="claim_window_seconds" type="number" min="1" max="60" step="0.5" placeholder="${t("opt.default")}"></div>
        <div class="form-row"><label>${t("opt.stake")}</label><input name="stake" type="number" min="0" value="0"></div>
        <button class="primary" type="submit">${t("lobby.create")}</button></form></div>
      <div class="card"><h3>${t("lobby.join")}</h3><form id="join-form" class="form-row">
        <input name="code" inputmode="numeric" pattern="[0-9]{6}" maxlength="6" placeholder="${t("lobby.code")}" required>
        <button class="primary" type="submit">${t("lobby.join_btn")}</button></form></div>
      <p class="error">${esc(S.error)}</p></div>`;
  },

  room() {
    const r = S.room;
    if (!r) return `<div class="screen"><p>${t("app.loading")}</p></div>`;
    const me = r.members.find((m) => m.you);
    const members = r.members.map((m) => `<li>${esc(m.name)}${m.host ? " ★" : ""}${m.ready ? " ✔" : ""}${m.you ? ` (${t("seat.you")})` : ""}</li>`).join("");
    const o = r.options;
    return `<div class="screen"><div class="card"><h2>${t("room.title", { code: esc(r.code) })}</h2>
      <div class="room-code" data-code="${esc(r.code)}">${esc(r.code)}</div>
      <p>${t("room.share", { code: esc(r.code) })}</p>
      <p>${t(`opt.profile.${o.profile}`)} · ${t("opt.hands")} ${o.hands} · ${t("opt.stake")} ${o.stake}${o.opening_scoring ? " · " + t(`opt.opening.${o.opening_scoring}`) : ""}${o.cap ? ` · ${t("opt.cap")} ${o.cap}` : ""}${o.claim_window_seconds ? ` · ${t("opt.claim")} ${o.claim_window_seconds}` : ""}</p>
      <ul class="seats-list">${members}</ul><p>${t("room.waiting")}</p>
      <div class="form-row">${me && !me.ready ? `<button data-do="ready">${t("table.ready")}</button>` : ""}
      ${me && me.host ? `<button class="primary" data-do="start">${t("room.start")}</button>` : ""}
      <button data-do="leave">${t("room.leave")}</button></div>
      <p class="error">${esc(S.error)}</p></div></div>`;
  },

  table() {
    if (!S.view) return `<p>${t("app.loading")}</p>`;
    const c = ctx();
    const again = S.lastSettlement && !S.settlementOpen ? `<button data-do="show-settlement">${t("settle.title")}</button>` : "";
    const err = S.error ? `<p class="error">${esc(S.error)}</p>` : "";
    const auto = S.state && S.state.auto;
    const tools = S.fixture ? "" : `<div class="table-tools"><button data-do="auto" aria-pressed="${auto ? "true" : "false"}">${auto ? t("table.auto_off") : t("table.auto_on")}</button>` +
      `<button data-do="escape">${t("table.leave")}</button>${again}</div>`;
    return renderTable(S.view, c) + err + tools +
      `<div class="keys-help">${t("keys.help")}</div>`;
  },

  summary() {
    const m = S.matchEnd;
    if (!m) return `<div class="screen"><p>${t("app.loading")}</p></div>`;
    const rows = m.results.map((r) => `<tr data-seat="${r.seat}"><td>${esc(r.name)}</td>` +
      S.handEnds.map((h) => `<td>${h.deltas[r.seat] > 0 ? "+" : ""}${h.deltas[r.seat]}</td>`).join("") +
      `<td><b>${r.points}</b></td><td>${m.stake ? t("summary.silver", { n: r.silver }) : ""}</td></tr>`).join("");
    const head = `<tr><th></th>${S.handEnds.map((h) => `<th>${t("table.hand_no", { n: h.hand_no + 1 })}</th>`).join("")}<th>${t("summary.total")}</th><th></th></tr>`;
    const links = S.handEnds.map((h) => `<button data-replay="${esc(m.match_id)}/${h.hand_no}">${t("replay.title")} ${h.hand_no + 1}</button>`).join(" ");
    return `<div class="screen"><div class="card"><h2>${t("summary.title")}</h2>
      <table class="summary"><thead>${head}</thead><tbody>${rows}</tbody></table>
      <p>${links}</p>
      <div class="form-row"><button class="primary" data-do="quick">${t("summary.again")}</button><button data-nav="lobby">${t("summary.lobby")}</button></div></div></div>`;
  },

  replay() {
    const r = S.replay;
    const form = `<form id="replay-form" class="form-row"><label>${t("replay.id")}</label>
      <input name="id" value="${esc(r ? r.id || "" : "")}" placeholder="match/hand"><button type="submit">${t("replay.load")}</button></form>`;
    if (!r || !r.frames) return `<div class="screen"><div class="card"><h2>${t("replay.title")}</h2>${form}<p class="error">${esc(r && r.error ? r.error : "")}</p></div></div>`;
    const f = r.frames[r.i];
    const c = { names: null, selected: null, deadline: null, hint: null, pending: true, chooser: null, replayHands: f.hands, caption: f.caption };
    return `<div class="replay">${form}
      <div class="replay-bar"><button data-rp="start">« ${t("replay.start")}</button><button data-rp="prev">◀ ${t("replay.prev")}</button>
      <span data-step="${r.i}">${t("replay.step", { i: r.i + 1, n: r.frames.length })}</span>
      <button data-rp="next">${t("replay.next")} ▶</button><button data-rp="end">${t("replay.end")} »</button>
      <button data-rp="play">${r.timer ? t("replay.pause") : t("replay.play")}</button>
      ${f.view.result ? `<button data-rp="settle">${t("settle.title")}</button>` : ""}</div>
      ${r.hands && r.hands.length > 1 ? `<div class="replay-bar">${r.hands.map((n) => `<button data-replay="${esc(r.id.split("/")[0])}/${n}" ${`${r.id.split("/")[0]}/${n}` === r.id ? "disabled" : ""}>${t("table.hand_no", { n: n + 1 })}</button>`).join("")}</div>` : ""}
      <div class="replay-caption">${esc(f.caption)}</div>${renderTable(f.view, c)}</div>`;
  },

  profile() {
    const a = S.account;
    if (!a) return `<div class="screen"><p>${t("app.loading")}</p></div>`;
    const en = getLang() === "en";
    const hist = S.history || [];
    const when = (s) => { const d = new Date(s); return Number.isNaN(d.getTime()) ? esc(s || "") : d.toLocaleString(); };
    const signed = (n) => (n > 0 ? `+${n}` : `${n}`);
    const rows = hist.length ? hist.map((h) => `<tr><td>${when(h.finished_at)}</td><td>${esc(t(`opt.profile.${h.profile}`))}</td>` +
      `<td>${signed(h.points)}${h.silver ? ` · ${t("summary.silver", { n: signed(h.silver) })}` : ""}${h.escaped ? ` · ${t("profile.escaped")}` : ""}</td>` +
      `<td>${h.kind === "escape" ? "" : `<button data-replay="${esc(h.match_id)}">${t("profile.view")}</button>`}</td></tr>`).join("")
      : `<tr><td colspan="4">${t("profile.no_history")}</td></tr>`;
    return `<div class="screen"><div class="card"><h2>${t("profile.title")}</h2>
      <p><b>${esc(a.username)}</b>${a.is_guest ? ` (${t("profile.guest")})` : ""}</p>
      <table class="history"><tbody>
      <tr><th>${t("profile.silver")}</th><td data-field="silver">${a.silver}</td></tr>
      <tr><th>${t("profile.points")}</th><td data-field="points">${a.points}</td></tr>
      <tr><th>${t("profile.level")}</th><td>${a.level} · ${esc(en ? a.title_en : a.title)}${S.toNextLevel ? ` · ${t("profile.to_next", { n: S.toNextLevel })}` : ""}</td></tr>
      <tr><th>${t("profile.rank")}</th><td>${esc(en ? a.rank_en : a.rank)}</td></tr></tbody></table></div>
      <div class="card"><h3>${t("profile.history")}</h3><table class="history"><tbody>${rows}</tbody></table></div>
      ${a.is_guest ? `<div class="card"><h3>${t("profile.upgrade")}</h3><form id="upgrade-form">
        <div class="form-row"><label for="uu">${t("login.user")}</label><input id="uu" name="username" autocomplete="username" required></div>
        <div class="form-row"><label for="up">${t("login.password")}</label><input id="up" name="password" type="password" autocomplete="new-password" required></div>
        <button class="primary" type="submit">${t("login.register")}</button></form><p class="error">${esc(S.error)}</p></div>` : ""}
      <button data-do="logout">${t("login.logout")}</button></div>`;
  },

  fixture() {
    const f = S.fixture;
    if (!f || !f.view) return `<p>${t("app.loading")}</p>`;
    const c = { names: f.names, selected: S.selected, deadline: S.deadline, hint: f.hint, pending: false, chooser: S.chooser, chooserTile: S.chooserTile, replayHands: null, caption: "" };
    const opts = Object.keys(f.views).map((k) => `<option ${k === f.frame ? "selected" : ""}>${esc(k)}</option>`).join("");
    return `<div class="replay-bar"><select id="fixture-frame">${opts}</select></div>` + renderTable(f.view, c) +
      `<div class="keys-help">${t("keys.help")}</div>`;
  },
};

// ============================================================ countdown
function tick() {
  const el = $(".countdown", app);
  if (!el) return;
  if (!S.deadline || (S.view && S.view.phase === "ended")) { el.textContent = ""; return; }
  const s = Math.max(0, Math.ceil((S.deadline - Date.now()) / 1000));
  el.textContent = t("table.countdown", { s });
  el.classList.toggle("urgent", s <= 3);
}
setInterval(tick, 250);

// ============================================================ routing
function go(screen, params = "") {
  S.screen = screen;
  S.error = S.error && screen === S.lastScreen ? S.error : "";
  S.lastScreen = screen;
  const hash = `#/${screen}${params}`;
  if (!location.hash.startsWith(`#/${screen}`)) history.replaceState(null, "", hash);
  if (screen === "profile") loadHistory();
  render();
}

async function loadHistory() {
  if (!S.token) return;
  try {
    const data = await api("GET", "/api/profile");
    S.account = data.account || S.account;
    S.toNextLevel = data.points_to_next_level;
    S.history = data.history || [];
    if (S.screen === "profile") render();
  } catch { /* the profile shows without history */ }
}

function hashParams() {
  const h = location.hash.replace(/^#\/?/, "");
  const [screen, query] = h.split("?");
  return { screen: screen || "", params: new URLSearchParams(query || "") };
}

async function loadReplay(id, src) {
  S.replay = { id, frames: null, i: 0, error: "" };
  render();
  try {
    let text;
    if (src) text = await (await fetch(src)).text();
    else {
      // GET /api/matches/{id}/hands lists the hands; .../hands/{n} is one hand's record
      const [match, hand] = id.split("/");
      const m = encodeURIComponent(match);
      const list = await api("GET", `/api/matches/${m}/hands`);
      S.replay.hands = list.hands || [];
      const n = hand !== undefined && hand !== "" ? Number(hand) : S.replay.hands[0];
      S.replay.id = `${match}/${n}`;
      const data = await api("GET", `/api/matches/${m}/hands/${n}`);
      text = (data.events || []).map((e) => JSON.stringify(e)).join("\n");
    }
    const hands = parseRecord(text);
    if (!hands.length) throw new Error(t("replay.none"));
    const want = S.replay.id && S.replay.id.includes("/") ? Number(S.replay.id.split("/")[1]) : null;
    const events = (want !== null && hands.find((h) => h[0].hand_no === want)) || hands[0];
    S.replay.frames = framesFromRecord(events);
  } catch (e) {
    S.replay.error = e.status === 404 ? t("replay.none") : t("app.error", { msg: e.message });
  }
  if (S.screen === "replay") render();
}

function replayStep(d) {
  const r = S.replay;
  if (!r || !r.frames) return;
  r.i = Math.max(0, Math.min(r.frames.length - 1, r.i + d));
  if (r.i === r.frames.length - 1 && r.timer) { clearInterval(r.timer); r.timer = null; }
  render();
}

async function loadFixture(src, frame) {
  const views = await (await fetch(src)).json();
  const name = frame && views[frame] ? frame : Object.keys(views)[0];
  S.fixture = { views, frame: name, view: views[name], names: null, hint: views[name].hint || null, sent: [] };
  S.selected = null; S.chooser = null;
  S.deadline = views[name].phase === "ended" ? null : Date.now() + 8000;
  S.view = views[name];
  go("fixture");
  document.body.dataset.ready = "1";
}

async function start() {
  setLang(getLang());
  const { screen, params } = hashParams();
  if (screen === "fixture") { await loadFixture(params.get("src"), params.get("frame")); return; }
  if (screen === "replay") {
    go("replay");
    if (params.get("src") || params.get("id")) await loadReplay(params.get("id") || "", params.get("src"));
  }
  if (S.token) {
    connect();
    if (screen !== "replay") go(["profile", "lobby"].includes(screen) ? screen : "lobby");
  } else if (screen !== "replay") go("login");
  document.body.dataset.ready = "1";
}

// ============================================================ events
async function guest() {
  try {
    const data = await api("POST", "/api/guest", {});
    saveToken(data.token);
    S.account = data.account || null;
    connect();
    go("lobby");
  } catch (e) { S.error = t("login.failed", { msg: e.message }); render(); }
}

async function login(mode, form) {
  const body = { username: form.username.value, password: form.password.value };
  S.loginName = body.username;
  try {
    const data = await api("POST", mode === "register" ? "/api/register" : "/api/login", body);
    saveToken(data.token);
    S.account = data.account || null;
    connect();
    go("lobby");
  } catch (e) { S.error = t("login.failed", { msg: e.message }); render(); }
}

function logout() {
  S.wantSocket = false;
  if (S.ws) S.ws.close();
  api("POST", "/api/logout", {}).catch(() => {});
  saveToken(null); S.account = null;
  go("login");
}

document.addEventListener("click", (ev) => {
  const el = ev.target.closest("[data-idx],[data-act],[data-choice],[data-do],[data-nav],[data-rp],[data-replay],#lang");
  if (!el) return;
  if (el.id === "lang") { setLang(getLang() === "zh" ? "en" : "zh"); render(); return; }
  if (el.dataset.nav) {
    if (el.dataset.nav === "replay") { go("replay"); return; }
    go(el.dataset.nav); return;
  }
  if (el.dataset.replay) { go("replay"); loadReplay(el.dataset.replay); return; }
  if (el.dataset.idx !== undefined) { clickTile(Number(el.dataset.idx)); return; }
  if (el.dataset.choice !== undefined) {
    const list = chooserList(S.view, ctx());
    const a = list[Number(el.dataset.choice)];
    if (a) sendAction(a);
    return;
  }
  if (el.dataset.act) {
    if (el.dataset.act === "continue") {
      if (S.screen === "replay" && S.replay) { S.replay.showSettlement = false; renderOverlay(); return; }
      if (S.screen === "fixture" && S.fixture) { S.fixture.hideSettlement = true; renderOverlay(); return; }
      S.settlementOpen = false;
      if (S.matchEnd) go("summary"); else render();
      return;
    }
    openGroup(el.dataset.act); return;
  }
  if (el.dataset.rp) {
    const r = S.replay;
    if (!r || !r.frames) return;
    const d = el.dataset.rp;
    if (d === "next") replayStep(1);
    else if (d === "prev") replayStep(-1);
    else if (d === "start") replayStep(-1e9);
    else if (d === "end") replayStep(1e9);
    else if (d === "settle") { r.showSettlement = true; renderOverlay(); }
    else if (d === "play") {
      if (r.timer) { clearInterval(r.timer); r.timer = null; } else r.timer = setInterval(() => replayStep(1), 700);
      render();
    }
    return;
  }
  switch (el.dataset.do) {
    case "guest": guest(); break;
    case "quick": S.error = ""; send({ type: "quick_match" }); S.queued = S.queued || { waiting: 1 }; go("lobby"); break;
    case "ready": send({ type: "ready", ready: true }); break;
    case "start": send({ type: "start" }); break;
    case "leave": send({ type: "leave" }); break;
    case "logout": logout(); break;
    case "auto": send({ type: "auto", on: !(S.state && S.state.auto) }); break;
    case "escape": if (window.confirm(t("table.leave_confirm"))) send({ type: "leave" }); break;
    case "show-settlement": S.settlementOpen = true; renderOverlay(); break;
    default: break;
  }
});

document.addEventListener("submit", (ev) => {
  const form = ev.target;
  ev.preventDefault();
  if (form.id === "login-form") {
    login(ev.submitter && ev.submitter.dataset.mode === "register" ? "register" : "login", form);
  } else if (form.id === "join-form") {
    const code = form.code.value.trim();
    if (!/^[0-9]{6}$/.test(code)) { S.error = t("lobby.bad_code"); render(); return; }
    send({ type: "join_room", code });
  } else if (form.id === "create-form") {
    const f = form.elements;
    const options = { profile: f.profile.value, hands: Number(f.hands.value) || 4, stake: Number(f.stake.value) || 0 };
    if (f.opening_scoring.value) options.opening_scoring = f.opening_scoring.value;
    if (f.cap.value) options.cap = Number(f.cap.value);
    if (f.claim_window_seconds.value) options.claim_window_seconds = Number(f.claim_window_seconds.value);
    send({ type: "create_room", options });
  } else if (form.id === "upgrade-form") {
    api("POST", "/api/upgrade", { username: form.username.value, password: form.password.value })
      .then((data) => { S.account = data.account; S.error = ""; render(); })
      .catch((e) => { S.error = t("login.failed", { msg: e.message }); render(); });
  } else if (form.id === "replay-form") {
    loadReplay(form.elements.id.value.trim());
  }
});

document.addEventListener("change", (ev) => {
  if (ev.target.id === "fixture-frame" && S.fixture) {
    const name = ev.target.value;
    S.fixture.frame = name; S.fixture.view = S.fixture.views[name]; S.fixture.hideSettlement = false;
    S.fixture.hint = S.fixture.view.hint || null;
    S.view = S.fixture.view; S.selected = null; S.chooser = null;
    S.deadline = S.view.phase === "ended" ? null : Date.now() + 8000;
    render();
  }
});

document.addEventListener("keydown", (ev) => {
  if (ev.target.closest && ev.target.closest("input,select,textarea")) return;
  if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
  if (S.screen === "replay") {
    if (ev.key === "ArrowRight") replayStep(1);
    else if (ev.key === "ArrowLeft") replayStep(-1);
    else if (ev.key === "Home") replayStep(-1e9);
    else if (ev.key === "End") replayStep(1e9);
    else return;
    ev.preventDefault();
    return;
  }
  if (!["table", "fixture"].includes(S.screen) || !S.view) return;
  const v = S.view;
  if (!overlay.hidden && (ev.key === "Enter" || ev.key === "Escape")) {
    ev.preventDefault();
    const btn = overlay.querySelector("[data-act=continue]");
    if (btn) btn.click();
    return;
  }
  const { all } = handTiles(v);
  const key = ev.key;
  if (S.chooser && /^[1-9]$/.test(key)) {
    const a = chooserList(v, ctx())[Number(key) - 1];
    if (a) sendAction(a);
    ev.preventDefault();
    return;
  }
  if (/^[0-9]$/.test(key)) {
    const idx = key === "0" ? 9 : Number(key) - 1;
    if (idx < all.length) { S.selected = idx; S.chooser = null; render(); }
  } else if (key === "ArrowLeft" || key === "ArrowRight") {
    const n = all.length;
    if (!n) return;
    const cur = S.selected === null ? (key === "ArrowLeft" ? n : -1) : S.selected;
    S.selected = (cur + (key === "ArrowLeft" ? -1 : 1) + n) % n; S.chooser = null;
    render();
  } else if (key === "Enter") {
    if (S.selected === null && v.drawn) S.selected = all.length - 1;
    if (S.selected !== null) playTile(S.selected);
  } else if (key === "h" || key === "H") openGroup("win");
  else if (key === "k" || key === "K") openGroup("kong");
  else if (key === "p" || key === "P") openGroup("peng");
  else if (key === "c" || key === "C") openGroup("chi");
  else if (key === "l" || key === "L") openGroup("laizi_discard");
  else if (key === " " || key === "Spacebar") openGroup("pass");
  else if (key === "Escape") { S.chooser = null; S.selected = null; render(); }
  else return;
  ev.preventDefault();
});

window.addEventListener("error", (e) => { S.error = String(e.message || e); });

start().catch((e) => { app.textContent = t("app.error", { msg: e.message }); });

export { S, tileName, actionLabel };

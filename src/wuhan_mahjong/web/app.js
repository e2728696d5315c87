// The browser client: screens, routes, the WebSocket connection (docs/protocol.md), keyboard.
//
// Screens are hash routes (#/login, #/lobby, #/room, #/table, #/summary, #/replay?id=… or ?public=…,
// #/profile, #/leaderboard?profile=…&period=…, #/player?name=…, #/tournaments, #/tournament?id=…,
// #/clubs, #/club?n=…&period=… (亲友圈), #/staff?tab=…&name=… (管理: the staff pages),
// #/puzzles?profile=…&n=… (discard puzzles), #/puzzles?kind=win&profile=…&n=… (win questions),
// #/rules?profile=…, #/settings,
// #/join?code=…: a room's invitation), pushed on the history: Back and Forward
// move between them, and a link or a typed #/… in an open tab goes there (hashchange).
// #/fixture?src=URL&frame=NAME renders stored seat views without a server, for tests.
// The table is drawn only from the "state" frames' seat view (table.js).

import { errorText, fieldLabel, getLang, seatName, setLang, t, tileName } from "./i18n.js";
import { registerServiceWorker, servedByWorker } from "./install.js";
import { renderRules, tableRulesHTML } from "./rules.js";
import { apply as applySettings, CHOICES, settings, update as updateSettings } from "./settings.js";
import { play, unlock } from "./sound.js";
import { calculatorHTML, initCalculator, openCalculator } from "./calculator.js";
import { followingHTML, initLeaderboard, leaderboardHTML, loadFollowing, openLeaderboard, openPlayer, playerHTML, statsHTML } from "./leaderboard.js";
import { initTournaments, openTournament, openTournaments, stopRefresh, tournamentHTML, tournamentsCardHTML, tournamentsHTML } from "./tournaments.js";
import { closeClubEvent, clubEventHTML, clubHTML, clubsCardHTML, clubsHTML, initClubs, onClubError, onClubEvent, openClub, openClubs, stopClubRefresh } from "./clubs.js";
import { initShare, shareBarHTML } from "./share.js";
import { blockedCardHTML, initBlocks, isBlocked, loadBlocks } from "./blocks.js";
import { initMyData, myDataHTML } from "./mydata.js";
import { initReport, loadMyReports, myReportsHTML, reportSeatHTML } from "./report.js";
import { initStaff, openStaff, staffHTML } from "./staff.js";
import { initPuzzles, openPuzzle, puzzlesHTML } from "./puzzles.js";
import { initReview, reviewHTML } from "./review.js";
import { closeWatch, initSpectate, loadLive, onWatchMessage, openWatch, watchersHTML, watchHTML, watchListHTML } from "./spectate.js";
import { commitmentHTML, initVerify, noteFrame, verifyHTML } from "./verify.js";
import { draw } from "./draw.js";
import { currentAnnouncement, renderNotice, setAnnouncement } from "./notice.js";
import { endVoteButtonHTML, endVoteHTML, forgetOpenVote, onEndVote, resetEndVote } from "./endvote.js";
import {
  actionLabel, actionsForTile, chatPanelHTML, chooserList, continueBubbles, esc, groupActions, handTiles,
  renderSettlement, renderTable, tableInfoHTML,
} from "./table.js";

const $ = (sel, root = document) => root.querySelector(sel);
const app = $("#app");
const overlay = $("#overlay");
const banner = $("#banner");

const S = {
  token: null, account: null, ws: null, wsOpen: false, reconnectDelay: 500, wantSocket: false,
  lastFrameAt: 0, // when the socket last delivered a frame (liveness, below)
  connectionKey: null, // the connection banner's string (app.offline, app.unreachable), redrawn in the player's language
  wasWaiting: false, // whether the table waited for this player at the last render (the turn's vibration)
  outbox: [], // lobby requests made while the socket was (re)connecting: sent once welcomed
  queueSent: false, // this connection's welcome sent a quick match from the outbox (lostPlace)
  rejoining: null, // the room code of a rejoin request on its way (lostPlace)
  screen: "login", table: null, state: null, view: null, players: null, totals: null,
  selected: null, chooser: null, chooserTile: null, pending: false, deadline: null, timerKind: null,
  hint: null, hintFor: null, hintEndpoint: "/api/hint", queued: null, room: null, matchEnd: null,
  settlementOpen: false, settledHand: null, lastSettlement: null, continued: null, replay: null, fixture: null,
  error: "", atTable: false,
  formErrors: {}, // form id -> {text, field}: shown next to the form's control
  forms: {}, // form id -> {name: value}: what the player chose, restored on every render
  rules: null, rulesProfile: null, infoOpen: false, chatOpen: false,
  bubbles: {}, // seat -> {text, emote, until}
  muted: new Set(), // names whose quick chat this player does not want to see
  lastTick: null,
  drawn: 0, // how many times the page was drawn (tests and debugging: a redraw keeps its elements)
};
window.__wm = S; // for tests and debugging
S.showAnnouncement = (a) => setAnnouncement(a); // tests: a notice on the fixture page
S.announcement = () => currentAnnouncement();

try { S.token = localStorage.getItem("wm.token"); } catch { /* ignore */ }
try { S.forms["create-form"] = JSON.parse(localStorage.getItem("wm.form.create") || "{}"); } catch { /* ignore */ }
applySettings();

// ============================================================ HTTP helpers
/** An Error carrying the server's error code and parameters (translated by errorText). */
function apiError(code, params, status, detail = "") {
  const err = new Error(code);
  err.code = code; err.params = params || {}; err.status = status;
  err.detail = detail; // the server's own sentence (English): the staff pages show it with a refusal
  return err;
}

/** What api() returns for a request whose session has ended: a promise that never settles,
 * so its caller never goes on.  A late answer about the account that signed out (its
 * profile, its history) would otherwise be written over the next session's: a guest's
 * profile showed the old account and no sign-up form. */
const FOR_ANOTHER_SESSION = new Promise(() => {});

async function api(method, path, body) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const session = S.token;
  if (session) headers.Authorization = `Bearer ${session}`;
  const ended = () => Boolean(session) && S.token !== session;
  let res;
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    if (ended()) return FOR_ANOTHER_SESSION;
    throw apiError("network", {}, 0);
  }
  const type = res.headers.get("content-type") || "";
  const data = type.includes("json") ? await res.json() : await res.text();
  if (ended()) return FOR_ANOTHER_SESSION;
  if (!res.ok) {
    const e = data && typeof data === "object" ? data.error || data : null;
    if (e && typeof e.code === "string") throw apiError(e.code, e.params, res.status, typeof e.message === "string" ? e.message : "");
    throw apiError("http", { status: res.status }, res.status);
  }
  return data;
}

function saveToken(token) {
  S.token = token;
  if (token) S.loginNote = ""; // signed in again: the note of a closed account has been read
  S.outbox = []; // a lobby request belongs to the session it was made in
  S.staffRole = null; // known again from this session's welcome (or its profile, GET /api/profile)
  if (!token) setAnnouncement(null); // signed out: the notice comes again with the next welcome
  try { if (token) localStorage.setItem("wm.token", token); else localStorage.removeItem("wm.token"); } catch { /* ignore */ }
}

// ============================================================ WebSocket
const PROTOCOL = 1; // the protocol this client speaks (docs/protocol.md): the server says if it speaks another

/** The server speaks another protocol: this page is older (or newer) than the server, as
 * after an upgrade. Reload once to fetch the client that goes with it; if the reload did
 * not help (a cache in the way), say so instead of reloading for ever. */
function otherProtocol() {
  let reloaded = null;
  try { reloaded = sessionStorage.getItem("wm.protocol-reload"); } catch { /* ignore */ }
  if (reloaded !== String(PROTOCOL)) {
    try { sessionStorage.setItem("wm.protocol-reload", String(PROTOCOL)); } catch { /* ignore */ }
    S.wantSocket = false;
    location.reload();
    return;
  }
  S.wantSocket = false;
  showBanner(t("app.outdated"));
}

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
  let opened = false;
  ws.onopen = () => {
    opened = true;
    // a socket closed as soon as it opened (a proxy or the server refusing it) is already
    // closing when its open event runs: sending then only logs an error; onclose follows
    if (ws.readyState !== WebSocket.OPEN) return;
    ws.send(JSON.stringify({ type: "hello", token: S.token, protocol: PROTOCOL }));
  };
  ws.onmessage = (ev) => {
    if (S.ws === ws) S.lastFrameAt = Date.now();
    let msg;
    try { msg = JSON.parse(ev.data); } catch { return; }
    onMessage(msg);
  };
  ws.onclose = () => {
    if (S.ws !== ws) return; // a socket given up on (dropSocket): its successor is in S.ws
    S.wsOpen = false;
    S.ws = null;
    if (!S.wantSocket) return;
    // a socket that never opened did not reach the server (it is down, or this device is
    // offline: the page then came from the service worker's cache, sw.js)
    showConnection(opened ? "app.offline" : "app.unreachable");
    // jittered (half to one and a half times the delay): after a server restart every
    // client lost its socket at the same instant, and would come back in the same waves
    setTimeout(connect, S.reconnectDelay * (0.5 + Math.random()));
    S.reconnectDelay = Math.min(S.reconnectDelay * 2, 8000);
  };
  ws.onerror = () => { /* onclose follows */ };
}

// ============================================================ liveness
// A socket can die without closing: a phone that moves from Wi-Fi to mobile data, a
// laptop that wakes up elsewhere. The browser then keeps it "open" for minutes while
// nothing arrives, and the player looks at a frozen table as his turn runs out. So, once
// welcomed: after PING_EVERY of quiet the client pings (the server answers "pong"), and
// with no frame at all for DEAD_AFTER it drops the socket and connects again (the server
// resumes the seat). Timers of a hidden tab are slowed down: when one comes back late, or
// the page becomes visible or the network comes back, the socket gets a ping and
// SUSPECT_GRACE to answer it instead of being dropped for the quiet it did not see.
const LIVENESS = Object.assign({ pingEvery: 10000, deadAfter: 25000, suspectGrace: 5000, check: 2500 },
  window.__wmLiveness || {}); // tests shorten them
let livenessCheckedAt = Date.now();

function checkLiveness() {
  const now = Date.now();
  const late = now - livenessCheckedAt > 4 * LIVENESS.check;
  livenessCheckedAt = now;
  const ws = S.ws;
  if (!ws || !S.wsOpen || ws.readyState !== WebSocket.OPEN) return;
  if (late) { suspectSocket(); return; }
  const quiet = now - S.lastFrameAt;
  if (quiet >= LIVENESS.deadAfter) dropSocket(ws);
  else if (quiet >= LIVENESS.pingEvery) send({ type: "ping" });
}

/** Ask the socket for a sign of life now: a pong within SUSPECT_GRACE, or it is dropped. */
function suspectSocket() {
  if (!S.ws || !S.wsOpen) return;
  S.lastFrameAt = Math.min(S.lastFrameAt, Date.now() - LIVENESS.deadAfter + LIVENESS.suspectGrace);
  send({ type: "ping" });
}

/** Give up on a socket that no longer delivers: forget it and connect again at once (its
 * close handshake could take minutes on a dead path; its onclose then finds it forgotten). */
function dropSocket(ws) {
  S.ws = null;
  S.wsOpen = false;
  ws.onmessage = null;
  try { ws.close(4000, "no frame from the server"); } catch { /* already closing */ }
  if (!S.wantSocket) return;
  showConnection("app.offline");
  connect();
}

setInterval(checkLiveness, LIVENESS.check);
window.addEventListener("online", () => { suspectSocket(); if (S.connectionKey === "app.unreachable") checkServer(); });
document.addEventListener("visibilitychange", () => { if (!document.hidden) suspectSocket(); });

function send(msg) {
  if (S.ws && S.ws.readyState === WebSocket.OPEN) {
    S.ws.send(JSON.stringify(msg));
    return true;
  }
  return false;
}

/**
 * A lobby request (quick match, create or join a room): sent now if the socket is open;
 * while it is still connecting (just logged in, or reconnecting) it waits in the outbox
 * and goes out once the server has welcomed this connection, so a tap on "quick match"
 * the moment the lobby appears is not answered with a network error. False only when
 * no connection is wanted (logged out).
 */
function sendWhenConnected(msg) {
  if (send(msg)) return true;
  if (!S.token || !S.wantSocket) return false;
  S.outbox = S.outbox.filter((m) => m.ref !== msg.ref); // the latest request of each form
  S.outbox.push(msg);
  connect();
  return true;
}

/** Once welcomed: send the lobby requests made while connecting, unless the player is
 * already seated (a quick match or a room would only be refused then). */
function flushOutbox(atTable) {
  const waiting = S.outbox;
  S.outbox = [];
  S.queueSent = !atTable && waiting.some((m) => m.type === "quick_match");
  if (!atTable) for (const m of waiting) send(m);
}

/** A line over the table for a few seconds: a refused move, the outcome of a request to
 * end early. The table fills a phone's first screen, and the same line under it (where it
 * stays) was off screen. A tap hides it; leaving the table does too. */
const TOAST_MS = 6000;
const toastBox = document.getElementById("toast");
let toastTimer = null;
function toast(text) {
  toastBox.textContent = text;
  toastBox.hidden = !text;
  clearTimeout(toastTimer);
  if (text) toastTimer = setTimeout(() => { toastBox.hidden = true; }, window.__wmToastMs || TOAST_MS); // tests lengthen it
}
toastBox.addEventListener("click", () => toast(""));

function showBanner(text, connectionKey = null) {
  S.connectionKey = connectionKey;
  banner.textContent = text;
  banner.hidden = !text;
}

/** The connection's state in the banner (app.offline, app.unreachable): it stays until the
 * server answers (showBanner("")) and follows a change of language (renderNav). */
function showConnection(key) {
  showBanner(t(key), key);
}

// Without a token no socket tells whether the server answers. A page the service worker
// served (the one way the client opens while the server is away) asks GET /api/health:
// while nothing answers, the banner says the player is offline, and it asks again with the
// socket's backoff; signing in hands this over to the socket.
let serverCheck = null;

function checkServer() {
  clearTimeout(serverCheck);
  if (S.token) return;
  fetch("/api/health", { cache: "no-store" }).then((res) => {
    if (!res.ok) throw new Error(`HTTP ${res.status}`); // a proxy answering for a server that is down
    S.reconnectDelay = 500;
    if (S.connectionKey === "app.unreachable" && !S.token) showBanner("");
  }).catch(() => {
    if (S.token) return;
    showConnection("app.unreachable");
    serverCheck = setTimeout(checkServer, S.reconnectDelay * (0.5 + Math.random()));
    S.reconnectDelay = Math.min(S.reconnectDelay * 2, 8000);
  });
}

function showReplaced() {
  S.connectionKey = null;
  banner.textContent = t("app.replaced") + " ";
  const again = document.createElement("button");
  again.dataset.do = "reconnect";
  again.textContent = t("app.reconnect_here");
  banner.append(again);
  banner.hidden = false;
}

// Errors: a message sent with a `ref` (the form's id, or "quick", "room", "table") gets
// its error back with the same ref, shown next to that form's control.
const FORM_OF_REF = { "create-form": "create-form", "join-form": "join-form" };

function setFormError(formId, err, prefixKey) {
  const text = prefixKey ? t(prefixKey, { msg: errorText(err) }) : errorText(err);
  const raw = (err && err.params) || {};
  let field = raw.field || raw.option || "";
  field = String(field).replace(/^options\./, "").replace(/_per_opening$/, "");
  S.formErrors[formId] = { text, field, fresh: true };
}

/** What the room's marks mean, in words under its members (a title shows only on hover,
 * which phones never do): 同IP, and 离线 (the room waits for him, or the host asks him to leave). */
function roomNotes(members) {
  const notes = [];
  if (members.some((m) => m.same_address)) notes.push(`<li data-note="same-address">${t("room.same_address_about")}</li>`);
  if (members.some((m) => m.away)) notes.push(`<li data-note="away">${t("room.away_about")}</li>`);
  return notes.length ? `<ul class="room-notes">${notes.join("")}</ul>` : "";
}

/** A choice among a setting's values (settings.js CHOICES), as the settings page and the
 * table's panel show it. */
function settingSelect(name, values, id) {
  return `<select id="${id}" name="${name}">${values.map((v) => `<option value="${v}" ${settings[name] === v ? "selected" : ""}>${t(`settings.${name}.${v}`)}</option>`).join("")}</select>`;
}

/** The room this tab was last in (its code), kept across a reload: a reconnection that
 * the server does not find in a room asks to be back in that one (below). */
function rememberRoom(code) {
  try { if (code) sessionStorage.setItem("wm.room", code); else sessionStorage.removeItem("wm.room"); } catch { /* ignore */ }
}
function rememberedRoom() {
  try { return sessionStorage.getItem("wm.room"); } catch { return null; }
}

/** The answer to a new connection's resume request was not_seated: the node it reached
 * holds no queue or room for this player. A room holds a dropped member's place for a
 * while (离线), perhaps on another node of a cluster: first ask to be back in the room
 * last seen (join_room with rejoin, which never joins a room one was not in). If that
 * fails too, the room let him go (his time away ran out): say so, and put the room's code
 * in the join form. A queue lets a dropped player go at once: say so, unless the quick
 * match was never sent before (tapped while the socket was connecting): it went out with
 * this welcome, and the server's answer to it tells where he is. */
function lostPlace() {
  const code = S.room ? S.room.code : rememberedRoom();
  if (code && S.rejoining !== code) {
    S.rejoining = code;
    send({ type: "join_room", code, rejoin: true, ref: "rejoin" });
    return;
  }
  S.rejoining = null;
  rememberRoom(null);
  if (code) {
    S.room = null;
    presetForm("join-form", { code });
    S.formErrors["join-form"] = { text: t("room.lost", { code }), field: "", fresh: true }; // no focus: no keyboard popping up
    if (S.screen === "room") go("lobby", "", { replace: true }); else render();
  } else if (S.queued && !S.queueSent) {
    S.queued = null;
    S.formErrors.quick = { text: t("lobby.queue_lost"), field: "", fresh: true };
    if (S.screen === "lobby") render();
  }
}

/** The match `matchId` ended while this player's connection was down (its match_end went to
 * nobody): he came back to the lobby without a word. Say so, with his points, once his
 * history has it (nothing is said of a table that stopped otherwise). */
async function tellMatchOver(matchId) {
  let data;
  try { data = await api("GET", "/api/profile"); } catch { return; }
  const h = (data.history || []).find((x) => x.match_id === matchId && x.kind !== "escape" && !x.escaped);
  if (!h || S.screen !== "lobby" || S.error) return;
  S.error = t("table.ended_offline", { points: h.points > 0 ? `+${h.points}` : `${h.points}` });
  render();
}

function onError(msg) {
  const ref = msg.ref || "";
  if (ref === "resume") { if (msg.code === "not_seated") lostPlace(); return; }
  if (ref === "rejoin") { lostPlace(); return; } // not back in the room: it let him go
  S.pending = false;
  // entered in a tournament: the lobby links to it (its rounds seat the player)
  S.enteredTournament = msg.code === "in_tournament" && msg.params ? msg.params.tournament : null;
  if (FORM_OF_REF[ref]) {
    setFormError(FORM_OF_REF[ref], msg, ref === "create-form" ? "lobby.create_failed" : "lobby.join_failed");
  } else if (ref === "quick") {
    S.queued = null;
    setFormError("quick", msg, "lobby.quick_failed");
  } else if (ref === "invite") {
    S.inviteError = errorText(msg);
  } else if (ref === "club") { // 开桌 or 加入 on a club's page (clubs.js)
    onClubError(msg);
  } else {
    S.error = errorText(msg);
    S.roomRefusal = ref === "room" ? { code: msg.code, reason: (msg.params || {}).reason } : null;
    if (S.screen === "table") toast(S.error);
  }
  render();
}

/** Whether the room's refusal shown (S.roomRefusal: 开始 before everyone was ready, say) no
 * longer holds in the room as the frame `room` has it: it is then no longer shown (it
 * stayed under members who had all readied since). A member short of silver is told so,
 * then the room frame that makes him not ready follows: his refusal holds until he readies. */
function roomRefusalGone(why, room) {
  const me = room.members.find((m) => m.you);
  if (why.code === "not_ready" && why.reason === "members") return room.members.every((m) => m.ready);
  if (why.code === "not_ready") return room.members.length === 4; // four_players, silver_four
  if (why.code === "insufficient_silver") return !!(me && me.ready);
  if (why.code === "same_address") return !room.members.some((m) => m.same_address);
  return false;
}

function onMessage(msg) {
  if (onWatchMessage(msg)) return; // spectating (spectate.js)
  switch (msg.type) {
    case "welcome":
      try { sessionStorage.removeItem("wm.protocol-reload"); } catch { /* ignore */ }
      S.wsOpen = true; S.reconnectDelay = 500; S.lastFrameAt = Date.now(); showBanner("");
      S.account = msg.account;
      S.atTable = msg.at_table;
      setAnnouncement(msg.announcement || null); // the notice to every player (notice.js)
      if ((msg.staff || null) !== S.staffRole) S.staffRole = msg.staff || null; // the menu's 管理 from the start
      loadBlocks(); // whose quick chat to hide
      if (S.screen === "watch") openWatch(S.watch.id); // watching again after a reconnection
      if (msg.at_table) send({ type: "snapshot" });
      else {
        // a match whose table was on screen and is no more: it ended while the connection was down
        const gone = S.screen === "table" && S.table && !S.matchEnd ? S.table.match_id : null;
        // a queue or a room survives a reload: the server answers with "queued" or "room"
        // (or not_seated, which is no error here)
        send({ type: "snapshot", ref: "resume" });
        if (S.screen === "table" || S.screen === "login") go("lobby", "", { replace: true });
        else render();
        if (gone) tellMatchOver(gone);
      }
      flushOutbox(msg.at_table);
      break;
    case "error":
      if (msg.params && msg.params.field === "protocol" && msg.params.problem === "version") { otherProtocol(); break; }
      if (msg.code === "auth_failed" || msg.code === "not_authenticated") {
        S.wantSocket = false; saveToken(null); S.account = null;
        if (S.ws) S.ws.close();
        go("login", "", { replace: true });
        return;
      }
      onError(msg);
      break;
    case "queued":
      S.queued = msg; render();
      break;
    case "room":
      if (!S.room || S.room.code !== msg.code) { S.inviteSent = {}; S.inviteError = ""; loadFollowing(); }
      if (S.error && S.roomRefusal && roomRefusalGone(S.roomRefusal, msg)) { S.error = ""; S.roomRefusal = null; }
      S.room = msg; S.queued = null; delete S.formErrors["create-form"]; delete S.formErrors["join-form"];
      S.rejoining = null; rememberRoom(msg.code);
      if (S.screen !== "room") go("room"); else render();
      break;
    case "left":
      S.room = null; S.queued = null; rememberRoom(null);
      if (msg.where === "table") { S.table = null; S.state = null; S.view = null; }
      if (msg.where === "queue" && S.screen === "lobby") render();
      else if (S.screen !== "summary") go("lobby", "", { replace: true });
      if (msg.kicked) { S.error = t("room.kicked"); render(); }
      // an escape: what it cost (the confirmation said only that it costs points)
      else if (msg.escaped) { S.error = msg.penalty ? t("table.escaped", { n: msg.penalty }) : t("table.escaped_free"); render(); }
      else if (msg.club != null) { S.error = t("room.club_gone", { club: msg.club }); render(); }
      break;
    case "table":
      if (!S.table || S.table.match_id !== msg.match_id) {
        resetEndVote();
        // a new match: nothing of the last one's table stays (its 结算 was offered from the
        // new match's first move, and opened the old match's last settlement)
        S.lastSettlement = null; S.settlementOpen = false; S.view = null; S.state = null; S.hint = null;
        S.bubbles = {};
      } else forgetOpenVote(); // resent after this frame if still open (endvote.js)
      // (the same match's table, sent again at a reconnection, keeps what was said: a
      // bubble stays its four seconds)
      S.table = msg; S.players = msg.players; S.queued = null; S.room = null; S.matchEnd = null;
      rememberRoom(null);
      if (S.screen !== "table") go("table"); // pushed: Back from the table asks first
      else render();
      break;
    case "state":
      onState(msg);
      break;
    case "hand_end":
      S.totals = msg.totals;
      // when the next hand is dealt (and its settlement closes): the panel counts it down
      S.nextHand = typeof msg.next_hand_in === "number" ? { hand_no: msg.hand_no, at: Date.now() + msg.next_hand_in * 1000 } : null;
      // 继续 pressed before this message came (the hand's last state frame opens the panel, and
      // the server sends hand_end only once the hand is settled): say it now
      if (S.nextHand && S.continued === msg.hand_no) send({ type: "next_hand", hand_no: msg.hand_no });
      S.continued = null;
      if (S.screen === "table") { renderOverlay(); tick(); }
      break;
    case "match_end":
      // who sat where, for the summary's report buttons (the table frame goes with the table)
      S.matchEnd = { ...msg, mySeat: S.table ? S.table.seat : null, players: S.players || [] };
      if (msg.account) S.account = msg.account;
      S.deadline = null;
      // the settlement of the last hand stays on top; its button leads to the summary
      if (!S.settlementOpen) go("summary"); else renderOverlay();
      break;
    case "end_vote": // a request to end the match early (endvote.js)
      {
        const decided = onEndVote(msg, S.players, S.table ? S.table.seat : null, S.view ? S.view.hand_no : null);
        if (decided && S.screen === "table") toast(decided);
      }
      if (S.screen === "table") render();
      break;
    case "club_event": // something about this player in a club (clubs.js)
      onClubEvent(msg);
      if (S.screen !== "table") play("chat");
      break;
    case "invited": // someone who follows this player invites him into his room
      S.invited = msg;
      if (S.screen !== "table") { play("chat"); render(); }
      break;
    case "invite_sent":
      S.inviteSent = { ...(S.inviteSent || {}), [msg.username]: true }; S.inviteError = "";
      if (S.screen === "room") render();
      break;
    case "notice":
      // another tab or device took this account's connection: no reconnecting on our own
      // (two tabs would take it from each other for ever); the player may take it back
      if (msg.code === "replaced") { S.wantSocket = false; showReplaced(); }
      // 托管 switched on by the server (two timeouts in a row), not by his own tap: say why
      if (msg.code === "auto_on" && S.table && msg.seat === S.table.seat && S.screen === "table" &&
          !(S.autoAsked && Date.now() - S.autoAsked < 10000)) toast(t("table.auto_timeouts"));
      // another player escaped (left the match; a bot plays his seat): say so over the table
      // (his seat's name says 逃跑 from now on, and the points beside it what it cost him)
      if (msg.code === "escape" && S.table && msg.seat !== S.table.seat && S.screen === "table") {
        const who = (S.players || []).find((p) => p.seat === msg.seat);
        toast(t("table.other_escaped", { who: `${seatName(msg.seat)} ${who ? who.name : ""}`.trim() }));
      }
      // the session ended (a logout or a password change elsewhere): sign in again
      if (msg.code === "logged_out" && !S.renewing) { S.wantSocket = false; saveToken(null); S.account = null; go("login", "", { replace: true }); }
      break;
    case "chat":
      onChat(msg);
      break;
    case "announcement": // a notice given, taken down or expired (notice.js)
      setAnnouncement(msg.announcement || null);
      break;
    default:
      break;
  }
}

// ============================================================ sounds from the state frames
function soundsFor(prev, v) {
  if (!prev || prev.hand_no !== v.hand_no) return;
  if (v.phase === "ended" && prev.phase !== "ended") {
    if (v.result && v.result.outcome === "win") play("win");
    return;
  }
  const melds = (p) => p.seats.reduce((n, s) => n + s.melds.length, 0);
  const discards = (p) => p.seats.reduce((n, s) => n + s.discards.length, 0);
  const drew = Boolean(v.drawn && v.drawn !== prev.drawn && v.viewer !== null);
  let first = null;
  if (melds(v) > melds(prev)) {
    // the newest meld tells which call was made
    const seat = v.seats.find((s, i) => s.melds.length > prev.seats[i].melds.length);
    const m = seat && seat.melds[seat.melds.length - 1];
    first = m && m.type === "kong" ? "kong" : m && m.type === "chi" ? "chi" : "peng";
  } else if (discards(v) > discards(prev)) first = "discard";
  if (first) play(first);
  // A discard nobody may claim goes straight on to the next draw, and a kong to its
  // replacement tile: one frame brings both.  This seat's own draw is heard after the
  // other sound, not lost under it (it was, for most draws at a table of bots).
  if (drew) { if (first) setTimeout(() => play("draw"), DRAW_AFTER_MS); else play("draw"); }
}

/** How long after a discard's (or a kong's) sound the draw it brought is heard. */
const DRAW_AFTER_MS = 220;

function onState(msg) {
  noteFrame(msg); // what this seat saw, for the fairness check (verify.js)
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
  soundsFor(prev, msg.view);
  if (S.screen !== "table") go("table");
  else render();
  if (!autoAnswer(msg)) maybeFetchHint();
}

/** 自动胡 / 自动过 (settings.js): answer the decision on screen at once when the player
 * asked for it; whether it did.  Only the legal actions the server sent are chosen from:
 * a win when one is offered (自动胡); a pass when only chi / peng / kong on another's
 * discard are (自动过). */
function autoAnswer(msg) {
  const v = msg.view;
  if (!v || v.viewer === null || msg.answered || S.pending || v.phase === "ended") return false;
  const legal = v.legal_actions || [];
  const key = `${msg.match_id}/${v.hand_no}/${v.decision}`;
  if (!legal.length || S.autoAnswered === key) return false;
  const win = legal.find((a) => a.type === "win");
  const pass = legal.find((a) => a.type === "pass");
  const claims = legal.some((a) => a.type === "chi" || a.type === "peng" || a.type === "kong");
  const pick = settings.autowin && win ? win
    : settings.autopass && v.phase === "claim" && !win && pass && claims ? pass : null;
  if (!pick) return false;
  S.autoAnswered = key;
  sendAction(pick);
  return true;
}

// Help for the own hand: asked from the server (docs/protocol.md); shown only when present.
let hintSeq = 0;
async function maybeFetchHint() {
  const v = S.view;
  if (!v || v.viewer === null || !v.hand || v.phase === "ended" || !S.hintEndpoint) return;
  // only for one's own decision, and not while the server asks to wait (429)
  if (!(v.legal_actions || []).length || Date.now() < (S.hintWaitUntil || 0)) return;
  const key = `${v.hand_no}/${v.hand}/${v.wall}`;
  if (S.hintFor === key) return;
  S.hintFor = key;
  const seq = ++hintSeq;
  try {
    const h = await api("GET", `${S.hintEndpoint}?match_id=${encodeURIComponent(S.state ? S.state.match_id : "")}`);
    // {"hint": null, "reason": …} means: no help now (between hands)
    if (seq === hintSeq) { S.hint = h && h.hint === null ? null : h; render(); }
  } catch (e) {
    if (e.status === 429) S.hintWaitUntil = Date.now() + 1000 * Number((e.params && e.params.seconds) || 5);
    if (seq === hintSeq) { S.hint = null; render(); }
  }
}

// ============================================================ quick chat
function onChat(msg) {
  const p = (S.players || []).find((x) => x.seat === msg.seat);
  if (p && (S.muted.has(p.name) || isBlocked(p.name))) return;
  const now = Date.now();
  S.bubbles[msg.seat] = { phrase: msg.phrase || null, emote: msg.emote || null, at: now, until: now + 4000 };
  play("chat");
  if (S.screen === "table") render();
  setTimeout(() => { if (S.bubbles[msg.seat] && S.bubbles[msg.seat].until <= Date.now()) { delete S.bubbles[msg.seat]; if (S.screen === "table") render(); } }, 4100);
}

// ============================================================ actions
function sendAction(a) {
  if (S.fixture) { S.fixture.sent.push(a); window.__lastAction = a; S.chooser = null; render(); return; }
  if (S.pending) return;
  // the view's decision id: a late click is refused (stale_decision), never applied to the next decision
  const ok = send({ type: "action", action: a, decision: S.view ? S.view.decision : undefined, hand_no: S.view ? S.view.hand_no : undefined, ref: "table" });
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

// ------------------------------------------------------------ drag to play
/* A tile of one's hand dragged upwards (a finger, a pen or the mouse) past half its height
 * is played, as phone mahjong apps do: one gesture instead of two taps. A shorter, sideways
 * or downward move plays nothing and the tile springs back. The tile must still be the same
 * tile of the same decision when the finger lifts (a new frame may have come meanwhile). */
const DRAG_START_PX = 6;
let drag = null;
let dragEndedAt = 0;

function endDrag(ev, cancelled) {
  const d = drag;
  if (!d || ev.pointerId !== d.pointerId) return;
  drag = null;
  d.el.classList.remove("dragging");
  d.el.style.transform = "";
  if (!d.moved) return;
  dragEndedAt = Date.now(); // the click that follows the lift is no tap
  const up = d.y - ev.clientY;
  const v = S.view;
  const same = v && v.decision === d.decision && handTiles(v).all[d.idx] === d.tile;
  if (!cancelled && same && up >= d.height / 2 && up > Math.abs(ev.clientX - d.x)) playTile(d.idx);
}

document.addEventListener("pointerdown", (ev) => {
  const el = ev.target.closest(".me .hand [data-idx]");
  if (!el || ev.button > 0 || !S.view || (S.screen !== "table" && S.screen !== "fixture")) return;
  const idx = Number(el.dataset.idx);
  drag = { el, idx, tile: handTiles(S.view).all[idx], decision: S.view.decision, pointerId: ev.pointerId,
    x: ev.clientX, y: ev.clientY, height: el.getBoundingClientRect().height, moved: false };
});
document.addEventListener("pointermove", (ev) => {
  const d = drag;
  if (!d || ev.pointerId !== d.pointerId) return;
  const dx = ev.clientX - d.x, dy = ev.clientY - d.y;
  if (!d.moved && Math.hypot(dx, dy) < DRAG_START_PX) return;
  d.moved = true;
  d.el.classList.add("dragging");
  d.el.style.transform = `translate(${dx}px, ${Math.min(0, dy)}px)`;
});
document.addEventListener("pointerup", (ev) => endDrag(ev, false));
document.addEventListener("pointercancel", (ev) => endDrag(ev, true));

// ============================================================ rendering
function names() {
  if (!S.players) return null;
  const out = [null, null, null, null];
  for (const p of S.players) out[p.seat] = p.name + (p.bot ? ` · ${t("room.bot")}` : "") + (p.escaped ? ` · ${t("profile.escaped")}` : "") + (p.auto ? ` (${t("table.auto_on")})` : "") + (p.connected === false && !p.bot && !p.escaped ? ` (${t("table.offline")})` : ""); // an escaper left: not 掉线
  return out;
}

function ctx() {
  const now = Date.now();
  const bubbles = {};
  for (const [seat, b] of Object.entries(S.bubbles)) if (b.until > now) bubbles[seat] = b;
  return {
    names: names(), selected: S.selected, deadline: S.deadline, hint: S.hint, pending: S.pending,
    chooser: S.chooser, chooserTile: S.chooserTile, replayHands: null, caption: "",
    players: S.players, bubbles, muted: S.muted, auto: !!(S.state && S.state.auto), totals: S.totals,
  };
}

/** The menu's row fades out at its end only while items lie beyond it (``more``): a hint
 * that it scrolls, which would hide the last item when everything fits. */
function markNavOverflow(nav = $("#nav")) {
  if (nav) nav.classList.toggle("more", nav.scrollWidth > nav.clientWidth + 1 && nav.scrollLeft + nav.clientWidth < nav.scrollWidth - 1);
}
window.addEventListener("resize", () => markNavOverflow());
document.addEventListener("scroll", (ev) => { if (ev.target && ev.target.id === "nav") markNavOverflow(ev.target); }, true);

/** The screen the menu last brought its item into view for (:func:`renderNav`). */
let navShownFor = null;

function renderNav() {
  const nav = $("#nav");
  const items = S.account
    ? [["lobby", "nav.lobby"], ["profile", "nav.profile"], ["clubs", "nav.clubs"], ["tournaments", "nav.tournaments"], ["leaderboard", "nav.leaderboard"], ["puzzles", "nav.puzzles"], ["replay", "nav.replay"], ["rules", "nav.rules"], ["calculator", "nav.calculator"], ["settings", "nav.settings"],
      ...(S.staffRole ? [["staff", "nav.staff"]] : [])]
    : [["tournaments", "nav.tournaments"], ["leaderboard", "nav.leaderboard"], ["puzzles", "nav.puzzles"], ["replay", "nav.replay"], ["rules", "nav.rules"], ["calculator", "nav.calculator"], ["settings", "nav.settings"]];
  draw(nav, items.map(([k, key]) => `<a class="navlink" href="#/${k}" data-nav="${k}" ${S.screen === k ? `aria-current="page"` : ""}>${t(key)}</a>`).join("") +
    `<button type="button" id="mute" data-do="mute" aria-pressed="${settings.sound ? "false" : "true"}" title="${t(settings.sound ? "settings.mute" : "settings.unmute")}">${settings.sound ? t("settings.sound_on_short") : t("settings.sound_off_short")}</button>`);
  markNavOverflow(nav);
  // on a phone the menu is one sideways-scrolling row: bring the current screen's item into
  // view when the screen changes, and only then (at every redraw, the lobby's list arriving
  // or a replay's step scrolled back a menu the player had scrolled to reach another item)
  const current = nav.querySelector("[aria-current]");
  const arrived = navShownFor !== S.screen;
  navShownFor = S.screen;
  if (arrived && current && nav.scrollWidth > nav.clientWidth) {
    const [item, strip] = [current.getBoundingClientRect(), nav.getBoundingClientRect()];
    if (item.left < strip.left || item.right > strip.right) nav.scrollLeft += item.left - strip.left - 8;
  }
  $("#lang").textContent = t("app.lang");
  $("#title").textContent = t("app.title");
  $("#subtitle").textContent = ` · ${t("app.subtitle")}`;
  // the tab's title says when the table waits for this player, as lichess's does: a player
  // who went to another tab while others think sees it in the tab bar
  const waiting = S.screen === "table" && awaitingMe();
  document.title = `${waiting ? `${t("app.your_turn")} · ` : ""}${t("app.title")} · ${t("app.subtitle")}`;
  if (waiting && !S.wasWaiting) buzz();
  S.wasWaiting = waiting;
  if (S.connectionKey) banner.textContent = t(S.connectionKey);
  renderNotice(S.screen);
}

/** A short vibration when the table starts waiting for this player (a phone in a pocket),
 * unless the sound is off: the mute switch silences both. Browsers allow it only after the
 * player touched the page, which taking a seat did. */
function buzz() {
  if (!settings.sound || typeof navigator.vibrate !== "function") return;
  if (navigator.userActivation && !navigator.userActivation.hasBeenActive) return;
  navigator.vibrate(60);
}

/** Where ``node`` is under the page's root, as the index of each node on the way down. */
function nodePath(node) {
  const path = [];
  for (; node && node !== app; node = node.parentNode) {
    if (!node.parentNode) return null;
    path.unshift(Array.prototype.indexOf.call(node.parentNode.childNodes, node));
  }
  return node === app ? path : null;
}

function nodeAt(path) {
  let node = app;
  for (const i of path) if (!(node = node.childNodes[i])) return null;
  return node;
}

/** The text the player has selected in the page (to copy a room's code, or the table's
 * commitment during a hand), by where it is and what it says. */
function rememberSelection() {
  if (document.activeElement && document.activeElement.matches("input,textarea,select")) return null; // keepFocus's
  const sel = document.getSelection();
  if (!sel || !sel.rangeCount || sel.isCollapsed) return null;
  const r = sel.getRangeAt(0);
  const start = nodePath(r.startContainer);
  const end = nodePath(r.endContainer);
  return start && end ? { start, end, startOffset: r.startOffset, endOffset: r.endOffset, text: r.toString() } : null;
}

/** A redraw replaces the selected text with a copy: select the copy, where the redraw drew
 * the same text at the same place (the selection went with every frame, a commitment
 * could not be copied during a hand). */
function restoreSelection(saved) {
  if (!saved) return;
  const start = nodeAt(saved.start);
  const end = nodeAt(saved.end);
  if (!start || !end) return;
  try {
    const r = document.createRange();
    r.setStart(start, saved.startOffset);
    r.setEnd(end, saved.endOffset);
    if (r.toString() !== saved.text) return;
    const sel = document.getSelection();
    sel.removeAllRanges();
    sel.addRange(r);
  } catch { /* the redraw drew less there: the selection goes */ }
}

/** What the player chose in every form, restored after a re-render (selects and defaults included). */
function rememberForms() {
  for (const form of app.querySelectorAll("form[id]:not([data-live])")) {
    const saved = S.forms[form.id] || (S.forms[form.id] = {});
    for (const el of form.elements) if (el.name) saved[el.name] = el.type === "checkbox" ? el.checked : el.value;
  }
}

/** Fill form `id` with `values`, now if it is on screen and after every re-render. */
function presetForm(id, values) {
  S.forms[id] = { ...(S.forms[id] || {}), ...values };
  const form = document.getElementById(id);
  if (form) for (const [name, value] of Object.entries(values)) if (form.elements[name]) form.elements[name].value = value;
}

/** Put back in the forms under ``root`` what the player chose (:func:`rememberForms`). */
function restoreForms(root) {
  for (const form of root.querySelectorAll("form[id]")) {
    const saved = S.forms[form.id];
    if (!saved) continue;
    for (const el of form.elements) {
      if (!el.name || saved[el.name] === undefined) continue;
      if (el.type === "checkbox") el.checked = !!saved[el.name];
      else if (el.tagName === "SELECT" && ![...el.options].some((o) => o.value === saved[el.name])) continue;
      else el.value = saved[el.name];
    }
  }
}

// ------------------------------------------------------------ a press outlasts a re-render
/** What the page's click handler answers (a tile of one's hand, an action, a button),
 * and every button (a form's submit: 创建 tapped as the lobby's lists arrived did nothing). */
const CONTROLS = "[data-idx],[data-act],[data-choice],[data-do],[data-nav],[data-rp],[data-replay],[data-replay-staff],[data-chat],[data-mute-seat],[data-rules-profile],[data-rule-link],[data-invite-player],[data-kick],#lang,button";
/** What a press holds the page still for: every control, every link (the lobby's daily
 * puzzle, a tournament's banner: a link replaced between press and release was not
 * followed) and every form field with its label (自动过 ticked at the table as a frame
 * came stayed unticked). They are not CONTROLS: the click handler leaves them to the
 * browser and the forms. */
const PRESSABLE = `${CONTROLS},a[href],label,input,select,textarea,summary`;
/** The longest a press on a control holds the page still (a finger resting on a button must
 * not freeze the table). */
const PRESS_HOLD_MS = 3000;
/* A click needs its press and its release on one element, and every frame redraws the
 * page: a frame between the two replaced the button under the finger (when the page's HTML
 * was replaced), and the tap did nothing (托管 tapped while the bots played on, a tile
 * tapped as a frame came). The redraw now keeps elements (draw.js), but it may still turn
 * the one under the finger into another control (the claim buttons change with the frame)
 * or take it away. While a control is pressed, render() only notes that it is owed; the click (or the
 * release, or PRESS_HOLD_MS) lets it run. S keeps the frames meanwhile, so a click acts
 * on the latest state. */
let pressed = false;
let pressTimer = 0;
let renderOwed = false;

/** The press is over: render what came meanwhile, now or (`later`) after this event's
 * own handlers, which may render it themselves. */
function releasePress(later = false) {
  if (!pressed) return;
  pressed = false;
  clearTimeout(pressTimer);
  const owed = () => { if (renderOwed) render(); };
  if (later) setTimeout(owed); else owed();
}

document.addEventListener("pointerdown", (ev) => {
  if (!ev.isPrimary || ev.button > 0 || !ev.target.closest || !ev.target.closest(PRESSABLE)) return;
  pressed = true;
  clearTimeout(pressTimer);
  pressTimer = setTimeout(releasePress, PRESS_HOLD_MS);
}, true);
// the click comes after the release, in the same task for a mouse: let it find the pressed
// element first, then render what came meanwhile (unless its own handler rendered already)
window.addEventListener("click", () => releasePress(true), true);
for (const type of ["pointerup", "pointercancel"]) document.addEventListener(type, () => setTimeout(releasePress), true);

/** Where the focus is, as a selector that finds its fresh copy after a re-render in
 * ``root`` (the page or the menu, which is drawn again too; see :func:`focusRoot`): its id, or its name in a form with an id
 * (the room code's field has no id of its own), or else (a button, a link) the data
 * attributes that say what it does, where no other element has the same. Without the last,
 * a player who moved through the table's buttons with Tab was sent back to the top of the
 * page by every frame. */
function focusSelector(el, root) {
  if (!root) return null;
  if (el.id) return `#${CSS.escape(el.id)}`;
  const form = el.form && el.form.getAttribute("id"); // not form.id: a control named "id" hides it
  if (el.name && form) return `#${CSS.escape(form)} [name="${CSS.escape(el.name)}"]`;
  const data = [...el.attributes].filter((a) => a.name.startsWith("data-"))
    .map((a) => `[${a.name}="${CSS.escape(a.value)}"]`).join("");
  const selector = data && `${el.tagName.toLowerCase()}${data}`;
  return selector && root.querySelectorAll(selector).length === 1 ? selector : null;
}

/** The part of the page a redraw replaces that holds ``el``: the page or the menu. */
function focusRoot(el) {
  const nav = $("#nav");
  return !el ? null : app.contains(el) ? app : nav && nav.contains(el) ? nav : null;
}

/** Where the focus was before a redraw, it stays: on the same element, which the redraw
 * keeps (draw.js) where it draws the same control again (a field being typed in keeps
 * its caret and selection, a list being chosen from stays open), or else on the control
 * that does what it did (``selector``, :func:`focusSelector`), found again. Where the
 * redraw turned the element into another control and none does what it did, the focus
 * goes: Enter must not press a button the player never chose. The page does not scroll to
 * it (the player may have scrolled away). */
function keepFocus(old, root, selector, before) {
  const same = root.contains(old) && (selector ? old.matches(selector) : old.outerHTML === before);
  const target = same ? old : selector ? root.querySelector(selector) : null;
  if (target && document.activeElement !== target) target.focus({ preventScroll: true });
  else if (!target && root.contains(old)) old.blur();
}

function render() {
  if (pressed) { renderOwed = true; return; }
  renderOwed = false;
  const active = document.activeElement;
  const focusedIn = focusRoot(active);
  const focused = focusSelector(active, focusedIn);
  const focusedAs = focusedIn && !focused ? active.outerHTML : null; // keepFocus's, without a selector
  renderNav();
  const fn = SCREENS[S.screen] || SCREENS.login;
  // A re-render (e.g. the profile's history arriving, an error) must not lose what the player chose.
  rememberForms();
  const selected = rememberSelection();
  draw(app, invitedHTML() + clubEventHTML() + fn(), restoreForms);
  S.drawn += 1;
  restoreSelection(selected);
  if (focusedIn) keepFocus(active, focusedIn, focused, focusedAs);
  app.dataset.screen = S.screen;
  if (S.screen === "table" || S.screen === "fixture") markFresh();
  continueBubbles(app);
  renderOverlay();
  // a new form error is brought into view, with its control focused
  for (const [id, e] of Object.entries(S.formErrors)) {
    if (!e.fresh) continue;
    e.fresh = false;
    const box = app.querySelector(`[data-error-for="${id}"]`);
    const field = e.field && app.querySelector(`#${id} [name="${e.field}"]`);
    if (field) field.focus({ preventScroll: true });
    if (box && box.scrollIntoView) box.scrollIntoView({ block: "center" });
  }
  tick();
}

/** A panel a table tool opened (快捷语, 本桌规则) comes under the tools, below the table: on a
 * phone that is below the screen's edge, so the tap seemed to do nothing. Bring its top in
 * view (as little scrolling as it takes to show it, its top first if it is taller). */
function bringIntoView(selector) {
  const el = app.querySelector(selector);
  if (!el || !el.getBoundingClientRect) return;
  const r = el.getBoundingClientRect();
  if (r.top >= 0 && r.bottom <= innerHeight) return;
  // its bottom 4 px above the edge only if all of it then fits (a panel as tall as a phone
  // on its side is, with the table's settings, would have its top pushed off the screen)
  window.scrollBy(0, r.height + 12 <= innerHeight ? r.bottom - innerHeight + 4 : r.top - 8);
}

/** Animate only what is new since the last render: the latest discard and a new meld. */
function markFresh() {
  const v = S.view;
  if (!v) return;
  const discards = v.seats.map((p) => p.discards.length).join(",");
  const melds = v.seats.map((p) => p.melds.length).join(",");
  const key = `${v.hand_no}`;
  const last = S.animSeen && S.animSeen.key === key ? S.animSeen : null;
  if (last && last.discards !== discards) {
    const el = app.querySelector(".river .tile.last") || [...app.querySelectorAll(".river")].map((r) => r.lastElementChild).filter(Boolean).pop();
    if (el) el.classList.add("anim-in");
  }
  if (last && last.melds !== melds) {
    v.seats.forEach((p, i) => {
      if (Number(last.melds.split(",")[i]) < p.melds.length) {
        const m = app.querySelectorAll(`.seat[data-seat="${p.seat}"] .meld`);
        if (m.length) m[m.length - 1].classList.add("anim-claim");
      }
    });
  }
  S.animSeen = { key, discards, melds };
}

function renderOverlay() {
  let html = "";
  if (S.screen === "table" && S.settlementOpen && S.lastSettlement) {
    const c = ctx();
    c.continueLabel = S.matchEnd ? t("summary.title") : t("settle.continue");
    if (S.lastSettlement.result && S.lastSettlement.result.reveal && S.settledHand) c.extra = verifyHTML(S.settledHand);
    // the next hand is dealt a few seconds after this one (the server's pause), and this
    // panel then closes: say so, or it goes in the middle of one's reading
    if (S.nextHand && S.nextHand.hand_no === S.lastSettlement.hand_no && !S.matchEnd) c.extra = `<p class="next-hand" data-next-hand="1"></p>${c.extra || ""}`;
    html = renderSettlement(S.lastSettlement, c);
  } else if (S.screen === "replay" && S.replay && S.replay.showSettlement) {
    const f = S.replay.frames[S.replay.i];
    if (f && f.view.result) html = renderSettlement(replayView(f.view), { names: S.replay.names || null, replayHands: true, replayYou: S.replay.seat, continueLabel: t("app.close") });
  } else if (S.screen === "fixture" && S.fixture && S.fixture.view && S.fixture.view.result && !S.fixture.hideSettlement) {
    html = renderSettlement(S.fixture.view, { names: S.fixture.names, continueLabel: t("settle.continue") });
  }
  const fresh = html && overlay.hidden;
  draw(overlay, html);
  overlay.hidden = !html;
  // the winning hand is revealed with a short animation when the panel opens
  if (fresh) { const panel = overlay.querySelector(".settlement"); if (panel) panel.classList.add("anim-win"); }
}

/** A form's error line (next to its submit button) and a control's own error. */
function formError(id) {
  const e = S.formErrors[id];
  return `<p class="error form-error" data-error-for="${id}" role="alert">${e ? esc(e.text) : ""}</p>`;
}

function fieldError(id, name) {
  const e = S.formErrors[id];
  return e && e.field === name ? `<span class="field-error" data-field-error="${name}">${esc(e.text)}</span>` : "";
}

function invalid(id, name) {
  const e = S.formErrors[id];
  return e && e.field === name ? ` aria-invalid="true"` : "";
}

/** The profile's account card: a new password (registered players) and closing the
 * account (注销: POST /api/account/close, after a confirmation; a guest has no password). */
function accountCardHTML(a) {
  const P = "password-form";
  const C = "close-form";
  const changed = S.passwordChanged ? `<p class="ok" role="status" data-password-changed="1">${t("account.password_changed")}</p>` : "";
  const password = a.is_guest ? "" : `<h4>${t("account.password")}</h4>${changed}<form id="${P}" novalidate>
      <div class="form-row"><label for="pw-old">${t("account.old_password")}</label><input id="pw-old" name="old_password" type="password" autocomplete="current-password" required${invalid(P, "old_password")}>${fieldError(P, "old_password")}</div>
      <div class="form-row"><label for="pw-new">${t("account.new_password")}</label><input id="pw-new" name="new_password" type="password" autocomplete="new-password" required${invalid(P, "password")}>${fieldError(P, "password")}</div>
      <button type="submit">${t("account.change_password")}</button>${formError(P)}</form>`;
  return `<div class="card account-card"><h3>${t("account.title")}</h3>${password}${myDataHTML()}
    <details class="close-account"${S.closeOpen || S.formErrors[C] ? " open" : ""}><summary>${t("account.close")}</summary>
      <p>${t(a.is_guest ? "account.close_about_guest" : "account.close_about")}</p>
      <form id="${C}" novalidate>${a.is_guest ? "" : `<div class="form-row"><label for="close-pw">${t("login.password")}</label><input id="close-pw" name="password" type="password" autocomplete="current-password" required${invalid(C, "password")}></div>`}
      <button class="danger" type="submit">${t("account.close_submit")}</button>${formError(C)}</form></details></div>`;
}

const PROFILES = ["yuanhang", "bianfeng", "laizishanzhuang"];

/** The rule options of a room or table, as the server sent them (labels from /api/rules). */
function optionsLine(o) {
  const parts = [t(`opt.profile.${o.profile}`)];
  if (o.opening_scoring) parts.push(t(`opt.opening.${o.opening_scoring}`));
  parts.push(`${t("opt.hands")} ${o.hands}`);
  parts.push(o.stake ? `${t("opt.stake")} ${o.stake}` : t("opt.free"));
  if (o.cap) parts.push(`${t("opt.cap")} ${o.cap}`);
  if (o.claim_window_seconds) parts.push(`${t("opt.claim")} ${o.claim_window_seconds}`);
  if (o.turn_seconds) parts.push(`${t("opt.turn")} ${o.turn_seconds}`);
  if (o.spectators === false) parts.push(t("opt.no_spectators"));
  if (o.distinct_addresses) parts.push(t("opt.distinct_addresses.on"));
  for (const [k, v] of Object.entries(o.rules || {})) parts.push(`${esc(ruleLabel(k))} ${esc(ruleValue(k, v))}`);
  return parts.join(" · ");
}

function ruleOption(name) {
  return S.rules && S.rules.options ? S.rules.options.find((x) => x.name === name) : null;
}

function ruleLabel(name) {
  const o = ruleOption(name);
  return o ? (getLang() === "zh" ? o.label_zh : o.label_en) : fieldLabel(name);
}

function ruleValue(name, v) {
  const o = ruleOption(name);
  if (o && o.value_labels && o.value_labels[String(v)]) return o.value_labels[String(v)][getLang() === "zh" ? 0 : 1];
  if (typeof v === "boolean") return t(v ? "rules.yes" : "rules.no");
  if (Array.isArray(v)) return v.map((x) => (/^[1-9][mpsz]$/.test(x) ? tileName(x) : x)).join(" ");
  return String(v);
}

/** The table's options that differ from its profile: the server's list when it sends one, else
 *  the table's rules (the "table" frame) against the profile's values (GET /api/rules). */
function tableOverrides(table) {
  if (table.overrides) return table.overrides;
  if (!S.rules || !table.rules) return {};
  const out = {};
  for (const o of S.rules.options) {
    const v = table.rules[o.name];
    if (v !== undefined && JSON.stringify(v) !== JSON.stringify(o.values[table.profile])) out[o.name] = v;
  }
  return out;
}

async function loadRules() {
  if (S.rules || S.rulesLoading) return;
  S.rulesLoading = true;
  try { S.rules = await api("GET", "/api/rules"); } catch (e) { S.rulesError = errorText(e); }
  S.rulesLoading = false;
  if (["rules", "table", "room"].includes(S.screen)) { render(); scrollToFactor(); }
}

/** A settlement factor's link opens the rules page at that factor. */
function scrollToFactor() {
  if (S.screen !== "rules" || !S.rulesFactor) return;
  const row = document.getElementById(`factor-${S.rulesFactor}`);
  if (row && row.scrollIntoView) row.scrollIntoView({ block: "center" });
}

const SCREENS = {
  login() {
    const invited = S.invitation ? `<p class="invited" role="status">${t("room.invited", { code: esc(S.invitation) })}</p>` : "";
    const note = S.loginNote ? `<p class="ok" role="status" data-login-note="1">${esc(S.loginNote)}</p>` : "";
    return `<div class="screen"><div class="card"><h2>${t("login.title")}</h2>${note}${invited}
      <button class="primary big-button" data-do="guest">${t("login.guest")}</button>${formError("guest")}
      <p>${t("login.or")}</p>
      <form id="login-form" novalidate>
        <div class="form-row"><label for="u">${t("login.user")}</label><input id="u" name="username" autocomplete="username" required${invalid("login-form", "username")}>${fieldError("login-form", "username")}</div>
        <div class="form-row"><label for="p">${t("login.password")}</label><input id="p" name="password" type="password" autocomplete="current-password" required${invalid("login-form", "password")}>${fieldError("login-form", "password")}</div>
        <div class="form-row"><button class="primary" type="submit" data-mode="login">${t("login.submit")}</button>
        <button type="submit" data-mode="register">${t("login.register")}</button></div>
        ${formError("login-form")}
      </form></div></div>`;
  },

  lobby() {
    const a = S.account;
    const hello = a ? `<p>${t("lobby.hello", { name: esc(a.username) })} · ${t("profile.silver")} ${a.silver} · ${t("profile.points")} ${a.points}</p>` : "";
    const q = S.queued;
    const queued = q ? `<div class="queued" data-queued="1"><span class="spinner" aria-hidden="true"></span>${t("lobby.queued", { n: q.waiting })}` +
      `${typeof q.bots_after === "number" ? ` · ${t("lobby.bots_in", { s: Math.ceil(q.bots_after) })}` : ""}` +
      ` <button type="button" data-do="cancel-queue">${t("lobby.cancel")}</button></div>` : "";
    const quick = q ? "" : `<button class="primary big-button" data-do="quick">${t("lobby.quick")}</button>`;
    const F = "create-form";
    const row = (name, label, control) => `<div class="form-row"><label for="cf-${name}">${label}</label>${control}${fieldError(F, name)}</div>`;
    // the lobby's own line (the host asked you to leave his room, the club's table you left)
    // at its top: under the lists below it was off a phone's first screen
    const said = S.error ? `<p class="error lobby-error" role="alert">${esc(S.error)}</p>` : "";
    return `<div class="screen">${hello}${said}
      <div class="card">${quick}${queued}${formError("quick")}<p class="lobby-puzzle"><a class="button" href="#/puzzles" data-lobby-puzzle="1">${t("lobby.daily_puzzle")}</a></p>${S.enteredTournament ? `<a href="#/tournament?id=${encodeURIComponent(S.enteredTournament)}" data-entered-tournament="${esc(S.enteredTournament)}">${t("tour.view_entered")}</a>` : ""}</div>
      <div class="card"><h3>${t("lobby.create")}</h3><form id="${F}" novalidate>
        ${row("profile", t("opt.profile"), `<select id="cf-profile" name="profile">${PROFILES.map((p) => `<option value="${p}">${t(`opt.profile.${p}`)}</option>`).join("")}</select>`)}
        ${row("opening_scoring", t("opt.opening"), `<select id="cf-opening_scoring" name="opening_scoring"><option value="">${t("opt.opening.default")}</option><option value="per_opening">${t("opt.opening.per_opening")}</option><option value="once">${t("opt.opening.once")}</option></select>`)}
        ${row("cap", t("opt.cap"), `<input id="cf-cap" name="cap" type="number" inputmode="numeric" min="1" placeholder="${t("opt.default")}"${invalid(F, "cap")}>`)}
        ${row("hands", t("opt.hands"), `<input id="cf-hands" name="hands" type="number" inputmode="numeric" min="1" max="64" value="4"${invalid(F, "hands")}>`)}
        ${row("claim_window_seconds", t("opt.claim"), `<input id="cf-claim_window_seconds" name="claim_window_seconds" type="number" inputmode="decimal" min="1" max="60" step="0.5" placeholder="${t("opt.default")}"${invalid(F, "claim_window_seconds")}>`)}
        ${row("stake", t("opt.stake"), `<input id="cf-stake" name="stake" type="number" inputmode="numeric" min="0" value="0"${invalid(F, "stake")}>`)}
        ${row("spectators", t("opt.spectators"), `<select id="cf-spectators" name="spectators"><option value="on">${t("opt.spectators.on")}</option><option value="off">${t("opt.spectators.off")}</option></select>`)}
        ${row("distinct_addresses", t("opt.distinct_addresses"), `<select id="cf-distinct_addresses" name="distinct_addresses"><option value="off">${t("opt.distinct_addresses.off")}</option><option value="on">${t("opt.distinct_addresses.on")}</option></select>`)}
        <button class="primary" type="submit">${t("lobby.create")}</button>${formError(F)}</form></div>
      <div class="card"><h3>${t("lobby.join")}</h3><form id="join-form" novalidate><div class="form-row">
        <input name="code" inputmode="numeric" maxlength="6" placeholder="${t("lobby.code")}" aria-label="${t("lobby.code")}" required${invalid("join-form", "code")}>
        <button class="primary" type="submit">${t("lobby.join_btn")}</button></div>${formError("join-form")}</form></div>
      ${clubsCardHTML()}${tournamentsCardHTML()}${watchListHTML()}${S.account ? followingHTML() : ""}</div>`;
  },

  room() {
    const r = S.room;
    if (!r) return `<div class="screen"><p>${t("app.loading")}</p></div>`;
    const me = r.members.find((m) => m.you);
    const kick = (m) => (me && me.host && !m.you ? ` <button type="button" data-kick="${esc(m.name)}" aria-label="${esc(t("room.kick_who", { who: m.name }))}">${t("room.kick")}</button>` : "");
    const sameIP = (m) => m.same_address ? ` <span class="same-address" data-same-address="${Number(m.same_address)}" title="${t("room.same_address_about")}">${t("room.same_address", { n: Number(m.same_address) })}</span>` : "";
    const members = r.members.map((m) => `<li>${esc(m.name)}${m.host ? " ★" : ""}${m.ready ? " ✔" : ""}${m.you ? ` (${t("seat.you")})` : ""}${m.away ? ` <span class="member-away" data-away="1">${t("room.away")}</span>` : ""}${sameIP(m)}${kick(m)}</li>`).join("");
    const overrides = Object.entries(r.overrides || {}).map(([k, v]) => `<li data-override="${esc(k)}">${esc(ruleLabel(k))}: <b>${esc(ruleValue(k, v))}</b></li>`).join("");
    return `<div class="screen"><div class="card"><h2>${t("room.title", { code: esc(r.code) })}</h2>
      <div class="room-code" data-code="${esc(r.code)}">${esc(r.code)}</div>
      <p>${t("room.share", { code: esc(r.code) })}</p>
      <div class="form-row invite"><label for="invite-link">${t("room.invite")}</label><input id="invite-link" class="invite-link" readonly value="${esc(invitationURL(r.code))}">
      <button type="button" data-do="invite">${t(S.inviteCopied === r.code ? "room.copied" : "room.copy")}</button></div>
      ${r.options.club ? `<p class="club-tag" data-room-club="${esc(r.options.club)}">${r.club_name ? t("club.table_of_named", { name: esc(r.club_name), n: esc(r.options.club) }) : t("club.table_of", { n: esc(r.options.club) })}</p>` : ""}<p class="room-options">${optionsLine(r.options)}</p>
      ${overrides ? `<ul class="overrides">${overrides}</ul>` : ""}
      <ul class="seats-list">${members}</ul>${roomNotes(r.members)}<p>${t("room.waiting")}</p>
      <div class="form-row">${me && !me.ready ? `<button data-do="ready">${t("table.ready")}</button>` : ""}${me && me.ready ? `<button data-do="unready">${t("room.unready")}</button>` : ""}
      ${me && me.host ? `<button class="primary" data-do="start">${t("room.start")}</button>` : ""}
      <button data-do="leave">${t("room.leave")}</button></div>
      <p class="error" role="alert">${esc(S.error)}</p></div>
      <div class="card">${inviteFollowedHTML()}</div></div>`;
  },

  table() {
    if (!S.view) return `<p>${t("app.loading")}</p>`;
    const c = ctx();
    const again = S.lastSettlement && !S.settlementOpen ? `<button data-do="show-settlement">${t("settle.title")}</button>` : "";
    const err = S.error ? `<p class="error" role="alert">${esc(S.error)}</p>` : "";
    const auto = S.state && S.state.auto;
    const tools = S.fixture ? "" : `<div class="table-tools">` +
      `<button data-do="chat" aria-expanded="${S.chatOpen}">${t("chat.open")}</button>` +
      `<button data-do="info" aria-expanded="${S.infoOpen}">${t("table.info")}</button>` +
      `<button data-do="auto" aria-pressed="${auto ? "true" : "false"}">${auto ? t("table.auto_off") : t("table.auto_on")}</button>` +
      `${endVoteButtonHTML(S.table, S.view)}<button data-do="escape">${t("table.leave")}</button>${again}${watchersHTML(S.table)}</div>`;
    const chat = S.chatOpen && !S.fixture ? chatPanelHTML(S.players, S.view, S.muted) : "";
    // the settings a player changes during a match, here too: the settings page is a step
    // away from the table (leaving the table is an escape). Live (drawn from the settings,
    // never restored from what it showed before): the menu's mute switch changes one too.
    const autoForm = `<form id="table-auto-form" class="form-row table-auto" data-live="1">` +
      `<label><input type="checkbox" name="autowin" ${settings.autowin ? "checked" : ""}> ${t("settings.autowin")}</label>` +
      `<label><input type="checkbox" name="autopass" ${settings.autopass ? "checked" : ""}> ${t("settings.autopass")}</label>` +
      `<label><input type="checkbox" name="sound" ${settings.sound ? "checked" : ""}> ${t("settings.sound")}</label>` +
      `<label>${t("settings.tiles")} ${settingSelect("tiles", CHOICES.tiles, "table-set-tiles")}</label>` +
      `<label>${t("settings.speed")} ${settingSelect("speed", CHOICES.speed, "table-set-speed")}</label></form>`;
    const overrides = S.table ? tableOverrides(S.table) : {};
    const allRules = S.tableRulesOpen && S.rules && S.table ? tableRulesHTML(S.rules, S.table, overrides) : null;
    const info = S.infoOpen && S.table ? tableInfoHTML(S.table, { label: ruleLabel, value: ruleValue, overrides, extra: autoForm, inHand: inHand(), allRules }) : "";
    const tour = S.table && S.table.tournament;
    const banner = tour ? `<p class="tour-banner" data-tournament-round="${tour.round}"><a href="#/tournament?id=${encodeURIComponent(tour.id)}">${t("tour.banner", { name: esc(tour.name), round: tour.round, rounds: tour.rounds })}</a></p>` : "";
    const vote = S.fixture ? "" : endVoteHTML(S.table ? S.table.seat : null, S.players, S.table);
    return renderTable(S.view, c) + commitmentHTML(S.view) + err + banner + vote + tools + chat + info +
      `<div class="keys-help">${t("keys.help")}</div>`;
  },

  summary() {
    const m = S.matchEnd;
    if (!m) return `<div class="screen"><p>${t("app.loading")}</p></div>`;
    // another player (not a bot, not oneself) may be reported (举报)
    const reportable = (seat) => seat !== m.mySeat && m.mySeat !== null && m.players.some((p) => p.seat === seat && !p.bot);
    const signed = (n) => `${n > 0 ? "+" : ""}${n}`;
    // every hand's points as the server settled them (a hand missed while the connection was
    // down too), and an escape's penalty (the escaper pays it, the others share it) in a
    // column of its own: each row adds up to its total
    const hands = m.hands || [];
    const escapes = m.results.map((r) => (m.escape_points || [])[r.seat] || 0);
    const escapeCol = escapes.some((n) => n !== 0);
    const escaped = (seat) => m.players.some((p) => p.seat === seat && p.escaped);
    // one's own row says so, as the table and the settlement do (a guest's name is a code)
    const you = (seat) => (seat === m.mySeat ? ` (${t("seat.you")})` : "");
    const rows = m.results.map((r, i) => `<tr data-seat="${r.seat}"${r.seat === m.mySeat ? ` class="you"` : ""}><td>${esc(r.name)}${you(r.seat)}${escaped(r.seat) ? ` · ${t("profile.escaped")}` : ""}</td>` +
      hands.map((deltas) => `<td>${signed(deltas[r.seat])}</td>`).join("") +
      (escapeCol ? `<td data-escapes="${escapes[i]}">${signed(escapes[i])}</td>` : "") +
      `<td><b>${r.points}</b></td><td>${m.stake ? t("summary.silver", { n: r.silver }) : ""}</td>` +
      `<td>${reportable(r.seat) ? reportSeatHTML(m.match_id, r.seat) : ""}</td></tr>`).join("");
    const head = `<tr><th></th>${hands.map((_, i) => `<th>${t("table.hand_no", { n: i + 1 })}</th>`).join("")}` +
      `${escapeCol ? `<th>${t("summary.escapes")}</th>` : ""}<th>${t("summary.total")}</th><th></th><th></th></tr>`;
    const links = hands.map((_, i) => `<button data-replay="${esc(m.match_id)}/${i}">${t("replay.title")} ${i + 1}</button>`).join(" ");
    return `<div class="screen"><div class="card"><h2>${t("summary.title")}</h2>
      <div class="scroll-x"><table class="summary"><thead>${head}</thead><tbody>${rows}</tbody></table></div>
      <p>${links}</p>
      <div class="form-row">${m.tournament
        ? `<a class="button primary" href="#/tournament?id=${encodeURIComponent(m.tournament)}" data-back-tournament="${esc(m.tournament)}">${t("summary.tournament")}</a>`
        : m.rematch
          ? `<button class="primary" data-do="rematch">${t("summary.rematch")}</button><button data-do="quick">${t("lobby.quick")}</button>`
          : `<button class="primary" data-do="quick">${t("summary.again")}</button>`}<button data-nav="lobby">${t("summary.lobby")}</button></div>
      ${m.rematch ? `<p class="muted">${t("summary.rematch_note")}</p>` : ""}<p class="error" role="alert">${esc(S.error)}</p></div></div>`;
  },

  replay() {
    const r = S.replay;
    const form = `<form id="replay-form" class="form-row"><label for="replay-id">${t("replay.id")}</label>
      <input id="replay-id" name="hand" value="${esc(r ? r.id || "" : "")}" placeholder="match/hand"><button type="submit">${t("replay.load")}</button></form>`;
    if (!r || !r.frames) return `<div class="screen"><div class="card"><h2>${t("replay.title")}</h2>${form}<p class="error">${esc(r && r.error ? r.error : "")}</p></div></div>`;
    const f = r.frames[r.i];
    const view = replayView(f.view);
    const c = { names: r.names || null, selected: null, deadline: null, hint: null, pending: true, chooser: null, replayHands: f.hands, replayYou: r.seat, caption: replayCaption(f) };
    const match = r.id.split("/")[0];
    const hands = r.hands && r.hands.length > 1 ? `<div class="replay-bar">${r.hands.map((n) => `<button ${r.staff ? "data-replay-staff" : "data-replay"}="${esc(match)}/${n}" ${`${match}/${n}` === r.id ? "disabled" : ""}>${t("table.hand_no", { n: n + 1 })}</button>`).join("")}</div>` : "";
    if (r.staff) { // a staff member reading any match (a report's): no review, check or sharing, which are the players'
      const who = (r.names || []).map((name, seat) => `<span data-replay-player="${seat}">${esc(seatName(seat))} ${esc(name || "—")}</span>`).join(" · ");
      return `<div class="replay" data-replay-staff-match="${esc(match)}"><div class="card staff-replay-head"><h2>${t("staff.replay.title")}</h2>
        <p>${t("staff.replay.match", { match: `<code>${esc(match)}</code>` })} · <a href="#/staff?tab=reports">${t("staff.replay.back")}</a></p>
        ${who ? `<p class="muted staff-replay-players">${who}</p>` : ""}</div>
        <div class="replay-bar"><button data-rp="start">« ${t("replay.start")}</button><button data-rp="prev">◀ ${t("replay.prev")}</button>
        <span data-step="${r.i}">${t("replay.step", { i: r.i + 1, n: r.frames.length })}</span>
        <button data-rp="next">${t("replay.next")} ▶</button><button data-rp="end">${t("replay.end")} »</button>
        <button data-rp="play">${r.timer ? t("replay.pause") : t("replay.play")}</button>
        ${f.view.result ? `<button data-rp="settle">${t("settle.title")}</button>` : ""}</div>
        ${hands}<div class="replay-caption">${esc(c.caption)}</div>${renderTable(view, c)}</div>`;
    }
    return `<div class="replay">${form}
      <div class="replay-bar"><button data-rp="start">« ${t("replay.start")}</button><button data-rp="prev">◀ ${t("replay.prev")}</button>
      <span data-step="${r.i}">${t("replay.step", { i: r.i + 1, n: r.frames.length })}</span>
      <button data-rp="next">${t("replay.next")} ▶</button><button data-rp="end">${t("replay.end")} »</button>
      <button data-rp="play">${r.timer ? t("replay.pause") : t("replay.play")}</button>
      ${f.view.result ? `<button data-rp="settle">${t("settle.title")}</button>` : ""}</div>
      ${reviewHTML(r)}
      ${hands}
      ${verifyHTML(`${r.pub ? "public" : "replay"}:${r.id}`)}${r.pub ? "" : shareBarHTML(r.id)}
      <div class="replay-caption">${esc(c.caption)}</div>${renderTable(view, c)}</div>`;
  },

  profile() {
    const a = S.account;
    if (!a) return `<div class="screen"><p>${t("app.loading")}</p></div>`;
    const en = getLang() === "en";
    const hist = S.history || [];
    const when = (s) => { const d = new Date(s); return Number.isNaN(d.getTime()) ? esc(s || "") : d.toLocaleString(getLang() === "en" ? "en" : "zh-CN"); }; // the page's language, not the browser's
    const signed = (n) => (n > 0 ? `+${n}` : `${n}`);
    const rows = hist.length ? hist.map((h) => `<tr><td>${when(h.finished_at)}</td><td>${esc(t(`opt.profile.${h.profile}`))}</td>` +
      `<td>${signed(h.points)}${h.silver ? ` · ${t("summary.silver", { n: signed(h.silver) })}` : ""}${h.escaped ? ` · ${t("profile.escaped")}` : ""}</td>` +
      `<td>${h.kind === "escape" ? "" : `<button data-replay="${esc(h.match_id)}">${t("profile.view")}</button>`}</td></tr>`).join("")
      : `<tr><td colspan="4">${t("profile.no_history")}</td></tr>`;
    const F = "upgrade-form";
    const done = S.upgraded ? `<p class="ok" role="status">${t("profile.upgraded")}</p>` : "";
    return `<div class="screen"><div class="card"><h2>${t("profile.title")}</h2>
      <p><b>${esc(a.username)}</b>${a.is_guest ? ` (${t("profile.guest")})` : ` · <a href="#/player?name=${encodeURIComponent(a.username)}" data-my-page="1">${t("player.public")}</a>`}</p>${done}
      ${S.staffRole ? `<p class="staff-link"><a class="button" href="#/staff" data-staff-link="${esc(S.staffRole)}">${t("nav.staff")}</a> <span class="muted">${t("profile.staff_role", { role: t(`staff.role.${S.staffRole}`) })}</span></p>` : ""}
      <table class="history"><tbody>
      <tr><th>${t("profile.silver")}</th><td data-field="silver">${a.silver}</td></tr>
      <tr><th>${t("profile.points")}</th><td data-field="points">${a.points}</td></tr>
      <tr><th>${t("profile.level")}</th><td>${a.level} · ${esc(en ? a.title_en : a.title)}${S.toNextLevel ? ` · ${t("profile.to_next", { n: S.toNextLevel })}` : ""}${(S.ratings || []).map((r) => ` · ${t("profile.rating", { profile: t(`opt.profile.${r.profile}`), n: r.rating })}`).join("")}</td></tr>
      <tr><th>${t("profile.rank")}</th><td>${esc(en ? a.rank_en : a.rank)}</td></tr></tbody></table></div>
      <div class="card"><h3>${t("stats.title")}</h3>${statsHTML(S.stats, true)}</div>
      <div class="card"><h3>${t("profile.history")}</h3><div class="scroll-x"><table class="history"><tbody>${rows}</tbody></table></div></div>
      ${blockedCardHTML()}${myReportsHTML()}${accountCardHTML(a)}
      ${a.is_guest ? `<div class="card"><h3>${t("profile.upgrade")}</h3><form id="${F}" novalidate>
        <div class="form-row"><label for="uu">${t("login.user")}</label><input id="uu" name="username" autocomplete="username" required${invalid(F, "username")}>${fieldError(F, "username")}</div>
        <div class="form-row"><label for="up">${t("login.password")}</label><input id="up" name="password" type="password" autocomplete="new-password" required${invalid(F, "password")}>${fieldError(F, "password")}</div>
        <button class="primary" type="submit">${t("login.register")}</button>${formError(F)}</form></div>` : ""}
      <button data-do="logout">${t("login.logout")}</button></div>`;
  },

  rules() {
    if (!S.rules) {
      loadRules();
      return `<div class="screen"><div class="card"><h2>${t("rules.title")}</h2><p>${S.rulesError ? esc(S.rulesError) : t("app.loading")}</p></div></div>`;
    }
    return renderRules(S.rules, S.rulesProfile || S.rules.default_profile || PROFILES[0], S.rulesFactor);
  },

  calculator() { return calculatorHTML(); },

  settings() {
    const opt = (name, values) => settingSelect(name, values, `set-${name}`);
    return `<div class="screen"><div class="card"><h2>${t("settings.title")}</h2><form id="settings-form" data-live="1">
      <div class="form-row"><label for="set-sound">${t("settings.sound")}</label><input id="set-sound" name="sound" type="checkbox" ${settings.sound ? "checked" : ""}></div>
      <div class="form-row"><label for="set-autowin">${t("settings.autowin")}</label><input id="set-autowin" name="autowin" type="checkbox" ${settings.autowin ? "checked" : ""}></div>
      <div class="form-row"><label for="set-autopass">${t("settings.autopass")}</label><input id="set-autopass" name="autopass" type="checkbox" ${settings.autopass ? "checked" : ""}></div>
      <p class="muted">${t("settings.auto_about")}</p>
      <div class="form-row"><label for="set-speed">${t("settings.speed")}</label>${opt("speed", CHOICES.speed)}</div>
      <div class="form-row"><label for="set-tiles">${t("settings.tiles")}</label>${opt("tiles", CHOICES.tiles)}</div>
      <div class="form-row"><label for="set-lang">${t("settings.lang")}</label><select id="set-lang" name="lang">${["zh", "en"].map((l) => `<option value="${l}" ${getLang() === l ? "selected" : ""}>${t(`lang.${l}`)}</option>`).join("")}</select></div>
      </form><p class="muted">${t("settings.kept")}</p></div></div>`;
  },

  fixture() {
    const f = S.fixture;
    if (!f || !f.view) return `<p>${t("app.loading")}</p>`;
    const c = { names: f.names, selected: S.selected, deadline: S.deadline, hint: f.hint, pending: false, chooser: S.chooser, chooserTile: S.chooserTile, replayHands: null, caption: "", bubbles: f.bubbles || {} };
    const opts = Object.keys(f.views).map((k) => `<option ${k === f.frame ? "selected" : ""}>${esc(k)}</option>`).join("");
    return `<div class="fixture-bar"><select id="fixture-frame" aria-label="frame">${opts}</select></div>` + renderTable(f.view, c) +
      `<div class="keys-help">${t("keys.help")}</div>`;
  },
};

// ============================================================ countdown
/** The view on screen offers this player a decision he has not sent yet. */
function awaitingMe() {
  return !!S.view && (S.view.legal_actions || []).length > 0 && !S.pending;
}

function tick() {
  const next = overlay.querySelector("[data-next-hand]");
  if (next && S.nextHand) next.textContent = t("settle.next_in", { s: Math.max(0, Math.ceil((S.nextHand.at - Date.now()) / 1000)) });
  const el = $(".countdown", app);
  if (!el) return;
  if (!S.deadline || (S.view && S.view.phase === "ended")) { el.textContent = ""; return; }
  const s = Math.max(0, Math.ceil((S.deadline - Date.now()) / 1000));
  el.textContent = t("table.countdown", { s });
  el.classList.toggle("urgent", s <= 3);
  // the last seconds of one's own decision tick
  const mine = awaitingMe();
  if (S.screen === "table" && mine && s > 0 && s <= 3 && S.lastTick !== `${S.deadline}/${s}`) {
    S.lastTick = `${S.deadline}/${s}`;
    play("tick");
  }
}
setInterval(tick, 250);

// ============================================================ routing
const ROUTES = ["login", "lobby", "room", "table", "summary", "replay", "profile", "leaderboard", "player", "tournaments", "tournament", "clubs", "club", "puzzles", "rules", "settings", "fixture", "calculator", "watch", "join", "staff"];
const NEEDS_ACCOUNT = ["lobby", "room", "table", "summary", "profile", "watch", "clubs", "club", "staff"];
SCREENS.watch = watchHTML; // #/watch?id=TABLE: a spectator's read-only table (spectate.js)
SCREENS.leaderboard = leaderboardHTML; // #/leaderboard?profile=…&period=all|week (leaderboard.js)
SCREENS.player = playerHTML; // #/player?name=…: a player's public page (leaderboard.js)
SCREENS.tournaments = tournamentsHTML; // #/tournaments: the list and the form (tournaments.js)
SCREENS.tournament = tournamentHTML; // #/tournament?id=N: one tournament (tournaments.js)
SCREENS.clubs = clubsHTML; // #/clubs: the player's clubs, joining and founding one (clubs.js)
SCREENS.club = clubHTML; // #/club?n=NNNNNN&period=…: one club (clubs.js)
SCREENS.staff = staffHTML; // #/staff?tab=…&name=…: the staff pages (staff.js)
SCREENS.puzzles = puzzlesHTML; // #/puzzles?kind=…&profile=…&n=…: discard puzzles and win questions (puzzles.js)

function currentHash() {
  return location.hash || "#/";
}

/** Show `screen`; its route is pushed on the history (or replaces the current entry). */
function go(screen, params = "", { replace = false } = {}) {
  if (screen !== S.screen) { S.error = ""; toast(""); }
  if (S.screen === "watch" && screen !== "watch") closeWatch();
  S.screen = screen;
  const hash = `#/${screen}${params}`;
  if (currentHash() !== hash) {
    if (replace) history.replaceState(null, "", hash); else history.pushState(null, "", hash);
  }
  if (screen === "profile") { loadHistory(); loadMyReports(); }
  if (screen === "lobby") { loadLive(); loadFollowing(); openTournaments(); openClubs(); }
  if (screen === "leaderboard") openLeaderboard(S.board.profile, S.board.period);
  if (screen === "tournaments") openTournaments();
  if (screen === "clubs") openClubs();
  if (screen === "rules" || screen === "table" || screen === "room") loadRules();
  render();
}

/** A hand is being played at this player's seat (leaving now is an escape). */
function inHand() {
  return S.screen === "table" && S.table && S.view && S.view.viewer !== null && S.view.phase !== "ended" && !S.matchEnd;
}

/** The screen the hash asks for (Back, Forward, a link, a typed address). */
function route() {
  const { screen, params } = hashParams();
  if (screen === S.screen && !["replay", "rules", "calculator", "watch", "leaderboard", "player", "tournament", "club", "puzzles", "staff"].includes(screen)) return;
  if (S.screen === "watch" && screen !== "watch") closeWatch();
  if (S.screen === "tournament" && screen !== "tournament") stopRefresh();
  if (S.screen === "club" && screen !== "club") stopClubRefresh();
  if (inHand() && screen !== "table") {
    if (!window.confirm(t("nav.back_confirm"))) {
      history.pushState(null, "", "#/table");
      return;
    }
    send({ type: "leave", ref: "table" });
  }
  if (screen === "fixture") { loadFixture(params.get("src"), params.get("frame")); return; }
  if (!ROUTES.includes(screen)) { go(S.token ? "lobby" : "login", "", { replace: true }); return; }
  if (NEEDS_ACCOUNT.includes(screen) && !S.token) { keepForLogin(screen); go("login", "", { replace: true }); return; }
  if (screen !== "login") S.afterLogin = null; // gone elsewhere meanwhile: that page is forgotten
  if (screen === "login" && S.token) { go("lobby", "", { replace: true }); return; }
  if (screen === "room" && !S.room) { go("lobby", "", { replace: true }); return; }
  if (screen === "table" && !S.view) { if (S.atTable) send({ type: "snapshot" }); else go("lobby", "", { replace: true }); return; }
  if (screen === "summary" && !S.matchEnd) { go("lobby", "", { replace: true }); return; }
  if (screen === "replay") {
    // ?public=match/n: a published hand; ?src=… is the older form of a public link
    const legacy = /^\/api\/public\/hands\/([^/]+)\/(\d+)\/record\.jsonl$/.exec(params.get("src") || "");
    const pub = legacy ? `${decodeURIComponent(legacy[1])}/${legacy[2]}` : params.get("public");
    const staff = !pub && params.get("staff"); // ?staff=match[/n]: any finished hand, for the staff (a report's match)
    const id = pub || staff || params.get("id") || "";
    S.screen = "replay";
    if (id && (!S.replay || S.replay.id !== id || S.replay.pub !== !!pub || !!S.replay.staff !== !!staff)) loadReplay(id, !!pub, !!staff);
    else if (!id && params.get("src")) S.replay = { id: "", pub: true, frames: null, i: 0, error: t("replay.none") };
    render();
    return;
  }
  if (screen === "calculator") { S.screen = "calculator"; openCalculator(params.get("r")); render(); return; }
  if (screen === "watch") { S.screen = "watch"; openWatch(params.get("id")); render(); return; }
  if (screen === "leaderboard") {
    S.error = "";
    S.screen = "leaderboard";
    openLeaderboard(params.get("profile"), params.get("period"));
    if (S.token) loadHistory(); // this player's ratings: what he needs to appear
    render();
    return;
  }
  if (screen === "player") { S.error = ""; S.screen = "player"; openPlayer(params.get("name")); render(); return; }
  if (screen === "tournaments") { S.error = ""; S.screen = "tournaments"; openTournaments(); render(); return; }
  if (screen === "tournament") { S.error = ""; S.screen = "tournament"; openTournament(params.get("id")); render(); return; }
  if (screen === "clubs") { S.error = ""; S.screen = "clubs"; openClubs(); render(); return; }
  if (screen === "club") { S.error = ""; S.screen = "club"; openClub(params.get("n"), params.get("period")); render(); return; }
  if (screen === "staff") {
    const entering = S.screen !== "staff";
    S.error = ""; S.screen = "staff"; openStaff(params.get("tab"), params.get("name"), entering); render(); return;
  }
  if (screen === "puzzles") { S.error = ""; S.screen = "puzzles"; openPuzzle(params.get("profile"), params.get("n"), params.get("kind")); render(); return; }
  if (screen === "join") { acceptInvitation(params.get("code")); return; }
  if (screen === "rules") {
    S.rulesProfile = params.get("profile") || null;
    S.rulesFactor = params.get("factor") || null;
    S.screen = "rules";
    loadRules();
    render();
    scrollToFactor();
    return;
  }
  S.error = "";
  S.screen = screen;
  if (screen === "profile") { loadHistory(); loadMyReports(); }
  if (screen === "lobby") { loadLive(); loadFollowing(); openTournaments(); openClubs(); }
  render();
}
window.addEventListener("hashchange", route);

async function loadHistory() {
  if (!S.token) return;
  try {
    const data = await api("GET", "/api/profile");
    S.account = data.account || S.account;
    S.toNextLevel = data.points_to_next_level;
    S.history = data.history || [];
    S.ratings = data.ratings || [];
    S.stats = data.stats || [];
    const wasStaff = S.staffRole;
    S.staffRole = data.staff || null; // the staff pages' link (管理) on the profile and in the menu
    if (S.screen === "profile" || S.screen === "leaderboard" || wasStaff !== S.staffRole) render();
  } catch { /* the profile shows without history */ }
}

function hashParams() {
  const h = location.hash.replace(/^#\/?/, "");
  const [screen, query] = h.split("?");
  return { screen: screen || "", params: new URLSearchParams(query || "") };
}

/** A replay: the server replays the stored hand with the engine and sends every step's
 * frame {events, view, hands} (docs/protocol.md "Replays"); this page only steps through
 * them. `pub`: a published hand (no account needed); `staff`: any finished hand, for a
 * staff member whose role may replay (GET /api/staff/matches/{m}: its hands and its
 * players' names; the same frames from /api/staff/matches/{m}/hands/{n}/frames); else one
 * the player sat at. */
async function loadReplay(id, pub = false, staff = false) {
  S.replay = { id, pub, staff, frames: null, i: 0, error: "", names: null, seat: null };
  render();
  try {
    const [match, hand] = id.split("/");
    const m = encodeURIComponent(match);
    let path;
    if (pub) {
      path = `/api/public/hands/${m}/${encodeURIComponent(hand)}/frames`;
      // the published hand's players, to name its seats (the frames carry no names)
      api("GET", `/api/public/hands/${m}/${encodeURIComponent(hand)}`).then((h) => {
        if (S.replay && S.replay.id === id && Array.isArray(h.players)) { S.replay.names = h.players; if (S.screen === "replay") render(); }
      }).catch(() => {});
    } else if (staff) {
      const list = await api("GET", `/api/staff/matches/${m}`);
      S.replay.hands = list.hands || [];
      S.replay.names = Array.isArray(list.players) ? list.players : null;
      const n = hand !== undefined && hand !== "" ? Number(hand) : S.replay.hands[0];
      S.replay.id = `${match}/${n}`;
      path = `/api/staff/matches/${m}/hands/${n}/frames`;
    } else {
      // GET /api/matches/{id}/hands lists the hands the player sat at
      const list = await api("GET", `/api/matches/${m}/hands`);
      S.replay.hands = list.hands || [];
      // who sat where, and one's own seat: drawn at the bottom, as at the table
      S.replay.names = Array.isArray(list.players) ? list.players : null;
      S.replay.seat = Number.isInteger(list.seat) ? list.seat : null;
      const n = hand !== undefined && hand !== "" ? Number(hand) : S.replay.hands[0];
      S.replay.id = `${match}/${n}`;
      path = `/api/matches/${m}/hands/${n}/frames`;
    }
    const data = await api("GET", path);
    if (!data.frames || !data.frames.length) throw apiError("not_found", {}, 404);
    S.replay.frames = data.frames;
    // the address names the hand shown, so it can be shared or reloaded
    if (S.screen === "replay") history.replaceState(null, "", `#/replay?${pub ? "public" : staff ? "staff" : "id"}=${encodeURIComponent(S.replay.id)}`);
  } catch (e) {
    S.replay.error = e.status === 404 ? t("replay.none") : t("app.error", { msg: e.code ? errorText(e) : e.message });
  }
  if (S.screen === "replay") render();
}

/** A replay frame's view as its watcher sees it: from his own seat when he played the hand
 * (that seat at the bottom, as at the table), else from East's. */
function replayView(view) {
  const seat = S.replay ? S.replay.seat : null;
  return seat === null || seat === undefined ? view : { ...view, viewer: seat };
}

function openReplay(id, staff = false) {
  go("replay", `?${staff ? "staff" : "id"}=${encodeURIComponent(id)}`);
  loadReplay(id, false, staff);
}

/** A frame's caption: what its record lines say happened (the answers in a claim window
 * show when it is resolved, by the claim or the win). */
function replayCaption(frame) {
  const out = [];
  const seats = frame.view.seats;
  for (const ev of frame.events) {
    const a = ev.action || {};
    if (ev.e === "deal") out.push(t("replay.ev.deal", { indicator: tileName(ev.indicator), laizi: tileName(ev.laizi) }));
    else if (ev.e === "draw") {
      const key = { replacement: "replay.ev.replacement", final: "replay.ev.final" }[ev.from] || "replay.ev.draw";
      out.push(`${t(key, { who: seatName(ev.seat) })} ${tileName(ev.tile)}`);
    } else if (ev.e === "act" && a.type === "discard") out.push(t("replay.ev.discard", { who: seatName(ev.seat), tile: tileName(a.tile) }));
    else if (ev.e === "act" && a.type === "laizi_discard") out.push(t("replay.ev.laizi_discard", { who: seatName(ev.seat) }));
    else if (ev.e === "act" && a.type === "special_kong") out.push(t("replay.ev.special", { who: seatName(ev.seat), kind: t(`act.special.${a.kind}`) }));
    else if (ev.e === "act" && a.type === "kong" && a.kind !== "direct") {
      out.push(t("replay.ev.kong", { who: seatName(ev.seat), kind: t(`act.kong.${a.kind}`), tile: tileName(a.tile) }));
    } else if (ev.e === "claim") {
      const river = seats[ev.from].discards;
      const tile = river.length ? river[river.length - 1].tile : a.tile; // the discard taken
      const act = a.type === "kong" ? t("act.kong.direct") : t(`act.${a.type}`);
      out.push(t("replay.ev.claim", { who: seatName(ev.seat), act, tile: tileName(tile), from: seatName(ev.from) }));
    } else if (ev.e === "kong") out.push(t("replay.ev.kong", { who: seatName(ev.seat), kind: t("act.kong.added"), tile: tileName(ev.tile) }));
    else if (ev.e === "end_phase") out.push(t("replay.ev.end_phase"));
    else if (ev.e === "win") out.push(t("replay.ev.win", { who: seatName(ev.seat) }));
    else if (ev.e === "exhausted") out.push(t("replay.ev.exhausted"));
    else if (ev.e === "escape") out.push(t("replay.ev.escape", { who: seatName(ev.seat) }));
    else if (ev.e === "reveal") out.push(t("replay.ev.reveal"));
  }
  return out.join(" · ");
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
  S.screen = "fixture";
  render();
  autoAnswer({ match_id: "fixture", view: S.view, answered: false }); // the settings apply here too
  document.body.dataset.ready = "1";
}

async function start() {
  setLang(getLang());
  const { screen, params } = hashParams();
  if (screen === "fixture") { await loadFixture(params.get("src"), params.get("frame")); return; }
  registerServiceWorker();
  if (S.token) connect();
  else if (servedByWorker()) checkServer();
  if (["replay", "rules", "settings", "calculator", "watch", "leaderboard", "player", "tournaments", "tournament", "clubs", "club", "puzzles", "join", "staff"].includes(screen)) route();
  else if (S.token) go(["profile", "lobby"].includes(screen) ? screen : "lobby", "", { replace: true });
  else { keepForLogin(screen); go("login", "", { replace: true }); }
  document.body.dataset.ready = "1";
}

/** The page an address asked for before signing in (a club's, a table to watch, the
 * profile), opened once signed in instead of the lobby: a link shared to a friend signed
 * out still leads where it named.  Rooms, tables and summaries are not kept: they belong
 * to a session. */
const KEPT_FOR_LOGIN = ["profile", "watch", "clubs", "club", "staff"];
function keepForLogin(screen) {
  S.afterLogin = KEPT_FOR_LOGIN.includes(screen) ? currentHash() : null;
}

/** Signed in: the page kept by keepForLogin(), in place of the sign-in screen, else the
 * lobby. */
function afterLogin() {
  const hash = S.afterLogin;
  S.afterLogin = null;
  if (!hash) { go("lobby", "", { replace: true }); return; }
  history.replaceState(null, "", hash);
  route();
}

// ============================================================ events
async function guest() {
  delete S.formErrors.guest;
  try {
    const data = await api("POST", "/api/guest", {});
    saveToken(data.token);
    S.account = data.account || null;
    connect();
    if (S.invitation) joinInvitation(); else afterLogin();
  } catch (e) { setFormError("guest", e, "login.guest_failed"); render(); }
}

async function login(mode, form) {
  const body = { username: form.username.value, password: form.password.value };
  delete S.formErrors["login-form"];
  try {
    const data = await api("POST", mode === "register" ? "/api/register" : "/api/login", body);
    saveToken(data.token);
    S.account = data.account || null;
    delete S.forms["login-form"];
    connect();
    if (S.invitation) joinInvitation(); else afterLogin();
  } catch (e) {
    setFormError("login-form", e, mode === "register" ? "login.register_failed" : "login.failed");
    render();
  }
}

// ============================================================ invitations
/** The address that brings a friend into room `code` (#/join?code=…). */
function invitationURL(code) {
  return `${location.origin}${location.pathname}#/join?code=${encodeURIComponent(code)}`;
}

/** #/join?code=…: join that room, at once when signed in, else after signing in (the
 * login screen says so). A code that is not one shows in the lobby's join form. */
function acceptInvitation(raw) {
  const code = String(raw || "").normalize("NFKC").trim();
  presetForm("join-form", { code });
  if (!/^[0-9]{6}$/.test(code)) {
    S.invitation = null;
    S.formErrors["join-form"] = { text: t("lobby.bad_code"), field: "code", fresh: true };
    go(S.token ? "lobby" : "login", "", { replace: true });
    return;
  }
  S.invitation = code;
  if (!S.token) { go("login", "", { replace: true }); return; }
  joinInvitation();
}

/** The room's list of the friends (players who follow each other) who are online and at no
 * table: one button each invites him (``invite``; he sees ``invited``). */
function inviteFollowedHTML() {
  const players = (S.following && S.following.players) || [];
  const free = players.filter((p) => p.follows_you && p.online && !p.playing); // friends only
  const sent = S.inviteSent || {};
  const rows = free.map((p) => `<li data-invitable="${esc(p.username)}">${esc(p.username)} ` +
    `<button type="button" data-invite-player="${esc(p.username)}" ${sent[p.username] ? "disabled" : ""}>${t(sent[p.username] ? "room.invite_sent" : "room.invite_player")}</button></li>`).join("");
  const body = rows ? `<ul class="following-list">${rows}</ul>` : `<p class="muted">${t("room.invite_none")}</p>`;
  const err = S.inviteError ? `<p class="error" role="alert">${esc(S.inviteError)}</p>` : "";
  return `<div class="invite-followed"><h3>${t("room.invite_followed")}</h3>${body}${err}</div>`;
}

/** The invitation someone sent this player (``invited``): join or not, on any screen but
 * the table (a hand is not interrupted; it waits there until the player leaves it). */
function invitedHTML() {
  const v = S.invited;
  if (!v || S.screen === "table" || !S.account) return "";
  // the room's options as its own screen shows them (the stake too); optionsLine escapes
  return `<div class="card invited-card" role="alert" data-invited="${esc(v.code)}"><p>${t("room.invited_by", { who: esc(v.by), code: esc(v.code), rules: optionsLine(v.options) })}</p>
    <div class="form-row"><button class="primary" data-do="invited-join">${t("room.invited_join")}</button><button data-do="invited-no">${t("room.invited_no")}</button></div></div>`;
}

/** Send the join of the invitation's room (once signed in), from the lobby. */
function joinInvitation() {
  const code = S.invitation;
  if (!code) return;
  S.invitation = null;
  go("lobby", "", { replace: true });
  if (!sendWhenConnected({ type: "join_room", code, ref: "join-form" })) setFormError("join-form", { code: "network" });
}

/** Copy the invitation's address (the field shows it too, for a browser without a
 * clipboard here: an address over plain http). */
async function copyInvitation() {
  const code = S.room && S.room.code;
  const field = $("#invite-link");
  if (!code || !field) return;
  try {
    await navigator.clipboard.writeText(invitationURL(code));
    S.inviteCopied = code;
    render();
  } catch {
    field.focus(); field.select(); // the player copies it himself
  }
}

/** A new password: the server ends every session of the account (this socket too) and
 * answers with a fresh one, which this tab keeps (docs/server.md, POST /api/password). */
async function changePassword(form) {
  const F = "password-form";
  delete S.formErrors[F];
  S.passwordChanged = false;
  S.renewing = true; // the socket's "logged_out" notice is ours: no signing out
  S.wantSocket = false;
  try {
    const data = await api("POST", "/api/password", { old_password: form.old_password.value, new_password: form.new_password.value });
    saveToken(data.token);
    S.account = data.account || S.account;
    S.passwordChanged = true;
    form.reset(); // render() remembers what the fields hold: nothing now
    delete S.forms[F];
  } catch (e) {
    setFormError(F, e.code === "authentication_failed" ? { ...e, params: { field: "old_password" } } : e);
  } finally {
    S.renewing = false;
    if (S.ws && S.ws.readyState === WebSocket.OPEN) S.wantSocket = true;
    else connect();
  }
  render();
}

/** Close the account for good, after a confirmation; then the login screen says so. */
async function closeAccount(form) {
  const F = "close-form";
  delete S.formErrors[F];
  if (!window.confirm(t("account.close_confirm"))) { render(); return; }
  const body = form.password ? { password: form.password.value } : {};
  S.renewing = true;
  try {
    await api("POST", "/api/account/close", body);
  } catch (e) {
    S.renewing = false;
    setFormError(F, e.code === "authentication_failed" ? { ...e, params: { field: "password" } } : e);
    render();
    return;
  }
  S.renewing = false;
  S.wantSocket = false;
  if (S.ws) S.ws.close();
  saveToken(null); S.account = null;
  delete S.forms[F];
  S.closeOpen = false;
  S.loginNote = t("account.closed");
  go("login", "", { replace: true });
}

function logout() {
  S.wantSocket = false;
  if (S.ws) S.ws.close();
  api("POST", "/api/logout", {}).catch(() => {});
  saveToken(null); S.account = null;
  go("login", "", { replace: true });
}

document.addEventListener("pointerdown", unlock, { once: true });
document.addEventListener("keydown", unlock, { once: true });

document.addEventListener("click", (ev) => {
  const el = ev.target.closest(CONTROLS);
  if (!el) return;
  if (el.id === "lang") { setLang(getLang() === "zh" ? "en" : "zh"); render(); return; }
  if (el.dataset.nav) {
    ev.preventDefault();
    if (el.dataset.nav === S.screen) return;
    location.hash = `#/${el.dataset.nav}`; // through route(): asks before leaving a hand
    return;
  }
  if (el.dataset.ruleLink) {
    const row = document.getElementById(`rule-${el.dataset.ruleLink}`);
    if (row) { row.scrollIntoView({ block: "center" }); row.classList.add("current"); }
    return;
  }
  if (el.dataset.rulesProfile) { ev.preventDefault(); location.hash = `#/rules?profile=${el.dataset.rulesProfile}`; return; }
  if (el.dataset.replay) { openReplay(el.dataset.replay); return; }
  if (el.dataset.replayStaff) { openReplay(el.dataset.replayStaff, true); return; }
  if (el.dataset.kick) {
    if (window.confirm(t("room.kick_confirm", { who: el.dataset.kick }))) send({ type: "kick", name: el.dataset.kick, ref: "room" });
    return;
  }
  if (el.dataset.invitePlayer) {
    S.inviteError = "";
    if (!send({ type: "invite", username: el.dataset.invitePlayer, ref: "invite" })) S.inviteError = errorText({ code: "network" });
    render();
    return;
  }
  if (el.dataset.idx !== undefined) {
    if (Date.now() - dragEndedAt > 400) clickTile(Number(el.dataset.idx));
    return;
  }
  if (el.dataset.chat) {
    const [kind, id] = el.dataset.chat.split(":");
    send({ type: "chat", [kind]: id, ref: "chat" });
    S.chatOpen = false; render();
    return;
  }
  if (el.dataset.muteSeat !== undefined) {
    const name = el.dataset.muteSeat;
    if (S.muted.has(name)) S.muted.delete(name); else S.muted.add(name);
    render();
    return;
  }
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
      // 继续: ready for the next hand (the pause ends once every player at the table is)
      if (!S.matchEnd && S.lastSettlement && S.nextHand && S.nextHand.hand_no === S.lastSettlement.hand_no) send({ type: "next_hand", hand_no: S.lastSettlement.hand_no });
      else if (!S.matchEnd && S.lastSettlement) S.continued = S.lastSettlement.hand_no;  // sent with its hand_end
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
    case "reconnect": showBanner(""); connect(); break; // take the account's connection back
    case "quick":
      S.error = ""; delete S.formErrors.quick;
      if (sendWhenConnected({ type: "quick_match", ref: "quick" })) S.queued = S.queued || { waiting: 1, bots_after: null };
      else setFormError("quick", { code: "network" });
      if (S.screen !== "lobby") go("lobby"); else render();
      break;
    case "cancel-queue": send({ type: "leave", ref: "quick" }); break;
    case "ready": send({ type: "ready", ready: true, ref: "room" }); break;
    case "unready": send({ type: "ready", ready: false, ref: "room" }); break; // 取消准备: not yet after all
    case "invite": copyInvitation(); break;
    case "invited-join": { const code = S.invited && S.invited.code; S.invited = null; if (code) acceptInvitation(code); else render(); break; }
    case "invited-no": S.invited = null; render(); break;
    case "rematch": // the room reopened for this match's players (match_end.rematch)
      S.error = "";
      if (!sendWhenConnected({ type: "join_room", code: S.matchEnd.rematch, ref: "rematch" })) S.error = errorText({ code: "network" });
      render();
      break;
    case "start": send({ type: "start", ref: "room" }); break;
    case "leave": send({ type: "leave", ref: "room" }); break;
    case "logout": logout(); break;
    case "watch-refresh": loadLive(); break;
    case "following-refresh": loadFollowing(); break;
    case "auto": S.autoAsked = Date.now(); send({ type: "auto", on: !(S.state && S.state.auto), ref: "table" }); break;
    case "escape": if (window.confirm(t("table.leave_confirm"))) send({ type: "leave", ref: "table" }); break;
    case "propose-end": S.error = ""; send({ type: "propose_end", ref: "table" }); break;
    case "end-yes": send({ type: "answer_end", agree: true, ref: "table" }); break;
    case "end-no": send({ type: "answer_end", agree: false, ref: "table" }); break;
    case "show-settlement": S.settlementOpen = true; renderOverlay(); break;
    case "chat": S.chatOpen = !S.chatOpen; S.infoOpen = false; render(); if (S.chatOpen) bringIntoView(".chat-panel"); break;
    case "info": S.infoOpen = !S.infoOpen; S.chatOpen = false; render(); if (S.infoOpen) bringIntoView(".table-info"); break;
    case "table-rules": S.tableRulesOpen = !S.tableRulesOpen; loadRules(); render(); break;
    case "mute": updateSettings({ sound: !settings.sound }); render(); break;
    default: break;
  }
});

function createOptions(f) {
  const options = { profile: f.profile.value, hands: Number(f.hands.value || 4), stake: Number(f.stake.value || 0) };
  if (f.opening_scoring.value) options.opening_scoring = f.opening_scoring.value;
  if (f.cap.value) options.cap = Number(f.cap.value);
  if (f.claim_window_seconds.value) options.claim_window_seconds = Number(f.claim_window_seconds.value);
  if (f.spectators && f.spectators.value === "off") options.spectators = false;
  if (f.distinct_addresses && f.distinct_addresses.value === "on") options.distinct_addresses = true;
  return options;
}

document.addEventListener("submit", (ev) => {
  const form = ev.target;
  ev.preventDefault();
  rememberForms();
  if (form.id === "login-form") {
    login(ev.submitter && ev.submitter.dataset.mode === "register" ? "register" : "login", form);
  } else if (form.id === "join-form") {
    const code = form.code.value.normalize("NFKC").trim(); // full-width digits from an input method
    delete S.formErrors["join-form"];
    if (!/^[0-9]{6}$/.test(code)) { S.formErrors["join-form"] = { text: t("lobby.bad_code"), field: "code", fresh: true }; render(); return; }
    if (!sendWhenConnected({ type: "join_room", code, ref: "join-form" })) setFormError("join-form", { code: "network" });
    render();
  } else if (form.id === "create-form") {
    delete S.formErrors["create-form"];
    try { localStorage.setItem("wm.form.create", JSON.stringify(S.forms["create-form"] || {})); } catch { /* ignore */ }
    if (!sendWhenConnected({ type: "create_room", options: createOptions(form.elements), ref: "create-form" })) setFormError("create-form", { code: "network" });
    render();
  } else if (form.id === "upgrade-form") {
    delete S.formErrors["upgrade-form"];
    api("POST", "/api/upgrade", { username: form.username.value, password: form.password.value })
      .then((data) => { S.account = data.account; S.upgraded = true; delete S.forms["upgrade-form"]; render(); })
      .catch((e) => { setFormError("upgrade-form", e, "profile.upgrade_failed"); render(); });
  } else if (form.id === "password-form") {
    changePassword(form);
  } else if (form.id === "close-form") {
    closeAccount(form);
  } else if (form.id === "replay-form") {
    // the field is not named "id": a control of that name hides the form's own id (form.id)
    const id = form.elements.hand.value.trim();
    if (id) openReplay(id);
  }
});

// a redraw keeps the closing section as the player left it (toggle does not bubble)
document.addEventListener("toggle", (ev) => {
  if (ev.target.classList && ev.target.classList.contains("close-account")) S.closeOpen = ev.target.open;
}, true);

document.addEventListener("change", (ev) => {
  if (ev.target.id === "fixture-frame" && S.fixture) {
    const name = ev.target.value;
    S.fixture.frame = name; S.fixture.view = S.fixture.views[name]; S.fixture.hideSettlement = false;
    S.fixture.hint = S.fixture.view.hint || null;
    S.view = S.fixture.view; S.selected = null; S.chooser = null;
    S.deadline = S.view.phase === "ended" ? null : Date.now() + 8000;
    render();
    return;
  }
  const form = ev.target.form;
  if (form && (form.id === "settings-form" || form.id === "table-auto-form")) {
    const el = ev.target;
    if (el.name === "lang") setLang(el.value);
    else updateSettings({ [el.name]: el.type === "checkbox" ? el.checked : el.value });
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

initVerify({
  // a hand's record, as stored: "public:m/n" a published hand, else ("replay:m/n" or "m/n")
  // one the player sat at; the check reads the record, not the replay's frames
  record: async (key) => {
    const [, kind, id] = /^(?:(public|replay):)?(.*)$/.exec(key);
    const slash = id.lastIndexOf("/");
    const [match, n] = [id.slice(0, slash), id.slice(slash + 1)].map(encodeURIComponent);
    return (await api("GET", kind === "public" ? `/api/public/hands/${match}/${n}` : `/api/matches/${match}/hands/${n}`)).events;
  },
  rerender: render,
});
initShare({ api, rerender: render });
initReview({ S, api, rerender: render });
initBlocks({ S, api, rerender: render });
initReport({ S, api, rerender: render });
initStaff({ S, api, profiles: PROFILES, rerender: render });
initMyData({ S, rerender: render });
initSpectate({ S, api, send, rerender: render });
initLeaderboard({ S, api, profiles: PROFILES, rerender: render });
initTournaments({ S, api, profiles: PROFILES, rerender: render });
initClubs({ S, api, send: sendWhenConnected, profiles: PROFILES, rerender: render, optionsLine, roomOptions: createOptions });
initPuzzles({ S, api, profiles: PROFILES, rerender: render });
initCalculator({ render: () => { if (S.screen === "calculator") render(); } });

start().catch((e) => { app.textContent = t("app.error", { msg: e.message }); });

export { S, tileName, actionLabel };

// The staff pages (管理) at #/staff?tab=…: what `wuhan-mahjong admin` does, for the
// moderators and admins an operator names (docs/server.md "Staff", server/staff_api.py).
// The page asks GET /api/staff first: a player is told he may not (staff_refused /
// not_staff) and sees nothing else; a staff member sees the tabs of the actions his role
// has (`actions`): 举报 (the reports, closed with a note), 玩家 (an account looked up by name,
// #/staff?tab=player&name=…, with the buttons his role allows), 牌桌 (the running matches and
// the drain), 亲友圈 (dissolve), 比赛 (call off), 公平 (the fair-play screen), 日志 (the event
// log), 账本 (the audit) and 公告 (the notice to every player: given, replaced, taken down).
// A report's match (and a looked-up player's) opens the replay viewer on it for a role that
// may replay any hand (`replays`: #/replay?staff=MATCH, app.js loadReplay).  Every figure is the server's: the page draws what it is sent,
// and after an action draws the server's answer.  Destructive actions ask first.  The
// server checks every request again (role and rank); its refusals show by their code
// (`err.staff_refused.*`) next to what caused them.

import { failureText, getLang, seatName, t } from "./i18n.js";
import { esc } from "./table.js";

/** The tabs, each with the action of the server's `actions` it needs. */
const TABS = [
  ["reports", "reports"], ["player", "show"], ["tables", "tables"], ["clubs", "clubs"],
  ["tournaments", "tournaments"], ["fairplay", "fairplay"], ["log", "log"], ["audit", "audit"],
  ["notice", "announce"],
];
const LISTS = {
  reports: (St) => `/api/staff/reports${St.closedToo ? "?all=1" : ""}`,
  tables: () => "/api/staff/tables",
  clubs: () => "/api/staff/clubs",
  tournaments: () => "/api/staff/tournaments",
  log: () => "/api/staff/log?limit=50",
  audit: () => "/api/staff/audit",
  notice: () => "/api/staff/announcement",
};
const NOTICE_MAX = 200; // the notice to every player (store/announcements.py)
const NOTICE_HOURS = 720; // its longest life (LONGEST_HOURS)
const NOTE_MAX = 256; // a report's note (store/reports.py)
const REASON_MAX = 500; // a staff member's reason (server/staff_api.py)
const SHOWN_ROWS = 10; // of an account's ledger and matches

let deps = { S: null, api: null, profiles: [], rerender: () => {} };

function fresh(token) {
  return {
    token, home: null, error: "", refused: false, tab: null, name: "",
    lists: {}, errors: {}, closedToo: false, open: null,
    account: null, accountFor: null, accountError: "", note: "", closedName: "", password: null, copied: false, busy: false,
    fair: null, fairError: "",
  };
}

/** app.js gives its state, its API helper, the profiles' names and a redraw. */
export function initStaff(given) {
  deps = { ...deps, ...given };
  deps.S.staff = fresh(deps.S.token);
  deps.S.staffRole = null; // the player's staff role (GET /api/profile's `staff`): the menu's 管理
}

function St() {
  return deps.S.staff;
}

function redraw() {
  if (deps.S.screen === "staff") deps.rerender();
}

function has(action) {
  const h = St().home;
  return !!h && (h.actions || []).includes(action);
}

/** The tabs this staff member may open, in their order. */
function tabs() {
  return TABS.filter(([, action]) => has(action)).map(([tab]) => tab);
}

/** A refusal in words: its code's string, and the store's own sentence for a refused action
 * (a ban of a banned account, a grant below zero). */
function errText(e) {
  const text = failureText(e);
  return e && e.params && e.params.reason === "refused" && e.detail ? t("staff.refused_detail", { text, detail: e.detail }) : text;
}

function when(iso, withTime = true) {
  if (!iso) return "";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return esc(iso);
  const locale = getLang() === "en" ? "en" : "zh-CN";
  return esc(withTime ? d.toLocaleString(locale) : d.toLocaleDateString(locale));
}

/** The string `key`, or `fallback` (the server's word) when this client has none. */
function known(key, fallback, params = {}) {
  const s = t(key, params);
  return s === key ? esc(fallback) : s;
}

function profileName(p) {
  return p ? known(`opt.profile.${p}`, p) : "";
}

function roleName(role) {
  return role ? known(`staff.role.${role}`, role) : t("staff.role.none");
}

/** A colon in the reader's language (full-width in Chinese). */
function colon() {
  return getLang() === "en" ? ": " : "：";
}

function signed(n) {
  return n > 0 ? `+${n}` : `${n}`;
}

function playerHref(name) {
  return `#/staff?tab=player&name=${encodeURIComponent(name)}`;
}

/** A match id: a link to its replay (#/replay?staff=…) for a role that may replay any hand. */
function matchLink(matchId) {
  const code = `<code>${esc(matchId)}</code>`;
  return has("replays") ? `<a href="#/replay?staff=${encodeURIComponent(matchId)}" data-staff-match="${esc(matchId)}">${code}</a>` : code;
}

/** A name that opens the player's tab on him. */
function lookUpLink(name) {
  return `<a href="${playerHref(name)}" data-staff-name="${esc(name)}">${esc(name)}</a>`;
}

// ============================================================ loading
/** The route #/staff?tab=…&name=…: who the caller is on the staff, then the tab's data
 * (`entering`: from another screen, so the account on screen is asked again too). */
export async function openStaff(tab, name, entering = false) {
  if (St().token !== deps.S.token) deps.S.staff = fresh(deps.S.token); // another account signed in
  const s = St();
  if (entering) s.accountFor = null;
  s.tab = tab || null;
  s.name = (name || "").trim();
  if (s.name) deps.S.forms["staff-lookup-form"] = { name: s.name }; // the field names who is shown
  s.password = null; // a new password is shown once: never again after leaving it
  s.copied = false;
  s.open = null;
  try {
    const home = await deps.api("GET", "/api/staff");
    if (St() !== s) return;
    s.home = home;
    s.error = "";
    s.refused = false;
    deps.S.staffRole = home.role;
  } catch (e) {
    if (St() !== s) return;
    s.error = errText(e);
    s.refused = e.code === "staff_refused";
    if (s.refused) { s.home = null; deps.S.staffRole = null; }
    redraw();
    return;
  }
  const mine = tabs();
  if (!mine.includes(s.tab)) s.tab = mine[0] || null;
  redraw();
  await loadTab();
}

/** The tab's data, asked again (`keepError`: after an action, whose refusal stays shown). */
async function loadTab(keepError = false) {
  const s = St();
  const tab = s.tab;
  if (tab === "player") {
    if (s.name && s.accountFor !== s.name) await lookUp(s.name);
    return;
  }
  const path = LISTS[tab];
  if (!path) return;
  try {
    const data = await deps.api("GET", path(s));
    s.lists[tab] = data;
    if (!keepError) s.errors[tab] = "";
  } catch (e) {
    s.errors[tab] = errText(e);
  }
  if (s.tab === tab) redraw();
}

async function lookUp(name) {
  const s = St();
  s.accountError = ""; s.note = ""; s.closedName = "";
  try {
    const found = await deps.api("GET", `/api/staff/accounts/${encodeURIComponent(name)}`);
    if (St() !== s || s.name !== name) return;
    s.account = found;
    s.accountFor = name;
  } catch (e) {
    if (St() !== s || s.name !== name) return;
    s.account = null;
    s.accountFor = name;
    s.accountError = e.status === 404 ? t("staff.no_player", { name: esc(name) }) : errText(e);
  }
  redraw();
}

// ============================================================ drawing
/** The whole page. */
export function staffHTML() {
  const s = St();
  const head = `<h2>${t("staff.title")}</h2>`;
  if (!s.home) {
    const body = s.error
      ? `<p class="error" role="alert" data-staff-refused="${s.refused ? 1 : 0}">${esc(s.error)}</p>${s.refused ? "" : `<button type="button" data-staff-do="reload">${t("watch.refresh")}</button>`}`
      : `<p>${t("app.loading")}</p>`;
    return `<div class="screen staff-page"><div class="card">${head}${body}</div></div>`;
  }
  const h = s.home;
  const team = (h.staff || []).map((m) => `<span data-staff-member="${esc(m.username)}">${t("staff.member", { name: esc(m.username), role: roleName(m.role) })}</span>`).join("、");
  const nav = tabs().map((tab) => `<a class="tab" href="#/staff?tab=${tab}" data-staff-tab="${tab}"${tab === s.tab ? ` aria-current="page"` : ""}>${t(`staff.tab.${tab}`)}</a>`).join("");
  const body = {
    reports: reportsHTML, player: playerHTML, tables: tablesHTML, clubs: clubsHTML,
    tournaments: tournamentsHTML, fairplay: fairplayHTML, log: logHTML, audit: auditHTML, notice: noticeHTML,
  }[s.tab];
  return `<div class="screen staff-page" data-staff-role="${esc(h.role)}"><div class="card">${head}
    <p>${t("staff.you_are", { role: `<b class="staff-role" data-role="${esc(h.role)}">${roleName(h.role)}</b>` })}</p>
    ${team ? `<p class="muted staff-team">${t("staff.team", { list: team })}</p>` : ""}
    ${overviewHTML(h.overview)}
    <nav class="tabs staff-tabs" aria-label="${t("staff.title")}">${nav}</nav></div>
    ${body ? body(s) : ""}</div>`;
}

/** The platform at a glance (GET /api/staff's overview): a row of figures. */
function overviewHTML(o) {
  if (!o) return "";
  const stat = (key, value, name) => `<li data-staff-stat="${name}"><b>${esc(String(value))}</b> <span class="muted">${t(key)}</span></li>`;
  const items = [
    stat("staff.stat.online", o.online, "online"), stat("staff.stat.tables", o.tables, "tables"),
    stat("staff.stat.matches_today", o.matches_since, "matches_today"),
    stat("staff.stat.players", o.players, "players"), stat("staff.stat.new_today", o.new_players, "new_today"),
    stat("staff.stat.reports", o.reports_open, "reports"), stat("staff.stat.banned", o.banned, "banned"),
    stat("staff.stat.clubs", o.clubs, "clubs"),
    stat("staff.stat.tournaments", o.tournaments_open + o.tournaments_running, "tournaments"),
  ];
  const drain = o.draining ? `<p class="error" role="status" data-staff-stat="draining">${t("staff.tables.draining")}</p>` : "";
  return `<ul class="staff-stats" aria-label="${t("staff.stat.title")}">${items.join("")}</ul>${drain}`;
}

function loading(s, tab) {
  if (s.errors[tab]) return `<p class="error" role="alert" data-error-for="staff-${tab}">${esc(s.errors[tab])}</p>`;
  return s.lists[tab] ? "" : `<p>${t("app.loading")}</p>`;
}

function card(tab, title, tools, body) {
  return `<div class="card staff-section" data-staff-section="${tab}"><div class="staff-head"><h3>${title}</h3>
    <div class="staff-tools">${tools}<button type="button" data-staff-do="refresh">${t("watch.refresh")}</button></div></div>${body}</div>`;
}

function errorLine(s, tab) {
  const text = s.lists[tab] ? s.errors[tab] || "" : "";
  return text ? `<p class="error" role="alert" data-error-for="staff-${tab}">${esc(text)}</p>` : "";
}

// ------------------------------------------------------------ 举报
function reportsHTML(s) {
  const data = s.lists.reports;
  const toggle = `<button type="button" data-staff-do="closed-too" aria-pressed="${s.closedToo}">${t(s.closedToo ? "staff.reports.open_only" : "staff.reports.closed_too")}</button>`;
  let body = loading(s, "reports");
  if (data) {
    const list = data.reports || [];
    body = errorLine(s, "reports") + (list.length ? `<ul class="staff-rows">${list.map(reportHTML).join("")}</ul>`
      : `<p class="muted staff-none">${t(s.closedToo ? "staff.reports.none_at_all" : "staff.reports.none")}</p>`);
  }
  return card("reports", t(s.closedToo ? "staff.reports.all" : "staff.reports.open"), toggle, body);
}

function reportHTML(r) {
  const where = r.match_id
    ? ` · ${t("staff.reports.match", { match: matchLink(r.match_id) })}${r.seat === null || r.seat === undefined ? "" : ` · ${seatName(r.seat)}`}`
    : "";
  const done = r.status === "closed"
    ? `<p class="muted">${t("staff.reports.closed_by", { name: esc(r.closed_by || ""), when: when(r.closed_at) })}${r.note ? ` · ${esc(r.note)}` : ""}</p>`
    : `<form id="staff-close-${r.id}" class="staff-inline" data-staff-close="${r.id}" novalidate><input name="note" maxlength="${NOTE_MAX}" placeholder="${t("staff.reports.note")}" aria-label="${t("staff.reports.note")}">
      <button type="submit" class="primary">${t("staff.reports.close")}</button></form>`;
  return `<li data-staff-report="${r.id}" data-status="${esc(r.status)}"><p class="staff-line"><b class="staff-reason">${known(`report.reason.${r.reason}`, r.reason)}</b> ·
    ${t("staff.reports.by", { name: esc(r.reporter) })} · ${t("staff.reports.about")}
    <button type="button" class="staff-name" data-staff-lookup="${esc(r.reported)}">${esc(r.reported)}</button></p>
    <p class="muted">#${r.id} · ${when(r.created_at)}${where}</p>${done}</li>`;
}

// ------------------------------------------------------------ 玩家
function playerHTML(s) {
  const form = `<form id="staff-lookup-form" class="form-row" novalidate><label for="staff-name">${t("staff.player.name")}</label>
    <input id="staff-name" name="name" autocomplete="off" maxlength="64" required value="${esc(s.name)}">
    <button type="submit" class="primary">${t("staff.player.look_up")}</button></form>`;
  let body = "";
  if (s.accountError) body = `<p class="error" role="alert" data-error-for="staff-player">${esc(s.accountError)}</p>`;
  if (s.note) body += `<p class="ok" role="status" data-staff-note="1">${s.note}</p>`;
  if (s.password) {
    body += `<div class="staff-password" role="status" data-staff-password="${esc(s.password.username)}"><p>${t("staff.password.title", { name: esc(s.password.username) })}</p>
      <p><code class="staff-secret" data-password="1">${esc(s.password.password)}</code></p>
      <p class="muted">${t("staff.password.once")}</p><div class="staff-actions">
      <button type="button" class="primary" data-staff-do="copy">${t(s.copied ? "staff.password.copied" : "staff.password.copy")}</button>
      <button type="button" data-staff-do="forget">${t("staff.password.done")}</button></div></div>`;
  }
  if (s.account && s.account.account && !s.accountError && (!s.name || s.accountFor === s.name)) body += accountHTML(s, s.account);
  else if (s.name && !s.accountError && !s.closedName) body += `<p>${t("app.loading")}</p>`;
  return `<div class="card staff-section" data-staff-section="player"><h3>${t("staff.tab.player")}</h3>${form}${body}</div>`;
}

function accountHTML(s, found) {
  const a = found.account;
  const role = found.role;
  const kind = a.bot ? t("room.bot") : a.guest ? t("profile.guest") : t("staff.player.registered");
  const row = (key, value, field) => `<tr><th>${t(key)}</th><td${field ? ` data-field="${field}"` : ""}>${value}</td></tr>`;
  const ban = a.ban ? `<span class="refused">${t("staff.player.banned_since", { when: when(a.ban.since) })}</span>${a.ban.reason ? `${colon()}${esc(a.ban.reason)}` : ""}` : t("staff.player.not_banned");
  const facts = `<table class="history staff-facts"><tbody>
    ${row("profile.silver", String(a.silver), "silver")}${row("profile.points", String(a.points), "points")}${row("profile.level", String(a.level), "level")}
    ${row("staff.player.kind", kind, "kind")}${row("staff.player.created", when(a.created_at, false), "created")}
    ${row("staff.player.ban", ban, "ban")}${row("staff.player.sessions", String(a.live_sessions), "sessions")}
    ${row("staff.player.last_login", a.last_login ? when(a.last_login) : t("staff.never"), "last_login")}
    ${row("staff.player.table", a.table ? `<code>${esc(a.table)}</code>` : t("staff.none"), "table")}
    ${row("staff.player.reports", t("staff.player.reports_n", { open: a.reports_open, total: a.reports_total }), "reports")}
    ${row("staff.player.role", roleName(role), "role")}</tbody></table>`;
  const ledger = (a.ledger || []).slice(0, SHOWN_ROWS).map((e) => `<li><span class="staff-amount" data-delta="${e.delta}">${signed(e.delta)}</span> → ${e.balance_after} · <span data-ledger-reason="${esc(e.reason)}">${known(`staff.ledger.${e.reason}`, e.reason)}</span>${e.reference ? ` <span class="muted">${esc(e.reference)}</span>` : ""}<br><span class="muted">${when(e.at)}</span></li>`).join("");
  const matches = (a.matches || []).slice(0, SHOWN_ROWS).map((m) => `<li>${matchLink(m.match_id)} · ${profileName(m.profile)} · ${t("staff.player.points_n", { n: signed(m.points) })}${m.silver ? ` · ${t("summary.silver", { n: signed(m.silver) })}` : ""}${m.escaped ? ` · <span class="refused">${t("profile.escaped")}</span>` : ""}<br><span class="muted">${when(m.finished_at)}</span></li>`).join("");
  return `<div class="staff-account" data-staff-account="${esc(a.username)}"><h4 class="staff-who">${esc(a.username)} <span class="muted">#${a.id}</span></h4>${facts}
    ${actionsHTML(s, a, role)}
    <h4>${t("staff.player.ledger")}</h4>${ledger ? `<ul class="staff-rows staff-small">${ledger}</ul>` : `<p class="muted">${t("staff.none")}</p>`}
    <h4>${t("staff.player.matches")}</h4>${matches ? `<ul class="staff-rows staff-small">${matches}</ul>` : `<p class="muted">${t("staff.none")}</p>`}</div>`;
}

function actionsHTML(s, a, role) {
  const busy = s.busy ? " disabled" : "";
  const out = [];
  if (a.ban && has("unban")) out.push(`<div class="staff-actions"><button type="button" data-staff-act="unban"${busy}>${t("staff.act.unban")}</button></div>`);
  if (!a.ban && has("ban")) {
    out.push(`<form id="staff-ban-form" class="form-row staff-act" data-staff-form="ban" novalidate><label for="staff-ban-reason">${t("staff.act.reason")}</label>
      <input id="staff-ban-reason" name="reason" maxlength="${REASON_MAX}"><button type="submit" class="danger"${busy}>${t("staff.act.ban")}</button></form>`);
  }
  if (has("grant")) {
    out.push(`<form id="staff-grant-form" class="form-row staff-act" data-staff-form="grant" novalidate><label for="staff-grant-amount">${t("staff.act.amount")}</label>
      <input id="staff-grant-amount" name="amount" type="number" inputmode="numeric" step="1" required>
      <input id="staff-grant-reason" name="reason" maxlength="${REASON_MAX}" placeholder="${t("staff.act.reason")}" aria-label="${t("staff.act.reason")}">
      <button type="submit" class="primary"${busy}>${t("staff.act.grant")}</button></form>`);
  }
  const buttons = [];
  if (has("role") && !a.guest && !a.bot) {
    if (role === "moderator") buttons.push(`<button type="button" data-staff-act="unmoderator"${busy}>${t("staff.act.unmoderator")}</button>`);
    else if (!role) buttons.push(`<button type="button" data-staff-act="moderator"${busy}>${t("staff.act.moderator")}</button>`);
  }
  if (has("reset_password") && !a.guest && !a.bot) buttons.push(`<button type="button" data-staff-act="reset_password"${busy}>${t("staff.act.reset_password")}</button>`);
  if (buttons.length) out.push(`<div class="staff-actions">${buttons.join("")}</div>`);
  if (has("close") && !a.bot) {
    out.push(`<form id="staff-close-form" class="form-row staff-act" data-staff-form="close" novalidate><label for="staff-close-reason">${t("staff.act.reason")}</label>
      <input id="staff-close-reason" name="reason" maxlength="${REASON_MAX}"><button type="submit" class="danger"${busy}>${t("staff.act.close")}</button></form>`);
  }
  if (!out.length) return "";
  return `<h4>${t("staff.player.actions")}</h4>${out.join("")}`;
}

// ------------------------------------------------------------ 牌桌
function tablesHTML(s) {
  const data = s.lists.tables;
  let tools = "";
  let body = loading(s, "tables");
  if (data) {
    const state = `<p class="staff-drain" data-draining="${data.draining ? 1 : 0}">${t(data.draining ? "staff.tables.draining" : "staff.tables.open")}</p>`;
    if (has("drain")) tools = `<button type="button" class="${data.draining ? "primary" : "danger"}" data-staff-do="drain" aria-pressed="${!!data.draining}">${t(data.draining ? "staff.tables.drain_off" : "staff.tables.drain_on")}</button>`;
    const list = data.tables || [];
    const rows = list.map((m) => `<li data-staff-table="${esc(m.match_id)}"><p class="staff-line">${(m.players || []).map((p) => lookUpLink(p)).join("、")}</p>
      <p class="muted">${profileName(m.profile)} · ${t("staff.tables.hands", { done: m.hands_done, hands: m.hands })}${m.stake ? ` · ${t("opt.stake")} ${m.stake}` : ""} · ${t("staff.tables.server", { name: esc(m.server || "") })} · ${t("staff.tables.since", { when: when(m.started) })}</p>
      <p class="muted"><code>${esc(m.match_id)}</code>${m.table_id ? ` · <a href="#/watch?id=${encodeURIComponent(m.table_id)}" data-watch="${esc(m.table_id)}">${t("watch.watch")}</a>` : ""}</p></li>`).join("");
    body = state + errorLine(s, "tables") + (rows ? `<ul class="staff-rows">${rows}</ul>` : `<p class="muted staff-none">${t("staff.tables.none")}</p>`);
  }
  return card("tables", t("staff.tab.tables"), tools, body);
}

// ------------------------------------------------------------ 亲友圈, 比赛
/** The inline form that asks for a reason before a club is dissolved or a tournament
 * called off (`kind`: club, tournament). */
function reasonFormHTML(kind, id, label) {
  return `<form id="staff-${kind}-${esc(String(id))}" class="staff-inline" data-staff-reason="${kind}" data-id="${esc(String(id))}" novalidate>
    <input name="reason" maxlength="${REASON_MAX}" placeholder="${t("staff.act.reason")}" aria-label="${t("staff.act.reason")}">
    <button type="submit" class="danger">${label}</button><button type="button" data-staff-do="cancel-open">${t("club.cancel_edit")}</button></form>`;
}

function clubsHTML(s) {
  const data = s.lists.clubs;
  let body = loading(s, "clubs");
  if (data) {
    const rows = (data.clubs || []).map((c) => {
      const open = s.open === `club:${c.number}`;
      return `<li data-staff-club="${c.number}"><p class="staff-line"><b>${esc(c.name)}</b> · ${t("club.number_n", { n: c.number })}</p>
      <p class="muted">${t("club.owner_is", { name: esc(c.owner) })} · ${profileName(c.profile)} · ${t("club.members_n", { n: c.members })} · ${when(c.created, false)}</p>
      ${c.notice ? `<p class="muted staff-notice">${esc(c.notice)}</p>` : ""}
      ${open ? reasonFormHTML("club", c.number, t("staff.clubs.dissolve_now")) : `<div class="staff-actions"><button type="button" class="danger" data-staff-open="club:${c.number}">${t("staff.clubs.dissolve")}</button></div>`}</li>`;
    }).join("");
    body = errorLine(s, "clubs") + (rows ? `<ul class="staff-rows">${rows}</ul>` : `<p class="muted staff-none">${t("staff.clubs.none")}</p>`);
  }
  return card("clubs", t("staff.tab.clubs"), "", body);
}

function tournamentsHTML(s) {
  const data = s.lists.tournaments;
  let body = loading(s, "tournaments");
  if (data) {
    const rows = (data.tournaments || []).map((x) => {
      const open = s.open === `tournament:${x.id}`;
      const live = x.status === "open" || x.status === "running";
      const status = known(`tour.status.${x.status}`, x.status, { round: x.round, rounds: x.rounds });
      return `<li data-staff-tournament="${x.id}" data-status="${esc(x.status)}"><p class="staff-line"><a href="#/tournament?id=${x.id}">${esc(x.name)}</a> · <span class="tour-status" data-status="${esc(x.status)}">${status}</span></p>
      <p class="muted">#${x.id} · ${profileName(x.profile)} · ${t("tour.rounds_n", { n: x.rounds })} · ${t("tour.players_n", { n: x.players, max: x.capacity })} · ${t("tour.by", { name: esc(x.creator) })} · ${when(x.created, false)}</p>
      ${!live ? "" : open ? reasonFormHTML("tournament", x.id, t("staff.tournaments.cancel_now")) : `<div class="staff-actions"><button type="button" class="danger" data-staff-open="tournament:${x.id}">${t("staff.tournaments.cancel")}</button></div>`}</li>`;
    }).join("");
    body = errorLine(s, "tournaments") + (rows ? `<ul class="staff-rows">${rows}</ul>` : `<p class="muted staff-none">${t("staff.tournaments.none")}</p>`);
  }
  return card("tournaments", t("staff.tab.tournaments"), "", body);
}

// ------------------------------------------------------------ 公平
function fairplayHTML(s) {
  const profiles = [`<option value="">${t("staff.fair.all_profiles")}</option>`, ...deps.profiles.map((p) => `<option value="${esc(p)}">${profileName(p)}</option>`)].join("");
  const form = `<form id="staff-fair-form" novalidate>
    <div class="form-row"><label for="staff-fair-wins">${t("staff.fair.min_wins")}</label><input id="staff-fair-wins" name="min_wins" type="number" inputmode="numeric" min="1" max="100000" value="20"></div>
    <div class="form-row"><label for="staff-fair-days">${t("staff.fair.days")}</label><input id="staff-fair-days" name="days" type="number" inputmode="numeric" min="0" max="36500" value="30"></div>
    <div class="form-row"><label for="staff-fair-profile">${t("opt.profile")}</label><select id="staff-fair-profile" name="profile">${profiles}</select></div>
    <button type="submit" class="primary">${t("staff.fair.run")}</button></form><p class="muted">${t("staff.fair.about")}</p>`;
  let body = "";
  if (s.fairError) body = `<p class="error" role="alert" data-error-for="staff-fairplay">${esc(s.fairError)}</p>`;
  else if (s.fair === "loading") body = `<p>${t("app.loading")}</p>`;
  else if (s.fair) {
    const f = s.fair;
    const pct = (x) => `${Math.round(x * 1000) / 10}%`;
    const rows = (f.pairs || []).map((p) => `<li data-staff-pair="${esc(p.feeder)}>${esc(p.winner)}"><p class="staff-line">${lookUpLink(p.feeder)} → ${lookUpLink(p.winner)}</p>
      <p>${t("staff.fair.fed", { fed: p.fed, wins: p.wins, share: pct(p.share) })} · <span class="${p.p_value < 0.001 ? "refused" : ""}">p = ${p.p_value < 0.0001 ? p.p_value.toExponential(1) : p.p_value.toFixed(4)}</span></p>
      <p class="muted">${t("staff.fair.reports", { feeder: p.collusion_reports.feeder, winner: p.collusion_reports.winner })}</p></li>`).join("");
    body = `<p class="staff-fair-summary">${t("staff.fair.looked", { n: f.pairs_looked_at, chance: pct(f.chance_share) })}</p>` +
      (rows ? `<ul class="staff-rows">${rows}</ul>` : `<p class="muted staff-none">${t("staff.fair.none")}</p>`);
  }
  return `<div class="card staff-section" data-staff-section="fairplay"><h3>${t("staff.tab.fairplay")}</h3>${form}${body}</div>`;
}

// ------------------------------------------------------------ 日志
function logHTML(s) {
  const data = s.lists.log;
  let body = loading(s, "log");
  if (data) {
    const rows = (data.log || []).map((a) => {
      const detail = a.detail && typeof a.detail === "object" ? Object.entries(a.detail).filter(([, v]) => v !== null && v !== undefined && v !== "")
        .map(([k, v]) => `${esc(k)}: ${esc(typeof v === "object" ? JSON.stringify(v) : String(v))}`).join(" · ") : esc(a.detail ? String(a.detail) : "");
      return `<li data-staff-log="${a.id}"><p class="staff-line"><b>${esc(a.action)}</b> · ${esc(a.actor)}${a.account_id !== null && a.account_id !== undefined ? ` · ${t("staff.log.account", { id: a.account_id })}` : ""}</p>
      ${detail ? `<p class="staff-detail">${detail}</p>` : ""}<p class="muted">${when(a.at)}</p></li>`;
    }).join("");
    body = errorLine(s, "log") + (rows ? `<ul class="staff-rows">${rows}</ul>` : `<p class="muted staff-none">${t("staff.log.none")}</p>`);
  }
  return card("log", t("staff.tab.log"), "", body);
}

// ------------------------------------------------------------ 账本
function auditHTML(s) {
  const a = s.lists.audit;
  let body = loading(s, "audit");
  if (a) {
    const row = (key, value) => `<tr><th>${t(key)}</th><td>${value}</td></tr>`;
    const sources = Object.entries(a.sources || {}).map(([k, v]) => `<tr><th><code>${esc(k)}</code></th><td>${v}</td></tr>`).join("");
    const problems = [["staff.audit.unknown", a.unknown_reasons], ["staff.audit.mismatched", a.mismatched_accounts], ["staff.audit.negative", a.negative_accounts]]
      .filter(([, list]) => list && list.length).map(([key, list]) => `<p class="refused">${t(key)}${colon()}${list.map((x) => esc(String(x))).join("、")}</p>`).join("");
    const banned = (a.banned || []).map((n) => lookUpLink(n)).join("、");
    body = errorLine(s, "audit") + `<p class="staff-audit ${a.ok ? "ok" : "refused"}" data-audit-ok="${a.ok ? 1 : 0}"><b>${t(a.ok ? "staff.audit.ok" : "staff.audit.broken")}</b></p>${problems}
      <table class="history staff-facts"><tbody>${row("staff.audit.total", a.total_balances)}${row("staff.audit.players", a.player_balances)}${row("staff.audit.house", a.house_balance)}
      ${row("staff.audit.sinks", a.sinks)}${row("staff.audit.fees", a.fee_income)}${row("staff.audit.closures", a.closure_income)}${row("staff.audit.transfers", a.transfers)}</tbody></table>
      <h4>${t("staff.audit.sources")}</h4>${sources ? `<table class="history staff-facts"><tbody>${sources}</tbody></table>` : `<p class="muted">${t("staff.none")}</p>`}
      <h4>${t("staff.audit.banned")}</h4>${banned ? `<p class="staff-banned">${banned}</p>` : `<p class="muted">${t("staff.none")}</p>`}`;
  }
  return card("audit", t("staff.tab.audit"), "", body);
}

// ------------------------------------------------------------ 公告
/** A notice's state: shown now, taken down, expired. */
function noticeState(a, now) {
  if (now && a.id === now.id) return `<span class="ok" data-notice-state="shown">${t("staff.notice.shown")}</span>`;
  if (a.ended_at) return `<span data-notice-state="ended">${t("staff.notice.ended", { when: when(a.ended_at) })}</span>`;
  return `<span data-notice-state="expired">${t("staff.notice.expired", { when: when(a.expires_at) })}</span>`;
}

function noticeHTML(s) {
  const data = s.lists.notice;
  let body = loading(s, "notice");
  if (data) {
    const now = data.announcement;
    const until = (a) => (a.expires_at ? t("staff.notice.until", { when: when(a.expires_at) }) : t("staff.notice.no_end"));
    const shown = now
      ? `<div class="staff-notice-now" data-staff-notice="${esc(String(now.id))}"><p class="staff-notice-text">${esc(now.text)}</p>
        <p class="muted">${t("staff.notice.by", { name: esc(now.actor), when: when(now.created_at) })} · ${until(now)}</p>
        <div class="staff-actions"><button type="button" class="danger" data-staff-do="notice-off">${t("staff.notice.take_down")}</button></div></div>`
      : `<p class="muted staff-none" data-staff-notice="none">${t("staff.notice.none")}</p>`;
    const form = `<form id="staff-notice-form" class="staff-notice-form" novalidate>
      <label for="staff-notice-text">${t(now ? "staff.notice.new_replaces" : "staff.notice.text")}</label>
      <textarea id="staff-notice-text" name="text" rows="2" maxlength="${NOTICE_MAX}" required placeholder="${t("staff.notice.placeholder", { n: NOTICE_MAX })}"></textarea>
      <div class="form-row"><label for="staff-notice-hours">${t("staff.notice.hours")}</label>
      <input id="staff-notice-hours" name="hours" type="number" inputmode="decimal" min="0" max="${NOTICE_HOURS}" step="any" placeholder="${t("staff.notice.hours_none")}"></div>
      <button type="submit" class="primary">${t("staff.notice.give")}</button></form>`;
    const rows = (data.recent || []).map((a) => `<li data-staff-notice-row="${esc(String(a.id))}"><p class="staff-notice-text">${esc(a.text)}</p>
      <p class="muted">${t("staff.notice.by", { name: esc(a.actor), when: when(a.created_at) })} · ${noticeState(a, now)}</p></li>`).join("");
    body = errorLine(s, "notice") + `<h4>${t("staff.notice.now")}</h4>${shown}${form}
      <h4>${t("staff.notice.recent")}</h4>${rows ? `<ul class="staff-rows">${rows}</ul>` : `<p class="muted">${t("staff.none")}</p>`}`;
  }
  return card("notice", t("staff.notice.title"), "", body);
}

// ============================================================ actions
function forgetForm(id) {
  const form = document.getElementById(id);
  if (form) form.reset(); // a redraw keeps what the fields hold: nothing now
  delete deps.S.forms[id];
}

const CONFIRM = {
  ban: "staff.confirm.ban", reset_password: "staff.confirm.reset_password", close: "staff.confirm.close",
  unmoderator: "staff.confirm.unmoderator", moderator: "staff.confirm.moderator",
};

/** An action on the account on screen (POST /api/staff/accounts/{name}); the page then
 * shows the account as the server's answer has it. */
async function accountAction(what, form) {
  const s = St();
  if (!s.account || s.busy) return;
  const name = s.account.account.username;
  const body = what === "moderator" ? { action: "role", role: "moderator" }
    : what === "unmoderator" ? { action: "role", role: "none" } : { action: what };
  if (form && form.elements.reason) body.reason = form.elements.reason.value.trim() || null;
  if (what === "grant") {
    const amount = Number(form.elements.amount.value);
    if (!form.elements.amount.value.trim() || !Number.isInteger(amount) || amount === 0) {
      s.accountError = t("staff.act.bad_amount");
      redraw();
      return;
    }
    body.amount = amount;
  }
  if (CONFIRM[what] && !window.confirm(t(CONFIRM[what], { name }))) return;
  s.busy = true; s.accountError = ""; s.note = ""; s.password = null; s.copied = false;
  redraw();
  try {
    const out = await deps.api("POST", `/api/staff/accounts/${encodeURIComponent(name)}`, body);
    if (St() !== s) return;
    if (form) forgetForm(form.id);
    if (out.account) s.account = { account: out.account, role: out.role };
    else { s.account = null; s.closedName = name; }
    if (out.password) s.password = { username: name, password: out.password };
    s.note = t(`staff.done.${what}`, { name: esc(name), balance: out.balance === undefined ? "" : out.balance });
  } catch (e) {
    s.accountError = errText(e);
  }
  s.busy = false;
  redraw();
}

async function closeReport(form) {
  const s = St();
  const id = form.dataset.staffClose;
  s.errors.reports = "";
  try {
    await deps.api("POST", `/api/staff/reports/${id}/close`, { note: form.elements.note.value.trim() || null });
    delete deps.S.forms[form.id];
  } catch (e) {
    s.errors.reports = errText(e);
  }
  await loadTab(true);
}

async function reasonAction(form) {
  const s = St();
  const { staffReason: kind, id } = form.dataset;
  const tab = kind === "club" ? "clubs" : "tournaments";
  const item = (s.lists[tab] ? s.lists[tab][tab] : []).find((x) => String(kind === "club" ? x.number : x.id) === id);
  const label = item ? item.name : id;
  if (!window.confirm(t(kind === "club" ? "staff.confirm.dissolve" : "staff.confirm.cancel", { name: label }))) return;
  const path = kind === "club" ? `/api/staff/clubs/${id}/dissolve` : `/api/staff/tournaments/${id}/cancel`;
  s.errors[tab] = "";
  try {
    await deps.api("POST", path, { reason: form.elements.reason.value.trim() || null });
    delete deps.S.forms[form.id];
    s.open = null;
  } catch (e) {
    s.errors[tab] = errText(e);
  }
  await loadTab(true);
}

async function drain() {
  const s = St();
  const on = !(s.lists.tables && s.lists.tables.draining);
  if (on && !window.confirm(t("staff.confirm.drain"))) return;
  s.errors.tables = "";
  try {
    await deps.api("POST", "/api/staff/drain", { on });
  } catch (e) {
    s.errors.tables = errText(e);
  }
  await loadTab(true);
}

/** Give the notice to every player (POST /api/staff/announcement {text, hours?}), which
 * replaces the one shown; `form` null: take the one shown down ({text: null}). */
async function announce(form) {
  const s = St();
  if (s.busy) return;
  let body = { text: null };
  if (form) {
    const text = form.elements.text.value.trim();
    const hours = form.elements.hours.value.trim();
    if (!text) { s.errors.notice = t("staff.notice.empty"); redraw(); return; }
    body = { text };
    if (hours) body.hours = Number(hours);
  } else if (!window.confirm(t("staff.confirm.notice_off"))) return;
  s.busy = true; s.errors.notice = "";
  try {
    await deps.api("POST", "/api/staff/announcement", body);
    if (form) forgetForm(form.id);
  } catch (e) {
    s.errors.notice = errText(e);
  }
  s.busy = false;
  await loadTab(true);
}

async function fairplay(form) {
  const s = St();
  const q = new URLSearchParams();
  for (const name of ["min_wins", "days", "profile"]) {
    const v = form.elements[name].value.trim();
    if (v) q.set(name, v);
  }
  s.fair = "loading"; s.fairError = "";
  redraw();
  try {
    s.fair = await deps.api("GET", `/api/staff/fairplay?${q}`);
  } catch (e) {
    s.fair = null;
    s.fairError = errText(e);
  }
  redraw();
}

async function copyPassword() {
  const s = St();
  if (!s.password) return;
  try {
    await navigator.clipboard.writeText(s.password.password);
    s.copied = true;
  } catch { // no clipboard here (plain HTTP, a refusal): the password is selected to copy by hand
    const el = document.querySelector("[data-password]");
    if (el) window.getSelection().selectAllChildren(el);
  }
  redraw();
}

function goTo(tab, name) {
  location.hash = `#/staff?tab=${tab}${name ? `&name=${encodeURIComponent(name)}` : ""}`;
}

document.addEventListener("click", (ev) => {
  if (deps.S.screen !== "staff") return;
  const el = ev.target.closest && ev.target.closest("[data-staff-do],[data-staff-act],[data-staff-lookup],[data-staff-open]");
  if (!el) return;
  ev.preventDefault();
  const s = St();
  if (el.dataset.staffLookup) { goTo("player", el.dataset.staffLookup); return; }
  if (el.dataset.staffAct) { accountAction(el.dataset.staffAct, null); return; }
  if (el.dataset.staffOpen) { s.open = el.dataset.staffOpen; redraw(); return; }
  const what = el.dataset.staffDo;
  if (what === "reload") openStaff(s.tab, s.name);
  else if (what === "refresh") loadTab();
  else if (what === "closed-too") { s.closedToo = !s.closedToo; s.lists.reports = null; redraw(); loadTab(); }
  else if (what === "drain") drain();
  else if (what === "notice-off") announce(null);
  else if (what === "cancel-open") { s.open = null; redraw(); }
  else if (what === "copy") copyPassword();
  else if (what === "forget") { s.password = null; s.copied = false; redraw(); }
});

document.addEventListener("submit", (ev) => {
  if (deps.S.screen !== "staff") return;
  const form = ev.target;
  if (form.id === "staff-lookup-form") {
    ev.preventDefault();
    const name = form.elements.name.value.trim();
    if (!name) return;
    const s = St();
    s.account = null; // asked afresh, the same name too
    s.accountFor = null;
    s.accountError = ""; s.note = ""; s.closedName = "";
    const hash = `#/staff?tab=player&name=${encodeURIComponent(name)}`;
    if (location.hash === hash) { s.name = name; redraw(); lookUp(name); } else location.hash = hash;
  } else if (form.dataset.staffForm) {
    ev.preventDefault();
    accountAction(form.dataset.staffForm, form);
  } else if (form.dataset.staffClose) {
    ev.preventDefault();
    closeReport(form);
  } else if (form.dataset.staffReason) {
    ev.preventDefault();
    reasonAction(form);
  } else if (form.id === "staff-notice-form") {
    ev.preventDefault();
    announce(form);
  } else if (form.id === "staff-fair-form") {
    ev.preventDefault();
    fairplay(form);
  }
});

// Clubs (亲友圈) at #/clubs (the player's clubs, joining one by its number, founding one) and
// #/club?n=NNNNNN (one club: its name, number, owner, rules and notice for anyone signed in;
// for its members its waiting tables with 加入, 开桌, its latest matches with a link to watch
// the running ones, its standings (战绩榜: 本周, 本月, 全部) and its members; for its owner
// and admins the applications and the buttons that manage it).  Everything comes from the
// server (GET/POST /api/clubs…, docs/server.md "Clubs"): the page draws what it is sent,
// asks again after each action and every few seconds while a member looks at it.  A club's
// table is a private room whose options name the club: 开桌 sends `create_room` with
// `options: {club: n}` (the server puts in the club's rules) and 加入 sends `join_room` with
// the room's code, as the lobby's join form does; the "room" frame then brings the player
// to the room.

import { failureText, getLang, t } from "./i18n.js";
import { playerLink } from "./leaderboard.js";
import { esc } from "./table.js";

const REFRESH_MS = 8000;
const PERIODS = ["week", "month", "all"];
const ROLES = ["owner", "admin", "member", "pending"];

let deps = {
  S: null, api: null, send: () => false, profiles: [], rerender: () => {},
  optionsLine: () => "", roomOptions: () => ({}),
};
let timer = null;
let loads = 0; // the latest load of a club's page: only it asks again later

/** app.js gives its state, its API helper, the socket's send (a lobby request), the
 * profiles' names, a redraw, the rules in words (optionsLine) and the room form's options
 * from a form's elements (createOptions). */
export function initClubs(given) {
  deps = { ...deps, ...given };
  deps.S.clubs = { list: null, limits: null, error: "", formError: "", joinError: "", joinNote: "", busy: false };
  deps.S.club = { n: null, data: null, error: "", errors: {}, period: "week", standings: null, standingsError: "", editing: false };
}

// ============================================================ club_event frames
const EVENTS = ["applied", "approved", "rejected", "removed", "admin", "member", "owner"];

/** Something about this player in a club (``club_event``): a line on top of every screen but
 * the table until he closes it, and the club's data (its page, my clubs) asked again. */
export function onClubEvent(msg) {
  if (!EVENTS.includes(msg.event)) return;
  deps.S.clubEvent = msg;
  if (shown("club") && String(deps.S.club.n) === String(msg.club)) {
    if (msg.event === "removed") deps.S.club.data = null;
    loadClub();
  }
  openClubs();
  if (!shown("table")) deps.rerender();
}

/** The line of the last ``club_event`` (empty at the table: a hand is not interrupted). */
export function clubEventHTML() {
  const e = deps.S.clubEvent;
  if (!e || shown("table") || !deps.S.account) return "";
  const text = t(`club.event.${e.event}`, { username: esc(e.username), name: esc(e.name), n: e.club });
  const link = e.event === "removed" || e.event === "rejected" ? ""
    : `<a class="button primary" href="#/club?n=${e.club}" data-club-event-open="1">${t(e.event === "applied" ? "club.event.review" : "club.event.open")}</a>`;
  return `<div class="card club-event" role="status" data-club-event="${esc(e.event)}"><p>${text}</p>
    <div class="form-row">${link}<button type="button" data-club-event-close="1">${t("club.event.close")}</button></div></div>`;
}

/** Close the line (its button, or opening the club from it). */
export function closeClubEvent() {
  deps.S.clubEvent = null;
  deps.rerender();
}

function shown(screen) {
  return deps.S.screen === screen;
}

function registered() {
  const me = deps.S.account;
  return !!me && !me.is_guest;
}

function notFound(e) {
  return e && e.status === 404 ? t("club.not_found") : failureText(e);
}

function roleText(role) {
  return ROLES.includes(role) ? t(`club.role.${role}`) : "";
}

/** The applications waiting for this owner's or admin's answer (the server's count). */
function pendingBadge(c) {
  return c.pending ? ` <span class="club-badge" data-club-pending="${c.pending}">${t("club.pending_n", { n: c.pending })}</span>` : "";
}

/** The calendar day an ISO time names in its own offset (a period's start is midnight on the
 * server's calendar: shown in the viewer's zone it could fall on the day before). */
function calendarDay(iso) {
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(iso || "");
  if (!m) return "";
  return getLang() === "en" ? `${+m[2]}/${+m[3]}/${m[1]}` : `${m[1]}/${+m[2]}/${+m[3]}`;
}

function localDate(iso, withTime = false) {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return "";
  const locale = getLang() === "en" ? "en" : "zh-CN";
  return withTime ? d.toLocaleString(locale) : d.toLocaleDateString(locale);
}

// ============================================================ #/clubs
/** Ask for the player's clubs (the route, the lobby, after joining or founding). */
export async function openClubs() {
  stopClubRefresh();
  const C = deps.S.clubs;
  if (!deps.S.token || (deps.S.account && deps.S.account.is_guest)) return;
  try {
    const data = await deps.api("GET", "/api/clubs");
    C.list = data.clubs || [];
    C.limits = data.limits || null;
    C.error = "";
  } catch (e) {
    C.error = failureText(e);
  }
  if (shown("clubs") || shown("lobby")) deps.rerender();
}

/** The lobby's card: the player's clubs (a few), when he has any. */
export function clubsCardHTML() {
  if (!registered()) return "";
  const list = (deps.S.clubs.list || []).slice(0, 3);
  if (!list.length) return "";
  return `<div class="card club-card"><h3>${t("club.mine")}</h3><ul class="club-list">${list.map((c) => `<li data-club="${c.number}">` +
    `<a href="#/club?n=${c.number}">${esc(c.name)}</a> · <span class="club-role" data-role="${esc(c.role || "")}">${roleText(c.role)}</span>${pendingBadge(c)}</li>`).join("")}</ul>` +
    `<a href="#/clubs">${t("club.all")}</a></div>`;
}

function listHTML(C) {
  // a refresh that failed says so above the list it could not renew (not shown as fresh)
  const failed = C.error ? `<p class="error" role="alert">${esc(C.error)}</p>` : "";
  if (C.list === null) return failed || `<p>${t("app.loading")}</p>`;
  if (!C.list.length) return `${failed}<p class="muted club-none">${t("club.none")}</p>`;
  return `${failed}<ul class="club-list">${C.list.map((c) => `<li data-club="${c.number}">` +
    `<a href="#/club?n=${c.number}">${esc(c.name)}</a> · <span class="club-role" data-role="${esc(c.role || "")}">${roleText(c.role)}</span>${pendingBadge(c)}` +
    `<br><span class="muted">${t("club.number_n", { n: c.number })} · ${esc(t(`opt.profile.${c.profile}`))} · ${t("club.members_n", { n: c.members })}</span></li>`).join("")}</ul>`;
}

/** The rule fields of a club's form (the lobby's room form, with the same names: its
 * options come from app.js's createOptions). `o`: the values to start from. */
function rulesFieldsHTML(prefix, o) {
  const row = (name, label, control) => `<div class="form-row"><label for="${prefix}-${name}">${label}</label>${control}</div>`;
  const sel = (v, want) => (String(v) === String(want) ? " selected" : "");
  const val = (v) => (v === null || v === undefined ? "" : esc(String(v)));
  return row("profile", t("opt.profile"), `<select id="${prefix}-profile" name="profile">${deps.profiles.map((p) => `<option value="${p}"${sel(p, o.profile)}>${esc(t(`opt.profile.${p}`))}</option>`).join("")}</select>`) +
    row("opening_scoring", t("opt.opening"), `<select id="${prefix}-opening_scoring" name="opening_scoring"><option value="">${t("opt.opening.default")}</option>` +
      `<option value="per_opening"${sel("per_opening", o.opening_scoring)}>${t("opt.opening.per_opening")}</option><option value="once"${sel("once", o.opening_scoring)}>${t("opt.opening.once")}</option></select>`) +
    row("cap", t("opt.cap"), `<input id="${prefix}-cap" name="cap" type="number" inputmode="numeric" min="1" placeholder="${t("opt.default")}" value="${val(o.cap)}">`) +
    row("hands", t("opt.hands"), `<input id="${prefix}-hands" name="hands" type="number" inputmode="numeric" min="1" max="64" value="${val(o.hands === undefined ? 4 : o.hands)}">`) +
    row("claim_window_seconds", t("opt.claim"), `<input id="${prefix}-claim_window_seconds" name="claim_window_seconds" type="number" inputmode="decimal" min="1" max="60" step="0.5" placeholder="${t("opt.default")}" value="${val(o.claim_window_seconds)}">`) +
    row("stake", t("opt.stake"), `<input id="${prefix}-stake" name="stake" type="number" inputmode="numeric" min="0" value="${val(o.stake === undefined ? 0 : o.stake)}">`) +
    row("spectators", t("opt.spectators"), `<select id="${prefix}-spectators" name="spectators"><option value="on">${t("opt.spectators.on")}</option><option value="off"${o.spectators === false ? " selected" : ""}>${t("opt.spectators.off")}</option></select>`) +
    row("distinct_addresses", t("opt.distinct_addresses"), `<select id="${prefix}-distinct_addresses" name="distinct_addresses"><option value="off">${t("opt.distinct_addresses.off")}</option><option value="on"${o.distinct_addresses ? " selected" : ""}>${t("opt.distinct_addresses.on")}</option></select>`);
}

/** The player's clubs, joining one by its number, and founding one. */
export function clubsHTML() {
  const C = deps.S.clubs;
  const head = `<h2>${t("club.title")}</h2><p class="muted">${t("club.about")}</p>`;
  if (!deps.S.account) return `<div class="screen"><div class="card">${head}<p>${t("app.loading")}</p></div></div>`;
  if (!registered()) {
    return `<div class="screen"><div class="card">${head}<p class="club-guest">${t("club.guest")}</p>` +
      `<a class="button" href="#/profile">${t("club.guest_upgrade")}</a></div></div>`;
  }
  const L = C.limits;
  const limits = L ? `<p class="muted club-limits">${t("club.limits", { owned: L.owned_max, joined: L.joined_max, members: L.members_max })}</p>` : "";
  const note = C.joinNote ? `<p class="ok" role="status" data-club-applied="1">${esc(C.joinNote)}</p>` : "";
  const join = `<div class="card"><h3>${t("club.join")}</h3><form id="club-join-form" novalidate><div class="form-row">
    <input id="club-join-number" name="number" inputmode="numeric" maxlength="6" placeholder="${t("club.number")}" aria-label="${t("club.number")}" required>
    <button class="primary" type="submit">${t("club.apply")}</button></div>${note}
    <p class="error form-error" role="alert" data-error-for="club-join-form">${esc(C.joinError)}</p></form></div>`;
  const nameMax = L ? L.name_max : 20;
  const noticeMax = L ? L.notice_max : 200;
  const found = `<div class="card"><h3>${t("club.found")}</h3><form id="club-form" novalidate>
    <div class="form-row"><label for="club-name">${t("club.name")}</label><input id="club-name" name="name" maxlength="${nameMax}" required></div>
    <div class="form-row"><label for="club-notice">${t("club.notice")}</label><textarea id="club-notice" name="notice" rows="2" maxlength="${noticeMax}"></textarea></div>
    <h4>${t("club.rules")}</h4>${rulesFieldsHTML("club", {})}
    <button class="primary" type="submit"${C.busy ? " disabled" : ""}>${t("club.found_submit")}</button>
    <p class="error form-error" role="alert" data-error-for="club-form">${esc(C.formError)}</p></form></div>`;
  return `<div class="screen"><div class="card">${head}<h3>${t("club.mine")}</h3>${listHTML(C)}${limits}
    <button type="button" data-club-do="refresh-list">${t("watch.refresh")}</button></div>${join}${found}</div>`;
}

async function found(form) {
  const C = deps.S.clubs;
  C.formError = "";
  const name = form.elements.name.value.trim();
  if (!name) { C.formError = t("club.name_needed"); deps.rerender(); return; }
  const body = { name, notice: form.elements.notice.value, options: deps.roomOptions(form.elements) };
  C.busy = true;
  deps.rerender();
  try {
    const made = await deps.api("POST", "/api/clubs", body);
    C.busy = false;
    const shownForm = document.getElementById("club-form");
    if (shownForm) shownForm.reset(); // a redraw keeps what the fields hold: nothing now
    delete deps.S.forms["club-form"];
    C.list = null;
    location.hash = `#/club?n=${made.number}`;
  } catch (e) {
    C.busy = false;
    C.formError = failureText(e);
    deps.rerender();
  }
}

async function applyByNumber(form) {
  const C = deps.S.clubs;
  C.joinError = ""; C.joinNote = "";
  const number = form.elements.number.value.normalize("NFKC").trim(); // full-width digits from an input method
  if (!/^[0-9]{6}$/.test(number)) { C.joinError = t("club.bad_number"); deps.rerender(); return; }
  try {
    const { role } = await deps.api("POST", `/api/clubs/${number}/apply`, {});
    C.joinNote = role === "pending" ? t("club.applied", { n: number }) : t("club.already_in", { n: number, role: roleText(role) });
    const input = document.getElementById("club-join-number");
    if (input) input.value = ""; // a redraw keeps what the fields hold: nothing now
    delete deps.S.forms["club-join-form"];
  } catch (e) {
    C.joinError = notFound(e);
  }
  await openClubs();
  deps.rerender();
}

// ============================================================ #/club?n=
/** Ask for one club (the route; `period`: the standings' tab). */
export async function openClub(n, period) {
  stopClubRefresh();
  const D = deps.S.club;
  const number = String(n || "");
  if (D.n !== number) Object.assign(D, { n: number, data: null, error: "", errors: {}, standings: null, standingsError: "", editing: false });
  D.period = PERIODS.includes(period) ? period : "week";
  await loadClub();
}

function isMember(d) {
  return !!d && ["owner", "admin", "member"].includes(d.club.role);
}

/** The standings an overtaken load asked for and never showed: a page's refresh (which
 * leaves the standings alone) started while an action's load waited for them made that
 * load's answer stale, and the standings stayed as they were before the action. */
let standingsOwed = false;

async function loadClub({ standings = true } = {}) {
  const D = deps.S.club;
  const n = D.n;
  const load = ++loads;
  const withStandings = standings || standingsOwed;
  if (withStandings) standingsOwed = true;
  let changed = true;
  try {
    if (!/^[0-9]{6}$/.test(n)) throw Object.assign(new Error("not_found"), { status: 404 });
    const data = await deps.api("GET", `/api/clubs/${n}`);
    // a later load (an action's, a refresh's) has already shown what is newer: this answer,
    // asked before it, must not overwrite it when it comes late
    if (D.n !== n || load !== loads) return;
    changed = JSON.stringify(data) !== JSON.stringify(D.data) || !!D.error;
    D.data = data;
    D.error = "";
    // the list of my clubs (its page, the lobby's card) shows this club as it is now: its
    // badge of applications, my role, its size
    const list = deps.S.clubs.list;
    const at = list ? list.findIndex((c) => c.number === data.club.number) : -1;
    if (at >= 0) list[at] = data.club;
  } catch (e) {
    if (D.n !== n || load !== loads) return;
    D.error = notFound(e);
    D.data = null;
  }
  if (withStandings && isMember(D.data)) {
    const period = D.period;
    try {
      const s = await deps.api("GET", `/api/clubs/${n}/standings?period=${period}`);
      if (D.n !== n || D.period !== period || load !== loads) return;
      D.standings = s;
      D.standingsError = "";
    } catch (e) {
      if (D.n !== n || load !== loads) return;
      D.standingsError = failureText(e);
    }
    standingsOwed = false;
    changed = true;
  } else if (!isMember(D.data)) {
    D.standings = null;
    standingsOwed = false;
  }
  if (!shown("club") || D.n !== n || load !== loads) return;
  if (changed) deps.rerender();
  if (isMember(D.data)) {
    stopClubRefresh();
    timer = setTimeout(() => { if (shown("club") && D.n === n) loadClub({ standings: false }); }, REFRESH_MS);
  }
}

export function stopClubRefresh() {
  if (timer) clearTimeout(timer);
  timer = null;
}

function errorLine(where) {
  const text = deps.S.club.errors[where] || "";
  return `<p class="error" role="alert" data-error-for="club-${where}">${esc(text)}</p>`;
}

function headHTML(d) {
  const c = d.club;
  const role = c.role;
  const actions = [];
  if (!role) actions.push(`<button type="button" class="primary" data-club-do="apply">${t("club.apply")}</button>`);
  if (role === "pending") actions.push(`<button type="button" data-club-do="withdraw">${t("club.withdraw")}</button>`);
  if (role === "admin" || role === "member") actions.push(`<button type="button" data-club-do="leave">${t("club.leave")}</button>`);
  if (role === "owner" || role === "admin") actions.push(`<button type="button" data-club-do="edit" aria-expanded="${deps.S.club.editing}">${t("club.edit")}</button>`);
  if (role === "owner") actions.push(`<button type="button" class="danger" data-club-do="dissolve">${t("club.dissolve")}</button>`); // the dangerous one last
  const mine = role ? ` · <span class="club-role" data-role="${esc(role)}">${t("club.my_role", { role: roleText(role) })}</span>` : "";
  const pending = role === "pending" ? `<p class="muted club-pending">${t("club.pending_about")}</p>` : "";
  const notice = c.notice ? `<div class="club-notice"><h4>${t("club.notice")}</h4><p data-club-notice="1">${esc(c.notice)}</p></div>` : "";
  return `<h2 data-club-name="${esc(c.name)}">${esc(c.name)}</h2>
    <p><span data-club-number="${c.number}">${t("club.number_n", { n: c.number })}</span> · ${t("club.owner_is", { name: playerLink(c.owner) })} · <span data-club-members="${c.members}">${t("club.members_n", { n: c.members })}</span>${mine}</p>
    <p class="room-options club-rules">${t("club.rules")}：${deps.optionsLine({ ...c.options, profile: c.profile })}</p>
    <p class="muted">${t("club.since", { when: localDate(c.created_at) })}</p>${notice}${pending}
    ${actions.length ? `<div class="club-actions">${actions.join(" ")}</div>` : ""}${errorLine("head")}`;
}

function tablesHTML(d) {
  const rooms = d.rooms || [];
  const rows = rooms.map((r) => `<li data-club-room="${esc(r.code)}"><span class="club-room-code">${esc(r.code)}</span> · ${t("club.host", { name: esc(r.host) })} · ` +
    `${t("club.seated", { n: r.players.length })} (${r.players.map((p) => esc(p)).join("、")}) · ${t("opt.hands")} ${r.hands}${r.stake ? ` · ${t("opt.stake")} ${r.stake}` : ""} ` +
    `<button type="button" class="primary" data-club-join="${esc(r.code)}">${t("club.join_table")}</button></li>`).join("");
  return `<div class="card club-tables"><h3>${t("club.tables")}</h3>
    <div class="club-actions"><button type="button" class="primary" data-club-do="quick">${t("club.quick")}</button><button type="button" data-club-do="open">${t("club.open_table")}</button>
    <button type="button" data-club-do="refresh">${t("watch.refresh")}</button></div>${errorLine("tables")}
    ${rows ? `<ul class="club-rooms">${rows}</ul>` : `<p class="muted club-no-rooms">${t("club.no_tables")}</p>`}</div>`;
}

function matchesHTML(d) {
  const list = d.matches || [];
  if (!list.length) return `<div class="card club-matches"><h3>${t("club.matches")}</h3><p class="muted">${t("club.no_matches")}</p></div>`;
  const rows = list.map((m) => {
    const who = m.results.map(([name, points]) => `${esc(name)} ${points > 0 ? "+" : ""}${points}`).join("、");
    const status = m.status === "running"
      ? `<span class="tour-status" data-status="running">${t("club.match_running", { done: m.hands_done, hands: m.hands })}</span>`
      : `<span class="tour-status" data-status="${esc(m.status)}">${t(m.status === "finished" ? "club.match_finished" : "club.match_other")}</span>`;
    const watch = m.table_id ? ` · <a href="#/watch?id=${encodeURIComponent(m.table_id)}" data-watch="${esc(m.table_id)}">${t("watch.watch")}</a>` : "";
    return `<li data-club-match="${esc(m.match_id)}">${status}${who ? ` · ${who}` : ""}${watch}<br><span class="muted">${localDate(m.created_at, true)}</span></li>`;
  }).join("");
  return `<div class="card club-matches"><h3>${t("club.matches")}</h3><ul class="tour-tables">${rows}</ul></div>`;
}

function standingsHTML(d) {
  const D = deps.S.club;
  const n = d.club.number;
  const tabs = PERIODS.map((p) => `<a class="tab" href="#/club?n=${n}&period=${p}" data-club-period="${p}" ${p === D.period ? `aria-current="page"` : ""}>${t(`club.period.${p}`)}</a>`).join("");
  const s = D.standings;
  let body;
  if (D.standingsError) body = `<p class="error" role="alert">${esc(D.standingsError)}</p>`;
  else if (!s || s.period !== D.period) body = `<p>${t("app.loading")}</p>`;
  else if (!s.standings.length) body = `<p class="muted club-no-standings">${t("club.no_standings")}</p>`;
  else {
    const me = deps.S.account ? deps.S.account.username : null;
    const rows = s.standings.map((x) => `<tr data-standing="${esc(x.username)}"${x.username === me ? ` class="me" aria-current="true"` : ""}>` +
      `<td>${x.rank}</td><td>${playerLink(x.username)}</td><td>${x.points > 0 ? "+" : ""}${x.points}</td><td>${x.hands}</td><td>${x.wins}</td><td>${x.matches}</td></tr>`).join("");
    body = `<div class="scroll-x"><table class="history tour-standings club-standings"><thead><tr><th>${t("board.rank")}</th><th>${t("board.player")}</th>` +
      `<th>${t("tour.points")}</th><th>${t("club.hands")}</th><th>${t("club.wins")}</th><th>${t("tour.matches")}</th></tr></thead><tbody>${rows}</tbody></table></div>`;
  }
  const since = s && s.since && s.period === D.period ? `<p class="muted">${t("club.since_period", { when: calendarDay(s.since) })}</p>` : "";
  return `<div class="card club-board"><h3>${t("club.standings")}</h3><nav class="tabs" aria-label="${t("club.standings")}">${tabs}</nav>${since}${body}</div>`;
}

function memberButtons(m) {
  // the server says what the viewer may do with each row (store.clubs.member_actions)
  const b = (action, key, cls = "") => `<button type="button"${cls ? ` class="${cls}"` : ""} data-club-member="${esc(m.username)}" data-club-action="${action}">${t(key)}</button>`;
  const labels = { admin: "club.make_admin", member: "club.unadmin", remove: "club.remove" };
  const out = (m.actions || []).filter((a) => a in labels || a === "transfer").map((a) => a === "transfer"
    ? `<button type="button" data-club-transfer="${esc(m.username)}">${t("club.transfer")}</button>`
    : b(a, labels[a]));
  return out.length ? `<span class="club-member-actions">${out.join(" ")}</span>` : "";
}

function membersHTML(d) {
  const c = d.club;
  const all = d.members || [];
  const pending = all.filter((m) => m.role === "pending");
  const members = all.filter((m) => m.role !== "pending");
  const admin = c.role === "owner" || c.role === "admin";
  let apps = "";
  if (admin) {
    const rows = pending.map((m) => `<li data-club-applicant="${esc(m.username)}">${playerLink(m.username)} <span class="muted">${localDate(m.since, true)}</span> ` +
      `<span class="club-member-actions"><button type="button" class="primary" data-club-member="${esc(m.username)}" data-club-action="approve">${t("club.approve")}</button> ` +
      `<button type="button" data-club-member="${esc(m.username)}" data-club-action="reject">${t("club.reject")}</button></span></li>`).join("");
    apps = `<h3>${t("club.applications")}</h3>${rows ? `<ul class="club-people club-applications">${rows}</ul>` : `<p class="muted club-no-applications">${t("club.no_applications")}</p>`}`;
  }
  const online = members.filter((m) => m.online).length;
  const rows = members.map((m) => `<li data-club-member-row="${esc(m.username)}" data-role="${esc(m.role)}" data-online="${m.online ? 1 : 0}">${playerLink(m.username)}` +
    `${m.online ? ` <span class="club-online">${t("following.online")}</span>` : ""} · ` +
    `<span class="club-role" data-role="${esc(m.role)}">${roleText(m.role)}</span> <span class="muted">${t("club.joined_on", { when: localDate(m.since) })}</span> ${memberButtons(m)}</li>`).join("");
  return `<div class="card club-members">${apps}<h3>${t("club.member_list", { n: members.length })}${online ? ` <span class="muted club-online-count">${t("club.online_n", { n: online })}</span>` : ""}</h3>${errorLine("members")}<ul class="club-people">${rows}</ul></div>`;
}

function editHTML(d) {
  const c = d.club;
  const L = deps.S.clubs.limits;
  const owner = c.role === "owner";
  const rules = owner ? `<h4>${t("club.rules")}</h4>${rulesFieldsHTML("ce", { ...c.options, profile: c.profile })}` : "";
  const name = owner ? `<div class="form-row"><label for="ce-name">${t("club.name")}</label><input id="ce-name" name="name" maxlength="${L ? L.name_max : 20}" value="${esc(c.name)}" required></div>` : "";
  return `<div class="card club-edit"><h3>${t("club.edit")}</h3><form id="club-edit-form" novalidate>${name}
    <div class="form-row"><label for="ce-notice">${t("club.notice")}</label><textarea id="ce-notice" name="notice" rows="3" maxlength="${L ? L.notice_max : 200}">${esc(c.notice)}</textarea></div>
    ${rules}<div class="club-actions"><button class="primary" type="submit">${t("club.save")}</button><button type="button" data-club-do="edit">${t("club.cancel_edit")}</button></div>
    ${errorLine("edit")}</form></div>`;
}

/** One club's page. */
export function clubHTML() {
  const D = deps.S.club;
  const back = `<nav class="tabs"><a class="tab" href="#/clubs">${t("club.mine")}</a></nav>`;
  if (!D.data) {
    const body = D.error ? `<p class="error" role="alert">${esc(D.error)}</p>` : `<p>${t("app.loading")}</p>`;
    return `<div class="screen"><div class="card">${body}${back}</div></div>`;
  }
  const d = D.data;
  const member = isMember(d);
  const admin = d.club.role === "owner" || d.club.role === "admin";
  return `<div class="screen club-page" data-club="${d.club.number}"><div class="card">${headHTML(d)}${back}</div>
    ${admin && D.editing ? editHTML(d) : ""}
    ${member ? tablesHTML(d) + standingsHTML(d) + matchesHTML(d) + membersHTML(d) : ""}</div>`;
}

function setError(where, e) {
  deps.S.club.errors = { [where]: !e ? "" : failureText(e) };
}

/** POST to the club's route `path`; null when refused (its error shown at `where`). */
async function post(where, path, body = {}) {
  setError(where, null);
  try {
    return await deps.api("POST", `/api/clubs/${deps.S.club.n}${path}`, body);
  } catch (e) {
    setError(where, e);
    return null;
  }
}

async function act(what) {
  const D = deps.S.club;
  if (what === "apply") {
    await post("head", "/apply");
  } else if (what === "withdraw") {
    await post("head", "/leave");
    deps.S.clubs.list = null;
  } else if (what === "leave") {
    if (!window.confirm(t("club.leave_confirm"))) return;
    if (await post("head", "/leave")) { deps.S.clubs.list = null; location.hash = "#/clubs"; return; }
  } else if (what === "dissolve") {
    if (!window.confirm(t("club.dissolve_confirm", { name: D.data ? D.data.club.name : "" }))) return;
    if (await post("head", "/dissolve")) { deps.S.clubs.list = null; location.hash = "#/clubs"; return; }
  } else if (what === "edit") {
    D.editing = !D.editing;
    delete deps.S.forms["club-edit-form"]; // the form starts from the club as it is
    setError("edit", null);
    deps.rerender();
    return;
  } else if (what === "open" || what === "quick") {
    // 快速加入: the waiting table nearest to starting (the server lists the fullest first),
    // or a new one when none waits; 开桌: always a new one
    setError("tables", null);
    const n = Number(D.n);
    const waiting = what === "quick" && D.data && (D.data.rooms || []).find((r) => r.players.length < 4);
    const msg = waiting ? { type: "join_room", code: waiting.code, ref: "club" } : { type: "create_room", options: { club: n }, ref: "club" };
    if (!deps.send(msg)) setError("tables", { code: "network" });
    deps.rerender();
    return;
  }
  await loadClub();
}

async function member(username, action) {
  if (action === "remove" && !window.confirm(t("club.remove_confirm", { name: username }))) return;
  await post("members", "/members", { username, action });
  await loadClub();
}

async function transfer(username) {
  if (!window.confirm(t("club.transfer_confirm", { name: username }))) return;
  await post("members", "/transfer", { username });
  await loadClub();
}

async function saveSettings(form) {
  const D = deps.S.club;
  const owner = D.data && D.data.club.role === "owner";
  const body = { notice: form.elements.notice.value };
  if (owner) {
    body.name = form.elements.name.value.trim();
    body.options = deps.roomOptions(form.elements);
  }
  if (await post("edit", "/settings", body)) {
    D.editing = false;
    delete deps.S.forms["club-edit-form"];
  }
  await loadClub();
}

/** A lobby request of this page refused by the server (ref "club": 开桌, 加入). */
export function onClubError(msg) {
  deps.S.club.errors = { tables: failureText(msg) };
}

document.addEventListener("click", (ev) => {
  const line = ev.target.closest && ev.target.closest("[data-club-event-close],[data-club-event-open]");
  if (line) { // the club_event line: closed by its button, or by going to the club (the link)
    if (line.dataset.clubEventClose) ev.preventDefault();
    closeClubEvent();
    return;
  }
  const el = ev.target.closest && ev.target.closest("[data-club-do],[data-club-join],[data-club-member],[data-club-transfer]");
  if (!el) return;
  ev.preventDefault();
  if (el.dataset.clubJoin) {
    setError("tables", null);
    if (!deps.send({ type: "join_room", code: el.dataset.clubJoin, ref: "club" })) setError("tables", { code: "network" });
    deps.rerender();
    return;
  }
  if (el.dataset.clubTransfer) { transfer(el.dataset.clubTransfer); return; }
  if (el.dataset.clubMember) { member(el.dataset.clubMember, el.dataset.clubAction); return; }
  const what = el.dataset.clubDo;
  if (what === "refresh-list") openClubs();
  else if (what === "refresh") loadClub();
  else act(what);
});

document.addEventListener("submit", (ev) => {
  const id = ev.target.id;
  if (id === "club-form") { ev.preventDefault(); found(ev.target); }
  else if (id === "club-join-form") { ev.preventDefault(); applyByNumber(ev.target); }
  else if (id === "club-edit-form") { ev.preventDefault(); saveSettings(ev.target); }
});

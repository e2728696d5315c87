// Tournaments (比赛) at #/tournaments (the list, and a form to create one) and
// #/tournament?id=N (one tournament: its players and standing, each round's tables with a
// link to watch the running ones, and the buttons its player or creator needs: 报名, 退出,
// 开始, 取消).  Everything comes from the server (GET/POST /api/tournaments…, docs/server.md
// "Tournaments"): the page draws what it is sent and asks again every few seconds while
// the tournament is open or running.  When a round starts, the server seats the player and
// his table frame brings him to the table, as a room's start does; the match summary leads
// back here.

import { failureText, getLang, t } from "./i18n.js";
import { playerLink } from "./leaderboard.js";
import { esc } from "./table.js";

const REFRESH_MS = 5000;

let deps = { S: null, api: null, profiles: [], rerender: () => {} };
let timer = null;

/** app.js gives its state, its API helper, the profiles' names and a redraw. */
export function initTournaments({ S, api, profiles, rerender }) {
  deps = { S, api, profiles, rerender };
  S.tournaments = { list: null, form: null, nameMax: 0, error: "", formError: "", busy: false };
  S.tournament = { id: null, data: null, error: "", actionError: "" };
}

function shown(screen) {
  return deps.S.screen === screen;
}

/** Ask for the list (the route, the form's answer, the refresh button). */
export async function openTournaments() {
  stopRefresh();
  const T = deps.S.tournaments;
  try {
    const data = await deps.api("GET", "/api/tournaments");
    T.list = data.tournaments || [];
    T.form = data.form; // the creation form's numbers: their ranges and first values
    T.nameMax = data.name_max;
    T.startBounds = { lead: data.start_lead_minutes, days: data.open_days }; // 定时开赛
    T.error = "";
  } catch (e) {
    T.error = failureText(e);
  }
  if (shown("tournaments") || shown("lobby")) deps.rerender();
}

/** The lobby's card: the tournaments open for entries and those running (a few). */
export function tournamentsCardHTML() {
  const list = (deps.S.tournaments.list || []).filter((x) => x.status === "open" || x.status === "running").slice(0, 3);
  if (!list.length) return "";
  return `<div class="card tour-card"><h3>${t("tour.title")}</h3><ul class="tour-list">${list.map((x) => `<li data-tournament="${x.id}">` +
    `<a href="#/tournament?id=${x.id}">${esc(x.name)}</a> · <span class="tour-status" data-status="${esc(x.status)}">${statusText(x)}</span> · ${t("tour.players_n", { n: x.players, max: x.capacity })}</li>`).join("")}</ul>` +
    `<a href="#/tournaments">${t("tour.all")}</a></div>`;
}

/** Ask for one tournament, and again every few seconds while it is open or running. */
export async function openTournament(id) {
  stopRefresh();
  const D = deps.S.tournament;
  if (String(D.id) !== String(id)) Object.assign(D, { id, data: null, error: "", actionError: "" });
  await loadTournament();
}

async function loadTournament() {
  const D = deps.S.tournament;
  const id = D.id;
  try {
    if (!/^[0-9]{1,9}$/.test(String(id || ""))) throw Object.assign(new Error("not_found"), { status: 404 });
    const data = await deps.api("GET", `/api/tournaments/${id}`);
    if (D.id !== id) return;
    D.data = data;
    D.error = "";
  } catch (e) {
    if (D.id !== id) return;
    D.error = e.status === 404 ? t("tour.not_found") : failureText(e);
  }
  if (!shown("tournament")) return;
  deps.rerender();
  const status = D.data && D.data.tournament.status;
  if (status === "open" || status === "running") {
    timer = setTimeout(() => { if (shown("tournament") && D.id === id) loadTournament(); }, REFRESH_MS);
  }
}

export function stopRefresh() {
  if (timer) clearTimeout(timer);
  timer = null;
}

function statusText(tour) {
  if (tour.status === "running") return t("tour.status.running", { round: tour.round, rounds: tour.rounds });
  return t(`tour.status.${tour.status}`);
}

function localTime(iso) {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? "" : d.toLocaleString(getLang() === "en" ? "en" : "zh-CN");
}

function infoLine(tour) {
  const parts = [esc(t(`opt.profile.${tour.profile}`)), t("tour.rounds_n", { n: tour.rounds }),
    t("tour.hands_n", { n: tour.hands }), t("tour.players_n", { n: tour.players, max: tour.capacity })];
  if (tour.status === "open" && tour.starts_at) parts.push(`<span data-starts-at="${esc(tour.starts_at)}">${t("tour.starts_at", { when: localTime(tour.starts_at) })}</span>`);
  return parts.join(" · ");
}

/** The list, and the form to create one (registered players). */
export function tournamentsHTML() {
  const T = deps.S.tournaments;
  let body;
  // a refresh that failed says so above the list it could not renew (not shown as fresh)
  const failed = T.error ? `<p class="error" role="alert">${esc(T.error)}</p>` : "";
  if (T.list === null) body = failed || `<p>${t("app.loading")}</p>`;
  else if (!T.list.length) body = `${failed}<p class="muted tour-none">${t("tour.none")}</p>`;
  else {
    body = `${failed}<ul class="tour-list">${T.list.map((x) => `<li data-tournament="${x.id}">` +
      `<a href="#/tournament?id=${x.id}">${esc(x.name)}</a> · <span class="tour-status" data-status="${esc(x.status)}">${statusText(x)}</span>` +
      `<br><span class="muted">${infoLine(x)} · ${t("tour.by", { name: esc(x.creator) })}</span></li>`).join("")}</ul>`;
  }
  const me = deps.S.account;
  let create;
  if (!me || !T.form) create = "";
  else if (me.is_guest) create = `<p class="muted">${t("tour.guest")}</p>`;
  else {
    const opt = (p) => `<option value="${p}">${esc(t(`opt.profile.${p}`))}</option>`;
    const num = (name) => `<input id="tour-${name}" name="${name}" type="number" inputmode="numeric" min="${T.form[name].low}" max="${T.form[name].high}" value="${T.form[name].default}" required>`;
    create = `<h3>${t("tour.create")}</h3><form id="tournament-form" novalidate>
      <div class="form-row"><label for="tour-name">${t("tour.name")}</label><input id="tour-name" name="name" maxlength="${T.nameMax}" required></div>
      <div class="form-row"><label for="tour-profile">${t("opt.profile")}</label><select id="tour-profile" name="profile">${deps.profiles.map(opt).join("")}</select></div>
      <div class="form-row"><label for="tour-rounds">${t("tour.rounds")}</label>${num("rounds")}</div>
      <div class="form-row"><label for="tour-hands">${t("tour.hands")}</label>${num("hands")}</div>
      <div class="form-row"><label for="tour-capacity">${t("tour.capacity")}</label>${num("capacity")}</div>
      <div class="form-row"><label for="tour-starts">${t("tour.start_time")}</label><input id="tour-starts" name="starts_at" type="datetime-local"></div>
      <p class="muted">${t("tour.start_time_about", { lead: T.startBounds ? T.startBounds.lead : 5, days: T.startBounds ? T.startBounds.days : 7 })}</p>
      <button class="primary" type="submit"${T.busy ? " disabled" : ""}>${t("tour.create_submit")}</button>
      <p class="error form-error" role="alert" data-error-for="tournament-form">${esc(T.formError)}</p></form>`;
  }
  return `<div class="screen"><div class="card"><h2>${t("tour.title")}</h2><p class="muted">${t("tour.about")}</p>${body}
    <button type="button" data-tour-do="refresh">${t("watch.refresh")}</button></div>
    ${create ? `<div class="card">${create}</div>` : ""}</div>`;
}

function buttonsHTML(d) {
  const tour = d.tournament;
  if (d.entered === null || d.entered === undefined) {
    return tour.status === "open" ? `<p class="muted">${t("tour.sign_in")}</p>` : "";
  }
  const out = [];
  if (tour.status === "open") {
    out.push(d.entered
      ? `<button type="button" data-tour-do="withdraw">${t("tour.withdraw")}</button>`
      : `<button type="button" class="primary" data-tour-do="join">${t("tour.join")}</button>`);
    if (d.creator) {
      out.push(`<button type="button" class="primary" data-tour-do="start">${t("tour.start")}</button>`);
      out.push(`<button type="button" data-tour-do="cancel">${t("tour.cancel")}</button>`);
    }
  } else if (tour.status === "running" && d.entered) {
    out.push(`<button type="button" data-tour-do="withdraw">${t("tour.withdraw")}</button>`);
  }
  const err = deps.S.tournament.actionError;
  return `<div class="tour-actions">${out.join(" ")}</div>` +
    `<p class="error" role="alert" data-error-for="tournament-actions">${esc(err)}</p>`;
}

function standingsHTML(d) {
  const me = deps.S.account ? deps.S.account.username : null;
  if (!d.standings.length) return "";
  const rows = d.standings.map((s) => `<tr data-standing="${esc(s.username)}"${s.username === me ? ` class="me" aria-current="true"` : ""}>` +
    `<td>${s.rank}</td><td>${playerLink(s.username)}${s.withdrawn ? ` · <span class="muted">${t("tour.withdrawn")}</span>` : ""}</td>` +
    `<td>${s.points > 0 ? "+" : ""}${s.points}</td><td>${s.matches}</td><td>${s.firsts}</td></tr>`).join("");
  return `<h3>${t(d.tournament.status === "open" ? "tour.entries" : "tour.standings")}</h3><div class="scroll-x"><table class="history tour-standings"><thead><tr>` +
    `<th>${t("board.rank")}</th><th>${t("board.player")}</th><th>${t("tour.points")}</th><th>${t("tour.matches")}</th><th>${t("tour.firsts")}</th></tr></thead><tbody>${rows}</tbody></table></div>`;
}

function tablesHTML(d) {
  if (!d.tables.length) return "";
  const rounds = [...new Set(d.tables.map((x) => x.round))];
  return rounds.map((r) => `<h3>${t("tour.round", { n: r })}</h3><ul class="tour-tables">` +
    d.tables.filter((x) => x.round === r).map((x) => `<li data-round="${r}" data-table-no="${x.table_no}">` +
      `${t("tour.table", { n: x.table_no + 1 })}: ${(x.results && x.results.length
        ? x.results.map(([name, points]) => `${esc(name)} ${points > 0 ? "+" : ""}${points}`)
        : x.players.map((p) => esc(p))).join("、")} · ${t(`tour.table_status.${x.status}`)}` +
      (x.table_id ? ` · <a href="#/watch?id=${encodeURIComponent(x.table_id)}" data-watch="${esc(x.table_id)}">${t("watch.watch")}</a>` : "") +
      `</li>`).join("") + `</ul>`).join("");
}

/** One tournament's page. */
export function tournamentHTML() {
  const D = deps.S.tournament;
  const back = `<nav class="tabs"><a class="tab" href="#/tournaments">${t("tour.title")}</a></nav>`;
  if (!D.data) {
    const body = D.error ? `<p class="error" role="alert">${esc(D.error)}</p>` : `<p>${t("app.loading")}</p>`;
    return `<div class="screen"><div class="card">${body}${back}</div></div>`;
  }
  const d = D.data;
  const tour = d.tournament;
  const when = new Date(tour.created_at);
  return `<div class="screen"><div class="card"><h2 data-tournament-name="${esc(tour.name)}">${esc(tour.name)}</h2>
    <p><span class="tour-status" data-status="${esc(tour.status)}">${statusText(tour)}</span> · ${infoLine(tour)}</p>
    <p class="muted">${t("tour.by", { name: esc(tour.creator) })}${Number.isNaN(when.getTime()) ? "" : ` · ${when.toLocaleString(getLang() === "en" ? "en" : "zh-CN")}`}</p>
    ${buttonsHTML(d)}${standingsHTML(d)}${tablesHTML(d)}${back}</div></div>`;
}

async function act(what) {
  const D = deps.S.tournament;
  D.actionError = "";
  if (what === "cancel" && !window.confirm(t("tour.cancel_confirm"))) return;
  try {
    await deps.api("POST", `/api/tournaments/${D.id}/${what}`, {});
  } catch (e) {
    D.actionError = failureText(e);
  }
  await loadTournament();
}

async function create(form) {
  const T = deps.S.tournaments;
  T.formError = "";
  const number = (name) => Number(form.elements[name].value);
  const body = { name: form.elements.name.value, profile: form.elements.profile.value,
    rounds: number("rounds"), hands: number("hands"), capacity: number("capacity") };
  const starts = form.elements.starts_at.value; // the player's local time, without a zone
  if (starts) {
    const at = new Date(starts);
    if (Number.isNaN(at.getTime())) { T.formError = t("tour.bad_start"); deps.rerender(); return; }
    body.starts_at = at.toISOString(); // with its zone (UTC): the server wants one
  }
  for (const [name, { low, high }] of Object.entries(T.form)) {
    if (!Number.isInteger(body[name]) || body[name] < low || body[name] > high) {
      T.formError = t("tour.bad_number", { field: t(`tour.${name}`), low, high });
      deps.rerender();
      return;
    }
  }
  T.busy = true;
  deps.rerender();
  try {
    const made = await deps.api("POST", "/api/tournaments", body);
    T.busy = false;
    location.hash = `#/tournament?id=${made.id}`;
  } catch (e) {
    T.busy = false;
    T.formError = failureText(e);
    deps.rerender();
  }
}

document.addEventListener("click", (ev) => {
  const el = ev.target.closest && ev.target.closest("[data-tour-do]");
  if (!el) return;
  ev.preventDefault();
  const what = el.dataset.tourDo;
  if (what === "refresh") openTournaments();
  else act(what);
});

document.addEventListener("submit", (ev) => {
  if (ev.target.id !== "tournament-form") return;
  ev.preventDefault();
  create(ev.target);
});

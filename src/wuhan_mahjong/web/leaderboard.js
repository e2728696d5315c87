// The leaderboards (排行榜) at #/leaderboard?profile=…&period=all|week: the best-rated players
// of each profile, all time or this week, as GET /api/leaderboard ranks them (docs/server.md
// "Ratings"); public, like lichess's.  The player finds his own line marked and, on the
// all-time board, what he still needs to appear on it.  Each name opens the player's public
// page, #/player?name=… (GET /api/players/{name}): level, title, ratings and places, and
// his table if he plays now (a link to watch it); a signed-in player follows him there (关注,
// POST/DELETE /api/following/{name}) and finds the players he follows in the lobby, online
// or not and at which table (GET /api/following).  Both the public page and the profile show
// the player's statistics (战绩: statsHTML), counted by the server from his recorded hands.

import { failureText, getLang, t } from "./i18n.js";

/** Dates are written in the page's language, not the browser's. */
const locale = () => (getLang() === "en" ? "en" : "zh-CN");
import { blockButtonHTML } from "./blocks.js";
import { reportNameHTML } from "./report.js";
import { esc } from "./table.js";

export const PERIODS = ["all", "week"];

let deps = { S: null, api: null, profiles: [], rerender: () => {} };

/** app.js gives its state, its API helper, the profiles' names and a redraw. */
export function initLeaderboard({ S, api, profiles, rerender }) {
  deps = { S, api, profiles, rerender };
  S.board = { profile: profiles[0], period: "all", data: null, error: "", asked: null };
  S.player = { name: null, data: null, error: "" };
  S.following = { players: null, error: "", loading: false };
}

/** Show the board of `profile` and `period` (from the route; unknown values: the first). */
export async function openLeaderboard(profile, period) {
  const B = deps.S.board;
  B.profile = deps.profiles.includes(profile) ? profile : deps.profiles[0];
  B.period = PERIODS.includes(period) ? period : PERIODS[0];
  const key = `${B.profile}/${B.period}`;
  if (B.data && B.data.key === key) return; // already on screen (the server caches it anyway)
  B.asked = key;
  B.error = "";
  B.data = null;
  try {
    const data = await deps.api("GET", `/api/leaderboard?profile=${encodeURIComponent(B.profile)}&period=${B.period}`);
    if (B.asked !== key) return; // another board was asked for meanwhile
    B.data = { ...data, key };
  } catch (e) {
    if (B.asked !== key) return;
    B.error = failureText(e);
  }
  if (deps.S.screen === "leaderboard") deps.rerender();
}

function href(profile, period) {
  return `#/leaderboard?profile=${encodeURIComponent(profile)}&period=${period}`;
}

/** What the signed-in player still needs to appear on the all-time board, when he is not on it. */
function myLine(data) {
  const me = deps.S.account;
  if (!me || data.period !== "all" || data.players.some((p) => p.username === me.username)) return "";
  if (me.is_guest) return `<p class="board-me">${t("board.guest")}</p>`;
  const mine = (deps.S.ratings || []).find((r) => r.profile === data.profile);
  const played = mine ? mine.matches : 0;
  const left = Math.max(0, data.min_matches - played);
  const rating = mine ? `${t("board.my_rating", { n: mine.rating })} · ` : "";
  return `<p class="board-me">${rating}${left ? t("board.to_go", { n: left }) : t("board.below")}</p>`;
}

/** The leaderboard page. */
export function leaderboardHTML() {
  const B = deps.S.board;
  const tabs = deps.profiles.map((p) => `<a class="tab" href="${href(p, B.period)}" data-board-profile="${p}" ${p === B.profile ? `aria-current="page"` : ""}>${esc(t(`opt.profile.${p}`))}</a>`).join("");
  const periods = PERIODS.map((p) => `<a class="tab" href="${href(B.profile, p)}" data-board-period="${p}" ${p === B.period ? `aria-current="page"` : ""}>${t(`board.${p}`)}</a>`).join("");
  let body;
  const data = B.data;
  if (!data) body = `<p>${B.error ? `<span class="error" role="alert">${esc(B.error)}</span>` : t("app.loading")}</p>`;
  else {
    const me = deps.S.account ? deps.S.account.username : null;
    const since = data.since ? `<p class="muted" data-since="${esc(data.since)}">${t("board.since", { when: new Date(data.since).toLocaleString(locale()) })}</p>` : "";
    const rows = data.players.map((p) => `<tr data-rank="${p.rank}" ${p.username === me ? `class="me" aria-current="true"` : ""}>` +
      `<td>${p.rank}</td><td>${playerLink(p.username)}${p.username === me ? ` · ${t("board.you")}` : ""}</td><td>${p.rating}</td><td>${p.matches}</td></tr>`).join("");
    body = data.players.length
      ? `${since}<div class="scroll-x"><table class="history board"><thead><tr><th>${t("board.rank")}</th><th>${t("board.player")}</th><th>${t("board.rating")}</th><th>${t(`board.matches_${data.period}`)}</th></tr></thead><tbody>${rows}</tbody></table></div>`
      : `${since}<p class="board-empty">${t(`board.empty_${data.period}`, { n: data.min_matches })}</p>`;
    body += myLine(data) + `<p class="muted">${t("board.about", { n: data.min_matches })}</p>`;
  }
  return `<div class="screen"><div class="card"><h2>${t("board.title")}</h2>
    <nav class="tabs" aria-label="${t("opt.profile")}">${tabs}</nav>
    <nav class="tabs" aria-label="${t("board.period")}">${periods}</nav>${body}</div></div>`;
}

/** A link to a player's public page. */
export function playerLink(name) {
  return `<a href="#/player?name=${encodeURIComponent(name)}" data-player="${esc(name)}">${esc(name)}</a>`;
}

/** Show the public page of `name` (from the route). */
export async function openPlayer(name) {
  const P = deps.S.player;
  if (name === P.name && (P.data || P.error)) return;
  Object.assign(P, { name, data: null, error: "" });
  try {
    if (!name) throw Object.assign(new Error("not_found"), { status: 404 });
    const data = await deps.api("GET", `/api/players/${encodeURIComponent(name)}`);
    if (P.name !== name) return; // another page was asked for meanwhile
    P.data = data;
  } catch (e) {
    if (P.name !== name) return;
    P.error = e.status === 404 ? t("player.not_found") : failureText(e);
  }
  if (deps.S.screen === "player") deps.rerender();
}

/** A player's public page. */
export function playerHTML() {
  const P = deps.S.player;
  const back = `<a class="tab" href="#/leaderboard">${t("board.title")}</a>`;
  if (!P.data) {
    const body = P.error ? `<p class="error" role="alert">${esc(P.error)}</p>` : `<p>${t("app.loading")}</p>`;
    return `<div class="screen"><div class="card"><h2>${esc(P.name || "")}</h2>${body}<nav class="tabs">${back}</nav></div></div>`;
  }
  const d = P.data;
  const en = getLang() === "en";
  const joined = new Date(d.joined);
  const rows = d.ratings.map((r) => `<tr data-profile="${esc(r.profile)}"><td>${esc(t(`opt.profile.${r.profile}`))}</td><td>${r.rating}</td><td>${r.matches}</td>` +
    `<td>${r.place ? t("player.place", { n: r.place }) : t("player.unplaced", { n: Math.max(0, d.min_matches - r.matches) })}</td></tr>`).join("");
  const ratings = d.ratings.length
    ? `<div class="scroll-x"><table class="history board"><thead><tr><th>${t("opt.profile")}</th><th>${t("board.rating")}</th><th>${t("board.matches_all")}</th><th>${t("board.rank")}</th></tr></thead><tbody>${rows}</tbody></table></div>`
    : `<p class="player-none">${t("player.none")}</p>`;
  const curves = d.ratings.filter((r) => r.history && r.history.length > 1).map(ratingCurveHTML).join("");
  // signed in and not his own page (the server says whether he follows him): he may report the name
  const report = d.followed === null || d.followed === undefined ? "" : reportNameHTML(d.username);
  const block = d.followed === null || d.followed === undefined ? "" : blockButtonHTML(d.username);
  const follow = d.followed === null || d.followed === undefined ? ""
    : `<button type="button" data-follow="${esc(d.username)}" data-on="${d.followed ? "0" : "1"}" aria-pressed="${d.followed}">${t(d.followed ? "player.unfollow" : "player.follow")}</button>${P.followError ? `<span class="error" role="alert">${esc(P.followError)}</span>` : ""}`;
  return `<div class="screen"><div class="card"><h2 data-player-name="${esc(d.username)}">${esc(d.username)}</h2>${follow}${block}
    <p class="player-level">${t("profile.level")} ${d.level} · ${esc(en ? d.title_en : d.title)} · ${esc(en ? d.rank_en : d.rank)}</p>
    <p class="muted">${t("player.joined", { when: Number.isNaN(joined.getTime()) ? "" : joined.toLocaleDateString(locale()) })}</p>
    ${d.playing ? `<p class="player-live">${t("player.playing", { profile: esc(t(`opt.profile.${d.playing.profile}`)), n: d.playing.hand_no + 1, hands: d.playing.hands })} · <a href="#/watch?id=${encodeURIComponent(d.playing.table_id)}" data-watch="${esc(d.playing.table_id)}">${t("watch.watch")}</a></p>` : ""}
    ${ratings}${curves}<h3>${t("stats.title")}</h3>${statsHTML(d.stats, false)}${report}<nav class="tabs">${back}</nav></div></div>`;
}

const CURVE_W = 240;
const CURVE_H = 48;

/** A rating's curve (the shown rating before his newest rated matches and after each, as
 * the server sends it): a line over the matches, its lowest and highest values named. */
export function ratingCurveHTML(r) {
  const values = r.history.map((p) => p.rating);
  const low = Math.min(...values);
  const high = Math.max(...values);
  const span = Math.max(1, high - low);
  const x = (i) => ((i * (CURVE_W - 4)) / (values.length - 1) + 2).toFixed(1);
  const y = (v) => (CURVE_H - 2 - ((v - low) * (CURVE_H - 4)) / span).toFixed(1);
  const points = values.map((v, i) => `${x(i)},${y(v)}`).join(" ");
  const label = t("player.curve", { profile: t(`opt.profile.${r.profile}`), n: values.length - 1, low, high });
  return `<figure class="rating-curve" data-profile="${esc(r.profile)}" data-points="${values.length}">
    <svg viewBox="0 0 ${CURVE_W} ${CURVE_H}" width="${CURVE_W}" height="${CURVE_H}" role="img" aria-label="${esc(label)}"><polyline fill="none" stroke="currentColor" stroke-width="2" points="${points}"/></svg>
    <figcaption>${esc(label)}</figcaption></figure>`;
}

/** A share as a percentage with one decimal ("—" when there is nothing to divide). */
function percent(part, whole) {
  return whole > 0 ? `${(Math.round((1000 * part) / whole) / 10).toFixed(1)}%` : "—";
}

/** A player's statistics (战绩), one column per profile he has played: the server's counts
 * (GET /api/profile or /api/players/{name} → stats) and the rates they make.  `own`: his
 * own page, where the best hand has a replay button. */
export function statsHTML(stats, own) {
  if (!stats || !stats.length) return `<p class="stats-none">${t("stats.none")}</p>`;
  const hands = (names) => names.map((h) => t(`bighand.${h}`)).join(" · ");
  const signed = (n) => (n > 0 ? `+${n}` : `${n}`);
  const rows = [
    ["matches", (s) => s.matches],
    ["hands", (s) => s.hands],
    ["win_rate", (s) => percent(s.wins, s.hands)],
    ["self_drawn", (s) => percent(s.self_drawn, s.wins)],
    ["deal_in_rate", (s) => percent(s.dealt_in, s.hands)],
    ["claim_rate", (s) => percent(s.claimed, s.hands)],
    ["exhausted_rate", (s) => percent(s.exhausted, s.hands)],
    ["big_rate", (s) => percent(s.big_wins, s.wins)],
    ["points_per_hand", (s) => (s.hands ? signed(Math.round((10 * s.points) / s.hands) / 10) : "—")],
    ["escaped", (s) => s.escaped],
    ["best", (s) => (s.best ? `${signed(s.best.points)}${s.best.big_hands.length ? ` · ${esc(hands(s.best.big_hands))}` : ""}` +
      (own && s.best.match_id ? ` <button data-replay="${esc(s.best.match_id)}/${s.best.hand_no}">${t("profile.view")}</button>` : "") : "—")],
    ["big_hands", (s) => {
      const list = Object.entries(s.big_hands || {});
      return list.length ? list.map(([h, n]) => `${esc(t(`bighand.${h}`))} ×${n}`).join(" · ") : "—";
    }],
  ];
  const head = stats.map((s) => `<th>${esc(t(`opt.profile.${s.profile}`))}</th>`).join("");
  const body = rows.map(([key, cell]) => `<tr data-stat="${key}"><th>${t(`stats.${key}`)}</th>` +
    stats.map((s) => `<td data-profile="${esc(s.profile)}">${cell(s)}</td>`).join("") + "</tr>").join("");
  return `<div class="scroll-x"><table class="history stats"><thead><tr><th></th>${head}</tr></thead><tbody>${body}</tbody></table></div>`;
}

/** Follow (`on`) or stop following `name`, from his page. */
async function setFollowing(name, on) {
  const P = deps.S.player;
  P.followError = "";
  try {
    await deps.api(on ? "POST" : "DELETE", `/api/following/${encodeURIComponent(name)}`);
    if (P.data && P.data.username === name) P.data = { ...P.data, followed: on };
    deps.S.following.players = null; // the lobby's list asks again
  } catch (e) {
    const problem = e.params && e.params.problem;
    P.followError = problem === "too_many" ? t("player.too_many", { n: e.params.max }) : failureText(e);
  }
  if (deps.S.screen === "player") deps.rerender();
}

/** Ask for the players this player follows, with their presence (the lobby's card). */
export async function loadFollowing() {
  const F = deps.S.following;
  if (F.loading || !deps.S.token) return;
  F.loading = true;
  try {
    F.players = (await deps.api("GET", "/api/following")).players || [];
    F.error = "";
  } catch (e) {
    F.error = failureText(e);
  }
  F.loading = false;
  if (deps.S.screen === "lobby" || deps.S.screen === "room") deps.rerender();
}

/** The lobby's card of followed players: online first, then by name. */
export function followingHTML() {
  const F = deps.S.following;
  let body;
  if (F.players === null) body = `<p>${F.error ? esc(F.error) : t("app.loading")}</p>`;
  else if (!F.players.length) body = `<p class="muted following-none">${t("following.none")}</p>`;
  else {
    const order = [...F.players].sort((a, b) => (b.online - a.online) || (!!b.playing - !!a.playing));
    body = `<ul class="following-list">${order.map((p) => {
      const state = p.playing
        ? `${t("following.playing")} · <a href="#/watch?id=${encodeURIComponent(p.playing.table_id)}" data-watch="${esc(p.playing.table_id)}">${t("watch.watch")}</a>`
        : t(p.online ? "following.online" : "following.offline");
      const friend = p.follows_you ? ` · <span class="friend">${t("following.friend")}</span>` : "";
      return `<li data-followed="${esc(p.username)}" data-online="${p.online ? "1" : "0"}"><span class="dot ${p.online ? "on" : "off"}" aria-hidden="true"></span>${playerLink(p.username)}${friend} · ${state}</li>`;
    }).join("")}</ul>`;
  }
  return `<div class="card following-card"><h3>${t("following.title")}</h3>${body}` +
    `<button type="button" data-do="following-refresh">${t("watch.refresh")}</button></div>`;
}

document.addEventListener("click", (ev) => {
  const el = ev.target.closest && ev.target.closest("[data-follow]");
  if (!el) return;
  ev.preventDefault();
  setFollowing(el.dataset.follow, el.dataset.on === "1");
});

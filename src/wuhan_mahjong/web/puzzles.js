// Discard puzzles (何切, 牌效练习) at #/puzzles (the puzzle of the day of the chosen profile),
// #/puzzles?profile=P (the day's puzzle of P) and #/puzzles?profile=P&n=N (puzzle N of P: its
// address to share), like lichess's puzzles.  A puzzle is a position the server makes from
// (profile, number) (wuhan_mahjong.bots.puzzles): the hand, the tile just drawn (set apart
// at the right as at the table), the melds, the indicator and the laizi.  The player taps
// the tile he would cut; the server answers (POST /api/puzzles/{profile}/{n}/answer) with
// every legal cut, best first: its shanten (向听), its acceptance (进张: how many unseen
// tiles bring the hand a step closer) and their kinds.  The answer is the fewest shanten,
// then the most acceptance; the page draws what it is sent and decides nothing itself.
// 下一题 picks a number with crypto.getRandomValues.  A signed-in player (a guest too) sees
// his record (GET /api/puzzles/stats: done, solved, the streak and the best streak); the
// server counts only an account's first answer to a puzzle, and says which one it was
// (`attempt` of the question), so a puzzle answered before shows that result at once.

import { failureText, t, tileName } from "./i18n.js";
import { esc, tileHTML } from "./table.js";
import { parseTiles } from "./tiles.js";

export const PUZZLE_NUMBER_MAX = 999999999;
const CACHE_MAX = 32; // puzzles (and their answers) kept for Back and Forward
const PROFILE_KEY = "wm.puzzle.profile";

let deps = { S: null, api: null, profiles: [], rerender: () => {} };

/** app.js gives its state, its API helper, the profiles' names and a redraw. */
export function initPuzzles({ S, api, profiles, rerender }) {
  deps = { S, api, profiles, rerender };
  let profile = profiles[0];
  try { profile = localStorage.getItem(PROFILE_KEY) || profile; } catch { /* ignore */ }
  S.puzzle = {
    profile: profiles.includes(profile) ? profile : profiles[0],
    key: null, // what is on screen: "daily/P" or "P/N"
    data: null, // the question (GET), with `daily` for the day's puzzle
    result: null, // the server's answer to this player's latest cut
    answered: false, // an answer to this puzzle already counted (before, or in this visit)
    error: "", answerError: "", loading: false, answering: null, selected: null,
    stats: null, statsError: "", statsFor: undefined,
    cache: new Map(), cacheFor: undefined, copied: false,
  };
}

/** A puzzle number from the address, or null (the day's puzzle, or not a number). */
function parseNumber(raw) {
  if (raw === null || raw === undefined || raw === "") return null;
  const s = String(raw).trim();
  return /^[1-9][0-9]{0,8}$/.test(s) ? Number(s) : NaN;
}

/** A uniformly random puzzle number in 1..PUZZLE_NUMBER_MAX, other than `not`. */
export function randomNumber(not = null) {
  const buf = new Uint32Array(1);
  const limit = Math.floor(2 ** 32 / PUZZLE_NUMBER_MAX) * PUZZLE_NUMBER_MAX; // no bias
  for (;;) {
    crypto.getRandomValues(buf);
    if (buf[0] >= limit) continue;
    const n = (buf[0] % PUZZLE_NUMBER_MAX) + 1;
    if (n !== not) return n;
  }
}

export function puzzleHash(profile, number) {
  return `#/puzzles?profile=${encodeURIComponent(profile)}&n=${number}`;
}

function shareURL(profile, number) {
  return `${location.origin}${location.pathname}${puzzleHash(profile, number)}`;
}

function shown() {
  return deps.S.screen === "puzzles";
}

/** Forget what belongs to another account (a sign-in, a sign-out): the questions carry
 * the account's earlier answers, the record is his. */
function sameAccount() {
  const P = deps.S.puzzle;
  const who = deps.S.token || null;
  if (P.cacheFor !== who) {
    P.cache.clear();
    P.cacheFor = who;
    P.stats = null;
    P.statsError = "";
    P.statsFor = undefined;
    if (P.key) { P.key = null; P.data = null; P.result = null; P.answered = false; }
  }
}

function remember(key, entry) {
  const cache = deps.S.puzzle.cache;
  cache.delete(key);
  cache.set(key, entry);
  while (cache.size > CACHE_MAX) cache.delete(cache.keys().next().value);
}

/** Show the puzzle the route asks for: `number` of `profile`, or the day's puzzle of
 * `profile` (no number), or of the profile chosen last (no profile either). */
export async function openPuzzle(profile, rawNumber) {
  const P = deps.S.puzzle;
  sameAccount();
  loadStats();
  if (profile && deps.profiles.includes(profile)) setProfile(profile);
  const number = parseNumber(rawNumber);
  const invalid = (profile && !deps.profiles.includes(profile)) || Number.isNaN(number);
  const key = invalid ? `bad/${profile}/${rawNumber}` : number === null ? `daily/${P.profile}` : `${P.profile}/${number}`;
  // on screen already (a failed request is asked again)
  if (P.key === key && (P.data || P.loading || (P.error && invalid))) return;
  P.key = key;
  P.copied = false;
  P.selected = null;
  P.answerError = "";
  P.answering = null;
  const kept = P.cache.get(key);
  if (kept) {
    Object.assign(P, { data: kept.data, result: kept.result, answered: kept.answered, error: "", loading: false });
    return;
  }
  Object.assign(P, { data: null, result: null, answered: false, error: "", loading: true });
  if (invalid) { P.loading = false; P.error = t("puzzle.not_found"); return; }
  try {
    const path = number === null
      ? `/api/puzzles/daily?profile=${encodeURIComponent(P.profile)}`
      : `/api/puzzles/${encodeURIComponent(P.profile)}/${number}`;
    const data = await deps.api("GET", path);
    if (P.key !== key) return; // another puzzle was asked for meanwhile
    // the day's puzzle is puzzle N too: an answer given to it under its number is kept
    const same = P.cache.get(`${data.profile}/${data.number}`);
    P.data = data;
    P.result = same ? same.result : null;
    P.answered = !!data.attempt || (same ? same.answered : false);
    if (number !== null) remember(key, { data, result: P.result, answered: P.answered });
  } catch (e) {
    if (P.key !== key) return;
    P.error = e.status === 404 ? t("puzzle.not_found") : failureText(e);
  }
  P.loading = false;
  if (shown()) deps.rerender();
}

function setProfile(profile) {
  deps.S.puzzle.profile = profile;
  try { localStorage.setItem(PROFILE_KEY, profile); } catch { /* ignore */ }
}

/** The signed-in player's record (once per account, then from each answer). */
async function loadStats() {
  const P = deps.S.puzzle;
  const who = deps.S.token || null;
  if (!who || P.statsFor === who) return;
  P.statsFor = who;
  try {
    const stats = await deps.api("GET", "/api/puzzles/stats");
    if (deps.S.token !== who) return;
    P.stats = stats;
    P.statsError = "";
  } catch (e) {
    if (deps.S.token !== who) return;
    P.statsFor = undefined; // asked again on the next puzzle
    P.statsError = failureText(e);
  }
  if (shown()) deps.rerender();
}

/** Cut `tile`: the server says whether it is the best and lists every cut. */
async function answer(tile) {
  const P = deps.S.puzzle;
  const d = P.data;
  if (!d || P.answering || !(d.discards || []).includes(tile)) return;
  const key = P.key;
  P.answering = tile;
  P.answerError = "";
  deps.rerender();
  try {
    const result = await deps.api("POST", `/api/puzzles/${encodeURIComponent(d.profile)}/${d.number}/answer`, { discard: tile });
    if (P.key !== key) return;
    P.result = { ...result, again: P.answered && !!deps.S.token }; // again: this answer did not count
    P.answered = true;
    P.selected = null;
    if (result.stats && deps.S.token) { P.stats = result.stats; P.statsError = ""; }
    // kept under its number (the day's puzzle is asked for again: tomorrow it is another)
    remember(`${d.profile}/${d.number}`, { data: d, result: P.result, answered: true });
  } catch (e) {
    if (P.key !== key) return;
    P.answerError = failureText(e);
  } finally {
    if (P.key === key) P.answering = null;
  }
  if (shown()) deps.rerender();
}

// ------------------------------------------------------------------ drawing
/** The hand as the table draws it: sorted, the drawn tile set apart at the right. */
function handTiles(d) {
  const tiles = parseTiles(d.hand);
  let drawn = null;
  if (d.drawn) {
    const i = tiles.lastIndexOf(d.drawn);
    if (i >= 0) { tiles.splice(i, 1); drawn = d.drawn; }
  }
  return { tiles, drawn, all: drawn ? [...tiles, drawn] : tiles };
}

function meldHTML(m, laizi) {
  const tiles = parseTiles(m.tiles);
  const label = m.type === "kong" && m.kind ? t(`act.kong.${m.kind}`) : t(`meld.${m.type}`);
  // a concealed kong as the table shows it: its two end tiles face down
  const body = tiles.map((x, i) => tileHTML(m.kind === "concealed" && (i === 0 || i === 3) ? "back" : x, { laizi })).join("");
  return `<span class="meld meld-${esc(m.type)}" data-meld="${esc(m.type)}"><span class="meld-tiles">${body}</span><span class="meld-label">${esc(label)}</span></span>`;
}

function handHTML(d) {
  const P = deps.S.puzzle;
  const { tiles, drawn } = handTiles(d);
  const r = P.result;
  const legal = new Set(d.discards || []);
  // one copy of a tile is marked: the drawn one, else the rightmost
  const at = (tile) => (tile && drawn === tile ? tiles.length : tile ? tiles.lastIndexOf(tile) : -1);
  const cut = r ? at(r.discard) : -1;
  const best = r && !r.correct ? at(r.answer) : -1;
  const sent = P.answering ? at(P.answering) : -1;
  const one = (tile, idx, extra) => {
    const cls = ["puzzle-tile"];
    if (extra) cls.push(extra);
    if (legal.has(tile) && !P.answering) cls.push("playable");
    if (P.selected === idx) cls.push("selected");
    if (idx === sent) cls.push("answering");
    if (idx === cut) cls.push(r.correct ? "cut-right" : "cut-wrong");
    if (idx === best) cls.push("cut-best");
    const attrs = ` data-puzzle-tile="${esc(tile)}" data-pi="${idx}" role="button" tabindex="0"` +
      `${legal.has(tile) ? "" : ` aria-disabled="true"`}`;
    return tileHTML(tile, { cls: cls.join(" "), laizi: d.laizi, attrs });
  };
  const body = tiles.map((x, i) => one(x, i, "")).join("");
  const set = drawn ? `<span class="drawn-gap"></span>${one(drawn, tiles.length, "drawn")}` : "";
  return `<div class="hand puzzle-hand" data-count="${tiles.length + (drawn ? 1 : 0)}" aria-label="${esc(t("puzzle.hand"))}">${body}${set}</div>`;
}

function positionHTML(d) {
  const melds = (d.melds || []).length ? `<div class="melds puzzle-melds">${d.melds.map((m) => meldHTML(m, d.laizi)).join("")}</div>` : "";
  const facts = [
    `<span data-turn="${d.turn}">${t("puzzle.turn", { n: d.turn })}</span>`,
    `<span data-wall="${d.wall_left}">${t("table.wall", { n: d.wall_left })}</span>`,
    `<span data-dealer="${d.dealer ? 1 : 0}">${t(d.dealer ? "seat.dealer" : "puzzle.not_dealer")}</span>`,
  ];
  if (!d.drawn) facts.push(`<span data-after-claim="1">${t("puzzle.after_claim")}</span>`);
  const lz = `<div class="lz puzzle-lz"><figure class="indicator"><figcaption>${t("table.indicator")}</figcaption>${tileHTML(d.indicator)}</figure>` +
    `<span class="arrow" aria-hidden="true">→</span>` +
    `<figure class="laizi-fig"><figcaption>${t("table.laizi")}</figcaption>${tileHTML(d.laizi, { cls: "laizi" })}</figure></div>`;
  return `<div class="puzzle-position">${lz}<p class="puzzle-facts">${facts.join(" · ")}</p></div>` +
    `<p class="puzzle-question">${t("puzzle.question")}</p>` + melds + handHTML(d);
}

function verdictHTML(d) {
  const P = deps.S.puzzle;
  const r = P.result;
  if (r) {
    const line = r.correct ? t("puzzle.you_right", { tile: esc(tileName(r.discard)) })
      : t("puzzle.you_cut", { tile: esc(tileName(r.discard)), answer: esc(tileName(r.answer)) });
    return `<div class="puzzle-verdict ${r.correct ? "right" : "wrong"}" role="status" data-correct="${r.correct ? 1 : 0}">` +
      `<b class="puzzle-mark" aria-hidden="true">${r.correct ? "✓" : "✗"}</b> <b>${t(r.correct ? "puzzle.correct" : "puzzle.wrong")}</b> ${line}` +
      `${r.again ? `<span class="muted puzzle-again"> · ${t("puzzle.not_counted")}</span>` : ""}</div>`;
  }
  const a = d.attempt;
  if (a) {
    return `<div class="puzzle-verdict earlier ${a.correct ? "right" : "wrong"}" role="status" data-earlier="${a.correct ? 1 : 0}">` +
      `<b class="puzzle-mark" aria-hidden="true">${a.correct ? "✓" : "✗"}</b> ${t(a.correct ? "puzzle.earlier_right" : "puzzle.earlier_wrong", { tile: esc(tileName(a.discard)) })}` +
      ` <button type="button" data-puzzle="show" data-tile="${esc(a.discard)}">${t("puzzle.show_answer")}</button>` +
      `<span class="muted"> ${t("puzzle.tap_again")}</span></div>`;
  }
  return "";
}

function choicesHTML(d) {
  const r = deps.S.puzzle.result;
  if (!r) return "";
  const rows = r.choices.map((c) => {
    const mine = c.tile === r.discard;
    const best = c.tile === r.answer;
    const cls = [mine ? "mine" : "", best ? "best" : ""].filter(Boolean).join(" ");
    const marks = [best ? `<span class="puzzle-badge best">${t("puzzle.best")}</span>` : "", mine ? `<span class="puzzle-badge mine">${t("puzzle.you")}</span>` : ""].join("");
    const kinds = parseTiles(c.kinds).map((x) => tileHTML(x, { laizi: d.laizi })).join("");
    return `<tr data-choice-tile="${esc(c.tile)}"${cls ? ` class="${cls}"` : ""}${mine ? ` aria-current="true"` : ""}>` +
      `<td class="puzzle-cut">${tileHTML(c.tile, { laizi: d.laizi })}${marks}</td><td data-shanten="${c.shanten}">${c.shanten}</td>` +
      `<td data-acceptance="${c.acceptance}">${t("puzzle.tiles_n", { n: c.acceptance })}</td><td class="puzzle-kinds">${kinds}</td></tr>`;
  }).join("");
  return `<div class="scroll-x"><table class="history puzzle-choices"><thead><tr><th>${t("puzzle.col.cut")}</th><th>${t("puzzle.col.shanten")}</th>` +
    `<th>${t("puzzle.col.acceptance")}</th><th>${t("puzzle.col.kinds")}</th></tr></thead><tbody>${rows}</tbody></table></div>`;
}

function shareHTML(d) {
  const P = deps.S.puzzle;
  const url = shareURL(d.profile, d.number);
  return `<div class="form-row puzzle-share"><label for="puzzle-link">${t("puzzle.share")}</label>` +
    `<input id="puzzle-link" class="invite-link" readonly value="${esc(url)}">` +
    `<button type="button" data-puzzle="copy">${t(P.copied ? "puzzle.copied" : "puzzle.copy")}</button></div>`;
}

function statsHTML() {
  const S = deps.S;
  const P = S.puzzle;
  if (!S.token) return `<p class="muted puzzle-stats-none"><a href="#/login">${t("puzzle.sign_in")}</a></p>`;
  if (!P.stats) return P.statsError ? `<p class="error" role="alert">${esc(P.statsError)}</p>` : "";
  const s = P.stats;
  return `<p class="puzzle-stats" data-attempted="${s.attempted}" data-solved="${s.solved}" data-streak="${s.streak}" data-best-streak="${s.best_streak}">` +
    t("puzzle.stats", { attempted: s.attempted, solved: s.solved, streak: s.streak, best: s.best_streak }) + `</p>`;
}

/** The puzzles page. */
export function puzzlesHTML() {
  const P = deps.S.puzzle;
  const d = P.data;
  const options = deps.profiles.map((p) => `<option value="${p}" ${p === P.profile ? "selected" : ""}>${esc(t(`opt.profile.${p}`))}</option>`).join("");
  const bar = `<div class="form-row puzzle-bar"><label for="puzzle-profile">${t("opt.profile")}</label>` +
    `<select id="puzzle-profile" data-puzzle-profile="1">${options}</select>` +
    `<button type="button" data-puzzle="daily">${t("puzzle.daily")}</button>` +
    `<button type="button" data-puzzle="next">${t("puzzle.next")}</button></div>`;
  let body;
  if (!d) {
    body = P.error ? `<p class="error" role="alert" data-puzzle-error="1">${esc(P.error)}</p>` : `<p>${t("app.loading")}</p>`;
  } else {
    const title = d.daily ? t("puzzle.daily_of", { day: esc(d.daily) }) : t("puzzle.number", { n: d.number });
    const head = `<p class="puzzle-head" data-profile="${esc(d.profile)}" data-number="${d.number}"${d.daily ? ` data-daily="${esc(d.daily)}"` : ""}>` +
      `<b>${title}</b> · ${esc(t(`opt.profile.${d.profile}`))}${d.daily ? ` · <a href="${puzzleHash(d.profile, d.number)}">${t("puzzle.number", { n: d.number })}</a>` : ""}</p>`;
    const err = P.answerError ? `<p class="error" role="alert" data-answer-error="1">${esc(P.answerError)}</p>` : "";
    const after = P.result
      ? `<div class="puzzle-result">${choicesHTML(d)}<div class="form-row puzzle-after"><button type="button" class="primary" data-puzzle="next">${t("puzzle.next")}</button></div>${shareHTML(d)}</div>`
      : `<p class="muted puzzle-about">${t("puzzle.about")}</p>`;
    body = `<div class="puzzle" data-puzzle-state="${P.result ? "answered" : "open"}">${head}${positionHTML(d)}${err}${verdictHTML(d)}${after}</div>`;
  }
  return `<div class="screen puzzles"><div class="card"><h2>${t("puzzle.title")}</h2>${bar}${statsHTML()}${body}</div></div>`;
}

// ------------------------------------------------------------------ events
function next() {
  const P = deps.S.puzzle;
  location.hash = puzzleHash(P.profile, randomNumber(P.data ? P.data.number : null));
}

/** The day's puzzle of the chosen profile (asked again when it is the address already). */
function daily() {
  const hash = `#/puzzles?profile=${encodeURIComponent(deps.S.puzzle.profile)}`;
  if (location.hash !== hash) { location.hash = hash; return; }
  openPuzzle(deps.S.puzzle.profile, null);
  deps.rerender();
}

async function copyLink() {
  const P = deps.S.puzzle;
  const field = document.getElementById("puzzle-link");
  if (!field) return;
  try {
    await navigator.clipboard.writeText(field.value);
    P.copied = true;
    deps.rerender();
  } catch {
    field.focus(); field.select(); // the player copies it himself
  }
}

document.addEventListener("click", (ev) => {
  if (!shown() || !ev.target.closest) return;
  const tile = ev.target.closest("[data-puzzle-tile]");
  if (tile) { ev.preventDefault(); answer(tile.dataset.puzzleTile); return; }
  const el = ev.target.closest("[data-puzzle]");
  if (!el) return;
  const what = el.dataset.puzzle;
  if (what === "next") next();
  else if (what === "daily") daily();
  else if (what === "copy") copyLink();
  else if (what === "show") answer(el.dataset.tile);
});

document.addEventListener("change", (ev) => {
  if (!shown() || !ev.target.dataset || !ev.target.dataset.puzzleProfile) return;
  const profile = ev.target.value;
  if (!deps.profiles.includes(profile)) return;
  setProfile(profile);
  location.hash = `#/puzzles?profile=${encodeURIComponent(profile)}`; // that profile's puzzle of the day
});

// the table's keys: 1-9 and 0 pick a tile, the arrows move, Enter cuts (the drawn tile when
// none is picked), Escape lets go; N is the next puzzle
document.addEventListener("keydown", (ev) => {
  if (!shown() || ev.ctrlKey || ev.metaKey || ev.altKey) return;
  if (ev.target.closest && ev.target.closest("input,select,textarea,button,a")) return;
  const P = deps.S.puzzle;
  const d = P.data;
  if (!d) return;
  const { all } = handTiles(d);
  const key = ev.key;
  const focused = ev.target.dataset && ev.target.dataset.pi !== undefined ? Number(ev.target.dataset.pi) : null;
  if (/^[0-9]$/.test(key)) {
    const idx = key === "0" ? 9 : Number(key) - 1;
    if (idx >= all.length) return;
    P.selected = idx;
  } else if (key === "ArrowLeft" || key === "ArrowRight") {
    const n = all.length;
    const cur = P.selected ?? focused ?? (key === "ArrowLeft" ? n : -1);
    P.selected = (cur + (key === "ArrowLeft" ? -1 : 1) + n) % n;
  } else if (key === "Enter" || key === " ") {
    const idx = focused ?? P.selected ?? (key === "Enter" && d.drawn ? all.length - 1 : null);
    if (idx === null) return;
    ev.preventDefault();
    answer(all[idx]);
    return;
  } else if (key === "Escape") P.selected = null;
  else if (key === "n" || key === "N") { ev.preventDefault(); next(); return; } else return;
  ev.preventDefault();
  deps.rerender();
  if (P.selected !== null) {
    const el = document.querySelector(`.puzzle-hand [data-pi="${P.selected}"]`);
    if (el) el.focus({ preventScroll: true });
  }
});

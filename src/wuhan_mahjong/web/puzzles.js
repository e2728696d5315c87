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
//
// Win questions (胡不胡, "can this hand win?") are the second kind, switched to at the top:
// #/puzzles?kind=win (the day's), ?kind=win&profile=P and ?kind=win&profile=P&n=N; the same
// daily, next, profile, share link and record (GET /api/puzzles/stats?kind=win: each kind
// has its own).  A question is a settlement record (docs/score.md, wuhan_mahjong.bots.
// win_puzzles) whose winner's tiles make a winning shape: the page draws the winner's hand
// and the winning tile set apart with how it came, his melds, special kongs and laizi thrown,
// the dealer, and the other seats' melds and kongs (their own factors count towards the
// minimum score; their concealed tiles are not shown).  能胡 / 不能胡 (or Y / N) answers
// (POST /api/puzzles/win/{profile}/{n}/answer); the answer is the settlement calculator's:
// the settlement, drawn as the calculator draws it (calculator.js's settlementHTML), or the
// rule that stops the win (refusalText), and a link opens the record in the calculator.
//
// 我的记录 (the puzzle history, 错题本, as lichess's): below the puzzle, a signed-in player's
// first answers in the kind shown, newest first (GET /api/puzzles/history?kind=…&wrong=1
// &offset=…&limit=…), all of them or 只看错题 (the wrong ones); each row ✓ or ✗, the profile,
// the number, the answer he gave (a tile, or 能胡 / 不能胡) and when, and a link to the puzzle
// (which shows his earlier answer); 更多 asks for the next page.  An answer that counts asks
// for the list again.

import { calculatorHash, settlementHTML } from "./calculator.js";
import { failureText, getLang, refusalText, seatName, t, tileName } from "./i18n.js";
import { esc, tileHTML } from "./table.js";
import { parseTiles } from "./tiles.js";

export const PUZZLE_NUMBER_MAX = 999999999;
const CACHE_MAX = 32; // puzzles (and their answers) kept for Back and Forward
const PROFILE_KEY = "wm.puzzle.profile";
export const PUZZLE_KINDS = ["discard", "win"];
const KONGS = ["red", "green", "laizi", "pi"]; // a seat's special kongs, as the record names them
const HISTORY_PAGE = 20; // rows of the history asked for at once (the server allows 1..100)
const HISTORY_MAX = 100;

let deps = { S: null, api: null, profiles: [], rerender: () => {} };

/** app.js gives its state, its API helper, the profiles' names and a redraw. */
export function initPuzzles({ S, api, profiles, rerender }) {
  deps = { S, api, profiles, rerender };
  let profile = profiles[0];
  try { profile = localStorage.getItem(PROFILE_KEY) || profile; } catch { /* ignore */ }
  S.puzzle = {
    kind: "discard", // "discard" (何切) or "win" (胡不胡)
    profile: profiles.includes(profile) ? profile : profiles[0],
    key: null, // what is on screen: "daily/P" or "P/N"; "win:daily/P" or "win:P/N"
    data: null, // the question (GET), with `daily` for the day's puzzle
    result: null, // the server's answer to this player's latest cut (or yes / no)
    answered: false, // an answer to this puzzle already counted (before, or in this visit)
    error: "", answerError: "", loading: false, answering: null, selected: null,
    // the record of each kind: {discard, win}
    stats: {}, statsError: {}, statsFor: {},
    history: {}, // the history of each kind: {discard, win} (historyOf)
    cache: new Map(), cacheFor: undefined, copied: false,
    last: {}, // the address last shown of each kind (the switch goes back to it)
    laizi: null, // GET /api/rules' laizi of each indicator, per profile (a win question's)
  };
}

const prefix = (kind) => (kind === "win" ? "win:" : "");

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

/** The address of puzzle `number` of `profile` in `kind`, or of the day's (no number). */
export function puzzleHash(profile, number, kind = "discard") {
  const n = number === null || number === undefined ? "" : `&n=${number}`;
  return `#/puzzles?${kind === "win" ? "kind=win&" : ""}profile=${encodeURIComponent(profile)}${n}`;
}

function shareURL(profile, number, kind) {
  return `${location.origin}${location.pathname}${puzzleHash(profile, number, kind)}`;
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
    P.stats = {};
    P.statsError = {};
    P.statsFor = {};
    P.history = {};
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
 * `profile` (no number), or of the profile chosen last (no profile either); a discard
 * puzzle, or a win question with `rawKind` "win". */
export async function openPuzzle(profile, rawNumber, rawKind = null) {
  const P = deps.S.puzzle;
  const kind = rawKind === "win" ? "win" : "discard";
  P.kind = kind;
  P.last[kind] = location.hash;
  sameAccount();
  loadStats(kind);
  loadHistory(kind);
  if (kind === "win") loadLaizi();
  if (profile && deps.profiles.includes(profile)) setProfile(profile);
  const number = parseNumber(rawNumber);
  const invalid = (profile && !deps.profiles.includes(profile)) || Number.isNaN(number);
  const key = prefix(kind) + (invalid ? `bad/${profile}/${rawNumber}` : number === null ? `daily/${P.profile}` : `${P.profile}/${number}`);
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
    const base = kind === "win" ? "/api/puzzles/win" : "/api/puzzles";
    const path = number === null
      ? `${base}/daily?profile=${encodeURIComponent(P.profile)}`
      : `${base}/${encodeURIComponent(P.profile)}/${number}`;
    const data = { ...(await deps.api("GET", path)), kind }; // drawn as the kind asked for
    if (P.key !== key) return; // another puzzle was asked for meanwhile
    // the day's puzzle is puzzle N too: an answer given to it under its number is kept
    const same = P.cache.get(`${prefix(kind)}${data.profile}/${data.number}`);
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

/** The signed-in player's record in `kind` (once per account, then from each answer). */
async function loadStats(kind) {
  const P = deps.S.puzzle;
  const who = deps.S.token || null;
  if (!who || P.statsFor[kind] === who) return;
  P.statsFor[kind] = who;
  try {
    const stats = await deps.api("GET", `/api/puzzles/stats?kind=${kind}`);
    if (deps.S.token !== who) return;
    P.stats[kind] = stats;
    P.statsError[kind] = "";
  } catch (e) {
    if (deps.S.token !== who) return;
    P.statsFor[kind] = undefined; // asked again on the next puzzle
    P.statsError[kind] = failureText(e);
  }
  if (shown()) deps.rerender();
}

/** The signed-in player's history in `kind`: the filter (`wrong`), the rows shown, whether
 * more follow; `seq` tells the latest request from older ones. */
function historyOf(kind) {
  const P = deps.S.puzzle;
  if (!P.history[kind]) {
    P.history[kind] = { wrong: false, rows: [], more: false, loaded: false, loading: false, error: "", seq: 0 };
  }
  return P.history[kind];
}

/** Ask for the history in `kind`: its first page (once, then from an answer or a filter:
 * `again`, as many rows as are shown, up to 100), or the page after the rows shown (`more`). */
async function loadHistory(kind, { again = false, more = false } = {}) {
  const S = deps.S;
  const who = S.token || null;
  if (!who) return;
  const H = historyOf(kind);
  if (more ? H.loading || !H.more : !again && (H.loaded || H.loading)) return;
  const seq = ++H.seq;
  const offset = more ? H.rows.length : 0;
  const limit = more ? HISTORY_PAGE : Math.min(HISTORY_MAX, Math.max(HISTORY_PAGE, H.rows.length + 1));
  H.loading = true;
  H.error = "";
  const query = `kind=${kind}${H.wrong ? "&wrong=1" : ""}&offset=${offset}&limit=${limit}`;
  try {
    const data = await deps.api("GET", `/api/puzzles/history?${query}`);
    if (S.token !== who || H.seq !== seq) return; // another account, or a later request
    const got = Array.isArray(data.attempts) ? data.attempts : [];
    if (more) {
      // a row already shown (an answer recorded since the first page) is not shown twice
      const seen = new Set(H.rows.map((a) => `${a.profile}/${a.number}`));
      H.rows = [...H.rows, ...got.filter((a) => !seen.has(`${a.profile}/${a.number}`))];
    } else H.rows = got;
    H.more = !!data.more;
    H.loaded = true;
  } catch (e) {
    if (S.token !== who || H.seq !== seq) return;
    H.error = failureText(e);
  }
  H.loading = false;
  if (shown()) deps.rerender();
}

/** All rows, or only the wrong ones: the list from its start. */
function filterHistory(wrong) {
  const P = deps.S.puzzle;
  const H = historyOf(P.kind);
  if (H.wrong === wrong) return;
  Object.assign(H, { wrong, rows: [], more: false, loaded: false, error: "" });
  loadHistory(P.kind, { again: true });
  deps.rerender();
}

/** The laizi of each indicator (GET /api/rules), for drawing a win question's laizi: the
 * record names only the indicator (the settlement names the laizi too, once answered). */
async function loadLaizi() {
  const P = deps.S.puzzle;
  if (P.laizi || P.laiziLoading) return;
  P.laiziLoading = true;
  try {
    P.laizi = (await deps.api("GET", "/api/rules")).laizi || {};
  } catch {
    // drawn without the laizi marked ("?"); asked again on the next question
  }
  P.laiziLoading = false;
  if (shown()) deps.rerender();
}

/** Send an answer of `kind` to `path` (`answering` marks it on screen while it travels):
 * the server says whether it was right and shows the answer. */
async function submit(kind, answering, path, body) {
  const P = deps.S.puzzle;
  const d = P.data;
  const key = P.key;
  P.answering = answering;
  P.answerError = "";
  deps.rerender();
  try {
    const result = await deps.api("POST", path, body);
    if (P.key !== key) return;
    P.result = { ...result, again: P.answered && !!deps.S.token }; // again: this answer did not count
    P.answered = true;
    P.selected = null;
    if (result.stats && deps.S.token) { P.stats[kind] = result.stats; P.statsError[kind] = ""; }
    if (!P.result.again) loadHistory(kind, { again: true });
    // kept under its number (the day's puzzle is asked for again: tomorrow it is another)
    remember(`${kind === "win" ? "win:" : ""}${d.profile}/${d.number}`, { data: d, result: P.result, answered: true });
  } catch (e) {
    if (P.key !== key) return;
    P.answerError = failureText(e);
  } finally {
    if (P.key === key) P.answering = null;
  }
  if (shown()) deps.rerender();
}

/** Cut `tile`: the server says whether it is the best and lists every cut. */
async function answer(tile) {
  const P = deps.S.puzzle;
  const d = P.data;
  if (!d || P.answering || !(d.discards || []).includes(tile)) return;
  await submit("discard", tile, `/api/puzzles/${encodeURIComponent(d.profile)}/${d.number}/answer`, { discard: tile });
}

/** Say whether the win question's hand may win: the server says whether that was right, and
 * gives the calculator's answer. */
async function answerWin(win) {
  const P = deps.S.puzzle;
  const d = P.data;
  if (!d || d.kind !== "win" || P.answering) return;
  await submit("win", win ? "yes" : "no", `/api/puzzles/win/${encodeURIComponent(d.profile)}/${d.number}/answer`, { win });
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

function meldHTML(m, laizi, from = "") {
  const tiles = parseTiles(m.tiles);
  const label = (m.type === "kong" && m.kind ? t(`act.kong.${m.kind}`) : t(`meld.${m.type}`)) + (from ? ` · ${from}` : "");
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
  const url = shareURL(d.profile, d.number, d.kind === "win" ? "win" : "discard");
  return `<div class="form-row puzzle-share"><label for="puzzle-link">${t("puzzle.share")}</label>` +
    `<input id="puzzle-link" class="invite-link" readonly value="${esc(url)}">` +
    `<button type="button" data-puzzle="copy">${t(P.copied ? "puzzle.copied" : "puzzle.copy")}</button></div>`;
}

function statsHTML() {
  const S = deps.S;
  const P = S.puzzle;
  if (!S.token) return `<p class="muted puzzle-stats-none"><a href="#/login">${t("puzzle.sign_in")}</a></p>`;
  const s = P.stats[P.kind];
  if (!s) return P.statsError[P.kind] ? `<p class="error" role="alert">${esc(P.statsError[P.kind])}</p>` : "";
  return `<p class="puzzle-stats" data-kind="${P.kind}" data-attempted="${s.attempted}" data-solved="${s.solved}" data-streak="${s.streak}" data-best-streak="${s.best_streak}">` +
    t("puzzle.stats", { attempted: s.attempted, solved: s.solved, streak: s.streak, best: s.best_streak }) + `</p>`;
}

/** When an answer was given: the day and the time, in the page's language. */
function whenText(iso) {
  const text = String(iso || "");
  // a time without its zone is the server's UTC
  const d = new Date(/T.*([zZ]|[+-]\d\d:?\d\d)$/.test(text) || !text.includes("T") ? text : `${text}Z`);
  if (Number.isNaN(d.getTime())) return "";
  const lang = getLang() === "en" ? "en" : "zh-CN";
  const year = d.getFullYear() !== new Date().getFullYear() ? { year: "numeric" } : {};
  return d.toLocaleString(lang, { ...year, month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", hour12: false });
}

function historyRowHTML(a) {
  const P = deps.S.puzzle;
  const kind = a.kind === "win" ? "win" : "discard";
  const number = Number(a.number);
  const profile = String(a.profile || "");
  const name = deps.profiles.includes(profile) ? t(`opt.profile.${profile}`) : profile;
  const answer = String(a.answer || "");
  const given = kind === "win"
    ? `<span class="puzzle-history-said">${t(answer === "yes" ? "winq.yes" : "winq.no")}</span>`
    : /^[1-9][mps]$|^[1-7]z$/.test(answer) ? tileHTML(answer) : `<span>${esc(answer)}</span>`;
  const d = P.data;
  const current = d && d.kind === kind && d.profile === profile && d.number === number;
  return `<li><a class="puzzle-history-row ${a.correct ? "right" : "wrong"}" href="${esc(puzzleHash(profile, number, kind))}"` +
    ` data-history-profile="${esc(profile)}" data-history-number="${number}" data-correct="${a.correct ? 1 : 0}" data-answer="${esc(answer)}"` +
    `${current ? ` aria-current="page"` : ""}>` +
    `<b class="puzzle-mark" role="img" aria-label="${esc(t(a.correct ? "puzzle.history.right" : "puzzle.history.wrong_one"))}">${a.correct ? "✓" : "✗"}</b>` +
    `<span class="puzzle-history-what">${esc(name)} · ${t("puzzle.number", { n: number })}</span>` +
    `<span class="puzzle-history-answer">${given}</span>` +
    `<time class="muted" datetime="${esc(a.at || "")}">${esc(whenText(a.at))}</time></a></li>`;
}

/** 我的记录: the signed-in player's first answers in the kind shown. */
function historyHTML() {
  const S = deps.S;
  const P = S.puzzle;
  if (!S.token) return "";
  const H = historyOf(P.kind);
  const filters = [false, true].map((wrong) =>
    `<button type="button" class="puzzle-history-filter${H.wrong === wrong ? " active" : ""}" data-puzzle-history="${wrong ? "wrong" : "all"}"` +
    ` aria-pressed="${H.wrong === wrong}">${t(wrong ? "puzzle.history.wrong" : "puzzle.history.all")}</button>`).join("");
  let body;
  if (H.loaded) {
    body = H.rows.length
      ? `<ul class="puzzle-history-list">${H.rows.map(historyRowHTML).join("")}</ul>`
      : `<p class="muted puzzle-history-none">${t(H.wrong ? "puzzle.history.no_wrong" : "puzzle.history.none")}</p>`;
  } else body = H.error ? "" : `<p class="muted">${t("app.loading")}</p>`;
  const err = H.error ? `<p class="error" role="alert" data-history-error="1">${esc(H.error)}</p>` : "";
  const more = H.loaded && H.more
    ? `<div class="form-row puzzle-history-more"><button type="button" data-puzzle-history="more"${H.loading ? ` disabled aria-busy="true"` : ""}>${t("puzzle.history.more")}</button></div>` : "";
  const state = H.loading ? "loading" : H.loaded ? "loaded" : "error";
  return `<section class="puzzle-history" data-kind="${P.kind}" data-wrong="${H.wrong ? 1 : 0}" data-state="${state}" data-rows="${H.rows.length}" aria-labelledby="puzzle-history-title">` +
    `<div class="puzzle-history-head"><h3 id="puzzle-history-title">${t("puzzle.history.title")}</h3>` +
    `<div class="puzzle-history-filters" role="group" aria-label="${esc(t("puzzle.history.filter"))}">${filters}</div></div>` +
    `<p class="muted puzzle-history-about">${t("puzzle.history.about")}</p>${body}${err}${more}</section>`;
}

// ------------------------------------------------------------------ win questions
/** A seat as the winner sees it: 0 himself, 1 下家, 2 对家, 3 上家. */
const rel = (rec, seat) => (seat - rec.winner + 4) % 4;
const relName = (rec, seat) => t(`winq.rel.${rel(rec, seat)}`);

function winLaizi(d) {
  const P = deps.S.puzzle;
  const r = P.result && P.result.result;
  if (r && r.laizi) return r.laizi;
  const table = P.laizi && P.laizi[d.record.profile || d.profile];
  return (table && table[d.record.indicator]) || null;
}

/** A seat's special kongs and laizi thrown (only those it has), as labelled chips. */
function specialsHTML(seat) {
  const kongs = seat.kongs || {};
  const n = (k) => (Number.isInteger(k) ? k : 0);
  const chips = KONGS.filter((k) => n(kongs[k]) > 0).map((k) => [k, n(kongs[k])]);
  if (n(seat.laizi_discards) > 0) chips.push(["laizi_discards", n(seat.laizi_discards)]);
  return chips.map(([k, count]) => `<span class="winq-chip" data-special="${k}" data-n="${count}">${t(`winq.k.${k}`)}${count > 1 ? `×${count}` : ""}</span>`).join("");
}

function dealerMark(rec, seat) {
  return rec.dealer === seat ? ` <span class="dealer" data-dealer-mark="1" title="${esc(t("seat.dealer"))}">${t("seat.dealer_short")}</span>` : "";
}

/** How the winning tile came: 自摸, 杠上开花, 海底捞, or who dealt it in. */
function winByText(rec) {
  if (rec.win_by === "discard" || rec.win_by === "rob_kong") {
    return t(`winq.by.${rec.win_by}`, { who: esc(relName(rec, rec.from)) });
  }
  return t(`winq.by.${rec.win_by}`);
}

function winPositionHTML(d) {
  const rec = d.record;
  const w = rec.winner;
  const me = rec.seats[w];
  const lz = winLaizi(d);
  const lzFig = `<div class="lz puzzle-lz"><figure class="indicator"><figcaption>${t("table.indicator")}</figcaption>${tileHTML(rec.indicator)}</figure>` +
    `<span class="arrow" aria-hidden="true">→</span>` +
    `<figure class="laizi-fig"><figcaption>${t("table.laizi")}</figcaption>${lz ? tileHTML(lz, { cls: "laizi" }) : `<span class="calc-empty">?</span>`}</figure></div>`;
  const facts = [
    `<span data-winner="${w}">${esc(seatName(w))}</span>`,
    `<span data-dealer="${rec.dealer === w ? 1 : 0}">${t(rec.dealer === w ? "seat.dealer" : "puzzle.not_dealer")}</span>`,
  ];
  const position = `<div class="puzzle-position">${lzFig}<p class="puzzle-facts">${facts.join(" · ")}</p></div>`;
  const question = `<p class="puzzle-question winq-question">${t("winq.question")}</p><p class="muted winq-reminder">${t("winq.reminder")}</p>`;
  const fromOf = (m) => (Number.isInteger(m.from) ? esc(relName(rec, m.from)) : "");
  const melds = (me.melds || []).length ? `<div class="melds puzzle-melds winq-melds">${me.melds.map((m) => meldHTML(m, lz, fromOf(m))).join("")}</div>` : "";
  const specials = specialsHTML(me);
  const hand = parseTiles(me.hand).map((x) => tileHTML(x, { laizi: lz })).join("");
  const handRow = `<div class="hand puzzle-hand winq-hand" data-count="${parseTiles(me.hand).length + 1}" aria-label="${esc(t("winq.hand"))}">${hand}` +
    `<span class="drawn-gap"></span>${tileHTML(rec.winning_tile, { laizi: lz, cls: "winning", attrs: ` data-winning="1"` })}</div>`;
  const how = `<p class="winq-how" data-win-by="${esc(rec.win_by)}"${Number.isInteger(rec.from) ? ` data-from="${rec.from}" data-from-rel="${rel(rec, rec.from)}"` : ""}>` +
    `${t("winq.winning_tile")} ${tileHTML(rec.winning_tile, { laizi: lz })} <b>${winByText(rec)}</b></p>`;
  const others = [1, 2, 3].map((k) => {
    const s = (w + k) % 4;
    const seat = rec.seats[s];
    const ms = (seat.melds || []).map((m) => meldHTML(m, lz, fromOf(m))).join("");
    const sp = specialsHTML(seat);
    const body = ms || sp ? `<span class="melds">${ms}</span>${sp}` : `<span class="muted">${t("winq.nothing")}</span>`;
    return `<li class="winq-seat" data-seat="${s}" data-rel="${k}"><span class="winq-who"><b>${t(`winq.rel.${k}`)}</b>` +
      ` <span class="muted">${t(`seat.short.${s}`)}</span>${dealerMark(rec, s)}</span>${body}</li>`;
  }).join("");
  return `${position}${question}<div class="winq-me" data-seat="${w}">${melds}${specials ? `<div class="winq-specials">${specials}</div>` : ""}${handRow}${how}</div>` +
    `<div class="winq-others"><h3>${t("winq.others")}</h3><ul>${others}</ul></div>`;
}

function winButtonsHTML() {
  const P = deps.S.puzzle;
  if (P.result) return "";
  const one = (yes) => {
    const what = yes ? "yes" : "no";
    return `<button type="button" class="winq-answer" data-winq="${what}" aria-keyshortcuts="${yes ? "Y" : "N"}"` +
      `${P.answering ? " disabled" : ""}${P.answering === what ? ` aria-busy="true"` : ""}>${t(`winq.${what}`)} <kbd>${yes ? "Y" : "N"}</kbd></button>`;
  };
  return `<div class="winq-buttons">${one(true)}${one(false)}</div><p class="muted winq-keys">${t("winq.keys")}</p>`;
}

/** The truth: it may win, or the rule that stops it (in the player's language). */
function truthText(r) {
  if (r.win) return t("winq.can");
  const calc = r.result || {};
  return t("winq.cannot", { why: esc(refusalText(calc.refusal, calc.reason || "")) });
}

function winVerdictHTML(d) {
  const P = deps.S.puzzle;
  const r = P.result;
  if (r) {
    const said = t("winq.you_said", { answer: t(r.answered ? "winq.yes" : "winq.no") });
    return `<div class="puzzle-verdict ${r.correct ? "right" : "wrong"}" role="status" data-correct="${r.correct ? 1 : 0}" data-win="${r.win ? 1 : 0}">` +
      `<b class="puzzle-mark" aria-hidden="true">${r.correct ? "✓" : "✗"}</b> <b>${t(r.correct ? "puzzle.correct" : "winq.wrong")}</b> ${said}` +
      ` <span class="winq-truth"${r.win ? "" : ` data-refusal="${esc((r.result && r.result.refusal && r.result.refusal.code) || "")}"`}>${truthText(r)}</span>` +
      `${r.again ? `<span class="muted puzzle-again"> · ${t("puzzle.not_counted")}</span>` : ""}</div>`;
  }
  const a = d.attempt;
  if (a) {
    return `<div class="puzzle-verdict earlier ${a.correct ? "right" : "wrong"}" role="status" data-earlier="${a.correct ? 1 : 0}">` +
      `<b class="puzzle-mark" aria-hidden="true">${a.correct ? "✓" : "✗"}</b> ${t(a.correct ? "winq.earlier_right" : "winq.earlier_wrong", { answer: t(a.win ? "winq.yes" : "winq.no") })}` +
      ` <button type="button" data-puzzle="show-win" data-win="${a.win ? 1 : 0}">${t("puzzle.show_answer")}</button></div>`;
  }
  return "";
}

/** After the answer: the settlement as the calculator draws it (a win), and the record in the
 * calculator. */
function winResultHTML(d) {
  const r = deps.S.puzzle.result;
  if (!r) return "";
  const rec = d.record;
  const names = [0, 1, 2, 3].map((s) => relName(rec, s));
  const settled = r.win && r.result && r.result.valid !== false
    ? `<div class="winq-settlement">${settlementHTML(rec, r.result, { names })}</div>` : "";
  return `${settled}<div class="form-row puzzle-after"><a class="button" data-calc-link="1" href="${esc(calculatorHash(rec))}">${t("winq.open_calc")}</a>` +
    `<button type="button" class="primary" data-puzzle="next">${t("puzzle.next")}</button></div>${shareHTML(d)}`;
}

/** The puzzles page. */
export function puzzlesHTML() {
  const P = deps.S.puzzle;
  const d = P.data;
  const kinds = PUZZLE_KINDS.map((k) => `<button type="button" role="tab" class="puzzle-kind${k === P.kind ? " active" : ""}" data-puzzle-kind="${k}" aria-selected="${k === P.kind}">${t(`puzzle.kind.${k}`)}</button>`).join("");
  const switcher = `<div class="puzzle-switch" role="tablist" aria-label="${esc(t("puzzle.kinds"))}">${kinds}</div>`;
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
    const win = d.kind === "win";
    const head = `<p class="puzzle-head" data-kind="${win ? "win" : "discard"}" data-profile="${esc(d.profile)}" data-number="${d.number}"${d.daily ? ` data-daily="${esc(d.daily)}"` : ""}>` +
      `<b>${title}</b> · ${esc(t(`opt.profile.${d.profile}`))}${d.daily ? ` · <a href="${puzzleHash(d.profile, d.number, win ? "win" : "discard")}">${t("puzzle.number", { n: d.number })}</a>` : ""}</p>`;
    const err = P.answerError ? `<p class="error" role="alert" data-answer-error="1">${esc(P.answerError)}</p>` : "";
    if (win) {
      const after = P.result ? `<div class="puzzle-result winq-result">${winResultHTML(d)}</div>` : "";
      body = `<div class="puzzle winq" data-puzzle-state="${P.result ? "answered" : "open"}">${head}${winPositionHTML(d)}${err}${winVerdictHTML(d)}${winButtonsHTML()}${after}</div>`;
    } else {
      const after = P.result
        ? `<div class="puzzle-result">${choicesHTML(d)}<div class="form-row puzzle-after"><button type="button" class="primary" data-puzzle="next">${t("puzzle.next")}</button></div>${shareHTML(d)}</div>`
        : `<p class="muted puzzle-about">${t("puzzle.about")}</p>`;
      body = `<div class="puzzle" data-puzzle-state="${P.result ? "answered" : "open"}">${head}${positionHTML(d)}${err}${verdictHTML(d)}${after}</div>`;
    }
  }
  const h2 = t(P.kind === "win" ? "winq.title" : "puzzle.title");
  return `<div class="screen puzzles" data-kind="${P.kind}"><div class="card">${switcher}<h2>${h2}</h2>${bar}${statsHTML()}${body}${historyHTML()}</div></div>`;
}

// ------------------------------------------------------------------ events
function next() {
  const P = deps.S.puzzle;
  location.hash = puzzleHash(P.profile, randomNumber(P.data ? P.data.number : null), P.kind);
}

/** The day's puzzle of the chosen profile (asked again when it is the address already). */
function daily() {
  const P = deps.S.puzzle;
  const hash = puzzleHash(P.profile, null, P.kind);
  if (location.hash !== hash) { location.hash = hash; return; }
  openPuzzle(P.profile, null, P.kind);
  deps.rerender();
}

/** The other kind: the puzzle of it shown last, else its puzzle of the day. */
function switchKind(kind) {
  const P = deps.S.puzzle;
  if (kind === P.kind || !PUZZLE_KINDS.includes(kind)) return;
  location.hash = P.last[kind] || puzzleHash(P.profile, null, kind);
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
  const yn = ev.target.closest("[data-winq]");
  if (yn) { ev.preventDefault(); answerWin(yn.dataset.winq === "yes"); return; }
  const kind = ev.target.closest("[data-puzzle-kind]");
  if (kind) { ev.preventDefault(); switchKind(kind.dataset.puzzleKind); return; }
  const hist = ev.target.closest("[data-puzzle-history]");
  if (hist) {
    ev.preventDefault();
    const what = hist.dataset.puzzleHistory;
    if (what === "more") { loadHistory(deps.S.puzzle.kind, { more: true }); deps.rerender(); } else filterHistory(what === "wrong");
    return;
  }
  // a row of the history: its puzzle, from the top of the page
  if (ev.target.closest(".puzzle-history-row")) { window.scrollTo({ top: 0 }); return; }
  const el = ev.target.closest("[data-puzzle]");
  if (!el) return;
  const what = el.dataset.puzzle;
  if (what === "next") next();
  else if (what === "daily") daily();
  else if (what === "copy") copyLink();
  else if (what === "show") answer(el.dataset.tile);
  else if (what === "show-win") answerWin(el.dataset.win === "1");
});

document.addEventListener("change", (ev) => {
  if (!shown() || !ev.target.dataset || !ev.target.dataset.puzzleProfile) return;
  const profile = ev.target.value;
  if (!deps.profiles.includes(profile)) return;
  setProfile(profile);
  location.hash = puzzleHash(profile, null, deps.S.puzzle.kind); // that profile's puzzle of the day
});

// the table's keys: 1-9 and 0 pick a tile, the arrows move, Enter cuts (the drawn tile when
// none is picked), Escape lets go; N is the next puzzle.  A win question: Y 能胡, N 不能胡;
// once answered, N is the next question
document.addEventListener("keydown", (ev) => {
  if (!shown() || ev.ctrlKey || ev.metaKey || ev.altKey) return;
  if (ev.target.closest && ev.target.closest("input,select,textarea,button,a")) return;
  const P = deps.S.puzzle;
  const d = P.data;
  if (!d) return;
  if (d.kind === "win") {
    const key = ev.key.toLowerCase();
    if (key !== "y" && key !== "n") return;
    ev.preventDefault();
    if (ev.repeat || P.answering) return;
    if (P.result) { if (key === "n") next(); return; }
    answerWin(key === "y");
    return;
  }
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

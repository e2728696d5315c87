// The settlement calculator page (#/calculator?r=…), for people at a real table.
//
// The player builds the settlement record that `wuhan-mahjong score` reads (docs/score.md)
// with a tile palette: each seat's concealed tiles and melds (and who fed each), the winning
// tile and how it was won, the dealer, the indicator, the special-kong counts, the profile
// and its options (from GET /api/rules).  Every figure comes from the server: POST /api/score
// settles the record (shown by table.js's renderSettlement, exactly as at the table) and
// POST /api/hand lists the winner's waits with what each would pay.  The laizi that follows
// the indicator is the server's too (GET /api/rules "laizi", then the score's own answer).
// No rule is decided here: a record the server refuses is shown with its reason.
//
// The address carries the record (compact URL-safe base64 JSON, share.js), so a settlement
// can be shared and re-opened as is.

import { errorText, getLang, inputProblemText, refusalText, seatName, t } from "./i18n.js";
import { decodeState, encodeState } from "./share.js";
import { esc, renderSettlement, tileHTML } from "./table.js";
import { ALL_TILES, parseTiles, sortTiles } from "./tiles.js";

const WIN_BY = ["self_draw", "discard", "kong_bloom", "rob_kong", "last_tile"];
const WITH_FROM = ["discard", "rob_kong"];
const MELD_KINDS = ["chi", "peng", "kong:direct", "kong:added", "kong:concealed"];
const KONGS = ["red", "green", "laizi", "pi"];
const DEBOUNCE_MS = 150;

const emptySeat = () => ({ hand: [], melds: [], kongs: { red: 0, green: 0, laizi: 0, pi: 0 }, laizi_discards: 0, ready: null });

export const C = {
  rec: null, // {profile, options, dealer, indicator, winner, win_by, from, winning_tile, seats}
  seat: 0, // the seat being edited
  target: "hand", // where a palette tile goes: hand, win, indicator, meld
  draft: { kind: "peng", from: null, tiles: [] }, // from: null until a feeder is chosen
  rules: null, rulesError: null,
  score: null, // {status: "settled" | "refused" | "error", body | reason and refusal | message}
  waits: null, // the /api/hand answer, or {error}
  seq: 0, timer: null,
};
window.__wmCalc = C; // for tests and debugging
C.recordJSON = () => recordJSON();

let rerender = () => {};

export function initCalculator({ render }) {
  // A redraw removes the focused field; its blur may fire "change", whose handler redraws
  // again while the first is still replacing the page: that one waits for a microtask.
  let drawing = false;
  rerender = () => {
    if (drawing) { queueMicrotask(rerender); return; }
    drawing = true;
    try { render(); } finally { drawing = false; }
  };
}

function freshRecord() {
  return { profile: "", options: {}, dealer: 0, indicator: "", winner: 0, win_by: "self_draw", from: null, winning_tile: "", seats: [0, 1, 2, 3].map(emptySeat) };
}

/** Group tiles in the compact notation ("1m","2m","5p" -> "12m5p"): notation only. */
export function groupTiles(tiles) {
  let out = ""; let cur = ""; let digits = "";
  for (const x of sortTiles(tiles)) {
    if (x[1] !== cur) { if (cur) out += digits + cur; cur = x[1]; digits = ""; }
    digits += x[0];
  }
  return cur ? out + digits + cur : out;
}

/** The record as `wuhan-mahjong score` reads it, without empty fields. */
export function recordJSON(rec = C.rec) {
  const out = { dealer: rec.dealer, indicator: rec.indicator, winner: rec.winner, win_by: rec.win_by, winning_tile: rec.winning_tile };
  if (rec.profile) out.profile = rec.profile;
  if (Object.keys(rec.options).length) out.options = { ...rec.options }; // a copy: kept with its answer
  if (WITH_FROM.includes(rec.win_by) && rec.from !== null) out.from = rec.from;
  out.seats = rec.seats.map((s) => {
    const seat = { hand: groupTiles(s.hand), melds: s.melds.map((m) => ({ ...m })) };
    if (KONGS.some((k) => s.kongs[k])) seat.kongs = { ...s.kongs };
    if (s.laizi_discards) seat.laizi_discards = s.laizi_discards;
    if (s.ready !== null) seat.ready = s.ready;
    return seat;
  });
  return out;
}

/** A record read back from an address (anything malformed becomes the empty calculator). */
function fromJSON(data) {
  const rec = freshRecord();
  if (!data || typeof data !== "object" || !Array.isArray(data.seats) || data.seats.length !== 4) return rec;
  const seatNo = (v, d) => (Number.isInteger(v) && v >= 0 && v < 4 ? v : d);
  const tile = (v) => (typeof v === "string" && ALL_TILES.includes(v) ? v : "");
  rec.profile = typeof data.profile === "string" ? data.profile : "";
  rec.options = data.options && typeof data.options === "object" && !Array.isArray(data.options) ? data.options : {};
  rec.dealer = seatNo(data.dealer, 0);
  rec.winner = seatNo(data.winner, 0);
  rec.indicator = tile(data.indicator);
  rec.winning_tile = tile(data.winning_tile);
  rec.win_by = WIN_BY.includes(data.win_by) ? data.win_by : "self_draw";
  rec.from = data.from === undefined || data.from === null ? null : seatNo(data.from, null);
  rec.seats = data.seats.map((s) => {
    const seat = emptySeat();
    if (!s || typeof s !== "object") return seat;
    seat.hand = parseTiles(typeof s.hand === "string" ? s.hand : "");
    seat.melds = Array.isArray(s.melds) ? s.melds.filter((m) => m && typeof m === "object" && typeof m.tiles === "string").map((m) => {
      const meld = { type: String(m.type), tiles: groupTiles(parseTiles(m.tiles)) };
      if (m.kind !== undefined) meld.kind = String(m.kind);
      if (Number.isInteger(m.from)) meld.from = m.from;
      return meld;
    }) : [];
    for (const k of KONGS) seat.kongs[k] = Number.isInteger(s.kongs && s.kongs[k]) ? s.kongs[k] : 0;
    seat.laizi_discards = Number.isInteger(s.laizi_discards) ? s.laizi_discards : 0;
    seat.ready = typeof s.ready === "boolean" ? s.ready : null;
    return seat;
  });
  return rec;
}

/** Open the page on the record an address carries (r=…), or keep the current one. */
export function openCalculator(encoded) {
  if (encoded) {
    const data = decodeState(encoded);
    const rec = fromJSON(data);
    const same = C.rec && JSON.stringify(recordJSON(C.rec)) === JSON.stringify(recordJSON(rec));
    if (!same) { C.rec = rec; C.seat = rec.winner; C.score = null; C.waits = null; }
  }
  if (!C.rec) { C.rec = freshRecord(); C.seat = 0; }
  loadRules();
  ask();
}

/** The page's address for the record on it, or for settlement record `data` (docs/score.md,
 * as the server sends one: a win question's, puzzles.js), read as the address would be. */
export function calculatorHash(data = null) {
  return `#/calculator?r=${encodeState(data ? recordJSON(fromJSON(data)) : recordJSON())}`;
}

async function loadRules() {
  if (C.rules || C.rulesLoading) return;
  C.rulesLoading = true;
  // a failure is kept as an answer ({status, data}) and worded when drawn, in the player's
  // language (it showed the browser's "Failed to fetch" on the Chinese page)
  let res = null;
  C.rulesError = null;
  try {
    res = await fetch("/api/rules", { headers: { Accept: "application/json" } });
    if (res.ok) C.rules = await res.json();
    else C.rulesError = { status: res.status, data: null };
  } catch {
    C.rulesError = res ? { status: res.status, data: null } : NETWORK_DOWN;
  }
  C.rulesLoading = false;
  rerender();
}

function profile() {
  return C.rec.profile || (C.rules && C.rules.default_profile) || "yuanhang";
}

/** The laizi the server names: the score's answer, else GET /api/rules' table for the profile.
 * That table is the profile's as it is preset: with an option changed (must_kong moves the
 * honours' cycle) only the server's answer for this record names it. */
function laizi() {
  if (C.score && C.score.status === "settled" && C.score.body.laizi && sameRules(C.score.rec)) return C.score.body.laizi;
  if (C.waits && C.waits.laizi && sameRules(C.waits.query)) return C.waits.laizi;
  if (Object.keys(C.rec.options).length) return "";
  const table = C.rules && C.rules.laizi && C.rules.laizi[profile()];
  return (table && C.rec.indicator && table[C.rec.indicator]) || "";
}

/** Whether an answer asked with `sent` (a record or a hand query) is for this record's
 * indicator, profile and options: an answer to an earlier change may still be shown. */
function sameRules(sent) {
  return !!sent && sent.indicator === C.rec.indicator && (sent.profile || "") === (C.rec.profile || "") &&
    JSON.stringify(sent.options || {}) === JSON.stringify(C.rec.options);
}

// ------------------------------------------------------------------ asking the server
function changed() {
  history.replaceState(null, "", calculatorHash());
  ask();
  rerender();
}

function ask() {
  clearTimeout(C.timer);
  C.timer = setTimeout(send, DEBOUNCE_MS);
}

async function post(path, body) {
  const res = await fetch(path, { method: "POST", headers: { "Content-Type": "application/json", Accept: "application/json" }, body: JSON.stringify(body) });
  let data = null;
  try { data = await res.json(); } catch { data = null; }
  return { status: res.status, data };
}

/** A failed answer as {status, data} (translated when drawn, so a change of language redraws it). */
const NETWORK_DOWN = { status: 0, data: { error: { code: "network" } } };

/** What went wrong with answer `r`, in the player's language. */
function errorOf(r) {
  const e = r.data && r.data.error;
  if (!e || !e.code) return t("calc.http", { status: r.status });
  return e.code === "invalid_request" ? inputProblemText(optionLabelled(e.params), e.message) : errorText(e);
}

/** A problem's `option` by its label in GET /api/rules, in the player's language. */
function optionLabelled(params) {
  const o = params && params.option !== undefined && C.rules && C.rules.options.find((x) => x.name === params.option);
  return o ? { ...params, option: getLang() === "en" ? o.label_en : o.label_zh } : params;
}

function meldSpec(m) {
  // the meld specs of `wuhan-mahjong hand --meld` (chi:234m, peng:777s, kong:, addkong:, ankong:)
  const name = m.type !== "kong" ? m.type : { direct: "kong", added: "addkong", concealed: "ankong" }[m.kind] || "kong";
  return `${name}:${m.tiles}`;
}

async function send() {
  C.timer = null; // no change waits for the debounce any more (the tests' "settled")
  const seq = ++C.seq;
  const rec = C.rec;
  const w = rec.seats[rec.winner];
  const jobs = [];
  if (rec.indicator && rec.winning_tile) {
    const sent = recordJSON();
    jobs.push(post("/api/score", sent).then((r) => {
      if (seq !== C.seq) return;
      if (r.status === 200) C.score = { status: "settled", body: r.data, rec: sent };
      else if (r.status === 422) C.score = { status: "refused", reason: (r.data && r.data.reason) || "", refusal: r.data && r.data.refusal };
      else C.score = { status: "error", answer: r };
    }).catch(() => { if (seq === C.seq) C.score = { status: "error", answer: NETWORK_DOWN }; }));
  } else C.score = null;
  if (rec.indicator && w.hand.length) {
    const query = { hand: groupTiles(w.hand), indicator: rec.indicator, melds: w.melds.map(meldSpec), dealer: rec.dealer === rec.winner, profile: profile(), options: rec.options };
    const asked = { indicator: rec.indicator, profile: rec.profile, options: { ...rec.options } };
    jobs.push(post("/api/hand", query).then((r) => {
      if (seq !== C.seq) return;
      C.waits = r.status === 200 ? { ...r.data, query: asked } : { error: r };
    }).catch(() => { if (seq === C.seq) C.waits = { error: NETWORK_DOWN }; }));
  } else C.waits = null;
  await Promise.all(jobs);
  if (seq === C.seq) { C.answered = seq; redrawAnswer(); }
}

/**
 * Show a server answer by replacing only the parts of the page it changed (the waits, the
 * result), never the palette or the seat being edited: a full redraw between a finger's press
 * and its release took the pressed tile out of the page, and the browser then dropped the tap.
 */
function redrawAnswer() {
  const screen = document.querySelector(".screen.calculator");
  const tpl = document.createElement("template");
  tpl.innerHTML = calculatorHTML().trim();
  const fresh = tpl.content.firstElementChild;
  const before = screen ? [...screen.children] : [];
  const after = fresh ? [...fresh.children] : [];
  if (!screen || before.length !== after.length) { rerender(); return; }
  const focused = document.activeElement && document.activeElement.id;
  before.forEach((old, i) => { if (!old.isEqualNode(after[i])) old.replaceWith(after[i]); });
  screen.dataset.answered = fresh.dataset.answered;
  if (focused && document.activeElement !== document.getElementById(focused)) {
    const el = document.getElementById(focused);
    if (el) el.focus({ preventScroll: true });
  }
}

// ------------------------------------------------------------------ rendering
const seatOptions = (value, { none = false } = {}) => (none ? `<option value="" ${value === null ? "selected" : ""}>—</option>` : "") +
  [0, 1, 2, 3].map((s) => `<option value="${s}" ${value === s ? "selected" : ""}>${esc(seatName(s))}</option>`).join("");

function tileButton(tile, attrs, lz) {
  return tileHTML(tile, { laizi: lz, attrs: ` role="button" tabindex="0" ${attrs}` });
}

function optionHTML(o) {
  const en = getLang() === "en";
  const label = esc(en ? o.label_en : o.label_zh);
  const base = o.values[profile()];
  const cur = Object.prototype.hasOwnProperty.call(C.rec.options, o.name) ? C.rec.options[o.name] : base;
  const id = `calc-opt-${o.name}`;
  const mark = Object.prototype.hasOwnProperty.call(C.rec.options, o.name) ? ` class="changed"` : "";
  let input;
  const labels = o.value_labels || {};
  if (typeof base === "boolean") {
    input = `<input id="${id}" type="checkbox" data-calc-option="${o.name}" ${cur ? "checked" : ""}>`;
  } else if (typeof base === "number") {
    const [lo, hi] = o.bounds || [];
    input = `<input id="${id}" type="number" inputmode="decimal" data-calc-option="${o.name}" value="${esc(cur)}" ${lo !== undefined ? `min="${lo}"` : ""} ${hi !== undefined ? `max="${hi}"` : ""} step="any">`;
  } else if (Array.isArray(base) && Object.keys(labels).length) {
    // an address may carry anything as the value (the server says what is wrong with it)
    const list = Array.isArray(cur) ? cur : [];
    input = Object.entries(labels).map(([v, l]) => `<label class="check"><input type="checkbox" data-calc-option="${o.name}" data-value="${esc(v)}" ${list.includes(v) ? "checked" : ""}> ${esc(en ? l[1] : l[0])}</label>`).join(" ");
  } else if (Array.isArray(base)) {
    input = `<input id="${id}" data-calc-option="${o.name}" data-list="1" value="${esc(Array.isArray(cur) ? cur.join(" ") : String(cur ?? ""))}">`;
  } else if (Object.keys(labels).length) {
    input = `<select id="${id}" data-calc-option="${o.name}">${Object.entries(labels).map(([v, l]) => `<option value="${esc(v)}" ${cur === v ? "selected" : ""}>${esc(en ? l[1] : l[0])}</option>`).join("")}</select>`;
  } else {
    input = `<input id="${id}" data-calc-option="${o.name}" value="${esc(cur)}">`;
  }
  return `<div class="form-row calc-option" data-option-row="${o.name}"><label for="${id}"${mark}>${label}</label>${input}</div>`;
}

function settingsHTML() {
  const r = C.rec;
  const profiles = C.rules ? C.rules.profiles : [];
  const en = getLang() === "en";
  const profileSel = `<select id="calc-profile">${profiles.map((p) => `<option value="${p.name}" ${profile() === p.name ? "selected" : ""}>${esc(en ? p.label_en : p.label_zh)}</option>`).join("")}</select>`;
  const options = C.rules ? C.rules.options.map(optionHTML).join("") : "";
  const n = Object.keys(r.options).length;
  const lz = laizi();
  return `<div class="calc-settings">
    <div class="form-row"><label for="calc-profile">${t("opt.profile")}</label>${profileSel}</div>
    <details class="calc-options" ${C.optionsOpen ? "open" : ""}><summary>${t("calc.options", { n })}</summary>${options}
      ${n ? `<button type="button" data-calc-do="reset-options">${t("calc.reset_options")}</button>` : ""}</details>
    <div class="form-row"><label for="calc-dealer">${t("seat.dealer")}</label><select id="calc-dealer">${seatOptions(r.dealer)}</select></div>
    <div class="form-row"><label for="calc-winner">${t("calc.winner")}</label><select id="calc-winner">${seatOptions(r.winner)}</select></div>
    <div class="form-row"><label for="calc-winby">${t("calc.win_by")}</label><select id="calc-winby">${WIN_BY.map((w) => `<option value="${w}" ${r.win_by === w ? "selected" : ""}>${t(`settle.by.${w}`)}</option>`).join("")}</select></div>
    ${WITH_FROM.includes(r.win_by) ? `<div class="form-row"><label for="calc-from">${t(r.win_by === "rob_kong" ? "calc.robbed" : "calc.from")}</label><select id="calc-from">${seatOptions(r.from, { none: true })}</select></div>` : ""}
    <div class="calc-tiles-row">
      <button type="button" class="calc-slot ${C.target === "indicator" ? "active" : ""}" data-calc-target="indicator" aria-pressed="${C.target === "indicator"}">${t("table.indicator")}</button>
      <span class="calc-indicator" data-calc-indicator="${esc(r.indicator)}">${r.indicator ? tileHTML(r.indicator) : `<span class="calc-empty">?</span>`}</span>
      <span class="arrow">→</span><span class="calc-laizi-label">${t("table.laizi")}</span>
      <span class="calc-laizi" data-calc-laizi="${esc(lz)}">${lz ? tileHTML(lz, { cls: "laizi" }) : `<span class="calc-empty">?</span>`}</span>
    </div></div>`;
}

function meldLine(m, i, n) {
  const kindLabel = m.type === "kong" ? t(`act.kong.${m.kind}`) : t(`meld.${m.type}`);
  const from = m.from !== undefined ? ` · ${esc(t("table.from", { who: seatName(m.from) }))}` : "";
  return `<li class="calc-meld" data-meld-index="${i}"><span class="meld-tiles">${parseTiles(m.tiles).map((x) => tileHTML(x, { laizi: laizi() })).join("")}</span>` +
    `<span>${esc(kindLabel)}${from}</span>` +
    `<button type="button" data-calc-move-meld="${i}" data-by="-1" aria-label="${esc(t("calc.meld_up"))}" ${i === 0 ? "disabled" : ""}>↑</button>` +
    `<button type="button" data-calc-move-meld="${i}" data-by="1" aria-label="${esc(t("calc.meld_down"))}" ${i === n - 1 ? "disabled" : ""}>↓</button>` +
    `<button type="button" data-calc-remove-meld="${i}" aria-label="${esc(t("calc.remove"))}">✕</button></li>`;
}

function seatHTML() {
  const r = C.rec;
  const s = C.seat;
  const seat = r.seats[s];
  const lz = laizi();
  const tabs = [0, 1, 2, 3].map((k) => `<button type="button" role="tab" class="calc-tab ${k === s ? "active" : ""}" data-calc-seat="${k}" aria-selected="${k === s}">${esc(seatName(k))}` +
    `${k === r.dealer ? ` <span class="dealer">${t("seat.dealer_short")}</span>` : ""}${k === r.winner ? ` <b>${t("calc.winner_short")}</b>` : ""}</button>`).join("");
  const hand = seat.hand.map((x, i) => tileButton(x, `data-calc-remove-tile="${i}" title="${esc(t("calc.remove"))}"`, lz)).join("");
  const winTile = s === r.winner ? `<div class="calc-tiles-row">
      <button type="button" class="calc-slot ${C.target === "win" ? "active" : ""}" data-calc-target="win" aria-pressed="${C.target === "win"}">${t("calc.winning_tile")}</button>
      <span class="calc-win" data-calc-win="${esc(r.winning_tile)}">${r.winning_tile ? tileHTML(r.winning_tile, { laizi: lz }) : `<span class="calc-empty">?</span>`}</span></div>` : "";
  const d = C.draft;
  const draftFrom = d.kind === "kong:concealed" ? "" : `<label for="calc-meld-from">${t("calc.fed_by")}</label><select id="calc-meld-from">${[0, 1, 2, 3].filter((k) => k !== s).map((k) => `<option value="${k}" ${feeder() === k ? "selected" : ""}>${esc(seatName(k))}</option>`).join("")}</select>`;
  const draft = `<div class="calc-draft">
      <button type="button" class="calc-slot ${C.target === "meld" ? "active" : ""}" data-calc-target="meld" aria-pressed="${C.target === "meld"}">${t("calc.new_meld")}</button>
      <span class="calc-draft-tiles">${d.tiles.map((x) => tileHTML(x, { laizi: lz })).join("") || `<span class="calc-empty">${t("calc.pick_tiles")}</span>`}</span>
      <div class="form-row"><label for="calc-meld-kind">${t("calc.meld_kind")}</label><select id="calc-meld-kind">${MELD_KINDS.map((k) => `<option value="${k}" ${d.kind === k ? "selected" : ""}>${esc(k.startsWith("kong:") ? t(`act.kong.${k.slice(5)}`) : t(`meld.${k}`))}</option>`).join("")}</select>${draftFrom}</div>
      <button type="button" data-calc-do="add-meld" ${d.tiles.length ? "" : "disabled"}>${t("calc.add_meld")}</button>
      <button type="button" data-calc-do="clear-draft" ${d.tiles.length ? "" : "disabled"}>${t("calc.clear")}</button>
      <p class="muted calc-meld-order">${t("calc.meld_order")}</p></div>`;
  const kongs = KONGS.map((k) => `<label class="calc-num">${t(`sk.${k}`)} <input id="calc-k-${k}" type="number" min="0" max="4" inputmode="numeric" data-calc-kong="${k}" value="${seat.kongs[k]}"></label>`).join("") +
    `<label class="calc-num">${t("sk.laizi_discards")} <input id="calc-ld" type="number" min="0" max="4" inputmode="numeric" data-calc-ld="1" value="${seat.laizi_discards}"></label>`;
  const ready = s === r.winner ? "" : `<div class="form-row"><label for="calc-ready">${t("calc.ready")}</label><select id="calc-ready">` +
    [["", "calc.ready.unknown"], ["1", "calc.ready.yes"], ["0", "calc.ready.no"]].map(([v, k]) => `<option value="${v}" ${(seat.ready === null ? "" : seat.ready ? "1" : "0") === v ? "selected" : ""}>${t(k)}</option>`).join("") + `</select></div>`;
  return `<div class="calc-seat card">
    <div class="calc-tabs" role="tablist">${tabs}</div>
    <div class="calc-tiles-row"><button type="button" class="calc-slot ${C.target === "hand" ? "active" : ""}" data-calc-target="hand" aria-pressed="${C.target === "hand"}">${t(s === r.winner ? "calc.hand_winner" : "calc.hand")}</button>
      <span class="calc-hand" data-count="${seat.hand.length}">${hand || `<span class="calc-empty">${t("calc.pick_tiles")}</span>`}</span>
      ${seat.hand.length ? `<button type="button" data-calc-do="clear-hand">${t("calc.clear")}</button>` : ""}</div>
    ${winTile}
    <ul class="calc-melds">${seat.melds.map((m, i) => meldLine(m, i, seat.melds.length)).join("")}</ul>${draft}
    <div class="calc-kongs">${kongs}</div>${ready}</div>`;
}

function paletteHTML() {
  const lz = laizi();
  const where = t(`calc.target.${C.target}`);
  return `<div class="calc-palette card" role="group" aria-label="${esc(t("calc.palette"))}"><div class="calc-palette-to">${t("calc.palette_to", { where })}</div>` +
    `<div class="calc-palette-tiles">${ALL_TILES.map((x) => tileButton(x, `data-calc-tile="${x}"`, lz)).join("")}</div></div>`;
}

function waitsHTML() {
  const w = C.waits;
  if (!w) return `<div id="calc-waits" hidden></div>`; // a place kept for the answer (redrawAnswer)
  if (w.error) {
    // a hand still being entered is no error: how many tiles it has and needs, quietly
    const building = ((w.error.data || {}).error || {}).params?.problem === "hand_size";
    return `<div class="calc-waits card" id="calc-waits"><h3>${t("calc.waits")}</h3><p class="${building ? "muted calc-building" : "error"}">${esc(errorOf(w.error))}</p></div>`;
  }
  // a value, or why the win may not be made (in the player's language: refusalText)
  const value = (v, why) => (typeof v === "number" ? `<b>${v}</b>` : v === undefined ? "—" : `<span class="calc-reason">${esc(refusalText(why, v))}</span>`);
  const hands = (list) => (list && list.length ? list.map((h) => t(`bighand.${h}`)).join(" · ") : t("settle.small"));
  const rows = (w.waits || []).map((x) => `<tr data-wait="${esc(x.tile)}"><td>${tileHTML(x.tile, { laizi: w.laizi })}</td><td>${x.left}</td>` +
    `<td>${esc(hands(x.hands))} · ${x.hard ? t("settle.hard") : t("settle.soft")}</td><td>${value(x.values.self_draw, (x.refusals || {}).self_draw)}</td><td>${value(x.values.discard, (x.refusals || {}).discard)}</td></tr>`).join("");
  // 14 tiles in a winning shape: what they pay self-drawn, or why they may not win yet
  const won = !!w.complete && typeof w.complete.self_draw === "number";
  const shanten = w.complete ? t(won ? "calc.complete" : "calc.complete_shape") : w.shanten <= 0 ? t("help.ready") : t("help.shanten", { n: w.shanten });
  const table = rows ? `<div class="scroll-x"><table class="calc-waits-table"><thead><tr><th>${t("calc.wait_tile")}</th><th>${t("calc.left")}</th><th>${t("calc.hands")}</th><th>${t("settle.by.self_draw")}</th><th>${t("calc.on_discard")}</th></tr></thead><tbody>${rows}</tbody></table></div>` : "";
  const complete = !w.complete ? "" : won ? `<p class="calc-complete">${t("calc.complete_pays", { n: w.complete.self_draw })}</p>`
    : `<p class="calc-complete calc-reason">${esc(refusalText(w.complete.refusal, w.complete.self_draw))}</p>`;
  return `<div class="calc-waits card" id="calc-waits" data-shanten="${w.shanten}"><h3>${t("calc.waits")}</h3><p>${shanten}</p>${complete}${table}<p class="muted">${t("calc.waits_note")}</p></div>`;
}

function resultHTML() {
  const s = C.score;
  const r = C.rec;
  if (!r.indicator || !r.winning_tile) return `<div class="calc-result card" id="calc-result" data-state="incomplete"><p class="muted">${t("calc.incomplete")}</p></div>`;
  if (!s) return `<div class="calc-result card" id="calc-result" data-state="pending"><p>${t("app.loading")}</p></div>`;
  if (s.status === "refused") return `<div class="calc-result card" id="calc-result" data-state="refused"><p class="calc-refused" role="status"><b>${t("calc.refused")}</b> ${esc(refusalText(s.refusal, s.reason))}</p></div>`;
  if (s.status === "error") return `<div class="calc-result card" id="calc-result" data-state="error"><p class="error" role="alert">${esc(t("calc.malformed", { msg: errorOf(s.answer) }))}</p></div>`;
  // drawn with the record it settles: until the answer to a change comes, the page's record
  // (a dealer or winner just chosen) is not the one these figures are for
  const stale = JSON.stringify(s.rec) !== JSON.stringify(recordJSON());
  return `<div class="calc-result${stale ? " calc-stale" : ""}" id="calc-result" data-state="settled"${stale ? ` aria-busy="true"` : ""}>` +
    `${settlementHTML(s.rec, s.body, { profile: s.rec.profile || profile() })}</div>`;
}

/** The settlement `body` (POST /api/score's answer) of record `rec` (this page's, or one as the
 * server sends it), drawn as at the table (table.js's renderSettlement); `names` per seat, else
 * the seats' winds.  puzzles.js draws a win question's answer with it. */
export function settlementHTML(rec, body, { names = null, profile: name = rec.profile } = {}) {
  const from = WITH_FROM.includes(rec.win_by) && rec.from !== undefined ? rec.from : null;
  const view = {
    viewer: null, dealer: rec.dealer, profile: name, laizi: body.laizi, indicator: body.indicator,
    result: { outcome: "win", winner: rec.winner, win_by: rec.win_by, from_seat: from, tile: rec.winning_tile, deltas: body.deltas, settlement: body, reveal: null },
  };
  return renderSettlement(view, { names });
}

export function calculatorHTML() {
  if (!C.rec) openCalculator(null);
  const link = `${location.origin}${location.pathname}${calculatorHash()}`;
  const rulesErr = C.rulesError ? `<p class="error" data-rules-error>${esc(t("app.error", { msg: errorOf(C.rulesError) }))}</p>` : "";
  return `<div class="screen calculator" data-answered="${C.answered || 0}"><div class="card"><h2>${t("calc.title")}</h2><p class="muted">${t("calc.intro")}</p>${rulesErr}${settingsHTML()}</div>
    ${seatHTML()}${paletteHTML()}${waitsHTML()}${resultHTML()}
    <div class="card calc-share"><label for="calc-link">${t("calc.share")}</label><input id="calc-link" readonly value="${esc(link)}">
      <button type="button" data-calc-do="new">${t("calc.new")}</button></div></div>`;
}

// ------------------------------------------------------------------ input
function seat() {
  return C.rec.seats[C.seat];
}

/** The seat before `s` (上家): the record's seats are numbered in play order (docs/score.md),
 * and a chi takes only his discard (the server judges it: chi_not_previous). */
const previousSeat = (s) => (s + 3) % 4;

/** Who fed the new meld: the seat its "fed by" select shows.  The draft keeps its feeder when
 * the seat being edited changes without a tab (the winner chosen, "start again", an address),
 * so it can be the seat itself, which the select does not list: then the select's default,
 * as when none was chosen (`from` null): the seat before for a chi, else the seat opposite. */
function feeder() {
  const d = C.draft;
  if (d.from !== null && d.from !== C.seat) return d.from;
  return d.kind === "chi" ? previousSeat(C.seat) : (C.seat + 2) % 4;
}

function addMeld() {
  const d = C.draft;
  if (!d.tiles.length) return;
  const [type, kind] = d.kind.split(":");
  const meld = { type, tiles: groupTiles(d.tiles) };
  if (kind) meld.kind = kind;
  if (kind !== "concealed") meld.from = feeder();
  seat().melds.push(meld);
  d.tiles = [];
}

function onTile(tile) {
  const r = C.rec;
  if (C.target === "indicator") r.indicator = tile;
  else if (C.target === "win") r.winning_tile = tile;
  else if (C.target === "meld") { if (C.draft.tiles.length < 4) C.draft.tiles.push(tile); }
  else if (seat().hand.length < 14) seat().hand.push(tile);
  if (C.target === "hand") seat().hand = sortTiles(seat().hand);
}

document.addEventListener("click", (ev) => {
  if (!C.rec || !ev.target.closest || !ev.target.closest(".calculator")) return;
  const summary = ev.target.closest(".calc-options > summary");
  if (summary) { C.optionsOpen = !summary.parentElement.open; return; } // then the browser toggles it
  const el = ev.target.closest("[data-calc-tile],[data-calc-target],[data-calc-seat],[data-calc-remove-tile],[data-calc-remove-meld],[data-calc-move-meld],[data-calc-do]");
  if (!el) return;
  const d = el.dataset;
  if (d.calcTile) onTile(d.calcTile);
  else if (d.calcTarget) { C.target = d.calcTarget; rerender(); return; }
  else if (d.calcSeat !== undefined) {
    C.seat = Number(d.calcSeat);
    C.draft = { kind: C.draft.kind, from: null, tiles: [] };
    if (C.target === "win" && C.seat !== C.rec.winner) C.target = "hand";
    rerender();
    return;
  } else if (d.calcRemoveTile !== undefined) seat().hand.splice(Number(d.calcRemoveTile), 1);
  else if (d.calcRemoveMeld !== undefined) seat().melds.splice(Number(d.calcRemoveMeld), 1);
  else if (d.calcMoveMeld !== undefined) {
    // the order of the melds is the record's (the third feeder's contract, 承包, reads it)
    const melds = seat().melds; const i = Number(d.calcMoveMeld); const j = i + Number(d.by);
    if (j < 0 || j >= melds.length) return;
    [melds[i], melds[j]] = [melds[j], melds[i]];
  }
  else if (d.calcDo === "add-meld") addMeld();
  else if (d.calcDo === "clear-draft") { C.draft.tiles = []; rerender(); return; }
  else if (d.calcDo === "clear-hand") seat().hand = [];
  else if (d.calcDo === "reset-options") C.rec.options = {};
  else if (d.calcDo === "new") { C.rec = freshRecord(); C.seat = 0; C.target = "indicator"; }
  else return;
  changed();
});

// the options stay open (or closed) across re-renders; "toggle" does not bubble
document.addEventListener("toggle", (ev) => {
  const d = ev.target;
  if (d.classList && d.classList.contains("calc-options") && d.isConnected) C.optionsOpen = d.open;
}, true);

document.addEventListener("keydown", (ev) => {
  // palette and hand tiles are buttons: Enter and Space press them
  if ((ev.key === "Enter" || ev.key === " ") && ev.target.closest && ev.target.closest(".calculator [role=button]")) {
    ev.preventDefault();
    ev.target.click();
  }
});

function setOption(el) {
  const o = C.rules && C.rules.options.find((x) => x.name === el.dataset.calcOption);
  if (!o) return;
  const base = o.values[profile()];
  let v;
  if (typeof base === "boolean") v = el.checked;
  else if (typeof base === "number") { v = Number(el.value); if (el.value === "" || Number.isNaN(v)) v = base; }
  else if (Array.isArray(base) && el.dataset.value !== undefined) {
    const boxes = [...document.querySelectorAll(`.calculator [data-calc-option="${o.name}"]`)];
    v = boxes.filter((b) => b.checked).map((b) => b.dataset.value);
  } else if (Array.isArray(base)) v = el.value.split(/[\s,]+/).filter(Boolean);
  else v = el.value;
  if (JSON.stringify(v) === JSON.stringify(base)) delete C.rec.options[o.name];
  else C.rec.options[o.name] = v;
}

// what is typed in a number field is kept at once, so that a redraw (a server answer
// arriving) shows it; "change" then asks the server
document.addEventListener("input", (ev) => {
  const el = ev.target;
  if (!C.rec || !el.closest || !el.closest(".calculator") || el.type !== "number" || el.value === "") return;
  if (el.dataset.calcKong) seat().kongs[el.dataset.calcKong] = Math.max(0, Math.trunc(Number(el.value) || 0));
  else if (el.dataset.calcLd) seat().laizi_discards = Math.max(0, Math.trunc(Number(el.value) || 0));
});

document.addEventListener("change", (ev) => {
  const el = ev.target;
  if (!C.rec || !el.closest || !el.closest(".calculator")) return;
  const r = C.rec;
  const num = (x) => (x === "" ? null : Number(x));
  if (el.id === "calc-profile") { r.profile = el.value; r.options = {}; }
  else if (el.id === "calc-dealer") r.dealer = Number(el.value);
  else if (el.id === "calc-winner") { r.winner = Number(el.value); C.seat = r.winner; }
  else if (el.id === "calc-winby") {
    r.win_by = el.value;
    if (!WITH_FROM.includes(r.win_by)) r.from = null;
    else if (r.from === null || r.from === r.winner) r.from = previousSeat(r.winner); // a starting choice
  }
  else if (el.id === "calc-from") r.from = num(el.value);
  else if (el.id === "calc-meld-kind") {
    C.draft.kind = el.value;
    if (el.value === "chi") C.draft.from = null; // its default: the only seat a chi is fed by
    rerender();
    return;
  }
  else if (el.id === "calc-meld-from") { C.draft.from = Number(el.value); return; }
  else if (el.id === "calc-ready") seat().ready = el.value === "" ? null : el.value === "1";
  else if (el.dataset.calcKong) seat().kongs[el.dataset.calcKong] = Math.max(0, Math.trunc(Number(el.value) || 0));
  else if (el.dataset.calcLd) seat().laizi_discards = Math.max(0, Math.trunc(Number(el.value) || 0));
  else if (el.dataset.calcOption) setOption(el);
  else return;
  queueMicrotask(changed); // not inside a redraw that removed the field (its blur fired this)
});

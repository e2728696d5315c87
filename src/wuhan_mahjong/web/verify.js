// Fairness a player can check (docs/fairness.md): before the deal the server publishes
//
//     commitment = SHA-256( "wuhan-mahjong/wall/v1" || salt || wall )
//
// (docs/records.md: salt 32 bytes, wall 136 bytes, byte i = the tile kind 0-33 at wall
// position i).  After the hand the wall and the salt are revealed.  verifyHand() recomputes
// the hash here, in the browser (WebCrypto), and checks that the deal, the indicator and
// every draw of the hand's record came from that wall at the documented positions, and that
// what this player saw at his seat (the commitment shown at the start, his dealt tiles, his
// draws) is what the record says.  This is the published dealing scheme, not a game rule.
//
// The table keeps what the player saw through noteFrame(); the settlement panel and the
// replay viewer show verifyHTML(key); a click on [data-verify] runs the check.

import { failureText, t, tileName } from "./i18n.js";
import { parseTiles } from "./tiles.js";

export const COMMIT_TAG = "wuhan-mahjong/wall/v1";
const DEAL_SIZE = 53;
const INDICATOR_POS = 53;
const FIRST_DRAW_POS = 54;
const WALL_SIZE = 136;

/** Tile kind 0-33 of "5m" (0-8 1m-9m, 9-17 1p-9p, 18-26 1s-9s, 27-33 1z-7z): the byte format. */
export function tileKind(tile) {
  return "mpsz".indexOf(tile[1]) * 9 + Number(tile[0]) - 1;
}

function hexToBytes(hex) {
  if (!/^([0-9a-f]{2})*$/i.test(hex)) throw new Error("not hex");
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** The check cannot run here (not a failed check): `reason` names why. */
export class VerifyUnavailable extends Error {
  constructor(reason) { super(reason); this.reason = reason; }
}

/** The hex SHA-256 commitment of a revealed wall (272 characters, "1m5p…") and salt (hex). */
export async function commitmentOf(wallText, saltHex) {
  // WebCrypto exists only on secure pages (https, or this machine): say so, never "mismatch"
  if (!globalThis.crypto || !globalThis.crypto.subtle) throw new VerifyUnavailable("insecure");
  const tiles = parseTiles(wallText);
  const tag = new TextEncoder().encode(COMMIT_TAG);
  const salt = hexToBytes(saltHex);
  const data = new Uint8Array(tag.length + salt.length + tiles.length);
  data.set(tag, 0);
  data.set(salt, tag.length);
  tiles.forEach((x, i) => { data[tag.length + salt.length + i] = tileKind(x); });
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", data));
  return [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** The wall positions each seat is dealt (three rounds of four from the dealer, one each,
 * then the dealer's 14th: docs/records.md "Wall positions"). */
export function dealPositions(dealer) {
  const pos = [[], [], [], []];
  let p = 0;
  for (let round = 0; round < 3; round++) {
    for (let k = 0; k < 4; k++) {
      const seat = (dealer + k) % 4;
      for (let j = 0; j < 4; j++) pos[seat].push(p++);
    }
  }
  for (let k = 0; k < 4; k++) pos[(dealer + k) % 4].push(p++);
  pos[dealer].push(p++);
  return pos; // p === DEAL_SIZE
}

const sameTiles = (a, b) => [...a].sort().join() === [...b].sort().join();

/**
 * Check one hand's record (its events, header first) against its revealed wall and salt.
 * `seen` (optional): {commitment, seat, dealt: "tiles" | null, draws: [{wall, tile}]} is
 * what this player's table showed.  Returns {ok, checks: [{id, ok, params}]}, where the
 * failed check (if any) is the last one.
 */
export async function verifyHand(events, seen = null) {
  const checks = [];
  const check = (id, ok, params = {}) => { checks.push({ id, ok, params }); return ok; };
  const done = () => ({ ok: checks.every((c) => c.ok), checks });
  const header = events.find((e) => e.e === "header");
  const deal = events.find((e) => e.e === "deal");
  const reveal = events.find((e) => e.e === "reveal");
  if (!check("record", !!(header && deal && reveal && reveal.wall && reveal.salt))) return done();
  if (seen && seen.commitment && !check("shown", seen.commitment === header.commitment,
    { shown: seen.commitment.slice(0, 16), record: String(header.commitment).slice(0, 16) })) return done();
  const wall = parseTiles(reveal.wall);
  const counts = {};
  for (const x of wall) counts[x] = (counts[x] || 0) + 1;
  const full = wall.length === WALL_SIZE && Object.keys(counts).length === 34 && Object.values(counts).every((n) => n === 4);
  if (!check("full_wall", full, { n: wall.length })) return done();
  let hash;
  try { hash = await commitmentOf(reveal.wall, reveal.salt); } catch (e) {
    if (e instanceof VerifyUnavailable) throw e;
    hash = ""; // a salt that is not hex: no hash can match
  }
  if (!check("hash", hash === header.commitment, { hash: hash.slice(0, 16), commitment: String(header.commitment).slice(0, 16) })) return done();
  const pos = dealPositions(header.dealer);
  for (let s = 0; s < 4; s++) {
    const dealt = pos[s].map((i) => wall[i]);
    if (!check("deal", sameTiles(dealt, parseTiles(deal.hands[s])), { seat: t("seat.name", { wind: t(`seat.${s}`) }) })) return done();
  }
  if (!check("indicator", deal.indicator === wall[INDICATOR_POS], { tile: deal.indicator })) return done();
  let head = FIRST_DRAW_POS;
  let tail = WALL_SIZE;
  let n = 0;
  const recorded = [];
  for (const ev of events) {
    if (ev.e !== "draw") continue;
    const at = ev.from === "replacement" ? --tail : head++;
    n += 1;
    if (!check("draw", head <= tail && wall[at] === ev.tile, { n, tile: ev.tile, at: at + 1 })) return done();
    recorded.push({ seat: ev.seat, tile: ev.tile, wall: ev.wall });
  }
  check("draws", true, { n });
  if (seen && seen.seat !== null && seen.seat !== undefined) {
    if (seen.dealt && !check("own_deal", sameTiles(parseTiles(seen.dealt), parseTiles(deal.hands[seen.seat])))) return done();
    for (const d of seen.draws || []) {
      const hit = recorded.some((r) => r.seat === seen.seat && r.tile === d.tile && r.wall === d.wall);
      if (!check("own_draw", hit, { tile: d.tile })) return done();
    }
    check("own", true, { n: (seen.draws || []).length });
  }
  return done();
}

// ------------------------------------------------------------------ what the table showed
const SEEN = new Map(); // "match/hand" -> {commitment, seat, dealt, draws}
const RESULTS = new Map(); // key -> {running} | {ok, checks} | {error}

/** Keep what a state frame shows of the fairness of its hand (call for every "state" frame). */
export function noteFrame(msg) {
  const v = msg && msg.view;
  if (!v || msg.match_id === undefined) return;
  const key = `${msg.match_id}/${v.hand_no}`;
  let s = SEEN.get(key);
  if (!s) {
    s = { commitment: v.commitment, seat: v.viewer, dealt: null, draws: [], first: true };
    // the dealt hand, if this frame is from before the first draw and the first discard
    const untouched = v.seats.every((p) => p.discards.length === 0 && p.melds.length === 0);
    const me = v.viewer !== null ? v.seats[v.viewer] : null;
    const noKong = me && Object.values(me.special_kongs || {}).every((k) => !k);
    if (me && noKong && untouched && v.wall === WALL_SIZE - DEAL_SIZE - 1) s.dealt = v.hand;
    SEEN.set(key, s);
  }
  if (v.drawn && !s.draws.some((d) => d.wall === v.wall)) s.draws.push({ tile: v.drawn, wall: v.wall });
}

export function seenFor(key) {
  return SEEN.get(key) || null;
}

/** The commitment line shown at the table from the deal on. */
export function commitmentHTML(view) {
  if (!view || !view.commitment) return "";
  return `<div class="commitment" data-commitment="${view.commitment}"><span>${t("fair.commitment")}</span> ` +
    `<code>${view.commitment}</code><details data-open-key="fair-what"><summary>${t("fair.what")}</summary><p>${t("fair.explain")}</p></details></div>`;
}

function resultHTML(r) {
  if (r.running) return `<p class="verify-result" data-verify-state="running">${t("fair.running")}</p>`;
  if (r.error) return `<p class="verify-result bad" data-verify-state="error" role="alert">${t("fair.error", { msg: r.error })}</p>`;
  // a tile by its name (一万 / 1 character), as the rest of the page writes it, not its code
  const said = (params) => (params.tile === undefined ? params : { ...params, tile: tileName(params.tile) });
  const items = r.checks.map((c) => `<li class="${c.ok ? "ok" : "bad"}" data-check="${c.id}">${c.ok ? "✓" : "✗"} ${t(`fair.check.${c.id}`, said(c.params))}</li>`).join("");
  const head = r.ok ? t("fair.ok") : t("fair.bad");
  return `<div class="verify-result ${r.ok ? "ok" : "bad"}" data-verify-state="${r.ok ? "ok" : "bad"}" role="status"><b>${head}</b><ul>${items}</ul></div>`;
}

/** The verify button of a finished hand, or the outcome of its check. */
export function verifyHTML(key) {
  const r = RESULTS.get(key);
  return `<div class="verify" data-verify-key="${key}">` +
    (r ? resultHTML(r) : "") + (!r || r.error ? `<button type="button" data-verify="${key}">${t("fair.verify")}</button>` : "") + `</div>`;
}

let loaders = { record: null, rerender: () => {} };

/** app.js gives the way to fetch a hand's record events (key -> Promise<events>) and to redraw. */
export function initVerify({ record, rerender }) {
  loaders = { record, rerender };
}

export async function runVerify(key) {
  RESULTS.set(key, { running: true });
  loaders.rerender();
  try {
    const events = await loaders.record(key);
    RESULTS.set(key, await verifyHand(events, seenFor(key)));
  } catch (e) {
    // the server's refusal in words (its code is no sentence), else what failed
    const msg = e instanceof VerifyUnavailable ? t(`fair.unavailable.${e.reason}`) : failureText(e);
    RESULTS.set(key, { error: msg });
  }
  loaders.rerender();
}

document.addEventListener("click", (ev) => {
  const el = ev.target.closest && ev.target.closest("[data-verify]");
  if (el) { ev.preventDefault(); runVerify(el.dataset.verify); }
});

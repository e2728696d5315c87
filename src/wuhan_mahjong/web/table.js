// The table, rendered only from a seat view (wuhan_mahjong.engine.views.SeatView).
//
// renderTable(view, ctx) returns an HTML string; app.js puts it in the page and
// handles clicks by event delegation (data-act / data-tile attributes).
// ctx: {names: [4 strings] | null, selected: index | null, deadline: ms epoch | null,
//       hint: {...} | null, pending: bool, replayHands: [4 tile strings] | null,
//       replayYou: the replay watcher's own seat (he played the hand) | null,
//       chooser: "chi" | "kong" | "tile" | null, chooserTile: "5m" | null, caption: str,
//       auto: bool (this seat's 托管 is on: its 取消托管 beside the hand),
//       totals: [4 numbers] | null (the match's points so far, beside each seat's name)}

import { getLang, t, tileName } from "./i18n.js";
import { parseTiles, tileSVG } from "./tiles.js";

export function esc(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

export function tileHTML(tile, { cls = "", laizi = null, attrs = "", title = true } = {}) {
  const classes = ["tile"];
  if (cls) classes.push(cls);
  if (laizi && tile === laizi) classes.push("laizi");
  const name = tile === "back" ? t("table.face_down") : tileName(tile);
  const tt = title && tile !== "back" ? ` title="${esc(name)}"` : "";
  return `<span class="${classes.join(" ")}" data-tile="${tile}"${tt}${tileLabel(name, attrs)}${attrs}>${tileSVG(tile)}</span>`;
}

/** A tile's name for screen readers (its picture is aria-hidden): an image, or the
 *  button the attributes make of it. */
function tileLabel(name, attrs = "") {
  return `${attrs.includes("role=") ? "" : ` role="img"`} aria-label="${esc(name)}"`;
}

/** Position of `seat` around the table as seen by `viewer`: bottom, right (下家), top, left (上家). */
export function position(seat, viewer) {
  return ["bottom", "right", "top", "left"][(seat - (viewer ?? 0) + 4) % 4];
}

export function seatLabel(seat, view, ctx) {
  const name = ctx.names && ctx.names[seat];
  const wind = t(`seat.${seat}`);
  if (view.viewer === seat && !ctx.replayHands) return name ? `${esc(name)} (${t("seat.you")})` : t("seat.you");
  if (ctx.replayHands && ctx.replayYou === seat) return `${esc(name || t("seat.name", { wind }))} (${t("seat.you")})`; // one's own replay
  return name ? `${esc(name)}` : t("seat.name", { wind });
}

function relName(seat, view, ctx) {
  if (view.viewer === null || view.viewer === undefined || ctx.replayHands) return t("seat.name", { wind: t(`seat.${seat}`) });
  const pos = position(seat, view.viewer);
  if (pos === "bottom") return t("seat.you");
  return { right: t("seat.next"), top: t("seat.across"), left: t("seat.prev") }[pos];
}

// ------------------------------------------------------------------ legal actions
/** Group the view's legal actions by the button that offers them. */
export function groupActions(legal) {
  const g = { win: [], kong: [], peng: [], chi: [], pass: [], discard: [], laizi_discard: [] };
  for (const a of legal || []) {
    if (a.type === "special_kong") g.kong.push(a);
    else if (g[a.type]) g[a.type].push(a);
  }
  return g;
}

/** The actions that play a given tile out of the hand (a discard, 丢癞子, or a single-tile kong). */
export function actionsForTile(view, tile) {
  const out = [];
  for (const a of view.legal_actions || []) {
    if (a.type === "discard" && a.tile === tile) out.push(a);
    else if (a.type === "laizi_discard" && tile === view.laizi) out.push(a);
    else if (a.type === "special_kong" && a.tiles === tile) out.push(a); // the engine names the tile
  }
  return out;
}

export function actionLabel(a) {
  switch (a.type) {
    case "win": return t("act.win");
    case "pass": return t("act.pass");
    case "peng": return `${t("act.peng")} ${tileName(a.tile)}`;
    case "chi": return t("act.chi");
    case "kong": return `${t(`act.kong.${a.kind}`)} ${tileName(a.tile)}`;
    case "special_kong": return t(`act.special.${a.kind}`);
    case "laizi_discard": return t("act.laizi_discard");
    case "discard": return `${t("act.discard")} ${tileName(a.tile)}`;
    default: return a.type;
  }
}

/** The tiles an action shows in a chooser (a chi's run, a kong's four tiles ...): the
 * engine's view names them (`tiles`), so no rule fact is worked out here. */
function actionTiles(a) {
  return a.type === "win" || !a.tiles ? [] : parseTiles(a.tiles);
}

// ------------------------------------------------------------------ pieces
function meldHTML(m, seat, view, ctx) {
  let tiles;
  if (m.tiles) tiles = parseTiles(m.tiles);
  else tiles = ["back", "back", "back", "back"];
  const label = m.type === "kong" ? t(`act.kong.${m.kind}`) : t(`meld.${m.type}`);
  // who fed it: the feeder's wind (and "you" when it was the viewer)
  const feeder = m.from_seat !== null && m.from_seat !== undefined && m.from_seat !== seat
    ? (m.from_seat === view.viewer && !ctx.replayHands ? t("seat.you") : t(`seat.${m.from_seat}`)) : "";
  const from = feeder ? `<span class="from" data-from="${m.from_seat}">${esc(t("table.from", { who: feeder }))}</span>` : "";
  const body = tiles.map((x, i) => {
    const concealedEdge = m.kind === "concealed" && m.tiles && (i === 0 || i === 3);
    return tileHTML(concealedEdge ? "back" : x, { laizi: view.laizi });
  }).join("");
  return `<span class="meld meld-${m.type}" data-meld="${m.type}"><span class="meld-tiles">${body}</span>` +
    `<span class="meld-label">${esc(label)}${from ? " " + from : ""}</span></span>`;
}

function specialsHTML(ps) {
  const sk = ps.special_kongs || {};
  const items = [];
  const add = (key, n, cls) => { if (n) items.push(`<span class="sk ${cls}" data-sk="${key}">${t(key === "laizi_discards" ? "sk.laizi_discards" : `sk.${key}`)}×${n}</span>`); };
  add("red", sk.red, "sk-red");
  add("green", sk.green, "sk-green");
  add("laizi", sk.laizi, "sk-laizi");
  add("pi", sk.pi, "sk-pi");
  add("laizi_discards", ps.laizi_discards, "sk-ld");
  return items.length ? `<span class="specials">${items.join("")}</span>` : "";
}

function riverHTML(ps, view, ctx) {
  const last = view.on_table && view.on_table.seat === ps.seat ? ps.discards.length - 1 : -1;
  return `<div class="river" data-seat="${ps.seat}">` + ps.discards.map((d, i) => {
    const cls = [];
    if (d.claimed_by !== null && d.claimed_by !== undefined) cls.push("claimed");
    if (d.laizi) cls.push("laizi-out");
    if (i === last) cls.push("last");
    const claimed = d.claimed_by !== null && d.claimed_by !== undefined
      ? tileName(d.tile) + " · " + t("table.claimed", { who: relName(d.claimed_by, view, ctx) }) : "";
    const title = claimed ? ` title="${esc(claimed)}"` : "";
    return `<span class="${["tile", ...cls].join(" ")}" data-tile="${d.tile}"${title}${tileLabel(claimed || tileName(d.tile))}>${tileSVG(d.tile)}</span>`;
  }).join("") + `</div>`;
}

function seatHTML(ps, view, ctx) {
  const pos = position(ps.seat, view.viewer);
  const isTurn = view.turn === ps.seat && view.phase !== "ended";
  const dealer = view.dealer === ps.seat ? `<span class="dealer" title="${esc(t("seat.dealer"))}">${t("seat.dealer_short")}</span>` : "";
  const wind = `<span class="wind" title="${esc(t(`seat.${ps.seat}`))}">${t(`seat.short.${ps.seat}`)}</span>`;
  let concealed = "";
  if (ctx.replayHands) {
    concealed = `<div class="open-hand">${parseTiles(ctx.replayHands[ps.seat]).map((x) => tileHTML(x, { laizi: view.laizi })).join("")}</div>`;
  } else if (pos !== "bottom") {
    // the backs are one picture for a screen reader: "N concealed tiles"
    const backs = Array.from({ length: Math.min(ps.concealed, 14) }, () => `<span class="tile back-mini" aria-hidden="true">${tileSVG("back")}</span>`).join("");
    const n = esc(t("table.concealed", { n: ps.concealed }));
    concealed = `<div class="backs" title="${n}" role="img" aria-label="${n}">${backs}<span class="count" aria-hidden="true">${ps.concealed}</span></div>`;
  }
  const melds = ps.melds.length ? `<div class="melds">${ps.melds.map((m) => meldHTML(m, ps.seat, view, ctx)).join("")}</div>` : `<div class="melds empty"></div>`;
  const player = (ctx.players || []).find((p) => p.seat === ps.seat);
  const avatar = player ? avatarHTML(player.name, player.bot) : "";
  const bubble = ctx.bubbles ? bubbleHTML(ctx.bubbles[ps.seat], ps.seat) : "";
  return `<section class="seat seat-${pos}${isTurn ? " turn" : ""}" data-seat="${ps.seat}" data-pos="${pos}">` +
    `<header>${avatar}${wind}<span class="name">${seatLabel(ps.seat, view, ctx)}</span>${dealer}${scoreHTML(ps.seat, ctx)}${specialsHTML(ps)}</header>` +
    bubble + concealed + melds + riverHTML(ps, view, ctx) + `</section>`;
}

/** A seat's points in the match so far (ctx.totals: the state frame's), beside its name as the
 * apps show them: the standings of a match of several hands, in sight at every move. */
function scoreHTML(seat, ctx) {
  if (!ctx.totals || typeof ctx.totals[seat] !== "number") return "";
  const n = ctx.totals[seat];
  return `<span class="score${n > 0 ? " pos" : n < 0 ? " neg" : ""}" data-score="${seat}" title="${esc(t("table.score"))}">${n > 0 ? "+" : ""}${n}</span>`;
}

function centerHTML(view, ctx) {
  const parts = [];
  parts.push(`<div class="hand-no">${t("table.hand_no", { n: view.hand_no + 1 })}</div>`);
  parts.push(`<div class="lz"><figure class="indicator"><figcaption>${t("table.indicator")}</figcaption>${tileHTML(view.indicator)}</figure>` +
    `<span class="arrow">→</span>` +
    `<figure class="laizi-fig"><figcaption>${t("table.laizi")}</figcaption>${tileHTML(view.laizi, { cls: "laizi" })}</figure></div>`);
  const wall = `<span class="wall" data-wall="${view.wall}">${t("table.wall", { n: view.wall })}</span>`;
  const endp = view.end_phase ? ` <span class="end-phase">${t("table.end_phase")}</span>` : "";
  const fin = view.phase === "final" ? ` <span class="final">${t("table.final_left", { n: view.final_draws_left })}</span>` : "";
  parts.push(`<div class="wallbox">${wall}${endp}${fin}</div>`);
  if (view.on_table) {
    const key = view.phase === "rob" ? "table.rob" : "table.on_table";
    parts.push(`<div class="on-table"><span>${t(key, { who: relName(view.on_table.seat, view, ctx) })}</span>${tileHTML(view.on_table.tile, { cls: "big", laizi: view.laizi })}</div>`);
  }
  let status = "";
  if (ctx.caption) status = esc(ctx.caption);
  else if (view.phase !== "ended") {
    const mine = (view.legal_actions || []).length > 0;
    if (mine && (view.phase === "turn" || view.phase === "final")) status = t("table.turn_you");
    else if (!mine && (view.phase === "claim" || view.phase === "rob")) status = t("table.claim_wait");
    else if (!mine) status = t("table.turn_other", { who: relName(view.turn, view, ctx) });
  }
  parts.push(`<div class="status">${status}</div>`);
  parts.push(`<div class="countdown" data-deadline="${ctx.deadline || ""}"></div>`);
  return `<div class="center">${parts.join("")}</div>`;
}

function hintHTML(view, ctx) {
  const h = ctx.hint;
  if (!h || view.viewer === null || view.viewer === undefined) return "";
  const items = [];
  if (typeof h.shanten === "number") items.push(`<div class="shanten">${h.shanten <= 0 ? t("help.ready") : t("help.shanten", { n: h.shanten })}</div>`);
  const waitsHTML = (list) => `<span class="waits">` + list.map((w) => {
    const tile = typeof w === "string" ? w : w.tile;
    const left = typeof w === "object" ? w.unseen : undefined;
    return `<span class="wait" data-wait="${esc(tile)}">${tileHTML(tile, { laizi: view.laizi })}${left !== undefined ? `<b>${left}</b>` : ""}</span>`;
  }).join("") + `</span>`;
  const waits = h.waits || [];
  if (waits.length) items.push(`<div class="waits-label">${t("help.waits")}</div>${waitsHTML(waits)}`);
  // on a turn: the discards that keep the best shanten, best first (the server ranks them
  // by tile acceptance, 进张), with how many tiles would help and what each would wait on
  const options = (h.discards || []).slice(0, 8);
  if (options.length) {
    const most = Math.max(...options.map((o) => (typeof o.acceptance === "number" ? o.acceptance : -1)));
    items.push(`<div class="discard-options">` + options.map((o) => {
      const counted = typeof o.acceptance === "number";
      const best = counted && o.acceptance === most ? " best" : "";
      const helps = counted && !(o.waits && o.waits.length)
        ? `<span class="acceptance" data-acceptance="${o.acceptance}" title="${esc((o.accepts || []).map((a) => `${a.tile}×${a.unseen}`).join(" "))}">${t("help.acceptance", { n: o.acceptance })}</span>` : "";
      return `<span class="option${best}" data-option="${esc(o.tile)}">` +
        `${t("help.discard")}${tileHTML(o.tile, { laizi: view.laizi })}${helps}` +
        `${o.waits && o.waits.length ? `→ ${t("help.wait_on")} ${waitsHTML(o.waits)}` : ""}</span>`;
    }).join("") + `</div>`);
  }
  if (!items.length) return "";
  return `<aside class="hint" data-hint="1"><h3>${t("help.title")}</h3>${items.join("")}</aside>`;
}

/** The own hand: sorted, laizi marked, the drawn tile set apart.  Tiles get data-idx 0..n-1. */
export function handTiles(view) {
  const tiles = parseTiles(view.hand || "");
  let drawn = null;
  if (view.drawn) {
    const i = tiles.lastIndexOf(view.drawn);
    if (i >= 0) { tiles.splice(i, 1); drawn = view.drawn; }
  }
  return { tiles, drawn, all: drawn ? [...tiles, drawn] : tiles };
}

function handHTML(view, ctx) {
  if (view.viewer === null || view.viewer === undefined || ctx.replayHands) return "";
  const { tiles, drawn } = handTiles(view);
  const playable = (tile) => actionsForTile(view, tile).length > 0;
  const one = (tile, idx, extra) => {
    const cls = [extra];
    if (playable(tile) && !ctx.pending) cls.push("playable");
    if (ctx.selected === idx) cls.push("selected");
    return tileHTML(tile, { cls: cls.filter(Boolean).join(" "), laizi: view.laizi, attrs: ` data-idx="${idx}" role="button" tabindex="-1"` });
  };
  const body = tiles.map((x, i) => one(x, i, "")).join("");
  const d = drawn ? `<span class="drawn-gap"></span>${one(drawn, tiles.length, "drawn")}` : "";
  return `<div class="hand" data-count="${tiles.length + (drawn ? 1 : 0)}">${body}${d}</div>`;
}

function actionsHTML(view, ctx) {
  if (view.phase === "ended" || ctx.replayHands) return "";
  const g = groupActions(view.legal_actions);
  const btn = (key, list, hot) => list.length
    ? `<button class="act act-${key}" data-act="${key}" ${ctx.pending ? "disabled" : ""}>${t(`act.${key}`)}<kbd>${hot}</kbd></button>` : "";
  // 托管 on (the player's switch, or the server's after two timeouts): its way off beside the
  // hand, as the apps show it; the table's tools are below a phone's first screen
  const auto = ctx.auto ? `<button class="act act-auto" data-do="auto" aria-pressed="true">${t("table.auto_off")}</button>` : "";
  const buttons = auto + [btn("win", g.win, "H"), btn("kong", g.kong, "K"), btn("peng", g.peng, "P"),
    btn("chi", g.chi, "C"), btn("laizi_discard", g.laizi_discard, "L"), btn("pass", g.pass, "␣")].join("");
  let chooser = "";
  if (ctx.chooser) {
    const list = ctx.chooser === "tile" ? actionsForTile(view, ctx.chooserTile) : g[ctx.chooser] || [];
    chooser = `<div class="chooser" data-chooser="${ctx.chooser}">` + list.map((a, i) =>
      `<button class="choice" data-choice="${i}"><kbd>${i + 1}</kbd><span class="choice-tiles">${actionTiles(a).map((x) => tileHTML(x, { laizi: view.laizi })).join("")}</span><span>${esc(actionLabel(a))}</span></button>`,
    ).join("") + `</div>`;
  }
  // the keys' way only where there is a keyboard (style.css shows one of the two)
  const hintLine = g.discard.length && !ctx.pending ? `<div class="discard-hint"><span class="with-keys">${t("table.discard_hint")}</span>` +
    `<span class="by-touch">${t("table.discard_hint_touch")}</span></div>` : "";
  return `<div class="actions">${buttons}</div>${chooser}${hintLine}`;
}

/** The chooser's list of actions (used by app.js to act on a choice). */
export function chooserList(view, ctx) {
  if (!ctx.chooser) return [];
  if (ctx.chooser === "tile") return actionsForTile(view, ctx.chooserTile);
  return groupActions(view.legal_actions)[ctx.chooser] || [];
}

export function renderTable(view, ctx) {
  const seats = {};
  for (const ps of view.seats) seats[position(ps.seat, view.viewer)] = seatHTML(ps, view, ctx);
  const mine = `<div class="me">${seats.bottom}${handHTML(view, ctx)}${actionsHTML(view, ctx)}</div>`;
  return `<div class="table phase-${view.phase}" data-phase="${view.phase}" data-viewer="${view.viewer}">` +
    `${seats.top}${seats.left}${centerHTML(view, ctx)}${seats.right}${mine}${hintHTML(view, ctx)}</div>`;
}

// ------------------------------------------------------------------ settlement
function whoName(seat, ctx, view) {
  if (seat === null || seat === undefined) return "";
  const name = ctx.names && ctx.names[seat];
  const wind = t("seat.name", { wind: t(`seat.${seat}`) });
  const you = view && view.viewer === seat && (!ctx.replayHands || ctx.replayYou === seat) ? ` (${t("seat.you")})` : "";
  return esc(name ? `${name}` : wind) + you;
}

function factorsHTML(list, loser, profile) {
  // a payment's factors: the base and the scorer's (winner's) factors, then the loser's own
  // the server's label (×2 开口) in Chinese; in English the same factor from its `en` name
  const label = (f) => (getLang() === "zh" || !f.en ? f.label : `×${f.value} ${f.en}${f.count > 1 ? ` ×${f.count}` : ""}`);
  const one = (f) => `<a class="factor" href="#/rules?profile=${esc(profile || "")}&factor=${esc(f.id)}" data-id="${esc(f.id)}" title="${esc(getLang() === "zh" ? f.en || "" : f.label)}">${esc(label(f))}</a>`;
  const mine = (list || []).filter((f) => f.seat !== loser || f.id === "base");
  const his = (list || []).filter((f) => f.seat === loser && f.id !== "base");
  return `<span class="factors">${mine.map(one).join("")}${his.length ? `<span class="factor-sep">|</span>${his.map(one).join("")}` : ""}</span>`;
}

export function renderSettlement(view, ctx) {
  const r = view.result;
  if (!r) return "";
  const rows = [];
  const st = r.settlement;
  if (r.outcome === "exhausted") {
    rows.push(`<p class="outcome">${t("settle.exhausted")}</p>`);
  } else if (r.outcome === "win") {
    const by = r.win_by ? t(`settle.by.${r.win_by}`) : "";
    let from = "";
    if (r.from_seat !== null && r.from_seat !== undefined) {
      from = r.win_by === "rob_kong" ? t("settle.robbed", { who: whoName(r.from_seat, ctx, view) })
        : t("settle.from", { who: whoName(r.from_seat, ctx, view) });
    }
    rows.push(`<p class="outcome"><b>${t("settle.win", { who: whoName(r.winner, ctx, view) })}</b> · ${by}` +
      `${from ? " · " + from : ""} ${r.tile ? tileHTML(r.tile, { laizi: view.laizi }) : ""}</p>`);
    if (st) {
      const hands = st.hands && st.hands.length
        ? st.hands.map((h, i) => (getLang() === "zh" && st.hands_zh ? st.hands_zh[i] : t(`bighand.${h}`))).join(" · ")
        : t("settle.small");
      rows.push(`<p class="hands-line"><span class="big-hands">${esc(hands)}</span> · ${st.hard ? t("settle.hard") : t("settle.soft")} · ${t("settle.base", { n: st.base })}` +
        `${st.golden_cap ? ` · <b class="golden">${t("settle.golden")}</b>` : ""}</p>`);
      if (st.hypothetical && st.hypothetical.seat !== undefined) {
        rows.push(`<p class="hypo">${t("settle.hypothetical", { who: whoName(st.hypothetical.seat, ctx, view) })}</p>`);
      }
      if (st.contractor !== null && st.contractor !== undefined) {
        rows.push(`<p class="contract">${t("settle.contractor", { who: whoName(st.contractor, ctx, view), reason: esc((getLang() === "zh" ? st.contract_reason_zh : st.contract_reason_en) || st.contract_reason || "") })}</p>`);
      }
      const pays = (st.payments || []).map((p) => {
        const payer = p.payer !== p.loser ? `<div class="pays-for">${t("settle.pays_for", { payer: whoName(p.payer, ctx, view), loser: whoName(p.loser, ctx, view) })}</div>` : "";
        const limit = p.limit && p.limit !== "none" ? `<span class="limit limit-${p.limit}">${t(`settle.limit.${p.limit}`)}</span>` : "";
        const raw = p.raw !== p.amount ? `<s class="raw">${p.raw}</s> ` : "";
        return `<tr class="payment" data-loser="${p.loser}"><td class="who">${whoName(p.loser, ctx, view)}${payer}</td>` +
          `<td>${factorsHTML(p.factors, p.loser, view.profile)}</td><td class="amt">${raw}<b>${p.amount}</b> ${limit}</td></tr>`;
      }).join("");
      rows.push(`<table class="payments"><thead><tr><th>${t("settle.payer")}</th><th>${t("settle.factors")}</th><th>${t("settle.amount")}</th></tr></thead><tbody>${pays}</tbody></table>`);
      if (st.arrangement && st.arrangement.length) {
        const arr = st.arrangement.map((g) => `<span class="group">${parseTiles(g.tiles).map((x) => tileHTML(x, { laizi: view.laizi })).join("")}</span>`).join("");
        const la = st.laizi_as && st.laizi_as.length ? ` <span class="laizi-as">${t("settle.laizi_as")} ${st.laizi_as.map((x) => esc(tileName(x))).join("、")}</span>` : "";
        rows.push(`<div class="arrangement"><h4>${t("settle.arrangement")}${la}</h4>${arr}</div>`);
      }
    }
  }
  const deltas = (r.deltas || []).map((d, s) => `<tr data-seat="${s}"><td>${whoName(s, ctx, view)}${view.dealer === s ? ` <span class="dealer" title="${esc(t("seat.dealer"))}">${t("seat.dealer_short")}</span>` : ""}</td>` +
    `<td class="hand-reveal">${r.reveal ? parseTiles(r.reveal.hands[s]).map((x) => tileHTML(x, { laizi: view.laizi })).join("") : ""}</td>` +
    `<td class="delta ${d > 0 ? "pos" : d < 0 ? "neg" : ""}">${d > 0 ? "+" : ""}${d}</td></tr>`).join("");
  rows.push(`<h4>${t("settle.deltas")}</h4><table class="deltas"><tbody>${deltas}</tbody></table>`);
  const cont = ctx.continueLabel ? `<button class="primary" data-act="continue">${esc(ctx.continueLabel)}</button>` : "";
  return `<div class="settlement" role="dialog" aria-label="${t("settle.title")}"><h2>${t("settle.title")}</h2>${rows.join("")}${ctx.extra || ""}<div class="buttons">${cont}</div></div>`;
}

// ------------------------------------------------------------------ avatars, quick chat, table info
const AVATAR_COLOURS = 8; // .av-0 … .av-7 in style.css

/** A round avatar: the first letter of the name on a colour picked from the name. */
export function avatarHTML(name, bot) {
  const n = String(name || "?");
  let h = 0;
  for (const ch of n) h = (h * 31 + ch.codePointAt(0)) >>> 0;
  const first = [...n][0] || "?";
  // a class, not a style attribute: the server's Content-Security-Policy forbids inline styles
  return `<span class="avatar av-${h % AVATAR_COLOURS}${bot ? " bot" : ""}" aria-hidden="true">${esc(first.toUpperCase())}</span>`;
}

// emotes are drawn, not emoji: they need no emoji font
const FACE = `<circle cx="20" cy="20" r="17" fill="#f7c948" stroke="#b7791f" stroke-width="2"/>`;
export const EMOTES = {
  laugh: FACE + `<path d="M11 15q3-4 6 0M23 15q3-4 6 0" stroke="#5a3e00" stroke-width="2.2" fill="none" stroke-linecap="round"/><path d="M10 22q10 12 20 0z" fill="#8b2500"/>`,
  cry: FACE + `<circle cx="14" cy="16" r="2.2" fill="#5a3e00"/><circle cx="26" cy="16" r="2.2" fill="#5a3e00"/><path d="M13 30q7-7 14 0" stroke="#5a3e00" stroke-width="2.2" fill="none" stroke-linecap="round"/><path d="M12 19q-2 5 0 8q2-3 0-8z" fill="#3fa9f5"/>`,
  angry: `<circle cx="20" cy="20" r="17" fill="#e74c3c" stroke="#922b21" stroke-width="2"/><path d="M10 12l8 4M30 12l-8 4" stroke="#3b0b0b" stroke-width="2.4" stroke-linecap="round"/><circle cx="14" cy="19" r="2" fill="#3b0b0b"/><circle cx="26" cy="19" r="2" fill="#3b0b0b"/><path d="M13 30q7-6 14 0" stroke="#3b0b0b" stroke-width="2.2" fill="none" stroke-linecap="round"/>`,
  cool: FACE + `<path d="M8 15h24v3q-1 5-6 5t-6-5q-1 5-6 5t-6-5z" fill="#222"/><path d="M13 28q7 5 14 0" stroke="#5a3e00" stroke-width="2.2" fill="none" stroke-linecap="round"/>`,
  heart: `<path d="M20 34C8 25 4 19 4 13a8 8 0 0 1 16-2a8 8 0 0 1 16 2c0 6-4 12-16 21z" fill="#e74c3c" stroke="#922b21" stroke-width="2"/>`,
};
export const PHRASES = ["hurry", "nice", "calm", "lucky", "unlucky", "thanks", "again", "bye"];

export function emoteSVG(id) {
  return EMOTES[id] ? `<svg class="emote" viewBox="0 0 40 40" aria-hidden="true">${EMOTES[id]}</svg>` : "";
}

export function bubbleHTML(b, seat) {
  if (!b) return "";
  const body = b.emote ? emoteSVG(b.emote) : esc(t(`chat.phrase.${b.phrase}`));
  const label = b.emote ? ` aria-label="${esc(t(`chat.emote.${b.emote}`))}"` : "";
  const at = b.at ? ` data-bubble-at="${Number(b.at)}"` : "";
  // a new phrase is a new bubble (draw.js keys elements by data-key): it pops
  const key = ` data-key="bubble-${seat}-${Number(b.at) || 0}"`;
  return `<div class="bubble" data-bubble-seat="${seat}"${key} role="status"${label}${at}>${body}</div>`;
}

/** The delay each bubble on the page was drawn with. */
const bubbleDelays = new WeakMap();

/** A chat bubble pops in when its phrase comes, once. A redraw keeps a bubble it draws
 * again (app.js draws with draw.js), but strips the delay set here, so it is set again;
 * a bubble drawn as a new element (its seat redrawn whole, the table's page opened again)
 * goes on with its pop where it was, from ``data-bubble-at`` (ms since the epoch), or not
 * at all once that is over, instead of popping again. Set here, not in the markup: the
 * page's CSP refuses style attributes. */
export function continueBubbles(root) {
  for (const el of root.querySelectorAll(".bubble[data-bubble-at]")) {
    if (!bubbleDelays.has(el)) bubbleDelays.set(el, `-${Math.max(0, Date.now() - Number(el.dataset.bubbleAt))}ms`);
    el.style.animationDelay = bubbleDelays.get(el);
  }
}

/** The quick-chat panel: phrases, emotes, and a mute switch for each other player. */
export function chatPanelHTML(players, view, muted) {
  const phrases = PHRASES.map((id) => `<button type="button" class="phrase" data-chat="phrase:${id}">${esc(t(`chat.phrase.${id}`))}</button>`).join("");
  const emotes = Object.keys(EMOTES).map((id) => `<button type="button" class="emote-btn" data-chat="emote:${id}" title="${esc(t(`chat.emote.${id}`))}" aria-label="${esc(t(`chat.emote.${id}`))}">${emoteSVG(id)}</button>`).join("");
  const others = (players || []).filter((p) => p.seat !== view.viewer && !p.bot);
  const mutes = others.map((p) => {
    const off = muted && muted.has(p.name);
    return `<button type="button" class="mute-seat" data-mute-seat="${esc(p.name)}" aria-pressed="${off}">${esc(t(off ? "chat.unmute" : "chat.mute", { name: p.name }))}</button>`;
  }).join("");
  return `<div class="chat-panel" data-chat-panel="1"><div class="phrases">${phrases}</div><div class="emotes">${emotes}</div>` +
    `${mutes ? `<div class="mutes">${mutes}</div>` : ""}</div>`;
}

/** The table's rules exactly as the server sent them in the "table" frame; `extra` (HTML)
 * goes under the panel's title (the table's own switches). */
export function tableInfoHTML(table, { label, value, overrides, extra = "", inHand = false, allRules = null }) {
  const r = table.rules || {};
  const rows = [
    ["opt.profile", t(`opt.profile.${table.profile}`)],
    ["opt.opening", r.opening_scoring ? t(`opt.opening.${r.opening_scoring}`) : ""],
    ["opt.stake", table.stake ? String(table.stake) : t("opt.free")],
    ["opt.hands", String(table.hands)],
    ["info.fee", String(table.fee || 0)],
    ["opt.claim", `${table.claim_seconds}`],
    ["opt.turn", `${table.turn_seconds}`],
  ].filter(([, v]) => v !== "");
  const caps = ["cap", "cap_per_opening", "golden_cap", "golden_cap_per_opening", "bright_cap", "bright_cap_per_opening"]
    .filter((k) => r[k] !== undefined).map((k) => [label(k), value(k, r[k]), k]);
  const over = Object.entries(overrides || {}).map(([k, v]) => [label(k), value(k, v), k]);
  const line = ([k, v]) => `<tr><th>${esc(t(k))}</th><td>${esc(v)}</td></tr>`;
  const named = ([l, v, k]) => `<tr data-rule="${esc(k)}"><th>${esc(l)}</th><td>${esc(v)}</td></tr>`;
  return `<div class="table-info card" data-table-info="1"><h3>${t("table.info")}</h3>${extra}<table class="history"><tbody>` +
    rows.map(line).join("") + caps.map(named).join("") + `</tbody></table>` +
    (over.length ? `<h4>${t("info.overrides")}</h4><table class="history overrides"><tbody>${over.map(named).join("")}</tbody></table>` : "") +
    // every rule, read here (the rules page is another screen: during a hand, going there
    // would be an escape; between hands it is offered too)
    `<p><button type="button" data-do="table-rules" aria-expanded="${allRules !== null}">${t(allRules !== null ? "info.all_rules_hide" : "info.all_rules")}</button>` +
    (inHand ? "" : ` <a href="#/rules?profile=${esc(table.profile)}">${t("info.rules_page")}</a>`) + `</p>${allRules || ""}</div>`;
}

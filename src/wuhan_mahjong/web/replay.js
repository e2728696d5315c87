// The replay viewer's frames, built from a stored hand record (JSON lines, schema
// "wuhan-mahjong/hand", docs/records.md).  This is bookkeeping only: each recorded
// event says what moved where (a draw, a discard, a claim and its tiles, a kong,
// the win and its settlement, computed by the server); no rule is decided here.
//
// framesFromRecord(events) -> [{view, hands: [4 tile strings], caption}] where view
// has the shape of a spectator SeatView (viewer null), so table.js renders it.

import { t, tileName } from "./i18n.js";
import { parseTiles, sortTiles } from "./tiles.js";

export function parseRecord(text) {
  const hands = [];
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    const ev = JSON.parse(line);
    if (ev.e === "header") hands.push([ev]);
    else if (hands.length) hands[hands.length - 1].push(ev);
  }
  return hands;
}

function fmt(tiles) {
  // back to the grouped notation the views use
  let out = "";
  let cur = "";
  let digits = "";
  for (const x of sortTiles(tiles)) {
    if (x[1] !== cur) { if (cur) out += digits + cur; cur = x[1]; digits = ""; }
    digits += x[0];
  }
  if (cur) out += digits + cur;
  return out;
}

const who = (s) => t("seat.name", { wind: t(`seat.${s}`) });

export function framesFromRecord(events) {
  const header = events[0];
  const hands = [[], [], [], []];
  const seats = [0, 1, 2, 3].map((s) => ({
    seat: s, concealed: 0, melds: [], special_kongs: { red: 0, green: 0, laizi: 0, pi: 0 },
    laizi_discards: 0, discards: [],
  }));
  const view = {
    schema: 1, viewer: null, hand_no: header.hand_no || 0, profile: header.profile, dealer: header.dealer,
    phase: "turn", turn: header.dealer, indicator: "", laizi: "", commitment: header.commitment || "",
    wall: 0, end_phase: false, final_draws_left: 0, on_table: null, seats, hand: null, drawn: null,
    legal_actions: [], result: null,
  };
  const frames = [];
  let pendingAdded = null;
  const remove = (s, tile, n = 1) => {
    for (let i = 0; i < n; i++) {
      const k = hands[s].indexOf(tile);
      if (k >= 0) hands[s].splice(k, 1);
    }
  };
  const snap = (caption) => {
    for (const ps of seats) ps.concealed = hands[ps.seat].length;
    frames.push({ view: structuredClone(view), hands: hands.map(fmt), caption });
  };
  for (const ev of events.slice(1)) {
    switch (ev.e) {
      case "deal":
        ev.hands.forEach((h, s) => { hands[s] = parseTiles(h); });
        view.indicator = ev.indicator; view.laizi = ev.laizi; view.wall = ev.wall;
        snap(t("replay.ev.deal", { indicator: tileName(ev.indicator), laizi: tileName(ev.laizi) }));
        break;
      case "draw":
        hands[ev.seat].push(ev.tile);
        view.wall = ev.wall; view.turn = ev.seat; view.on_table = null;
        view.phase = ev.from === "final" ? "final" : "turn";
        snap(t(ev.from === "replacement" ? "replay.ev.replacement" : ev.from === "final" ? "replay.ev.final" : "replay.ev.draw", { who: who(ev.seat) }) + ` ${tileName(ev.tile)}`);
        break;
      case "act": {
        const a = ev.action; const s = ev.seat;
        view.turn = s;
        if (a.type === "discard") {
          remove(s, a.tile);
          seats[s].discards.push({ tile: a.tile, laizi: false, claimed_by: null });
          view.on_table = { seat: s, tile: a.tile }; view.phase = "claim";
          snap(t("replay.ev.discard", { who: who(s), tile: tileName(a.tile) }));
        } else if (a.type === "laizi_discard") {
          remove(s, view.laizi);
          seats[s].discards.push({ tile: view.laizi, laizi: true, claimed_by: null });
          seats[s].laizi_discards += 1; view.on_table = null;
          snap(t("replay.ev.laizi_discard", { who: who(s) }));
        } else if (a.type === "special_kong") {
          remove(s, { red: "7z", green: "6z", laizi: view.laizi, pi: view.indicator }[a.kind]);
          seats[s].special_kongs[a.kind] += 1;
          snap(t("replay.ev.special", { who: who(s), kind: t(`act.special.${a.kind}`) }));
        } else if (a.type === "kong" && a.kind === "concealed") {
          remove(s, a.tile, 4);
          seats[s].melds.push({ type: "kong", kind: "concealed", tiles: fmt([a.tile, a.tile, a.tile, a.tile]), from_seat: null });
          snap(t("replay.ev.kong", { who: who(s), kind: t("act.kong.concealed"), tile: tileName(a.tile) }));
        } else if (a.type === "kong" && a.kind === "added" && view.phase === "turn") {
          remove(s, a.tile);
          pendingAdded = { seat: s, tile: a.tile };
          view.on_table = { seat: s, tile: a.tile }; view.phase = "rob";
          snap(t("replay.ev.kong", { who: who(s), kind: t("act.kong.added"), tile: tileName(a.tile) }));
        }
        // answers in a claim window (pass, chi, peng, win ...) show when resolved
        break;
      }
      case "claim": {
        const a = ev.action; const s = ev.seat; const from = ev.from;
        const river = seats[from].discards;
        const taken = river[river.length - 1];
        if (taken) taken.claimed_by = s;
        const tile = taken ? taken.tile : a.tile;
        let tiles;
        if (a.type === "chi") {
          const low = Number(a.tile[0]);
          tiles = [0, 1, 2].map((k) => `${low + k}${a.tile[1]}`);
          const rest = [...tiles]; rest.splice(rest.indexOf(tile), 1);
          for (const x of rest) remove(s, x);
          seats[s].melds.push({ type: "chi", kind: null, tiles: fmt(tiles), from_seat: from });
        } else if (a.type === "peng") {
          remove(s, tile, 2);
          seats[s].melds.push({ type: "peng", kind: null, tiles: fmt([tile, tile, tile]), from_seat: from });
        } else if (a.type === "kong") {
          remove(s, tile, 3);
          seats[s].melds.push({ type: "kong", kind: "direct", tiles: fmt([tile, tile, tile, tile]), from_seat: from });
        }
        view.on_table = null; view.turn = s; view.phase = "turn";
        const act = a.type === "kong" ? t("act.kong.direct") : t(`act.${a.type}`);
        snap(t("replay.ev.claim", { who: who(s), act, tile: tileName(tile), from: who(from) }));
        break;
      }
      case "kong": {
        const m = seats[ev.seat].melds.find((x) => x.type === "peng" && parseTiles(x.tiles)[0] === ev.tile);
        if (m) { m.type = "kong"; m.kind = "added"; m.tiles = fmt([ev.tile, ev.tile, ev.tile, ev.tile]); }
        pendingAdded = null; view.on_table = null; view.phase = "turn";
        snap(t("replay.ev.kong", { who: who(ev.seat), kind: t("act.kong.added"), tile: tileName(ev.tile) }));
        break;
      }
      case "end_phase":
        view.end_phase = true;
        snap(t("replay.ev.end_phase"));
        break;
      case "win": {
        if (pendingAdded) pendingAdded = null;
        view.phase = "ended"; view.on_table = null;
        view.result = {
          outcome: "win", winner: ev.seat, win_by: ev.win_by, from_seat: ev.from, tile: ev.tile,
          deltas: ev.deltas, settlement: ev.settlement, reveal: null,
        };
        snap(t("replay.ev.win", { who: who(ev.seat) }));
        break;
      }
      case "exhausted":
        view.phase = "ended"; view.on_table = null;
        view.result = { outcome: "exhausted", winner: null, win_by: null, from_seat: null, tile: null, deltas: ev.deltas, settlement: null, reveal: null };
        snap(t("replay.ev.exhausted"));
        break;
      case "escape":
        snap(t("replay.ev.escape", { who: who(ev.seat) }));
        break;
      case "reveal":
        if (ev.hands) ev.hands.forEach((h, s) => { hands[s] = parseTiles(h); });
        if (view.result) view.result.reveal = { hands: hands.map(fmt), wall: ev.wall, salt: ev.salt };
        snap(t("replay.ev.reveal"));
        break;
      default:
        break;
    }
  }
  return frames;
}

// Tile faces drawn as SVG, made in the project: 34 faces + the back.
//
// Tiles use the engine's compact notation: 1m-9m 万 (characters), 1p-9p 筒 (dots),
// 1s-9s 条 (bamboo), 1z-7z 东 南 西 北 白 发 中.  Every face is a 60 x 80 viewBox,
// drawn with shapes.  The characters (一…九 万 东南西北中发) are SVG paths from
// glyphs.js (outlines of Noto Serif CJK SC Bold), so no tile depends on a system font.

import { GLYPHS } from "./glyphs.js";

export const SUITS = "mpsz";
export const ALL_TILES = [];
for (const s of SUITS) for (let r = 1; r <= (s === "z" ? 7 : 9); r++) ALL_TILES.push(`${r}${s}`);

/** "123m5p77z" -> ["1m","2m","3m","5p","7z","7z"] (notation only, no rules). */
export function parseTiles(text) {
  const out = [];
  if (!text) return out;
  const re = /([0-9]+)([mpsz])/g;
  let m;
  while ((m = re.exec(text)) !== null) for (const d of m[1]) out.push(`${d}${m[2]}`);
  return out;
}

/** Sort key: suit order m p s z, then rank. */
export function tileKey(t) {
  return SUITS.indexOf(t[1]) * 10 + Number(t[0]);
}

export function sortTiles(tiles) {
  return [...tiles].sort((a, b) => tileKey(a) - tileKey(b));
}

const NUMERALS = "一二三四五六七八九";
const HONOURS = ["东", "南", "西", "北", "白", "发", "中"];

const RED = "#c8102e";
const GREEN = "#0a7a3b";
const BLUE = "#14407a";
const INK = "#1b1b2f";

/** A character drawn as a path, centred on (x, y), `size` user units per em. */
function glyph(x, y, size, fill, s) {
  const k = size / 1000;
  // the ideographic em box runs from -120 to 880: its middle (380) goes to y
  return `<path transform="translate(${(x - size / 2).toFixed(2)} ${(y + 380 * k).toFixed(2)}) scale(${k.toFixed(4)} ${(-k).toFixed(4)})" ` +
    `fill="${fill}" d="${GLYPHS[s]}"/>`;
}

function dot(x, y, r, fill) {
  return `<circle cx="${x}" cy="${y}" r="${r}" fill="${fill}"/>` +
    `<circle cx="${x}" cy="${y}" r="${(r * 0.62).toFixed(1)}" fill="none" stroke="#fff" stroke-width="${(r * 0.18).toFixed(1)}"/>` +
    `<circle cx="${x}" cy="${y}" r="${(r * 0.22).toFixed(1)}" fill="#fff"/>`;
}

const DOTS = {
  2: [[30, 24, GREEN], [30, 56, BLUE]],
  3: [[15, 18, BLUE], [30, 40, RED], [45, 62, GREEN]],
  4: [[18, 24, BLUE], [42, 24, GREEN], [18, 56, GREEN], [42, 56, BLUE]],
  5: [[17, 20, BLUE], [43, 20, GREEN], [30, 40, RED], [17, 60, GREEN], [43, 60, BLUE]],
  6: [[19, 17, GREEN], [41, 17, GREEN], [19, 40, RED], [41, 40, RED], [19, 63, RED], [41, 63, RED]],
  7: [[14, 13, GREEN], [30, 21, GREEN], [46, 29, GREEN], [19, 48, RED], [41, 48, RED], [19, 67, RED], [41, 67, RED]],
  8: [[19, 13, BLUE], [41, 13, BLUE], [19, 31, BLUE], [41, 31, BLUE], [19, 49, BLUE], [41, 49, BLUE],
      [19, 67, BLUE], [41, 67, BLUE]],
  9: [[14, 17, BLUE], [30, 17, BLUE], [46, 17, BLUE], [14, 40, RED], [30, 40, RED], [46, 40, RED],
      [14, 63, GREEN], [30, 63, GREEN], [46, 63, GREEN]],
};
const DOT_R = { 2: 11, 3: 9.5, 4: 10, 5: 9, 6: 8.5, 7: 7.5, 8: 7.5, 9: 7 };

function dotsFace(n) {
  if (n === 1) {
    return `<circle cx="30" cy="40" r="21" fill="${GREEN}"/><circle cx="30" cy="40" r="16" fill="#fff"/>` +
      `<circle cx="30" cy="40" r="13" fill="${RED}"/><circle cx="30" cy="40" r="8" fill="#fff"/>` +
      `<circle cx="30" cy="40" r="5" fill="${BLUE}"/>`;
  }
  return DOTS[n].map(([x, y, c]) => dot(x, y, DOT_R[n], c)).join("");
}

function stick(x, y, h, fill) {
  const w = 7;
  return `<rect x="${x - w / 2}" y="${y}" width="${w}" height="${h}" rx="3" fill="${fill}"/>` +
    `<line x1="${x - w / 2}" y1="${y + h / 2}" x2="${x + w / 2}" y2="${y + h / 2}" stroke="#fff" stroke-width="1.4"/>` +
    `<line x1="${x}" y1="${y + 2}" x2="${x}" y2="${y + h - 2}" stroke="#fff" stroke-opacity=".45" stroke-width="1.2"/>`;
}

const STICKS = {
  // [x, y, colour]; sticks are H tall
  2: [[30, 8, GREEN], [30, 44, BLUE]],
  3: [[30, 8, GREEN], [18, 44, BLUE], [42, 44, BLUE]],
  4: [[18, 8, GREEN], [42, 8, BLUE], [18, 44, BLUE], [42, 44, GREEN]],
  5: [[15, 8, GREEN], [45, 8, BLUE], [30, 26, RED], [15, 44, BLUE], [45, 44, GREEN]],
  6: [[15, 8, GREEN], [30, 8, GREEN], [45, 8, GREEN], [15, 44, BLUE], [30, 44, BLUE], [45, 44, BLUE]],
  7: [[30, 4, RED], [15, 29, GREEN], [30, 29, GREEN], [45, 29, GREEN], [15, 54, BLUE], [30, 54, BLUE], [45, 54, BLUE]],
  8: [[12, 8, GREEN], [24, 8, GREEN], [36, 8, GREEN], [48, 8, GREEN],
      [12, 44, BLUE], [24, 44, BLUE], [36, 44, BLUE], [48, 44, BLUE]],
  9: [[15, 4, GREEN], [30, 4, RED], [45, 4, BLUE], [15, 29, GREEN], [30, 29, RED], [45, 29, BLUE],
      [15, 54, GREEN], [30, 54, RED], [45, 54, BLUE]],
};
const STICK_H = { 2: 28, 3: 28, 4: 28, 5: 28, 6: 28, 7: 22, 8: 28, 9: 22 };

function bambooFace(n) {
  if (n === 1) {
    // 幺鸡: a stylised bird
    return `<ellipse cx="30" cy="44" rx="13" ry="17" fill="${GREEN}"/>` +
      `<path d="M30 60 L18 74 M30 60 L30 76 M30 60 L42 74" stroke="${GREEN}" stroke-width="4" stroke-linecap="round"/>` +
      `<path d="M22 40 Q30 52 38 40" fill="none" stroke="#fff" stroke-width="2"/>` +
      `<circle cx="30" cy="20" r="9" fill="${RED}"/><circle cx="33" cy="18" r="2.2" fill="#fff"/>` +
      `<path d="M38 20 L46 22 L38 24 Z" fill="#d99a00"/>` +
      `<path d="M24 12 Q20 4 27 6 Q29 2 32 7" fill="${BLUE}"/>`;
  }
  return STICKS[n].map(([x, y, c]) => stick(x, y, STICK_H[n], c)).join("");
}

function face(tile) {
  const r = Number(tile[0]);
  switch (tile[1]) {
    case "m":
      return glyph(30, 23, 27, INK, NUMERALS[r - 1]) + glyph(30, 57, 30, RED, "万");
    case "p":
      return dotsFace(r);
    case "s":
      return bambooFace(r);
    case "z":
      if (r === 5) {
        return `<rect x="12" y="14" width="36" height="52" rx="3" fill="none" stroke="${BLUE}" stroke-width="3.5"/>` +
          `<rect x="18" y="20" width="24" height="40" rx="2" fill="none" stroke="${BLUE}" stroke-width="1.5"/>`;
      }
      return glyph(30, 41, 42, r === 7 ? RED : r === 6 ? GREEN : INK, HONOURS[r - 1]);
    default:
      return "";
  }
}

const cache = new Map();

/** The SVG markup of one tile face ("5m"), or of the back ("back"). */
export function tileSVG(tile) {
  let svg = cache.get(tile);
  if (svg) return svg;
  let body;
  if (tile === "back") {
    body = `<rect x="1" y="1" width="58" height="78" rx="7" fill="#1f6f54" stroke="#0d3d2d" stroke-width="2"/>` +
      `<rect x="7" y="7" width="46" height="66" rx="4" fill="none" stroke="#a7dcc4" stroke-width="1.5"/>` +
      `<path d="M30 16 L44 40 L30 64 L16 40 Z" fill="none" stroke="#a7dcc4" stroke-width="1.5"/>`;
  } else {
    body = `<rect x="1" y="1" width="58" height="78" rx="7" fill="#fdfaf1" stroke="#b9b29c" stroke-width="2"/>` +
      face(tile);
  }
  svg = `<svg viewBox="0 0 60 80" xmlns="http://www.w3.org/2000/svg" aria-hidden="true">${body}</svg>`;
  cache.set(tile, svg);
  return svg;
}

/** A tile element: <span class="tile" data-tile="5m">svg</span>. */
export function tileEl(tile, { classes = [], title = "", laizi = false } = {}) {
  const el = document.createElement("span");
  el.className = ["tile", ...classes].join(" ");
  if (laizi) el.classList.add("laizi");
  el.dataset.tile = tile;
  if (title) el.title = title;
  el.innerHTML = tileSVG(tile);
  return el;
}

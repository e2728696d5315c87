// AI 复盘 in the replay of one's own hand: GET /api/matches/{m}/hands/{n}/review reviews the
// player's seat with the expert bot (docs/server.md "Reviews"): each decision he took beside
// the bot's, and two plain marks, a discard slower than another legal one (shanten) and a win
// passed.  The server names the replay frame of each decision, so this module only shows the
// ones of the frame on screen and jumps between the frames where the bot disagreed: it
// computes nothing of the game.

import { failureText, t } from "./i18n.js";
import { actionLabel, esc } from "./table.js";

let deps = { S: null, api: null, rerender: () => {} };

/** app.js gives its state, its API helper and a redraw. */
export function initReview({ S, api, rerender }) {
  deps = { S, api, rerender };
}

async function loadReview() {
  const r = deps.S.replay;
  if (!r || r.pub || !r.id) return;
  const id = r.id;
  const [match, hand] = id.split("/");
  r.review = { loading: true, data: null, error: "" };
  deps.rerender();
  try {
    const data = await deps.api("GET", `/api/matches/${encodeURIComponent(match)}/hands/${encodeURIComponent(hand)}/review`);
    if (deps.S.replay !== r || r.id !== id) return; // another replay meanwhile
    r.review = { loading: false, data, error: "" };
  } catch (e) {
    if (deps.S.replay !== r || r.id !== id) return;
    r.review = { loading: false, data: null, error: failureText(e) };
  }
  deps.rerender();
}

/** The frames where the bot chose otherwise, in order. */
function disagreements(data) {
  return [...new Set(data.decisions.filter((d) => !d.agree).map((d) => d.frame))].sort((a, b) => a - b);
}

function jump(dir) {
  const r = deps.S.replay;
  if (!r || !r.review || !r.review.data) return;
  const frames = disagreements(r.review.data);
  const next = dir > 0 ? frames.find((f) => f > r.i) : [...frames].reverse().find((f) => f < r.i);
  if (next === undefined) return;
  r.i = next;
  deps.rerender();
}

function decisionHTML(d) {
  const marks = [];
  if (d.slower) marks.push(`<span class="review-mark" data-mark="slower">${t("review.slower", { played: d.shanten_played, best: d.shanten_best })}</span>`);
  if (d.missed_win) marks.push(`<span class="review-mark" data-mark="missed_win">${t("review.missed_win")}</span>`);
  return `<li class="review-decision ${d.agree ? "agree" : "differ"}" data-agree="${d.agree ? "1" : "0"}">` +
    `<span>${t("review.you")} ${esc(actionLabel(d.played))}</span> · <span>${t("review.bot")} ${esc(actionLabel(d.suggested))}</span> ` +
    `<b aria-label="${t(d.agree ? "review.same" : "review.differs")}">${d.agree ? "✓" : "✗"}</b>${marks.join("")}</li>`;
}

/** The review's panel under the replay bar (own replays only; a published one is anyone's). */
export function reviewHTML(r) {
  if (!r || r.pub || !r.frames) return "";
  const v = r.review;
  if (!v) return `<div class="review"><button type="button" data-review="load">${t("review.load")}</button></div>`;
  if (v.loading) return `<div class="review"><p>${t("review.loading")}</p></div>`;
  if (!v.data) return `<div class="review"><p class="error" role="alert">${esc(v.error)}</p><button type="button" data-review="load">${t("review.load")}</button></div>`;
  const s = v.data.summary;
  const here = v.data.decisions.filter((d) => d.frame === r.i);
  const differ = disagreements(v.data);
  const summary = t("review.summary", { agreed: s.agreed, n: s.decisions, slower: s.slower, missed: s.missed_wins });
  return `<div class="review" data-review-seat="${v.data.seat}"><p class="review-summary">${summary}</p>
    <div class="replay-bar"><button type="button" data-review="prev" ${differ.some((f) => f < r.i) ? "" : "disabled"}>◀ ${t("review.prev")}</button>
    <button type="button" data-review="next" ${differ.some((f) => f > r.i) ? "" : "disabled"}>${t("review.next")} ▶</button></div>
    ${here.length ? `<ul class="review-here">${here.map(decisionHTML).join("")}</ul>` : `<p class="muted">${t("review.none_here")}</p>`}</div>`;
}

document.addEventListener("click", (ev) => {
  const el = ev.target.closest && ev.target.closest("[data-review]");
  if (!el) return;
  ev.preventDefault();
  const what = el.dataset.review;
  if (what === "load") loadReview();
  else if (what === "next") jump(1);
  else if (what === "prev") jump(-1);
});

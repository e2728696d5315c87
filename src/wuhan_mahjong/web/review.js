// AI 复盘 in a replay: GET /api/matches/{m}/hands/{n}/review reviews a seat of one's own hand
// (one's own seat first), GET /api/public/hands/{m}/{n}/review?seat=N a seat of a published
// hand, with the expert bot (docs/server.md): each decision taken beside the bot's, two
// plain marks (a discard slower than another legal one, a win passed) and each discard's
// 进张 (tile acceptance).  The server counts all of it and names the replay frame of each
// decision, so this module only shows the ones of the frame on screen and jumps between the
// frames where the bot disagreed: it computes nothing of the game.

import { failureText, seatName, t } from "./i18n.js";
import { actionLabel, esc } from "./table.js";

let deps = { S: null, api: null, rerender: () => {} };

/** app.js gives its state, its API helper and a redraw. */
export function initReview({ S, api, rerender }) {
  deps = { S, api, rerender };
}

async function loadReview(seat) {
  const r = deps.S.replay;
  if (!r || !r.id || (r.pub && seat === null)) return;
  const id = r.id;
  const [match, hand] = id.split("/").map(encodeURIComponent);
  const query = seat === null ? "" : `?seat=${seat}`;
  const path = r.pub ? `/api/public/hands/${match}/${hand}/review${query}` : `/api/matches/${match}/hands/${hand}/review${query}`;
  r.review = { loading: true, data: null, error: "" };
  deps.rerender();
  try {
    const data = await deps.api("GET", path);
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
  // 进张: the unseen tiles that bring the hand a step closer after a discard (the server counts)
  const accept = (n) => (n === null || n === undefined ? "" : ` <small data-accept="${n}">${t("review.accept", { n })}</small>`);
  return `<li class="review-decision ${d.agree ? "agree" : "differ"}" data-agree="${d.agree ? "1" : "0"}">` +
    `<span>${t("review.you")} ${esc(actionLabel(d.played))}${accept(d.accept_played)}</span> · <span>${t("review.bot")} ${esc(actionLabel(d.suggested))}${accept(d.accept_suggested)}</span> ` +
    `<b aria-label="${t(d.agree ? "review.same" : "review.differs")}">${d.agree ? "✓" : "✗"}</b>${marks.join("")}</li>`;
}

/** The seats' buttons: review this seat (the one on screen disabled). */
function seatButtons(current) {
  return `<div class="replay-bar review-seats"><span>${t("review.seat")}</span>${[0, 1, 2, 3].map((s) =>
    `<button type="button" data-review="load" data-seat="${s}" ${s === current ? "disabled" : ""}>${esc(seatName(s))}</button>`).join("")}</div>`;
}

/** The review's panel under the replay bar: one's own seat first in one's own replay, a
 * seat to choose in a published one. */
export function reviewHTML(r) {
  if (!r || !r.frames) return "";
  const v = r.review;
  const first = r.pub ? `<p>${t("review.load")}</p>${seatButtons(null)}` : `<button type="button" data-review="load">${t("review.load")}</button>`;
  if (!v) return `<div class="review">${first}</div>`;
  if (v.loading) return `<div class="review"><p>${t("review.loading")}</p></div>`;
  if (!v.data) return `<div class="review"><p class="error" role="alert">${esc(v.error)}</p>${first}</div>`;
  const s = v.data.summary;
  const here = v.data.decisions.filter((d) => d.frame === r.i);
  const differ = disagreements(v.data);
  const summary = t("review.summary", { agreed: s.agreed, n: s.decisions, slower: s.slower, missed: s.missed_wins });
  return `<div class="review" data-review-seat="${v.data.seat}"><p class="review-summary">${summary}</p>
    <div class="replay-bar"><button type="button" data-review="prev" ${differ.some((f) => f < r.i) ? "" : "disabled"}>◀ ${t("review.prev")}</button>
    <button type="button" data-review="next" ${differ.some((f) => f > r.i) ? "" : "disabled"}>${t("review.next")} ▶</button></div>
    ${here.length ? `<ul class="review-here">${here.map(decisionHTML).join("")}</ul>` : `<p class="muted">${t("review.none_here", { seat: esc(seatName(v.data.seat)) })}</p>`}
    ${seatButtons(v.data.seat)}</div>`;
}

document.addEventListener("click", (ev) => {
  const el = ev.target.closest && ev.target.closest("[data-review]");
  if (!el) return;
  ev.preventDefault();
  const what = el.dataset.review;
  if (what === "load") loadReview(el.dataset.seat === undefined ? null : Number(el.dataset.seat));
  else if (what === "next") jump(1);
  else if (what === "prev") jump(-1);
});

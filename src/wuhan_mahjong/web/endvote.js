// Ending a match early by agreement (申请解散, docs/protocol.md `propose_end`, `end_vote`):
// a player at the table asks; everyone else seated (not the bots) agrees or refuses within
// the time the server gives; who has not answered by then agrees.  When it passes, the match
// ends after the hand in progress (between hands: after the pause); no penalty, nothing lost.
//
// The table's tools have the button that asks (not at a tournament's table); while a
// request is open, a panel over the table says who asked, who still has to answer and how
// long is left, with 同意 / 拒绝 for a player who has not answered.  Its outcome stays as one
// line under the table until the next request or the next match.

import { seatName, t } from "./i18n.js";
import { esc } from "./table.js";

let vote = null; // the open request: the end_vote frame and the time (ms) its answers end
let outcome = ""; // the last request's outcome, as a line for the table
let passed = false; // this match ends after the hand in progress: nothing more to ask
let askedIn = null; // the hand in which this seat asked: each seat asks at most once a hand
let ticker = null;

function nameOf(players, seat) {
  const p = (players || []).find((x) => x.seat === seat);
  return esc(p && p.name ? p.name : seatName(seat));
}

/** An `end_vote` frame arrived; `players` are the table's (for the names), `mySeat` this
 * player's seat and `handNo` the hand on screen (the server lets a seat ask once a hand).
 * Returns the request's outcome as a line when this frame decided it, else nothing. */
export function onEndVote(msg, players, mySeat = null, handNo = null) {
  if (msg.proposer === mySeat && mySeat !== null && handNo !== null) askedIn = handNo;
  if (msg.result === "open") {
    vote = { ...msg, until: Date.now() + msg.seconds * 1000 };
    outcome = "";
    tick();
    return;
  }
  vote = null;
  if (msg.result === "closed") return; // the match ended first: its summary follows
  if (msg.result === "passed") { outcome = t("endvote.passed", { n: msg.hands }); passed = true; }
  else if (msg.refused === msg.proposer) outcome = t("endvote.withdrawn", { name: nameOf(players, msg.proposer) });
  else outcome = t("endvote.refused", { name: nameOf(players, msg.refused) });
  return outcome;
}

/** A new table (or none): no request is open there. */
export function resetEndVote() {
  vote = null;
  outcome = "";
  passed = false;
  askedIn = null;
}

/** A `table` frame of the same match: the server sends one at every (re)connection and
 * resends a request still open right after it, so a request drawn now may have closed
 * while this connection was down (its outcome was never received): forget it. */
export function forgetOpenVote() {
  vote = null;
}

/** Whether a request is open at the table. */
export function endVoteOpen() {
  return vote !== null;
}

function secondsLeft() {
  return vote ? Math.max(0, Math.ceil((vote.until - Date.now()) / 1000)) : 0;
}

function tick() {
  clearInterval(ticker);
  ticker = setInterval(() => {
    const el = document.querySelector("[data-end-vote-seconds]");
    if (!vote) { clearInterval(ticker); return; }
    if (el) el.textContent = String(secondsLeft());
  }, 500);
}

/** The table tools' button that asks (none at a tournament's table, while a request is
 * open, once one passed, in the match's last hand: it ends after it anyway, nor again in
 * the hand this seat asked in: the server would refuse, `cannot_end` `ending` or `asked`).
 * `view` is the seat view on screen. */
export function endVoteButtonHTML(table, view) {
  if (!table || table.tournament || vote || passed) return "";
  const total = table.hands_now || table.hands; // hands_now: set to end early (a reload after it passed)
  if (view && typeof view.hand_no === "number" && (view.hand_no >= total - 1 || view.hand_no === askedIn)) return "";
  return `<button data-do="propose-end">${t("endvote.ask")}</button>`;
}

/** The open request's panel and the last outcome, for the table screen; `table` is the
 * table frame (after a reload, its `hands_now` says that the match ends early). */
export function endVoteHTML(mySeat, players, table = null) {
  const ending = !outcome && table && table.hands_now ? t("endvote.ending", { n: table.hands_now }) : "";
  if (!vote) return outcome || ending ? `<p class="end-vote-outcome" role="status">${outcome || ending}</p>` : "";
  const waiting = vote.voters.filter((s) => !vote.agreed.includes(s));
  const mine = mySeat !== null && waiting.includes(mySeat);
  const asker = vote.proposer === mySeat ? t("endvote.you_asked") : t("endvote.asked", { name: nameOf(players, vote.proposer) });
  const names = waiting.map((s) => nameOf(players, s)).join("、");
  return `<div class="end-vote card" role="alertdialog" aria-label="${t("endvote.title")}" data-end-vote="open">
    <p><b>${t("endvote.title")}</b> ${asker}</p>
    <p class="muted">${t("endvote.waiting", { names })} · ${t("endvote.seconds_left")} <span data-end-vote-seconds>${secondsLeft()}</span>s</p>
    ${mine ? `<div class="form-row"><button class="primary" data-do="end-yes">${t("endvote.agree")}</button><button data-do="end-no">${t("endvote.refuse")}</button></div>` : ""}
  </div>`;
}

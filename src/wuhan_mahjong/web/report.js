// Reporting a player (举报, POST /api/reports; docs/server.md): after a match, any other
// player of it for collusion (通牌), cheating, stalling (挂机) or escaping, by the match and
// his seat; on a player's public page, his name.  Nothing of a report is shown to anyone but
// the operators; the reporter sees that it was sent, and on his profile (*我的举报*, GET
// /api/reports) whether an operator has dealt with it.

import { failureText, getLang, t } from "./i18n.js";
import { esc } from "./table.js";

export const TABLE_REASONS = ["collusion", "cheating", "stalling", "escaping"];

let deps = { S: null, api: null, rerender: () => {} };

/** app.js gives its state, its API helper and a redraw. */
export function initReport({ S, api, rerender }) {
  deps = { S, api, rerender };
  S.reports = {}; // key -> {sent: bool, error: string}
  S.reportOpen = new Set(); // the report forms the player opened: a redraw keeps them open
  S.myReports = null; // the profile's list (GET /api/reports)
}

/** The reports this player filed, for his profile. */
export async function loadMyReports() {
  try {
    deps.S.myReports = (await deps.api("GET", "/api/reports")).reports;
  } catch {
    deps.S.myReports = null; // the card is left out; the rest of the profile stands
  }
  if (deps.S.screen === "profile") deps.rerender();
}

/** The profile's card of one's reports and their state (nothing when there are none). */
export function myReportsHTML() {
  const list = deps.S.myReports;
  if (!list || !list.length) return "";
  const when = (iso) => { const d = new Date(iso); return Number.isNaN(d.getTime()) ? "" : d.toLocaleDateString(getLang() === "en" ? "en" : "zh-CN"); }; // the page's language
  return `<div class="card my-reports"><h3>${t("report.mine")}</h3><ul class="following-list">${list.map((r) =>
    `<li data-report-id="${r.id}" data-status="${esc(r.status)}">${when(r.created_at)} · ${esc(r.reported)} · ${t(`report.reason.${r.reason}`)} · ` +
    `${r.status === "closed" ? t("report.closed", { when: when(r.closed_at) }) : t("report.pending")}</li>`).join("")}</ul></div>`;
}

function statusHTML(key) {
  const st = deps.S.reports[key];
  if (!st) return "";
  return st.sent ? `<span class="ok" role="status" data-report-sent="1">${t("report.sent")}</span>`
    : `<span class="error" role="alert">${esc(st.error)}</span>`;
}

/** The report control of one seat of a finished match. */
export function reportSeatHTML(matchId, seat) {
  const key = `${matchId}/${seat}`;
  const st = deps.S.reports[key];
  if (st && st.sent) return statusHTML(key);
  const options = TABLE_REASONS.map((r) => `<option value="${r}">${t(`report.reason.${r}`)}</option>`).join("");
  return `<details class="report" data-report-key="${esc(key)}"${deps.S.reportOpen.has(key) ? " open" : ""}><summary>${t("report.open")}</summary>
    <form data-report="${esc(key)}" data-match="${esc(matchId)}" data-seat="${seat}">
    <label>${t("report.reason")} <select name="reason">${options}</select></label>
    <button type="submit" class="danger">${t("report.submit")}</button></form>${statusHTML(key)}</details>`;
}

/** The name report of a player's public page. */
export function reportNameHTML(username) {
  const key = `name/${username}`;
  const st = deps.S.reports[key];
  if (st && st.sent) return statusHTML(key);
  return `<details class="report" data-report-key="${esc(key)}"${deps.S.reportOpen.has(key) ? " open" : ""}><summary>${t("report.name")}</summary>
    <form data-report="${esc(key)}" data-username="${esc(username)}"><input type="hidden" name="reason" value="name">
    <p class="muted">${t("report.name_about")}</p><button type="submit" class="danger">${t("report.submit")}</button></form>${statusHTML(key)}</details>`;
}

async function send(form) {
  const key = form.dataset.report;
  const body = { reason: form.reason.value };
  if (form.dataset.username) body.username = form.dataset.username;
  else { body.match_id = form.dataset.match; body.seat = Number(form.dataset.seat); }
  try {
    await deps.api("POST", "/api/reports", body);
    deps.S.reports[key] = { sent: true, error: "" };
  } catch (e) {
    deps.S.reports[key] = { sent: false, error: e.status === 429 ? t("report.too_many") : failureText(e) };
  }
  deps.rerender();
}

document.addEventListener("submit", (ev) => {
  const form = ev.target.closest && ev.target.closest("form[data-report]");
  if (!form) return;
  ev.preventDefault();
  send(form);
});

// a form the player opened stays open through the page's redraws (another answer arriving)
document.addEventListener("toggle", (ev) => {
  const el = ev.target;
  if (!(el instanceof HTMLElement) || !el.dataset || el.dataset.reportKey === undefined) return;
  if (el.open) deps.S.reportOpen.add(el.dataset.reportKey); else deps.S.reportOpen.delete(el.dataset.reportKey);
}, true);

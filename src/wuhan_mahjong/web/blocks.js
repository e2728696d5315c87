// Blocking players (屏蔽, /api/blocks; docs/server.md): on a player's public page *屏蔽* blocks
// him (the server ends every follow between the two and refuses new ones, so neither can
// invite the other) and *取消屏蔽* lifts it; the profile lists the players one blocks.  At a
// table, the quick chat of a blocked player is not shown (isBlocked, asked by app.js with the
// per-table mute).

import { failureText, t } from "./i18n.js";
import { esc } from "./table.js";

let deps = { S: null, api: null, rerender: () => {} };

/** app.js gives its state, its API helper and a redraw. */
export function initBlocks({ S, api, rerender }) {
  deps = { S, api, rerender };
  S.blocks = { names: new Set(), loaded: false, error: "" };
}

/** The list of the players this account blocks, asked once per connection (a guest has
 * no public page to block anyone from, but may be asked: the answer is empty). */
export async function loadBlocks() {
  const B = deps.S.blocks;
  try {
    const data = await deps.api("GET", "/api/blocks");
    B.names = new Set(data.players);
    B.loaded = true; B.error = "";
  } catch (e) {
    B.error = failureText(e);
  }
  if (["profile", "player"].includes(deps.S.screen)) deps.rerender();
}

/** Whether the player of this name is blocked (his quick chat is not shown). */
export function isBlocked(name) {
  return deps.S.blocks.names.has(name);
}

/** The block button of a player's public page. */
export function blockButtonHTML(name) {
  const on = isBlocked(name);
  return `<button type="button" data-block="${esc(name)}" data-on="${on ? "0" : "1"}" aria-pressed="${on}">${t(on ? "block.off" : "block.on")}</button>` +
    (deps.S.blocks.error ? `<span class="error" role="alert">${esc(deps.S.blocks.error)}</span>` : "");
}

/** The profile's card of blocked players, each with *取消屏蔽*. */
export function blockedCardHTML() {
  const names = [...deps.S.blocks.names].sort();
  if (!names.length) return "";
  return `<div class="card blocked-card"><h3>${t("block.title")}</h3><ul class="following-list">${names.map((n) =>
    `<li data-blocked="${esc(n)}">${esc(n)} <button type="button" data-block="${esc(n)}" data-on="0">${t("block.off")}</button></li>`).join("")}</ul></div>`;
}

async function setBlock(name, on) {
  const B = deps.S.blocks;
  if (on && !window.confirm(t("block.confirm", { name }))) return;
  try {
    const data = await deps.api(on ? "POST" : "DELETE", `/api/blocks/${encodeURIComponent(name)}`);
    if (data.blocked) B.names.add(data.username); else B.names.delete(data.username);
    B.error = "";
    const P = deps.S.player; // the page's follow button: the block ended the follow
    if (on && P && P.data && P.data.username === data.username) P.data.followed = false;
  } catch (e) {
    B.error = failureText(e);
  }
  deps.rerender();
}

document.addEventListener("click", (ev) => {
  const el = ev.target.closest && ev.target.closest("[data-block]");
  if (!el) return;
  ev.preventDefault();
  setBlock(el.dataset.block, el.dataset.on === "1");
});

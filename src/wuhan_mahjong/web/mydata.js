// Downloading one's own data (数据导出, the right of access and portability; docs/server.md):
// everything the platform holds about the account as a JSON file (GET /api/account/export),
// and every hand one sat at as a record file that `wuhan-mahjong verify` checks
// (GET /api/account/export/records.jsonl).  The token goes in a header, so the file is
// fetched here and handed to the browser to save.

import { failureText, t } from "./i18n.js";
import { esc } from "./table.js";

const FILES = {
  account: { path: "/api/account/export", name: "wuhan-mahjong-account.json" },
  hands: { path: "/api/account/export/records.jsonl", name: "wuhan-mahjong-hands.jsonl" },
};

let deps = { S: null, rerender: () => {} };

/** app.js gives its state (the token) and a redraw. */
export function initMyData({ S, rerender }) {
  deps = { S, rerender };
  S.myData = { busy: null, error: "" };
}

/** The account card's part: two downloads. */
export function myDataHTML() {
  const M = deps.S.myData;
  const button = (kind) => `<button type="button" data-mydata="${kind}" ${M.busy ? "disabled" : ""}>${t(`mydata.${kind}`)}</button>`;
  return `<h4>${t("mydata.title")}</h4><p class="muted">${t("mydata.about")}</p>
    <div class="form-row">${button("account")}${button("hands")}</div>
    ${M.busy ? `<p role="status">${t("mydata.busy")}</p>` : ""}${M.error ? `<p class="error" role="alert">${esc(M.error)}</p>` : ""}`;
}

async function download(kind) {
  const M = deps.S.myData;
  const file = FILES[kind];
  if (!file || M.busy) return;
  M.busy = kind; M.error = "";
  deps.rerender();
  try {
    let res;
    try {
      res = await fetch(file.path, { headers: { Authorization: `Bearer ${deps.S.token}` } });
    } catch {
      throw Object.assign(new Error("network"), { code: "network", params: {} });
    }
    if (!res.ok) {
      let e = null;
      try { e = (await res.json()).error; } catch { /* not JSON */ }
      throw Object.assign(new Error(e ? e.code : "http"), { code: e ? e.code : "http", params: e ? e.params : { status: res.status }, status: res.status });
    }
    const blob = await res.blob();
    const url = URL.createObjectURL(blob);
    const link = document.createElement("a");
    link.href = url; link.download = file.name; link.dataset.downloaded = kind;
    document.body.appendChild(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
  } catch (e) {
    M.error = e.status === 429 ? t("mydata.too_many") : failureText(e);
  }
  M.busy = null;
  deps.rerender();
}

document.addEventListener("click", (ev) => {
  const el = ev.target.closest && ev.target.closest("[data-mydata]");
  if (!el) return;
  ev.preventDefault();
  download(el.dataset.mydata);
});

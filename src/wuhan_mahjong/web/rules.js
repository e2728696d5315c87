// The rules page (#/rules?profile=NAME), drawn from GET /api/rules: the server builds that
// document from the rules module (every option, each profile's value, the explanations in
// both languages), so the page shows the rules the server plays and cannot drift from them.

import { getLang, t, tileName } from "./i18n.js";
import { esc, renderSettlement, tileHTML } from "./table.js";
import { parseTiles } from "./tiles.js";

/** An option's value in the player's language (value names from the server). */
export function formatValue(option, value) {
  const zh = getLang() === "zh";
  const names = option.value_labels || {};
  const one = (v) => {
    if (names[String(v)]) return names[String(v)][zh ? 0 : 1];
    if (typeof v === "boolean") return t(v ? "rules.yes" : "rules.no");
    if (typeof v === "string" && /^[1-9][mpsz]$/.test(v)) return tileName(v);
    return String(v);
  };
  return Array.isArray(value) ? value.map(one).join(zh ? "、" : ", ") : one(value);
}

/** The settlement's factors: what each one means and the option that sets it in this profile
 * (at `valueOf(option)`: the profile's value, or a table's own). */
function factorsHTML(doc, profile, current, valueOf = (o) => o.values[profile]) {
  const zh = getLang() === "zh";
  const rows = (doc.factors || []).map((f) => {
    const o = f.option && doc.options.find((x) => x.name === f.option);
    const set = o ? `<button type="button" class="linklike" data-rule-link="${esc(o.name)}">${esc(zh ? o.label_zh : o.label_en)}</button>: ${esc(formatValue(o, valueOf(o)))}` : "";
    return `<tr id="factor-${esc(f.id)}" data-factor="${esc(f.id)}"${f.id === current ? ` class="current"` : ""}>` +
      `<th>${esc(zh ? f.label_zh : f.label_en)}</th><td class="rule-doc">${esc(zh ? f.doc_zh : f.doc_en)}</td><td>${set}</td></tr>`;
  }).join("");
  return rows ? `<h3>${t("rules.factors")}</h3><div class="scroll-x"><table class="rules-table factors-table"><tbody>${rows}</tbody></table></div>` : "";
}

/** Worked examples: one record each, settled by the server's scoring module under this profile. */
function examplesHTML(doc, profile) {
  const zh = getLang() === "zh";
  return (doc.examples || []).map((ex) => {
    const rec = ex.record;
    const me = rec.seats[rec.winner];
    const hand = parseTiles(me.hand).map((x) => tileHTML(x)).join("");
    const melds = (me.melds || []).map((m) => `<span class="group">${parseTiles(m.tiles).map((x) => tileHTML(x)).join("")}</span>`).join("");
    const r = ex.results[profile];
    let body;
    if (r && r.settled) {
      const st = r.settlement;
      const view = {
        profile, viewer: null, dealer: rec.dealer, laizi: st.laizi, indicator: st.indicator,
        result: { outcome: "win", winner: rec.winner, win_by: rec.win_by, from_seat: rec.from ?? null,
          tile: rec.winning_tile, deltas: st.deltas, settlement: st, reveal: null },
      };
      body = renderSettlement(view, { names: null });
    } else {
      body = `<p class="refused" title="${esc((r && r.reason) || "")}">${t("rules.example_refused")}</p>`;
    }
    return `<div class="example card" data-example="${esc(ex.id)}"><h4>${esc(zh ? ex.title_zh : ex.title_en)}</h4>` +
      `<div class="example-hand">${hand} <span class="plus">+</span> ${tileHTML(rec.winning_tile)} ${melds ? `<span class="example-melds">${melds}</span>` : ""}</div>` +
      `<p class="muted">${t("rules.example_indicator", { tile: esc(tileName(rec.indicator)) })}</p>${body}</div>`;
  }).join("");
}

export function renderRules(doc, profile, factor = null) {
  const zh = getLang() === "zh";
  const p = doc.profiles.find((x) => x.name === profile) || doc.profiles[0];
  const base = doc.default_profile;
  const tabs = doc.profiles.map((x) => `<a class="tab" href="#/rules?profile=${esc(x.name)}" data-rules-profile="${esc(x.name)}" ${x.name === p.name ? `aria-current="page"` : ""}>${esc(zh ? x.label_zh : x.label_en)}</a>`).join("");
  const rows = optionRowsHTML(doc, (o) => o.values[p.name],
    (o) => p.name !== base && JSON.stringify(o.values[p.name]) !== JSON.stringify(o.values[base]));
  return `<div class="screen rules-page" data-profile="${esc(p.name)}"><div class="card"><h2>${t("rules.title")}</h2>
    <nav class="tabs" aria-label="${t("opt.profile")}">${tabs}</nav>
    <p class="profile-doc">${esc(zh ? p.doc_zh : p.doc_en)}</p>
    ${p.name !== base ? `<p class="muted">${t("rules.differs", { base: esc(doc.profiles.find((x) => x.name === base)[zh ? "label_zh" : "label_en"]) })}</p>` : ""}
    <div class="scroll-x"><table class="rules-table"><thead><tr><th>${t("rules.option")}</th><th>${t("rules.value")}</th><th>${t("rules.meaning")}</th></tr></thead>
    <tbody>${rows}</tbody></table></div>${factorsHTML(doc, p.name, factor)}</div>
    ${(doc.examples || []).length ? `<div class="card"><h3>${t("rules.examples")}</h3>${examplesHTML(doc, p.name)}</div>` : ""}</div>`;
}

/** One row per rule option: its name, `valueOf(option)` and what it means; `differs(option)`
 * marks the row (a value other than the default profile's, or than the table's profile's). */
function optionRowsHTML(doc, valueOf, differs) {
  const zh = getLang() === "zh";
  return doc.options.map((o) => `<tr id="rule-${esc(o.name)}" data-rule="${esc(o.name)}"${differs(o) ? ` class="differs"` : ""}>` +
    `<th>${esc(zh ? o.label_zh : o.label_en)}</th><td class="rule-value">${esc(formatValue(o, valueOf(o)))}</td>` +
    `<td class="rule-doc">${esc(zh ? o.doc_zh : o.doc_en)}</td></tr>`).join("");
}

/** Every rule of a table as it plays them (its own values; `overrides`, the options that
 * differ from its profile, marked), what each means, and the settlement's factors: read at
 * the table, where the rules page (another screen) would be an escape during a hand.
 * Nothing in it leaves the table. */
export function tableRulesHTML(doc, table, overrides) {
  const own = table.rules || {};
  const valueOf = (o) => (own[o.name] !== undefined ? own[o.name] : o.values[table.profile]);
  const rows = optionRowsHTML(doc, valueOf, (o) => o.name in overrides);
  return `<div class="table-rules" data-table-rules="${esc(table.profile)}"><div class="scroll-x"><table class="rules-table">` +
    `<thead><tr><th>${t("rules.option")}</th><th>${t("rules.value")}</th><th>${t("rules.meaning")}</th></tr></thead>` +
    `<tbody>${rows}</tbody></table></div>${factorsHTML(doc, table.profile, null, valueOf)}</div>`;
}

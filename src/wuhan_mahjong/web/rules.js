// The rules page (#/rules?profile=NAME), drawn from GET /api/rules: the server builds that
// document from the rules module (every option, each profile's value, the explanations in
// both languages), so the page shows the rules the server plays and cannot drift from them.

import { getLang, t, tileName } from "./i18n.js";
import { esc } from "./table.js";

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

/** The settlement's factors: what each one means and the option that sets it in this profile. */
function factorsHTML(doc, profile, current) {
  const zh = getLang() === "zh";
  const rows = (doc.factors || []).map((f) => {
    const o = f.option && doc.options.find((x) => x.name === f.option);
    const set = o ? `<button type="button" class="linklike" data-rule-link="${esc(o.name)}">${esc(zh ? o.label_zh : o.label_en)}</button>: ${esc(formatValue(o, o.values[profile]))}` : "";
    return `<tr id="factor-${esc(f.id)}" data-factor="${esc(f.id)}"${f.id === current ? ` class="current"` : ""}>` +
      `<th>${esc(zh ? f.label_zh : f.label_en)}</th><td class="rule-doc">${esc(zh ? f.doc_zh : f.doc_en)}</td><td>${set}</td></tr>`;
  }).join("");
  return rows ? `<h3>${t("rules.factors")}</h3><div class="scroll-x"><table class="rules-table factors-table"><tbody>${rows}</tbody></table></div>` : "";
}

export function renderRules(doc, profile, factor = null) {
  const zh = getLang() === "zh";
  const p = doc.profiles.find((x) => x.name === profile) || doc.profiles[0];
  const base = doc.default_profile;
  const tabs = doc.profiles.map((x) => `<a class="tab" href="#/rules?profile=${esc(x.name)}" data-rules-profile="${esc(x.name)}" ${x.name === p.name ? `aria-current="page"` : ""}>${esc(zh ? x.label_zh : x.label_en)}</a>`).join("");
  const rows = doc.options.map((o) => {
    const v = o.values[p.name];
    const differs = p.name !== base && JSON.stringify(v) !== JSON.stringify(o.values[base]);
    return `<tr id="rule-${esc(o.name)}" data-rule="${esc(o.name)}"${differs ? ` class="differs"` : ""}>` +
      `<th>${esc(zh ? o.label_zh : o.label_en)}</th><td class="rule-value">${esc(formatValue(o, v))}</td>` +
      `<td class="rule-doc">${esc(zh ? o.doc_zh : o.doc_en)}</td></tr>`;
  }).join("");
  return `<div class="screen rules-page" data-profile="${esc(p.name)}"><div class="card"><h2>${t("rules.title")}</h2>
    <nav class="tabs" aria-label="${t("opt.profile")}">${tabs}</nav>
    <p class="profile-doc">${esc(zh ? p.doc_zh : p.doc_en)}</p>
    ${p.name !== base ? `<p class="muted">${t("rules.differs", { base: esc(doc.profiles.find((x) => x.name === base)[zh ? "label_zh" : "label_en"]) })}</p>` : ""}
    <div class="scroll-x"><table class="rules-table"><thead><tr><th>${t("rules.option")}</th><th>${t("rules.value")}</th><th>${t("rules.meaning")}</th></tr></thead>
    <tbody>${rows}</tbody></table></div>${factorsHTML(doc, p.name, factor)}</div></div>`;
}

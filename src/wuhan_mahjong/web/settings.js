// The player's settings on this device (localStorage "wm.settings"): sound on or off,
// animation speed, tile size.  The language is kept by i18n.js ("wm.lang").
// apply() puts them on <html> as data attributes, which style.css reads.

export const CHOICES = {
  speed: ["off", "slow", "normal", "fast"],
  tiles: ["small", "normal", "large"],
};

const DEFAULTS = { sound: true, speed: "normal", tiles: "normal" };

function load() {
  try {
    const saved = JSON.parse(globalThis.localStorage.getItem("wm.settings") || "{}");
    const out = { ...DEFAULTS };
    if (typeof saved.sound === "boolean") out.sound = saved.sound;
    for (const k of Object.keys(CHOICES)) if (CHOICES[k].includes(saved[k])) out[k] = saved[k];
    return out;
  } catch {
    return { ...DEFAULTS };
  }
}

export const settings = load();

export function apply() {
  const root = globalThis.document && document.documentElement;
  if (!root) return;
  root.dataset.speed = settings.speed;
  root.dataset.tiles = settings.tiles;
  root.dataset.sound = settings.sound ? "on" : "off";
}

export function update(changes) {
  for (const [k, v] of Object.entries(changes)) {
    if (k === "sound") settings.sound = !!v;
    else if (CHOICES[k] && CHOICES[k].includes(v)) settings[k] = v;
  }
  try { localStorage.setItem("wm.settings", JSON.stringify(settings)); } catch { /* storage may be off */ }
  apply();
}

// The player's settings on this device (localStorage "wm.settings"): sound on or off,
// animation speed, tile size, and the table's two conveniences the apps have: 自动胡 (a
// win offered is declared at once) and 自动过 (a chi, peng or kong offered on another's
// discard is passed at once; never a win).  Both only pick among the legal actions the
// server sent; both are off unless the player turns them on.  The language is kept by
// i18n.js ("wm.lang").
// apply() puts them on <html> as data attributes, which style.css reads.

export const CHOICES = {
  speed: ["off", "slow", "normal", "fast"],
  tiles: ["small", "normal", "large"],
};

/** The on/off settings (checkboxes). */
export const SWITCHES = ["sound", "autowin", "autopass"];

const DEFAULTS = { sound: true, autowin: false, autopass: false, speed: "normal", tiles: "normal" };

function load() {
  try {
    const saved = JSON.parse(globalThis.localStorage.getItem("wm.settings") || "{}");
    const out = { ...DEFAULTS };
    for (const k of SWITCHES) if (typeof saved[k] === "boolean") out[k] = saved[k];
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
    if (SWITCHES.includes(k)) settings[k] = !!v;
    else if (CHOICES[k] && CHOICES[k].includes(v)) settings[k] = v;
  }
  try { localStorage.setItem("wm.settings", JSON.stringify(settings)); } catch { /* storage may be off */ }
  apply();
}

// Table sounds, synthesised with the Web Audio API: no sound files (made in the project,
// under the project's licence).  play(name) does nothing while muted or before the
// browser allows audio (the first click or key unlocks it).
//
// Names: draw, discard, chi, peng, kong, win, tick (the last seconds of a countdown), chat.
// Every call is recorded in window.__sounds (name and whether it was audible) for tests.

import { settings } from "./settings.js";

let ctx = null;

function audio() {
  if (ctx) return ctx;
  const AC = globalThis.AudioContext || globalThis.webkitAudioContext;
  if (!AC) return null;
  try { ctx = new AC(); } catch { ctx = null; }
  return ctx;
}

/** Called on the first user gesture: browsers start audio only after one. */
export function unlock() {
  const c = audio();
  if (c && c.state === "suspended") c.resume().catch(() => {});
}

function tone(c, { freq, to = freq, type = "sine", start = 0, dur = 0.12, gain = 0.25 }) {
  const t0 = c.currentTime + start;
  const osc = c.createOscillator();
  const g = c.createGain();
  osc.type = type;
  osc.frequency.setValueAtTime(freq, t0);
  if (to !== freq) osc.frequency.exponentialRampToValueAtTime(to, t0 + dur);
  g.gain.setValueAtTime(0.0001, t0);
  g.gain.exponentialRampToValueAtTime(gain, t0 + 0.008);
  g.gain.exponentialRampToValueAtTime(0.0001, t0 + dur);
  osc.connect(g).connect(c.destination);
  osc.start(t0);
  osc.stop(t0 + dur + 0.02);
}

function knock(c, { start = 0, dur = 0.07, gain = 0.5, freq = 1800 }) {
  // a tile on the table: a short band-passed noise burst
  const t0 = c.currentTime + start;
  const n = Math.max(1, Math.floor(c.sampleRate * dur));
  const buf = c.createBuffer(1, n, c.sampleRate);
  const data = buf.getChannelData(0);
  for (let i = 0; i < n; i++) data[i] = (Math.random() * 2 - 1) * (1 - i / n) ** 3;
  const src = c.createBufferSource();
  src.buffer = buf;
  const bp = c.createBiquadFilter();
  bp.type = "bandpass"; bp.frequency.value = freq; bp.Q.value = 1.4;
  const g = c.createGain();
  g.gain.value = gain;
  src.connect(bp).connect(g).connect(c.destination);
  src.start(t0);
}

const VOICES = {
  draw: (c) => knock(c, { freq: 2600, gain: 0.25, dur: 0.05 }),
  discard: (c) => { knock(c, { freq: 1500, gain: 0.6 }); tone(c, { freq: 180, to: 120, dur: 0.08, gain: 0.15 }); },
  chi: (c) => { tone(c, { freq: 520, dur: 0.1 }); tone(c, { freq: 660, start: 0.08, dur: 0.12 }); },
  peng: (c) => { tone(c, { freq: 392, type: "triangle", dur: 0.12, gain: 0.3 }); tone(c, { freq: 587, type: "triangle", start: 0.09, dur: 0.16, gain: 0.3 }); },
  kong: (c) => { for (let i = 0; i < 3; i++) knock(c, { start: i * 0.07, freq: 1200 + i * 300, gain: 0.5 }); tone(c, { freq: 294, type: "square", start: 0.2, dur: 0.2, gain: 0.12 }); },
  win: (c) => { [523, 659, 784, 1047].forEach((f, i) => tone(c, { freq: f, type: "triangle", start: i * 0.11, dur: 0.3, gain: 0.28 })); },
  tick: (c) => tone(c, { freq: 1320, type: "square", dur: 0.05, gain: 0.08 }),
  chat: (c) => tone(c, { freq: 880, to: 1180, dur: 0.09, gain: 0.1 }),
};

export const SOUND_NAMES = Object.keys(VOICES);

export function play(name) {
  const audible = settings.sound && !!VOICES[name];
  (globalThis.__sounds = globalThis.__sounds || []).push({ name, audible });
  if (!audible) return;
  const c = audio();
  if (!c || c.state !== "running") return;
  try { VOICES[name](c); } catch { /* audio is best effort */ }
}

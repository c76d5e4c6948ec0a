// Sound, off until the player turns it on (Settings): a card laid, a trick
// taken, the trump revealed, a contract made or failed. The sounds are made
// here, by the Web Audio API, when they play (no sound files to ship or
// license): a short filtered noise for a card, a two-note chime for a trick,
// a rising sweep for the reveal, a rising or falling phrase for the result.

import { settings } from "./settings.js";

let context = null;

function audio() {
  if (!context) {
    const Ctx = window.AudioContext || window.webkitAudioContext;
    if (!Ctx) return null;
    context = new Ctx();
  }
  if (context.state === "suspended") context.resume().catch(() => {});
  return context;
}

function envelope(ctx, at, length, peak) {
  const gain = ctx.createGain();
  gain.gain.setValueAtTime(0.0001, at);
  gain.gain.exponentialRampToValueAtTime(Math.max(0.0002, peak), at + 0.008);
  gain.gain.exponentialRampToValueAtTime(0.0001, at + length);
  gain.connect(ctx.destination);
  return gain;
}

function tone(ctx, { at, freq, to = freq, length, type = "sine", level }) {
  const osc = ctx.createOscillator();
  osc.type = type;
  osc.frequency.setValueAtTime(freq, at);
  if (to !== freq) osc.frequency.exponentialRampToValueAtTime(to, at + length);
  osc.connect(envelope(ctx, at, length, level));
  osc.start(at);
  osc.stop(at + length + 0.02);
}

function snap(ctx, at, level) {
  const length = 0.07;
  const buffer = ctx.createBuffer(1, Math.ceil(ctx.sampleRate * length), ctx.sampleRate);
  const data = buffer.getChannelData(0);
  for (let i = 0; i < data.length; i++) data[i] = (Math.random() * 2 - 1) * (1 - i / data.length) ** 3;
  const src = ctx.createBufferSource();
  src.buffer = buffer;
  const band = ctx.createBiquadFilter();
  band.type = "bandpass";
  band.frequency.value = 2400;
  band.Q.value = 0.9;
  src.connect(band);
  band.connect(envelope(ctx, at, length, level));
  src.start(at);
}

const VOICES = {
  card: (ctx, at, v) => snap(ctx, at, v),
  trick: (ctx, at, v) => {
    tone(ctx, { at, freq: 660, length: 0.16, level: v * 0.5 });
    tone(ctx, { at: at + 0.09, freq: 880, length: 0.22, level: v * 0.5 });
  },
  reveal: (ctx, at, v) => tone(ctx, { at, freq: 300, to: 900, length: 0.32, type: "triangle", level: v * 0.6 }),
  made: (ctx, at, v) => [523.25, 659.25, 783.99].forEach((f, i) => tone(ctx, { at: at + i * 0.11, freq: f, length: 0.3, type: "triangle", level: v * 0.5 })),
  failed: (ctx, at, v) => [392, 311.13].forEach((f, i) => tone(ctx, { at: at + i * 0.16, freq: f, length: 0.36, type: "sawtooth", level: v * 0.18 })),
};

export const SOUNDS = Object.keys(VOICES);

// The player: one method, so that a test can watch every sound asked for.
export const player = {
  play(name) {
    const voice = VOICES[name];
    const ctx = voice ? audio() : null;
    if (!ctx) return;
    const level = Math.max(0, Math.min(1, Number(settings().volume ?? 50) / 100)) * 0.5;
    if (level > 0) voice(ctx, ctx.currentTime + 0.01, level);
  },
};

// The sound of each event, or null.
export function soundOf(ev) {
  switch (ev.type) {
    case "play":
      return "card";
    case "trick":
      return "trick";
    case "reveal":
      return "reveal";
    case "deal_end":
      if (ev.result === "made" || ev.result === "single-made") return "made";
      if (ev.result === "failed" || ev.result === "single-failed") return "failed";
      return null;
    default:
      return null;
  }
}

// What just happened, heard: nothing when sound is off, nothing for a whole
// state (a reload says nothing new).
export function hear(events, { fresh = false } = {}) {
  if (!settings().sound || fresh) return;
  for (const ev of events) {
    const name = soundOf(ev);
    if (name) player.play(name);
  }
}

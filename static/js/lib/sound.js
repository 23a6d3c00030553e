/* Short sounds for what happens at a table, made by the browser (Web Audio): no file is
 * fetched. A set found rises, a wrong claim falls, new cards tick. The mute is the header's
 * "Sound" button, remembered by the browser; a browser plays sound only after the page was
 * touched, so the first sounds may be silent until then.
 */

const KEY = "sound";

/** The notes of each sound: [frequency in Hz, start s, length s, gain]. Pure. */
export const SOUNDS = {
  set: [
    [660, 0, 0.12, 0.18],
    [880, 0.1, 0.18, 0.18],
  ],
  wrong: [
    [220, 0, 0.16, 0.2],
    [165, 0.12, 0.22, 0.2],
  ],
  deal: [[1320, 0, 0.05, 0.08]],
};

/** Which sound a moment at the table makes, or null: the actor's own wrong claim, a set found
 * by anyone (`scored`), cards dealt. Pure. */
export function soundFor({outcome = null, scored = false, dealt = 0} = {}) {
  if (outcome && (outcome.claim === "not_set" || outcome.pick === "not_set")) return "wrong";
  if (scored) return "set";
  if (dealt > 0) return "deal";
  return null;
}

/** Whether sound is on in this browser (on unless muted). */
export function soundOn() {
  try {
    return window.localStorage.getItem(KEY) !== "off";
  } catch {
    return true;
  }
}

/** Turn sound on or off, and remember it. */
export function setSound(on) {
  try {
    window.localStorage.setItem(KEY, on ? "on" : "off");
  } catch {
    // storage refused: the choice lasts for this page
  }
}

let context = null;

/** Play a sound by name (nothing when muted, or when the browser has no Web Audio). */
export function play(name) {
  const notes = SOUNDS[name];
  if (!notes || !soundOn()) return;
  const Audio = window.AudioContext || window.webkitAudioContext;
  if (!Audio) return;
  context ??= new Audio();
  if (context.state === "suspended") context.resume().catch(() => {});
  const start = context.currentTime;
  for (const [frequency, at, length, gain] of notes) {
    const oscillator = context.createOscillator();
    const volume = context.createGain();
    oscillator.type = "sine";
    oscillator.frequency.value = frequency;
    volume.gain.setValueAtTime(gain, start + at);
    volume.gain.exponentialRampToValueAtTime(0.001, start + at + length);
    oscillator.connect(volume).connect(context.destination);
    oscillator.start(start + at);
    oscillator.stop(start + at + length);
  }
}

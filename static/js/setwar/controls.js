/* The Set War viewer's controls: its speeds, its keys and the play button's words.
 * Pure, tested under Node (tests/js/setwar.test.mjs).
 */

/** The speed slider's stops, in rounds per second. */
export const SPEEDS = [0.5, 1, 2, 3, 5, 8, 12, 20, 30, 50, 100];

/** Return the speed at slider stop `index` (2 rounds/s for a stop that is not one). */
export function speedAt(index) {
  return SPEEDS[Number(index)] || 2;
}

/** Return a speed as its label: "1 round/s", "20 rounds/s". */
export function speedLabel(speed) {
  return `${speed} ${speed === 1 ? "round/s" : "rounds/s"}`;
}

/** Return the play button's text and accessible name: playing, at the end, or neither. */
export function toggleWords(playing, atEnd) {
  if (playing) return {text: "\u2759\u2759 Pause", label: "Pause"};
  if (atEnd) return {text: "\u21BA Play again", label: "Play again"};
  return {text: "\u25B6 Play", label: "Play"};
}

/**
 * Return what a key press asks of the viewer: "toggle", "step", "back", "end", or null.
 *
 * `press` is {key, tag, type, altKey, ctrlKey, metaKey}, `tag` and `type` those of the element
 * that has the focus. Typing in the form is never taken; on a slider the arrows and End move
 * the slider, and Space still plays; on a button Space presses the button.
 */
export function keyAction(press) {
  if (press.altKey || press.ctrlKey || press.metaKey) return null;
  const tag = press.tag || "";
  if (tag === "TEXTAREA" || tag === "SELECT" || (tag === "INPUT" && press.type !== "range")) {
    return null;
  }
  const onSlider = tag === "INPUT";
  if (press.key === " ") return tag === "BUTTON" ? null : "toggle";
  if (onSlider) return null;
  if (press.key === "ArrowRight") return "step";
  if (press.key === "ArrowLeft") return "back";
  if (press.key === "End") return "end";
  return null;
}

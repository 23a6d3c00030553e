/* The display choices every page shares: the light or dark theme and the color-blind card marks.
 *
 * The server draws them on <html> (data-theme "light" / "dark" / "auto", data-colorblind "1" /
 * "0") from two cookies, so the first paint is already right and no script has to run before it.
 * The header's two buttons change them; pages that draw cards redraw on `onDisplayChange`.
 */

import {setSound, soundOn} from "./sound.js";

const YEAR_S = 365 * 24 * 3600;

function root() {
  return document.documentElement;
}

/** Tell whether the color-blind marks are on. */
export function colorBlind() {
  return root().dataset.colorblind === "1";
}

/** Return the theme being shown: "light" or "dark" ("auto" follows the system's choice). */
export function theme() {
  const chosen = root().dataset.theme;
  if (chosen === "light" || chosen === "dark") return chosen;
  return window.matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
}

/** Call `callback` whenever a display choice changes. */
export function onDisplayChange(callback) {
  document.addEventListener("display:change", callback);
}

function remember(name, value) {
  document.cookie = `${name}=${value}; path=/; max-age=${YEAR_S}; SameSite=Lax`;
}

function showPressed() {
  const themeButton = document.getElementById("theme-toggle");
  const blindButton = document.getElementById("colorblind-toggle");
  const soundButton = document.getElementById("sound-toggle");
  if (soundButton) soundButton.setAttribute("aria-pressed", String(soundOn()));
  if (themeButton) themeButton.setAttribute("aria-pressed", String(theme() === "dark"));
  if (blindButton) blindButton.setAttribute("aria-pressed", String(colorBlind()));
}

/** Wire the header's theme and color-blind buttons (once per page, by site.js). */
export function wireToggles() {
  showPressed();
  const themeButton = document.getElementById("theme-toggle");
  const blindButton = document.getElementById("colorblind-toggle");
  const soundButton = document.getElementById("sound-toggle");
  if (soundButton) {
    soundButton.addEventListener("click", () => {
      setSound(!soundOn());
      showPressed();
    });
  }
  if (themeButton) {
    themeButton.addEventListener("click", () => {
      const next = theme() === "dark" ? "light" : "dark";
      root().dataset.theme = next;
      remember("theme", next);
      showPressed();
      document.dispatchEvent(new CustomEvent("display:change"));
    });
  }
  if (blindButton) {
    blindButton.addEventListener("click", () => {
      const next = colorBlind() ? "0" : "1";
      root().dataset.colorblind = next;
      remember("colorblind", next);
      showPressed();
      document.dispatchEvent(new CustomEvent("display:change"));
    });
  }
}

const LAYOUT_KEY = "keyboard-layout";

/** Return the keyboard layout chosen in this browser (its name in `layouts`), or "qwerty". */
export function keyboardLayout(layouts = {}) {
  let chosen = null;
  try {
    chosen = window.localStorage.getItem(LAYOUT_KEY);
  } catch {
    chosen = null; // storage refused (private mode): the default
  }
  return chosen && layouts[chosen] ? chosen : "qwerty";
}

/** Remember the keyboard layout chosen in this browser. */
export function chooseKeyboardLayout(name) {
  try {
    window.localStorage.setItem(LAYOUT_KEY, name);
  } catch {
    // storage refused: the choice lasts for this page only
  }
}

const CHAT_KEY = "chat-hidden";

/** Tell whether this browser hides the chat (its lines and its input). */
export function chatHidden() {
  try {
    return window.localStorage.getItem(CHAT_KEY) === "1";
  } catch {
    return false; // storage refused: the chat shows
  }
}

/** Remember whether this browser hides the chat. */
export function setChatHidden(hidden) {
  try {
    if (hidden) window.localStorage.setItem(CHAT_KEY, "1");
    else window.localStorage.removeItem(CHAT_KEY);
  } catch {
    // storage refused: the choice lasts for this page only
  }
}

/* The waiting room of a Set table: who is here, "Waiting for players…", the Start button for
 * whoever may press it (the server says so: view.may_start), and the countdown to the deal.
 *
 *   renderWaiting(element, view, {onStart})
 *
 * draws the whole room from the view each time (the same view, the same room); a view that is
 * not waiting empties and hides the element. The countdown runs from view.starts_at, on the
 * server's clock: view.now is the server's now when the view was drawn, so the skew between the
 * two clocks is known.
 */

const timers = new WeakMap();

/** Milliseconds between the server's clock and this one (add it to Date.now()). */
export function skewOf(view, clientNow = Date.now()) {
  return typeof view.now === "number" ? view.now - clientNow : 0;
}

/** Whole seconds left before the deal (rounded up), or null when no countdown runs. */
export function secondsLeft(view, serverNow) {
  if (view.status !== "waiting" || typeof view.starts_at !== "number") return null;
  return Math.max(0, Math.ceil((view.starts_at - serverNow) / 1000));
}

/** The room's line of text: the countdown, or who it waits for. */
export function waitingText(view, serverNow) {
  const left = secondsLeft(view, serverNow);
  if (left !== null) return left > 0 ? `The cards are dealt in ${left}…` : "Dealing…";
  if (view.may_start) return "Waiting for players… Press Start when everyone is here.";
  if (view.host) return `Waiting for players… ${view.host} starts the game.`;
  return "Waiting for players…";
}

function el(tag, attrs = {}, text = "") {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  if (text) node.textContent = text;
  return node;
}

export function renderWaiting(element, view, {onStart} = {}) {
  clearInterval(timers.get(element));
  timers.delete(element);
  element.replaceChildren();
  element.hidden = view.status !== "waiting";
  if (element.hidden) return;
  const skew = skewOf(view);
  element.append(el("h2", {class: "area-heading"}, "Waiting room"));
  const players = view.players || [];
  const list = el("ul", {class: "waiting-players", "aria-label": "Players here"});
  for (const name of players) {
    const label = name === view.host ? `${name} (host)` : name;
    list.append(el("li", {}, name === view.you ? `${label} — you` : label));
  }
  element.append(list);
  const line = el("p", {class: "waiting-text", role: "status", "aria-live": "polite"});
  line.textContent = waitingText(view, Date.now() + skew);
  element.append(line);
  if (view.may_start) {
    const button = el("button", {type: "button", class: "button primary", id: "start-btn"}, "Start");
    button.addEventListener("click", () => {
      button.disabled = true;
      if (onStart) onStart();
    });
    element.append(button);
  }
  if (typeof view.starts_at === "number") {
    timers.set(
      element,
      setInterval(() => {
        line.textContent = waitingText(view, Date.now() + skew);
      }, 250),
    );
  }
}

/* The Set War viewer: a stored game shown step by step, played at a chosen speed.
 *
 *   const viewer = new Viewer({card, pageSize});  // card: text -> {digits, phrase} (lib/cards.js)
 *   viewer.open(summary, true);                   // the API's summary; true plays it at once
 *   viewer.redraw();                              // after a display choice changed
 *
 * Step 0 is the deal; step k shows round k: every pile after it and the line as it was played,
 * the set that won it marked. The last step shows the program's final line exactly.
 * The elements are the ones templates/setwar.html draws.
 */

import {request} from "../lib/api.js";
import {svg} from "../lib/cards.js";
import {plural} from "../lib/format.js";
import {colorBlind} from "../lib/prefs.js";
import {keyAction, speedAt, speedLabel, toggleWords} from "./controls.js";
import {RoundBook, clampStep} from "./rounds.js";
import {
  describe,
  idleText,
  lineCount,
  pileWidth,
  playerBadges,
  stepLabel,
  summaryLine,
} from "./story.js";

function byId(id) {
  return document.getElementById(id);
}

function badge(text, kind) {
  const span = document.createElement("span");
  span.className = `badge setwar-badge-${kind}`;
  span.textContent = text;
  return span;
}

export class Viewer {
  constructor({card, pageSize}) {
    this.card = card;
    this.pageSize = pageSize;
    this.el = {
      viewer: byId("setwar-viewer"),
      title: byId("setwar-title"),
      summary: byId("setwar-summary"),
      back: byId("sw-back"),
      toggle: byId("sw-play"),
      step: byId("sw-step"),
      end: byId("sw-end"),
      speed: byId("sw-speed"),
      speedLabel: byId("sw-speed-label"),
      progress: byId("sw-progress"),
      roundLabel: byId("sw-round-label"),
      final: byId("sw-final"),
      story: byId("sw-story"),
      players: byId("sw-players"),
      idle: byId("sw-idle"),
      line: byId("sw-line"),
      lineCount: byId("sw-line-count"),
      deck: byId("sw-deck"),
    };
    this.game = null; // the summary of the game on show
    this.book = null; // its rounds; a new book per game, so late answers for an old one are dropped
    this.current = 0; // the step on show
    this.playing = false;
    this.timer = null;
    this.wire();
    this.showSpeed();
    this.showToggle();
  }

  /** Tell whether a game is on show. */
  isOpen() {
    return !!this.game && !this.el.viewer.hidden;
  }

  /** Show `game` (the API's summary) from its deal; play it at once if `autoplay`. */
  open(game, autoplay) {
    this.pause();
    this.game = game;
    this.book = new RoundBook({
      total: game.rounds,
      size: this.pageSize,
      load: (start, limit) => request("GET", `${game.rounds_url}?start=${start}&limit=${limit}`),
    });
    this.current = 0;
    const el = this.el;
    el.viewer.hidden = false;
    el.title.textContent = `Set War #${game.id}`;
    el.summary.textContent = summaryLine(game);
    el.progress.max = String(game.rounds);
    el.deck.textContent = game.deck.join(" ");
    this.show(0);
    this.book.prefetch(0).then((problem) => this.failed(this.book, problem));
    el.viewer.scrollIntoView({block: "start"});
    if (autoplay) this.play();
  }

  /** Hide the viewer (the address is the form's again). */
  close() {
    this.pause();
    this.el.viewer.hidden = true;
    this.game = null;
    this.book = null;
  }

  /** Draw the step on show again (the display choices changed). */
  redraw() {
    if (this.game) this.show(this.current);
  }

  failed(book, problem) {
    if (!problem || book !== this.book) return;
    this.pause();
    this.el.story.textContent = `The rounds could not be loaded: ${problem}`;
  }

  /** Show step `step` once its round is here; resolve to whether it was shown. */
  async goTo(step) {
    const book = this.book;
    if (!book) return false;
    const target = clampStep(step, this.game.rounds);
    const problem = await book.ensure(target);
    if (book !== this.book) return false;
    if (problem) {
      this.failed(book, problem);
      return false;
    }
    this.current = target;
    this.show(target);
    book.prefetch(target).then((later) => this.failed(book, later));
    return true;
  }

  cardItem(play, inSet) {
    const card = this.card(play.card);
    const item = document.createElement("li");
    item.className = `setwar-card${inSet ? " in-set" : ""}`;
    item.dataset.card = play.card;
    item.dataset.player = String(play.player);
    const figure = document.createElement("figure");
    figure.title = `Player ${play.player}: ${play.card}, ${card.phrase}`;
    figure.innerHTML = card.digits ? svg(card, {colorBlind: colorBlind()}) : "";
    const caption = document.createElement("figcaption");
    caption.textContent = `P${play.player}`;
    figure.appendChild(caption);
    item.appendChild(figure);
    return item;
  }

  playerItem(player, size, round, over) {
    const item = document.createElement("li");
    item.className = `setwar-player${size ? "" : " is-out"}`;
    item.dataset.player = String(player);
    const name = document.createElement("span");
    name.className = "setwar-player-name";
    name.textContent = `Player ${player}`;
    const bar = document.createElement("span");
    bar.className = "setwar-bar";
    bar.setAttribute("aria-hidden", "true");
    const fill = document.createElement("span");
    // Through the CSSOM, not a style attribute, so the strict CSP allows it.
    fill.style.width = pileWidth(size, this.game.deck.length);
    bar.appendChild(fill);
    const count = document.createElement("span");
    count.className = "setwar-pile-size";
    count.textContent = plural(size, "card", "cards");
    const badges = document.createElement("span");
    badges.className = "setwar-badges";
    for (const [text, kind] of playerBadges(player, size, round, this.game, over)) {
      badges.appendChild(badge(text, kind));
    }
    item.append(name, bar, count, badges);
    return item;
  }

  show(step) {
    const el = this.el;
    const game = this.game;
    const round = step ? this.book.round(step) : null;
    const piles = round ? round.piles : game.dealt;
    const over = step === game.rounds;

    el.roundLabel.textContent = stepLabel(step, game);
    el.progress.value = String(step);
    el.story.textContent = describe(round, game);

    el.players.replaceChildren(
      ...piles.map((size, player) => this.playerItem(player, size, round, over)),
    );
    const idle = idleText(piles, game.players);
    el.idle.hidden = !idle;
    el.idle.textContent = idle;

    const inSet = (round && round.set_cards) || [];
    const plays = round ? round.plays : [];
    el.line.replaceChildren(...plays.map((play) => this.cardItem(play, inSet.includes(play.card))));
    el.lineCount.textContent = lineCount(round);

    el.final.hidden = !over;
    el.final.textContent = over ? game.final_line : "";
    el.final.classList.toggle("is-draw", game.draw);
    el.viewer.classList.toggle("is-over", over);

    el.back.disabled = step === 0;
    el.step.disabled = over;
    el.end.disabled = over;
    if (!this.playing) this.showToggle();
  }

  // --- playing -------------------------------------------------------------------------------

  speed() {
    return speedAt(this.el.speed.value);
  }

  showSpeed() {
    this.el.speedLabel.textContent = speedLabel(this.speed());
  }

  showToggle() {
    const atEnd = !!this.game && this.current >= this.game.rounds;
    const words = toggleWords(this.playing, atEnd);
    this.el.toggle.textContent = words.text;
    this.el.toggle.setAttribute("aria-label", words.label);
  }

  play() {
    if (!this.game || this.playing) return;
    this.playing = true;
    this.showToggle();
    if (this.current >= this.game.rounds) {
      // At the end, Play starts the game again from the deal.
      this.goTo(0).then(() => this.schedule());
    } else {
      this.schedule();
    }
  }

  pause() {
    this.playing = false;
    clearTimeout(this.timer);
    this.timer = null;
    this.showToggle();
  }

  schedule() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.advance(), 1000 / this.speed());
  }

  async advance() {
    this.timer = null;
    if (!this.playing) return;
    const book = this.book;
    const shown = await this.goTo(this.current + 1);
    if (book !== this.book || !this.playing) return;
    if (!shown || this.current >= this.game.rounds) this.pause();
    else this.schedule();
  }

  /** Stop playing and show step `step`. */
  jump(step) {
    this.pause();
    this.goTo(step);
  }

  wire() {
    const el = this.el;
    el.toggle.addEventListener("click", () => (this.playing ? this.pause() : this.play()));
    el.step.addEventListener("click", () => this.jump(this.current + 1));
    el.back.addEventListener("click", () => this.jump(this.current - 1));
    el.end.addEventListener("click", () => this.jump(this.game.rounds));
    el.progress.addEventListener("input", () => this.jump(Number(el.progress.value)));
    el.speed.addEventListener("input", () => {
      this.showSpeed();
      if (this.playing) this.schedule();
    });
    document.addEventListener("keydown", (event) => {
      if (!this.isOpen()) return;
      const target = event.target;
      const action = keyAction({
        key: event.key,
        tag: target && target.tagName,
        type: target && target.type,
        altKey: event.altKey,
        ctrlKey: event.ctrlKey,
        metaKey: event.metaKey,
      });
      if (!action) return;
      event.preventDefault();
      if (action === "toggle") {
        if (this.playing) this.pause();
        else this.play();
      } else if (action === "step") {
        this.jump(this.current + 1);
      } else if (action === "back") {
        this.jump(this.current - 1);
      } else if (action === "end") {
        this.jump(this.game.rounds);
      }
    });
  }
}

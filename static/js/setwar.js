/* The Set War page: deal a game through the API, then watch it round by round.
 *
 *   POST /api/setwar/ {players, cards?, seed?}  -> the stored game (summary: deck, dealt pile
 *                                                  sizes, rounds, winner, final_line, urls)
 *   GET  <rounds_url>?start=&limit=             -> {rounds: [{number, plays: [{player, card}],
 *                                                  taker, piles, set_cards, out}], next, total}
 *
 * Rounds are fetched a page at a time as the viewer needs them, so a 10000-round draw opens at
 * once. Step 0 is the deal; step k shows round k: every pile after it and the line as it was
 * played, the set that won it marked. The last step shows the program's final line exactly.
 * No dependencies besides setcards.js.
 */
(function () {
  "use strict";

  var configNode = document.getElementById("setwar-config");
  if (!configNode) return;
  var cfg = JSON.parse(configNode.textContent);
  var SPEEDS = [0.5, 1, 2, 3, 5, 8, 12, 20, 30, 50, 100]; // rounds per second
  var PAGE = cfg.page_size || 500;

  function $(id) { return document.getElementById(id); }
  var el = {
    form: $("setwar-form"), error: $("setwar-error"), busy: $("setwar-busy"),
    players: $("setwar-players"), cards: $("setwar-cards"), seed: $("setwar-seed"),
    play: $("setwar-play"), shuffle: $("setwar-shuffle"), sample: $("setwar-sample"),
    viewer: $("setwar-viewer"), title: $("setwar-title"), summary: $("setwar-summary"),
    back: $("sw-back"), toggle: $("sw-play"), step: $("sw-step"), end: $("sw-end"),
    speed: $("sw-speed"), speedLabel: $("sw-speed-label"), progress: $("sw-progress"),
    roundLabel: $("sw-round-label"), final: $("sw-final"), story: $("sw-story"),
    players_: $("sw-players"), idle: $("sw-idle"), line: $("sw-line"),
    lineCount: $("sw-line-count"), deck: $("sw-deck")
  };

  var game = null;      // the summary of the game on show
  var rounds = {};      // round number -> round, as fetched
  var loading = {};     // page start -> promise
  var current = 0;      // the step on show: 0 is the deal, k is round k
  var timer = null;
  var playing = false;
  var generation = 0;   // bumped per game, so late answers for an old game are dropped

  // --- talking to the API ---------------------------------------------------------------------

  function request(url, options) {
    options = options || {};
    var headers = {"Accept": "application/json"};
    if (options.body) {
      headers["Content-Type"] = "application/json";
      headers["X-CSRFToken"] = cfg.csrf;
    }
    return fetch(url, {
      method: options.method || "GET", headers: headers, body: options.body,
      credentials: "same-origin"
    }).catch(function () {
      throw new Error("The server could not be reached; check the connection and try again.");
    }).then(function (response) {
      return response.json().catch(function () { return {}; }).then(function (body) {
        if (!response.ok) {
          var error = new Error(body.detail || "The server answered " + response.status + ".");
          error.fields = body.errors || {};
          throw error;
        }
        return body;
      });
    });
  }

  // --- the form --------------------------------------------------------------------------------

  function showError(message, fields) {
    el.error.textContent = message;
    el.error.hidden = false;
    [["players", el.players], ["cards", el.cards], ["seed", el.seed]].forEach(function (pair) {
      if (fields && fields[pair[0]]) pair[1].setAttribute("aria-invalid", "true");
      else pair[1].removeAttribute("aria-invalid");
    });
  }

  function clearError() {
    el.error.hidden = true;
    el.error.textContent = "";
    [el.players, el.cards, el.seed].forEach(function (input) {
      input.removeAttribute("aria-invalid");
    });
  }

  function busy(on, text) {
    [el.play, el.shuffle, el.sample].forEach(function (button) { button.disabled = on; });
    el.busy.textContent = on ? text : "";
  }

  function create(withCards) {
    clearError();
    var players = el.players.value.trim();
    if (!players) {
      // A number input holds "" for text that is not a number: read what was typed instead.
      var typed = el.players.validity && el.players.validity.badInput;
      showError(typed ? "players: invalid player count: that is not a whole number"
                      : "players: missing player count", {players: true});
      el.players.focus();
      return;
    }
    var body = {players: players};
    if (withCards) {
      body.cards = el.cards.value;
    } else {
      var seed = el.seed.value.trim();
      if (seed) {
        if (!/^[0-9]{1,18}$/.test(seed)) {
          showError("seed: a seed is a whole number of at least 0 (up to 18 digits).",
                    {seed: true});
          el.seed.focus();
          return;
        }
        body.seed = Number(seed);
      }
    }
    busy(true, "Playing the game…");
    request(cfg.create_url, {method: "POST", body: JSON.stringify(body)}).then(function (summary) {
      busy(false);
      if (window.history && history.pushState && location.pathname !== summary.url) {
        history.pushState({game: summary.id}, "", summary.url);
      }
      open(summary, true);
    }).catch(function (error) {
      busy(false);
      showError(error.message, error.fields);
    });
  }

  el.form.addEventListener("submit", function (event) {
    event.preventDefault();
    create(true);
  });
  el.shuffle.addEventListener("click", function () { create(false); });
  el.sample.addEventListener("click", function () {
    el.players.value = cfg.sample.players;
    el.cards.value = cfg.sample.cards;
    clearError();
    el.cards.focus();
  });

  // --- the viewer ------------------------------------------------------------------------------

  function plural(count, word) {
    return count + " " + word + (count === 1 ? "" : "s");
  }

  function open(summary, autoplay) {
    generation += 1;
    pause();
    game = summary;
    rounds = {};
    loading = {};
    current = 0;
    el.viewer.hidden = false;
    el.title.textContent = "Set War #" + game.id;
    var deal = game.shuffled ? "81 cards shuffled with seed " + game.seed
                             : plural(game.deck.length, "card") + " as entered";
    el.summary.textContent = plural(game.players, "player") + " · " + deal + " · " +
      plural(game.rounds, "round");
    el.progress.max = String(game.rounds);
    el.deck.textContent = game.deck.join(" ");
    show(0);
    fetchPage(0);
    el.viewer.scrollIntoView({block: "start"});
    if (autoplay) play();
  }

  function fetchPage(start) {
    if (loading[start]) return loading[start];
    var mine = generation;
    var url = game.rounds_url + "?start=" + start + "&limit=" + PAGE;
    loading[start] = request(url).then(function (page) {
      if (mine !== generation) return;
      page.rounds.forEach(function (round) { rounds[round.number] = round; });
    }).catch(function (error) {
      delete loading[start];
      if (mine === generation) {
        pause();
        el.story.textContent = "The rounds could not be loaded: " + error.message;
      }
      throw error;
    });
    return loading[start];
  }

  function ensure(step) {
    if (step === 0 || rounds[step]) return Promise.resolve();
    return fetchPage(Math.floor((step - 1) / PAGE) * PAGE);
  }

  function goTo(step) {
    step = Math.max(0, Math.min(game.rounds, step));
    var mine = generation;
    return ensure(step).then(function () {
      if (mine !== generation) return;
      current = step;
      show(step);
      // Fetch the next page a little before it is needed.
      var ahead = Math.min(game.rounds, step + 50);
      if (!rounds[ahead]) fetchPage(Math.floor((ahead - 1) / PAGE) * PAGE).catch(function () {});
    });
  }

  function cardFigure(play, inSet) {
    var item = document.createElement("li");
    item.className = "setwar-card" + (inSet ? " in-set" : "");
    item.dataset.card = play.card;
    item.dataset.player = String(play.player);
    var colorBlind = window.SiteOptions && SiteOptions.colorBlind();
    var figure = document.createElement("figure");
    figure.innerHTML = SetCards.svg(play.card, {colorBlind: colorBlind}) +
      "<figcaption>P" + play.player + "</figcaption>";
    figure.title = "Player " + play.player + ": " + play.card + ", " + SetCards.phrase(play.card);
    item.appendChild(figure);
    return item;
  }

  function badge(text, kind) {
    var span = document.createElement("span");
    span.className = "badge setwar-badge-" + kind;
    span.textContent = text;
    return span;
  }

  function describe(round) {
    if (!round) {
      if (game.dealt.length === 1) return "Player 0 is dealt every card.";
      return "The cards are dealt to " + plural(game.dealt.length, "player") +
        ". Player 0 starts.";
    }
    var plays = round.plays;
    if (!plays.length) {
      return "Player " + round.taker + " holds every card and wins without a card being played.";
    }
    var last = plays[plays.length - 1];
    var text;
    if (round.set_cards) {
      text = "Player " + round.taker + " plays " + last.card + ", which makes a set with " +
        round.set_cards[0] + " and " + round.set_cards[1] + ", and takes the line (" +
        plural(plays.length, "card") + ").";
      if (round.out.length) {
        text += " Out this round: " + round.out.map(function (p) { return "Player " + p; })
          .join(", ") + ".";
      }
      if (game.draw && round.number === game.rounds) {
        text += " A set in the last allowed round: the game is a draw.";
      }
    } else {
      text = "Player " + last.player + " plays their last card without a set and is out. " +
        "Player " + round.taker + ", the only one left holding cards, takes the line (" +
        plural(plays.length, "card") + ").";
    }
    return text;
  }

  function show(step) {
    var round = step ? rounds[step] : null;
    var piles = round ? round.piles : game.dealt;
    var over = step === game.rounds;
    var total = game.deck.length;

    el.roundLabel.textContent = step ? "Round " + step + " of " + game.rounds
                                     : "The deal (" + plural(game.rounds, "round") + " to play)";
    el.progress.value = String(step);
    el.story.textContent = describe(round);

    var out = round ? round.out : [];
    el.players_.textContent = "";
    piles.forEach(function (size, player) {
      var item = document.createElement("li");
      item.className = "setwar-player" + (size ? "" : " is-out");
      item.dataset.player = String(player);
      var name = document.createElement("span");
      name.className = "setwar-player-name";
      name.textContent = "Player " + player;
      var bar = document.createElement("span");
      bar.className = "setwar-bar";
      bar.setAttribute("aria-hidden", "true");
      var fill = document.createElement("span");
      fill.style.width = (100 * size / total).toFixed(1) + "%";
      bar.appendChild(fill);
      var count = document.createElement("span");
      count.className = "setwar-pile-size";
      count.textContent = plural(size, "card");
      item.appendChild(name);
      item.appendChild(bar);
      item.appendChild(count);
      var badges = document.createElement("span");
      badges.className = "setwar-badges";
      if (over && game.winner === player) badges.appendChild(badge("winner", "winner"));
      else if (round && round.taker === player) badges.appendChild(badge("took the line", "taker"));
      if (out.indexOf(player) >= 0) badges.appendChild(badge("out this round", "out"));
      else if (!size) badges.appendChild(badge("out", "gone"));
      item.appendChild(badges);
      el.players_.appendChild(item);
    });
    var idle = game.players - piles.length;
    el.idle.hidden = idle <= 0;
    el.idle.textContent = idle > 0
      ? (idle === 1 ? "Player " + piles.length + " is" : "Players " + piles.length + " to " +
         (game.players - 1) + " are") + " dealt no card: there are more players than cards."
      : "";

    el.line.textContent = "";
    var plays = round ? round.plays : [];
    var inSet = round && round.set_cards ? round.set_cards : [];
    plays.forEach(function (play) {
      el.line.appendChild(cardFigure(play, inSet.indexOf(play.card) >= 0));
    });
    el.lineCount.textContent = round ? "(" + plural(plays.length, "card") + ")" : "";

    el.final.hidden = !over;
    el.final.textContent = over ? game.final_line : "";
    el.final.classList.toggle("is-draw", game.draw);
    el.viewer.classList.toggle("is-over", over);

    el.back.disabled = step === 0;
    el.step.disabled = over;
    el.end.disabled = over;
    if (!playing) setToggle();
  }

  // --- playing ---------------------------------------------------------------------------------

  function speed() {
    return SPEEDS[Number(el.speed.value)] || 2;
  }

  function showSpeed() {
    var value = speed();
    el.speedLabel.textContent = value + (value === 1 ? " round/s" : " rounds/s");
  }

  function setToggle() {
    var again = !playing && game && current >= game.rounds;
    el.toggle.innerHTML = playing ? "&#10073;&#10073; Pause"
                                  : again ? "&#8634; Play again" : "&#9654; Play";
    el.toggle.setAttribute("aria-label", playing ? "Pause" : again ? "Play again" : "Play");
  }

  function play() {
    if (!game || playing) return;
    playing = true;
    setToggle();
    if (current >= game.rounds) {
      // At the end, Play starts the game again from the deal.
      goTo(0).then(schedule);
    } else {
      schedule();
    }
  }

  function pause() {
    playing = false;
    if (timer) clearTimeout(timer);
    timer = null;
    setToggle();
  }

  function schedule() {
    if (timer) clearTimeout(timer);
    timer = setTimeout(advance, 1000 / speed());
  }

  function advance() {
    timer = null;
    if (!playing) return;
    var mine = generation;
    goTo(current + 1).then(function () {
      if (mine !== generation || !playing) return;
      if (current >= game.rounds) pause();
      else schedule();
    }, function () { pause(); });
  }

  el.toggle.addEventListener("click", function () { if (playing) pause(); else play(); });
  el.step.addEventListener("click", function () { pause(); goTo(current + 1); });
  el.back.addEventListener("click", function () { pause(); goTo(current - 1); });
  el.end.addEventListener("click", function () { pause(); goTo(game.rounds); });
  el.progress.addEventListener("input", function () {
    pause();
    goTo(Number(el.progress.value));
  });
  el.speed.addEventListener("input", function () {
    showSpeed();
    if (playing) schedule();
  });

  document.addEventListener("keydown", function (event) {
    if (!game || el.viewer.hidden || event.altKey || event.ctrlKey || event.metaKey) return;
    var target = event.target;
    var tag = target && target.tagName;
    if (tag === "TEXTAREA" || tag === "SELECT" ||
        (tag === "INPUT" && target.type !== "range")) return;
    var onSlider = tag === "INPUT";
    if (event.key === " " && tag !== "BUTTON") {
      event.preventDefault();
      if (playing) pause(); else play();
    } else if (event.key === "ArrowRight" && !onSlider) {
      event.preventDefault();
      pause();
      goTo(current + 1);
    } else if (event.key === "ArrowLeft" && !onSlider) {
      event.preventDefault();
      pause();
      goTo(current - 1);
    } else if (event.key === "End" && !onSlider) {
      event.preventDefault();
      pause();
      goTo(game.rounds);
    }
  });

  document.addEventListener("setcards:options", function () { if (game) show(current); });

  window.addEventListener("popstate", function () {
    var match = /\/setwar\/(\d+)\/?$/.exec(location.pathname);
    if (match && (!game || String(game.id) !== match[1])) {
      request(cfg.detail_pattern.replace("{id}", match[1]))
        .then(function (summary) { open(summary, false); })
        .catch(function (error) { showError(error.message); });
    } else if (!match) {
      pause();
      el.viewer.hidden = true;
      game = null;
    }
  });

  showSpeed();
  setToggle();
  if (cfg.detail_url) {
    request(cfg.detail_url).then(function (summary) { open(summary, false); })
      .catch(function (error) { showError(error.message); });
  }
})();

/* The Set table page (and solitaire, the same table with one seat and a clock).
 *
 * The page starts from the view rendered with it (#table-view), then follows the game over the
 * WebSocket; actions go over the socket, or over POST .../moves when it is down. Classic rules:
 * select three cards and they are claimed as one {"type": "claim", "cards": [...]}. Declare
 * rules: Set! (declare), then pick three cards before the deadline; picking a card while nobody
 * declares declares first.
 */
(function () {
  "use strict";

  var root = document.getElementById("table-root");
  if (!root) return;
  var cfg = JSON.parse(document.getElementById("table-config").textContent);
  var view = JSON.parse(document.getElementById("table-view").textContent);
  var classic = view.rules === "classic";
  // The server's clock minus ours: deadlines are the server's milliseconds.
  var clockSkew = cfg.server_now - Date.now();
  var selection = [];
  var pending = null;
  var judged = false;
  var lastDeclare = view.declare ? view.declare.state : "none";
  var knownPlayers = (view.players || []).join(",");
  var computers = cfg.computers || [];
  var cells = [];
  var messageTimer = null;
  var chain = Promise.resolve();
  var fresh = [];

  var el = {
    board: document.getElementById("board"),
    controls: document.getElementById("controls"),
    turn: document.getElementById("turn"),
    message: document.getElementById("message"),
    scores: document.getElementById("scores"),
    deckLeft: document.getElementById("deck-left-side"),
    connection: document.getElementById("connection"),
    declare: document.getElementById("declare-btn"),
    add: document.getElementById("add-btn"),
    clear: document.getElementById("clear-btn"),
    hint: document.getElementById("hint-btn"),
    count: document.getElementById("count-btn"),
    countdown: document.getElementById("countdown"),
    resultPanel: document.getElementById("result-panel"),
    resultText: document.getElementById("result-text"),
    joinPanel: document.getElementById("join-panel"),
    joinForm: document.getElementById("join-form"),
    joinName: document.getElementById("join-name"),
    copy: document.getElementById("copy-btn"),
    share: document.getElementById("share-url"),
    clock: document.getElementById("clock"),
    setsFound: document.getElementById("sets-found"),
    soloDeck: document.getElementById("deck-left")
  };

  function serverNow() {
    return Date.now() + clockSkew;
  }

  function seated() {
    return !!view.seated;
  }

  function plural(count, one, many) {
    return count + " " + (count === 1 ? one : many);
  }

  function say(text, tone) {
    el.message.textContent = text || "";
    el.message.className = "message" + (tone ? " " + tone : "");
    clearTimeout(messageTimer);
    if (text) {
      messageTimer = setTimeout(function () {
        el.message.textContent = "";
        el.message.className = "message";
      }, tone === "bad" ? 8000 : 6000);
    }
  }

  function formatTime(ms) {
    var seconds = Math.max(0, Math.floor(ms / 1000));
    var minutes = Math.floor(seconds / 60);
    var rest = seconds % 60;
    return minutes + ":" + (rest < 10 ? "0" : "") + rest;
  }

  // --- acting --------------------------------------------------------------------------------

  function act(action) {
    if (socket.send(action)) return Promise.resolve();
    // No socket: the JSON API answers with the outcome and the new view (in order, one by one).
    chain = chain.then(function () {
      return Live.api("POST", cfg.moves_url, action, cfg.csrf).then(function (reply) {
        if (reply.ok) {
          onResult({outcome: reply.data.outcome, version: reply.data.version});
          onState({version: reply.data.version, view: reply.data.view});
        } else {
          onError({detail: reply.data.detail || "That did not work.", code: "http"});
        }
      });
    });
    return chain;
  }

  function canPlay() {
    return seated() && !view.over;
  }

  function choose(card) {
    if (!canPlay()) {
      say(view.over ? "The game is over." : "You are watching: join the table to play.", "info");
      return;
    }
    if (classic) chooseClassic(card);
    else chooseDeclare(card);
  }

  function chooseClassic(card) {
    if (view.locked_out) {
      say("You are locked out until another player finds a set.", "bad");
      return;
    }
    if (pending) return;
    var at = selection.indexOf(card);
    if (at >= 0) selection.splice(at, 1);
    else selection.push(card);
    if (selection.length === 3) {
      var claim = pending = selection.slice();
      selection = [];
      act({type: "claim", cards: claim});
      // Should the answer be lost with the connection, free the cards again.
      setTimeout(function () {
        if (pending === claim) {
          pending = null;
          say("No answer from the server for that claim; try again.", "bad");
          render();
        }
      }, 5000);
    }
    render();
  }

  function chooseDeclare(card) {
    var cell = cells.filter(function (c) { return c.card === card; })[0];
    if (!cell) return;
    var state = view.declare.state;
    if (state === "up") {
      say(view.declare.declarer + " is declaring: wait for your turn.", "info");
      return;
    }
    if (state === "none") act({type: "declare"});
    act({type: "pick", row: cell.pos[0], col: cell.pos[1]});
  }

  function clearSelection() {
    if (selection.length) {
      selection = [];
      render();
    }
  }

  // --- what the server says ------------------------------------------------------------------

  function onResult(message) {
    var o = message.outcome || {};
    switch (o.action) {
      case "claim":
        pending = null;
        if (o.claim === "set") {
          say("Set! " + (cfg.solitaire ? "" : "You have " + plural(o.score, "set", "sets") + ".") +
            (o.hinted ? " (hinted)" : ""), "good");
        } else if (o.claim === "not_set") {
          if (o.locked_out) {
            say("Not a set. You are locked out until another player finds a set.", "bad");
          } else if (o.released && !cfg.solitaire && (view.players || []).length > 1) {
            say("Not a set. Everyone was locked out, so everyone may play again.", "bad");
          } else {
            say("Not a set.", "bad");
          }
        }
        break;
      case "pick":
        if (o.pick === "set") {
          judged = true;
          say("Set! +" + o.points + " points." + (o.hinted ? " (hinted)" : ""), "good");
        } else if (o.pick === "not_set") {
          judged = true;
          say("Not a set: " + Math.abs(o.points) + " points off.", "bad");
        } else if (o.pick === "ignored") {
          say("Only the declarer picks: press Set! first.", "info");
        }
        break;
      case "declare":
        if (o.declare === "declarer") say("Your turn: pick three cards within 5 seconds.", "info");
        else if (o.declare === "queued") say("Someone is declaring; you are next in line.", "info");
        break;
      case "add":
        if (o.vote === "recorded") {
          say(o.added ? "Three more cards were added." :
            "You voted to add cards; waiting for the others.", "info");
        } else if (o.vote === "repeated") {
          say("You have already voted to add cards.", "info");
        } else if (o.vote === "ignored") {
          say("The deck is empty: no more cards to add.", "info");
        }
        break;
      case "hint":
        if (o.hint) say("One card of a set is highlighted.", "info");
        else say(o.message || "There is no set on the board.", "info");
        break;
      case "count":
        if (o.count === 0) say("There is no set on the board.", "info");
        else if (o.count === 1) say("There is 1 set on the board.", "info");
        else say("There are " + o.count + " sets on the board.", "info");
        break;
      default:
        break;
    }
    render();
  }

  function onError(message) {
    if (pending) {
      pending = null;
      selection = [];
    }
    say(message.detail || "That did not work.", "bad");
    render();
  }

  function boardCards(someView) {
    return SetBoard.cells(someView).map(function (cell) { return cell.card; });
  }

  /* Say what other players did: the socket brings their moves as new views. */
  function tellOthers(before) {
    var old = before.scores || {};
    var now = view.scores || {};
    var news = [];
    Object.keys(now).forEach(function (name) {
      if (name === view.you || old[name] === undefined || now[name] === old[name]) return;
      if (now[name] > old[name]) news.push(name + " found a set.");
      else if (!classic) news.push(name + " lost " + (old[name] - now[name]) + " points.");
    });
    Object.keys(now).forEach(function (name) {
      if (old[name] === undefined && name !== view.you) news.push(name + " joined.");
    });
    if (news.length) say(news.join(" "), "info");
  }

  function onState(message) {
    if (!message.view) return;
    var before = view;
    view = message.view;
    var previous = boardCards(before);
    fresh = boardCards(view).filter(function (card) { return previous.indexOf(card) < 0; });
    tellOthers(before);
    var state = view.declare ? view.declare.state : "none";
    if (lastDeclare === "my" && state !== "my" && !judged && !view.over) {
      say("Time is up: 5 points off.", "bad");
    }
    if (state === "my" && lastDeclare !== "my") judged = false;
    lastDeclare = state;
    if (classic) {
      var onBoard = {};
      (view.board || []).forEach(function (cell) { onBoard[cell.card] = true; });
      selection = selection.filter(function (card) { return onBoard[card]; });
    }
    var players = (view.players || []).join(",");
    if (players !== knownPlayers) {
      knownPlayers = players;
      refreshSeats();
    }
    if (view.over && !before.over) say("", "");
    render();
  }

  function refreshSeats() {
    Live.api("GET", cfg.api_url).then(function (reply) {
      if (!reply.ok || !reply.data.seats) return;
      computers = reply.data.seats.filter(function (s) { return s.is_computer; })
        .map(function (s) { return s.name; });
      renderScores();
    });
  }

  // --- drawing -------------------------------------------------------------------------------

  function render() {
    cells = SetBoard.render(el.board, view, {
      interactive: canPlay(),
      fresh: fresh,
      selected: classic ? selection.concat(pending || []) : [],
      hint: view.hint ? view.hint.card : null
    });
    fresh = [];  // they fade in once, not at every redraw
    el.board.classList.toggle("locked", !!view.locked_out);
    el.board.classList.toggle("waiting", !classic && view.declare.state === "up");
    renderTurn();
    renderControls();
    renderScores();
    renderResult();
    tick();
  }

  function renderTurn() {
    var text = "";
    if (view.over) {
      text = "Game over.";
    } else if (!seated()) {
      text = "You are watching this table.";
    } else if (classic) {
      if (view.locked_out) text = "You are locked out until another player finds a set.";
      else if (pending) text = "Checking your set…";
      else text = "Find a set: select three cards." +
        (selection.length ? " (" + selection.length + " of 3 selected)" : "");
    } else {
      var declare = view.declare;
      if (declare.state === "my") text = "Your turn: pick three cards!";
      else if (declare.state === "up") text = declare.declarer + " is declaring…";
      else text = "Press Set! (or pick a card) as soon as you see a set.";
    }
    el.turn.textContent = text;
    el.turn.classList.toggle("alert", !!view.locked_out && !view.over);
  }

  function renderControls() {
    var playing = canPlay();
    el.controls.hidden = !!view.over;
    if (el.hint) el.hint.disabled = !playing;
    if (el.count) el.count.disabled = !playing;
    if (el.clear) el.clear.disabled = !playing || !selection.length;
    if (el.declare) el.declare.disabled = !playing || view.declare.state === "my";
    if (el.add) {
      var votes = (view.votes || []).length;
      var voted = (view.votes || []).indexOf(view.you) >= 0;
      el.add.disabled = !playing || !view.deck_left || voted;
      el.add.textContent = "Add cards" + (votes ? " (" + votes + " of " +
        Math.max((view.present || []).length, votes) + " voted)" : "");
    }
    if (el.deckLeft) el.deckLeft.textContent = String(view.deck_left);
    if (el.soloDeck) el.soloDeck.textContent = String(view.deck_left);
    if (el.joinPanel && (seated() || view.over)) el.joinPanel.hidden = true;
  }

  function renderScores() {
    if (!el.scores) return;
    var scores = view.scores || {};
    var names = Object.keys(scores).sort(function (a, b) {
      return scores[b] - scores[a] || (a < b ? -1 : 1);
    });
    el.scores.textContent = "";
    if (!names.length) {
      var empty = document.createElement("li");
      empty.className = "muted";
      empty.textContent = "Nobody has joined yet.";
      el.scores.appendChild(empty);
    }
    names.forEach(function (name) {
      var item = document.createElement("li");
      item.dataset.player = name;
      var label = document.createElement("span");
      label.className = "score-name";
      label.textContent = name;
      item.appendChild(label);
      var badges = [];
      if (name === view.you) badges.push("you");
      if (computers.indexOf(name) >= 0) badges.push("computer");
      if (view.declare && view.declare.declarer === name) badges.push("declaring");
      if ((view.votes || []).indexOf(name) >= 0) badges.push("voted to add");
      if ((view.locked || []).indexOf(name) >= 0) badges.push("locked out");
      if ((view.away || []).indexOf(name) >= 0) badges.push("away");
      badges.forEach(function (badge) {
        var tag = document.createElement("span");
        tag.className = "badge badge-" + badge.split(" ")[0];
        tag.textContent = badge;
        item.appendChild(tag);
      });
      var score = document.createElement("span");
      score.className = "score-value";
      score.textContent = String(scores[name]);
      item.appendChild(score);
      if (name === view.you) item.classList.add("me");
      el.scores.appendChild(item);
    });
  }

  function renderResult() {
    if (!el.resultPanel) return;
    var result = view.result;
    el.resultPanel.hidden = !view.over;
    if (!view.over || !result) return;
    var text;
    if (cfg.solitaire) {
      var who = view.you || Object.keys(result.scores || {})[0];
      var found = (result.scores || {})[who] || 0;
      text = (view.you ? "You" : who || "Nobody") + " found " + plural(found, "set", "sets") +
        " in " + formatTime(result.ended_ms - cfg.started_ms) + ".";
    } else {
      var winners = result.winners || [];
      var scores = result.scores || {};
      var parts = Object.keys(scores).sort(function (a, b) { return scores[b] - scores[a]; })
        .map(function (name) { return name + " " + scores[name]; });
      if (!winners.length) text = "Nobody played.";
      else if (winners.indexOf(view.you) >= 0) {
        text = winners.length > 1 ? "You share the win with " +
          winners.filter(function (w) { return w !== view.you; }).join(", ") + "!" : "You won!";
      } else {
        text = (winners.length > 1 ? "Winners: " : "Winner: ") + winners.join(", ") + ".";
      }
      text += " Scores: " + parts.join(", ") + ".";
    }
    el.resultText.textContent = text;
  }

  function tick() {
    if (el.countdown) {
      var deadline = view.declare && view.declare.deadline;
      if (deadline && !view.over) {
        var left = Math.max(0, deadline - serverNow());
        el.countdown.hidden = false;
        el.countdown.textContent = (left / 1000).toFixed(1) + " s";
        el.countdown.classList.toggle("urgent", left < 2000);
      } else {
        el.countdown.hidden = true;
      }
    }
    if (el.clock) {
      var end = view.over && view.result ? view.result.ended_ms : serverNow();
      el.clock.textContent = formatTime(end - cfg.started_ms);
      el.setsFound.textContent = String((view.scores || {})[view.you] || 0);
    }
  }

  function setConnection(state) {
    var labels = {connecting: "Connecting…", live: "Live", reconnecting: "Reconnecting…",
                  closed: "Disconnected"};
    el.connection.textContent = labels[state] || state;
    el.connection.setAttribute("data-state", state);
  }

  // --- joining -------------------------------------------------------------------------------

  function join(name) {
    if (!/^[A-Za-z0-9_]{1,20}$/.test(name)) {
      say("A name is 1 to 20 letters, digits or underscores, with no spaces.", "bad");
      return;
    }
    Live.api("POST", cfg.join_url, {name: name}, cfg.csrf).then(function (reply) {
      if (!reply.ok) {
        say(reply.data.detail || "Joining did not work.", "bad");
        if (el.joinName) el.joinName.focus();
        return;
      }
      cfg.seat = reply.data.seat.name;
      say("You joined as " + cfg.seat + ".", "good");
      if (el.joinPanel) el.joinPanel.hidden = true;
      if (window.history.replaceState) {
        window.history.replaceState(null, "", window.location.pathname);
      }
      // The socket knows the seat from the session when it connects: connect again.
      socket.reconnectNow();
    });
  }

  // --- wiring --------------------------------------------------------------------------------

  var socket = new Live.GameSocket(cfg.ws_url, {
    state: onState,
    result: onResult,
    error: onError,
    status: setConnection
  });

  el.board.addEventListener("click", function (event) {
    var card = event.target.closest ? event.target.closest(".card") : null;
    if (card && el.board.contains(card)) choose(card.dataset.card);
  });

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    var target = event.target;
    if (target && (/^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName) || target.isContentEditable)) {
      return;
    }
    if (event.key === "Escape") {
      clearSelection();
      return;
    }
    var key = (event.key || "").toLowerCase();
    var cell = cells.filter(function (c) { return c.key === key; })[0];
    if (cell) {
      event.preventDefault();
      choose(cell.card);
    }
  });

  if (el.declare) el.declare.addEventListener("click", function () { act({type: "declare"}); });
  if (el.add) el.add.addEventListener("click", function () { act({type: "add"}); });
  if (el.clear) el.clear.addEventListener("click", clearSelection);
  if (el.hint) el.hint.addEventListener("click", function () { act({type: "hint"}); });
  if (el.count) el.count.addEventListener("click", function () { act({type: "count"}); });
  if (el.joinForm) {
    el.joinForm.addEventListener("submit", function (event) {
      event.preventDefault();
      join(el.joinName.value.trim());
    });
  }
  if (el.copy) {
    el.copy.addEventListener("click", function () {
      var url = el.share.value;
      var done = function () { say("The link is copied: send it to a friend.", "good"); };
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(url).then(done, function () { el.share.select(); });
      } else {
        el.share.select();
        say("Press Ctrl+C (or ⌘C) to copy the selected link.", "info");
      }
    });
  }
  SetBoard.onLayoutChange(render);
  setInterval(tick, 100);

  render();
  if (cfg.auto_join && !seated() && !view.over) join(cfg.name);
  // For the console and the browser tests: the live socket and the view being shown.
  window.SetTablePage = {socket: socket, view: function () { return view; }};
})();

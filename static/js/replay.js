/* The replay page: step through a game's moves with the board as it was after each one.
 *
 * Data: GET /api/games/<id>/replay -> {"game": summary, "steps": [{seq, actor, action, outcome,
 * at_ms, view}...]}, step 0 being the deal. Set views are drawn as cards; other kinds show their
 * view as JSON until they have their own renderer (SetReplayRenderers[kind] = function
 * (element, view, step) {...} lets a script plug one in).
 */
(function (global) {
  "use strict";

  var root = document.getElementById("replay-root");
  if (!root) return;
  var cfg = JSON.parse(document.getElementById("replay-config").textContent);
  var steps = [];
  var index = 0;
  var el = {
    board: document.getElementById("replay-board"),
    json: document.getElementById("replay-json"),
    move: document.getElementById("step-move"),
    label: document.getElementById("step-label"),
    slider: document.getElementById("step-slider"),
    scores: document.getElementById("replay-scores"),
    list: document.getElementById("move-list"),
    first: document.getElementById("first-btn"),
    prev: document.getElementById("prev-btn"),
    next: document.getElementById("next-btn"),
    last: document.getElementById("last-btn")
  };
  var renderers = global.SetReplayRenderers = global.SetReplayRenderers || {};

  function phrases(cards) {
    return (cards || []).map(function (card) {
      try { return SetCards.phrase(card); } catch (e) { return String(card); }
    }).join(", ");
  }

  function clock(step) {
    var ms = Math.max(0, step.at_ms - steps[0].at_ms);
    var seconds = Math.floor(ms / 1000);
    return Math.floor(seconds / 60) + ":" + (seconds % 60 < 10 ? "0" : "") + (seconds % 60);
  }

  var STARTS = {set: "The cards are dealt.", square: "The board is empty.",
                setwar: "The cards are dealt."};

  function describeAction(step) {
    var a = step.action || {};
    var who = step.actor || "The game";
    switch (a.type) {
      case "start": return STARTS[cfg.kind] || "The game begins.";
      case "place":
        return who + " places piece " + a.piece + " (permutation " + a.permutation + ") at (" +
          a.x + "," + a.y + ").";
      case "pass": return who + " passes.";
      case "opening": return who + " opens with piece " + a.piece + ".";
      case "round": return "Round " + a.number + ".";
      case "join": return who + " joins.";
      case "tick": return "Time passes.";
      case "claim": return who + " claims " + phrases(a.cards) + ".";
      case "declare": return who + " declares.";
      case "pick": return who + " picks row " + (a.row + 1) + ", column " + (a.col + 1) + ".";
      case "add": return who + " votes to add cards.";
      case "hint": return who + " asks for a hint.";
      case "count": return who + " asks how many sets there are.";
      default: return who + ": " + JSON.stringify(a);
    }
  }

  function describeOutcome(step) {
    var o = step.outcome || {};
    var parts = [];
    (o.expired || []).forEach(function (event) {
      if (event.kind === "timeout") {
        parts.push(event.player + " ran out of time (" + event.delta + ")");
      } else if (event.cards) {
        parts.push("three cards were added");
      }
    });
    if (o.claim === "set" || o.pick === "set") {
      parts.push("a set! +" + o.points + (o.hinted ? " (hinted)" : ""));
    } else if (o.claim === "not_set" || o.pick === "not_set") {
      parts.push("not a set" + (o.points ? " (" + o.points + ")" : "") +
        (o.locked_out ? ", locked out" : ""));
    }
    if (o.declare === "declarer") parts.push("declaring");
    if (o.declare === "queued") parts.push("in line to declare");
    if (o.added) parts.push("three cards were added");
    if (o.hint) parts.push("shown " + phrases([o.hint.card]));
    if (typeof o.count === "number") parts.push(o.count + (o.count === 1 ? " set" : " sets"));
    if (typeof o.status === "number" && o.meaning) parts.push("status " + o.status + ": " + o.meaning);
    if (o.dealt) parts.push(o.dealt + " more cards dealt");
    if (o.over) parts.push("game over");
    return parts.join("; ");
  }

  /* The cards the next move takes or picks, outlined so the eye can follow the step. */
  function nextCards(i) {
    var next = steps[i + 1];
    if (!next || !next.action) return [];
    if (next.action.type === "claim") return next.action.cards || [];
    if (next.action.type === "pick" && Array.isArray(steps[i].view.board[0])) {
      var row = steps[i].view.board[next.action.row] || [];
      var cell = row[next.action.col];
      return cell ? [cell.card] : [];
    }
    return [];
  }

  function renderScores(view) {
    var scores = (view && view.scores) || {};
    el.scores.textContent = "";
    var names = Object.keys(scores).sort(function (a, b) { return scores[b] - scores[a]; });
    if (!names.length) {
      var empty = document.createElement("li");
      empty.className = "muted";
      empty.textContent = "Nobody has joined yet.";
      el.scores.appendChild(empty);
    }
    names.forEach(function (name) {
      var item = document.createElement("li");
      var label = document.createElement("span");
      label.className = "score-name";
      label.textContent = name;
      var value = document.createElement("span");
      value.className = "score-value";
      value.textContent = String(scores[name]);
      item.appendChild(label);
      item.appendChild(value);
      el.scores.appendChild(item);
    });
  }

  function show(i) {
    if (!steps.length) return;
    index = Math.max(0, Math.min(steps.length - 1, i));
    var step = steps[index];
    var renderer = renderers[cfg.kind];
    if (cfg.kind === "set") {
      el.json.hidden = true;
      el.board.hidden = false;
      SetBoard.render(el.board, step.view, {interactive: false, marked: nextCards(index)});
    } else if (renderer) {
      el.json.hidden = true;
      el.board.hidden = false;
      renderer(el.board, step.view, step);
    } else {
      el.board.hidden = true;
      el.json.hidden = false;
      el.json.textContent = JSON.stringify(step.view, null, 2);
    }
    var outcome = describeOutcome(step);
    el.move.textContent = describeAction(step) + (outcome ? " → " + outcome : "");
    el.label.textContent = "Step " + index + " of " + (steps.length - 1) + " · " + clock(step);
    el.slider.value = String(index);
    el.slider.setAttribute("aria-valuetext", "Step " + index + ": " + describeAction(step));
    renderScores(step.view);
    el.first.disabled = el.prev.disabled = index === 0;
    el.next.disabled = el.last.disabled = index === steps.length - 1;
    Array.prototype.forEach.call(el.list.children, function (item, n) {
      if (n === index) {
        item.setAttribute("aria-current", "step");
        if (item.scrollIntoView) item.scrollIntoView({block: "nearest"});
      } else {
        item.removeAttribute("aria-current");
      }
    });
  }

  function buildList() {
    el.list.textContent = "";
    steps.forEach(function (step, n) {
      var item = document.createElement("li");
      var button = document.createElement("button");
      button.type = "button";
      button.className = "move";
      button.dataset.step = String(n);
      var outcome = describeOutcome(step);
      var time = document.createElement("span");
      time.className = "move-time";
      time.textContent = clock(step);
      button.appendChild(time);
      button.appendChild(document.createTextNode(" " + describeAction(step) +
        (outcome ? " → " + outcome : "")));
      item.appendChild(button);
      el.list.appendChild(item);
    });
  }

  el.first.addEventListener("click", function () { show(0); });
  el.prev.addEventListener("click", function () { show(index - 1); });
  el.next.addEventListener("click", function () { show(index + 1); });
  el.last.addEventListener("click", function () { show(steps.length - 1); });
  el.slider.addEventListener("input", function () { show(Number(el.slider.value)); });
  el.list.addEventListener("click", function (event) {
    var button = event.target.closest ? event.target.closest("button.move") : null;
    if (button) show(Number(button.dataset.step));
  });
  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.target === el.slider) return;  // the slider steps by itself
    if (event.target && /^(INPUT|TEXTAREA|SELECT)$/.test(event.target.tagName)) return;
    var moves = {ArrowLeft: index - 1, ArrowRight: index + 1, Home: 0, End: steps.length - 1};
    if (event.key in moves) {
      event.preventDefault();
      show(moves[event.key]);
    }
  });
  if (global.SetBoard) SetBoard.onLayoutChange(function () { show(index); });

  Live.api("GET", cfg.data_url).then(function (reply) {
    if (!reply.ok || !reply.data.steps) {
      el.label.textContent = (reply.data && reply.data.detail) || "The replay could not be loaded.";
      return;
    }
    steps = reply.data.steps;
    el.slider.max = String(steps.length - 1);
    buildList();
    show(0);
    root.setAttribute("data-loaded", "1");
  });
})(window);

/* The Square Game in the browser: the board, the pieces, the play page and the replay renderer.
 *
 *   SquareGame.segments(piece, permutation, x, y)  the unit segments a placement lays (spec §3-4)
 *   SquareGame.drawBoard(svg, view, options)       draw a view's board into an <svg>
 *   SetReplayRenderers.square(element, view, step) the replay page's renderer for this kind
 *
 * The play page (#square-root, templates/square.html) talks to the server over the WebSocket
 * /ws/games/<id>/ (Live.GameSocket) and falls back to POST /api/games/<id>/moves. Legality is
 * shown before placing: the view lists the placements legal for you now (`legal`), and the ghost
 * is green on one of them, red elsewhere.
 *
 * Coordinates: lattice points (x, y), 0..32, y grows upward; the SVG's viewBox is in board units
 * with y flipped (screen y = 32 - y).
 */
(function (global) {
  "use strict";

  var SVGNS = "http://www.w3.org/2000/svg";
  var SIZE = 32;
  var OPENING = [15, 15];
  var DEFAULT_COLOURS = ["#d62828", "#1f6fd1", "#1b8a3a", "#d97706"];

  // The seven segments of the digital "8" relative to the zero point (its top-right corner).
  var LETTERS = {
    a: [[0, 0], [-1, 0]], b: [[0, 0], [0, -1]], c: [[0, -1], [0, -2]], d: [[0, -2], [-1, -2]],
    e: [[-1, -2], [-1, -1]], f: [[-1, 0], [-1, -1]], g: [[-1, -1], [0, -1]]
  };
  var PIECES = {
    1: "acdefg", 2: "bcefg", 3: "acfg", 4: "acefg", 5: "aefg", 6: "adefg", 7: "abefg",
    8: "abcefg", 9: "cfg", 10: "efg", 11: "acdfg", 12: "cefg", 13: "acdef", 14: "adef",
    15: "aef", 16: "abef"
  };

  /* Map a relative point: flip first (x -> -x) when permutation >= 5, then rotate right
   * (x, y) -> (y, -x) (permutation - 1) mod 4 times. */
  function transform(point, permutation) {
    var x = point[0], y = point[1];
    if (permutation >= 5) x = -x;
    for (var i = 0; i < (permutation - 1) % 4; i++) {
      var t = x;
      x = y;
      y = -t;
    }
    return [x + 0, y + 0];  // + 0 turns -0 into 0
  }

  function segments(piece, permutation, x, y) {
    return (PIECES[piece] || "").split("").map(function (letter) {
      return LETTERS[letter].map(function (point) {
        var p = transform(point, permutation);
        return [p[0] + (x || 0), p[1] + (y || 0)];
      });
    });
  }

  /* The middle of a piece's bounding box, relative to its zero point. */
  function center(piece, permutation) {
    var xs = [], ys = [];
    segments(piece, permutation, 0, 0).forEach(function (seg) {
      seg.forEach(function (p) { xs.push(p[0]); ys.push(p[1]); });
    });
    return [(Math.min.apply(null, xs) + Math.max.apply(null, xs)) / 2,
            (Math.min.apply(null, ys) + Math.max.apply(null, ys)) / 2];
  }

  function el(name, attrs, parent) {
    var node = document.createElementNS(SVGNS, name);
    Object.keys(attrs || {}).forEach(function (key) { node.setAttribute(key, attrs[key]); });
    if (parent) parent.appendChild(node);
    return node;
  }

  function colourOf(view, seat) {
    var colours = (view && view.colours) || DEFAULT_COLOURS;
    return colours[seat - 1] || "#888";
  }

  function line(parent, a, b, attrs) {
    var node = el("line", {x1: a[0], y1: SIZE - a[1], x2: b[0], y2: SIZE - b[1]}, parent);
    Object.keys(attrs || {}).forEach(function (key) { node.setAttribute(key, attrs[key]); });
    return node;
  }

  /* Make an empty board <svg> with its layers: grid, labels, squares, segments, spots, ghost. */
  function makeBoard(container) {
    var svg = el("svg", {
      viewBox: "-1 -1 " + (SIZE + 2) + " " + (SIZE + 2),
      "class": "sq-svg",
      role: "img",
      "aria-label": "The Square Game board"
    });
    el("rect", {x: -5, y: -5, width: SIZE + 10, height: SIZE + 10, "class": "sq-bg"}, svg);
    var grid = el("g", {"class": "sq-grid"}, svg);
    for (var i = 0; i <= SIZE; i++) {
      line(grid, [i, 0], [i, SIZE], {"class": i % 5 === 0 ? "sq-grid-major" : "sq-grid-line"});
      line(grid, [0, i], [SIZE, i], {"class": i % 5 === 0 ? "sq-grid-major" : "sq-grid-line"});
    }
    var layers = {
      labels: el("g", {"class": "sq-labels"}, svg),
      squares: el("g", {"class": "sq-squares"}, svg),
      segments: el("g", {"class": "sq-segments"}, svg),
      spots: el("g", {"class": "sq-spots"}, svg),
      ghost: el("g", {"class": "sq-ghost"}, svg)
    };
    container.textContent = "";
    container.appendChild(svg);
    svg.layers = layers;
    svg.window = null;
    return svg;
  }

  /* The part of the board worth showing: the pieces and 4 cells around them (every legal
   * placement lies within 2 of a laid point), at least 12 cells across, square. */
  function boardWindow(view) {
    var xs = [OPENING[0]], ys = [OPENING[1]];
    (view.board || []).forEach(function (item) {
      item.segment.forEach(function (p) { xs.push(p[0]); ys.push(p[1]); });
    });
    var lo = [Math.min.apply(null, xs) - 4, Math.min.apply(null, ys) - 4];
    var hi = [Math.max.apply(null, xs) + 4, Math.max.apply(null, ys) + 4];
    var span = Math.min(SIZE, Math.max(12, hi[0] - lo[0], hi[1] - lo[1]));
    var start = [0, 1].map(function (axis) {
      var middle = (lo[axis] + hi[axis]) / 2;
      return Math.max(0, Math.min(SIZE - span, Math.round(middle - span / 2)));
    });
    return {x0: start[0], y0: start[1], span: span};
  }

  /* Show `win` of the board: set the viewBox and label the lines at its left and bottom. */
  function frame(svg, win) {
    var pad = Math.max(0.8, win.span / 22);
    svg.setAttribute("viewBox", [win.x0 - pad, SIZE - (win.y0 + win.span) - pad,
      win.span + 2 * pad, win.span + 2 * pad].join(" "));
    svg.window = win;
    var labels = svg.layers.labels;
    labels.textContent = "";
    var size = pad * 0.5;
    var every = win.span <= 16 ? 2 : 5;
    for (var k = 0; k <= SIZE; k += every) {
      if (k >= win.x0 && k <= win.x0 + win.span) {
        el("text", {x: k, y: SIZE - win.y0 + pad * 0.78, "text-anchor": "middle",
          "font-size": size}, labels).textContent = k;
      }
      if (k >= win.y0 && k <= win.y0 + win.span) {
        el("text", {x: win.x0 - pad / 2, y: SIZE - k + size * 0.35, "text-anchor": "middle",
          "font-size": size}, labels).textContent = k;
      }
    }
  }

  /* Draw a view's board: squares shaded by the seat that closed them, each seat's segments in
   * its colour, the latest placement outlined. */
  function drawBoard(svg, view) {
    var layers = svg.layers;
    var win = boardWindow(view);
    if (!svg.window || svg.window.x0 !== win.x0 || svg.window.y0 !== win.y0 ||
        svg.window.span !== win.span) {
      frame(svg, win);
    }
    layers.squares.textContent = "";
    layers.segments.textContent = "";
    var lastSquares = {};
    ((view.last && view.last.squares) || []).forEach(function (cell) {
      lastSquares[cell[0] + "," + cell[1]] = true;
    });
    (view.squares || []).forEach(function (square) {
      var cx = square.cell[0], cy = square.cell[1];
      var rect = el("rect", {
        x: cx, y: SIZE - cy - 1, width: 1, height: 1,
        fill: square.seat ? colourOf(view, square.seat) : "#888",
        "class": "sq-square" + (lastSquares[cx + "," + cy] ? " sq-square-new" : ""),
        "data-cell": cx + "," + cy
      }, layers.squares);
      if (square.seat) rect.setAttribute("data-seat", square.seat);
    });
    var latest = 0;
    (view.placements || []).forEach(function (p) { latest = Math.max(latest, p.id); });
    (view.board || []).forEach(function (item) {
      var node = line(layers.segments, item.segment[0], item.segment[1], {
        stroke: colourOf(view, item.seat),
        "class": "sq-seg" + (item.placement === latest ? " sq-seg-last" : ""),
        "data-seat": item.seat,
        "data-placement": item.placement
      });
      node.setAttribute("stroke-linecap", "round");
    });
  }

  /* A small drawing of one piece in one permutation (the palette), its zero point ringed. */
  function pieceSvg(piece, permutation, colour) {
    var c = center(piece, permutation);
    var svg = el("svg", {
      viewBox: (c[0] - 1.7) + " " + (-c[1] - 1.7) + " 3.4 3.4",
      "class": "sq-piece-svg",
      "aria-hidden": "true"
    });
    segments(piece, permutation, 0, 0).forEach(function (seg) {
      el("line", {
        x1: seg[0][0], y1: -seg[0][1], x2: seg[1][0], y2: -seg[1][1],
        stroke: colour, "stroke-width": 0.32, "stroke-linecap": "round"
      }, svg);
    });
    el("circle", {cx: 0, cy: 0, r: 0.2, "class": "sq-zero"}, svg);
    return svg;
  }

  function nameOf(view, seat) {
    var names = view.names || [];
    return names[seat - 1] || ("seat " + seat);
  }

  /* Engine messages say "seat 2": say the player's name as well. */
  function withNames(view, text) {
    return String(text || "").replace(/\bseat (\d)\b/g, function (all, seat) {
      var name = (view.names || [])[Number(seat) - 1];
      return name ? name + " (seat " + seat + ")" : all;
    });
  }

  // --- the replay page --------------------------------------------------------------------------

  var renderers = global.SetReplayRenderers = global.SetReplayRenderers || {};
  renderers.square = function (element, view) {
    element.textContent = "";
    element.classList.add("sq-replay");
    var holder = document.createElement("div");
    holder.className = "square-board";
    element.appendChild(holder);
    drawBoard(makeBoard(holder), view);
    var caption = document.createElement("p");
    caption.className = "sq-replay-caption";
    var parts = (view.seats || []).map(function (seat) {
      return (seat.name || "seat " + seat.seat) + ": " + seat.pieces_left + " pieces left";
    });
    if (view.last) {
      parts.unshift("Status " + view.last.status + " · " + withNames(view, view.last.message));
    }
    if (view.over) {
      parts.unshift("Game over: won by " + (view.winner_names || []).join(", ") + ".");
    }
    caption.textContent = parts.join(" · ");
    element.appendChild(caption);
  };

  global.SquareGame = {
    segments: segments,
    transform: transform,
    center: center,
    makeBoard: makeBoard,
    drawBoard: drawBoard,
    pieceSvg: pieceSvg
  };

  // --- the play page ----------------------------------------------------------------------------

  var root = document.getElementById("square-root");
  if (!root) return;
  var cfg = JSON.parse(document.getElementById("square-config").textContent);
  var view = JSON.parse(document.getElementById("square-view").textContent);
  var ui = {
    board: document.getElementById("square-board"),
    turn: document.getElementById("turn"),
    ghostInfo: document.getElementById("ghost-info"),
    message: document.getElementById("message"),
    palette: document.getElementById("palette"),
    palettePerm: document.getElementById("palette-perm"),
    players: document.getElementById("players"),
    last: document.getElementById("last-status"),
    result: document.getElementById("result-panel"),
    resultText: document.getElementById("result-text"),
    invite: document.getElementById("invite-panel"),
    joinPanel: document.getElementById("join-panel"),
    connection: document.getElementById("connection"),
    rotate: document.getElementById("rotate-btn"),
    flip: document.getElementById("flip-btn"),
    place: document.getElementById("place-btn"),
    pass: document.getElementById("pass-btn"),
    spots: document.getElementById("spots-toggle"),
    controls: document.getElementById("controls"),
    palettePanel: document.getElementById("palette-panel")
  };
  var svg = makeBoard(ui.board);
  var hit = el("rect", {x: -5, y: -5, width: SIZE + 10, height: SIZE + 10, "class": "sq-hit"}, svg);
  var pick = {piece: null, rotation: 0, flip: false, at: null};
  var legal = {};       // "piece,perm,x,y" -> true
  var legalSpots = {};  // "piece,perm" -> [[x, y], ...]
  var computers = {};
  (cfg.computers || []).forEach(function (name) { computers[name] = true; });
  var pending = false;

  function permutation() {
    return pick.rotation + 1 + (pick.flip ? 4 : 0);
  }

  function myHand() {
    if (!view.seat) return [];
    var seat = (view.seats || [])[view.seat - 1];
    return seat ? seat.hand : [];
  }

  function isOpening() {
    return view.phase === "opening";
  }

  function say(text, tone) {
    ui.message.textContent = text || "";
    ui.message.className = "message" + (tone ? " " + tone : "");
  }

  function indexLegal() {
    legal = {};
    legalSpots = {};
    (view.legal || []).forEach(function (m) {
      legal[m.join(",")] = true;
      var key = m[0] + "," + m[1];
      (legalSpots[key] = legalSpots[key] || []).push([m[2], m[3]]);
    });
  }

  function spotsForPiece(piece) {
    var n = 0;
    for (var perm = 1; perm <= 8; perm++) n += (legalSpots[piece + "," + perm] || []).length;
    return n;
  }

  function render() {
    indexLegal();
    drawBoard(svg, view);
    if (pick.piece !== null && myHand().indexOf(pick.piece) < 0) pick.piece = null;
    renderTurn();
    renderPlayers();
    renderLast();
    renderPalette();
    renderGhost();
    var over = !!view.over;
    ui.result.hidden = !over;
    if (over) {
      var winners = view.winner_names || [];
      ui.resultText.textContent = (winners.length > 1 ? "Winners: " : "Winner: ") +
        winners.join(", ") + "." + (view.dead_position ?
          " No active player could place a piece: the fewest pieces left won." : "");
    }
    if (ui.invite) ui.invite.hidden = view.phase !== "waiting";
    if (ui.joinPanel && view.phase !== "waiting") ui.joinPanel.hidden = true;
    // Watchers have no pieces to place; once the game is over nobody has.
    ui.palettePanel.hidden = !view.seat;
    ui.controls.hidden = ui.ghostInfo.hidden = !view.seat || over;
    var mine = !!view.your_turn;
    ui.pass.disabled = !mine || isOpening();
    ui.place.disabled = !mine || pick.piece === null;
    ui.rotate.disabled = ui.flip.disabled = pick.piece === null && !myHand().length;
    root.setAttribute("data-version", String(cfg.version));
    root.setAttribute("data-your-turn", mine ? "1" : "0");
    root.setAttribute("data-phase", view.phase);
  }

  function renderTurn() {
    var text;
    if (view.over) {
      text = "Game over. " + ((view.winner_names || []).length > 1 ? "Winners: " : "Winner: ") +
        (view.winner_names || []).join(", ") + ".";
    } else if (view.phase === "waiting") {
      text = "Waiting for " + view.waiting_for + " more player" +
        (view.waiting_for === 1 ? "" : "s") + " to join.";
    } else if (view.your_turn && isOpening()) {
      text = "Your opening: choose any piece and any turn of it; it goes at (15,15).";
    } else if (view.your_turn) {
      text = "Your turn: place a piece that closes a new square" +
        (view.moves_left > 1 ? " (" + view.moves_left + " placements left)" : "") + ". " +
        view.legal_count + " legal placement" + (view.legal_count === 1 ? "" : "s") + ".";
    } else {
      text = "It is " + nameOf(view, view.to_move) + "'s " +
        (isOpening() ? "opening" : "turn") + (computers[nameOf(view, view.to_move)] ?
          " (the computer is thinking)" : "") + ".";
    }
    if (!view.over && view.final_round !== null && view.final_round !== undefined) {
      text += " Final round: " + view.final_round + " turn" +
        (view.final_round === 1 ? "" : "s") + " left.";
    }
    ui.turn.textContent = text;
    ui.turn.className = "turn" + (view.your_turn ? " your-turn" : "");
  }

  function badge(parent, text, className) {
    var span = document.createElement("span");
    span.className = "badge" + (className ? " " + className : "");
    span.textContent = text;
    parent.appendChild(span);
  }

  function renderPlayers() {
    ui.players.textContent = "";
    (view.seats || []).forEach(function (seat) {
      var item = document.createElement("li");
      item.dataset.seat = String(seat.seat);
      if (seat.name) item.dataset.player = seat.name;
      if (seat.seat === view.to_move && !view.over) item.className = "to-move";
      var swatch = document.createElement("span");
      swatch.className = "sq-swatch";
      swatch.style.background = seat.colour;
      item.appendChild(swatch);
      var name = document.createElement("span");
      name.className = "score-name";
      name.textContent = seat.name || "(free seat " + seat.seat + ")";
      if (!seat.name) name.classList.add("muted");
      item.appendChild(name);
      if (seat.seat === view.seat) badge(item, "you", "badge-you");
      if (seat.name && computers[seat.name]) badge(item, "computer");
      if (seat.seat === view.to_move && !view.over) badge(item, "to move", "badge-declaring");
      if ((view.winners || []).indexOf(seat.seat) >= 0) badge(item, "winner", "sq-badge-winner");
      else if (seat.finished) badge(item, "finished");
      var stats = document.createElement("span");
      stats.className = "score-value sq-stats";
      stats.textContent = seat.pieces_left + " left · " + seat.squares + " sq";
      stats.title = seat.pieces_left + " pieces left in hand; " + seat.squares +
        " squares closed";
      item.appendChild(stats);
      ui.players.appendChild(item);
    });
  }

  function renderLast() {
    var last = view.last;
    if (!last) {
      ui.last.textContent = view.phase === "waiting" ? "The game has not begun." :
        "No move yet: " + nameOf(view, view.players) + " makes the opening.";
      return;
    }
    ui.last.textContent = "";
    var code = document.createElement("strong");
    code.className = "status-code";
    code.textContent = "Status " + last.status;
    ui.last.appendChild(code);
    ui.last.appendChild(document.createTextNode(" — " + (last.meaning ||
      cfg.meanings[String(last.status)] || "") + ". "));
    var what = document.createElement("span");
    what.className = "muted";
    what.textContent = withNames(view, last.message);
    ui.last.appendChild(what);
    ui.last.dataset.status = String(last.status);
  }

  function renderPalette() {
    ui.palette.textContent = "";
    var hand = myHand();
    var perm = permutation();
    ui.palettePerm.textContent = view.seat ? "(permutation " + perm + ": " +
      (pick.flip ? "flipped, " : "") + pick.rotation + " quarter turn" +
      (pick.rotation === 1 ? "" : "s") + ")" : "";
    if (!view.seat) {
      var none = document.createElement("p");
      none.className = "muted";
      none.textContent = "You are watching: the players' pieces are listed beside the board.";
      ui.palette.appendChild(none);
      return;
    }
    if (!hand.length) {
      var empty = document.createElement("p");
      empty.className = "muted";
      empty.textContent = "You have placed all your pieces.";
      ui.palette.appendChild(empty);
      return;
    }
    var colour = colourOf(view, view.seat);
    hand.forEach(function (piece) {
      var button = document.createElement("button");
      button.type = "button";
      button.className = "sq-palette-piece";
      button.dataset.piece = String(piece);
      button.setAttribute("aria-pressed", pick.piece === piece ? "true" : "false");
      var spots = spotsForPiece(piece);
      if (view.your_turn && !spots) button.classList.add("sq-no-fit");
      button.title = "Piece " + piece + (view.your_turn ? ": " + spots + " legal placement" +
        (spots === 1 ? "" : "s") + " in all turns" : "");
      button.appendChild(pieceSvg(piece, perm, colour));
      var label = document.createElement("span");
      label.className = "sq-piece-label";
      label.textContent = String(piece);
      button.appendChild(label);
      ui.palette.appendChild(button);
    });
  }

  function ghostLegal() {
    if (pick.piece === null || !pick.at) return false;
    return !!legal[[pick.piece, permutation(), pick.at[0], pick.at[1]].join(",")];
  }

  function renderGhost() {
    var layer = svg.layers.ghost;
    var spotsLayer = svg.layers.spots;
    layer.textContent = "";
    spotsLayer.textContent = "";
    if (pick.piece === null) {
      ui.ghostInfo.textContent = view.seat && myHand().length && !view.over ?
        "Choose a piece below (click it, or press ] )." : "";
      ui.ghostInfo.dataset.legal = "";
      return;
    }
    var perm = permutation();
    if (ui.spots.checked && view.your_turn) {
      (legalSpots[pick.piece + "," + perm] || []).forEach(function (spot) {
        el("circle", {cx: spot[0], cy: SIZE - spot[1], r: 0.2, "class": "sq-spot"}, spotsLayer);
      });
    }
    if (isOpening() && view.your_turn) pick.at = OPENING.slice();
    if (!pick.at) {
      ui.ghostInfo.textContent = "Piece " + pick.piece + ": move over the board to place it.";
      ui.ghostInfo.dataset.legal = "";
      return;
    }
    var ok = ghostLegal();
    var tone = ok ? "sq-ghost-legal" : "sq-ghost-illegal";
    segments(pick.piece, perm, pick.at[0], pick.at[1]).forEach(function (seg) {
      line(layer, seg[0], seg[1], {"class": "sq-ghost-seg " + tone});
    });
    el("circle", {cx: pick.at[0], cy: SIZE - pick.at[1], r: 0.22, "class": "sq-ghost-zero " + tone},
       layer);
    var where = "Piece " + pick.piece + "/" + perm + " at (" + pick.at[0] + "," + pick.at[1] + ")";
    var count = (legalSpots[pick.piece + "," + perm] || []).length;
    if (!view.your_turn) {
      ui.ghostInfo.textContent = where + ": wait for your turn.";
      ui.ghostInfo.dataset.legal = "";
    } else if (ok) {
      ui.ghostInfo.textContent = where + ": legal. Click or press Enter to place.";
      ui.ghostInfo.dataset.legal = "1";
    } else {
      ui.ghostInfo.textContent = where + ": not legal here. This piece fits " + count +
        " place" + (count === 1 ? "" : "s") + " turned this way" +
        (count && ui.spots.checked ? " (the green dots)." : ".");
      ui.ghostInfo.dataset.legal = "0";
    }
    layer.setAttribute("data-legal", ok ? "1" : "0");
  }

  // --- choosing, turning and moving the piece --------------------------------------------------

  function choose(piece) {
    pick.piece = piece;
    if (!pick.at) {
      var spots = legalSpots[piece + "," + permutation()] || [];
      pick.at = spots.length ? spots[0].slice() : OPENING.slice();
    }
    render();
  }

  function cycle(step) {
    var hand = myHand();
    if (!hand.length) return;
    var at = hand.indexOf(pick.piece);
    var next = at < 0 ? (step > 0 ? 0 : hand.length - 1) : (at + step + hand.length) % hand.length;
    choose(hand[next]);
  }

  /* Turn the piece a quarter turn clockwise on screen, keeping its middle where it was. */
  function rotate() {
    keepCentre(function () { pick.rotation = (pick.rotation + 1) % 4; });
  }

  /* Mirror the piece left and right as drawn: flip, and undo the rotation's handedness. */
  function flip() {
    keepCentre(function () {
      pick.flip = !pick.flip;
      pick.rotation = (4 - pick.rotation) % 4;
    });
  }

  function keepCentre(change) {
    var before = pick.piece !== null && pick.at ? center(pick.piece, permutation()) : null;
    change();
    if (before && !(isOpening() && view.your_turn)) {
      var after = center(pick.piece, permutation());
      pick.at = [Math.round(pick.at[0] + before[0] - after[0]),
                 Math.round(pick.at[1] + before[1] - after[1])];
    }
    render();
  }

  function boardPoint(event) {
    var matrix = svg.getScreenCTM();
    if (!matrix) return null;
    var point = svg.createSVGPoint();
    point.x = event.clientX;
    point.y = event.clientY;
    var p = point.matrixTransform(matrix.inverse());
    return [p.x, SIZE - p.y];
  }

  /* The zero point that puts the piece's middle under the pointer. */
  function zeroUnder(event) {
    var p = boardPoint(event);
    if (!p || pick.piece === null) return null;
    var c = center(pick.piece, permutation());
    var x = Math.round(p[0] - c[0]);
    var y = Math.round(p[1] - c[1]);
    return [Math.max(-2, Math.min(SIZE + 2, x)), Math.max(-2, Math.min(SIZE + 2, y))];
  }

  function follow(event) {
    if (pick.piece === null || (isOpening() && view.your_turn)) return;
    var at = zeroUnder(event);
    if (!at || (pick.at && at[0] === pick.at[0] && at[1] === pick.at[1])) return;
    pick.at = at;
    renderGhost();
  }

  hit.addEventListener("pointermove", follow);
  hit.addEventListener("pointerdown", function (event) {
    if (pick.piece === null) return;
    var at = isOpening() && view.your_turn ? OPENING.slice() : zeroUnder(event);
    if (!at) return;
    var moved = !pick.at || at[0] !== pick.at[0] || at[1] !== pick.at[1];
    pick.at = at;
    renderGhost();
    // A touch first shows the ghost; a second touch on the same spot places it.
    if (event.pointerType === "touch" && moved) return;
    event.preventDefault();
    placeGhost();
  });

  function move(dx, dy) {
    if (pick.piece === null) return;
    if (isOpening() && view.your_turn) return;
    var at = pick.at || OPENING.slice();
    pick.at = [Math.max(-2, Math.min(SIZE + 2, at[0] + dx)),
               Math.max(-2, Math.min(SIZE + 2, at[1] + dy))];
    renderGhost();
  }

  // --- acting ------------------------------------------------------------------------------------

  var socket = null;

  function describe(outcome) {
    var meaning = outcome.meaning || cfg.meanings[String(outcome.status)] || "";
    var text = "Status " + outcome.status + " — " + meaning + ".";
    var squares = (outcome.squares || []).length;
    if (outcome.action && outcome.action.type === "place") {
      text += " You closed " + squares + " square" + (squares === 1 ? "" : "s") + ".";
    }
    return text;
  }

  function refused(detail) {
    say("Refused (status -1 — " + cfg.meanings["-1"] + "): " + withNames(view, detail), "bad");
  }

  function act(action) {
    if (pending) return;
    if (!view.seat) { say("You are watching: join the game to play.", "info"); return; }
    if (socket && socket.send(action)) {
      pending = true;
      setTimeout(function () { pending = false; }, 1500);
      return;
    }
    pending = true;
    Live.api("POST", cfg.moves_url, action, cfg.csrf).then(function (reply) {
      pending = false;
      if (!reply.ok) { refused(reply.data.detail || "The move was refused."); return; }
      say(describe(reply.data.outcome), "good");
      update(reply.data.version, reply.data.view);
    });
  }

  function placeGhost() {
    if (pick.piece === null) { say("Choose a piece first.", "info"); return; }
    if (!view.your_turn) {
      say(view.over ? "The game is over." : "It is " + nameOf(view, view.to_move) +
        "'s turn, not yours.", "info");
      return;
    }
    if (!pick.at) return;
    act({type: "place", piece: pick.piece, permutation: permutation(),
         x: pick.at[0], y: pick.at[1]});
  }

  function pass() {
    if (!view.your_turn) { say("You can pass only on your turn.", "info"); return; }
    act({type: "pass"});
  }

  function update(version, newView) {
    if (typeof version === "number") {
      if (version < cfg.version) return;
      cfg.version = version;
    }
    var before = (view.names || []).join(",");
    view = newView;
    if ((view.names || []).join(",") !== before) refreshSeats();
    render();
  }

  /* Learn which seats the computer plays (the view names seats; the game's seats say who). */
  function refreshSeats(attempt) {
    Live.api("GET", cfg.api_url).then(function (reply) {
      if (!reply.ok) {
        if ((attempt || 0) < 3) setTimeout(function () { refreshSeats((attempt || 0) + 1); }, 800);
        return;
      }
      computers = {};
      (reply.data.seats || []).forEach(function (seat) {
        if (seat.is_computer) computers[seat.name] = true;
      });
      render();
    });
  }

  ui.palette.addEventListener("click", function (event) {
    var button = event.target.closest ? event.target.closest(".sq-palette-piece") : null;
    if (!button) return;
    var piece = Number(button.dataset.piece);
    if (pick.piece === piece) { rotate(); return; }  // a second click turns it
    choose(piece);
  });
  ui.rotate.addEventListener("click", rotate);
  ui.flip.addEventListener("click", flip);
  ui.place.addEventListener("click", placeGhost);
  ui.pass.addEventListener("click", pass);
  ui.spots.addEventListener("change", renderGhost);

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    var target = event.target;
    if (target && /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName) && target !== ui.spots) return;
    var onButton = target && target.tagName === "BUTTON" &&
      !target.classList.contains("sq-palette-piece");
    var key = event.key;
    var handled = true;
    if (key === "r" || key === "R") ui.rotate.click();
    else if (key === "f" || key === "F") ui.flip.click();
    else if (key === "p" || key === "P") pass();
    else if (key === "h" || key === "H") { ui.spots.checked = !ui.spots.checked; renderGhost(); }
    else if (key === "]") cycle(1);
    else if (key === "[") cycle(-1);
    else if (key === "Escape") { pick.piece = null; render(); }
    else if (key === "ArrowLeft") move(-1, 0);
    else if (key === "ArrowRight") move(1, 0);
    else if (key === "ArrowUp") move(0, 1);
    else if (key === "ArrowDown") move(0, -1);
    else if (key === "Enter" && !onButton) placeGhost();
    else handled = false;
    if (handled) event.preventDefault();
  });

  // --- joining ---------------------------------------------------------------------------------

  function join() {
    if (!cfg.name) return;
    Live.api("POST", cfg.join_url, {name: cfg.name}, cfg.csrf).then(function (reply) {
      if (!reply.ok) { say(reply.data.detail || "You could not join.", "bad"); return; }
      global.location.replace(cfg.page_url);
    });
  }
  var joinButton = document.getElementById("join-btn");
  if (joinButton) joinButton.addEventListener("click", join);
  var addComputer = document.getElementById("add-computer-btn");
  if (addComputer) {
    addComputer.addEventListener("click", function () {
      Live.api("POST", cfg.computers_url, {speed: "fast"}, cfg.csrf).then(function (reply) {
        if (!reply.ok) say(reply.data.detail || "No computer could be seated.", "bad");
      });
    });
  }
  var copy = document.getElementById("copy-btn");
  if (copy) {
    copy.addEventListener("click", function () {
      var input = document.getElementById("share-url");
      input.select();
      if (navigator.clipboard) navigator.clipboard.writeText(input.value);
      copy.textContent = "Copied";
    });
  }

  // --- live ------------------------------------------------------------------------------------

  socket = new Live.GameSocket(cfg.ws_url, {
    state: function (message) { update(message.version, message.view); },
    result: function (message) {
      pending = false;
      say(describe(message.outcome || {}), "good");
    },
    error: function (message) {
      pending = false;
      refused(message.detail);
    },
    status: function (state) {
      ui.connection.dataset.state = state;
      ui.connection.textContent = {connecting: "Connecting…", live: "Live",
        reconnecting: "Reconnecting…", closed: "Disconnected"}[state] || state;
    }
  });

  render();
  if (cfg.auto_join) join();
})(window);

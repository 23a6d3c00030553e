/* The Square Game's play page (templates/square.html, #square-root).
 *
 * The page talks to the server over the game's socket (lib/socket.js) and falls back to
 * POST /api/games/<id>/moves (lib/api.js). Legality is shown before anything is sent: the view
 * lists the placements legal for you now (`legal`); the ghost is green on one of them, red
 * elsewhere, and green dots mark where the chosen piece fits. The pointer holds the piece by its
 * middle and a dot marks a legal placement's middle, so a click on a dot places exactly that
 * placement (square/geometry.js).
 *
 * The page's config (#square-config) carries the pieces' shapes, written by the engine
 * (`pieces[piece][permutation]`: segments relative to the zero point) and the addresses; the
 * view (#square-view, then each state pushed) says the rest. Moves are told in words (the status
 * codes stay in the API); a message under the board lasts until the next move or the end.
 */

import {request, useCsrfToken} from "../lib/api.js";
import {mountChat} from "../lib/chat.js";
import {plural} from "../lib/format.js";
import {renderRatedNote, renderRatings} from "../lib/ratings.js";
import {Presence} from "../lib/presence.js";
import {GameSocket, showStatus} from "../lib/socket.js";
import {
  boardPoint,
  drawBoard,
  drawGhost,
  drawSpots,
  hitArea,
  makeBoard,
  pieceSvg,
  touchRadius,
} from "../square/board.js";
import {
  anchorUnder,
  keepMiddle,
  legalIndex,
  middleOf,
  moved,
  nearestSpot,
  permutationOf,
  segmentsAt,
  shapeOf,
  spotOf,
} from "../square/geometry.js";
import {moveSentence, nameOf, outcomeText, turnText, winnersText} from "../square/text.js";

function readJson(id) {
  return JSON.parse(document.getElementById(id).textContent);
}

function start(root) {
  const cfg = readJson("square-config");
  let view = readJson("square-view");
  let socketState = "connecting";
  useCsrfToken(cfg.csrf);
  const shapes = cfg.pieces;
  const byId = (id) => document.getElementById(id);
  const ui = {
    board: byId("square-board"),
    turn: byId("turn"),
    ghostInfo: byId("ghost-info"),
    message: byId("message"),
    palette: byId("palette"),
    palettePerm: byId("palette-perm"),
    players: byId("players"),
    last: byId("last-status"),
    result: byId("result-panel"),
    resultText: byId("result-text"),
    invite: byId("invite-panel"),
    joinPanel: byId("join-panel"),
    connection: byId("connection"),
    rotate: byId("rotate-btn"),
    flip: byId("flip-btn"),
    place: byId("place-btn"),
    pass: byId("pass-btn"),
    spots: byId("spots-toggle"),
    controls: byId("controls"),
    palettePanel: byId("palette-panel"),
  };
  const board = makeBoard(ui.board, view);
  const size = board.size;
  const hit = hitArea(board);

  const pick = {piece: null, rotation: 0, flip: false, at: null};
  let legal = legalIndex([]);
  let computers = new Set(cfg.computers || []);
  let guests = new Set(cfg.guests || []);
  let bots = new Set(cfg.bots || []);
  const presence = new Presence();
  let pending = false;
  let socket = null;
  let said = null; // the engine message of the move the message under the board tells, if any

  // A touch screen, or one as narrow as a phone's: each green dot gets a ring of 40 px that a
  // touch anywhere in takes (a dot alone is a few pixels across there).
  const touchy = () => window.matchMedia("(pointer: coarse), (max-width: 640px)").matches;
  const permutation = () => permutationOf(pick.rotation, pick.flip);
  const shape = () => shapeOf(shapes, pick.piece, permutation());
  const isOpening = () => view.phase === "opening";
  const openingNow = () => isOpening() && view.your_turn;

  function myHand() {
    if (!view.seat) return [];
    const seat = (view.seats || [])[view.seat - 1];
    return seat ? seat.hand : [];
  }

  function say(text, tone, about = null) {
    ui.message.textContent = text || "";
    ui.message.className = `message${tone ? ` ${tone}` : ""}`;
    said = about;
  }

  // --- drawing ---------------------------------------------------------------------------------

  function render() {
    legal = legalIndex(view.legal);
    drawBoard(board, view);
    if (pick.piece !== null && !myHand().includes(pick.piece)) pick.piece = null;
    ui.turn.textContent = turnText(view, (name) => computers.has(name));
    ui.turn.className = `turn${view.your_turn ? " your-turn" : ""}`;
    renderPlayers();
    renderLast();
    renderPalette();
    renderGhost();
    const over = !!view.over;
    ui.result.hidden = !over;
    const again = byId("rematch-btn");
    if (again) again.hidden = !view.you; // its players may play it again
    if (over) {
      ui.resultText.textContent =
        winnersText(view) +
        (view.dead_position
          ? " No active player could place a piece: the fewest pieces left won."
          : "");
    }
    if (ui.invite) ui.invite.hidden = view.phase !== "waiting";
    if (ui.joinPanel && view.phase !== "waiting") ui.joinPanel.hidden = true;
    // Watchers have no pieces to place; once the game is over nobody has.
    ui.palettePanel.hidden = !view.seat;
    ui.controls.hidden = ui.ghostInfo.hidden = !view.seat || over;
    const mine = !!view.your_turn;
    ui.pass.disabled = !mine || isOpening();
    ui.place.disabled = !mine || pick.piece === null;
    ui.rotate.disabled = ui.flip.disabled = pick.piece === null && !myHand().length;
    root.dataset.version = String(cfg.version);
    root.dataset.yourTurn = mine ? "1" : "0";
    root.dataset.phase = view.phase;
    drawLeavers();
  }

  /* "End the game: X left": offered to the other seats of a rated game being played once the
   * seat to move has been away on its turn for the table's away time (no move since its turn
   * began, and no page open here); the server judges. */
  function drawLeavers(now = Date.now()) {
    const box = byId("leavers");
    if (!box) return;
    const name = view.to_move_name;
    const playing = view.you && cfg.rated && !view.over && view.phase !== "waiting";
    const away =
      playing && name && name !== view.you && !computers.has(name) && view.away_at !== null &&
      now >= view.away_at && presence.of(name) !== "here";
    const gone = away ? [name] : [];
    const shown = [...box.querySelectorAll("button")].map((b) => b.dataset.seat);
    if (JSON.stringify(shown) === JSON.stringify(gone)) return;
    box.replaceChildren(
      ...gone.map((seat) => {
        const button = document.createElement("button");
        button.type = "button";
        button.className = "end-left-btn";
        button.dataset.seat = seat;
        button.textContent = `End the game: ${seat} left`;
        button.addEventListener("click", () => act({type: "end_left", seat}));
        return button;
      }),
    );
    box.hidden = gone.length === 0;
  }

  function badge(parent, text, className) {
    const span = document.createElement("span");
    span.className = `badge${className ? ` ${className}` : ""}`;
    span.textContent = text;
    parent.appendChild(span);
  }

  /* The seats in turn order (not a ranking: the Square Game has no points), with their pieces
   * left and squares closed. */
  function renderPlayers() {
    ui.players.textContent = "";
    for (const seat of view.seats || []) {
      const item = document.createElement("li");
      item.dataset.seat = String(seat.seat);
      if (seat.name) item.dataset.player = seat.name;
      const toMove = seat.seat === view.to_move && !view.over;
      if (toMove) item.className = "to-move";
      const swatch = document.createElement("span");
      swatch.className = "sq-swatch";
      swatch.style.background = seat.colour;
      item.appendChild(swatch);
      const name = document.createElement("span");
      name.className = "score-name";
      name.textContent = seat.name || `(free seat ${seat.seat})`;
      if (!seat.name) name.classList.add("muted");
      item.appendChild(name);
      if (seat.seat === view.seat) badge(item, "you", "badge-you");
      if (seat.name && bots.has(seat.name)) badge(item, "BOT", "badge-bot");
      if (seat.name && computers.has(seat.name)) badge(item, "computer");
      if (seat.name && guests.has(seat.name)) badge(item, "guest");
      const where = seat.name && !computers.has(seat.name) ? presence.of(seat.name) : null;
      if (where) badge(item, where, `badge-${where}`);
      if (toMove) badge(item, "to move", "badge-declaring");
      if ((view.winners || []).includes(seat.seat)) badge(item, "winner", "sq-badge-winner");
      else if (seat.finished) badge(item, "finished");
      const stats = document.createElement("span");
      stats.className = "score-value sq-stats";
      stats.textContent = `${seat.pieces_left} left · ${seat.squares} sq`;
      stats.title =
        `${plural(seat.pieces_left, "piece", "pieces")} left in hand; ` +
        `${plural(seat.squares, "square", "squares")} closed`;
      item.appendChild(stats);
      ui.players.appendChild(item);
    }
  }

  function renderLast() {
    const last = view.last;
    if (!last) {
      ui.last.textContent =
        view.phase === "waiting"
          ? "The game has not begun."
          : `No move yet: ${nameOf(view, view.players)} makes the opening.`;
      return;
    }
    ui.last.textContent = moveSentence(view, last.message);
    ui.last.dataset.status = String(last.status); // the spec's code, for programs
  }

  function renderPalette() {
    ui.palette.textContent = "";
    const hand = myHand();
    const perm = permutation();
    const turns = plural(pick.rotation, "quarter turn", "quarter turns");
    ui.palettePerm.textContent = view.seat
      ? `(permutation ${perm}: ${pick.flip ? "flipped, " : ""}${turns})`
      : "";
    if (!view.seat || !hand.length) {
      const note = document.createElement("p");
      note.className = "muted";
      note.textContent = view.seat
        ? "You have placed all your pieces."
        : "You are watching: the players' pieces are listed beside the board.";
      ui.palette.appendChild(note);
      return;
    }
    const colour = (view.colours || [])[view.seat - 1];
    for (const piece of hand) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "sq-palette-piece";
      button.dataset.piece = String(piece);
      button.setAttribute("aria-pressed", String(pick.piece === piece));
      const fits = legal.count(piece);
      if (view.your_turn && !fits) button.classList.add("sq-no-fit");
      button.title =
        `Piece ${piece}` +
        (view.your_turn
          ? `: ${plural(fits, "legal placement", "legal placements")} in all turns`
          : "");
      button.appendChild(pieceSvg(shapeOf(shapes, piece, perm), colour));
      const label = document.createElement("span");
      label.className = "sq-piece-label";
      label.textContent = String(piece);
      button.appendChild(label);
      ui.palette.appendChild(button);
    }
  }

  function ghostLegal() {
    if (pick.piece === null || !pick.at) return false;
    return legal.has(pick.piece, permutation(), pick.at[0], pick.at[1]);
  }

  function renderGhost() {
    drawGhost(board, [], null, false);
    drawSpots(board, []);
    if (pick.piece === null) {
      ui.ghostInfo.textContent =
        view.seat && myHand().length && !view.over
          ? "Choose a piece below (click it, or press ] )."
          : "";
      ui.ghostInfo.dataset.legal = "";
      return;
    }
    const perm = permutation();
    const spots = legal.spots(pick.piece, perm);
    if (ui.spots.checked && view.your_turn) {
      const middle = middleOf(shape());
      drawSpots(
        board,
        spots.map((anchor) => spotOf(anchor, middle)),
        touchy() ? touchRadius(board) : 0,
      );
    }
    if (openingNow()) pick.at = view.opening.slice();
    if (!pick.at) {
      ui.ghostInfo.textContent = `Piece ${pick.piece}: move over the board to place it.`;
      ui.ghostInfo.dataset.legal = "";
      return;
    }
    const ok = ghostLegal();
    drawGhost(board, segmentsAt(shapes, pick.piece, perm, pick.at[0], pick.at[1]), pick.at, ok);
    const where = `Piece ${pick.piece}/${perm} at (${pick.at[0]},${pick.at[1]})`;
    if (!view.your_turn) {
      ui.ghostInfo.textContent = `${where}: wait for your turn.`;
      ui.ghostInfo.dataset.legal = "";
    } else if (ok) {
      const how = touchy() ? "Touch it again or press Place" : "Click or press Enter to place";
      ui.ghostInfo.textContent = `${where}: legal. ${how}.`;
      ui.ghostInfo.dataset.legal = "1";
    } else {
      const dots = spots.length && ui.spots.checked ? " (the green dots)." : ".";
      ui.ghostInfo.textContent =
        `${where}: not legal here. This piece fits ` +
        `${plural(spots.length, "place", "places")} turned this way${dots}`;
      ui.ghostInfo.dataset.legal = "0";
    }
  }

  // --- choosing, turning and moving the piece --------------------------------------------------

  function choose(piece) {
    pick.piece = piece;
    if (ui.message.classList.contains("info")) say(""); // "Choose a piece first." is done
    if (!pick.at) {
      const spots = legal.spots(piece, permutation());
      pick.at = spots.length ? spots[0].slice() : view.opening.slice();
    }
    render();
  }

  function cycle(step) {
    const hand = myHand();
    if (!hand.length) return;
    const at = hand.indexOf(pick.piece);
    const first = step > 0 ? 0 : hand.length - 1;
    const next = at < 0 ? first : (at + step + hand.length) % hand.length;
    choose(hand[next]);
  }

  /* Turn or mirror the piece keeping its middle where it was (so it stays under the pointer). */
  function turn(change) {
    const before = pick.piece !== null && pick.at ? middleOf(shape()) : null;
    change();
    if (before && !openingNow()) pick.at = keepMiddle(pick.at, before, middleOf(shape()));
    render();
  }

  /* A quarter turn clockwise on screen. */
  const rotate = () =>
    turn(() => {
      pick.rotation = (pick.rotation + 1) % 4;
    });

  /* Mirror left and right as drawn: flip, and undo the rotation's handedness. */
  const flip = () =>
    turn(() => {
      pick.flip = !pick.flip;
      pick.rotation = (4 - pick.rotation) % 4;
    });

  /* The zero point that puts the piece's middle under the pointer. */
  function anchorAt(event) {
    const point = boardPoint(board, event.clientX, event.clientY);
    if (!point || pick.piece === null) return null;
    const middle = middleOf(shape());
    if (touchy() && ui.spots.checked && view.your_turn) {
      const spots = legal.spots(pick.piece, permutation());
      const near = nearestSpot(point, spots, middle, touchRadius(board));
      if (near) return near;
    }
    return anchorUnder(point, middle, size);
  }

  function follow(event) {
    if (pick.piece === null || openingNow()) return;
    const at = anchorAt(event);
    if (!at || (pick.at && at[0] === pick.at[0] && at[1] === pick.at[1])) return;
    pick.at = at;
    renderGhost();
  }

  hit.addEventListener("pointermove", follow);
  hit.addEventListener("pointerdown", (event) => {
    if (pick.piece === null) return;
    const at = openingNow() ? view.opening.slice() : anchorAt(event);
    if (!at) return;
    const shifted = !pick.at || at[0] !== pick.at[0] || at[1] !== pick.at[1];
    pick.at = at;
    renderGhost();
    // A touch first shows the ghost; a second touch on the same spot places it.
    if (event.pointerType === "touch" && shifted) return;
    event.preventDefault();
    placeGhost();
  });

  function move(dx, dy) {
    if (pick.piece === null || openingNow()) return;
    pick.at = moved(pick.at || view.opening, dx, dy, size);
    renderGhost();
  }

  // --- acting ----------------------------------------------------------------------------------

  function refused(detail) {
    say(`Not played, nothing changed: ${detail}`, "bad");
  }

  /** Tell the mover what their move did, until the next move. */
  function told(outcome) {
    if (view.over || !outcome || !outcome.message) return; // the end says the rest
    say(outcomeText(view, outcome), "good", outcome.message);
  }

  async function act(action) {
    if (pending) return;
    if (!view.seat) {
      say("You are watching: join the game to play.", "info");
      return;
    }
    if (socket && socket.send(action)) {
      pending = true;
      setTimeout(() => {
        pending = false;
      }, 1500);
      return;
    }
    pending = true;
    const reply = await request("POST", cfg.moves_url, action);
    pending = false;
    if (!reply.ok) {
      refused(reply.detail);
      return;
    }
    update(reply.data.version, reply.data.view);
    told(reply.data.outcome);
  }

  function placeGhost() {
    if (pick.piece === null) {
      say("Choose a piece first.", "info");
      return;
    }
    if (!view.your_turn) {
      say(
        view.over ? "The game is over." : `It is ${nameOf(view, view.to_move)}'s turn, not yours.`,
        "info",
      );
      return;
    }
    if (!pick.at) return;
    const [x, y] = pick.at;
    act({type: "place", piece: pick.piece, permutation: permutation(), x, y});
  }

  function pass() {
    if (!view.your_turn) {
      say("You can pass only on your turn.", "info");
      return;
    }
    act({type: "pass"});
  }

  function update(version, newView) {
    if (typeof version === "number") {
      if (version < cfg.version) return;
      cfg.version = version;
    }
    const before = (view.names || []).join(",");
    const wasOver = !!view.over;
    const lastBefore = JSON.stringify(view.last || null);
    view = newView;
    // Each move, in words, in the game's log beside its chat; the message under the board was
    // about an earlier move (or a refusal): it goes, as it does at the end.
    if (view.last && JSON.stringify(view.last) !== lastBefore) {
      chat.note(moveSentence(view, view.last.message));
      if (said !== view.last.message) say("");
    }
    if (view.over && !wasOver) say("");
    // New players, or the end (a rated game has rated its players by then): read the seats.
    if ((view.names || []).join(",") !== before || (view.over && !wasOver)) refreshSeats();
    if (view.over && !wasOver) showStatus(ui.connection, socketState, {over: true});
    render();
  }

  /* Learn which seats the computer plays (the view names seats; the game's seats say who). */
  async function refreshSeats(attempt = 0) {
    const reply = await request("GET", cfg.api_url);
    if (!reply.ok) {
      if (attempt < 3) setTimeout(() => refreshSeats(attempt + 1), 800);
      return;
    }
    computers = new Set(
      (reply.data.seats || []).filter((seat) => seat.is_computer).map((seat) => seat.name),
    );
    guests = new Set(
      (reply.data.seats || []).filter((seat) => seat.guest).map((seat) => seat.name),
    );
    bots = new Set((reply.data.seats || []).filter((seat) => seat.bot).map((seat) => seat.name));
    renderRatings(document.getElementById("seat-ratings"), reply.data.ratings);
    renderRatedNote(document.getElementById("rated-note"), reply.data);
    render();
  }

  ui.palette.addEventListener("click", (event) => {
    const button = event.target.closest(".sq-palette-piece");
    if (!button) return;
    const piece = Number(button.dataset.piece);
    if (pick.piece === piece) rotate(); // a second click turns it
    else choose(piece);
  });
  ui.rotate.addEventListener("click", rotate);
  ui.flip.addEventListener("click", flip);
  ui.place.addEventListener("click", placeGhost);
  ui.pass.addEventListener("click", pass);
  ui.spots.addEventListener("change", renderGhost);

  const KEYS = {
    r: () => ui.rotate.click(),
    f: () => ui.flip.click(),
    p: pass,
    h: () => {
      ui.spots.checked = !ui.spots.checked;
      renderGhost();
    },
    "]": () => cycle(1),
    "[": () => cycle(-1),
    Escape: () => {
      pick.piece = null;
      render();
    },
    ArrowLeft: () => move(-1, 0),
    ArrowRight: () => move(1, 0),
    ArrowUp: () => move(0, 1),
    ArrowDown: () => move(0, -1),
  };

  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target;
    if (target && /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName) && target !== ui.spots) return;
    const onButton =
      target && target.tagName === "BUTTON" && !target.classList.contains("sq-palette-piece");
    const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
    if (KEYS[key]) KEYS[key]();
    else if (key === "Enter" && !onButton) placeGhost();
    else return;
    event.preventDefault();
  });

  // --- joining ---------------------------------------------------------------------------------

  async function join() {
    if (!cfg.name) return;
    const reply = await request("POST", cfg.join_url, {name: cfg.name});
    if (!reply.ok) {
      say(reply.detail, "bad");
      return;
    }
    window.location.replace(cfg.page_url);
  }
  const joinButton = byId("join-btn");
  if (joinButton) joinButton.addEventListener("click", join);
  const addComputer = byId("add-computer-btn");
  if (addComputer) {
    addComputer.addEventListener("click", async () => {
      const reply = await request("POST", cfg.computers_url, {speed: "fast"});
      if (!reply.ok) say(reply.detail, "bad");
    });
  }
  const copy = byId("copy-btn");
  if (copy) {
    copy.addEventListener("click", () => {
      const input = byId("share-url");
      input.select();
      if (navigator.clipboard) navigator.clipboard.writeText(input.value);
      copy.textContent = "Copied";
    });
  }

  // --- live ------------------------------------------------------------------------------------

  // The game's log: its moves in words, and its chat.
  const chat = mountChat(byId("chat-panel"), {
    url: cfg.chat_url,
    canWrite: !!view.seat,
  });

  socket = new GameSocket(cfg.ws_url, {
    state: (message) => update(message.version, message.view),
    chat: (message) => chat.add(message),
    presence: (message) => {
      presence.update(message.here);
      renderPlayers();
      drawLeavers();
    },
    result: (message) => {
      pending = false;
      told(message.outcome);
    },
    error: (message) => {
      if (message.for === "chat") {
        chat.error(message.detail);
        return;
      }
      pending = false;
      refused(message.detail);
    },
    status: (state) => {
      if (state === "live" && socketState === "reconnecting") chat.refresh();
      socketState = state;
      showStatus(ui.connection, state, {over: !!view.over});
    },
    rematch: (message) => {
      const note = byId("rematch-note");
      if (!note) return;
      note.hidden = false;
      note.textContent =
        message.by && message.by !== view.you
          ? `${message.by} wants to play again: press "Play again" to join.`
          : "The new game is ready.";
    },
  });

  // Play again: the first to ask makes the new game, everyone who asks sits there.
  const again = byId("rematch-btn");
  again?.addEventListener("click", async () => {
    again.disabled = true;
    const reply = await request("POST", cfg.rematch_url, {});
    if (!reply.ok) {
      again.disabled = false;
      refused(reply.detail);
      return;
    }
    window.location.assign(reply.data.url);
  });

  // The seat to move is offered as left once the table's away time has passed.
  setInterval(() => drawLeavers(), 1000);

  render();
  bringIntoView();
  if (cfg.auto_join) join();
}

/** Where the board and its tools fit the screen but not below the site's header (a phone),
 * open the page scrolled to the game, so that no move needs a scroll. */
function bringIntoView() {
  const top = document.getElementById("turn").getBoundingClientRect().top;
  const palette = document.getElementById("palette-panel");
  const last = palette.hidden ? document.getElementById("square-board") : palette;
  const bottom = last.getBoundingClientRect().bottom;
  if (bottom > window.innerHeight && bottom - top <= window.innerHeight) {
    window.scrollTo({top: window.scrollY + top - 4, behavior: "instant"});
  }
}

const root = document.getElementById("square-root");
if (root) start(root);

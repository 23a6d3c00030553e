/* Draw a Set board (either rule set's view) as a grid of card buttons.
 *
 *   SetBoard.cells(view)                 -> [{card, row, col, index, key, pos, picked}...]
 *   SetBoard.render(element, view, opts) -> draws the cells; opts:
 *       selected: [card texts]  (highlighted as chosen),  hint: card text,  marked: [card texts]
 *       fresh: [card texts]     (just dealt: they fade in),  interactive: bool (buttons, else
 *       plain figures; keys are drawn on interactive cards only)
 *
 * The declare view has `board` as 3 rows of cells; the classic view a flat list drawn at row
 * i % 3, column i // 3. Either way a card's key is KEYS[col * 3 + row]: the keys number the cards
 * column by column, so a new column of three gets new keys and the others keep theirs.
 * On a narrow screen the board is turned a quarter: three columns of landscape cards.
 */
(function (global) {
  "use strict";

  var KEYS = "1234567890qwertyuiopasdfghjklzxcvbnm".split("");
  var narrowQuery = window.matchMedia ? window.matchMedia("(max-width: 640px)") : null;
  var cache = {};

  function isNarrow() {
    return !!(narrowQuery && narrowQuery.matches);
  }

  function colorBlind() {
    return !!(global.SiteOptions && global.SiteOptions.colorBlind());
  }

  function cells(view) {
    var out = [];
    var board = (view && view.board) || [];
    if (board.length && Array.isArray(board[0])) {
      board.forEach(function (row, r) {
        row.forEach(function (cell, c) {
          out.push({card: cell.card, row: r, col: c, pos: [r, c], picked: !!cell.picked});
        });
      });
    } else {
      board.forEach(function (cell, i) {
        var row = cell.row !== undefined ? cell.row : i % 3;
        var col = cell.col !== undefined ? cell.col : Math.floor(i / 3);
        out.push({card: cell.card, row: row, col: col, pos: i, picked: !!cell.picked});
      });
    }
    out.forEach(function (cell) {
      cell.index = cell.col * 3 + cell.row;
      cell.key = KEYS[cell.index] || "";
    });
    out.sort(function (a, b) { return a.index - b.index; });
    return out;
  }

  function cardSvg(text, label, landscape) {
    var key = text + "|" + label + "|" + (landscape ? "L" : "P") + (colorBlind() ? "B" : "");
    if (!cache[key]) {
      cache[key] = SetCards.svg(text, {landscape: landscape, colorBlind: colorBlind(),
                                       label: label.toUpperCase()});
    }
    return cache[key];
  }

  function render(element, view, opts) {
    opts = opts || {};
    var list = cells(view);
    var narrow = isNarrow();
    var cols = 0;
    list.forEach(function (cell) { cols = Math.max(cols, cell.col + 1); });
    var selected = opts.selected || [];
    var marked = opts.marked || [];
    var fresh = opts.fresh || [];
    var focusedIndex = null;
    if (element.contains(document.activeElement) && document.activeElement.dataset) {
      focusedIndex = document.activeElement.dataset.index;
    }
    element.classList.toggle("narrow", narrow);
    element.style.setProperty("--cols", String(Math.max(cols, 1)));
    element.setAttribute("data-cols", String(cols));
    var fragment = document.createDocumentFragment();
    list.forEach(function (cell) {
      var chosen = cell.picked || selected.indexOf(cell.card) >= 0;
      var hinted = !!opts.hint && opts.hint === cell.card;
      var node = document.createElement(opts.interactive ? "button" : "figure");
      node.className = "card" + (chosen ? " selected" : "") + (hinted ? " hinted" : "") +
        (marked.indexOf(cell.card) >= 0 ? " marked" : "") +
        (fresh.indexOf(cell.card) >= 0 ? " fresh" : "");
      // Set through the CSSOM, not a style attribute, so a strict CSP allows it.
      node.style.gridRow = String(narrow ? cell.col + 1 : cell.row + 1);
      node.style.gridColumn = String(narrow ? cell.row + 1 : cell.col + 1);
      node.dataset.card = cell.card;
      node.dataset.index = String(cell.index);
      node.dataset.key = cell.key;
      var prefix = cell.key && opts.interactive ? "Key " + cell.key + ": " : "";
      node.setAttribute("aria-label", prefix + SetCards.phrase(cell.card) +
        (chosen ? ", selected" : "") + (hinted ? ", hinted" : ""));
      if (opts.interactive) {
        node.type = "button";
        node.setAttribute("aria-pressed", String(chosen));
        node.disabled = !!opts.disabled;
      } else {
        node.setAttribute("role", "img");
      }
      // Keys label the cards only where they can be pressed.
      node.innerHTML = cardSvg(cell.card, opts.interactive ? cell.key : "", narrow);
      fragment.appendChild(node);
    });
    element.textContent = "";
    if (list.length) {
      element.appendChild(fragment);
    } else {
      var empty = document.createElement("p");
      empty.className = "muted board-empty";
      empty.textContent = "No cards on the table.";
      element.appendChild(empty);
    }
    if (focusedIndex !== null) {
      var again = element.querySelector('[data-index="' + focusedIndex + '"]');
      if (again) again.focus();
    }
    return list;
  }

  function onLayoutChange(callback) {
    if (narrowQuery && narrowQuery.addEventListener) {
      narrowQuery.addEventListener("change", callback);
    } else if (narrowQuery && narrowQuery.addListener) {
      narrowQuery.addListener(callback);
    }
    document.addEventListener("setcards:options", function () {
      cache = {};
      callback();
    });
  }

  global.SetBoard = {KEYS: KEYS, cells: cells, render: render, onLayoutChange: onLayoutChange,
                     isNarrow: isNarrow};
})(window);

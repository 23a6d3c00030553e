/* Draw real Set cards as SVG: one to three diamonds, squiggles or ovals, solid, striped or open,
 * red, green or purple; a border color for 5-attribute cards; an optional color-blind mark.
 *
 *   SetCards.svg("TWO/PURPLE/STRIPED/OVAL")          -> an <svg> string (a portrait card)
 *   SetCards.svg("1201", {colorBlind: true})          -> Set War digits work too
 *   SetCards.svg(card, {landscape: true})             -> a landscape card, symbols side by side
 *   SetCards.svg(card, {label: "q"})                  -> a short label in the top-left corner
 *   SetCards.parse("TWO/PURPLE/STRIPED/OVAL/RED")     -> {number: 1, color: 2, ...}
 *
 * Color-blind marks: each color also differs by a mark in the top-right corner (red: a circle,
 * green: a triangle, purple: a square); a 5-attribute card's border color has the same mark,
 * outlined, in the bottom-right corner. No dependencies; served from the project (no CDN).
 */
(function (global) {
  "use strict";

  var NUMBERS = ["ONE", "TWO", "THREE"];
  var COLORS = ["RED", "GREEN", "PURPLE"];
  var SHADINGS = ["SOLID", "STRIPED", "OPEN"];
  var SHAPES = ["DIAMOND", "SQUIGGLE", "OVAL"];
  var INK = ["#d62828", "#1b8a3a", "#6a3fb5"];
  // A border is one of the same three colors: compare it with the symbols' colors at a glance.
  var BORDER_INK = INK;
  // Color-blind marks, drawn in a 24x24 box.
  var MARKS = [
    '<circle cx="12" cy="12" r="8"/>',
    '<path d="M12 3 L21 20 L3 20 Z"/>',
    '<rect x="4" y="4" width="16" height="16"/>'
  ];
  // Each symbol is drawn in a 100x50 box (wide); landscape cards turn it upright.
  var SHAPE_PATHS = {
    DIAMOND: "M5 25 L50 4 L95 25 L50 46 Z",
    OVAL: "M25 5 H75 A20 20 0 0 1 75 45 H25 A20 20 0 0 1 25 5 Z",
    SQUIGGLE:
      "M8 36 C4 18 22 4 40 10 C54 15 62 20 78 10 C92 2 100 16 94 28 " +
      "C88 44 70 48 56 40 C44 33 36 32 22 42 C14 48 10 44 8 36 Z"
  };
  var GAP = 9;
  var SCALE = 0.84;
  var counter = 0;

  function parse(text) {
    var value = String(text).trim().toUpperCase();
    var card;
    if (/^[0-2]{3,5}$/.test(value)) {
      var digits = value.split("").map(Number);
      card = {number: digits[0], color: digits[1], shading: digits[2],
              shape: digits.length > 3 ? digits[3] : 1,
              border: digits.length > 4 ? digits[4] : null};
    } else {
      var parts = value.split("/");
      if (parts.length < 4) throw new Error("not a card: " + text);
      card = {number: NUMBERS.indexOf(parts[0]), color: COLORS.indexOf(parts[1]),
              shading: SHADINGS.indexOf(parts[2]), shape: SHAPES.indexOf(parts[3]),
              border: parts.length > 4 ? COLORS.indexOf(parts[4]) : null};
    }
    ["number", "color", "shading", "shape"].forEach(function (key) {
      if (!(card[key] >= 0 && card[key] <= 2)) throw new Error("not a card: " + text);
    });
    if (card.border !== null && !(card.border >= 0 && card.border <= 2)) {
      throw new Error("not a card: " + text);
    }
    return card;
  }

  function hasBorder(card) {
    return card.border !== null && card.border !== undefined;
  }

  function phrase(card) {
    if (typeof card === "string") card = parse(card);
    var n = card.number + 1;
    var shape = SHAPES[card.shape].toLowerCase() + (n > 1 ? "s" : "");
    var words = [NUMBERS[card.number].toLowerCase(), COLORS[card.color].toLowerCase(),
                 SHADINGS[card.shading].toLowerCase(), shape];
    var text = words.join(" ");
    if (hasBorder(card)) text += " with a " + COLORS[card.border].toLowerCase() + " border";
    return text;
  }

  function escapeAttr(text) {
    return String(text).replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
  }

  function svg(text, options) {
    options = options || {};
    var card = typeof text === "string" ? parse(text) : text;
    var landscape = !!options.landscape;
    var width = landscape ? 200 : 140;
    var height = landscape ? 140 : 200;
    var id = "sc" + (++counter);
    var ink = INK[card.color];
    var fill = card.shading === 0 ? ink : card.shading === 1 ? "url(#" + id + "s)" : "none";
    var count = card.number + 1;
    // Symbols are drawn at SCALE of their 100x50 box, leaving the corners free for the marks.
    var long = 100 * SCALE;
    var short = 50 * SCALE;
    var span = count * short + (count - 1) * GAP;
    var symbols = "";
    for (var i = 0; i < count; i++) {
      var offset = i * (short + GAP);
      var place;
      if (landscape) {
        // Turn the symbol upright about its centre, then put its box at (x, y).
        var x = (width - span) / 2 + offset;
        var y = (height - long) / 2;
        place = "translate(" + (x + short / 2 - long / 2) + " " + (y + long / 2 - short / 2) +
          ") rotate(90 " + long / 2 + " " + short / 2 + ") scale(" + SCALE + ")";
      } else {
        place = "translate(" + (width - long) / 2 + " " + ((height - span) / 2 + offset) +
          ") scale(" + SCALE + ")";
      }
      symbols += '<path transform="' + place + '" d="' + SHAPE_PATHS[SHAPES[card.shape]] +
        '" fill="' + fill + '" stroke="' + ink + '" stroke-width="' + (4 / SCALE).toFixed(2) +
        '" stroke-linejoin="round"/>';
    }
    var bordered = hasBorder(card);
    var frameWidth = bordered ? 9 : 2;
    var inset = frameWidth / 2;
    var marks = "";
    if (options.label) {
      marks += '<g class="card-label"><rect x="6" y="6" width="30" height="30" rx="6" ' +
        'fill="#1d1d1f" fill-opacity="0.75"/><text x="21" y="28" text-anchor="middle" ' +
        'fill="#fff" font-size="20" font-weight="700" font-family="ui-monospace, monospace">' +
        escapeAttr(options.label) + "</text></g>";
    }
    if (options.colorBlind) {
      marks += '<g class="cb-mark" fill="' + ink + '" transform="translate(' + (width - 34) +
        ' 9)">' + MARKS[card.color] + "</g>";
      if (bordered) {
        marks += '<g class="cb-mark cb-border" fill="none" stroke="' + BORDER_INK[card.border] +
          '" stroke-width="3" transform="translate(' + (width - 34) + " " + (height - 34) +
          ')">' + MARKS[card.border] + "</g>";
      }
    }
    return '<svg class="set-card-svg' + (landscape ? " landscape" : "") + '" viewBox="0 0 ' +
      width + " " + height + '" role="img" aria-label="' + escapeAttr(phrase(card)) +
      '" xmlns="http://www.w3.org/2000/svg">' +
      // The stripes turn with each symbol: they always cross its long axis, as printed.
      '<defs><pattern id="' + id + 's" width="6" height="6" patternUnits="userSpaceOnUse">' +
      '<line x1="1" y1="0" x2="1" y2="6" stroke="' + ink + '" stroke-width="2"/>' +
      "</pattern></defs>" +
      // The face and a plain edge take the page's theme through CSS (.card-face, .card-edge).
      '<rect class="card-face' + (bordered ? "" : " card-edge") + '" x="' + inset + '" y="' +
      inset + '" width="' + (width - 2 * inset) + '" height="' + (height - 2 * inset) +
      '" rx="' + (14 - inset) + '" fill="#fff" stroke="' +
      (bordered ? BORDER_INK[card.border] : "#c9c4b8") + '" stroke-width="' + frameWidth +
      '"/>' + symbols + marks + "</svg>";
  }

  global.SetCards = {parse: parse, svg: svg, phrase: phrase,
                     NUMBERS: NUMBERS, COLORS: COLORS, SHADINGS: SHADINGS, SHAPES: SHAPES};
})(window);

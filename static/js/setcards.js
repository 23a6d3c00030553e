/* Draw real Set cards as SVG: one to three diamonds, squiggles or ovals, solid, striped or open,
 * red, green or purple; a border color for 5-attribute cards; an optional color-blind mark.
 *
 *   SetCards.svg("TWO/PURPLE/STRIPED/OVAL")          -> an <svg> string
 *   SetCards.svg("1201", {colorBlind: true})          -> Set War digits work too
 *   SetCards.parse("TWO/PURPLE/STRIPED/OVAL/RED")     -> {number: 1, color: 2, ...}
 *
 * No dependencies; served from the project (no CDN).
 */
(function (global) {
  "use strict";

  var NUMBERS = ["ONE", "TWO", "THREE"];
  var COLORS = ["RED", "GREEN", "PURPLE"];
  var SHADINGS = ["SOLID", "STRIPED", "OPEN"];
  var SHAPES = ["DIAMOND", "SQUIGGLE", "OVAL"];
  var INK = ["#d62828", "#1b8a3a", "#6a3fb5"];
  var BORDER_INK = ["#e76f51", "#2a9d8f", "#9b5de5"];
  // Color-blind marks: each color also differs by a shape drawn in the corner.
  var MARKS = [
    '<circle cx="12" cy="12" r="5"/>',
    '<path d="M12 6 L18 17 L6 17 Z"/>',
    '<rect x="7" y="7" width="10" height="10"/>'
  ];
  var SHAPE_PATHS = {
    DIAMOND: "M5 25 L50 4 L95 25 L50 46 Z",
    OVAL: "M25 5 H75 A20 20 0 0 1 75 45 H25 A20 20 0 0 1 25 5 Z",
    SQUIGGLE:
      "M8 36 C4 18 22 4 40 10 C54 15 62 20 78 10 C92 2 100 16 94 28 " +
      "C88 44 70 48 56 40 C44 33 36 32 22 42 C14 48 10 44 8 36 Z"
  };
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
    return card;
  }

  function phrase(card) {
    var n = card.number + 1;
    var shape = SHAPES[card.shape].toLowerCase() + (n > 1 ? "s" : "");
    var words = [NUMBERS[card.number].toLowerCase(), COLORS[card.color].toLowerCase(),
                 SHADINGS[card.shading].toLowerCase(), shape];
    var text = words.join(" ");
    if (card.border !== null && card.border !== undefined) {
      text += " with a " + COLORS[card.border].toLowerCase() + " border";
    }
    return text;
  }

  function svg(text, options) {
    options = options || {};
    var card = typeof text === "string" ? parse(text) : text;
    var id = "sc" + (++counter);
    var ink = INK[card.color];
    var fill = card.shading === 0 ? ink : card.shading === 1 ? "url(#" + id + "s)" : "none";
    var count = card.number + 1;
    var top = 75 - (count * 50 + (count - 1) * 8) / 2;
    var symbols = "";
    for (var i = 0; i < count; i++) {
      var y = top + i * 58;
      symbols += '<path transform="translate(0 ' + y + ')" d="' + SHAPE_PATHS[SHAPES[card.shape]] +
        '" fill="' + fill + '" stroke="' + ink + '" stroke-width="4" stroke-linejoin="round"/>';
    }
    var frame = card.border === null || card.border === undefined ? "var(--card-edge, #c9c4b8)"
      : BORDER_INK[card.border];
    var frameWidth = card.border === null || card.border === undefined ? 2 : 7;
    var mark = options.colorBlind
      ? '<g class="cb-mark" fill="' + ink + '" transform="translate(108 4) scale(1.1)">' +
        MARKS[card.color] + "</g>"
      : "";
    return '<svg class="set-card-svg" viewBox="0 0 140 200" role="img" aria-label="' +
      phrase(card) + '" xmlns="http://www.w3.org/2000/svg">' +
      '<defs><pattern id="' + id + 's" width="6" height="6" patternUnits="userSpaceOnUse">' +
      '<rect width="6" height="6" fill="white" fill-opacity="0"/>' +
      '<line x1="0" y1="0" x2="0" y2="6" stroke="' + ink + '" stroke-width="2.2"/></pattern></defs>' +
      '<rect x="3" y="3" width="134" height="194" rx="14" fill="var(--card-face, #fff)" stroke="' +
      frame + '" stroke-width="' + frameWidth + '"/>' +
      '<g transform="translate(20 25)">' + symbols + "</g>" + mark + "</svg>";
  }

  global.SetCards = {parse: parse, svg: svg, phrase: phrase,
                     NUMBERS: NUMBERS, COLORS: COLORS, SHADINGS: SHADINGS, SHAPES: SHAPES};
})(window);

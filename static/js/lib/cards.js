/* Draw real Set cards as SVG: one to three diamonds, squiggles or ovals, solid, striped or open,
 * red, green or purple; a border color for 5-attribute cards; an optional color-blind mark.
 * The 4Set decks' fourth values (digit 3): four symbols, orange, checkered, the hourglass.
 *
 *   svg({digits: "1201", phrase: "two purple open diamonds"})      -> an <svg> string
 *   svg(card, {landscape: true, colorBlind: true, label: "Q"})
 *
 * A card comes from the server as its digits (one 0/1/2 per attribute: number, color, shading,
 * shape, border) and its phrase; nothing here knows card names. Color-blind marks: each color
 * also differs by a mark in the top-right corner (red: a circle, green: a triangle, purple: a
 * square, orange: a cross); a 5-attribute card's border color has the same mark, outlined, in the
 * bottom-right corner. Orange is far lighter than red, green and purple, so it stays apart from
 * them for red-green and blue-yellow color blindness too. Pure string building, tested under Node (tests/js/).
 */

const INK = ["#d62828", "#1b8a3a", "#6a3fb5", "#ef9200"];
// Color-blind marks, drawn in a 24x24 box.
const MARKS = [
  '<circle cx="12" cy="12" r="8"/>',
  '<path d="M12 3 L21 20 L3 20 Z"/>',
  '<rect x="4" y="4" width="16" height="16"/>',
  '<path d="M9 3 H15 V9 H21 V15 H15 V21 H9 V15 H3 V9 H9 Z"/>',
];
// Each symbol is drawn in a 100x50 box (wide), by shape digit; landscape cards turn it upright.
const SHAPE_PATHS = [
  "M5 25 L50 4 L95 25 L50 46 Z",
  "M8 36 C4 18 22 4 40 10 C54 15 62 20 78 10 C92 2 100 16 94 28 " +
    "C88 44 70 48 56 40 C44 33 36 32 22 42 C14 48 10 44 8 36 Z",
  "M25 5 H75 A20 20 0 0 1 75 45 H25 A20 20 0 0 1 25 5 Z",
  // The hourglass: two triangles meeting at a narrow waist.
  "M6 5 H94 L58 25 L94 45 H6 L42 25 Z",
];
const GAP = 9;
const SCALE = 0.84;
// Four symbols are drawn smaller, so that they fit the card with its corners free.
const SCALE_FOUR = 0.7;
let counter = 0;

/** Return a card's attribute values from its digits; a 3-digit card has squiggles. A 4Set
 * deck's card (3 or 4 digits) may hold the fourth value, 3. */
export function parts(digits) {
  if (!/^[0-2]{3,5}$|^[0-3]{3,4}$/.test(String(digits))) {
    throw new Error(`not a card's digits: ${digits}`);
  }
  const d = String(digits).split("").map(Number);
  return {
    number: d[0],
    color: d[1],
    shading: d[2],
    shape: d.length > 3 ? d[3] : 1,
    border: d.length > 4 ? d[4] : null,
  };
}

/** Escape text for an XML attribute or element. */
export function escapeXml(text) {
  return String(text).replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
}

/** Return the <svg> markup of `card` ({digits, phrase}). */
export function svg(card, {landscape = false, colorBlind = false, label = ""} = {}) {
  const c = parts(card.digits);
  const width = landscape ? 200 : 140;
  const height = landscape ? 140 : 200;
  counter += 1;
  const id = `sc${counter}`;
  const ink = INK[c.color];
  const fill = [ink, `url(#${id}s)`, "none", `url(#${id}c)`][c.shading];
  const count = c.number + 1;
  // Symbols are drawn at `scale` of their 100x50 box, leaving the corners free for the marks.
  const scale = count > 3 ? SCALE_FOUR : SCALE;
  const long = 100 * scale;
  const short = 50 * scale;
  const span = count * short + (count - 1) * GAP;
  let symbols = "";
  for (let i = 0; i < count; i++) {
    const offset = i * (short + GAP);
    let place;
    if (landscape) {
      // Turn the symbol upright about its centre, then put its box at (x, y).
      const x = (width - span) / 2 + offset;
      const y = (height - long) / 2;
      place =
        `translate(${x + short / 2 - long / 2} ${y + long / 2 - short / 2}) ` +
        `rotate(90 ${long / 2} ${short / 2}) scale(${scale})`;
    } else {
      place = `translate(${(width - long) / 2} ${(height - span) / 2 + offset}) scale(${scale})`;
    }
    symbols +=
      `<path transform="${place}" d="${SHAPE_PATHS[c.shape]}" fill="${fill}" stroke="${ink}" ` +
      `stroke-width="${(4 / scale).toFixed(2)}" stroke-linejoin="round"/>`;
  }
  const bordered = c.border !== null;
  const frameWidth = bordered ? 9 : 2;
  const inset = frameWidth / 2;
  let marks = "";
  if (label) {
    marks +=
      '<g class="card-label"><rect x="6" y="6" width="30" height="30" rx="6" ' +
      'fill="#1d1d1f" fill-opacity="0.75"/><text x="21" y="28" text-anchor="middle" ' +
      'fill="#fff" font-size="20" font-weight="700" font-family="ui-monospace, monospace">' +
      `${escapeXml(label)}</text></g>`;
  }
  if (colorBlind) {
    marks += `<g class="cb-mark" fill="${ink}" transform="translate(${width - 34} 9)">${MARKS[c.color]}</g>`;
    if (bordered) {
      marks +=
        `<g class="cb-mark cb-border" fill="none" stroke="${INK[c.border]}" stroke-width="3" ` +
        `transform="translate(${width - 34} ${height - 34})">${MARKS[c.border]}</g>`;
    }
  }
  return (
    `<svg class="set-card-svg${landscape ? " landscape" : ""}" viewBox="0 0 ${width} ${height}" ` +
    `role="img" aria-label="${escapeXml(card.phrase || "")}" xmlns="http://www.w3.org/2000/svg">` +
    // The stripes turn with each symbol: they always cross its long axis, as printed.
    `<defs><pattern id="${id}s" width="6" height="6" patternUnits="userSpaceOnUse">` +
    `<line x1="1" y1="0" x2="1" y2="6" stroke="${ink}" stroke-width="2"/></pattern>` +
    // Checkered: a chessboard of ink and face, squares of 9 units of the symbol's box (big
    // enough to read as squares, not as a tint, on a phone's small cards).
    (c.shading === 3
      ? `<pattern id="${id}c" width="18" height="18" patternUnits="userSpaceOnUse">` +
        `<rect width="9" height="9" fill="${ink}"/><rect x="9" y="9" width="9" height="9" ` +
        `fill="${ink}"/></pattern>`
      : "") +
    "</defs>" +
    // The face and a plain edge take the page's theme through CSS (.card-face, .card-edge).
    `<rect class="card-face${bordered ? "" : " card-edge"}" x="${inset}" y="${inset}" ` +
    `width="${width - 2 * inset}" height="${height - 2 * inset}" rx="${14 - inset}" fill="#fff" ` +
    `stroke="${bordered ? INK[c.border] : "#c9c4b8"}" stroke-width="${frameWidth}"/>` +
    `${symbols}${marks}</svg>`
  );
}

/** Return the <svg> markup of a card lying face down (Memory): its back, the same size as a
 * card's face, with `label` (its key) where a face has it. */
export function back({landscape = false, label = ""} = {}) {
  const width = landscape ? 200 : 140;
  const height = landscape ? 140 : 200;
  counter += 1;
  const id = `sb${counter}`;
  const tag = label
    ? '<g class="card-label"><rect x="6" y="6" width="30" height="30" rx="6" fill="#1d1d1f" ' +
      'fill-opacity="0.75"/><text x="21" y="28" text-anchor="middle" fill="#fff" font-size="20" ' +
      `font-weight="700" font-family="ui-monospace, monospace">${escapeXml(label)}</text></g>`
    : "";
  return (
    `<svg class="set-card-svg card-back${landscape ? " landscape" : ""}" viewBox="0 0 ${width} ${height}" ` +
    'role="img" aria-label="a card face down" xmlns="http://www.w3.org/2000/svg">' +
    `<defs><pattern id="${id}" width="16" height="16" patternUnits="userSpaceOnUse" ` +
    'patternTransform="rotate(45)"><rect width="16" height="16" fill="#3d4f8a"/>' +
    '<rect width="8" height="16" fill="#4a5fa3"/></pattern></defs>' +
    `<rect x="1" y="1" width="${width - 2}" height="${height - 2}" rx="13" fill="#f3f1ec" ` +
    'stroke="#c9c4b8" stroke-width="2"/>' +
    `<rect x="12" y="12" width="${width - 24}" height="${height - 24}" rx="8" fill="url(#${id})"/>` +
    `${tag}</svg>`
  );
}

/**
 * Return a lookup of the cards a page may show, from the table the server sends
 * (text -> [digits, phrase]): `card(text)` -> {text, digits, phrase}, or a plain stand-in
 * for a text the table does not hold (its phrase is the text itself).
 */
export function deck(table) {
  const known = table || {};
  return (text) => {
    const entry = known[text];
    return entry ? {text, digits: entry[0], phrase: entry[1]} : {text, digits: null, phrase: String(text)};
  };
}

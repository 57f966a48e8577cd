// The Pentago board in SVG: stones from a position text; click an empty square, then one of the
// twist arrows that appear on the quadrants, to make a move. As an analysis board it also shows
// each move's exact value as a colour (a square: its best twist; an arrow: that move), the last
// placement and twist, and a finished game's five. The game viewer shows it still (no clicks).
"use strict";

const CELL = 64;
const GAP = 10;
const MARGIN = 26;
const FILES = "abcdef";

/** Pixel centre of the square at column `col` (0 = a) and row `row` (0 = rank 6). */
function squareCentre(col, row) {
  return [
    MARGIN + col * CELL + (col >= 3 ? GAP : 0) + CELL / 2,
    MARGIN + row * CELL + (row >= 3 ? GAP : 0) + CELL / 2,
  ];
}

/** Every five-line of the board: five [col, row] pairs (32 of them). */
const FIVE_LINES = (() => {
  const lines = [];
  const line = (col, row, dc, dr) => [0, 1, 2, 3, 4].map((i) => [col + i * dc, row + i * dr]);
  for (let i = 0; i < 6; i++) {
    for (const start of [0, 1]) {
      lines.push(line(start, i, 1, 0), line(i, start, 0, 1));
    }
  }
  for (const [col, row] of [[0, 0], [1, 0], [0, 1], [1, 1]]) lines.push(line(col, row, 1, 1));
  for (const [col, row] of [[4, 0], [5, 0], [4, 1], [5, 1]]) lines.push(line(col, row, -1, 1));
  return lines;
})();

/** The squares (names such as `c4`) of every five of `colour` (`x` or `o`, or either when
 * omitted) in the position text. */
function fiveSquares(position, colour) {
  const rows = position.split("/");
  const squares = new Set();
  for (const line of FIVE_LINES) {
    const first = rows[line[0][1]][line[0][0]];
    if (first === "." || (colour && first !== colour)) continue;
    if (line.every(([c, r]) => rows[r][c] === first)) {
      for (const [c, r] of line) squares.add(FILES[c] + (6 - r));
    }
  }
  return squares;
}

/** Column and row (0 = rank 6) of a square name such as `c4`. */
function squareAt(name) {
  return [FILES.indexOf(name[0]), 6 - Number(name[1])];
}

/**
 * Where the last move's marks go: `move` (such as `c4-1R`) played from `before` (position text).
 * The placed stone turns with its quadrant unless the placement alone made a five (then no
 * twist is made). Returns {placed: square name, quadrant: 1-4 or null, direction}.
 */
function lastMoveMarks(before, move) {
  const [square, twist] = move.split("-");
  const [col, row] = squareAt(square);
  const rows = before.split("/").map((r) => r.split(""));
  const stones = before.replace(/[^xo]/g, "");
  const black = stones.replace(/o/g, "").length;
  const colour = black === stones.length - black ? "x" : "o";
  rows[row][col] = colour;
  const placed = rows.map((r) => r.join("")).join("/");
  if (!twist || fiveSquares(placed, colour).size > 0) {
    return { placed: square, quadrant: null, direction: null };
  }
  const quadrant = Number(twist[0]);
  const direction = twist[1].toUpperCase();
  const [qc, qr] = [((quadrant - 1) % 2) * 3, Math.floor((quadrant - 1) / 2) * 3];
  let [c, r] = [col, row];
  if (c >= qc && c < qc + 3 && r >= qr && r < qr + 3) {
    const [lc, lr] = [c - qc, r - qr];
    // Clockwise on screen: (row, col) -> (col, 2 - row); anticlockwise the inverse.
    [c, r] = direction === "R" ? [qc + 2 - lr, qr + lc] : [qc + lr, qr + 2 - lc];
  }
  return { placed: FILES[c] + (6 - r), quadrant, direction };
}

/** Words for an exact value of a move for `side` (`black` or `white`). */
function valueWords(value, side) {
  if (!value) return "exact value unknown";
  return { win: `${side} wins`, draw: "a draw", loss: `${side} loses` }[value];
}

class Board {
  /**
   * @param svg the <svg> element to draw in
   * @param onMove called with a move such as `c4-1R` when the user has picked square and twist
   */
  constructor(svg, onMove) {
    this.svg = svg;
    this.onMove = onMove;
    this.selected = null;
    this.interactive = false;
    this.values = null;
    this.marks = null;
    const side = 2 * MARGIN + 6 * CELL + GAP;
    svg.setAttribute("viewBox", `0 0 ${side} ${side}`);
    svg.setAttribute("width", side);
    svg.setAttribute("height", side);
    svg.classList.add("board");
    // Escape takes back a picked square (its arrows cover parts of the neighbouring squares).
    document.addEventListener("keydown", (event) => {
      if (event.key === "Escape" && this.selected) {
        this.selected = null;
        this.draw();
      }
    });
  }

  /** Draws `position` (notation text); `interactive` lets the user move. `marks` (optional):
   * the last move's marks from `lastMoveMarks`. Exact values are cleared until `setValues`. */
  show(position, interactive, marks) {
    this.position = position;
    this.interactive = interactive;
    this.selected = null;
    this.values = null;
    this.marks = marks || null;
    this.draw();
  }

  /** Shows exact values: a map from move text (`c4-1R`) to {value, source}, or null. */
  setValues(values) {
    this.values = values;
    this.draw();
  }

  /** The best exact value over the twists of a placement on `square` (null when any twist is
   * unknown and none wins). */
  bestValue(square) {
    if (!this.values) return null;
    const rank = { loss: 0, draw: 1, win: 2 };
    let best = null;
    let unknown = false;
    for (const twist of ["1L", "1R", "2L", "2R", "3L", "3R", "4L", "4R"]) {
      const entry = this.values.get(`${square}-${twist}`);
      if (!entry || !entry.value) {
        unknown = true;
        continue;
      }
      if (best === null || rank[entry.value] > rank[best]) best = entry.value;
    }
    return best === "win" || !unknown ? best : null;
  }

  stoneAt(col, row) {
    return this.position.split("/")[row][col];
  }

  sideToMove() {
    const stones = this.position.replace(/[^xo]/g, "");
    const black = stones.replace(/o/g, "").length;
    return black === stones.length - black ? "black" : "white";
  }

  draw() {
    const svg = this.svg;
    svg.replaceChildren();
    svg.classList.toggle("over", !this.interactive);
    const marks = this.marks;
    for (let q = 0; q < 4; q++) {
      const [x, y] = squareCentre((q % 2) * 3, Math.floor(q / 2) * 3);
      const twisted = marks && marks.quadrant === q + 1;
      const quadrant = el("svg:rect", {
        class: "quadrant" + (twisted ? " last-twist" : ""), x: x - CELL / 2, y: y - CELL / 2,
        width: 3 * CELL, height: 3 * CELL, rx: 12, "data-quadrant": q + 1,
      });
      if (twisted) {
        const words = marks.direction === "R" ? "clockwise" : "anticlockwise";
        quadrant.append(el("svg:title", {}, `last twist: quadrant ${q + 1} ${words}`));
      }
      svg.append(quadrant);
      if (twisted) {
        svg.append(el("svg:text", {
          class: "twist-mark", x: x + CELL, y: y - CELL / 2 - 6,
        }, marks.direction === "R" ? "↻" : "↺"));
      }
    }
    this.fives = fiveSquares(this.position);
    for (let i = 0; i < 6; i++) {
      const [x] = squareCentre(i, 0);
      const [, y] = squareCentre(0, i);
      svg.append(el("svg:text", { class: "label", x, y: 2 * MARGIN + 6 * CELL + GAP - 10 }, FILES[i]));
      svg.append(el("svg:text", { class: "label", x: 10, y }, String(6 - i)));
    }
    for (let row = 0; row < 6; row++) {
      for (let col = 0; col < 6; col++) svg.append(this.square(col, row));
    }
    if (this.selected) this.drawTwists();
  }

  square(col, row) {
    const [x, y] = squareCentre(col, row);
    const name = FILES[col] + (6 - row);
    const stone = this.stoneAt(col, row);
    // Values colour the empty squares whenever they are given: the analysis board's moves, or
    // the moves a game viewer's position had (it does not take clicks).
    const value = stone === "." ? this.bestValue(name) : null;
    const group = el("svg:g", { class: "square", "data-square": name, "data-value": value || undefined });
    if (this.values && this.values.size > 0 && stone === ".") {
      group.append(el("svg:title", {}, `${name}: ${valueWords(value, this.sideToMove())} (best twist)`));
    }
    group.append(el("svg:circle", { class: "hole" + (value ? " value-" + value : ""), cx: x, cy: y, r: CELL * 0.34 }));
    if (stone === "x" || stone === "o") {
      group.append(el("svg:circle", {
        class: "stone " + (stone === "x" ? "black" : "white"), cx: x, cy: y, r: CELL * 0.4,
      }));
      if (this.marks && this.marks.placed === name) {
        group.append(el("svg:circle", { class: "last-placed", cx: x, cy: y, r: CELL * 0.14 }));
        group.append(el("svg:title", {}, `${name}: the last stone placed`));
      }
      if (this.fives.has(name)) {
        group.append(el("svg:circle", { class: "five", cx: x, cy: y, r: CELL * 0.46 }));
      }
    } else if (this.selected === name) {
      group.append(el("svg:circle", { class: "stone pending " + this.sideToMove(), cx: x, cy: y, r: CELL * 0.4 }));
      group.append(el("svg:circle", { class: "selected", cx: x, cy: y, r: CELL * 0.44 }));
    }
    if (this.interactive && stone === ".") {
      group.addEventListener("click", () => {
        this.selected = this.selected === name ? null : name;
        this.draw();
      });
    }
    return group;
  }

  /** Two arrows on each quadrant: clockwise (R) and anticlockwise (L). */
  drawTwists() {
    for (let q = 1; q <= 4; q++) {
      const [cx, cy] = squareCentre(((q - 1) % 2) * 3 + 1, Math.floor((q - 1) / 2) * 3 + 1);
      for (const [direction, dx, symbol, words] of [
        ["L", -CELL * 0.75, "↺", "anticlockwise"],
        ["R", CELL * 0.75, "↻", "clockwise"],
      ]) {
        const twist = `${q}${direction}`;
        const move = `${this.selected}-${twist}`;
        const entry = this.values ? this.values.get(move) : null;
        const value = entry ? entry.value : null;
        const button = el("svg:g", {
          class: "twist" + (value ? " value-" + value : ""), "data-twist": twist,
          "data-value": value || undefined,
        });
        const exact = this.values
          ? ` — ${move}: ${valueWords(value, this.sideToMove())}${entry && entry.source ? ` (${entry.source})` : ""}`
          : "";
        button.append(el("svg:title", {}, `turn quadrant ${q} ${words}${exact}`));
        button.append(el("svg:circle", { cx: cx + dx, cy, r: 22 }));
        button.append(el("svg:text", { x: cx + dx, y: cy }, symbol));
        button.addEventListener("click", () => {
          const move = `${this.selected}-${twist}`;
          this.selected = null;
          this.draw();
          this.onMove(move);
        });
        this.svg.append(button);
      }
    }
  }
}

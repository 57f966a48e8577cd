// The Pentago board in SVG: stones from a position text; click an empty square, then one of the
// twist arrows that appear on the quadrants, to make a move.
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
    const side = 2 * MARGIN + 6 * CELL + GAP;
    svg.setAttribute("viewBox", `0 0 ${side} ${side}`);
    svg.setAttribute("width", side);
    svg.setAttribute("height", side);
    svg.classList.add("board");
  }

  /** Draws `position` (notation text); `interactive` lets the user move. */
  show(position, interactive) {
    this.position = position;
    this.interactive = interactive;
    this.selected = null;
    this.draw();
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
    for (let q = 0; q < 4; q++) {
      const [x, y] = squareCentre((q % 2) * 3, Math.floor(q / 2) * 3);
      svg.append(el("svg:rect", {
        class: "quadrant", x: x - CELL / 2, y: y - CELL / 2,
        width: 3 * CELL, height: 3 * CELL, rx: 12,
      }));
    }
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
    const group = el("svg:g", { class: "square", "data-square": name });
    group.append(el("svg:circle", { class: "hole", cx: x, cy: y, r: CELL * 0.34 }));
    if (stone === "x" || stone === "o") {
      group.append(el("svg:circle", {
        class: "stone " + (stone === "x" ? "black" : "white"), cx: x, cy: y, r: CELL * 0.4,
      }));
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
        const button = el("svg:g", { class: "twist", "data-twist": twist });
        button.append(el("svg:title", {}, `turn quadrant ${q} ${words}`));
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

// The explorer, an analysis board: a position's book tables beside the board, every move's exact
// value as a colour (green wins, grey draws, red loses for the mover), the line played as a move
// list; moves by clicks or from the table. The position and the line live in the URL
// (`?position=...&from=...&line=m1,m2`), so back/forward and shared links work.
"use strict";

const START = "....../....../....../....../....../......";
const board = new Board(document.getElementById("board"), playMove);
/** What the page shows: the position, and the line that led to it from `from`. */
let current = { position: START, from: START, line: [] };
/** Bumped on every load, so that a late answer for a position left behind is dropped. */
let generation = 0;
const exactView = new ExactView(document.getElementById("exact"));

/** The state in the URL (a position without a line is its own line's start). */
function stateFromUrl() {
  const params = new URLSearchParams(location.search);
  const position = params.get("position") || START;
  const line = (params.get("line") || "").split(",").filter((m) => m);
  const from = params.get("from") || (line.length ? START : position);
  return { position, from, line };
}

/** The URL of `state` (positions and moves need no escaping: `.xo/`, letters, digits, `-`). */
function urlOf(state) {
  const params = [];
  if (state.position !== START) params.push("position=" + state.position);
  if (state.line.length) {
    if (state.from !== START) params.push("from=" + state.from);
    params.push("line=" + state.line.join(","));
  }
  return params.length ? "/?" + params.join("&") : "/";
}

/** Goes to `state`, adding it to the browser history. */
function go(state) {
  history.pushState(state, "", urlOf(state));
  load(state);
}

/** Plays `move` from the current position: the line grows by it. */
async function playMove(move) {
  const from = current.position;
  try {
    const line = await api(`book/line?position=${encodeURIComponent(from)}&moves=${encodeURIComponent(move)}`);
    const last = line.steps[line.steps.length - 1];
    go({ position: last.position, from: current.from, line: current.line.concat([last.move]) });
  } catch (error) {
    say("message", error.message, true);
    board.show(from, true);
  }
}

function proofBadge(value) {
  return value ? el("span", { class: "badge " + value, title: "proven " + value + " for the mover" }, value) : "";
}

function mergeBadge(also) {
  if (also.length === 0) return "";
  return el("span", { class: "badge merge", title: "merged: " + also.join(" ") }, "+" + also.length);
}

function resultBar(row) {
  const part = (n, cls) => el("span", { class: cls, style: `width:${(100 * n) / row.games}%` });
  return el("div", { class: "bar", title: `${row.wins} won, ${row.draws} drawn, ${row.losses} lost` },
    row.games ? [part(row.wins, "w"), part(row.draws, "d"), part(row.losses, "l")] : []);
}

function renderTable(id, totalId, table) {
  document.getElementById(totalId).textContent = table.total ? `(${count(table.total)} in all)` : "";
  const node = document.getElementById(id);
  if (table.moves.length === 0) {
    node.replaceChildren(el("tbody", {}, el("tr", {}, el("td", { class: "muted" }, "no data for this position"))));
    return;
  }
  const head = el("thead", {}, el("tr", {},
    el("th", {}, "move"), el("th", { class: "num" }, "games"), el("th", {}, "result"),
    el("th", { class: "num" }, "win rate"), el("th", {}, "95% interval"), el("th", {}, "proven"),
    el("th", {}, "exact")));
  const body = el("tbody", {}, table.moves.map((row) => el("tr", {
    class: "clickable", "data-move": row.move,
    onclick: () => go({ position: row.after, from: current.from, line: current.line.concat([row.move]) }),
  },
    el("td", { class: "mono" }, row.move, " ", mergeBadge(row.also)),
    el("td", { class: "num" }, count(row.games)),
    el("td", {}, resultBar(row)),
    el("td", { class: "num" }, row.win_rate ? percent(row.win_rate.rate) : "—"),
    el("td", { class: "muted" }, row.win_rate ? `${percent(row.win_rate.low)} – ${percent(row.win_rate.high)}` : ""),
    el("td", {}, proofBadge(row.proven)),
    el("td", { class: "exact" }, "…"))));
  node.replaceChildren(head, body);
}

/** Fills the book tables' "exact" column from the exact values (`values`: move -> entry). */
function markRows(values, side) {
  for (const cell of document.querySelectorAll("tr[data-move] td.exact")) {
    const entry = values ? values.get(cell.parentElement.dataset.move) : null;
    const value = entry ? entry.value : null;
    cell.dataset.value = value || "";
    cell.replaceChildren(value
      ? el("span", { class: "badge " + value, title: `${valueWords(value, side)} (${entry.source})` }, value)
      : el("span", { class: "muted", title: "exact value unknown" }, "?"));
  }
}

/** The move list of the line (each entry goes back to the position after it). */
async function renderLine(state, token) {
  const list = document.getElementById("movelist");
  if (state.line.length === 0) {
    list.replaceChildren(el("li", { class: "muted" }, "no moves played from this position yet"));
    return null;
  }
  const line = await api(`book/line?position=${encodeURIComponent(state.from)}&moves=${encodeURIComponent(state.line.join(","))}`);
  if (token !== generation) return null;
  const start = el("li", {}, el("button", {
    "data-ply": 0, title: "the line's first position", onclick: () => go({ position: state.from, from: state.from, line: [] }),
  }, "start"));
  const items = line.steps.slice(1).map((step, index) => el("li", {}, el("button", {
    "data-ply": index + 1,
    class: index + 1 === state.line.length ? "current" : undefined,
    title: `position after ${index + 1} moves`,
    onclick: () => go({ position: step.position, from: state.from, line: state.line.slice(0, index + 1) }),
  }, `${index + 1}. ${step.move}`)));
  list.replaceChildren(start, ...items);
  const steps = line.steps;
  return lastMoveMarks(steps[steps.length - 2].position, steps[steps.length - 1].move);
}

async function load(state) {
  current = state;
  const token = ++generation;
  say("message", "");
  try {
    const [book, marks] = await Promise.all([
      api("book?position=" + encodeURIComponent(state.position)),
      renderLine(state, token).catch((error) => {
        say("message", error.message, true);
        return null;
      }),
    ]);
    if (token !== generation) return;
    board.show(book.position, book.status === "ongoing", marks);
    const title = book.stones === 0 ? "Start position" : `After ${book.stones} stones`;
    document.getElementById("title").textContent = title;
    const standing = book.status === "ongoing" ? `${book.side_to_move} to move`
      : book.status === "draw" ? "the game is drawn" : `${book.status} has won`;
    const info = document.getElementById("info");
    info.replaceChildren(standing, " · stored as ", el("code", {}, book.canonical));
    renderTable("playouts-table", "playouts-total", book.sources.playouts);
    renderTable("games-table", "games-total", book.sources.games);
  } catch (error) {
    say("message", error.message, true);
    board.show(state.position, false);
  }
  if (token === generation) {
    await exactView.show(state.position, () => token === generation, (values, exact) => {
      board.setValues(values);
      markRows(values, exact.side_to_move);
    });
  }
}

document.getElementById("back").addEventListener("click", () => history.back());
document.getElementById("forward").addEventListener("click", () => history.forward());
document.getElementById("start").addEventListener("click", () => go({ position: START, from: START, line: [] }));
document.getElementById("paste").addEventListener("submit", async (event) => {
  event.preventDefault();
  const text = document.getElementById("paste-text").value.trim() || START;
  try {
    const line = await api("book/line?position=" + encodeURIComponent(text));
    const position = line.steps[0].position;
    go({ position, from: position, line: [] });
  } catch (error) {
    say("message", error.message, true);
  }
});
window.addEventListener("popstate", () => load(stateFromUrl()));
markNavigation("explorer");
load(stateFromUrl());

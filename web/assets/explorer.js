// The explorer: a position's book tables beside the board; moves by clicks or from the table;
// the position lives in the URL (`?position=...`), so back/forward and shared links work.
"use strict";

const START = "....../....../....../....../....../......";
const board = new Board(document.getElementById("board"), playMove);

function currentPosition() {
  return new URLSearchParams(location.search).get("position") || START;
}

function urlOf(position) {
  return position === START ? "/" : "/?position=" + position;
}

/** Goes to `position`, adding it to the browser history. */
function go(position) {
  history.pushState({ position }, "", urlOf(position));
  load(position);
}

async function playMove(move) {
  const from = currentPosition();
  try {
    const line = await api(`book/line?position=${encodeURIComponent(from)}&moves=${encodeURIComponent(move)}`);
    go(line.steps[line.steps.length - 1].position);
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
    el("th", { class: "num" }, "win rate"), el("th", {}, "95% interval"), el("th", {}, "proven")));
  const body = el("tbody", {}, table.moves.map((row) => el("tr", {
    class: "clickable", "data-move": row.move, onclick: () => go(row.after),
  },
    el("td", { class: "mono" }, row.move, " ", mergeBadge(row.also)),
    el("td", { class: "num" }, count(row.games)),
    el("td", {}, resultBar(row)),
    el("td", { class: "num" }, row.win_rate ? percent(row.win_rate.rate) : "—"),
    el("td", { class: "muted" }, row.win_rate ? `${percent(row.win_rate.low)} – ${percent(row.win_rate.high)}` : ""),
    el("td", {}, proofBadge(row.proven)))));
  node.replaceChildren(head, body);
}

async function load(position) {
  say("message", "");
  try {
    const book = await api("book?position=" + encodeURIComponent(position));
    board.show(book.position, book.status === "ongoing");
    const title = book.stones === 0 ? "Start position" : `After ${book.stones} stones`;
    document.getElementById("title").textContent = title;
    const state = book.status === "ongoing" ? `${book.side_to_move} to move`
      : book.status === "draw" ? "the game is drawn" : `${book.status} has won`;
    const info = document.getElementById("info");
    info.replaceChildren(state, " · stored as ", el("code", {}, book.canonical));
    renderTable("playouts-table", "playouts-total", book.sources.playouts);
    renderTable("games-table", "games-total", book.sources.games);
  } catch (error) {
    say("message", error.message, true);
  }
}

document.getElementById("back").addEventListener("click", () => history.back());
document.getElementById("forward").addEventListener("click", () => history.forward());
document.getElementById("start").addEventListener("click", () => go(START));
document.getElementById("paste").addEventListener("submit", async (event) => {
  event.preventDefault();
  const text = document.getElementById("paste-text").value.trim() || START;
  try {
    const line = await api("book/line?position=" + encodeURIComponent(text));
    go(line.steps[0].position);
  } catch (error) {
    say("message", error.message, true);
  }
});
window.addEventListener("popstate", () => load(currentPosition()));
markNavigation("explorer");
load(currentPosition());

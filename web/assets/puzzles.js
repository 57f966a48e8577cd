// Puzzles: the collection with filters and pages; with `?id=...`, a solve mode in which the
// user plays the attacker's moves and the defender answers from the proof tree.
"use strict";

const params = new URLSearchParams(location.search);
markNavigation("puzzles");

// ---- The collection.

let page = Number(params.get("page")) || 1;

function filterQuery() {
  const query = new URLSearchParams();
  for (const name of ["length", "theme", "difficulty"]) {
    const value = document.getElementById(name).value;
    if (value) query.set(name, value);
  }
  return query;
}

async function loadCollection() {
  const query = filterQuery();
  query.set("page", page);
  try {
    const result = await api("puzzles?" + query);
    say("summary", `${result.total} puzzle${result.total === 1 ? "" : "s"}`);
    document.getElementById("page-info").textContent = `page ${result.page} of ${Math.max(result.pages, 1)}`;
    document.getElementById("previous").disabled = result.page <= 1;
    document.getElementById("next").disabled = result.page >= result.pages;
    const head = el("thead", {}, el("tr", {}, el("th", {}, "puzzle"), el("th", {}, "to move"),
      el("th", { class: "num" }, "mate in"), el("th", { class: "num" }, "difficulty"), el("th", {}, "themes"), el("th", {}, "from")));
    const body = el("tbody", {}, result.puzzles.map((p) => el("tr", {
      class: "clickable", "data-id": p.id, onclick: () => { location.href = "/puzzles?id=" + p.id; },
    },
      el("td", { class: "mono" }, el("a", { href: "/puzzles?id=" + p.id }, p.position)),
      el("td", {}, p.side_to_move),
      el("td", { class: "num" }, p.mate_in),
      el("td", { class: "num" }, p.difficulty.toFixed(1), " ", el("span", { class: "badge level" }, p.level)),
      el("td", {}, p.themes.map((t) => el("span", { class: "badge theme" }, t)), ""),
      el("td", { class: "muted" }, p.source))));
    document.getElementById("puzzle-list").replaceChildren(head, body);
  } catch (error) {
    say("summary", error.message, true);
  }
}

// ---- Solve mode.

let puzzle = null;
let node = null; // the attacker node whose move the user must find
const board = new Board(document.getElementById("board"), attackerMove);

function played(text) {
  document.getElementById("moves-played").append(el("li", {}, text));
}

function restart() {
  node = puzzle.solution;
  document.getElementById("moves-played").replaceChildren();
  board.show(puzzle.position, true);
  say("message", `${puzzle.side_to_move} to move and mate in ${puzzle.mate_in}`);
}

/** The defence the proof needs the longest answer to. */
function hardestReply(replies) {
  const depth = (reply) => (reply.then ? reply.then.depth : 0);
  return replies.reduce((best, reply) => (depth(reply) > depth(best) ? reply : best));
}

function attackerMove(move) {
  const message = document.getElementById("message");
  const symmetric = node.symmetric.includes(move);
  if (move !== node.move && !node.same.includes(move) && !symmetric) {
    message.className = "message bad";
    message.textContent = `${move} is not the solution: try again`;
    board.show(board.position, true);
    return;
  }
  played(move === node.move ? move : `${move} (≡ ${node.move})`);
  board.show(node.after, false);
  message.className = "message good";
  if (node.replies.length === 0) {
    message.textContent = "Solved! That move wins.";
    message.dataset.solved = "true";
    return;
  }
  message.textContent = symmetric
    ? `Right: ${move} is ${node.move} on a turned board; the game goes on as ${node.move}.`
    : "Right! The defender answers…";
  const reply = hardestReply(node.replies);
  setTimeout(() => {
    played(reply.moves[0]);
    if (!reply.then) {
      board.show(reply.after, false);
      message.textContent = `Solved! ${reply.moves[0]} loses at once.`;
      message.dataset.solved = "true";
      return;
    }
    node = reply.then;
    board.show(reply.after, true);
    message.textContent = `The defender played ${reply.moves[0]}. Your move.`;
  }, 400);
}

function solutionItem(attack) {
  const alternatives = [...attack.same.map((m) => "≡" + m), ...attack.symmetric.map((m) => "⟲" + m)];
  const item = el("li", {}, el("b", {}, attack.move),
    alternatives.length ? el("span", { class: "muted", title: alternatives.join(" ") }, ` (+${alternatives.length} equivalent)`) : "");
  if (attack.replies.length) {
    item.append(el("ul", {}, attack.replies.map((reply) => el("li", {},
      reply.moves.join(" "), reply.then ? el("ul", {}, solutionItem(reply.then)) : " (ends the game)"))));
  }
  return item;
}

async function loadPuzzle(id) {
  document.getElementById("collection").hidden = true;
  document.getElementById("solve").hidden = false;
  try {
    puzzle = await api("puzzles/" + encodeURIComponent(id));
  } catch (error) {
    say("message", error.message, true);
    return;
  }
  document.getElementById("puzzle-title").textContent = `Mate in ${puzzle.mate_in}`;
  document.getElementById("puzzle-info").textContent =
    `difficulty ${puzzle.difficulty.toFixed(1)} (${puzzle.level}) · ${puzzle.themes.join(", ")} · from ${puzzle.source || "unknown"}`;
  document.getElementById("main-line").textContent = puzzle.main_line.join(" ");
  document.getElementById("solution-tree").replaceChildren(solutionItem(puzzle.solution));
  restart();
}

if (params.get("id")) {
  loadPuzzle(params.get("id"));
  document.getElementById("restart").addEventListener("click", restart);
  document.getElementById("show-solution").addEventListener("click", () => {
    document.getElementById("solution").hidden = false;
  });
} else {
  for (const name of ["length", "theme", "difficulty"]) {
    document.getElementById(name).value = params.get(name) || "";
    document.getElementById(name).addEventListener("change", () => { page = 1; loadCollection(); });
  }
  document.getElementById("previous").addEventListener("click", () => { page -= 1; loadCollection(); });
  document.getElementById("next").addEventListener("click", () => { page += 1; loadCollection(); });
  loadCollection();
}

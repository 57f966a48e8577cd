// The game viewer: one stored game of a match (`?match=ID&pair=P&game=1|2`, optionally
// `&ply=N`) stepped through move by move — the board with the last placement and twist, every
// position's exact values where known (from /api/v1/exact, as on the analysis board), the time
// each move took and, under a whole-game time control, both clocks (where the stored game has
// move times), the move list with each played move's exact value, first/prev/next/last buttons
// and the arrow keys.
"use strict";

markNavigation("matches");
const params = new URLSearchParams(location.search);
const board = new Board(document.getElementById("board"), () => {});
const exactView = new ExactView(document.getElementById("exact"));
/** The game from the API, and the ply shown (0: the opening). */
let game = null;
let ply = 0;
/** Bumped on every step, so that a late answer for a position left behind is dropped. */
let generation = 0;

const RESULTS = { black: "black won", white: "white won", draw: "a draw", ongoing: "unfinished" };

/** The position after `n` moves. */
function positionAt(n) {
  return n === 0 ? game.opening : game.plies[n - 1].position;
}

/** How the game ended, in words. */
function ending() {
  const t = game.termination;
  const result = RESULTS[game.result] || game.result;
  if (t.kind === "forfeit") return `${result}: ${t.loser} forfeited (${t.reason}${t.detail ? ": " + t.detail : ""})`;
  if (t.kind === "adjudicated") return `${result}: adjudicated by the exact value (from ${SOURCES[t.source] || t.source})`;
  return result;
}

/** Seconds as shown. */
function seconds(s) {
  return `${s} s`;
}

/** The time limit, the time move `n` took and both clocks after it (at the opening: before the
 * first move), where the game has them. */
function clockText(n) {
  const scale = game.time_scale !== 1 ? `, scaled ×${game.time_scale} for the worker's speed` : "";
  const parts = [game.time_limit ? `time limit ${game.time_limit}${scale}` : "no time limit: the players' own budgets"];
  const played = n > 0 ? game.plies[n - 1] : null;
  if (played && played.seconds !== null) parts.push(`${played.mover} took ${seconds(played.seconds)}`);
  const clocks = played ? played.clocks : game.start_clocks;
  if (clocks) parts.push(`clocks: black ${seconds(clocks.black)}, white ${seconds(clocks.white)}`);
  if (!game.time_used && game.plies.length > 0) parts.push("the stored game has no per-move times");
  return parts.join(" · ");
}

/** The move list, each move a button to its position; the shown one marked. */
function renderMoves() {
  const start = el("li", {}, el("button", { "data-ply": 0, title: "the opening", onclick: () => show(0) }, "opening"));
  const items = game.plies.map((p) => el("li", {}, el("button", {
    "data-ply": p.ply, title: `${p.mover}'s move ${p.ply}`, onclick: () => show(p.ply),
  }, `${p.ply}. ${p.move}`)));
  document.getElementById("movelist").replaceChildren(start, ...items);
}

/** Marks played move `n` with its exact value for its mover (`entry` from /exact, or none). */
function markPlayed(n, entry) {
  const button = document.querySelector(`#movelist button[data-ply="${n}"]`);
  if (!button || !entry || !entry.value) return;
  button.dataset.value = entry.value;
  button.classList.add("value-" + entry.value);
  button.title = `${game.plies[n - 1].mover}'s move ${n}: ${valueWords(entry.value, game.plies[n - 1].mover)} (${SOURCES[entry.source] || entry.source})`;
}

/** Shows the position after `n` moves (clamped to the game). */
function show(n) {
  ply = Math.max(0, Math.min(n, game.plies.length));
  const token = ++generation;
  const position = positionAt(ply);
  const marks = ply > 0 ? lastMoveMarks(positionAt(ply - 1), game.plies[ply - 1].move) : null;
  board.show(position, false, marks);
  const total = game.plies.length;
  document.getElementById("ply-info").textContent = `move ${ply} of ${total}`;
  for (const [id, disabled] of [["first", ply === 0], ["prev", ply === 0], ["next", ply === total], ["last", ply === total]]) {
    document.getElementById(id).disabled = disabled;
  }
  for (const button of document.querySelectorAll("#movelist button")) {
    button.classList.toggle("current", Number(button.dataset.ply) === ply);
  }
  document.getElementById("position-title").textContent = ply === 0
    ? "The opening" : `After move ${ply}: ${game.plies[ply - 1].move} by ${game.plies[ply - 1].mover}`;
  document.getElementById("standing").textContent = ply === total
    ? `End of the game: ${ending()}` : `${board.sideToMove()} to move`;
  document.getElementById("clock").textContent = clockText(ply);
  const url = new URL(location.href);
  url.searchParams.set("ply", ply);
  history.replaceState(null, "", url);
  exactView.show(position, () => token === generation, (values) => {
    board.setValues(values);
    if (ply < total) markPlayed(ply + 1, values.get(game.plies[ply].move));
  });
}

function step(delta) {
  if (game) show(ply + delta);
}

async function load() {
  const [match, pair, number] = ["match", "pair", "game"].map((name) => params.get(name));
  if (!match || !pair || !number) {
    say("message", "Open a game from its match's page (/game?match=ID&pair=P&game=1 or 2).", true);
    return;
  }
  document.getElementById("match-link").href = "/matches?id=" + encodeURIComponent(match);
  try {
    game = await api(["matches", match, "games", pair, number].map(encodeURIComponent).join("/"));
  } catch (error) {
    say("message", error.message, true);
    return;
  }
  document.getElementById("game-title").textContent =
    `Match ${game.match_id}, pair ${game.pair} game ${game.game}: ${game.black.name} (black) vs ${game.white.name} (white)`;
  const info = document.getElementById("game-info");
  const used = game.time_used
    ? ` · time used: black ${seconds(game.time_used.black)}, white ${seconds(game.time_used.white)}` : "";
  info.replaceChildren(`${ending()} · ${game.plies.length} moves from `, el("code", {}, game.opening), used);
  info.title = `black: ${game.black.spec}\nwhite: ${game.white.spec}`;
  document.getElementById("record").textContent = game.record;
  renderMoves();
  const asked = Number.parseInt(params.get("ply") || "0", 10);
  show(Number.isFinite(asked) ? asked : 0);
}

document.getElementById("first").addEventListener("click", () => step(-Infinity));
document.getElementById("prev").addEventListener("click", () => step(-1));
document.getElementById("next").addEventListener("click", () => step(1));
document.getElementById("last").addEventListener("click", () => step(Infinity));
document.addEventListener("keydown", (event) => {
  if (event.altKey || event.ctrlKey || event.metaKey) return;
  const delta = { ArrowLeft: -1, ArrowRight: 1, Home: -Infinity, End: Infinity }[event.key];
  if (delta === undefined) return;
  event.preventDefault();
  step(delta);
});
load();

// Exact values of a position for the analysis board and the game viewer: asks
// `/api/v1/exact`, says where the values come from, and waits out a busy solver.
"use strict";

/** `/exact` for `position`: the answer, or {busy: seconds} when the solver is full. */
async function exactValues(position) {
  const response = await fetch("/api/v1/exact?position=" + encodeURIComponent(position));
  const body = await response.json().catch(() => null);
  if (response.status === 503 && body && body.error && body.error.code === "solver_busy") {
    return { busy: Number(response.headers.get("Retry-After")) || 5, message: body.error.message };
  }
  if (!response.ok) throw new Error(body && body.error ? body.error.message : `HTTP ${response.status}`);
  return body;
}

const SOURCES = { table: "the tablebase (Irving's solution)", book: "the book's proofs", solver: "the exact solver", rules: "the rules" };

/** The summary line of an `/exact` answer: the position's value and source, the moves' tally. */
function exactSummary(exact) {
  const side = exact.side_to_move;
  const parts = [];
  if (exact.value) {
    parts.push(el("span", { class: "badge " + exact.value, "data-value": exact.value }, exact.value),
      ` for ${side}, from ${SOURCES[exact.source] || exact.source}`);
  } else {
    parts.push("position value unknown");
  }
  if (exact.moves.length) {
    const tally = { win: 0, draw: 0, loss: 0 };
    for (const m of exact.moves) if (m.value) tally[m.value] += 1;
    parts.push(` · moves: ${tally.win} win, ${tally.draw} draw, ${tally.loss} lose`);
    if (exact.unknown_moves) parts.push(`, ${exact.unknown_moves} unknown`);
  }
  if (exact.solver) parts.push(` · solver: ${exact.solver.method}, ${exact.solver.seconds.toFixed(2)} s`);
  if (exact.unknown) parts.push(el("div", { class: "muted" }, exact.unknown.message));
  return parts;
}

/** Shows the exact values of the positions a page shows, one position at a time. */
class ExactView {
  /** @param summary the element that gets the summary line */
  constructor(summary) {
    this.summary = summary;
    this.retryTimer = null;
  }

  /**
   * Asks for the exact values of `position` and, unless `isCurrent()` turned false meanwhile,
   * writes the summary and calls `paint(values, exact)` with `values` a map from move text to
   * its entry {move, value, source}. A busy solver is asked again after the time it names.
   */
  async show(position, isCurrent, paint) {
    clearTimeout(this.retryTimer);
    this.summary.replaceChildren("exact values: asking…");
    let exact;
    try {
      exact = await exactValues(position);
    } catch (error) {
      if (isCurrent()) this.summary.replaceChildren(el("span", { class: "error" }, "exact values: " + error.message));
      return;
    }
    if (!isCurrent()) return;
    if (exact.busy) {
      this.summary.replaceChildren(`exact values: the solver is busy; asking again in ${exact.busy} s`);
      this.retryTimer = setTimeout(() => { if (isCurrent()) this.show(position, isCurrent, paint); }, exact.busy * 1000);
      return;
    }
    paint(new Map(exact.moves.map((m) => [m.move, m])), exact);
    this.summary.replaceChildren(...exactSummary(exact));
  }
}

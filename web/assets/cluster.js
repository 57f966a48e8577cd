// The cluster: jobs by state, stored totals, throughput, running matches and workers, refreshed
// every 2 seconds.
"use strict";

markNavigation("cluster");

function stat(value, label) {
  return el("div", { class: "stat", "data-stat": label }, el("b", {}, count(value)), el("span", {}, label));
}

async function refresh() {
  try {
    const c = await api("cluster");
    say("message", "");
    document.getElementById("updated").textContent = "· updated " + new Date().toLocaleTimeString();
    document.getElementById("jobs").replaceChildren(
      ...["queued", "leased", "done", "failed", "cancelled"].map((s) => stat(c.jobs[s], s)));
    document.getElementById("stored").replaceChildren(
      stat(c.stored.playout_positions, "positions with playout tables"),
      stat(c.stored.game_positions, "positions with game tables"),
      stat(c.stored.games, "games"),
      stat(c.stored.playouts, "playouts"));
    // Older samples to the left of "now" (0); whole seconds while the history is short, else whole minutes.
    const minutes = c.throughput.some((r) => r.seconds_ago >= 120);
    const ago = (r) => -r.seconds_ago / (minutes ? 60 : 1);
    // Two units, two axes: playouts per second on the left, jobs per minute on the right.
    lineChart(document.getElementById("throughput-chart"), {
      x: { label: minutes ? "minutes ago" : "seconds ago", max: 0, minStep: 1, format: (label) => label.replace(/^−/, "") },
      y: { label: "playouts / s", min: 0 },
      y2: { label: "jobs / min", min: 0 },
      series: [
        { name: "playouts", color: "#1f6feb", points: c.throughput.map((r) => [ago(r), r.playouts_per_second]) },
        { name: "jobs", color: "#2e8540", axis: "right", points: c.throughput.map((r) => [ago(r), 60 * r.jobs_per_second]) },
      ],
    });
    const matchHead = el("thead", {}, el("tr", {}, el("th", { class: "num" }, "match"), el("th", {}, "players"),
      el("th", {}, "state"), el("th", { class: "num" }, "pairs done"), el("th", { class: "num" }, "leased"),
      el("th", { class: "num" }, "weight")));
    const matchBody = el("tbody", {}, c.matches.length ? c.matches.map((m) => el("tr", { "data-match": m.id },
      el("td", { class: "num" }, el("a", { href: `/matches?id=${m.id}` }, String(m.id))), el("td", {}, `${m.a} vs ${m.b}`),
      el("td", {}, m.state), el("td", { class: "num" }, `${count(m.pairs_done)} / ${count(m.pairs)}`),
      el("td", { class: "num" }, m.pairs_leased), el("td", { class: "num" }, m.weight)))
      : el("tr", {}, el("td", { class: "muted" }, "no running matches")));
    document.getElementById("matches").replaceChildren(matchHead, matchBody);
    const head = el("thead", {}, el("tr", {}, el("th", {}, "name"), el("th", {}, "id"), el("th", { class: "num" }, "threads"),
      el("th", { class: "num" }, "leases"), el("th", { class: "num" }, "results"), el("th", { class: "num" }, "last seen"),
      el("th", {}, "cross-checks")));
    const body = el("tbody", {}, c.workers.length ? c.workers.map((w) => el("tr", { "data-worker": w.id },
      el("td", {}, w.name), el("td", { class: "mono muted" }, w.id), el("td", { class: "num" }, w.threads),
      el("td", { class: "num" }, w.leases), el("td", { class: "num" }, count(w.results)),
      el("td", { class: "num" }, w.seconds_since_seen.toFixed(1) + " s ago"),
      el("td", { class: w.flags ? "bad" : "muted", "data-quarantined": String(w.quarantined) },
        w.quarantined ? "quarantined" : w.flags ? `flagged ${w.flags}×` : "clean")))
      : el("tr", {}, el("td", { class: "muted" }, "no workers")));
    document.getElementById("workers").replaceChildren(head, body);
    const caught = c.flagged_workers || [];
    document.getElementById("caught").replaceChildren(...(caught.length ? caught.map((w) => el("li", { "data-caught": w.id },
      el("span", { class: "mono" }, w.id), ` ${w.quarantined ? "quarantined" : `flagged ${w.flags}×`}: ${w.last_reason}`,
      w.purged_results ? ` — purged ${count(w.purged_values)} values of ${count(w.purged_results)} results (solved again by others)` : "",
      w.reopened_solves || w.demoted_values ? ` — reopened ${count(w.reopened_solves)} deep solves, demoted ${count(w.demoted_values)} values carried up the book from them` : "",
      w.purged_positions ? ` — purged ${count(w.purged_playouts)} playouts of its analyses from ${count(w.purged_positions)} positions` : "",
      w.purged_game_positions ? ` — purged ${count(w.purged_games)} games from ${count(w.purged_game_positions)} positions` : "",
      w.purged_pairs ? ` — purged ${count(w.purged_pairs)} match pairs (played again by others)` : ""))
      : [el("li", { class: "muted" }, "none")]));
  } catch (error) {
    say("message", error.message, true);
  }
}

refresh();
setInterval(refresh, 2000);

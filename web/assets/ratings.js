// Ratings: the rating list of every stored match with the tournaments below it, and with
// `?tournament=N` one tournament: its rating list, head-to-head table and matches.
"use strict";

const params = new URLSearchParams(location.search);
markNavigation("ratings");

const MATCH_STATES = {
  running: "running", accepted_h0: "H0 accepted", accepted_h1: "H1 accepted",
  complete: "complete", stopped: "stopped",
};

// The rating table: one body per group of players linked by games, each ranked on its own
// (players never linked cannot be compared, so they are never ranked in one list).
function ratingRows(list) {
  const head = el("thead", {}, el("tr", {}, el("th", { class: "num" }, "rank"), el("th", {}, "player"),
    el("th", {}, "Elo, 95% interval"), el("th", { class: "num" }, "games"), el("th", { class: "num" }, "score")));
  const groups = list.components.length;
  const anchors = list.component_anchors || [];
  const row = (p) => el("tr", { "data-player": p.name },
    el("td", { class: "num" }, p.rank),
    el("td", { class: "mono" }, p.name,
      p.name === list.anchor ? " (anchor)" : (groups > 1 && anchors[p.component] === p.name ? " (group anchor)" : "")),
    el("td", { class: "mono" }, eloText(p.rating)),
    el("td", { class: "num" }, count(p.games)),
    el("td", { class: "num" }, p.games ? percent(p.points / p.games) : "—"));
  const bodies = list.components.map((_, group) => el("tbody", { "data-group": group + 1 },
    groups > 1 ? el("tr", { class: "group-head" }, el("th", { colspan: 5 },
      `Group ${group + 1} of ${groups}: ranked on its own, ratings relative to ${anchors[group] || "its first player"}`)) : null,
    list.players.filter((p) => p.component === group).map(row)));
  return [head, ...bodies];
}

function pairRows(list) {
  const head = el("thead", {}, el("tr", {}, el("th", {}, "player"), el("th", {}, "opponent"),
    el("th", { class: "num" }, "wins / draws / losses"), el("th", {}, "rating difference")));
  const body = el("tbody", {}, list.pairs.map((p) => el("tr", {},
    el("td", { class: "mono" }, p.a), el("td", { class: "mono" }, p.b),
    el("td", { class: "num" }, `${p.score.wins} / ${p.score.draws} / ${p.score.losses}`),
    el("td", { class: "mono" }, eloText(p.difference)))));
  return [head, body];
}

async function loadOverall() {
  try {
    const list = await api("ratings");
    document.getElementById("ratings").replaceChildren(...ratingRows(list));
    document.getElementById("pairs").replaceChildren(...pairRows(list));
    if (list.components.length > 1) {
      say("ratings-message", `${list.components.length} groups of players never linked by games: each is ranked on its own, and ratings compare only within a group.`);
    }
  } catch (error) {
    say("ratings-message", error.message, true);
  }
  try {
    const result = await api("tournaments");
    if (result.tournaments.length === 0) {
      say("tournaments-message", "No tournaments yet: start one with `pentagrid tournament start --player ... --player ...`.");
      return;
    }
    const head = el("thead", {}, el("tr", {}, el("th", {}, "id"), el("th", {}, "kind"), el("th", {}, "players"),
      el("th", { class: "num" }, "pairs"), el("th", {}, "state")));
    const body = el("tbody", {}, result.tournaments.map((t) => el("tr", {
      class: "clickable", "data-id": t.id, onclick: () => { location.href = "/ratings?tournament=" + t.id; },
    },
      el("td", {}, el("a", { href: "/ratings?tournament=" + t.id }, t.id)),
      el("td", {}, t.kind), el("td", { class: "mono" }, t.players.join(", ")),
      el("td", { class: "num" }, `${t.pairs_done} / ${t.pairs}`),
      el("td", {}, t.finished ? "finished" : "running"))));
    document.getElementById("tournament-list").replaceChildren(head, body);
  } catch (error) {
    say("tournaments-message", error.message, true);
  }
}

async function loadTournament(id) {
  document.getElementById("overall").hidden = true;
  document.getElementById("tournament").hidden = false;
  let t;
  try {
    t = await api("tournaments/" + encodeURIComponent(id));
  } catch (error) {
    say("tournament-message", error.message, true);
    return;
  }
  document.getElementById("tournament-title").textContent = `Tournament ${t.id}: ${t.kind}, ${t.players.length} players`;
  document.getElementById("tournament-info").textContent =
    `${t.pairs_done} of ${t.pairs} pairs played · ${t.match_count} matches · ${t.finished ? "finished" : "running"}`;
  document.getElementById("tournament-ratings").replaceChildren(...ratingRows(t.ratings));
  document.getElementById("tournament-pairs").replaceChildren(...pairRows(t.ratings));
  const head = el("thead", {}, el("tr", {}, el("th", {}, "match"), el("th", {}, "A"), el("th", {}, "B"),
    el("th", { class: "num" }, "pairs"), el("th", {}, "Elo of A"), el("th", {}, "state")));
  const body = el("tbody", {}, t.matches.map((m) => el("tr", {},
    el("td", {}, el("a", { href: "/matches?id=" + m.id }, m.id)),
    el("td", { class: "mono" }, m.a), el("td", { class: "mono" }, m.b),
    el("td", { class: "num" }, `${m.pairs_done} / ${m.pairs}`),
    el("td", { class: "mono" }, eloText(m.elo)),
    el("td", {}, MATCH_STATES[m.state] || m.state))));
  document.getElementById("tournament-matches").replaceChildren(head, body);
}

if (params.has("tournament")) loadTournament(params.get("tournament"));
else loadOverall();

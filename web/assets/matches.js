// Matches: the list, and with `?id=N` one match with its counts, its Elo and LLR curves,
// when measured each player's accuracy against perfect play, and its games (each linked to the
// game viewer).
"use strict";

const params = new URLSearchParams(location.search);
markNavigation("matches");

const STATES = {
  running: "running", accepted_h0: "H0 accepted", accepted_h1: "H1 accepted",
  complete: "complete", stopped: "stopped",
};

async function loadList() {
  try {
    const result = await api("matches");
    if (result.matches.length === 0) {
      say("list-message", "No matches yet: start one with `pentagrid match --a ... --b ... --pairs N`.");
      return;
    }
    const head = el("thead", {}, el("tr", {}, el("th", {}, "id"), el("th", {}, "A"), el("th", {}, "B"),
      el("th", { class: "num" }, "pairs"), el("th", {}, "Elo of A"), el("th", {}, "state")));
    const body = el("tbody", {}, result.matches.map((m) => el("tr", {
      class: "clickable", "data-id": m.id, onclick: () => { location.href = "/matches?id=" + m.id; },
    },
      el("td", {}, el("a", { href: "/matches?id=" + m.id }, m.id)),
      el("td", { class: "mono" }, m.a), el("td", { class: "mono" }, m.b),
      el("td", { class: "num" }, `${m.pairs_done} / ${m.pairs}`),
      el("td", { class: "mono" }, eloText(m.elo)),
      el("td", {}, STATES[m.state] || m.state))));
    document.getElementById("match-list").replaceChildren(head, body);
  } catch (error) {
    say("list-message", error.message, true);
  }
}

function stat(value, label) {
  return el("div", { class: "stat" }, el("b", {}, value), el("span", {}, label));
}

// Each player's share of judged moves that kept the exact value, with the counts behind it.
function showAccuracy(accuracy) {
  document.getElementById("accuracy-section").hidden = !accuracy;
  if (!accuracy) return;
  document.getElementById("accuracy-stones").textContent = accuracy.min_stones;
  const side = (name, s) => el("div", { class: "stat", "data-side": name },
    el("b", {}, s.share === null ? "n/a" : `${(100 * s.share).toFixed(1)}%`),
    el("span", {}, `${name}: ${s.moves - s.drops} of ${s.moves} moves kept the value (${s.drops} drops)`));
  document.getElementById("accuracy").replaceChildren(side("A", accuracy.a), side("B", accuracy.b));
}

async function loadMatch(id) {
  document.getElementById("list").hidden = true;
  document.getElementById("detail").hidden = false;
  let m;
  try {
    m = await api("matches/" + encodeURIComponent(id));
  } catch (error) {
    say("message", error.message, true);
    return false;
  }
  document.getElementById("match-title").textContent = `Match ${m.id}: ${m.a} vs ${m.b}`;
  document.getElementById("match-info").textContent =
    `${STATES[m.state] || m.state} · openings ${m.openings}` +
    (m.sprt ? ` · SPRT elo0=${m.sprt.elo0} elo1=${m.sprt.elo1} α=${m.sprt.alpha} β=${m.sprt.beta}` : "") +
    (m.decided_after ? ` · decided after ${m.decided_after} pairs` : "") +
    (m.time_limit ? ` · time ${m.time_limit}` : "") +
    (m.waiting ? ` · ${m.waiting}` : "") +
    (m.forfeits.length ? ` · forfeits: ${m.forfeits.map((f) =>
      `pair ${f.pair} game ${f.game} ${f.loser} (${f.reason})`).join(", ")}` : "");
  document.getElementById("match-stats").replaceChildren(
    stat(`${m.pairs_done} / ${m.pairs}`, "pairs played"),
    stat(`${m.games.wins} / ${m.games.draws} / ${m.games.losses}`, "A's wins / draws / losses"),
    stat(eloText(m.elo), "Elo of A, 95% interval"),
    stat(m.llr === null ? "—" : m.llr.toFixed(2), m.sprt ? `LLR (bounds ${m.sprt.lower.toFixed(2)}, ${m.sprt.upper.toFixed(2)})` : "no SPRT"));
  showAccuracy(m.accuracy);
  const labels = ["0", "½", "1", "1½", "2"];
  document.getElementById("pentanomial").replaceChildren(
    el("thead", {}, el("tr", {}, labels.map((l) => el("th", { class: "num" }, l + " points")))),
    el("tbody", {}, el("tr", {}, m.pentanomial.map((n) => el("td", { class: "num" }, n)))));
  const elo = m.history.filter((h) => h.elo);
  lineChart(document.getElementById("elo-chart"), {
    x: { label: "pairs played", minStep: 1 },
    y: { label: "Elo of A over B" },
    series: [{
      name: "elo", color: "#1f6feb",
      points: elo.map((h) => [h.pairs, h.elo.elo]),
      band: elo.map((h) => [h.pairs, h.elo.low, h.elo.high]),
    }],
    rules: [{ y: 0, color: "#888", name: "0" }],
  });
  document.getElementById("llr-section").hidden = !m.sprt;
  if (m.sprt) {
    lineChart(document.getElementById("llr-chart"), {
      x: { label: "pairs played", minStep: 1 },
      y: { label: "LLR (natural log)" },
      series: [{ name: "llr", color: "#8250df", points: m.history.map((h) => [h.pairs, h.llr]) }],
      rules: [
        { y: m.sprt.upper, color: "#2e8540", name: "accept H1" },
        { y: m.sprt.lower, color: "#c23b22", name: "accept H0" },
      ],
    });
  }
}

const TERMINATIONS = { normal: "", forfeit: "forfeit", adjudicated: "adjudicated" };

/** The link to the game viewer for `game` of match `id`. */
function gameLink(id, game) {
  return `/game?match=${encodeURIComponent(id)}&pair=${game.pair}&game=${game.game}`;
}

/** A player's name, with the full specification on hover. */
function playerCell(player) {
  return el("td", { class: "mono", title: player.spec }, player.name);
}

/** Appends the games of match `id`'s pairs from `fromPair` on (a page of them) to the table. */
async function loadGames(id, fromPair) {
  const more = document.getElementById("more-games");
  more.hidden = true;
  let page;
  try {
    page = await api(`matches/${encodeURIComponent(id)}/games?from_pair=${fromPair}`);
  } catch (error) {
    say("games-message", error.message, true);
    return;
  }
  const table = document.getElementById("games");
  if (!table.tHead) {
    table.append(el("thead", {}, el("tr", {}, el("th", { class: "num" }, "pair"), el("th", { class: "num" }, "game"),
      el("th", {}, "black"), el("th", {}, "white"), el("th", {}, "result"), el("th", { class: "num" }, "moves"),
      el("th", {}, "ended"), el("th", {}, ""))), el("tbody"));
  }
  if (page.games.length === 0 && fromPair === 0) say("games-message", "No games stored yet.");
  table.tBodies[0].append(...page.games.map((g) => el("tr", { "data-pair": g.pair, "data-game": g.game },
    el("td", { class: "num" }, g.pair), el("td", { class: "num" }, g.game),
    playerCell(g.black), playerCell(g.white),
    el("td", {}, RESULTS_TEXT[g.result] || g.result), el("td", { class: "num" }, g.moves),
    el("td", { class: "muted" }, TERMINATIONS[g.termination.kind] || g.termination.kind),
    el("td", {}, el("a", { class: "view-game", href: gameLink(id, g) }, "view")))));
  if (page.next_from_pair !== null) {
    more.hidden = false;
    more.onclick = () => loadGames(id, page.next_from_pair);
  }
}

const RESULTS_TEXT = { black: "black won", white: "white won", draw: "draw", ongoing: "unfinished" };

if (params.get("id")) loadMatch(params.get("id")).then((shown) => shown !== false && loadGames(params.get("id"), 0));
else loadList();

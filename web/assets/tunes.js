// Tuning runs: the list, and with `?id=N` one run with its settings, the trajectory of each
// parameter (its value after each iteration, the two values that iteration played shaded),
// the tuned configuration and its follow-up SPRT match.
"use strict";

const params = new URLSearchParams(location.search);
markNavigation("tunes");

const STATES = { iterating: "iterating", verifying: "SPRT running", done: "done", stopped: "stopped" };

async function loadList() {
  try {
    const result = await api("tunes");
    if (result.tunes.length === 0) {
      say("list-message", "No tuning runs yet: start one with `pentagrid tune --param NAME=LOW..HIGH`.");
      return;
    }
    const head = el("thead", {}, el("tr", {}, el("th", {}, "id"), el("th", {}, "parameters"),
      el("th", { class: "num" }, "iterations"), el("th", {}, "values now"), el("th", {}, "state")));
    const body = el("tbody", {}, result.tunes.map((t) => el("tr", {
      class: "clickable", "data-id": t.id, onclick: () => { location.href = "/tunes?id=" + t.id; },
    },
      el("td", {}, el("a", { href: "/tunes?id=" + t.id }, t.id)),
      el("td", { class: "mono" }, t.params.join(" ")),
      el("td", { class: "num" }, `${t.iterations_done} / ${t.iterations}`),
      el("td", { class: "mono" }, t.values.map((v) => +v.toPrecision(4)).join(", ")),
      el("td", {}, STATES[t.state] || t.state))));
    document.getElementById("tune-list").replaceChildren(head, body);
  } catch (error) {
    say("list-message", error.message, true);
  }
}

function stat(value, label) {
  return el("div", { class: "stat" }, el("b", {}, value), el("span", {}, label));
}

async function loadTune(id) {
  document.getElementById("list").hidden = true;
  document.getElementById("detail").hidden = false;
  let t;
  try {
    t = await api("tunes/" + encodeURIComponent(id));
  } catch (error) {
    say("message", error.message, true);
    return;
  }
  document.getElementById("tune-title").textContent = `Tuning run ${t.id}: ${t.params.map((p) => p.name).join(", ")}`;
  document.getElementById("tune-info").textContent =
    `${STATES[t.state] || t.state} · base ${t.base} · ${t.pairs_per_iteration} ` +
    `pair${t.pairs_per_iteration === 1 ? "" : "s"} an iteration · ` +
    `c_end ${t.c_end} r_end ${t.r_end} A ${t.stability} α ${t.alpha} γ ${t.gamma} · seed ${t.seed} · ` +
    `openings ${t.openings} · weight ${t.weight}`;
  document.getElementById("tune-stats").replaceChildren(
    stat(`${t.iterations_done} / ${t.iterations}`, "iterations done"),
    ...t.params.map((p) => stat(`${+p.value.toPrecision(5)}`, `${p.name} now (range ${p.low}..${p.high})`)));
  document.getElementById("tuned").textContent = t.tuned;
  document.getElementById("sprt-section").hidden = !t.sprt;
  if (t.sprt) {
    const m = t.sprt_match;
    const sprt = document.getElementById("sprt");
    if (m) {
      sprt.replaceChildren(el("a", { href: "/matches?id=" + m.id }, `match ${m.id}`),
        ` (${t.sprt}): ${m.pairs_done} of ${m.pairs} pairs, Elo of tuned ${eloText(m.elo)}, ${m.state.replaceAll("_", " ")}`);
    } else {
      sprt.textContent = `${t.sprt}, after the last iteration`;
    }
  }
  const charts = document.getElementById("charts");
  charts.replaceChildren();
  t.params.forEach((p, i) => {
    const svg = el("svg:svg", { "data-param": p.name });
    charts.append(el("h2", {}, `${p.name} after each iteration (the values played shaded)`), svg);
    lineChart(svg, {
      x: { label: "iterations done", minStep: 1 },
      y: { label: p.name },
      series: [{
        name: p.name, color: "#1f6feb",
        points: [[0, p.start], ...t.steps.map((s) => [s.iteration + 1, s.values[i]])],
        band: t.steps.map((s) => [s.iteration + 1, Math.min(s.plus[i], s.minus[i]), Math.max(s.plus[i], s.minus[i])]),
      }],
      rules: [{ y: p.low, color: "#888", name: "low" }, { y: p.high, color: "#888", name: "high" }],
    });
  });
}

if (params.get("id")) loadTune(params.get("id"));
else loadList();

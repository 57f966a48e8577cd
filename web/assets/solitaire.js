// Solitaire: success rates and mean foundation cards per (variant, player), with intervals.
"use strict";

markNavigation("solitaire");

async function load() {
  let result;
  try {
    result = await api("solitaire");
  } catch (error) {
    say("message", error.message, true);
    return;
  }
  if (result.totals.length === 0) {
    say("message", "No solitaire results yet: run `pentagrid solitaire campaign --player strategy --deals 1..=1000`.");
    return;
  }
  const head = el("thead", {}, el("tr", {}, el("th", {}, "variant"), el("th", {}, "player"),
    el("th", { class: "num" }, "deals"), el("th", { class: "num" }, "won"),
    el("th", { class: "num" }, "success (95% interval)"),
    el("th", { class: "num" }, "foundation cards (95% interval)")));
  const body = el("tbody", {}, result.totals.map((t) => el("tr",
    { "data-variant": t.variant, "data-player": t.player },
    el("td", {}, t.variant), el("td", { class: "mono" }, t.player),
    el("td", { class: "num" }, t.deals), el("td", { class: "num" }, t.wins),
    el("td", { class: "num" },
      `${percent(t.success.rate)} (${percent(t.success.low)} to ${percent(t.success.high)})`),
    el("td", { class: "num" }, `${t.foundation_cards.mean.toFixed(2)} ` +
      `(${t.foundation_cards.low.toFixed(2)} to ${t.foundation_cards.high.toFixed(2)})`))));
  document.getElementById("solitaire-totals").replaceChildren(head, body);
}

load();

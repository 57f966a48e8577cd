// Shared helpers of the explorer pages: API calls, element building, formatting.
"use strict";

/** Fetches `/api/v1/<path>`; throws an Error with the API's message on failure. */
async function api(path) {
  const response = await fetch("/api/v1/" + path);
  let body;
  try {
    body = await response.json();
  } catch (_) {
    throw new Error(`HTTP ${response.status}`);
  }
  if (!response.ok) {
    throw new Error(body && body.error ? body.error.message : `HTTP ${response.status}`);
  }
  return body;
}

/** Creates an element: el("td", {class: "num", title: "x"}, "text", child, ...). */
function el(tag, attributes, ...children) {
  const node = tag.startsWith("svg:")
    ? document.createElementNS("http://www.w3.org/2000/svg", tag.slice(4))
    : document.createElement(tag);
  for (const [name, value] of Object.entries(attributes || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value);
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** `0.523` → `52.3%`. */
function percent(rate, digits = 1) {
  return (100 * rate).toFixed(digits) + "%";
}

/** A number with thin thousands separators. */
function count(n) {
  return Number(n).toLocaleString("en-US");
}

/** An Elo with its interval: `+12.3 [−4.0, +28.7]` (unbounded ends shown as ∞). */
function eloText(estimate) {
  if (!estimate) return "—";
  // A value that rounds to zero reads +0.0, never −0.0.
  const signed = (x) => {
    if (x === null) return "∞";
    const digits = Math.abs(x).toFixed(1);
    return (x < 0 && Number(digits) !== 0 ? "−" : "+") + digits;
  };
  const low = estimate.low === null ? "−∞" : signed(estimate.low);
  const high = estimate.high === null ? "+∞" : signed(estimate.high);
  return `${signed(estimate.elo)} [${low}, ${high}]`;
}

/** Marks the navigation link of this page. */
function markNavigation(page) {
  for (const link of document.querySelectorAll("header nav a")) {
    link.classList.toggle("active", link.dataset.page === page);
  }
}

/** Shows `text` in the element with id `id` (as an error when `isError`). */
function say(id, text, isError) {
  const node = document.getElementById(id);
  node.textContent = text;
  node.classList.toggle("error", Boolean(isError));
}

/**
 * Draws a line chart in `svg`: `series` is a list of {name, color, points: [[x, y]...],
 * band: [[x, low, high]...] (optional)}; `rules` are horizontal lines {y, color, name}.
 */
// Tick positions for [lo, hi]: multiples of a step of 1, 2 or 5 times a power of ten (at least
// `minStep`), at most six of them, each label distinct once written with the step's decimals.
function niceTicks(lo, hi, minStep = 0) {
  const raw = (hi - lo) / 5;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = Math.max(minStep, [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) || 10 * power);
  const decimals = Math.max(0, -Math.floor(Math.log10(step) + 1e-9));
  const ticks = [];
  for (let x = Math.ceil(lo / step - 1e-9) * step; x <= hi + step * 1e-9; x += step) {
    ticks.push({ x, label: Math.abs(x) < step / 2 ? (0).toFixed(decimals) : x.toFixed(decimals) });
  }
  return ticks;
}

// A line chart. Options beyond the series: `yMin` fixes the bottom of the y-axis (0 for a
// quantity that cannot be negative), `xMax` the right end of the x-axis, `xMinStep` the least
// step between x ticks (1 for whole numbers) and `xFormat` turns a tick's label into its text.
function lineChart(svg, { series, rules = [], xLabel = "", width = 640, height = 260, yMin, xMax, xMinStep = 0, xFormat = (label) => label }) {
  const pad = { left: 56, right: 16, top: 14, bottom: 34 };
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.setAttribute("width", width);
  svg.setAttribute("height", height);
  svg.classList.add("chart");
  svg.replaceChildren();
  const finite = (v) => typeof v === "number" && Number.isFinite(v);
  const xs = series.flatMap((s) => s.points.map((p) => p[0]));
  const ys = [
    ...series.flatMap((s) => s.points.map((p) => p[1])),
    ...series.flatMap((s) => (s.band || []).flatMap((b) => [b[1], b[2]])),
    ...rules.map((r) => r.y),
  ].filter(finite);
  if (xs.length === 0 || ys.length === 0) {
    svg.append(el("svg:text", { x: width / 2, y: height / 2, class: "tick", "text-anchor": "middle" }, "no data yet"));
    return;
  }
  let [x0, x1] = [Math.min(...xs), Math.max(...xs)];
  let [y0, y1] = [Math.min(...ys), Math.max(...ys)];
  if (xMax !== undefined) x1 = Math.max(x1, xMax);
  if (x0 === x1) { x0 -= 1; if (xMax === undefined) x1 += 1; }
  if (yMin !== undefined) y0 = Math.min(y0, yMin);
  if (y0 === y1) { if (yMin === undefined) y0 -= 1; y1 += 1; }
  const margin = (y1 - y0) * 0.08;
  if (yMin === undefined || y0 < yMin) y0 -= margin;
  y1 += margin;
  const sx = (x) => pad.left + ((x - x0) / (x1 - x0)) * (width - pad.left - pad.right);
  const sy = (y) => height - pad.bottom - ((y - y0) / (y1 - y0)) * (height - pad.top - pad.bottom);
  for (let i = 0; i <= 4; i++) {
    const y = y0 + ((y1 - y0) * i) / 4;
    svg.append(el("svg:line", { class: "grid", x1: pad.left, x2: width - pad.right, y1: sy(y), y2: sy(y) }));
    svg.append(el("svg:text", { class: "tick", "data-axis": "y", x: pad.left - 6, y: sy(y) + 4, "text-anchor": "end" }, y.toFixed(Math.abs(y1 - y0) < 10 ? 2 : 0)));
  }
  for (const tick of niceTicks(x0, x1, xMinStep)) {
    svg.append(el("svg:text", { class: "tick", "data-axis": "x", x: sx(tick.x), y: height - pad.bottom + 16, "text-anchor": "middle" }, xFormat(tick.label)));
  }
  svg.append(el("svg:text", { class: "tick", x: width - pad.right, y: height - 4, "text-anchor": "end" }, xLabel));
  svg.append(el("svg:line", { class: "axis", x1: pad.left, x2: pad.left, y1: pad.top, y2: height - pad.bottom }));
  svg.append(el("svg:line", { class: "axis", x1: pad.left, x2: width - pad.right, y1: height - pad.bottom, y2: height - pad.bottom }));
  for (const rule of rules) {
    svg.append(el("svg:line", { class: "bound", stroke: rule.color, x1: pad.left, x2: width - pad.right, y1: sy(rule.y), y2: sy(rule.y) }));
    svg.append(el("svg:text", { class: "tick", x: width - pad.right - 4, y: sy(rule.y) - 4, "text-anchor": "end" }, rule.name));
  }
  for (const s of series) {
    const band = (s.band || []).filter((b) => finite(b[1]) && finite(b[2]));
    if (band.length > 1) {
      const upper = band.map((b) => `${sx(b[0])},${sy(b[2])}`);
      const lower = band.slice().reverse().map((b) => `${sx(b[0])},${sy(b[1])}`);
      svg.append(el("svg:polygon", { class: "band", fill: s.color, points: [...upper, ...lower].join(" ") }));
    }
    const points = s.points.filter((p) => finite(p[1]));
    svg.append(el("svg:polyline", {
      class: "series", stroke: s.color, "data-series": s.name,
      points: points.map((p) => `${sx(p[0])},${sy(p[1])}`).join(" "),
    }));
    if (points.length === 1) {
      svg.append(el("svg:circle", { cx: sx(points[0][0]), cy: sy(points[0][1]), r: 3, fill: s.color }));
    }
  }
}

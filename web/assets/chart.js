// Charts of the explorer pages: the one place that picks axis ticks ("nice" steps of 1, 2 or 5
// times a power of ten, labels rounded to the step) and the line chart that draws with them,
// with a labelled axis for each unit (a second unit gets its own axis on the right).
// Loaded after common.js in the browser; tests load it alone under Node (web/tests/js/).
"use strict";

/** Most ticks on an axis unless a chart asks otherwise. */
const MAX_TICKS = 7;

/**
 * The step of a nice axis over [lo, hi]: the least of 1, 2 or 5 times a power of ten (and at
 * least `minStep`) whose multiples covering the range number at most `maxTicks`.
 */
function niceStep(lo, hi, maxTicks, minStep) {
  const span = hi - lo;
  if (!(span > 0) || !Number.isFinite(span)) throw new RangeError(`no axis over [${lo}, ${hi}]`);
  // Start one decade below the step that spreads the span over the ticks evenly, and go up.
  let power = 10 ** (Math.floor(Math.log10(span / Math.max(1, maxTicks - 1))) - 1);
  while (power > 0 && Number.isFinite(power)) {
    for (const multiple of [1, 2, 5]) {
      const step = multiple * power;
      if (step < minStep) continue;
      const count = Math.ceil(hi / step - 1e-9) - Math.floor(lo / step + 1e-9) + 1;
      if (count <= maxTicks) return step;
    }
    power *= 10;
  }
  throw new RangeError(`no step fits [${lo}, ${hi}]`);
}

/** Digits after the point that the multiples of `step` need (0 for whole steps). */
function stepDecimals(step) {
  return Math.max(0, -Math.floor(Math.log10(step) + 1e-9));
}

/**
 * The text of tick `value` on an axis of step `step`: rounded to the step's digits, thousands
 * separated (`12,000`), and with k or M for steps of a thousand or a million or more (`130k`,
 * `1.5M`); never a negative zero.
 */
function tickLabel(value, step) {
  const [scale, suffix] = step >= 1e6 ? [1e6, "M"] : step >= 1e3 ? [1e3, "k"] : [1, ""];
  const decimals = stepDecimals(step / scale);
  const scaled = Number((value / scale).toFixed(decimals));
  const text = (scaled === 0 ? 0 : scaled).toLocaleString("en-US", {
    minimumFractionDigits: decimals,
    maximumFractionDigits: decimals,
  });
  return text.replace(/^-/, "−") + (scaled === 0 ? "" : suffix);
}

/**
 * Ticks for an axis over [lo, hi]: {step, lo, hi, ticks: [{value, label}]} where `step` is 1, 2
 * or 5 times a power of ten (at least `minStep`, such as 1 for counts), the ticks are its
 * consecutive multiples from the first at or below `lo` to the first at or above `hi` (so they
 * cover the range: the axis then runs from the first tick to the last), at most `maxTicks` (at
 * least 3) of them. An empty range (lo = hi) is widened to the step around it. Throws on
 * non-finite bounds or lo > hi.
 */
function niceTicks(lo, hi, { maxTicks = MAX_TICKS, minStep = 0 } = {}) {
  if (!Number.isFinite(lo) || !Number.isFinite(hi) || lo > hi) {
    throw new RangeError(`no axis over [${lo}, ${hi}]`);
  }
  // Three ticks cover any range (one step at least as long as the range, from below zero to
  // above it); two may not.
  if (!(maxTicks >= 3)) throw new RangeError(`an axis needs room for 3 ticks, not ${maxTicks}`);
  if (lo === hi) {
    // A flat series: one step either side, the step scaled to the value (1 around 0).
    const around = Math.max(Math.abs(lo), 1) / 2;
    return niceTicks(lo - around, hi + around, { maxTicks, minStep });
  }
  const step = niceStep(lo, hi, maxTicks, minStep);
  const first = Math.floor(lo / step + 1e-9);
  const last = Math.ceil(hi / step - 1e-9);
  const decimals = stepDecimals(step);
  const ticks = [];
  for (let i = first; i <= last; i++) {
    // Rounded to the step's digits: 0.30000000000000004 is 0.3.
    const value = Number((i * step).toFixed(decimals)) || 0;
    ticks.push({ value, label: tickLabel(value, step) });
  }
  return { step, lo: ticks[0].value, hi: ticks[ticks.length - 1].value, ticks };
}

/** The extent of the finite numbers in `values` (null when there are none). */
function extent(values) {
  const finite = values.filter((v) => typeof v === "number" && Number.isFinite(v));
  return finite.length ? [Math.min(...finite), Math.max(...finite)] : null;
}

/** Ticks for a y-axis over `values`, from `min` when given (0 for what cannot be negative). */
function yAxis(values, min) {
  const range = extent(values);
  if (!range) return null;
  let [lo, hi] = range;
  if (min !== undefined) lo = Math.min(lo, min);
  // A flat series at the floor (no throughput yet) gets an axis above it, never below.
  if (lo === hi && min !== undefined) hi = lo + Math.max(Math.abs(lo), 1);
  return niceTicks(lo, hi, { maxTicks: 6 });
}

/**
 * Draws a line chart in `svg`. `series`: [{name, color, points: [[x, y]...], band: [[x, low,
 * high]...] (optional), axis: "left" (default) or "right"}]; `rules`: horizontal lines {y, color,
 * name} on the left axis. `x`: {label, min, max, minStep, format}; `y` and `y2` (the right axis,
 * drawn only when a series uses it): {label, min} where `label` names the quantity and its unit
 * and `min` fixes the bottom (0 for a quantity that cannot be negative). Tick labels carry
 * `data-axis` x, y or y2; the axis titles `data-axis-label`.
 */
function lineChart(svg, { series, rules = [], x = {}, y = {}, y2 = {}, width = 640, height = 280 }) {
  const twoAxes = series.some((s) => s.axis === "right");
  const pad = { left: 66, right: twoAxes ? 66 : 16, top: 14, bottom: 44 };
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.setAttribute("width", width);
  svg.setAttribute("height", height);
  svg.classList.add("chart");
  svg.replaceChildren();
  const on = (side) => series.filter((s) => (s.axis || "left") === side);
  const values = (list) => list.flatMap((s) => [
    ...s.points.map((p) => p[1]),
    ...(s.band || []).flatMap((b) => [b[1], b[2]]),
  ]);
  const xRange = extent(series.flatMap((s) => s.points.map((p) => p[0])));
  const left = yAxis([...values(on("left")), ...rules.map((r) => r.y)], y.min);
  const right = twoAxes ? yAxis(values(on("right")), y2.min) : null;
  if (!xRange || !left || (twoAxes && !right)) {
    svg.append(el("svg:text", { x: width / 2, y: height / 2, class: "tick", "text-anchor": "middle" }, "no data yet"));
    return;
  }
  let [x0, x1] = xRange;
  if (x.min !== undefined) x0 = Math.min(x0, x.min);
  if (x.max !== undefined) x1 = Math.max(x1, x.max);
  const xTicks = niceTicks(x0, x1, { minStep: x.minStep || 0 });
  const inner = { left: pad.left, right: width - pad.right, top: pad.top, bottom: height - pad.bottom };
  const sx = (v) => inner.left + ((v - xTicks.lo) / (xTicks.hi - xTicks.lo)) * (inner.right - inner.left);
  const scaleY = (axis) => (v) => inner.bottom - ((v - axis.lo) / (axis.hi - axis.lo)) * (inner.bottom - inner.top);
  const sy = scaleY(left);
  const format = x.format || ((label) => label);
  for (const tick of left.ticks) {
    svg.append(el("svg:line", { class: "grid", x1: inner.left, x2: inner.right, y1: sy(tick.value), y2: sy(tick.value) }));
    svg.append(el("svg:text", { class: "tick", "data-axis": "y", x: inner.left - 6, y: sy(tick.value) + 4, "text-anchor": "end" }, tick.label));
  }
  if (right) {
    const sy2 = scaleY(right);
    for (const tick of right.ticks) {
      svg.append(el("svg:text", { class: "tick", "data-axis": "y2", x: inner.right + 6, y: sy2(tick.value) + 4, "text-anchor": "start" }, tick.label));
    }
    svg.append(el("svg:line", { class: "axis", x1: inner.right, x2: inner.right, y1: inner.top, y2: inner.bottom }));
  }
  for (const tick of xTicks.ticks) {
    svg.append(el("svg:text", { class: "tick", "data-axis": "x", x: sx(tick.value), y: inner.bottom + 16, "text-anchor": "middle" }, format(tick.label)));
  }
  axisTitles(svg, { x, y, y2: right ? y2 : null }, inner, height);
  svg.append(el("svg:line", { class: "axis", x1: inner.left, x2: inner.left, y1: inner.top, y2: inner.bottom }));
  svg.append(el("svg:line", { class: "axis", x1: inner.left, x2: inner.right, y1: inner.bottom, y2: inner.bottom }));
  for (const rule of rules) {
    svg.append(el("svg:line", { class: "bound", stroke: rule.color, x1: inner.left, x2: inner.right, y1: sy(rule.y), y2: sy(rule.y) }));
    svg.append(el("svg:text", { class: "tick", x: inner.right - 4, y: sy(rule.y) - 4, "text-anchor": "end" }, rule.name));
  }
  for (const s of series) drawSeries(svg, s, sx, s.axis === "right" ? scaleY(right) : sy);
}

/** The axes' titles: the x-axis's below it, each y-axis's turned along it. */
function axisTitles(svg, { x, y, y2 }, inner, height) {
  const middle = (inner.top + inner.bottom) / 2;
  if (x.label) {
    svg.append(el("svg:text", { class: "axis-label", "data-axis-label": "x", x: (inner.left + inner.right) / 2, y: height - 6, "text-anchor": "middle" }, x.label));
  }
  if (y.label) {
    svg.append(el("svg:text", { class: "axis-label", "data-axis-label": "y", x: 14, y: middle, "text-anchor": "middle", transform: `rotate(-90 14 ${middle})` }, y.label));
  }
  if (y2 && y2.label) {
    const at = inner.right + 56;
    svg.append(el("svg:text", { class: "axis-label", "data-axis-label": "y2", x: at, y: middle, "text-anchor": "middle", transform: `rotate(90 ${at} ${middle})` }, y2.label));
  }
}

/** One series: its band (shaded) under its line, or a dot when it has one point. */
function drawSeries(svg, s, sx, sy) {
  const finite = (v) => typeof v === "number" && Number.isFinite(v);
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

// Under Node (the tests), hand the pure parts over; the browser has no `module`.
if (typeof module !== "undefined") module.exports = { niceTicks, niceStep, tickLabel, MAX_TICKS };

// Property tests of the explorer's axis ticks (web/assets/chart.js) under Node's test runner:
// over many ranges drawn from a seeded generator and the edge cases charts meet, the ticks cover
// the range, step by 1, 2 or 5 times a power of ten, number at most the limit, are as fine as
// the limit allows, and read as rounded, distinct labels. Run by web/tests/charts.rs.
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const path = require("node:path");
const { niceTicks, tickLabel } = require(path.join(__dirname, "../../assets/chart.js"));

/** A small seeded generator (mulberry32), so a failure names a range that can be replayed. */
function generator(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The ranges tried: random ones over many magnitudes, and the cases charts meet. */
function ranges() {
  const random = generator(41);
  const out = [
    [0, 1], [-255, 111], [-72, 111], [0, 3.42], [-2.94, 2.94], [1, 8], [0, 130000],
    [0, 0.0333], [-0.001, 0.001], [5, 5], [0, 0], [-3, -3], [127654, 131002], [-1e6, 2.5e6],
    [0.1, 0.3], [1, 2], [0, 7], [99, 101], [-300, 0], [-5, 0],
  ];
  for (let i = 0; i < 2000; i++) {
    const magnitude = 10 ** (Math.floor(random() * 14) - 6);
    const a = (random() * 2 - 1) * magnitude;
    const span = random() * magnitude * (random() < 0.2 ? 0.01 : 2);
    out.push([a, a + span]);
  }
  return out;
}

/** The number a tick label stands for (`−1,500`, `130k`, `2.5M`). */
function labelValue(label) {
  const scale = label.endsWith("M") ? 1e6 : label.endsWith("k") ? 1e3 : 1;
  return Number(label.replace(/[kM]$/, "").replace(/,/g, "").replace("−", "-")) * scale;
}

function isNiceStep(step) {
  const power = 10 ** Math.floor(Math.log10(step) + 1e-9);
  const multiple = step / power;
  return [1, 2, 5, 10].some((m) => Math.abs(multiple - m) < 1e-6 * m);
}

/** The nice steps just below `step` (1 → 0.5, 2 → 1, 5 → 2 in each decade). */
function finerStep(step) {
  const power = 10 ** Math.floor(Math.log10(step) + 1e-9);
  const multiple = Math.round(step / power);
  return multiple === 1 ? power / 2 : multiple === 2 ? power : 2 * power;
}

function check(lo, hi, maxTicks, minStep) {
  const where = `[${lo}, ${hi}] maxTicks ${maxTicks} minStep ${minStep}`;
  const axis = niceTicks(lo, hi, { maxTicks, minStep });
  const values = axis.ticks.map((t) => t.value);
  assert.ok(isNiceStep(axis.step), `step ${axis.step} is 1, 2 or 5 × 10^k: ${where}`);
  assert.ok(axis.step >= minStep, `step ${axis.step} at least ${minStep}: ${where}`);
  assert.ok(values.length >= 2 && values.length <= maxTicks, `${values.length} ticks: ${where}`);
  const tolerance = axis.step * 1e-6;
  assert.ok(values[0] <= lo + tolerance && values[values.length - 1] >= hi - tolerance,
    `ticks ${values} cover the range: ${where}`);
  if (lo !== hi) {
    assert.ok(values[0] > lo - axis.step - tolerance && values[values.length - 1] < hi + axis.step + tolerance,
      `no tick past the first beyond each end: ${values}: ${where}`);
  }
  assert.equal(axis.lo, values[0]);
  assert.equal(axis.hi, values[values.length - 1]);
  for (let i = 1; i < values.length; i++) {
    assert.ok(Math.abs(values[i] - values[i - 1] - axis.step) <= tolerance, `even steps ${values}: ${where}`);
  }
  for (const value of values) {
    assert.ok(Math.abs(value / axis.step - Math.round(value / axis.step)) < 1e-6, `${value} a multiple: ${where}`);
  }
  const labels = axis.ticks.map((t) => t.label);
  assert.equal(new Set(labels).size, labels.length, `distinct labels ${labels}: ${where}`);
  for (const tick of axis.ticks) {
    assert.ok(!/^[-−]0(\.0*)?[kM]?$/.test(tick.label), `no negative zero: ${tick.label}: ${where}`);
    assert.ok(Math.abs(labelValue(tick.label) - tick.value) <= tolerance, `label ${tick.label} reads ${tick.value}: ${where}`);
  }
  // As fine as the limit allows: the next finer nice step would need more ticks (or break minStep).
  if (lo !== hi) {
    const finer = finerStep(axis.step);
    const count = Math.ceil(hi / finer - 1e-9) - Math.floor(lo / finer + 1e-9) + 1;
    assert.ok(finer < minStep || count > maxTicks, `step ${finer} would have fitted: ${where}`);
  }
}

test("ticks cover the range in nice, rounded steps", () => {
  for (const [lo, hi] of ranges()) {
    for (const maxTicks of [3, 4, 6, 7, 11]) check(lo, hi, maxTicks, 0);
  }
});

test("whole-number axes step by at least 1", () => {
  for (const [lo, hi] of [[1, 2], [1, 8], [0, 3], [-300, 0], [1, 500], [0.2, 0.7]]) {
    check(lo, hi, 7, 1);
  }
});

test("the charts' old labels come out round", () => {
  const labels = (lo, hi) => niceTicks(lo, hi).ticks.map((t) => t.label);
  assert.deepEqual(labels(-255, 111), ["−300", "−200", "−100", "0", "100", "200"]);
  assert.deepEqual(labels(0, 3.42), ["0", "1", "2", "3", "4"]);
  assert.deepEqual(labels(-1.71, 3.42), ["−2", "−1", "0", "1", "2", "3", "4"]);
  assert.deepEqual(labels(0, 130000), ["0", "50k", "100k", "150k"]);
  assert.deepEqual(labels(-0.001, 0.001), ["−0.0010", "−0.0005", "0.0000", "0.0005", "0.0010"]);
});

test("labels are rounded to the step and never a negative zero", () => {
  assert.equal(tickLabel(0.30000000000000004, 0.1), "0.3");
  assert.equal(tickLabel(-0, 1), "0");
  assert.equal(tickLabel(-1e-12, 0.5), "0.0");
  assert.equal(tickLabel(1500, 500), "1,500");
  assert.equal(tickLabel(-2500000, 500000), "−2,500k");
  assert.equal(tickLabel(3e6, 1e6), "3M");
});

test("bad ranges are refused with a reason", () => {
  for (const [lo, hi] of [[NaN, 1], [0, Infinity], [2, 1], [-1e308, 1e308]]) {
    assert.throws(() => niceTicks(lo, hi), RangeError, `[${lo}, ${hi}]`);
  }
  assert.throws(() => niceTicks(0, 1, { maxTicks: 2 }), RangeError);
});

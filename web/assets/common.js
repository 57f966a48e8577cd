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

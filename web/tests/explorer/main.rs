//! The explorer against a real in-process cluster: every API route (good and bad input) and
//! the pages in a real headless Chromium, and the analysis board's exact values.

mod analysis;
mod api;
mod browser;
mod cache;
mod games;
mod holds;
mod limits;
mod running;
mod support;
mod viewer;

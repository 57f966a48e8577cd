//! The `pentagrid` binary run as users run it: every CLI integration test, one binary.

mod common;
#[path = "../../../engine/tests/engine/support/mod.rs"]
mod support;

mod backup;
mod cli;
mod client_json;
mod cluster_processes;
mod connections;
mod engine_match;
mod games;
mod gtp;
mod integrity;
mod match_accuracy;
mod match_control;
mod operations;
mod output;
mod puzzles;
mod readme;
mod serve;
mod soak;
mod solitaire;
mod solve_proof;
mod stored_format;
mod tablebase;
mod time_scale;
mod tournaments;
mod tune;

//! In-process clusters over real sockets and a real database: every cross-crate integration test,
//! one binary.

mod analysis_purge;
mod backup;
mod book;
mod book_table;
mod cluster;
mod crosscheck;
mod damage;
mod engine_matches;
mod engines;
mod game_records;
mod health;
mod holds;
mod keyless;
mod match_accuracy;
mod match_control;
mod matches;
mod metrics;
mod move_scores;
mod move_times;
mod nonblocking;
mod opening_suites;
mod paging;
mod peer_limits;
mod puzzles;
mod roles;
mod security;
mod solitaire;
mod time_scale;
mod tls;
mod tournaments;
mod tune_purge;
mod tuning;
mod waits;

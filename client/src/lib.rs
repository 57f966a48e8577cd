//! `pentagrid-client`: everything a program does with a pentagrid cluster, as a library —
//! connecting (token, TLS), submitting jobs and waiting for them, and the workflows (the
//! default campaign of `pentagrid run`, opening studies, puzzle rounds, engine matches on the
//! cluster or in process, SPSA tuning runs, the opening book's row formats). The `pentagrid`
//! binary only parses arguments and prints.
//!
//! The client is thin: it speaks to a coordinator over the wire only and links neither the
//! coordinator nor the worker (a whole cluster in this process is `pentagrid-embedded`'s).
//!
//! Workflows report progress through callbacks (each answers a [`ProgressResult`]: go on, or
//! stop for the caller's own reason) and return plain reports (the pages made of
//! them are `pentagrid-render`'s); refusals by the
//! coordinator keep their typed reason ([`ClientError::reason`]).

pub mod book;
mod book_tables;
pub mod campaign;
pub mod collection;
mod connect;
pub mod deep;
mod error;
pub mod game_records;
pub mod health;
pub mod jobs;
pub mod judge;
pub mod judge_book;
pub mod match_games;
pub mod matches;
pub mod parameter;
pub mod puzzles;
pub mod solitaire;
pub mod status;
pub mod study;
mod study_exact;
pub mod suites;
pub mod tournaments;
pub mod tunes;

pub use connect::{connect, read_token};
pub use error::{ClientError, ProgressResult, RefusalReason, Result, Stop};
pub use parameter::{Parameter, ParameterError, Problem};
pub use pentagrid_proto::{Client, TimeScale};

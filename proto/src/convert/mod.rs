//! Conversions between the wire's messages and the domain values of `pentagrid-model`, one
//! file per concept, each written once for the coordinator and the clients alike.

mod book;
mod cancels;
mod matches;
mod outcome;
mod puzzles;
mod refusals;
mod task;
mod tunes;
mod workers;

pub use book::{
    book_row_to_wire, book_tables_to_wire, export_row_to_wire, table_source_of_wire,
    table_source_to_wire,
};
pub use cancels::{cancel_outcome_of_wire, cancel_outcome_to_wire};
pub use matches::{
    match_state_of_wire, match_state_to_wire, match_wait_of_wire, match_wait_to_wire,
};
pub use puzzles::{puzzle_filter_of_wire, puzzle_filter_to_wire};
pub use tunes::{
    tune_purges_of_wire, tune_purges_to_wire, tune_state_of_wire, tune_state_to_wire,
    tune_step_of_wire, tune_step_to_wire,
};
pub use workers::{
    flagged_worker_of_wire, flagged_worker_to_wire, worker_info_of_wire, worker_info_to_wire,
};

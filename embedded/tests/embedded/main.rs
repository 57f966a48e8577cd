//! Embedded clusters end to end: workflows, studies, solitaire; one binary.

mod solitaire;
mod study_report;
mod workflows;

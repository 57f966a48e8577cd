//! The engine through its public API: rules, solvers, search; one binary.

mod support;

mod bounded_errors;
mod deep;
mod exact_clock;
mod known_figures;
mod midsolver;
mod naive_rules;
mod parser_props;
mod puzzles;
mod solver;
mod symmetry_props;
mod threat_sets;
mod uct_oracle;
mod uct_strength;

//! The solitaire through its public API; one binary.

mod parsers;

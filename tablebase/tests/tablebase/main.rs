//! Irving's slices read through the public API: counts, values, damage, UCT; one binary.

mod counts;
mod damage;
mod uct;
mod values;

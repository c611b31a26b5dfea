//! The search engines and models of the checker: bounded and exhaustive searches, crash rules, threads, pinned counts.

mod bounded;
mod common;
mod crash_instants;
mod depth;
mod dpor;
mod fingerprints;
mod layered;
mod pinned_cells;
mod search;
mod threads;
mod transactions;

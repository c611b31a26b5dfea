//! Tests of the core crate: topologies and the automata on their own.

mod common;
mod ftco_topology;
mod fuzz_automata;
mod topology_construction;
mod topology_errors;
mod topology_figures;
mod topology_lemmas;
mod topology_reach;

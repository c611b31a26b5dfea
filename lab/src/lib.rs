//! # ftcoll-lab — the experiments behind the papers' evaluations
//!
//! The top of the ftcoll stack: seeded Monte-Carlo experiments ([`experiment`]), the exact fast
//! path of synchronized checked correction ([`fastpath`]), FTCO's per-run metrics
//! ([`ftco_metrics`]), one reproduction module per paper (`experiment::{ct, cg, ftco, pap}`,
//! found through [`experiment::REPRODUCTIONS`]), the Chrome trace renderer ([`chrome_trace`]) and
//! the `ftcoll` command line ([`cli`]; the `ftcoll` binary is a shell that calls it). It builds on
//! `ftcoll` (the automata) and `ftcoll-sim` (the drivers).
#![forbid(unsafe_code)]
#![warn(missing_docs)]
#![warn(unreachable_pub)]

extern crate alloc;

pub mod chrome_trace;
pub mod cli;
pub mod ct_metrics;
pub mod experiment;
pub mod fastpath;
pub mod ftco_metrics;

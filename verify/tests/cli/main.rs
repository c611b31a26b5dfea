//! The `ftcoll-verify` command line.

mod cli;

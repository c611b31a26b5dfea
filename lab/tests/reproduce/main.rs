//! The paper reproductions: `reproduce … --quick` and the committed reports.

mod reproduce;
mod reproduce_cg;
mod reproduce_common;
mod reproduce_ftco;
mod reproduce_pap;

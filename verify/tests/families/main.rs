//! The protocol families' properties, their mutants and the regenerated verification matrix.

mod ftco;
mod gossip;
mod matrix;
mod mutants;
mod quantitative;

//! Protocols run on the drivers: arrival-pattern broadcast and the gossip family.

mod arrivals;
mod gossip_automata;
mod gossip_bfb;
mod gossip_big;
mod pap_theorems;

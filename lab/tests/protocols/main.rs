//! Protocols measured as the experiments measure them: FTCO's metrics, the fast path, the gossip plan and serde round trips.

mod fastpath;
mod ftco_common;
mod ftco_eta;
mod ftco_fault_free;
mod ftco_faults;
mod ftco_imbalance;
mod ftco_root_replacement;
mod ftco_table2;
mod gossip_plan;
mod serde_roundtrip;
mod sim_queue;

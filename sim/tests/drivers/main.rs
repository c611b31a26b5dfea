//! Tests of the drivers: the LogP driver's contract, timing and reports.

mod contract_done;
mod contract_values;
mod driver_pinned;
mod ignored_messages;
mod sim_clone;
mod sim_common;
mod sim_correction;
mod sim_driver;
mod sim_idle_slots;
mod sim_lemmas;
mod sim_procs;
mod timing_models;
mod transport;

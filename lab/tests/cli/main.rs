//! The `ftcoll` command line: every command's output, errors and exit codes.

mod arrival_cli;
mod cli;
mod cli_common;
mod config_cli;
mod ftco_cli;
mod ftco_sweep_cli;
mod gossip_cli;
mod gossip_sweep_cli;
mod merge_cli;
mod pap_cli;
mod plot_cli;
mod robustness_cli;
mod sim_cli;
mod sweep_cli;

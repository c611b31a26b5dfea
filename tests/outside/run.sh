#!/usr/bin/env bash
# Two crates that use the workspace from outside, as a user would:
# `serde_report` depends on ftcoll and ftcoll-sim (paths, features = ["serde"]) and round-trips a
# report through JSON; `own_automaton` depends on ftcoll-verify and checks its own automaton. They share one
# target directory (`target/outside`). Not part of `cargo test --workspace` (a cold build of
# stateright and both crates takes minutes) and not run by `.ci/run`: run it by hand.
set -euo pipefail
cd "$(dirname "$0")"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$(cd ../.. && pwd)/target/outside}"
for crate in serde_report own_automaton; do
  echo "== $crate"
  cargo test ${CARGO_OFFLINE:+--offline} --manifest-path "$crate/Cargo.toml"
done

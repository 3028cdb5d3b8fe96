#!/usr/bin/env bash
# Runs the torture test (crates/cli/tests/torture.rs) for longer than CI does:
# strata local is killed at random moments while it inserts, merges and alters,
# and the table is checked against what was acknowledged after every kill.
#   ./scripts/torture.sh [seconds, default 3600] [seed, default: the time]
set -euo pipefail
cd "$(dirname "$0")/.."
export STRATA_TORTURE_SECONDS="${1:-3600}"
export STRATA_TORTURE_SEED="${2:-$(date +%s)}"
echo "torture: ${STRATA_TORTURE_SECONDS} s, seed ${STRATA_TORTURE_SEED}"
cargo test --workspace --test torture -- --nocapture

#!/usr/bin/env bash
# Runs every Strata test: unit tests of each crate and the SQL test files.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
cargo test --workspace "$@"

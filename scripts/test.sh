#!/usr/bin/env bash
# Runs every Strata test: unit tests of each crate, the SQL test files, and the
# benchmark harness's own tests (the benchmarks themselves run only by hand).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
cargo test --workspace "$@"
python3 -m unittest discover -s bench/tests

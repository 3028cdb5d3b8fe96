#!/usr/bin/env bash
# Runs every Strata test: unit tests of each crate, the SQL test files, the
# client-level tests (clickhouse-connect against `strata server`), the Python
# package's tests (`import strata`), and the benchmark harness's own tests (the
# benchmarks themselves run only by hand).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh --tests
cargo test --workspace "$@"
cargo build --bin strata
.venv-clients/bin/python -m unittest discover -s tests/clients
./scripts/python-dev.sh
.venv-clients/bin/python -m unittest discover -s crates/python/tests
python3 -m unittest discover -s bench/tests

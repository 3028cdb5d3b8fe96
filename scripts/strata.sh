#!/usr/bin/env bash
# Builds Strata (dev profile, dependencies optimized) and runs it with the given
# arguments, e.g. ./scripts/strata.sh local -q "SELECT 1".
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh >/dev/null
cargo build --quiet -p strata-cli
exec "${CARGO_TARGET_DIR:-target}/debug/strata" "$@"

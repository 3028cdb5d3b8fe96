#!/usr/bin/env bash
# Checks that this machine can build Strata. Rust comes with rustup
# (https://rustup.rs); everything else is fetched by cargo from crates.io.
set -euo pipefail

if ! command -v cargo >/dev/null 2>&1; then
    echo "cargo was not found. Install Rust with rustup (https://rustup.rs), then run this again." >&2
    exit 1
fi
cargo --version

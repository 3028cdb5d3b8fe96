#!/usr/bin/env bash
# Runs a libFuzzer target of fuzz/ (cargo-fuzz, nightly Rust, AddressSanitizer)
# for a while, growing its corpus in fuzz/corpus/<target>:
#   ./scripts/fuzz.sh <sql|input_format|part> [seconds, default 1800] [jobs, default 1]
# A crash, a panic, a timeout or an allocation past the limits below stops the run
# and leaves the input in fuzz/artifacts/<target>/. `cargo test` replays the
# checked-in corpora (crates/fuzz/tests/corpora.rs) without libFuzzer.
set -euo pipefail
cd "$(dirname "$0")/.."
target="${1:?usage: scripts/fuzz.sh <sql|input_format|part> [seconds] [jobs]}"
seconds="${2:-1800}"
jobs="${3:-1}"
rustup toolchain list | grep -q '^nightly' || rustup toolchain install nightly --profile minimal
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
# Its own target directory: sanitizer builds share nothing with the dev build.
target_dir="${STRATA_FUZZ_TARGET_DIR:-$HOME/.cache/strata-fuzz-target}"
case "$target" in
  part) max_len=65536 ;;  # a whole part directory
  *) max_len=8192 ;;
esac
# Several jobs each write their log to fuzz-<n>.log; one runs in the foreground.
parallel=()
if [ "$jobs" -gt 1 ]; then parallel=(-jobs="$jobs" -workers="$jobs"); fi
# -rss_limit_mb also bounds a single allocation (-malloc_limit_mb defaults to it).
cargo +nightly fuzz run --target-dir "$target_dir" "$target" "fuzz/corpus/$target" -- \
  -max_total_time="$seconds" "${parallel[@]}" -max_len="$max_len" \
  -timeout=20 -rss_limit_mb=4096 -print_final_stats=1

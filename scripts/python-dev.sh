#!/usr/bin/env bash
# Makes `import strata` work in .venv-clients with the module built by the
# workspace's dev profile: what `maturin develop` does (the package's Python
# source on the path, the extension module beside it), without building
# DataFusion a second time with the features of one crate alone.
# `pip install ./crates/python` is the install for users (maturin, release).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --lib --quiet
target=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
ln -sf "$target/debug/lib_strata.so" crates/python/python/strata/_strata.abi3.so
site=$(.venv-clients/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
echo "$PWD/crates/python/python" > "$site/strata-dev.pth"

#!/usr/bin/env bash
# Checks that this machine can build Strata. Rust comes with rustup
# (https://rustup.rs); crates come from crates.io. With --tests it also
# installs the client-level tests' Python packages (tests/clients/requirements.txt,
# pinned) into .venv-clients from PyPI, the S3-compatible server the
# object-storage tests run against (s3s-fs, from crates.io) into build/tools,
# and, from Debian's packages when missing, tmux (the terminal tests of
# `strata client`) and Chromium (the `/play` page test).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v cargo >/dev/null 2>&1; then
    echo "cargo was not found. Install Rust with rustup (https://rustup.rs), then run this again." >&2
    exit 1
fi
cargo --version

if [ "${1:-}" != "--tests" ]; then
    exit 0
fi
requirements=tests/clients/requirements.txt
stamp=.venv-clients/installed.txt
if ! cmp -s "$requirements" "$stamp" 2>/dev/null; then
    python3 -m venv .venv-clients
    .venv-clients/bin/pip install --quiet --disable-pip-version-check -r "$requirements"
    cp "$requirements" "$stamp"
fi

# s3s-fs 0.14 is the newest that builds with Rust 1.95.
s3s_version=0.14.1
s3s_stamp=build/tools/s3s-fs-version.txt
if [ "$(cat "$s3s_stamp" 2>/dev/null)" != "$s3s_version" ]; then
    cargo install s3s-fs --version "$s3s_version" --features binary --locked --root build/tools
    echo "$s3s_version" > "$s3s_stamp"
fi

# Debian's packages; the tests that need one say so and skip when it cannot
# be installed (no root, or no apt).
missing=()
command -v tmux >/dev/null 2>&1 || missing+=(tmux)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null \
            || { apt-get update >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null; } \
            || echo "Could not install ${missing[*]}; the tests that need them will skip." >&2
    else
        echo "Not installing ${missing[*]} (needs root and apt-get); the tests that need them will skip." >&2
    fi
fi

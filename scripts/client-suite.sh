#!/usr/bin/env bash
# Runs clickhouse-connect's own integration tests against `strata server`.
#
#   scripts/client-suite.sh PATH_TO_CLICKHOUSE_CONNECT_CHECKOUT [TEST_FILE ...]
#
# Installs the client's test requirements into .venv-client-suite (from
# PyPI), copies the checkout to a temporary folder and builds its Cython
# extensions there (its tests import them), builds Strata, starts a server on
# a free loopback port with an empty data path, runs each test file (default:
# the files the server issue lists) and prints passed/failed/skipped per file.
# CLIENT_SUITE_REPORTS=DIR keeps each file's pytest output. The checkout is
# only read; nothing of it is copied into this repository.
set -euo pipefail

if [ $# -lt 1 ] || [ ! -d "$1/tests/integration_tests" ]; then
    echo "usage: $0 PATH_TO_CLICKHOUSE_CONNECT_CHECKOUT [TEST_FILE ...]" >&2
    exit 2
fi
checkout=$(cd "$1" && pwd)
shift
root=$(cd "$(dirname "$0")/.." && pwd)
files=("$@")
if [ ${#files[@]} -eq 0 ]; then
    files=(test_client.py test_native.py test_inserts.py test_raw_insert.py
        test_streaming.py test_numeric.py test_temporal.py test_params.py
        test_session_id.py test_error_handling.py test_dbapi.py test_contexts.py
        test_formats.py test_multithreading.py test_arrow.py test_pandas.py)
fi

venv=$root/.venv-client-suite
if [ ! -x "$venv/bin/pytest" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check \
        pytest pytest-asyncio pytest-mock pytest-dotenv urllib3 certifi aiohttp \
        pyarrow "pandas<3" numpy polars lz4 backports.zstd "sqlalchemy>=2,<3" \
        alembic setuptools "cython>=3.1,<4"
fi

(cd "$root" && cargo build --quiet --bin strata)
target=${CARGO_TARGET_DIR:-$root/target}
data=$(mktemp -d)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$target/debug/strata" server --path "$data/data" --http-port "$port" 2>"$data/server.log" &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$data"' EXIT
# The tests import the client's compiled modules, and SQLAlchemy finds its
# dialect through the package's entry points: build both in a copy.
mkdir "$data/cc"
tar -C "$checkout" --exclude=.git -cf - . | tar -C "$data/cc" -xf -
(cd "$data/cc" && "$venv/bin/python" setup.py -q build_ext --inplace egg_info >"$data/build.log" 2>&1) ||
    { cat "$data/build.log" >&2; exit 1; }
for _ in $(seq 100); do
    curl -sf "http://127.0.0.1:$port/ping" >/dev/null && break
    sleep 0.2
done

export CLICKHOUSE_CONNECT_TEST_HOST=127.0.0.1 CLICKHOUSE_CONNECT_TEST_PORT=$port
printf '%-28s %7s %7s %7s\n' file passed failed skipped
cd "$data/cc"
for file in "${files[@]}"; do
    report="$data/${file%.py}.txt"
    # The copy's own package is imported (tests and client match); its
    # addopts ask for pytest-xdist, which this 2-core machine can't use.
    # --tb=native: pytest's own traceback formatting crashes the whole run
    # (INTERNALERROR, "AST constructor recursion depth mismatch") on 3.11.
    "$venv/bin/python" -m pytest -q -rfEs --tb=native -p no:cacheprovider \
        -o addopts="" -o log_cli=false "tests/integration_tests/$file" >"$report" 2>&1 || true
    summary=$(grep -E '[0-9]+ (passed|failed|skipped|errors?)|no tests ran' "$report" | tail -n 1)
    count() { echo "$summary" | grep -oE "[0-9]+ $1" | grep -oE '[0-9]+' || echo 0; }
    printf '%-28s %7s %7s %7s%s\n' "$file" "$(count passed)" "$(( $(count failed) + $(count error) ))" \
        "$(count skipped)" "$(grep -q INTERNALERROR "$report" && echo ' (run aborted)')"
    if [ -n "${CLIENT_SUITE_REPORTS:-}" ]; then
        mkdir -p "$CLIENT_SUITE_REPORTS" && cp "$report" "$CLIENT_SUITE_REPORTS/"
    fi
done

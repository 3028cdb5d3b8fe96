#!/usr/bin/env bash
# Runs clickhouse-connect's own integration tests against `strata server`.
#
#   scripts/client-suite.sh PATH_TO_CLICKHOUSE_CONNECT_CHECKOUT [TEST_FILE ...]
#
# Installs the checkout's client and its test requirements into
# .venv-client-suite (from PyPI), builds Strata, starts a server on a free
# loopback port with an empty data path, runs each test file (default: the
# files the server issue lists) and prints passed/failed per file. The
# checkout is only read; nothing of it is copied into this repository.
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
        pyarrow pandas numpy polars lz4 zstandard "sqlalchemy>=2,<3" pytz
fi

(cd "$root" && cargo build --quiet --bin strata)
target=${CARGO_TARGET_DIR:-$root/target}
data=$(mktemp -d)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$target/debug/strata" server --path "$data/data" --http-port "$port" 2>"$data/server.log" &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$data"' EXIT
for _ in $(seq 100); do
    curl -sf "http://127.0.0.1:$port/ping" >/dev/null && break
    sleep 0.2
done

export CLICKHOUSE_CONNECT_TEST_HOST=127.0.0.1 CLICKHOUSE_CONNECT_TEST_PORT=$port
printf '%-28s %7s %7s %7s\n' file passed failed skipped
cd "$checkout"
for file in "${files[@]}"; do
    report="$data/${file%.py}.txt"
    # The checkout's own package is imported (tests and client match).
    "$venv/bin/python" -m pytest -q -p no:cacheprovider \
        "tests/integration_tests/$file" -o addopts="" >"$report" 2>&1 || true
    summary=$(tail -n 1 "$report")
    count() { echo "$summary" | grep -oE "[0-9]+ $1" | grep -oE '[0-9]+' || echo 0; }
    printf '%-28s %7s %7s %7s\n' "$file" "$(count passed)" "$(( $(count failed) + $(count error) ))" "$(count skipped)"
    [ -n "${CLIENT_SUITE_REPORTS:-}" ] && mkdir -p "$CLIENT_SUITE_REPORTS" && cp "$report" "$CLIENT_SUITE_REPORTS/"
done

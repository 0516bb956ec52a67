#!/usr/bin/env bash
# Queries gcscope's Parquet output of the fixtures with DuckDB (PyPI duckdb, pinned, installed into
# a venv under target/ only where missing) and checks counts and percentiles against gcscope's JSON.
#   usage: scripts/duckdb-check.sh [GCSCOPE_BINARY]   (default: target/release/gcscope, built if missing)
# Skips with a message (exit 0) only when the duckdb package cannot be installed.
set -euo pipefail
cd "$(dirname "$0")/.."
DUCKDB_VERSION=2.0.0
VENV=target/duckdb-venv
BIN="${1:-target/release/gcscope}"
[ -x "$BIN" ] || cargo build --release -p gcscope-cli
if ! "$VENV/bin/python" -c "import duckdb, sys; sys.exit(duckdb.__version__ != '$DUCKDB_VERSION')" 2>/dev/null; then
  rm -rf "$VENV"
  if ! { python3 -m venv "$VENV" && "$VENV/bin/pip" install -q --disable-pip-version-check "duckdb==$DUCKDB_VERSION"; }; then
    echo "duckdb-check: SKIPPED: PyPI duckdb==$DUCKDB_VERSION could not be installed (no network or no wheel for this Python)"
    exit 0
  fi
fi
"$VENV/bin/python" scripts/duckdb-check.py "$BIN" fixtures/traces

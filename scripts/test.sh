#!/usr/bin/env bash
# Runs every test: formatting and lints, native unit/integration tests, wasm tests in headless
# Chromium, then the end-to-end tests against the built app in Chromium, Firefox ESR and WebKitGTK.
# Installs what is missing first.
set -euo pipefail
cd "$(dirname "$0")/.."

# Each step's wall time, printed as a table when the run ends (docs/testing.md, "Where CI's time
# goes", is made from it). The last step's time runs to the exit, so a failed run shows where.
STEPS=()
STEP_START=$SECONDS
RUN_START=$SECONDS
STEP_NAME="setup (scripts/setup.sh)"
step() {
  STEPS+=("$((SECONDS - STEP_START))|$STEP_NAME")
  STEP_NAME="$*"
  STEP_START=$SECONDS
  printf '\n== %s\n' "$*"
}
timings() {
  local rc=$?
  STEPS+=("$((SECONDS - STEP_START))|$STEP_NAME")
  printf '\n== step times (wall seconds, %s cores, exit %s)\n' "$(nproc)" "$rc"
  local e
  for e in "${STEPS[@]}"; do printf '%6s  %s\n' "${e%%|*}" "${e#*|}"; done
  printf '%6s  total\n' "$((SECONDS - RUN_START))"
}
trap timings EXIT

scripts/setup.sh
source scripts/env.sh
# A run from a clean clone gains nothing from incremental caches, and they are gigabytes of disk
# (CI's ran out once, in the fuzzing step).
export CARGO_INCREMENTAL=0

if [ ! -d ../shared ]; then
  echo "note: ../shared is absent: tests that compare with TraceEvent's reference traces will say so and skip"
fi

step "format and import cycles"
cargo fmt --all -- --check
# No module imports a module that imports it back (each layer depends only on those below it;
# core/tests/layers.rs and app/tests/layers.rs check the tiers themselves).
python3 scripts/check-cycles.py core/src cli/src app/src

step "clippy: core, diag and cli, every target (the test-only encoder with them)"
cargo clippy -p gcscope-core -p gcscope-diag -p gcscope-cli --all-targets -- -D warnings
step "clippy: core for wasm32 without std"
# The no_std core as the browser's target type-checks it; the app's release build compiles it.
cargo clippy -p gcscope-core --no-default-features --target wasm32-unknown-unknown -- -D warnings
step "clippy: the app (wasm32)"
cargo clippy -p gcscope-app --target wasm32-unknown-unknown --all-targets -- -D warnings

step "native tests (core, diag, cli, app logic)"
# Every test, the encoder's included (core's tests get the `encode` feature from its
# dev-dependency on itself): round trips, the ETL writer, parallel decoding's identity and the
# sort budget, comparisons and the findings' thresholds on crafted traces. core is optimised in
# the dev profile, with overflow checks and debug assertions on.
cargo test -p gcscope-core -p gcscope-diag -p gcscope-cli -p gcscope-app
step "native tests, release: the 300 MB round trip"
# Ignored in debug builds for its size. The release build of core it makes is the one the
# end-to-end tests' writers below use.
cargo test --release -p gcscope-core --test encode_roundtrip

step "release CLI, and the release examples for the end-to-end tests"
# One build: the CLI gets core with the test-only encoder (dead code to it), which is the core the
# release round trip above has just built, so core is compiled once in release, not twice. The
# scale test compares the app with the native CLI on a generated 100 MB trace; the ETW test writes
# machine-wide .etl files with etl_machine; the parallel test relogs a generated trace into .etl
# files with etl_relog.
cargo build --release -p gcscope-cli -p gcscope-core --features gcscope-core/encode --bin gcscope \
  --example bigtrace --example bench_stream --example etl_machine --example etl_relog
step "DuckDB over the Parquet"
# DuckDB over gcscope's Parquet of the fixtures (PyPI duckdb, pinned): counts and percentiles against gcscope's JSON
scripts/duckdb-check.sh target/release/gcscope

step "fresh real traces: run the GC workloads on .NET Core 3.1, .NET 8, 9 and 10, check them against the runtime and TraceEvent"
tools/tracegen/check-fresh.sh
step "live sessions: ps, collect and watch attached to the four runtimes"
# The runtimes are cached now (the native tests above skip these on an empty cache); about 12 s,
# the test binary built by the native tests.
cargo test -p gcscope-cli --test live_cmds
step "live sessions: collect -- CMD (reverse connect) and serve on the cached runtimes"
# About 8 s: three launched workloads, one that never connects (.NET Core 3.1), serve sessions on
# the four runtimes.
cargo test -p gcscope-cli --test live_launch
step "heap snapshots: gcscope gcdump of a known static cache on the four runtimes"
# About 6 s: one induced-GC heap walk per runtime, read back by gcscope heap.
cargo test -p gcscope-cli --test gcdump_cmd

step "wasm tests in headless Chromium"
WASM_BINDGEN_TEST_WEBDRIVER_JSON="$PWD/app/webdriver.json" \
  cargo test -p gcscope-app --target wasm32-unknown-unknown --test web

step "build the app"
scripts/build-app.sh

step "fuzzing, bounded: 10 s per target (scripts/fuzz.sh SECONDS for longer runs)"
# The native tests already replay the committed minimized corpus and every regression
# (core/tests/fuzz_regressions.rs); this step proves the targets build and explores a little
# further from that corpus. Long runs are scripts/fuzz.sh 600 (docs/design/hostile-inputs.md).
scripts/fuzz.sh 10

# end-to-end tests in Chromium, Firefox ESR and WebKitGTK (one engine after another).
# Fails when any engine fails; prints each engine's duration (GCSCOPE_ENGINES=firefox for one).
step "end-to-end tests"
(cd tests && npm test)

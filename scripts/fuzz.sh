#!/usr/bin/env bash
# Bounded fuzzing of gcscope-core with cargo-fuzz (libFuzzer, a pinned nightly): the container decoder fed in
# random chunkings (with the GC model on its events), the typed payload decoders, the GC model, the ETW
# decoder (chunked, filtered, one model per process), the MS-XCA Plain LZ77 decompressor, the .gcdump
# heap snapshot reader with every view of its graph, and the CTF (LTTng) reader (TSDL metadata and
# merged streams).
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]     (default 60 s, all targets)
#
# FUZZ_RUNS=N also stops each target after N executions, whichever comes first (the hardening
# bound is 10 million executions or one hour: FUZZ_RUNS=10000000 scripts/fuzz.sh 3600).
#
# Installs what is missing (idempotent): the nightly toolchain (minimal profile) and cargo-fuzz
# (pinned). Each target starts from the committed minimized corpus (fuzz/corpus/TARGET, read only)
# and the seeds from the committed fixtures (and ../shared when present), written by
# fuzz/examples/seeds.rs; what it adds and any findings stay under $FUZZ_DIR (default target/fuzz,
# not committed). Exit status 1 if any target found a crash, leak, OOM or timeout, or could not run
# (a build error); each finding is copied to $FUZZ_DIR/findings/ and goes into
# fuzz/regressions/TARGET/, which core/tests/fuzz_regressions.rs replays.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
SECS=${1:-60}
shift || true
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(container payloads model etl lz77 gcdump ctf)
CARGO_FUZZ_VERSION=0.13.1
# libFuzzer needs nightly; a dated one so that CI builds the same thing every day. Invoked through
# `rustup run`, which works whether or not `cargo` on PATH is rustup's proxy.
NIGHTLY=nightly-2026-05-19
FUZZ_DIR=${FUZZ_DIR:-$ROOT/target/fuzz}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
# Inputs bigger than the cap are cut by libFuzzer; keeps the executions per second useful. The
# whole-file target (with the model and the stacks on its events) and the model target (every
# record an event) cost in proportion to their input, so they get smaller caps:
# docs/design/hostile-inputs.md, "Fuzzing", has the rates.
max_len() {
  case "$1" in
    container) echo "${MAX_LEN:-4096}" ;;
    model) echo "${MAX_LEN:-4096}" ;;
    *) echo "${MAX_LEN:-65538}" ;;
  esac
}

if ! rustup run "$NIGHTLY" rustc --version >/dev/null 2>&1; then
  echo "fuzz.sh: installing the $NIGHTLY toolchain"
  rustup toolchain install "$NIGHTLY" --profile minimal
fi
if [ "$(cargo fuzz --version 2>/dev/null | awk '{print $2}')" != "$CARGO_FUZZ_VERSION" ]; then
  echo "fuzz.sh: installing cargo-fuzz $CARGO_FUZZ_VERSION"
  "$ROOT/scripts/tool-install.sh" cargo-fuzz --locked --version "$CARGO_FUZZ_VERSION"
fi

mkdir -p "$FUZZ_DIR/findings"
echo "fuzz.sh: writing seeds"
rm -rf "$FUZZ_DIR/seeds"
cargo run --quiet --release --manifest-path fuzz/Cargo.toml --example seeds -- "$FUZZ_DIR/seeds"

total_execs=0
findings=0
# Targets that stopped without an artifact (a build error, a full disk): not findings, but the
# step fails on them too, since the target was not fuzzed.
failed=0
for t in "${TARGETS[@]}"; do
  mkdir -p "$FUZZ_DIR/corpus/$t" "$FUZZ_DIR/artifacts/$t"
  log="$FUZZ_DIR/$t.log"
  echo "fuzz.sh: $t for ${SECS}s (log: $log)"
  set +e
  rustup run "$NIGHTLY" cargo fuzz run --fuzz-dir fuzz --target-dir "$CARGO_TARGET_DIR/fuzz" "$t" \
    "$FUZZ_DIR/corpus/$t" "$ROOT/fuzz/corpus/$t" "$FUZZ_DIR/seeds/$t" -- \
    -artifact_prefix="$FUZZ_DIR/artifacts/$t/" -max_total_time="$SECS" -max_len="$(max_len "$t")" \
    -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=512 -print_final_stats=1 \
    ${FUZZ_RUNS:+-runs="$FUZZ_RUNS"} >"$log" 2>&1
  status=$?
  set -e
  # `|| true`: a run that never started (build error) has no stats; it is reported below.
  execs=$({ grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" || true; } | awk '{s+=$2} END {print s+0}')
  found=$(find "$FUZZ_DIR/artifacts/$t" -type f | wc -l)
  total_execs=$((total_execs + execs))
  findings=$((findings + found))
  echo "fuzz.sh: $t: $execs executions, $found findings (exit $status)"
  if [ "$found" -gt 0 ]; then
    cp "$FUZZ_DIR/artifacts/$t"/* "$FUZZ_DIR/findings/"
    grep -m3 -E 'panicked|ERROR: libFuzzer|SUMMARY' "$log" || true
  elif [ "$status" -ne 0 ]; then
    echo "fuzz.sh: $t failed without an artifact; last lines of its log:"
    tail -20 "$log"
    failed=$((failed + 1))
  fi
done
echo "fuzz.sh: total $total_execs executions, $findings findings, $failed targets failed to run"
[ "$findings" -eq 0 ] && [ "$failed" -eq 0 ]

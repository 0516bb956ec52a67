#!/usr/bin/env bash
# Generate fresh traces into a temporary directory and run gcscope's generated-trace tests on
# them (the same checks as on the committed fixtures; each fresh oracle describes its own run).
#   usage: tools/tracegen/check-fresh.sh [OUTDIR]     (default: a new temp dir, removed on success)
# Environment: as generate.sh (TRACEGEN_WORK, TRACEGEN_RUNTIMES, TRACEGEN_WORKLOADS), plus
# CARGO_TARGET_DIR if you keep one.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
if [ $# -ge 1 ]; then OUT="$1"; KEEP=1; else OUT="$(mktemp -d /tmp/gcscope-fresh.XXXXXX)"; KEEP=0; fi
trap '[ $? = 0 ] || echo "check-fresh: FAILED; traces kept in $OUT" >&2' EXIT
start=$SECONDS
"$HERE/generate.sh" "$OUT"
gen=$((SECONDS - start))
# The packages scripts/test.sh's native tests select, so that cargo resolves the same features and
# reuses that build of core instead of making another (one package alone unifies fewer features).
PKGS=(-p gcscope-core -p gcscope-cli -p gcscope-app)
(cd "$ROOT" && GCSCOPE_FRESH_TRACES="$OUT" cargo test "${PKGS[@]}" --test generated_traces -- --ignored --nocapture fresh_traces)
# The findings on them: each workload's designed behaviour, against its fresh oracle and raw events.
(cd "$ROOT" && GCSCOPE_FRESH_TRACES="$OUT" cargo test "${PKGS[@]}" --test findings_workloads -- --nocapture fresh_traces)
# Their call stacks against TraceEvent's TraceLog, event by event (the stacks.json generate.sh writes).
(cd "$ROOT" && GCSCOPE_FRESH_TRACES="$OUT" cargo test "${PKGS[@]}" --test stacks_traceevent -- --nocapture fresh_traces)
# gcscope's own attribution of the stacks workloads' sites, against their known truth.
(cd "$ROOT" && GCSCOPE_FRESH_TRACES="$OUT" cargo test "${PKGS[@]}" --test stacks_sites -- --nocapture)
# Background GCs run inside one suspension: the pause told from the raw events.
(cd "$ROOT" && GCSCOPE_FRESH_TRACES="$OUT" cargo test "${PKGS[@]}" --test bgc_single_suspension -- --nocapture)
echo "check-fresh: generated in ${gen}s, generated + tested in $((SECONDS - start))s ($OUT)"
[ "$KEEP" = 1 ] || rm -rf "$OUT"

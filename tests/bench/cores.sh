#!/usr/bin/env bash
# How the native CLI scales with --jobs on this machine: `gcscope gcs --json --jobs N` on generated
# traces (workstation GC, Server GC with 32 heaps, and the workstation one relogged into a plain and a
# Plain-LZ77-compressed .etl), against `cat FILE > /dev/null`, every file warm in the page cache,
# rounds alternating the job counts. Each --jobs N output must equal --jobs 1's byte for byte (the
# script stops if not). Then the per-phase costs on one thread (bench_parts), for the projection in
# docs/performance-log/journal.md, "Sixteen cores".
#
#   cargo build --release -p gcscope-cli
#   cargo build --release -p gcscope-core --features encode --example bigtrace --example etl_relog --example bench_parts
#   tests/bench/cores.sh [SIZE_MB] [ROUNDS]        # JOBS="1 2 4 8 16" by default
#
# Needs only the four binaries (GCSCOPE_BIN, default target/release) and python3 (for the peak RSS):
# built on one machine, it runs on another of the same architecture.
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${GCSCOPE_BIN:-target/release}
DIR=${BENCH_DIR:-/tmp/gcscope-cores}
SIZE=${1:-1024}
ROUNDS=${2:-2}
JOBS=${JOBS:-"1 2 4 8 16"}
FIRST=${JOBS%% *}   # the job count the others are compared with
mkdir -p "$DIR"

echo "# machine: $(nproc) cores; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); load $(cut -d' ' -f1-3 /proc/loadavg)"
w=$DIR/wks-$SIZE.nettrace s=$DIR/svr32-$SIZE.nettrace
[ -s "$w" ] || "$B/examples/bigtrace" "$w" "$SIZE" >"$DIR/wks.json"
[ -s "$s" ] || "$B/examples/bigtrace" "$s" "$SIZE" --heaps 32 >"$DIR/svr32.json"
[ -s "$DIR/wks-$SIZE.etl" ] || "$B/examples/etl_relog" "$w" "$DIR/wks-$SIZE.etl" >/dev/null
[ -s "$DIR/wks-$SIZE.c.etl" ] || "$B/examples/etl_relog" "$w" "$DIR/wks-$SIZE.c.etl" --compressed >/dev/null
FILES=("$w" "$s" "$DIR/wks-$SIZE.etl" "$DIR/wks-$SIZE.c.etl")

# Wall seconds and peak RSS (MiB) of one command, its stdout to $OUTFILE.
run() {
  python3 - "$@" <<'EOF'
import os, resource, subprocess, sys, time
t = time.perf_counter()
with open(os.environ["OUTFILE"], "wb") as out:
    rc = subprocess.call(sys.argv[1:], stdout=out)
dt = time.perf_counter() - t
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(f"{dt:.3f} {rss:.0f}" if rc == 0 else f"failed({rc})")
EOF
}

for f in "${FILES[@]}"; do cat "$f" >/dev/null; done
printf '%-22s %8s' file MB; printf ' %14s' cat; for j in $JOBS; do printf ' %14s' "jobs $j"; done; echo
for r in $(seq "$ROUNDS"); do
  for f in "${FILES[@]}"; do
    mb=$(( $(stat -c %s "$f") / 1000000 ))
    printf '%-22s %8s' "$(basename "$f")" "$mb"
    printf ' %14s' "$(OUTFILE=/dev/null run cat "$f" | awk '{print $1 "s"}')"
    for j in $JOBS; do
      m=$(OUTFILE="$DIR/out.$j" run "$B/gcscope" gcs --json --jobs "$j" "$f")
      printf ' %14s' "$(echo "$m" | awk '{print $1 "s/" $2 "M"}')"
      if [ "$j" != "$FIRST" ] && ! cmp -s "$DIR/out.$j" "$DIR/out.$FIRST"; then
        echo; echo "jobs $j's output differs from jobs $FIRST's on $f"; exit 1
      fi
    done
    echo
  done
done
echo "# every --jobs N output equal to --jobs $FIRST's, byte for byte"
for f in "$w" "$DIR/wks-$SIZE.c.etl"; do
  echo "# bench_parts $(basename "$f")"
  "$B/examples/bench_parts" "$f" 2
done

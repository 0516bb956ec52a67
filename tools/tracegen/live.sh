#!/usr/bin/env bash
# Runs the `live` workload (tools/tracegen/Workloads.cs) on one cached runtime, for gcscope's live
# tests (cli/tests/live_cmds.rs): no EventPipe file session, the diagnostics server on as by
# default, so gcscope attaches to it. It prints `ready`, waits for a line on stdin, then makes
# GCSCOPE_LIVE_GCS induced GCs (see Workloads.cs).
#
#   usage: tools/tracegen/live.sh RUNTIME ORACLE.json [WORKLOAD]
#          (RUNTIME: netcore3.1 net8.0 net9.0 net10.0; WORKLOAD: live (the default), heap-cache,
#          the static cache cli/tests/gcdump_cmd.rs takes a snapshot of, or throughput, the target
#          of tests/bench/live-throughput.py)
#
# Uses the runtimes tools/tracegen/generate.sh caches in TRACEGEN_WORK (default /tmp/gcscope-tracegen)
# and exits 3 when the runtime is not there; it builds Workloads.exe (and the .NET 10 re-bundle) into
# $TRACEGEN_WORK/live-build when Workloads.cs is newer. The process replaces this script (exec), so
# its pid is the script's.
set -euo pipefail
RT="${1:?usage: $0 RUNTIME ORACLE.json}"
ORACLE="${2:?usage: $0 RUNTIME ORACLE.json}"
WL="${3:-live}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
WORK="${TRACEGEN_WORK:-/tmp/gcscope-tracegen}"
B="$WORK/live-build"
DOTNET31="$(ls "$WORK"/venv/lib/python3*/site-packages/dotnetcore2/bin/dotnet 2>/dev/null | head -1 || true)"
HOST8="$WORK/sarif-5.7.0/package/Sarif.Multitool"
HOST9="$WORK/azmcp-0.5.0/package/dist/azmcp"
HOST10_APP="$WORK/fabmcp-1.4.0/package/dist/fabmcp"
missing() { echo "live.sh: $RT is not cached in $WORK ($1); run tools/tracegen/generate.sh once" >&2; exit 3; }
case "$RT" in
netcore3.1) [ -n "$DOTNET31" ] && [ -x "$DOTNET31" ] || missing dotnetcore2 ;;
net8.0) [ -x "$HOST8" ] || missing sarif ;;
net9.0) [ -x "$HOST9" ] || missing azmcp ;;
net10.0) [ -f "$HOST10_APP" ] && [ -x "$HOST9" ] || missing fabmcp ;;
*) echo "live.sh: unknown runtime $RT" >&2; exit 2 ;;
esac
command -v mcs >/dev/null || { echo "live.sh: mcs is missing" >&2; exit 3; }
mkdir -p "$B"
# Built once per change of Workloads.cs; a lock keeps parallel tests from building at once.
(
    flock 9
    if [ ! -f "$B/Workloads.exe" ] || [ "$HERE/Workloads.cs" -nt "$B/Workloads.exe" ]; then
        mcs -nologo -warn:0 -unsafe -optimize+ -out:"$B/Workloads.exe.tmp" "$HERE/Workloads.cs"
        mv "$B/Workloads.exe.tmp" "$B/Workloads.exe"
        rm -f "$B/net10-workloads"
    fi
    printf '{"runtimeOptions":{"tfm":"netcoreapp3.1","framework":{"name":"Microsoft.NETCore.App","version":"3.1.0"}}}\n' \
        >"$B/Workloads.runtimeconfig.json"
    if [ "$RT" = net10.0 ] && [ ! -x "$B/net10-workloads" ]; then
        f="$(dirname "$HOST9")"
        python3 "$HERE/rebundle.py" "$HOST10_APP" "$B/Workloads.exe" "$B/net10-workloads.tmp" \
            "$f/mscorlib.dll" "$f/System.dll" "$f/System.Core.dll" >/dev/null
        chmod +x "$B/net10-workloads.tmp" && mv "$B/net10-workloads.tmp" "$B/net10-workloads"
    fi
) 9>"$B/.lock"
# The same small gen0 budget as the generator's runs (see generate.sh): GCs come from little
# allocation on this machine's large cache. GCSCOPE_LIVE_GEN0SIZE sets another, and an empty one
# leaves the runtime's own (the throughput benchmark's realistic GC rate).
if [ "$RT" = netcore3.1 ]; then P=COMPlus_; else P=DOTNET_; fi
export DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1 "${P}gcConcurrent=0"
GEN0="${GCSCOPE_LIVE_GEN0SIZE-0x200000}"
if [ -n "$GEN0" ]; then export "${P}GCgen0size=$GEN0" "${P}GCGen0MaxBudget=0x300000"; fi
cd "$WORK"
case "$RT" in
netcore3.1) exec "$DOTNET31" "$B/Workloads.exe" "$WL" "$ORACLE" ;;
net10.0) exec "$B/net10-workloads" "$WL" "$ORACLE" ;;
*)
    host="$HOST8"; [ "$RT" = net9.0 ] && host="$HOST9"
    export DOTNET_STARTUP_HOOKS="$B/Workloads.exe" GCSCOPE_WORKLOAD="$WL" GCSCOPE_ORACLE="$ORACLE"
    exec "$host"
    ;;
esac

#!/usr/bin/env bash
# Read every .nettrace under DIR with Microsoft TraceEvent (inside the .NET 8 host from npm
# @microsoft/sarif-multitool-linux) and write NAME.traceevent.json and NAME.stacks.json (TraceLog's
# call stacks of AllocationTick, GCTriggered and SetGCHandle) beside each one.
# Works on any trace, e.g. a user's, not only on generated ones.
#   usage: tools/tracegen/traceevent.sh DIR      (cache: TRACEGEN_WORK, default /tmp/gcscope-tracegen)
# TRACEGEN_STACKS: "all" (default) or the trace names (e.g. "stacks pinning") whose stacks are read.
set -euo pipefail
DIR="$(cd "${1:?usage: $0 DIR}" && pwd)"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
WORK="${TRACEGEN_WORK:-/tmp/gcscope-tracegen}"
SARIF=5.7.0
mkdir -p "$WORK/build"
WORK="$(cd "$WORK" && pwd)"
if ! command -v mcs >/dev/null; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mono-mcs >/dev/null
fi
HOST8="$WORK/sarif-$SARIF/package/Sarif.Multitool"
if [ ! -f "$HOST8" ]; then
    rm -rf "$WORK/sarif-$SARIF.tmp" && mkdir -p "$WORK/sarif-$SARIF.tmp"
    (cd "$WORK/sarif-$SARIF.tmp" && npm pack --silent "@microsoft/sarif-multitool-linux@$SARIF" >/dev/null &&
        tar xzf ./*.tgz && rm -f ./*.tgz)
    rm -rf "$WORK/sarif-$SARIF" && mv "$WORK/sarif-$SARIF.tmp" "$WORK/sarif-$SARIF"
fi
chmod +x "$HOST8"
mcs -nologo -warn:0 -target:library -out:"$WORK/build/TraceEventDump.dll" "$HERE/TraceEventDump.cs"
(cd "$WORK" && env DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1 DOTNET_STARTUP_HOOKS="$WORK/build/TraceEventDump.dll" \
    GCSCOPE_TRACEEVENT_DIR="$DIR" GCSCOPE_TRACEEVENT_STACKS="${TRACEGEN_STACKS:-all}" timeout 600 "$HOST8")

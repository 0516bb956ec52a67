#!/usr/bin/env bash
# TraceEvent's rendering of the first event of each name, for every .nettrace under DIR:
# writes OUT/<relative path>/NAME.firstevents.txt (format of TraceEvent's test baselines).
#   usage: tools/clr-firstevents/firstevents.sh DIR OUT
# Reuses the .NET 8 host (with TraceEvent inside) that tools/tracegen/traceevent.sh downloads
# (npm @microsoft/sarif-multitool-linux); cache dir TRACEGEN_WORK, default /tmp/gcscope-tracegen.
set -euo pipefail
DIR="$(cd "${1:?usage: $0 DIR OUT}" && pwd)"
mkdir -p "${2:?usage: $0 DIR OUT}"
OUT="$(cd "$2" && pwd)"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
WORK="${TRACEGEN_WORK:-/tmp/gcscope-tracegen}"
HOST8="$WORK/sarif-5.7.0/package/Sarif.Multitool"
if [ ! -x "$HOST8" ]; then
    echo "no .NET host at $HOST8: run tools/tracegen/traceevent.sh once first" >&2
    exit 1
fi
mkdir -p "$WORK/build"
mcs -nologo -warn:0 -target:library -out:"$WORK/build/FirstEvents.dll" "$HERE/FirstEvents.cs"
(cd "$WORK" && env DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1 DOTNET_STARTUP_HOOKS="$WORK/build/FirstEvents.dll" \
    GCSCOPE_FIRSTEVENTS_IN="$DIR" GCSCOPE_FIRSTEVENTS_OUT="$OUT" timeout 600 "$HOST8")

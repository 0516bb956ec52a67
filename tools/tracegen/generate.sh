#!/usr/bin/env bash
# gcscope tracegen: make real EventPipe GC traces (.nettrace) on four CoreCLR runtimes, each
# with the runtime's own numbers (WORKLOAD.oracle.json) and Microsoft TraceEvent's reading
# of the trace (WORKLOAD.traceevent.json; its call stacks: WORKLOAD.stacks.json).
#
#   usage: tools/tracegen/generate.sh OUTDIR
#
# Writes OUTDIR/{netcore3.1,net8.0,net9.0,net10.0}/WORKLOAD.{nettrace,oracle.json,traceevent.json,stacks.json}.
# Only package registries are used:
#   * apt: mono-mcs (C# compiler), only if `mcs` is missing;
#   * PyPI: dotnetcore2==3.1.23 (a dotnet host + Microsoft.NETCore.App 3.1.23), into a venv;
#   * npm: @microsoft/sarif-multitool-linux@5.7.0, a self-contained single-file .NET 8 program
#     (runtime 8.0.x plus TraceEvent 3.1.x inside). Our code runs in it as a startup hook;
#   * npm: @azure/mcp-linux-x64@0.5.0, a self-contained (not single-file, untrimmed) .NET 9.0.5
#     program: the same startup-hook way in;
#   * npm: @microsoft/fabric-mcp-linux-x64@1.4.0, a trimmed single-file .NET 10.0.11 program
#     with startup hooks disabled: rebundle.py keeps its host (the runtime is linked into it) and
#     framework assemblies and bundles Workloads.exe as the main assembly instead, with the
#     .NET 9 package's mscorlib/System/System.Core forwarding facades (mcs binds to those names).
# Environment: TRACEGEN_WORK (cache dir, default /tmp/gcscope-tracegen),
# TRACEGEN_RUNTIMES (default "netcore3.1 net8.0 net9.0 net10.0"), TRACEGEN_WORKLOADS (default:
# all thirteen; a workload a runtime cannot run is skipped, see `supported`), TRACEGEN_STACKS ("all",
# the default, or the workloads whose WORKLOAD.stacks.json is written).
set -euo pipefail

OUT="${1:?usage: $0 OUTDIR}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
WORK="${TRACEGEN_WORK:-/tmp/gcscope-tracegen}"
RUNTIMES="${TRACEGEN_RUNTIMES:-netcore3.1 net8.0 net9.0 net10.0}"
WORKLOADS="${TRACEGEN_WORKLOADS:-wks-nonconcurrent wks-concurrent server induced loh pinning mempressure handles conserve datas datas-tuned stacks stacks-jit}"
DOTNETCORE2=3.1.23
SARIF=5.7.0
AZMCP=0.5.0     # @azure/mcp-linux-x64: .NET 9.0.5
FABMCP=1.4.0    # @microsoft/fabric-mcp-linux-x64: .NET 10.0.11
# Wall-clock limit per workload run; a run over it is killed and the script fails.
RUN_TIMEOUT="${TRACEGEN_RUN_TIMEOUT:-120}"

mkdir -p "$OUT" "$WORK/build"
OUT="$(cd "$OUT" && pwd)"
WORK="$(cd "$WORK" && pwd)"
say() { echo "[tracegen] $*" >&2; }

# ------------------------------------------------------------ toolchain (idempotent)
if ! command -v mcs >/dev/null; then
    say "apt-get install mono-mcs"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mono-mcs >/dev/null
fi

DOTNET31=""
if [[ " $RUNTIMES " == *" netcore3.1 "* ]]; then
    [ -x "$WORK/venv/bin/python" ] || python3 -m venv "$WORK/venv"
    site="$("$WORK/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])')"
    DOTNET31="$site/dotnetcore2/bin/dotnet"
    if [ ! -f "$DOTNET31" ]; then
        say "pip install dotnetcore2==$DOTNETCORE2 (PyPI)"
        # --no-deps: we only want the runtime files it carries, not its Python side.
        "$WORK/venv/bin/pip" install -q --no-deps "dotnetcore2==$DOTNETCORE2"
    fi
    chmod +x "$DOTNET31"
fi

# npm_unpack PACKAGE@VERSION DIR: the package's files under DIR/package (once; cached).
npm_unpack() {
    [ -d "$2/package" ] && return 0
    say "npm pack $1"
    rm -rf "$2.tmp" && mkdir -p "$2.tmp"
    (cd "$2.tmp" && npm pack --silent "$1" >/dev/null && tar xzf ./*.tgz && rm -f ./*.tgz)
    rm -rf "$2" && mv "$2.tmp" "$2"
}

HOST8="$WORK/sarif-$SARIF/package/Sarif.Multitool"
npm_unpack "@microsoft/sarif-multitool-linux@$SARIF" "$WORK/sarif-$SARIF"
chmod +x "$HOST8"
# .NET 9 (also needed for .NET 10: its forwarding facades).
HOST9="$WORK/azmcp-$AZMCP/package/dist/azmcp"
if [[ " $RUNTIMES " == *" net9.0 "* || " $RUNTIMES " == *" net10.0 "* ]]; then
    npm_unpack "@azure/mcp-linux-x64@$AZMCP" "$WORK/azmcp-$AZMCP"
    chmod +x "$HOST9"
fi
HOST10_APP="$WORK/fabmcp-$FABMCP/package/dist/fabmcp"
if [[ " $RUNTIMES " == *" net10.0 "* ]]; then
    npm_unpack "@microsoft/fabric-mcp-linux-x64@$FABMCP" "$WORK/fabmcp-$FABMCP"
fi

# ------------------------------------------------------------ build
BUILD="$WORK/build"
mcs -nologo -warn:0 -unsafe -optimize+ -out:"$BUILD/Workloads.exe" "$HERE/Workloads.cs"
cat >"$BUILD/Workloads.runtimeconfig.json" <<'EOF'
{
  "runtimeOptions": {
    "tfm": "netcoreapp3.1",
    "framework": { "name": "Microsoft.NETCore.App", "version": "3.1.0" }
  }
}
EOF
HOST10="$BUILD/net10-workloads"
if [[ " $RUNTIMES " == *" net10.0 "* ]]; then
    # The .NET 10 program's own assemblies are trimmed for it: Workloads.exe reaches what it
    # lacks by reflection (see Workloads.cs), and binds mscorlib/System/System.Core through the
    # .NET 9 package's facades, which forward to System.Private.CoreLib and friends.
    facades="$(dirname "$HOST9")"
    python3 "$HERE/rebundle.py" "$HOST10_APP" "$BUILD/Workloads.exe" "$HOST10" \
        "$facades/mscorlib.dll" "$facades/System.dll" "$facades/System.Core.dll" >/dev/null
    chmod +x "$HOST10"
fi

# ------------------------------------------------------------ workloads
RT=Microsoft-Windows-DotNETRuntime
PRIV=Microsoft-Windows-DotNETRuntimePrivate
# This VM reports a ~480 MiB L3 cache, which makes the default gen0 budget hundreds of MB
# (a run would see a handful of GCs). A 2-3 MB gen0 budget gives many GCs in little
# allocation, hence small traces. Knob names are case-sensitive; values are hex.
BUDGET="GCgen0size=0x200000 GCGen0MaxBudget=0x300000"

# Whether RUNTIME can run WORKLOAD: GCConserveMemory exists from .NET 6, DATAS from .NET 8 (opt-in
# there; `datas-tuned` sets the same knobs `datas` needs on 8, so 8 runs `datas` only).
supported() {
    case "$2" in
    conserve) [ "$1" != netcore3.1 ] ;;
    datas) [ "$1" != netcore3.1 ] ;;
    datas-tuned) [ "$1" = net9.0 ] || [ "$1" = net10.0 ] ;;
    *) true ;;
    esac
}

# WORKLOAD -> "EventPipeConfig|runtime knobs"
config() {
    case "$1" in
    wks-nonconcurrent) echo "$RT:0x1:5|gcConcurrent=0" ;;
    wks-concurrent) echo "$RT:0x1:5,$PRIV:0x1:5|gcConcurrent=1" ;;
    server) echo "$RT:0x1:5,$PRIV:0x1:5|gcServer=1 GCHeapCount=2 gcConcurrent=1" ;;
    induced) echo "$RT:0x1:4|gcConcurrent=1 EventPipeRundown=0" ;; # level 4: no AllocationTick
    loh) echo "$RT:0x1:5|gcConcurrent=1" ;;
    pinning) echo "$RT:0x3:5|gcConcurrent=1" ;; # keywords GC | GCHandle
    mempressure) echo "$RT:0x1:5|gcConcurrent=1 GCHeapHardLimit=0x4000000" ;;
    handles) echo "$RT:0x3:4|gcConcurrent=1" ;; # GC + GCHandle, Informational (no AllocationTick)
    conserve) echo "$RT:0x1:4|gcConcurrent=1 GCConserveMemory=7" ;;
    # Server GC with DATAS: the default for server GC from .NET 9 (GCHeapCount would turn it
    # off); .NET 8 needs GCDynamicAdaptationMode=1. Informational level: the DATAS events are
    # Informational, and no AllocationTick/GCJoin keeps the trace small.
    datas) echo "$RT:0x1:4|gcServer=1 gcConcurrent=1${DATAS8:-}" ;;
    # DATAS asked for explicitly, with a lower throughput-cost target (3%) than the default.
    datas-tuned) echo "$RT:0x1:4|gcServer=1 gcConcurrent=1 GCDynamicAdaptationMode=1 GCDTargetTCP=0x3" ;;
    # Known allocation sites (StackSites in Workloads.cs): AllocationTick (GC, Verbose) and
    # SetGCHandle (GCHandle keyword), with the rundown that names the methods in their stacks.
    stacks) echo "$RT:0x3:5|gcConcurrent=1" ;;
    # The same sites named by the JIT's MethodLoadVerbose (keywords Loader 0x8 | Jit 0x10) alone:
    # no rundown, so only methods jitted while tracing resolve.
    stacks-jit) echo "$RT:0x1B:5|gcConcurrent=1 EventPipeRundown=0" ;;
    *) say "unknown workload $1"; return 1 ;;
    esac
}

run() { # RUNTIME WORKLOAD
    local rt="$1" w="$2" cfg providers knobs prefix dir kv
    if [ "$rt" = net8.0 ]; then DATAS8=" GCDynamicAdaptationMode=1"; else DATAS8=""; fi
    cfg="$(config "$w")"; providers="${cfg%%|*}"; knobs="${cfg#*|}"
    # The .NET 10 program's framework is not precompiled: its rundown lists ~2,800 jitted methods
    # twice, ~1 MB a trace. Its traces go without the rundown (Runtime/Start still says the mode).
    # `stacks` keeps it: its stacks resolve through the rundown's method ranges.
    if [ "$rt" = net10.0 ] && [ "$w" != induced ] && [ "$w" != stacks ]; then knobs="$knobs EventPipeRundown=0"; fi
    dir="$OUT/$rt"; mkdir -p "$dir"
    rm -f "$dir/$w".{nettrace,oracle.json,traceevent.json,stacks.json}
    # 3.1 reads COMPlus_ only; 8.0 reads DOTNET_ (and COMPlus_).
    if [ "$rt" = netcore3.1 ]; then prefix=COMPlus_; else prefix=DOTNET_; fi
    local -a env=(DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1 "${prefix}EnableEventPipe=1" "${prefix}EventPipeConfig=$providers")
    for kv in $BUDGET $knobs; do env+=("$prefix$kv"); done
    if [ "$rt" = netcore3.1 ]; then
        # 3.1 takes EventPipeOutputPath as a directory and names the file <app>.<pid>.nettrace
        # (given a file path, it crashes at the first buffer flush).
        local tmp; tmp="$(mktemp -d "$WORK/run.XXXXXX")"
        (cd "$tmp" && env "${env[@]}" "COMPlus_EventPipeOutputPath=$tmp" \
            timeout "$RUN_TIMEOUT" "$DOTNET31" "$BUILD/Workloads.exe" "$w" "$dir/$w.oracle.json")
        mv "$tmp"/Workloads.*.nettrace "$dir/$w.nettrace"
        rm -rf "$tmp"
    elif [ "$rt" = net10.0 ]; then
        (cd "$WORK" && env "${env[@]}" "DOTNET_EventPipeOutputPath=$dir/$w.nettrace" \
            timeout "$RUN_TIMEOUT" "$HOST10" "$w" "$dir/$w.oracle.json")
    else
        local host="$HOST8"
        [ "$rt" = net9.0 ] && host="$HOST9"
        (cd "$WORK" && env "${env[@]}" "DOTNET_EventPipeOutputPath=$dir/$w.nettrace" \
            DOTNET_STARTUP_HOOKS="$BUILD/Workloads.exe" GCSCOPE_WORKLOAD="$w" GCSCOPE_ORACLE="$dir/$w.oracle.json" \
            timeout "$RUN_TIMEOUT" "$host")
    fi
    [ "$(head -c 8 "$dir/$w.nettrace")" = Nettrace ] || { say "$dir/$w.nettrace: no Nettrace magic"; return 1; }
}

for rt in $RUNTIMES; do
    for w in $WORKLOADS; do
        supported "$rt" "$w" || continue
        say "$rt $w"
        run "$rt" "$w"
    done
done

# ------------------------------------------------------------ TraceEvent's reading
say "reading the traces with TraceEvent"
"$HERE/traceevent.sh" "$OUT" >/dev/null

# ------------------------------------------------------------ index + sanity check
# TraceEvent's GC list against the runtime's counts: catches lost events or a broken run
# before anything is committed. (core/tests/generated_traces.rs does the real checks.)
python3 - "$OUT" <<'PY'
import json, os, sys
out = sys.argv[1]
rows, bad = [], []
for rt in sorted(d for d in os.listdir(out) if os.path.isdir(os.path.join(out, d))):
    for f in sorted(os.listdir(os.path.join(out, rt))):
        if not f.endswith(".nettrace"):
            continue
        w = f[:-len(".nettrace")]
        base = os.path.join(out, rt, w)
        o = json.load(open(base + ".oracle.json"))
        t = json.load(open(base + ".traceevent.json"))
        c = o["collection_count"]
        skipped = set(o["no_gc_region"]["gcs_without_gcstart"])
        numbers = sorted(g["Number"] for g in t["gcs"] if g["Number"] <= c["gen0"])
        ok = numbers == [n for n in range(1, c["gen0"] + 1) if n not in skipped] and t["EventsLost"] == 0
        if not ok:
            bad.append("%s/%s" % (rt, w))
        rows.append(dict(runtime=rt, workload=w, file="%s/%s.nettrace" % (rt, w),
                         bytes=os.path.getsize(base + ".nettrace"), events=t["events_total"],
                         runtime_version=o["runtime"]["environment_version"], collection_count=c,
                         gcs_without_gcstart=sorted(skipped), traceevent_gcs=len(t["gcs"]),
                         background_gcs=sum(1 for g in t["gcs"] if g["Type"] == "BackgroundGC"),
                         events_lost=t["EventsLost"], consistent=ok))
json.dump(rows, open(os.path.join(out, "index.json"), "w"), indent=1)
print("%-10s %-17s %8s %6s %-9s %4s %3s %s" % ("runtime", "workload", "bytes", "events", "gen0/1/2", "GCs", "BGC", "check"))
for r in rows:
    c = r["collection_count"]
    print("%-10s %-17s %8d %6d %-9s %4d %3d %s" % (r["runtime"], r["workload"], r["bytes"], r["events"],
          "%d/%d/%d" % (c["gen0"], c["gen1"], c["gen2"]), r["traceevent_gcs"], r["background_gcs"],
          "ok" if r["consistent"] else "MISMATCH"))
if bad:
    sys.exit("TraceEvent's GCs do not match the runtime's counts in: " + ", ".join(bad))
PY
# The `stacks` workloads' known sites against TraceEvent's stacks (writes OUTDIR/stacks-check.json;
# it checks the stacks.json files there are).
if [[ " $WORKLOADS " == *" stacks"* ]]; then python3 "$HERE/check_stacks.py" "$OUT"; fi
say "done: $OUT"

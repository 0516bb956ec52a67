// gcscope tracegen: read .nettrace files with Microsoft's TraceEvent and write what it sees
// beside each trace:
//   * NAME.traceevent.json: event counts by "Provider/EventName" (TraceEvent's names) and by
//     provider/id/version; TraceEvent's per-GC analysis (TraceLoadedDotNetRuntime: one row per
//     TraceGC, with per-generation sizes, survival and fragmentation) and its GC totals;
//   * NAME.stacks.json: TraceLog's call stacks of every AllocationTick, GCTriggered and
//     SetGCHandle, each frame with its address, module and method as TraceLog resolves them.
//
// TraceEvent is not referenced at compile time (mcs only sees Mono's reference assemblies):
// it ships inside the self-contained .NET 8 program from npm @microsoft/sarif-multitool-linux,
// and this library runs there as a startup hook, finding TraceEvent by reflection:
//   DOTNET_STARTUP_HOOKS=TraceEventDump.dll GCSCOPE_TRACEEVENT_DIR=DIR Sarif.Multitool
// (every *.nettrace under DIR, recursively). The hook exits before the host's own Main.
using System;
using System.Collections;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq.Expressions;
using System.Reflection;
using System.Text;

public partial class StartupHook
{
    public static void Initialize()
    {
        string dir = Environment.GetEnvironmentVariable("GCSCOPE_TRACEEVENT_DIR");
        if (string.IsNullOrEmpty(dir)) return;
        int failures = 0;
        var traces = new List<string>(Directory.GetFiles(dir, "*.nettrace", SearchOption.AllDirectories));
        traces.Sort(StringComparer.Ordinal);
        foreach (string trace in traces)
        {
            string json = trace.Substring(0, trace.Length - ".nettrace".Length) + ".traceevent.json";
            try
            {
                File.WriteAllText(json, new TraceEventReading(trace).Run());
                Console.WriteLine("wrote " + json);
                if (WantStacks(trace))
                {
                    string stacks = trace.Substring(0, trace.Length - ".nettrace".Length) + ".stacks.json";
                    File.WriteAllText(stacks, new StacksReading(trace).Run());
                    Console.WriteLine("wrote " + stacks);
                }
            }
            catch (Exception e)
            {
                failures++;
                Console.Error.WriteLine(trace + ": " + (e.InnerException ?? e));
            }
        }
        Console.Out.Flush();
        Environment.Exit(failures == 0 ? 0 : 1);
    }
}

public partial class StartupHook
{
    // GCSCOPE_TRACEEVENT_STACKS: "all" (or unset) reads every trace's stacks; otherwise the
    // space-separated trace names (file names without .nettrace) whose stacks are read.
    static bool WantStacks(string trace)
    {
        string want = Environment.GetEnvironmentVariable("GCSCOPE_TRACEEVENT_STACKS");
        if (string.IsNullOrEmpty(want) || want.Trim() == "all") return true;
        string name = Path.GetFileNameWithoutExtension(trace);
        return Array.IndexOf(want.Split(new[] { ' ' }, StringSplitOptions.RemoveEmptyEntries), name) >= 0;
    }
}

public class TraceEventReading
{
    internal static Assembly te;
    readonly string path;
    // "provider\tid\tversion\tname" -> count, for events some parser knows.
    readonly SortedDictionary<string, long> known = new SortedDictionary<string, long>(StringComparer.Ordinal);
    // "provider/id" -> count, for events no parser knows.
    readonly SortedDictionary<string, long> unknown = new SortedDictionary<string, long>(StringComparer.Ordinal);
    long allEvents;
    PropertyInfo providerName, eventName, eventId, eventVersion;

    public TraceEventReading(string path) { this.path = path; }

    internal static Type T(string name)
    {
        var t = te.GetType(name);
        if (t == null) throw new TypeLoadException("TraceEvent has no " + name);
        return t;
    }

    void Bind(object anEvent)
    {
        if (providerName != null) return;
        var t = T("Microsoft.Diagnostics.Tracing.TraceEvent");
        providerName = t.GetProperty("ProviderName"); eventName = t.GetProperty("EventName");
        eventId = t.GetProperty("ID"); eventVersion = t.GetProperty("Version");
    }

    public void Known(object e)
    {
        Bind(e);
        // Zero-padded id and version so the ordinal sort is numeric.
        string k = providerName.GetValue(e, null) + "\t" + Convert.ToInt32(eventId.GetValue(e, null)).ToString("D5") + "\t" +
                   Convert.ToInt32(eventVersion.GetValue(e, null)).ToString("D3") + "\t" + eventName.GetValue(e, null);
        long n; known.TryGetValue(k, out n); known[k] = n + 1;
    }

    public void Unknown(object e)
    {
        Bind(e);
        string k = providerName.GetValue(e, null) + "/" + Convert.ToInt32(eventId.GetValue(e, null));
        long n; unknown.TryGetValue(k, out n); unknown[k] = n + 1;
    }

    public void Any(object e) { allEvents++; }

    // target.eventName += (T e) => this.method(e), for whatever delegate type the event has.
    void On(object target, string evName, string method) { On(this, target, evName, method); }

    internal static void On(object self, object target, string evName, string method)
    {
        var ev = target.GetType().GetEvent(evName);
        if (ev == null) throw new MissingMemberException(target.GetType().Name, evName);
        var arg = ev.EventHandlerType.GetMethod("Invoke").GetParameters()[0];
        var p = Expression.Parameter(arg.ParameterType, "e");
        var body = Expression.Call(Expression.Constant(self), self.GetType().GetMethod(method), Expression.Convert(p, typeof(object)));
        ev.AddEventHandler(target, Expression.Lambda(ev.EventHandlerType, body, p).Compile());
    }

    internal static object Prop(object o, string name)
    {
        var p = o.GetType().GetProperty(name);
        return p == null ? null : p.GetValue(o, null);
    }

    public string Run()
    {
        if (te == null) te = Assembly.Load("Microsoft.Diagnostics.Tracing.TraceEvent");
        var sourceType = T("Microsoft.Diagnostics.Tracing.EventPipeEventSource");
        object source = Activator.CreateInstance(sourceType, path);
        // The GC analysis must be hooked up before Process().
        var runtimeExt = T("Microsoft.Diagnostics.Tracing.Analysis.TraceLoadedDotNetRuntimeExtensions");
        runtimeExt.GetMethod("NeedLoadedDotNetRuntimes").Invoke(null, new[] { source });
        // Named parsers for the runtime's providers (public, private, rundown) and EventSources.
        On(Prop(source, "Clr"), "All", "Known");
        On(Activator.CreateInstance(T("Microsoft.Diagnostics.Tracing.Parsers.ClrPrivateTraceEventParser"), source), "All", "Known");
        On(Activator.CreateInstance(T("Microsoft.Diagnostics.Tracing.Parsers.Clr.ClrRundownTraceEventParser"), source), "All", "Known");
        On(Prop(source, "Dynamic"), "All", "Known");
        On(source, "UnhandledEvents", "Unknown");
        On(source, "AllEvents", "Any");
        sourceType.GetMethod("Process").Invoke(source, null);

        var w = new JsonOut();
        w.Open('{');
        w.Field("schema", "gcscope-traceevent/1");
        w.Field("trace", Path.GetFileName(path));
        w.Field("reader", "Microsoft.Diagnostics.Tracing.TraceEvent " + te.GetName().Version + " EventPipeEventSource + TraceLoadedDotNetRuntime");
        foreach (string p in new[] { "FileFormatVersionNumber", "PointerSize", "NumberOfProcessors", "EventsLost", "SessionStartTime", "SessionEndTime" })
        {
            object v = null;
            try { v = Prop(source, p); } catch (Exception) { }
            w.Field(p, v);
        }
        long handled = 0, unhandled = 0;
        foreach (var kv in known) handled += kv.Value;
        foreach (var kv in unknown) unhandled += kv.Value;
        w.Field("events_total", handled + unhandled);
        w.Field("events_seen_by_AllEvents", allEvents);
        // By Provider/EventName (what the brief's tests compare), then the finer split.
        var byName = new SortedDictionary<string, long>(StringComparer.Ordinal);
        foreach (var kv in known)
        {
            var f = kv.Key.Split('\t');
            string k = f[0] + "/" + f[3];
            long n; byName.TryGetValue(k, out n); byName[k] = n + kv.Value;
        }
        w.Key("counts"); w.Open('{');
        foreach (var kv in byName) w.Field(kv.Key, kv.Value);
        w.Close('}');
        w.Key("events"); w.Open('[');
        foreach (var kv in known)
        {
            var f = kv.Key.Split('\t');
            w.Item(); w.Inline(new object[] { "provider", f[0], "id", long.Parse(f[1]), "version", long.Parse(f[2]), "name", f[3], "count", kv.Value });
        }
        w.Close(']');
        w.Key("unhandled"); w.Open('{');
        foreach (var kv in unknown) w.Field(kv.Key, kv.Value);
        w.Close('}');
        WriteGcs(w, source, runtimeExt);
        w.Close('}');
        try { ((IDisposable)source).Dispose(); } catch (Exception) { }
        return w.ToString();
    }

    static readonly string[] GcScalars = {
        "Number", "Generation", "Type", "Reason", "HeapCount", "IsComplete", "StartRelativeMSec",
        "DurationMSec", "PauseDurationMSec", "SuspendDurationMSec", "PauseStartRelativeMSec", "PromotedMB",
        "HeapSizeBeforeMB", "HeapSizeAfterMB", "HeapSizePeakMB", "AllocedSinceLastGCMB", "RatioPeakAfter",
        "TotalPinnedPlugSize", "TotalUserPinnedPlugSize",
        "GetPinnedObjectSizes", "GetPinnedObjectPercentage", "IsLowEphemeral", "IsNotCompacting", "PercentTimeInGC",
        "PauseTimePercentageSinceLastGC", "AllocRateMBSec", "DurationSinceLastRestartMSec", "BGCFinalPauseMSec"
    };

    // double[] members indexed by generation (Gen0, Gen1, Gen2, LOH, POH).
    static readonly string[] GcArrays = { "GenSizeBeforeMB" };

    // Public scalar fields and properties of one of TraceEvent's per-GC objects.
    static object[] Scalars(object o)
    {
        var kv = new List<object>();
        foreach (var f in o.GetType().GetFields(BindingFlags.Public | BindingFlags.Instance))
        {
            object v = f.GetValue(o);
            if (v != null && (v.GetType().IsPrimitive || v is Enum || v is string)) { kv.Add(f.Name); kv.Add(v); }
        }
        foreach (var p in o.GetType().GetProperties(BindingFlags.Public | BindingFlags.Instance))
        {
            if (p.GetIndexParameters().Length > 0) continue;
            object v;
            try { v = p.GetValue(o, null); } catch (Exception) { continue; }
            if (v != null && (v.GetType().IsPrimitive || v is Enum || v is string)) { kv.Add(p.Name); kv.Add(v); }
        }
        return kv.ToArray();
    }

    // TraceEvent's decoding of the condemn reasons (GCCondemnedReasons.CondemnedReasonGroups,
    // indexed by CondemnedReasonGroup), one object per heap; only the non-zero groups.
    static object CondemnReasons(object gc)
    {
        object per;
        try { per = Member(gc, "PerHeapCondemnedReasons"); } catch (Exception) { return null; }
        var arr = per as Array;
        if (arr == null) return null;
        Type groups = te.GetType("Microsoft.Diagnostics.Tracing.Analysis.GC.CondemnedReasonGroup");
        var heaps = new List<object>();
        foreach (object r in arr)
        {
            var bytes = r == null ? null : Member(r, "CondemnedReasonGroups") as byte[];
            if (bytes == null) { heaps.Add(null); continue; }
            var kv = new List<object>();
            for (int i = 0; i < bytes.Length; i++)
            {
                if (bytes[i] == 0) continue;
                kv.Add(groups != null && Enum.IsDefined(groups, i) ? Enum.GetName(groups, i) : i.ToString());
                kv.Add((long)bytes[i]);
            }
            heaps.Add(kv.ToArray());
        }
        return new JsonArray(heaps.ToArray());
    }

    static object Member(object o, string name)
    {
        var t = o.GetType();
        var p = t.GetProperty(name);
        if (p != null) return p.GetValue(o, null);
        var f = t.GetField(name);
        if (f != null) return f.GetValue(o);
        var m = t.GetMethod(name, Type.EmptyTypes);
        if (m != null) return m.Invoke(o, null);
        throw new MissingMemberException(t.Name, name);
    }

    void WriteGcs(JsonOut w, object source, Type runtimeExt)
    {
        var processes = (IEnumerable)T("Microsoft.Diagnostics.Tracing.Analysis.TraceProcessesExtensions").GetMethod("Processes").Invoke(null, new[] { source });
        w.Key("gcs"); w.Open('[');
        object stats = null;
        foreach (object proc in processes)
        {
            object rt = runtimeExt.GetMethod("LoadedDotNetRuntime").Invoke(null, new[] { proc });
            if (rt == null) continue;
            object gcInfo = Prop(rt, "GC");
            foreach (object gc in (IEnumerable)Prop(gcInfo, "GCs"))
            {
                // One line per GC keeps the file diffable and small.
                var row = new List<object>();
                foreach (string name in GcScalars)
                {
                    object v;
                    try { v = Member(gc, name); } catch (Exception) { continue; }
                    row.Add(name); row.Add(v);
                }
                foreach (string name in GcArrays)
                {
                    object v;
                    try { v = Member(gc, name); } catch (Exception) { continue; }
                    var a = v as double[];
                    if (a == null) continue;
                    var items = new object[a.Length];
                    for (int i = 0; i < a.Length; i++) items[i] = a[i];
                    row.Add(name); row.Add(new JsonArray(items));
                }
                var perGen = PerGeneration(gc);
                if (perGen != null) { row.Add("per_generation"); row.Add(perGen); }
                foreach (string name in new[] { "HeapStats", "GlobalHeapHistory" })
                {
                    object v = null;
                    try { v = Member(gc, name); } catch (Exception) { }
                    if (v != null) { row.Add(name); row.Add(Scalars(v)); }
                }
                var condemned = CondemnReasons(gc);
                if (condemned != null) { row.Add("PerHeapCondemnedReasons"); row.Add(condemned); }
                w.Item(); w.Inline(row.ToArray());
            }
            try { stats = gcInfo.GetType().GetMethod("Stats").Invoke(gcInfo, null); } catch (Exception) { }
        }
        w.Close(']');
        w.Key("gc_stats");
        if (stats == null) { w.Value(null); return; }
        w.Open('{');
        foreach (var f in stats.GetType().GetFields())
        {
            object v = f.GetValue(stats);
            if (v is ValueType || v is string) w.Field(f.Name, v);
        }
        foreach (var p in stats.GetType().GetProperties())
        {
            object v; try { v = p.GetValue(stats, null); } catch (Exception) { continue; }
            if (v is ValueType || v is string) w.Field(p.Name, v);
        }
        w.Close('}');
    }

    // Every TraceGC method that takes one `Gens` argument (GenSizeAfterMB, SurvivalPercent,
    // GenFragmentationMB, ...), for each real generation: {"Gen0": {"GenSizeAfterMB": ..}, ...}.
    static object[] PerGeneration(object gc)
    {
        var methods = new List<MethodInfo>();
        Type gens = null;
        foreach (var m in gc.GetType().GetMethods(BindingFlags.Public | BindingFlags.Instance))
        {
            var ps = m.GetParameters();
            if (ps.Length == 1 && ps[0].ParameterType.IsEnum && ps[0].ParameterType.Name == "Gens" && m.ReturnType.IsPrimitive)
            {
                methods.Add(m); gens = ps[0].ParameterType;
            }
        }
        if (gens == null) return null;
        methods.Sort((a, b) => string.CompareOrdinal(a.Name, b.Name));
        var result = new List<object>();
        foreach (object g in Enum.GetValues(gens))
        {
            if (!g.ToString().StartsWith("Gen")) continue; // skips the MaxGenCount sentinel
            var values = new List<object>();
            foreach (var m in methods)
            {
                object v;
                try { v = m.Invoke(gc, new[] { g }); } catch (Exception) { continue; }
                values.Add(m.Name); values.Add(v);
            }
            result.Add(g.ToString()); result.Add(values.ToArray());
        }
        return result.ToArray();
    }
}

// TraceLog's reading of the stacks: the trace is converted to an .etlx in a temporary directory
// (TraceLog.CreateFromEventPipeDataFile), whose method and module tables come from the trace's
// method events (MethodLoadVerbose, the rundown's MethodDCStart/EndVerbose) and module loads;
// then each event's CallStack() is walked from the leaf (CodeAddress, then Caller).
public class StacksReading
{
    // The events read, by TraceEvent's ClrTraceEventParser event name -> the name written.
    static readonly string[][] Wanted = {
        new[] { "GCAllocationTick", "AllocationTick" },
        new[] { "GCTriggered", "GCTriggered" },
        new[] { "GCSetGCHandle", "SetGCHandle" },
    };
    readonly string path;
    readonly List<object> rows = new List<object>();
    readonly Dictionary<string, int> seen = new Dictionary<string, int>();
    // event name -> leaf method -> summed amount (AllocationTick) or count.
    readonly Dictionary<string, SortedDictionary<string, long>> byLeaf = new Dictionary<string, SortedDictionary<string, long>>();
    readonly Dictionary<string, SortedDictionary<string, long>> inclusive = new Dictionary<string, SortedDictionary<string, long>>();
    readonly SortedDictionary<string, long> noStack = new SortedDictionary<string, long>(StringComparer.Ordinal);
    readonly SortedDictionary<string, long> unresolvedMethodNames = new SortedDictionary<string, long>(StringComparer.Ordinal);
    readonly SortedSet<int> pids = new SortedSet<int>();
    long frames, resolvedFrames, framesWithModule;
    MethodInfo callStack;

    public StacksReading(string path) { this.path = path; }

    public const string UnresolvedKey = "?";

    public void AllocationTick(object e) { Add("AllocationTick", e); }
    public void GCTriggered(object e) { Add("GCTriggered", e); }
    public void SetGCHandle(object e) { Add("SetGCHandle", e); }

    static object P(object o, string name) { return TraceEventReading.Prop(o, name); }

    void Add(string name, object e)
    {
        int pid = Convert.ToInt32(P(e, "ProcessID"));
        pids.Add(pid);
        string key = pid + "/" + name;
        int index; seen.TryGetValue(key, out index); seen[key] = index + 1;
        object[] payload;
        long weight = 1;
        if (name == "AllocationTick")
        {
            weight = Convert.ToInt64(P(e, "AllocationAmount64"));
            payload = new object[] { "type_name", P(e, "TypeName"), "kind", P(e, "AllocationKind").ToString(), "amount", weight };
        }
        else if (name == "GCTriggered") payload = new object[] { "reason", P(e, "Reason").ToString() };
        else payload = new object[] { "kind", P(e, "Kind").ToString() };
        var fs = new List<object>();
        var methods = new HashSet<string>();
        string leaf = null;
        for (object cs = callStack.Invoke(null, new[] { e }); cs != null; cs = P(cs, "Caller"))
        {
            object ca = P(cs, "CodeAddress");
            object mf = ca == null ? null : P(ca, "ModuleFile");
            string module = mf == null ? null : (string)P(mf, "Name");
            string method = ca == null ? null : (string)P(ca, "FullMethodName");
            frames++;
            if (module != null) framesWithModule++;
            if (string.IsNullOrEmpty(method))
            {
                string raw = method == null ? "(null)" : "\"\"";
                long n; unresolvedMethodNames.TryGetValue(raw, out n); unresolvedMethodNames[raw] = n + 1;
                method = null;
            }
            else { resolvedFrames++; methods.Add(method); }
            if (fs.Count == 0) leaf = method ?? UnresolvedKey;
            ulong addr = ca == null ? 0 : Convert.ToUInt64(P(ca, "Address"));
            fs.Add(new object[] { "address", "0x" + addr.ToString("x"), "module", module, "method", method });
        }
        if (leaf == null) { long n; noStack.TryGetValue(name, out n); noStack[name] = n + weight; }
        else Bump(byLeaf, name, leaf, weight);
        foreach (string m in methods) Bump(inclusive, name, m, weight);
        rows.Add(new object[] {
            "event", name, "index", (long)index, "timestamp_ms", P(e, "TimeStampRelativeMSec"),
            "thread_id", P(e, "ThreadID"), "payload", payload, "frames", new JsonArray(fs.ToArray()) });
    }

    static void Bump(Dictionary<string, SortedDictionary<string, long>> d, string name, string key, long by)
    {
        SortedDictionary<string, long> m;
        if (!d.TryGetValue(name, out m)) d[name] = m = new SortedDictionary<string, long>(StringComparer.Ordinal);
        long n; m.TryGetValue(key, out n); m[key] = n + by;
    }

    static MethodInfo FindCallStack()
    {
        var ev = TraceEventReading.T("Microsoft.Diagnostics.Tracing.TraceEvent");
        foreach (var t in TraceEventReading.te.GetTypes())
        {
            if (!t.IsAbstract || !t.IsSealed) continue; // static classes: the extension methods
            var m = t.GetMethod("CallStack", BindingFlags.Public | BindingFlags.Static, null, new[] { ev }, null);
            if (m != null) return m;
        }
        throw new MissingMethodException("TraceLogExtensions", "CallStack");
    }

    public string Run()
    {
        if (TraceEventReading.te == null) TraceEventReading.te = Assembly.Load("Microsoft.Diagnostics.Tracing.TraceEvent");
        var te = TraceEventReading.te;
        callStack = FindCallStack();
        var logType = TraceEventReading.T("Microsoft.Diagnostics.Tracing.Etlx.TraceLog");
        string tmp = Path.Combine(Path.GetTempPath(), "gcscope-traceevent-" + Guid.NewGuid().ToString("N"));
        Directory.CreateDirectory(tmp);
        try
        {
            string etlx = Path.Combine(tmp, Path.GetFileNameWithoutExtension(path) + ".etlx");
            logType.GetMethod("CreateFromEventPipeDataFile").Invoke(null, new object[] { path, etlx, null });
            object log = Activator.CreateInstance(logType, etlx);
            try
            {
                object events = P(log, "Events");
                object source = events.GetType().GetMethod("GetSource", Type.EmptyTypes).Invoke(events, null);
                object clr = P(source, "Clr");
                foreach (var w in Wanted) TraceEventReading.On(this, clr, w[0], w[1]);
                source.GetType().GetMethod("Process", Type.EmptyTypes).Invoke(source, null);
            }
            finally { ((IDisposable)log).Dispose(); }
        }
        finally { try { Directory.Delete(tmp, true); } catch (Exception) { } }

        var w2 = new JsonOut();
        w2.Open('{');
        w2.Field("schema", "gcscope-traceevent-stacks/1");
        w2.Field("trace", Path.GetFileName(path));
        w2.Field("traceevent_version", Version(te));
        w2.Field("reader", "Microsoft.Diagnostics.Tracing.TraceEvent " + te.GetName().Version + " TraceLog.CreateFromEventPipeDataFile, TraceEvent.CallStack()");
        w2.Field("process_ids", new JsonArray(Boxed(pids)));
        w2.Key("unresolved_frame"); w2.Open('{');
        w2.Field("method", null);
        w2.Field("by_leaf_method_key", UnresolvedKey);
        w2.Key("traceevent_FullMethodName_seen"); w2.Open('{');
        foreach (var kv in unresolvedMethodNames) w2.Field(kv.Key, kv.Value);
        w2.Close('}');
        w2.Field("note", "a frame whose TraceCodeAddress.FullMethodName is empty has \"method\": null; its leaf key in by_leaf_method is \"?\"; \"module\" is TraceCodeAddress.ModuleFile.Name, null where TraceLog knows no module for the address");
        w2.Close('}');
        w2.Field("frames_total", frames);
        w2.Field("frames_resolved", resolvedFrames);
        w2.Field("frames_with_module", framesWithModule);
        w2.Key("events"); w2.Open('[');
        foreach (object[] r in rows) { w2.Item(); w2.Inline(r); }
        w2.Close(']');
        WriteMaps(w2, "by_leaf_method", byLeaf);
        WriteMaps(w2, "by_inclusive_method", inclusive);
        w2.Key("no_stack"); w2.Open('{');
        foreach (var kv in noStack) w2.Field(kv.Key, kv.Value);
        w2.Close('}');
        w2.Close('}');
        return w2.ToString();
    }

    static object[] Boxed(IEnumerable<int> xs) { var l = new List<object>(); foreach (int x in xs) l.Add((long)x); return l.ToArray(); }

    // "3.1.3": the package version (AssemblyInformationalVersion, its build metadata cut).
    static string Version(Assembly a)
    {
        foreach (var attr in a.GetCustomAttributes(typeof(AssemblyInformationalVersionAttribute), false))
        {
            string v = ((AssemblyInformationalVersionAttribute)attr).InformationalVersion;
            int plus = v.IndexOf('+');
            return plus < 0 ? v : v.Substring(0, plus);
        }
        return a.GetName().Version.ToString();
    }

    void WriteMaps(JsonOut w, string key, Dictionary<string, SortedDictionary<string, long>> maps)
    {
        w.Key(key); w.Open('{');
        foreach (var pair in Wanted)
        {
            w.Key(pair[1]); w.Open('{');
            SortedDictionary<string, long> m;
            if (maps.TryGetValue(pair[1], out m)) foreach (var kv in m) w.Field(kv.Key, kv.Value);
            w.Close('}');
        }
        w.Close('}');
    }
}

// A JSON array inside an inline object (plain object[] means key/value pairs there).
public class JsonArray
{
    public readonly object[] Items;
    public JsonArray(object[] items) { Items = items; }
}

// Streaming JSON writer: one field per line, arrays of objects one element per line.
public class JsonOut
{
    readonly StringBuilder sb = new StringBuilder();
    readonly Stack<bool> first = new Stack<bool>();
    int depth;

    void Sep()
    {
        if (first.Count == 0) return;
        sb.Append(first.Pop() ? "\n" : ",\n").Append(' ', 2 * depth);
        first.Push(false);
    }
    public void Open(char c) { sb.Append(c); first.Push(true); depth++; }
    public void Close(char c)
    {
        depth--;
        if (!first.Pop()) sb.Append('\n').Append(' ', 2 * depth);
        sb.Append(c);
    }
    public void Key(string k) { Sep(); Str(k); sb.Append(": "); }
    public void Item() { Sep(); }
    public void Field(string k, object v) { Key(k); Value(v); }
    public void Inline(object[] kvs)
    {
        sb.Append('{');
        for (int i = 0; i < kvs.Length; i += 2)
        {
            if (i > 0) sb.Append(", ");
            Str((string)kvs[i]); sb.Append(": "); Value(kvs[i + 1]);
        }
        sb.Append('}');
    }
    public void Value(object v)
    {
        if (v == null) sb.Append("null");
        else if (v is object[]) Inline((object[])v);
        else if (v is JsonArray)
        {
            sb.Append('[');
            var items = ((JsonArray)v).Items;
            for (int i = 0; i < items.Length; i++) { if (i > 0) sb.Append(", "); Value(items[i]); }
            sb.Append(']');
        }
        else if (v is bool) sb.Append((bool)v ? "true" : "false");
        else if (v is double || v is float)
        {
            double d = Convert.ToDouble(v);
            sb.Append(double.IsNaN(d) || double.IsInfinity(d) ? "null" : d.ToString("R", CultureInfo.InvariantCulture));
        }
        else if (v is Enum || v is string) Str(v.ToString());
        else if (v is DateTime) Str(((DateTime)v).ToString("o", CultureInfo.InvariantCulture));
        else if (v.GetType().IsPrimitive) sb.Append(Convert.ToString(v, CultureInfo.InvariantCulture));
        else Str(v.ToString());
    }
    void Str(string s)
    {
        sb.Append('"');
        foreach (char c in s)
        {
            if (c == '"' || c == '\\') sb.Append('\\').Append(c);
            else if (c < ' ') sb.Append("\\u").Append(((int)c).ToString("x4"));
            else sb.Append(c);
        }
        sb.Append('"');
    }
    public override string ToString() { return sb.ToString() + "\n"; }
}

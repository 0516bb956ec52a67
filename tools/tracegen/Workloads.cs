// gcscope tracegen: GC workloads that run under EventPipe on a real CoreCLR and write an
// "oracle" JSON with what the runtime itself reports when the workload is done
// (GC.CollectionCount, handle and memory-pressure bookkeeping, GC settings).
//
// Built by Debian's Mono compiler (`mcs`, Mono 4.x reference assemblies) and run on:
//   * .NET Core 3.1  `dotnet Workloads.exe WORKLOAD ORACLE.json` (runtimeconfig.json beside it);
//   * .NET 8         as DOTNET_STARTUP_HOOKS of a self-contained .NET 8 program, with
//                    GCSCOPE_WORKLOAD / GCSCOPE_ORACLE in the environment; the hook exits
//                    the process before that program's own Main starts.
//   * .NET 9         the same way, in a self-contained .NET 9 program;
//   * .NET 10        as the main assembly of a trimmed single-file .NET 10 program re-bundled
//                    around it (tools/tracegen/rebundle.py): `host WORKLOAD ORACLE.json`.
// APIs missing from Mono's surface (GC.GetGCMemoryInfo, GC.AllocateArray, ...) or trimmed away in
// the .NET 10 program (GCSettings, most GC.Collect overloads, TryStartNoGCRegion,
// File.WriteAllText, ...) are called through `Rt` by reflection and reported as null when the
// runtime lacks them. A direct call to a member that is missing fails the whole calling method
// when it is compiled, so code here calls directly only what every runtime has (the generator
// checks the .NET 10 build for that).
using System;
using System.Collections;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Reflection;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Text;
using System.Threading;

public class StartupHook
{
    public static void Initialize()
    {
        string workload = Environment.GetEnvironmentVariable("GCSCOPE_WORKLOAD");
        if (string.IsNullOrEmpty(workload)) return; // some other use of the host: stay out of the way
        int rc = Driver.Run(workload, Environment.GetEnvironmentVariable("GCSCOPE_ORACLE"), "startup-hook");
        Console.Out.Flush();
        Environment.Exit(rc);
    }
}

public static class Driver
{
    public static int Main(string[] args)
    {
        if (args.Length != 2)
        {
            Console.Error.WriteLine("usage: Workloads.exe WORKLOAD ORACLE.json   (workloads: " + string.Join(" ", Workloads.Names) + ")");
            return 2;
        }
        return Run(args[0], args[1], "main");
    }

    public static int Run(string workload, string oraclePath, string entry)
    {
        var o = Oracle.Root;
        o["schema"] = "gcscope-tracegen-oracle/1";
        o["workload"] = workload;
        o["entry"] = entry;
        o["runtime"] = Probe.Runtime();
        o["gc_settings_at_start"] = Probe.Settings();
        o["collection_count_at_start"] = Probe.Counts();
        var clock = Workloads.Clock;
        if (!Workloads.Run(workload))
        {
            Console.Error.WriteLine("unknown workload '" + workload + "'; one of: " + string.Join(" ", Workloads.Names));
            return 2;
        }
        o["workload_ms"] = clock.Elapsed.TotalMilliseconds;
        Oracle.Finish();
        // Read last, so these cover every GC the workload caused.
        o["gc_settings_at_exit"] = Probe.Settings();
        o["gc_memory_info"] = Probe.MemoryInfo(null);
        o["gc_memory_info_by_kind"] = Probe.MemoryInfoByKind();
        o["gc_config_variables"] = Probe.ConfigVariables();
        o["total_allocated_bytes"] = Probe.CallGC("GetTotalAllocatedBytes", false);
        o["total_pause_duration_ms"] = Probe.CallGC("GetTotalPauseDuration");
        o["total_memory_bytes"] = GC.GetTotalMemory(false);
        var counts = Probe.Counts();
        o["collection_count"] = counts;
        Rt.WriteText(oraclePath, Json.Write(o));
        Console.WriteLine(string.Format(CultureInfo.InvariantCulture, "{0} on {1}: gen0/1/2 collections {2}/{3}/{4} in {5:F0} ms",
            workload, Environment.Version, counts["gen0"], counts["gen1"], counts["gen2"], clock.Elapsed.TotalMilliseconds));
        return 0;
    }
}

// ------------------------------------------------------------------ JSON
// Objects are JObj (keys keep insertion order); arrays are any IList.
public class JObj : IEnumerable
{
    readonly List<string> keys = new List<string>();
    readonly Dictionary<string, object> map = new Dictionary<string, object>();
    public object this[string k]
    {
        get { object v; return map.TryGetValue(k, out v) ? v : null; }
        set { if (!map.ContainsKey(k)) keys.Add(k); map[k] = value; }
    }
    public void Bump(string k, long by) { object v = this[k]; this[k] = (v == null ? 0L : Convert.ToInt64(v)) + by; }
    public IEnumerable<string> Keys { get { return keys; } }
    public int Count { get { return keys.Count; } }
    public IEnumerator GetEnumerator() { return keys.GetEnumerator(); }
}

public static class Json
{
    public static string Write(object v) { var sb = new StringBuilder(); Emit(sb, v, ""); return sb.Append('\n').ToString(); }

    static void Emit(StringBuilder sb, object v, string pad)
    {
        if (v == null) { sb.Append("null"); return; }
        if (v is string) { Str(sb, (string)v); return; }
        if (v is bool) { sb.Append((bool)v ? "true" : "false"); return; }
        if (v is Enum) { Str(sb, v.ToString()); return; }
        if (v is TimeSpan) v = ((TimeSpan)v).TotalMilliseconds;
        if (v is double || v is float)
        {
            double d = Convert.ToDouble(v);
            sb.Append(double.IsNaN(d) || double.IsInfinity(d) ? "null" : d.ToString("R", CultureInfo.InvariantCulture));
            return;
        }
        if (v is IConvertible && v.GetType().IsPrimitive) { sb.Append(Convert.ToString(v, CultureInfo.InvariantCulture)); return; }
        string inner = pad + "  ";
        var obj = v as JObj;
        if (obj != null)
        {
            if (obj.Count == 0) { sb.Append("{}"); return; }
            sb.Append('{');
            bool first = true;
            foreach (string k in obj.Keys)
            {
                sb.Append(first ? "\n" : ",\n").Append(inner); first = false;
                Str(sb, k); sb.Append(": "); Emit(sb, obj[k], inner);
            }
            sb.Append('\n').Append(pad).Append('}');
            return;
        }
        var list = v as IEnumerable;
        if (list != null)
        {
            bool flat = true; int n = 0;
            foreach (object x in list) { n++; if (x is JObj || (x is IEnumerable && !(x is string))) flat = false; }
            if (n == 0) { sb.Append("[]"); return; }
            sb.Append('[');
            int i = 0;
            foreach (object x in list)
            {
                if (flat) sb.Append(i == 0 ? "" : ", ");
                else sb.Append(i == 0 ? "\n" : ",\n").Append(inner);
                Emit(sb, x, inner); i++;
            }
            if (!flat) sb.Append('\n').Append(pad);
            sb.Append(']');
            return;
        }
        Str(sb, v.ToString());
    }

    static void Str(StringBuilder sb, string s)
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
}

// ------------------------------------------------------------------ what the runtime says
public static class Probe
{
    public static JObj Counts()
    {
        var c = new JObj();
        c["gen0"] = (long)GC.CollectionCount(0);
        c["gen1"] = (long)GC.CollectionCount(1);
        c["gen2"] = (long)GC.CollectionCount(2);
        return c;
    }

    public static long Gen0Count() { return GC.CollectionCount(0); }

    public static string Knob(string name)
    {
        return Environment.GetEnvironmentVariable("DOTNET_" + name) ?? Environment.GetEnvironmentVariable("COMPlus_" + name);
    }

    public static JObj Runtime()
    {
        var r = new JObj();
        r["environment_version"] = Environment.Version.ToString();
        r["framework_description"] = Rt.Static("System.Runtime.InteropServices.RuntimeInformation", "FrameworkDescription");
        r["os_description"] = RuntimeInformation.OSDescription;
        object arch = Rt.Static("System.Runtime.InteropServices.RuntimeInformation", "ProcessArchitecture");
        r["architecture"] = arch == null ? null : arch.ToString();
        r["pointer_size"] = (long)IntPtr.Size;
        r["processor_count"] = (long)Environment.ProcessorCount;
        r["process_id"] = (long)System.Diagnostics.Process.GetCurrentProcess().Id;
        var env = new JObj();
        var names = new List<string>();
        foreach (DictionaryEntry e in Environment.GetEnvironmentVariables())
        {
            string k = (string)e.Key;
            if ((k.StartsWith("DOTNET_") || k.StartsWith("COMPlus_") || k.StartsWith("GCSCOPE_")) && !k.StartsWith("DOTNET_BUNDLE"))
                names.Add(k);
        }
        names.Sort(StringComparer.Ordinal);
        foreach (string k in names) env[k] = Environment.GetEnvironmentVariable(k);
        r["environment"] = env;
        return r;
    }

    public static JObj Settings()
    {
        var s = new JObj();
        // GCSettings is trimmed away in the .NET 10 program: null there.
        object server = Rt.GCSetting("IsServerGC");
        s["is_server_gc"] = server;
        // Interactive = background GC enabled; Batch = disabled (or server without concurrent).
        object latency = Rt.GCSetting("LatencyMode");
        s["latency_mode"] = latency == null ? null : latency.ToString();
        object conc = ConfigVar("ConcurrentGC");
        s["concurrent"] = conc ?? (object)(Knob("gcConcurrent") == null || Knob("gcConcurrent").Trim() != "0");
        s["concurrent_source"] = conc != null ? "GC.GetConfigurationVariables" : "environment (default on)";
        // With DATAS the heap count changes while the program runs: this is the configured (maximum)
        // count, not the count of any one GC.
        object heaps = ConfigVar("HeapCount");
        object n = null;
        if (heaps != null) n = Convert.ToInt64(heaps);
        else if (server is bool && (bool)server)
        {
            long m = Environment.ProcessorCount;
            string k = Knob("GCHeapCount");
            if (k != null) { long want = Convert.ToInt64(k, 16); if (want > 0 && want < m) m = want; }
            n = m;
        }
        else if (server is bool) n = 1L;
        s["heap_count"] = n;
        s["heap_count_source"] = heaps != null ? "GC.GetConfigurationVariables" : server == null ? "unknown: this runtime has neither GCSettings nor GC.GetConfigurationVariables"
            : ((bool)server ? "min(GCHeapCount, processors)" : "workstation: one heap");
        s["dynamic_adaptation_mode"] = ConfigVar("GCDynamicAdaptationMode");
        s["conserve_memory"] = ConfigVar("GCConserveMem");
        object loh = Rt.GCSetting("LargeObjectHeapCompactionMode");
        s["loh_compaction_mode"] = loh == null ? null : loh.ToString();
        return s;
    }

    static Dictionary<string, object> configVars;
    static object ConfigVar(string name)
    {
        if (configVars == null) configVars = ReadConfigVars();
        object v;
        return configVars != null && configVars.TryGetValue(name, out v) ? v : null;
    }

    // GC.GetConfigurationVariables (7.0+): IReadOnlyDictionary<string, object>.
    static Dictionary<string, object> ReadConfigVars()
    {
        var m = typeof(GC).GetMethod("GetConfigurationVariables", BindingFlags.Public | BindingFlags.Static);
        if (m == null) return null;
        var d = new Dictionary<string, object>();
        foreach (object kv in (IEnumerable)m.Invoke(null, null))
            d[(string)kv.GetType().GetProperty("Key").GetValue(kv, null)] = kv.GetType().GetProperty("Value").GetValue(kv, null);
        return d;
    }

    public static object ConfigVariables()
    {
        var d = ReadConfigVars();
        if (d == null) return null;
        var keys = new List<string>(d.Keys); keys.Sort(StringComparer.Ordinal);
        var o = new JObj();
        foreach (var k in keys) o[k] = d[k];
        return o;
    }

    public static object CallGC(string name, params object[] args)
    {
        foreach (var m in typeof(GC).GetMethods(BindingFlags.Public | BindingFlags.Static))
        {
            if (m.Name != name || m.IsGenericMethodDefinition || m.GetParameters().Length != args.Length) continue;
            return m.Invoke(null, args);
        }
        return null;
    }

    // GC.GetGCMemoryInfo (3.0+, per-kind overload 5.0+): every scalar property, plus the
    // span-typed ones (PauseDurations, GenerationInfo) copied out with ToArray().
    public static object MemoryInfo(object kind)
    {
        MethodInfo get = null;
        foreach (var m in typeof(GC).GetMethods(BindingFlags.Public | BindingFlags.Static))
            if (m.Name == "GetGCMemoryInfo" && m.GetParameters().Length == (kind == null ? 0 : 1)) get = m;
        if (get == null) return null;
        object info = get.Invoke(null, kind == null ? null : new[] { kind });
        var o = new JObj();
        foreach (var p in info.GetType().GetProperties())
        {
            if (p.PropertyType.Name.StartsWith("ReadOnlySpan")) { o[p.Name] = SpanItems(info, p); continue; }
            try { o[p.Name] = p.GetValue(info, null); } catch (Exception) { }
        }
        return o;
    }

    static object SpanItems(object owner, PropertyInfo p)
    {
        // A span cannot be boxed: build `(object)((T)owner).P.ToArray()` as an expression.
        var x = System.Linq.Expressions.Expression.Parameter(typeof(object), "x");
        var call = System.Linq.Expressions.Expression.Call(
            System.Linq.Expressions.Expression.Property(System.Linq.Expressions.Expression.Convert(x, owner.GetType()), p),
            p.PropertyType.GetMethod("ToArray"));
        var f = System.Linq.Expressions.Expression.Lambda<Func<object, object>>(
            System.Linq.Expressions.Expression.Convert(call, typeof(object)), x).Compile();
        var items = new List<object>();
        foreach (object item in (Array)f(owner))
        {
            if (item is TimeSpan) { items.Add(((TimeSpan)item).TotalMilliseconds); continue; }
            var g = new JObj();
            foreach (var q in item.GetType().GetProperties()) g[q.Name] = q.GetValue(item, null);
            items.Add(g);
        }
        return items;
    }

    public static object MemoryInfoByKind()
    {
        var kinds = typeof(GC).Assembly.GetType("System.GCKind");
        if (kinds == null) return null;
        var o = new JObj();
        foreach (string k in Enum.GetNames(kinds)) o[k] = MemoryInfo(Enum.Parse(kinds, k));
        return o;
    }
}

// ------------------------------------------------------------------ runtime APIs by reflection
// What may be missing: newer than Mono's surface, or trimmed away in the .NET 10 program.
public static class Rt
{
    // GCCollectionMode values.
    public const int Default = 0, Forced = 1, Optimized = 2, Aggressive = 3;

    static Type Find(string name)
    {
        foreach (var asm in AppDomain.CurrentDomain.GetAssemblies())
        {
            var t = asm.GetType(name);
            if (t != null) return t;
        }
        return Type.GetType(name);
    }

    static PropertyInfo StaticProp(string type, string name)
    {
        var t = Find(type);
        return t == null ? null : t.GetProperty(name, BindingFlags.Public | BindingFlags.Static);
    }

    public static object Static(string type, string name)
    {
        var p = StaticProp(type, name);
        try { return p == null ? null : p.GetValue(null, null); } catch (Exception) { return null; }
    }

    // System.Runtime.GCSettings (absent from the trimmed .NET 10 program).
    public static object GCSetting(string name) { return Static("System.Runtime.GCSettings", name); }

    public static bool SetGCSetting(string name, int value)
    {
        var p = StaticProp("System.Runtime.GCSettings", name);
        if (p == null || !p.CanWrite) return false;
        p.SetValue(null, Enum.ToObject(p.PropertyType, value), null);
        return true;
    }

    // A public static GC method by name and argument count; null when the runtime lacks it.
    public static object CallGC(string name, params object[] args)
    {
        foreach (var m in typeof(GC).GetMethods(BindingFlags.Public | BindingFlags.Static))
        {
            if (m.Name != name || m.IsGenericMethodDefinition || m.GetParameters().Length != args.Length) continue;
            var ps = m.GetParameters();
            var conv = new object[args.Length];
            for (int i = 0; i < args.Length; i++)
                conv[i] = ps[i].ParameterType.IsEnum ? Enum.ToObject(ps[i].ParameterType, args[i]) : Convert.ChangeType(args[i], ps[i].ParameterType, CultureInfo.InvariantCulture);
            var r = m.Invoke(null, conv);
            return m.ReturnType == typeof(void) ? (object)true : r;
        }
        return null;
    }

    // GC.Collect(generation, mode, blocking, compacting). Returns how it was called. Where the
    // public overload was trimmed away, calls the private GC._Collect(generation, flags[, lowMemory])
    // that every overload ends in, with the flags GC.Collect computes (InternalGCCollectionMode:
    // NonBlocking 1, Blocking 2, Optimized 4, Compacting 8, Aggressive 16).
    public static string Collect(int gen, int mode, bool blocking, bool compacting)
    {
        if (CallGC("Collect", gen, mode, blocking, compacting) != null) return "GC.Collect(int,mode,bool,bool)";
        int flags = 0;
        if (mode == Optimized) flags |= 4;
        else if (mode == Aggressive) flags |= 16;
        if (compacting) flags |= 8;
        if (blocking) flags |= 2;
        else if (!compacting) flags |= 1;
        foreach (var m in typeof(GC).GetMethods(BindingFlags.NonPublic | BindingFlags.Static))
        {
            if (m.Name != "_Collect") continue;
            int n = m.GetParameters().Length;
            m.Invoke(null, n == 2 ? new object[] { gen, flags } : new object[] { gen, flags, false });
            return "GC._Collect(" + gen + ", 0x" + flags.ToString("x") + ") (GC.Collect overloads trimmed)";
        }
        throw new MissingMethodException("GC", "_Collect");
    }

    // File.WriteAllText without the overloads the trimmed program lacks.
    public static void WriteText(string path, string text)
    {
        byte[] b = Encoding.UTF8.GetBytes(text);
        using (var f = new FileStream(path, FileMode.Create, FileAccess.Write)) f.Write(b, 0, b.Length);
    }
}

// ------------------------------------------------------------------ oracle bookkeeping
public static class Oracle
{
    public static readonly JObj Root = new JObj();
    static readonly List<object> collectCalls = new List<object>();
    static readonly JObj collectByGen = new JObj();
    static readonly JObj collectByFlavour = new JObj();
    public static readonly JObj Handles = new JObj();
    public static readonly List<object> NoGcRegions = new List<object>();

    static string ModeName(int m)
    {
        switch (m) { case Rt.Default: return "Default"; case Rt.Forced: return "Forced"; case Rt.Optimized: return "Optimized"; case Rt.Aggressive: return "Aggressive"; default: return m.ToString(); }
    }

    // Every induced GC goes through here so the oracle lists it with the counts around it.
    // `mode` is a GCCollectionMode value (Rt.Default ... Rt.Aggressive). The overloads taking a
    // generation run through Rt.Collect, which calls the same runtime entry point the public
    // overloads call when they were trimmed away.
    public static void Collect(string api, int gen = 2, int mode = Rt.Default, bool blocking = true, bool compacting = false)
    {
        var before = Probe.Counts();
        string via;
        switch (api)
        {
            case "GC.Collect()": GC.Collect(); via = api; break;
            case "GC.Collect(int)":
            case "GC.Collect(int,mode)":
            case "GC.Collect(int,mode,bool)":
            case "GC.Collect(int,mode,bool,bool)": via = Rt.Collect(gen, mode, blocking, compacting); break;
            default: throw new ArgumentException("unknown api " + api);
        }
        Record(api, via, gen, mode, blocking, compacting, before);
    }

    // Lists a GC.Collect call the caller made itself (so that the caller, not this class, is the
    // frame above GC.Collect in the induced GC's stack), with the counts read before it.
    public static void Record(string api, string via, int gen, int mode, bool blocking, bool compacting, JObj before)
    {
        var call = new JObj();
        call["api"] = api;
        call["called"] = via;
        call["generation"] = (long)gen;
        call["mode"] = ModeName(mode);
        call["blocking"] = blocking;
        call["compacting"] = compacting;
        call["counts_before"] = before;
        call["counts_after"] = Probe.Counts();
        collectCalls.Add(call);
        collectByGen.Bump("gen" + gen, 1);
        collectByFlavour.Bump(ModeName(mode) + (blocking ? "" : "/nonblocking") + (compacting ? "/compacting" : ""), 1);
    }

    // GC.TryStartNoGCRegion may run a GC first; that GC is counted by CollectionCount but
    // (on 3.1 and 8.0) fires no GCStart, so the oracle lists the GC numbers it used.
    public static void NoGcRegion(long bytes, Action inside)
    {
        var rec = new JObj();
        rec["requested_bytes"] = bytes;
        long before = Probe.Gen0Count();
        rec["counts_before"] = Probe.Counts();
        object tried = Rt.CallGC("TryStartNoGCRegion", bytes);
        if (tried == null)
        {
            rec["started"] = null;
            rec["note"] = "GC.TryStartNoGCRegion is not in this runtime (trimmed)";
            NoGcRegions.Add(rec);
            rec["gc_numbers_started_by_TryStartNoGCRegion"] = new List<object>();
            return;
        }
        bool started = (bool)tried;
        long after = Probe.Gen0Count();
        rec["started"] = started;
        var numbers = new List<object>();
        for (long g = before + 1; g <= after; g++) numbers.Add(g);
        rec["gc_numbers_started_by_TryStartNoGCRegion"] = numbers;
        rec["counts_after_start"] = Probe.Counts();
        if (started)
        {
            inside();
            // GCLatencyMode.NoGCRegion = 4
            bool still = Convert.ToInt32(Rt.GCSetting("LatencyMode")) == 4;
            rec["still_in_region_at_end"] = still;
            if (still) Rt.CallGC("EndNoGCRegion");
        }
        rec["counts_after_end"] = Probe.Counts();
        NoGcRegions.Add(rec);
    }

    public static void Finish()
    {
        var induced = new JObj();
        induced["total_calls"] = (long)collectCalls.Count;
        induced["calls_by_generation"] = collectByGen;
        induced["calls_by_flavour"] = collectByFlavour;
        induced["calls"] = collectCalls;
        Root["induced"] = induced;
        var gcStarts = new List<object>();
        foreach (JObj r in NoGcRegions)
            foreach (object g in (IEnumerable)r["gc_numbers_started_by_TryStartNoGCRegion"]) gcStarts.Add(g);
        var ngc = new JObj();
        ngc["regions"] = NoGcRegions;
        ngc["gcs_without_gcstart"] = gcStarts;
        Root["no_gc_region"] = ngc;
        if (Handles.Count > 0) Root["gc_handles"] = Handles;
        Root["finalizers_run"] = (long)Finalizable.Count;
        Root["notes"] = new List<object> {
            "collection_count.gen0 counts every GC (gen1 and gen2 GCs too); it is the Count of the last GC/Start if tracing covered the whole run.",
            "collection_count.gen2 includes background GCs.",
            "GCs in no_gc_region.gcs_without_gcstart were started by GC.TryStartNoGCRegion: counted by CollectionCount, but no GC/Start event.",
            "gc_handles counts only handles this program made with GCHandle.Alloc / freed with GCHandle.Free; the runtime makes handles of its own.",
            "null means the API does not exist on this runtime.",
        };
    }
}

// A seeded generator of our own: System.Random(int) is trimmed away in the .NET 10 program.
// (xorshift64*, enough to vary sizes and slots.)
public class Rng
{
    ulong state;
    public Rng(int seed) { state = 0x9E3779B97F4A7C15UL ^ (ulong)(uint)seed; if (state == 0) state = 1; }
    public int Next(int max)
    {
        state ^= state >> 12; state ^= state << 25; state ^= state >> 27;
        return (int)(((state * 0x2545F4914F6CDD1DUL) >> 33) % (ulong)max);
    }
}

class Node
{
    public Node Next;
    public byte[] Data;
    public Node(Node next, int size) { Next = next; Data = size > 0 ? new byte[size] : null; }
}

class Finalizable
{
    public static int Count;
    readonly long[] state = new long[4];
    ~Finalizable() { if (state.Length == 4) Interlocked.Increment(ref Count); }
}

// `heap-cache` (not in Names: it waits for its stdin): a heap with known retention for
// `gcscope gcdump` (cli/tests/gcdump_cmd.rs). A static array holds Count entries, each the only
// holder of a Size-byte array; it prints `ready`, then waits for a line on stdin and exits.
public static class HeapCache
{
    public const int Count = 10000;
    public const int Size = 4096;
    public sealed class Entry
    {
        public readonly int Id;
        public readonly byte[] Data;
        public Entry(int id) { Id = id; Data = new byte[Size]; Data[0] = (byte)id; }
    }
    public static Entry[] Entries;

    public static void Hold()
    {
        Entries = new Entry[Count];
        for (int i = 0; i < Count; i++) Entries[i] = new Entry(i);
        GC.Collect();
        Console.WriteLine("ready");
        Console.Out.Flush();
        Console.In.ReadLine();
        GC.KeepAlive(Entries);
    }
}

// ------------------------------------------------------------------ workloads
public static class Workloads
{
    public static readonly string[] Names = { "wks-nonconcurrent", "wks-concurrent", "server", "induced", "loh", "pinning", "mempressure", "handles", "conserve", "datas", "datas-tuned", "stacks", "stacks-jit" };
    static object keepAlive;
    static JObj O { get { return Oracle.Root; } }
    public static readonly System.Diagnostics.Stopwatch Clock = System.Diagnostics.Stopwatch.StartNew();

    public static bool Run(string name)
    {
        switch (name)
        {
            case "live": Live(); return true;
            case "throughput": Throughput(); return true;
            case "heap-cache": HeapCache.Hold(); return true;
            case "wks-nonconcurrent": Generational(new Rng(11), 900000); return true;
            case "wks-concurrent": Background(); return true;
            case "server": Server(); return true;
            case "induced": Induced(); return true;
            case "loh": LargeObjects(); return true;
            case "pinning": Pinning(); return true;
            case "mempressure": MemoryPressure(); return true;
            case "handles": Handles(); return true;
            case "conserve": Conserve(); return true;
            case "datas":
            case "datas-tuned": Datas(); return true;
            case "stacks":
            case "stacks-jit": StackSites.Run(O); return true;
            default: return false;
        }
    }

    // `live` (not in Names: it waits for its stdin, so the generator never runs it): a process for
    // gcscope's live tests (cli/tests/live_cmds.rs) to attach to. It prints `runtime VERSION`
    // (Environment.Version) and `ready`, waits for a line
    // on stdin (the test has attached), then GCSCOPE_LIVE_GCS times allocates ~1 MB of garbage and
    // calls GC.Collect(), printing `gc COUNT UNIX_MS` after each (GC.CollectionCount(0) and the wall
    // clock as the GC ended: the truth for `watch` and its latency), sleeping GCSCOPE_LIVE_EVERY_MS
    // between. The oracle adds the counts when the line came (`collection_count_at_go`).
    static void Live()
    {
        int gcs = LiveKnob("GCSCOPE_LIVE_GCS", 30);
        int every = LiveKnob("GCSCOPE_LIVE_EVERY_MS", 100);
        // The runtime's own version, for the tests that check what gcscope says of the process.
        Console.WriteLine("runtime " + Environment.Version);
        Console.WriteLine("ready");
        Console.Out.Flush();
        Console.In.ReadLine();
        O["collection_count_at_go"] = Probe.Counts();
        var rnd = new Rng(5);
        var ring = new object[64];
        var epoch = new DateTime(1970, 1, 1, 0, 0, 0, DateTimeKind.Utc);
        for (int i = 0; i < gcs; i++)
        {
            Garbage(rnd, 1 << 20, ring);
            GC.Collect();
            double ms = (DateTime.UtcNow - epoch).TotalMilliseconds;
            Console.WriteLine(string.Format(CultureInfo.InvariantCulture, "gc {0} {1:F1}", GC.CollectionCount(0), ms));
            Console.Out.Flush();
            if (every > 0) Thread.Sleep(every);
        }
    }

    // `throughput` (not in Names: it runs until GCSCOPE_TP_SECONDS have passed): the target of the
    // live session cost benchmark (tests/bench/live-throughput.py). It does fixed units of work (64 KiB
    // of short-lived garbage, a little of it kept in a ring, as `live` makes, and GCSCOPE_TP_WORK
    // compute steps) as fast as it can, and
    // prints `tp UNIX_MS UNITS GEN0 CPU_MS` at the end of each second: the units done in that second,
    // the gen0 count and the process's CPU time (all its threads) so far. The benchmark starts and stops sessions against it and compares the seconds
    // with a session against those without, in the same process.
    static void Throughput()
    {
        int seconds = LiveKnob("GCSCOPE_TP_SECONDS", 60);
        // Compute steps per unit beside its allocation (xorshift), so that the GC rate and the
        // share of time in the allocator are a service's rather than an allocation loop's.
        int work = LiveKnob("GCSCOPE_TP_WORK", 0);
        ulong mix = 88172645463325252UL;
        Console.WriteLine("ready");
        Console.Out.Flush();
        var rnd = new Rng(7);
        var ring = new object[64];
        var epoch = new DateTime(1970, 1, 1, 0, 0, 0, DateTimeKind.Utc);
        var clock = System.Diagnostics.Stopwatch.StartNew();
        long tick = System.Diagnostics.Stopwatch.Frequency;
        long next = tick;
        long units = 0;
        for (int s = 0; s < seconds;)
        {
            Garbage(rnd, 64 << 10, ring);
            for (int w = 0; w < work; w++) { mix ^= mix << 13; mix ^= mix >> 7; mix ^= mix << 17; }
            units++;
            if (clock.ElapsedTicks >= next)
            {
                double ms = (DateTime.UtcNow - epoch).TotalMilliseconds;
                double cpu = System.Diagnostics.Process.GetCurrentProcess().TotalProcessorTime.TotalMilliseconds;
                Console.WriteLine(string.Format(CultureInfo.InvariantCulture, "tp {0:F1} {1} {2} {3:F1}", ms, units, GC.CollectionCount(0), cpu));
                Console.Out.Flush();
                units = 0;
                next += tick;
                keepAlive = mix;
                s++;
            }
        }
    }

    static int LiveKnob(string name, int fallback)
    {
        string v = Environment.GetEnvironmentVariable(name);
        int n;
        return !string.IsNullOrEmpty(v) && int.TryParse(v, NumberStyles.Integer, CultureInfo.InvariantCulture, out n) ? n : fallback;
    }

    // Short-lived garbage; every 32nd object lands in a small ring so a little survives gen0.
    static long Garbage(Rng rnd, long bytes, object[] ring)
    {
        long made = 0;
        for (int i = 0; made < bytes; i++)
        {
            var b = new byte[16 + rnd.Next(480)];
            made += b.Length + 24;
            if (ring != null && (i & 31) == 0) ring[rnd.Next(ring.Length)] = b;
            keepAlive = b;
        }
        return made;
    }

    // Three lifetimes: most objects die young, a ring lives a few GCs (gen1), and a set
    // replaced slowly reaches gen2 and dies there (so gen2 GCs have work to do).
    static void Generational(Rng rnd, int steps)
    {
        var young = new object[512];
        var middle = new object[12000];
        var old = new List<Node>();
        long bytes = 0;
        Node chain = null;
        for (int i = 0; i < steps; i++)
        {
            int size = 24 + rnd.Next(200);
            object o;
            if (i % 3 == 0) { chain = new Node(i % 40 == 0 ? null : chain, size); o = chain; }
            else o = new byte[size];
            bytes += size + 32;
            if (i % 5 == 0) young[rnd.Next(young.Length)] = o;
            if (i % 9 == 0) middle[rnd.Next(middle.Length)] = new byte[48];
            if (i % 120 == 0) old.Add(new Node(null, 700));
            if (old.Count > 5000) old.RemoveRange(0, 2000);
            keepAlive = o;
        }
        O["approx_bytes_allocated"] = bytes;
        O["old_set_at_end"] = (long)old.Count;
        GC.KeepAlive(young); GC.KeepAlive(middle); GC.KeepAlive(old);
    }

    // Background GC (gcConcurrent=1): a retained linked structure keeps outgrowing the gen2
    // budget while a churn of garbage goes on, so gen0/gen1 GCs run inside background GCs.
    static void Background()
    {
        var rnd = new Rng(12);
        var chains = new List<Node>();
        var ring = new object[2048];
        long dropped = 0;
        for (int step = 0; step < 160; step++)
        {
            Node head = null;
            for (int j = 0; j < 700; j++) head = new Node(head, 300 + rnd.Next(300));
            chains.Add(head);
            if (chains.Count > 40 && step % 2 == 0) { chains.RemoveAt(rnd.Next(chains.Count / 2)); dropped++; }
            Garbage(rnd, 768 << 10, ring);
            if (step % 40 == 0) for (int f = 0; f < 40; f++) keepAlive = new Finalizable();
        }
        O["chains_at_end"] = (long)chains.Count;
        O["chains_dropped"] = dropped;
        GC.KeepAlive(chains); GC.KeepAlive(ring);
    }

    // Server GC: one allocating thread per heap so every heap allocates.
    static void Server()
    {
        int threads = 2;
        long total = 0;
        var workers = new List<Thread>();
        for (int t = 0; t < threads; t++)
        {
            int seed = 20 + t;
            var th = new Thread(() =>
            {
                var rnd = new Rng(seed);
                var ring = new object[2048];
                var kept = new List<object>();
                long mine = 0;
                for (int i = 0; i < 550000; i++)
                {
                    object o = (i & 1) == 0 ? (object)new byte[16 + rnd.Next(400)] : new Node(null, 0);
                    mine += 200;
                    if (i % 6 == 0) ring[rnd.Next(ring.Length)] = o;
                    if (i % 400 == 0) kept.Add(new byte[1500]);
                    if (kept.Count > 2500) kept.RemoveRange(0, 800);
                    if (i % 150000 == 0) kept.Add(new byte[150000]); // an occasional LOH object
                }
                Interlocked.Add(ref total, mine);
                GC.KeepAlive(ring); GC.KeepAlive(kept);
            });
            th.Name = "gcscope-alloc-" + t;
            workers.Add(th);
        }
        foreach (var th in workers) th.Start();
        foreach (var th in workers) th.Join();
        O["allocating_threads"] = (long)threads;
        O["approx_bytes_allocated"] = total;
        Oracle.Collect("GC.Collect()");
    }

    // DATAS (Server GC with Dynamic Adaptation To Application Sizes; the knobs differ between
    // `datas` and `datas-tuned`): it starts with one heap and changes the count as the GC's cost
    // changes. A busy phase (every core allocating, a growing survived set: a high GC cost)
    // should make it add heaps; a quiet phase (one thread allocating a little, then sleeping: a
    // low cost, a small heap) should make it remove them again. The oracle records the collection
    // counts at each phase boundary.
    static void Datas()
    {
        var phases = new List<object>();
        Action<string> mark = name =>
        {
            var ph = new JObj();
            ph["phase"] = name;
            ph["counts"] = Probe.Counts();
            ph["ms"] = Clock.Elapsed.TotalMilliseconds;
            phases.Add(ph);
        };
        mark("start");
        // Busy: one allocating thread per core, each keeping a set that grows and is replaced.
        int threads = Math.Max(2, Environment.ProcessorCount);
        long total = 0;
        var workers = new List<Thread>();
        for (int t = 0; t < threads; t++)
        {
            int seed = 40 + t;
            var th = new Thread(() =>
            {
                var rnd = new Rng(seed);
                var ring = new object[4096];
                var kept = new List<object>();
                long mine = 0;
                for (int i = 0; i < 700000; i++)
                {
                    object o = (i & 1) == 0 ? (object)new byte[32 + rnd.Next(480)] : new Node(null, 64);
                    mine += 260;
                    ring[rnd.Next(ring.Length)] = o;
                    if (i % 50 == 0) kept.Add(new byte[600]);
                    if (kept.Count > 6000) kept.RemoveRange(0, 3000);
                }
                Interlocked.Add(ref total, mine);
                GC.KeepAlive(ring); GC.KeepAlive(kept);
            });
            th.Name = "gcscope-datas-" + t;
            workers.Add(th);
        }
        foreach (var th in workers) th.Start();
        foreach (var th in workers) th.Join();
        mark("busy-end");
        // Quiet: a little allocation now and then, with most of the time asleep.
        var rnd2 = new Rng(50);
        var ring2 = new object[256];
        for (int step = 0; step < 60; step++)
        {
            Garbage(rnd2, 2 << 20, ring2);
            Thread.Sleep(15);
        }
        mark("quiet-end");
        O["phases"] = phases;
        O["allocating_threads"] = (long)threads;
        O["approx_bytes_allocated"] = total;
        GC.KeepAlive(ring2);
    }

    // GCConserveMemory: a gen2 left fragmented (every other retained object dropped) so that gen2
    // GCs have free space to compact away.
    static void Conserve()
    {
        var rnd = new Rng(60);
        var ring = new object[1024];
        var kept = new List<object>();
        for (int round = 0; round < 8; round++)
        {
            for (int i = 0; i < 20000; i++) kept.Add(new byte[200 + rnd.Next(1800)]);
            for (int i = kept.Count - 1; i >= 0; i -= 2) kept.RemoveAt(i);
            for (int i = 0; i < 30; i++) kept.Add(new byte[90000 + rnd.Next(50000)]);
            Garbage(rnd, 4 << 20, ring);
            Oracle.Collect("GC.Collect(int,mode)", 2, Rt.Optimized);
        }
        O["retained_objects_at_end"] = (long)kept.Count;
        GC.KeepAlive(kept); GC.KeepAlive(ring);
    }

    // Every kind of GC handle a program can make: GCHandle.Alloc's four types (Weak = WeakShort,
    // WeakTrackResurrection = WeakLong, Normal = Strong, Pinned), WeakReference (short and long),
    // and dependent handles (ConditionalWeakTable entries, System.Runtime.DependentHandle on 6+).
    static void Handles()
    {
        var rnd = new Rng(70);
        var ring = new object[512];
        var counts = new JObj();
        var ids = new List<object>();
        var frees = new List<object>();
        var live = new List<GCHandle>();
        var kinds = new[] { GCHandleType.Weak, GCHandleType.WeakTrackResurrection, GCHandleType.Normal, GCHandleType.Pinned };
        var weakRefs = new List<object>();
        var table = new ConditionalWeakTable<object, object>();
        var tableKeys = new List<object>();
        var dependent = new List<object>();
        Type depType = Type.GetType("System.Runtime.DependentHandle");
        foreach (var k in kinds) counts[k.ToString()] = 0L;
        counts["WeakReference"] = 0L; counts["WeakReference(trackResurrection)"] = 0L;
        counts["ConditionalWeakTable"] = 0L; counts["DependentHandle"] = depType == null ? null : (object)0L;
        for (int round = 0; round < 6; round++)
        {
            foreach (var k in kinds)
                for (int i = 0; i < 12; i++)
                {
                    var h = GCHandle.Alloc(k == GCHandleType.Pinned ? (object)new byte[64] : new Node(null, 16), k);
                    live.Add(h);
                    counts.Bump(k.ToString(), 1);
                    ids.Add(k + " " + HandleId(h));
                }
            for (int i = 0; i < 10; i++)
            {
                weakRefs.Add(new WeakReference(new Node(null, 8)));
                weakRefs.Add(new WeakReference(new Node(null, 8), true));
                counts.Bump("WeakReference", 1); counts.Bump("WeakReference(trackResurrection)", 1);
                var key = new Node(null, 8);
                tableKeys.Add(key);
                table.Add(key, new byte[32]);
                counts.Bump("ConditionalWeakTable", 1);
                if (depType != null)
                {
                    dependent.Add(Activator.CreateInstance(depType, new object[] { key, new byte[16] }));
                    counts.Bump("DependentHandle", 1);
                }
            }
            Garbage(rnd, 3 << 20, ring);
            for (int i = live.Count - 1; i >= 0; i -= 3) { frees.Add(HandleId(live[i])); live[i].Free(); live.RemoveAt(i); }
        }
        Oracle.Collect("GC.Collect()");
        foreach (var h in live) { frees.Add(HandleId(h)); h.Free(); }
        foreach (object d in dependent) ((IDisposable)d).Dispose();
        var h2 = Oracle.Handles;
        long ta = 0;
        foreach (var k in kinds) { h2[k + "_allocated"] = counts[k.ToString()]; ta += (long)counts[k.ToString()]; }
        h2["Pinned_allocated"] = counts["Pinned"];
        h2["total_allocated"] = ta;
        h2["total_freed"] = (long)frees.Count;
        h2["other_handles"] = counts;
        h2["kinds_in_events"] = "GCHandleKind 0 WeakShort (GCHandleType.Weak, WeakReference), 1 WeakLong (WeakTrackResurrection, WeakReference(o, true)), 2 Strong (Normal), 3 Pinned, 6 Dependent (ConditionalWeakTable, DependentHandle)";
        h2["allocations"] = ids;
        h2["frees"] = frees;
        GC.KeepAlive(weakRefs); GC.KeepAlive(tableKeys); GC.KeepAlive(table); GC.KeepAlive(ring);
    }

    // Every GC.Collect flavour, TryStartNoGCRegion, SustainedLowLatency and finalization.
    static void Induced()
    {
        var rnd = new Rng(13);
        var ring = new object[1024];
        var kept = new List<object>();
        Action work = () =>
        {
            Garbage(rnd, 1 << 20, ring);
            kept.Add(new byte[2048]);
            for (int f = 0; f < 30; f++) keepAlive = new Finalizable();
        };
        work(); Oracle.Collect("GC.Collect(int)", 0);
        work(); Oracle.Collect("GC.Collect(int)", 1);
        work(); Oracle.Collect("GC.Collect(int)", 2);
        work(); Oracle.Collect("GC.Collect()");
        foreach (var mode in new[] { Rt.Default, Rt.Forced, Rt.Optimized })
            for (int g = 0; g <= 2; g++) { work(); Oracle.Collect("GC.Collect(int,mode)", g, mode); }
        // A non-blocking gen2 request runs as a blocking GC while gen2 is small: grow it first.
        var bulk = new List<Node>();
        for (int i = 0; i < 300000; i++) bulk.Add(new Node(null, 100));
        kept.Add(bulk);
        O["retained_nodes_before_nonblocking_calls"] = (long)bulk.Count;
        work(); Oracle.Collect("GC.Collect(int,mode,bool)", 2, Rt.Forced, false);
        Thread.Sleep(150);
        work(); Oracle.Collect("GC.Collect(int,mode,bool)", 2, Rt.Optimized, false);
        Thread.Sleep(150);
        work(); Oracle.Collect("GC.Collect(int,mode,bool)", 1, Rt.Forced, false);
        work(); Oracle.Collect("GC.Collect(int,mode,bool)", 2, Rt.Default, true);
        work(); Oracle.Collect("GC.Collect(int,mode,bool,bool)", 2, Rt.Forced, true, true);
        work(); Oracle.Collect("GC.Collect(int,mode,bool,bool)", 2, Rt.Forced, false, false);
        Thread.Sleep(150);
        // Large object heap compaction, requested for the next blocking gen2.
        for (int i = 0; i < 16; i++) kept.Add(new byte[90000 + 4000 * i]);
        kept.RemoveRange(kept.Count - 16, 8);
        bool lohCompact = Rt.SetGCSetting("LargeObjectHeapCompactionMode", 2); // CompactOnce
        work(); Oracle.Collect("GC.Collect()");
        O["loh_compact_once_requested"] = lohCompact;
        object lohAfter = Rt.GCSetting("LargeObjectHeapCompactionMode");
        O["loh_compaction_mode_after"] = lohAfter == null ? null : lohAfter.ToString();
        if (Environment.Version.Major >= 7) { work(); Oracle.Collect("GC.Collect(int,mode,bool,bool)", 2, Rt.Aggressive, true, true); }
        GC.WaitForPendingFinalizers();
        Oracle.NoGcRegion(12L << 20, () => Garbage(rnd, 3 << 20, null));
        object previous = Rt.GCSetting("LatencyMode");
        Rt.SetGCSetting("LatencyMode", 3); // SustainedLowLatency
        object low = Rt.GCSetting("LatencyMode");
        O["latency_mode_in_low_latency_phase"] = low == null ? null : low.ToString();
        work(); work(); work();
        if (previous != null) Rt.SetGCSetting("LatencyMode", Convert.ToInt32(previous));
        work(); Oracle.Collect("GC.Collect(int)", 0);
        GC.WaitForPendingFinalizers();
        GC.KeepAlive(kept); GC.KeepAlive(ring);
    }

    // Large object heap: byte[], double[] and string over 85,000 bytes, some kept a while.
    static void LargeObjects()
    {
        var rnd = new Rng(14);
        var kept = new List<object>();
        var ring = new object[512];
        long count = 0, bytes = 0;
        for (int i = 0; i < 700; i++)
        {
            object big;
            switch (i % 3)
            {
                case 0: { int n = 85000 + rnd.Next(300000); big = new byte[n]; bytes += n; break; }
                case 1: { int n = 11000 + rnd.Next(30000); big = new double[n]; bytes += 8L * n; break; }
                default: { int n = 43000 + rnd.Next(60000); big = new string('g', n); bytes += 2L * n; break; }
            }
            count++;
            if (rnd.Next(3) == 0) kept.Add(big);
            if (kept.Count > 50) kept.RemoveAt(rnd.Next(kept.Count));
            Garbage(rnd, 16 << 10, ring);
            keepAlive = big;
        }
        O["loh_allocations"] = count;
        O["loh_bytes_requested"] = bytes;
        kept.RemoveRange(0, kept.Count / 2);
        bool lohCompact = Rt.SetGCSetting("LargeObjectHeapCompactionMode", 2); // CompactOnce
        Oracle.Collect("GC.Collect()");
        O["loh_compact_once_requested"] = lohCompact;
        GC.KeepAlive(kept);
    }

    // GC handles of four kinds, allocated and freed; `fixed` blocks with GCs inside; on 5.0+
    // arrays on the pinned object heap (GC.AllocateArray<byte>(n, pinned: true)).
    static unsafe void Pinning()
    {
        var rnd = new Rng(15);
        var ring = new object[1024];
        var live = new Dictionary<GCHandleType, List<GCHandle>>();
        var alloc = new JObj();
        var freed = new JObj();
        foreach (var k in new[] { GCHandleType.Pinned, GCHandleType.Weak, GCHandleType.WeakTrackResurrection, GCHandleType.Normal })
        {
            live[k] = new List<GCHandle>();
            alloc[k.ToString()] = 0L; freed[k.ToString()] = 0L;
        }
        // Handle ids as the runtime reports them (SetGCHandle/DestroyGCHandle HandleID), in
        // program order, so a test can match this program's handles among the runtime's own.
        var allocLog = new List<object>();
        var freeLog = new List<object>();
        Action<GCHandleType, object> make = (kind, target) =>
        {
            var h = GCHandle.Alloc(target, kind);
            live[kind].Add(h);
            alloc.Bump(kind.ToString(), 1);
            allocLog.Add(kind + " " + HandleId(h));
        };
        Action<GCHandleType, int> free = (kind, stride) =>
        {
            var l = live[kind];
            for (int i = l.Count - 1; i >= 0; i -= stride)
            {
                freeLog.Add(HandleId(l[i]));
                l[i].Free(); l.RemoveAt(i); freed.Bump(kind.ToString(), 1);
            }
        };
        var strong = new List<object>();
        long fixedBlocks = 0, gcsInFixed = 0;
        for (int round = 0; round < 12; round++)
        {
            for (int i = 0; i < 20; i++) make(GCHandleType.Pinned, new byte[128 + rnd.Next(2048)]);
            for (int i = 0; i < 30; i++)
            {
                var target = new Node(null, 32);
                if (i % 4 == 0) strong.Add(target);
                make(GCHandleType.Weak, target);
            }
            for (int i = 0; i < 5; i++) make(GCHandleType.WeakTrackResurrection, new Finalizable());
            for (int i = 0; i < 10; i++) make(GCHandleType.Normal, new byte[96]);
            var buffer = new byte[2048];
            fixed (byte* p = buffer)
            {
                fixedBlocks++;
                long c0 = Probe.Gen0Count();
                p[1] = (byte)round;
                Garbage(rnd, 3 << 20, ring);
                if (round % 4 == 1) Oracle.Collect("GC.Collect(int)", 0);
                gcsInFixed += Probe.Gen0Count() - c0;
            }
            free(GCHandleType.Pinned, 2);
            free(GCHandleType.Normal, 3);
            Garbage(rnd, 2 << 20, ring);
            if (round % 5 == 4) Oracle.Collect("GC.Collect(int)", 1);
        }
        Oracle.Collect("GC.Collect()");
        GC.WaitForPendingFinalizers();
        Oracle.Collect("GC.Collect()");
        long weakCleared = 0;
        foreach (var h in live[GCHandleType.Weak]) if (h.Target == null) weakCleared++;
        free(GCHandleType.Weak, 1);
        free(GCHandleType.WeakTrackResurrection, 1);
        free(GCHandleType.Normal, 1);
        // Pinned object heap (5.0+).
        MethodInfo allocateArray = null;
        foreach (var m in typeof(GC).GetMethods(BindingFlags.Public | BindingFlags.Static))
            if (m.Name == "AllocateArray" && m.IsGenericMethodDefinition) allocateArray = m.MakeGenericMethod(typeof(byte));
        // The trimmed .NET 10 program kept only AllocateUninitializedArray<T>(int, bool pinned).
        if (allocateArray == null)
            foreach (var m in typeof(GC).GetMethods(BindingFlags.Public | BindingFlags.Static))
                if (m.Name == "AllocateUninitializedArray" && m.IsGenericMethodDefinition) allocateArray = m.MakeGenericMethod(typeof(byte));
        var poh = new List<object>();
        if (allocateArray != null)
        {
            for (int i = 0; i < 150; i++) poh.Add(allocateArray.Invoke(null, new object[] { 512 + 64 * i, true }));
            Oracle.Collect("GC.Collect()");
        }
        long pinnedAtEnd = live[GCHandleType.Pinned].Count;
        Oracle.Collect("GC.Collect(int)", 0);
        free(GCHandleType.Pinned, 1);
        var h2 = Oracle.Handles;
        long ta = 0, tf = 0;
        foreach (string k in alloc.Keys)
        {
            h2[k + "_allocated"] = alloc[k]; h2[k + "_freed"] = freed[k];
            ta += (long)alloc[k]; tf += (long)freed[k];
        }
        h2["total_allocated"] = ta;
        h2["total_freed"] = tf;
        h2["Pinned_live_through_last_gcs"] = pinnedAtEnd;
        h2["Weak_targets_cleared_before_free"] = weakCleared;
        h2["kinds_in_events"] = "GCHandleType Weak/WeakTrackResurrection/Normal/Pinned = GCHandleKind 0/1/2/3 in SetGCHandle";
        h2["allocations"] = allocLog;
        h2["frees"] = freeLog;
        O["fixed_blocks"] = fixedBlocks;
        O["gcs_inside_fixed_blocks"] = gcsInFixed;
        O["pinned_object_heap_arrays"] = allocateArray == null ? null : (object)(long)poh.Count;
        GC.KeepAlive(strong); GC.KeepAlive(ring); GC.KeepAlive(poh);
    }

    // The handle's address, hex: GCHandle.ToIntPtr tags pinned handles with the low bit on CoreCLR.
    internal static string HandleId(GCHandle h)
    {
        return "0x" + (GCHandle.ToIntPtr(h).ToInt64() & ~1L).ToString("x");
    }

    // GC.AddMemoryPressure / RemoveMemoryPressure, then fills towards GCHeapHardLimit.
    static void MemoryPressure()
    {
        var rnd = new Rng(16);
        var ring = new object[1024];
        var pending = new List<long>(); // Queue<T> is not forwarded from Mono's surface on 3.1
        long adds = 0, removes = 0, added = 0, removed = 0;
        for (int i = 0; i < 40; i++)
        {
            long p = (4L << 20) + rnd.Next(8 << 20);
            GC.AddMemoryPressure(p); adds++; added += p; pending.Add(p);
            Garbage(rnd, 512 << 10, ring);
            if (pending.Count > 8) { long q = pending[0]; pending.RemoveAt(0); GC.RemoveMemoryPressure(q); removes++; removed += q; }
        }
        while (pending.Count > 0) { long q = pending[0]; pending.RemoveAt(0); GC.RemoveMemoryPressure(q); removes++; removed += q; }
        var mp = new JObj();
        mp["add_calls"] = adds; mp["remove_calls"] = removes;
        mp["bytes_added"] = added; mp["bytes_removed"] = removed;
        mp["counts_after_pressure_phase"] = Probe.Counts();
        O["memory_pressure"] = mp;
        string lim = Probe.Knob("GCHeapHardLimit");
        long limit = lim == null ? 0 : Convert.ToInt64(lim, 16);
        long target = limit > 0 ? limit * 8 / 10 : 64L << 20;
        var fills = new List<object>();
        long ooms = 0;
        for (int rep = 0; rep < 2; rep++)
        {
            var held = new List<byte[]>();
            long bytes = 0;
            try
            {
                while (bytes < target)
                {
                    var b = new byte[16 * 1024 + rnd.Next(48 * 1024)];
                    held.Add(b); bytes += b.Length;
                    keepAlive = new byte[100 + rnd.Next(200)];
                }
            }
            catch (OutOfMemoryException) { ooms++; }
            var f = new JObj();
            f["retained_bytes"] = bytes;
            f["counts"] = Probe.Counts();
            fills.Add(f);
            held = null;
            Garbage(rnd, 8 << 20, ring);
        }
        O["hard_limit_bytes"] = limit;
        O["fill_target_bytes"] = target;
        O["fills"] = fills;
        O["out_of_memory_exceptions"] = ooms;
        GC.KeepAlive(ring);
    }
}

// ------------------------------------------------------------------ known allocation sites
// The `stacks` workload: each site is a distinct method the JIT may not inline, doing one thing
// whose size is known by construction, so a stack-resolving reader can be checked against it:
// which method allocated how many LOH / SOH bytes, called GC.Collect how often, pinned how many
// handles. Sites run one after another (never interleaved), so AllocationTick's running amount
// carries at most one threshold's worth of bytes across each site boundary.
public static class StackSites
{
    public const int LohHeavyCount = 48, LohHeavyBase = 150000, LohHeavyStep = 2000;
    public const int LohLightCount = 12, LohLightSize = 90000;
    public const int HelperSize = 120000, HelperCallsA = 10, HelperCallsB = 5;
    public const int SmallChurnCount = 80000, SmallChurnSize = 104;
    public const int InducedCount = 7;
    public const int PinnedCount = 64, PinnedSize = 256;
    static object keep;
    static readonly List<object> sites = new List<object>();
    static readonly List<object> handleAllocs = new List<object>();
    static readonly List<object> handleFrees = new List<object>();

    // An array's size on the heap: header and method table pointer, the length (padded to a
    // pointer), the elements, rounded up to a pointer; what the GC counts towards AllocationTick.
    public static long ArrayBytes(long elements, int elementSize)
    {
        long p = IntPtr.Size;
        long raw = 3 * p + elements * elementSize;
        return (raw + p - 1) / p * p;
    }

    static JObj Site(string name, string calledBy)
    {
        var s = new JObj();
        s["method"] = name;
        s["full_name_prefix"] = "StackSites." + name + "(";
        s["called_by"] = calledBy;
        s["loh_objects"] = 0L; s["loh_bytes"] = 0L; s["loh_requested_bytes"] = 0L;
        s["soh_objects"] = 0L; s["soh_bytes"] = 0L;
        s["induced_gcs"] = 0L; s["pinned_handles"] = 0L;
        s["first_ms"] = Workloads.Clock.Elapsed.TotalMilliseconds;
        sites.Add(s);
        return s;
    }

    static void Done(JObj s) { s["last_ms"] = Workloads.Clock.Elapsed.TotalMilliseconds; }

    static void AddArray(JObj s, string heap, int n)
    {
        s.Bump(heap + "_objects", 1);
        s.Bump(heap + "_bytes", ArrayBytes(n, 1));
        if (heap == "loh") s.Bump("loh_requested_bytes", n);
    }

    public static void Run(JObj o)
    {
        LohHeavy(Site("LohHeavy", "StackSites.Run"));
        LohLight(Site("LohLight", "StackSites.Run"));
        var helper = Site("LohHelper", "StackSites.LohViaHelperA, StackSites.LohViaHelperB");
        LohViaHelperA(helper);
        LohViaHelperB(helper);
        Done(helper);
        SmallChurn(Site("SmallChurn", "StackSites.Run"));
        CallsCollect(Site("CallsCollect", "StackSites.Run"));
        PinsHandles(Site("PinsHandles", "StackSites.Run"));
        var st = new JObj();
        st["sites"] = sites;
        st["helper_calls"] = new JObj();
        ((JObj)st["helper_calls"])["LohViaHelperA"] = (long)HelperCallsA;
        ((JObj)st["helper_calls"])["LohViaHelperB"] = (long)HelperCallsB;
        st["helper_bytes_by_caller"] = new JObj();
        ((JObj)st["helper_bytes_by_caller"])["LohViaHelperA"] = HelperCallsA * ArrayBytes(HelperSize, 1);
        ((JObj)st["helper_bytes_by_caller"])["LohViaHelperB"] = HelperCallsB * ArrayBytes(HelperSize, 1);
        st["object_bytes"] = "byte[n] counts (3 * pointer + n) rounded up to a pointer: its size on the heap";
        st["site_order"] = "the sites run one after another on the main thread, in the order listed";
        long loh = 0, soh = 0;
        foreach (JObj s in sites) { loh += (long)s["loh_bytes"]; soh += (long)s["soh_bytes"]; }
        st["loh_bytes_total"] = loh;
        st["soh_bytes_total"] = soh;
        o["stack_sites"] = st;
        var h = Oracle.Handles;
        h["Pinned_allocated"] = (long)PinnedCount;
        h["Pinned_freed"] = (long)PinnedCount;
        h["total_allocated"] = (long)PinnedCount;
        h["total_freed"] = (long)PinnedCount;
        h["kinds_in_events"] = "GCHandleType.Pinned = GCHandleKind 3 in SetGCHandle";
        h["allocations"] = handleAllocs;
        h["frees"] = handleFrees;
    }

    // Most of the LOH bytes, each array over AllocationTick's 100 KiB threshold.
    [MethodImpl(MethodImplOptions.NoInlining)]
    static void LohHeavy(JObj s)
    {
        for (int i = 0; i < LohHeavyCount; i++)
        {
            int n = LohHeavyBase + LohHeavyStep * i;
            keep = new byte[n];
            AddArray(s, "loh", n);
        }
        Done(s);
    }

    // LOH arrays under the threshold: a tick every second array, carrying the one before.
    [MethodImpl(MethodImplOptions.NoInlining)]
    static void LohLight(JObj s)
    {
        for (int i = 0; i < LohLightCount; i++)
        {
            keep = new byte[LohLightSize];
            AddArray(s, "loh", LohLightSize);
        }
        Done(s);
    }

    // One allocating method with two callers: the bottom-up view's "callers of LohHelper".
    [MethodImpl(MethodImplOptions.NoInlining)]
    static void LohHelper(JObj s)
    {
        keep = new byte[HelperSize];
        AddArray(s, "loh", HelperSize);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void LohViaHelperA(JObj s) { for (int i = 0; i < HelperCallsA; i++) LohHelper(s); }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void LohViaHelperB(JObj s) { for (int i = 0; i < HelperCallsB; i++) LohHelper(s); }

    // Small-object-heap bytes: many small arrays.
    [MethodImpl(MethodImplOptions.NoInlining)]
    static void SmallChurn(JObj s)
    {
        for (int i = 0; i < SmallChurnCount; i++) keep = new byte[SmallChurnSize];
        s["soh_objects"] = (long)SmallChurnCount;
        s["soh_bytes"] = SmallChurnCount * ArrayBytes(SmallChurnSize, 1);
        Done(s);
    }

    // GC.Collect() called here directly, so this method is the frame above GC.Collect.
    [MethodImpl(MethodImplOptions.NoInlining)]
    static void CallsCollect(JObj s)
    {
        for (int i = 0; i < InducedCount; i++)
        {
            var before = Probe.Counts();
            GC.Collect();
            Oracle.Record("GC.Collect()", "GC.Collect()", 2, Rt.Default, true, false, before);
            s.Bump("induced_gcs", 1);
        }
        Done(s);
    }

    // Pinned GCHandles made here directly (each on its own small array), then all freed.
    [MethodImpl(MethodImplOptions.NoInlining)]
    static void PinsHandles(JObj s)
    {
        var targets = new byte[PinnedCount][];
        for (int i = 0; i < PinnedCount; i++) targets[i] = new byte[PinnedSize];
        var handles = new GCHandle[PinnedCount];
        for (int i = 0; i < PinnedCount; i++)
        {
            handles[i] = GCHandle.Alloc(targets[i], GCHandleType.Pinned);
            s.Bump("pinned_handles", 1);
        }
        for (int i = 0; i < PinnedCount; i++) handleAllocs.Add("Pinned " + Workloads.HandleId(handles[i]));
        for (int i = 0; i < PinnedCount; i++) { handleFrees.Add(Workloads.HandleId(handles[i])); handles[i].Free(); }
        Done(s);
    }
}

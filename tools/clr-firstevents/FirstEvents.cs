// gcscope clr-firstevents: TraceEvent's rendering of the first event of each name in a .nettrace,
// in the format of TraceEvent's own test baselines:  Provider/EventName, COUNT, <Event .../>
// Used as an independent reference for the payload decoders in core/src/clr (see
// core/tests/first_gc_fields.rs), for event versions the published baselines do not contain.
//
// Like tools/tracegen/TraceEventDump.cs it runs as a startup hook inside the self-contained .NET 8
// program from npm @microsoft/sarif-multitool-linux, which bundles TraceEvent, and finds TraceEvent
// by reflection (mcs only sees Mono's reference assemblies):
//   DOTNET_STARTUP_HOOKS=FirstEvents.dll GCSCOPE_FIRSTEVENTS_IN=DIR GCSCOPE_FIRSTEVENTS_OUT=OUT Sarif.Multitool
// writes OUT/<path under DIR>/NAME.firstevents.txt for every *.nettrace under DIR.
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq.Expressions;
using System.Reflection;
using System.Text;

public class StartupHook
{
    public static void Initialize()
    {
        string dir = Environment.GetEnvironmentVariable("GCSCOPE_FIRSTEVENTS_IN");
        string outDir = Environment.GetEnvironmentVariable("GCSCOPE_FIRSTEVENTS_OUT");
        if (string.IsNullOrEmpty(dir) || string.IsNullOrEmpty(outDir)) return;
        dir = Path.GetFullPath(dir);
        int failures = 0;
        var traces = new List<string>(Directory.GetFiles(dir, "*.nettrace", SearchOption.AllDirectories));
        traces.Sort(StringComparer.Ordinal);
        foreach (string trace in traces)
        {
            string rel = trace.Substring(dir.Length).TrimStart('/');
            string target = Path.Combine(outDir, rel.Substring(0, rel.Length - ".nettrace".Length) + ".firstevents.txt");
            try
            {
                Directory.CreateDirectory(Path.GetDirectoryName(target));
                File.WriteAllText(target, new FirstEvents(trace).Run());
                Console.WriteLine("wrote " + target);
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

public class FirstEvents
{
    static Assembly te;
    readonly string path;
    readonly SortedDictionary<string, long> counts = new SortedDictionary<string, long>(StringComparer.Ordinal);
    readonly Dictionary<string, string> first = new Dictionary<string, string>();
    PropertyInfo providerName, eventName;

    public FirstEvents(string path) { this.path = path; }

    static Type T(string name)
    {
        var t = te.GetType(name);
        if (t == null) throw new TypeLoadException("TraceEvent has no " + name);
        return t;
    }

    public void Seen(object e)
    {
        if (providerName == null)
        {
            var t = T("Microsoft.Diagnostics.Tracing.TraceEvent");
            providerName = t.GetProperty("ProviderName");
            eventName = t.GetProperty("EventName");
        }
        string k = providerName.GetValue(e, null) + "/" + eventName.GetValue(e, null);
        long n;
        counts.TryGetValue(k, out n);
        counts[k] = n + 1;
        // The event object is reused by TraceEvent: render it now.
        if (n == 0) first[k] = e.ToString().Replace("\r", "\\r").Replace("\n", "\\n");
    }

    void On(object target, string evName)
    {
        var ev = target.GetType().GetEvent(evName);
        if (ev == null) throw new MissingMemberException(target.GetType().Name, evName);
        var arg = ev.EventHandlerType.GetMethod("Invoke").GetParameters()[0];
        var p = Expression.Parameter(arg.ParameterType, "e");
        var body = Expression.Call(Expression.Constant(this), GetType().GetMethod("Seen"), Expression.Convert(p, typeof(object)));
        ev.AddEventHandler(target, Expression.Lambda(ev.EventHandlerType, body, p).Compile());
    }

    public string Run()
    {
        if (te == null) te = Assembly.Load("Microsoft.Diagnostics.Tracing.TraceEvent");
        var sourceType = T("Microsoft.Diagnostics.Tracing.EventPipeEventSource");
        object source = Activator.CreateInstance(sourceType, path);
        On(sourceType.GetProperty("Clr").GetValue(source, null), "All");
        On(Activator.CreateInstance(T("Microsoft.Diagnostics.Tracing.Parsers.ClrPrivateTraceEventParser"), source), "All");
        On(Activator.CreateInstance(T("Microsoft.Diagnostics.Tracing.Parsers.Clr.ClrRundownTraceEventParser"), source), "All");
        sourceType.GetMethod("Process").Invoke(source, null);
        var sb = new StringBuilder();
        sb.Append("# TraceEvent ").Append(te.GetName().Version).Append(" EventPipeEventSource: first event of each name in ")
          .Append(Path.GetFileName(path)).Append('\n');
        foreach (var kv in counts) sb.Append(kv.Key).Append(", ").Append(kv.Value).Append(", ").Append(first[kv.Key]).Append('\n');
        try { ((IDisposable)source).Dispose(); } catch (Exception) { }
        return sb.ToString();
    }
}

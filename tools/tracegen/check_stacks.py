#!/usr/bin/env python3
"""The `stacks` and `stacks-jit` workloads' known truth (the oracle's `stack_sites`) against
TraceEvent's reading of the same trace's call stacks (`WORKLOAD.stacks.json`, TraceLog's CallStack()).

    usage: tools/tracegen/check_stacks.py OUTDIR    (the output dir of generate.sh)

Checks every OUTDIR/RUNTIME/{stacks,stacks-jit}.* and writes OUTDIR/stacks-check.json
({runtime: {workload: results}}); exits non-zero when
an attribution falls outside its bound. The bounds (README, "What TraceEvent sees in the stacks"):
AllocationTick fires when the bytes allocated since the last tick of that kind reach
T = 100 KiB and reports them all, so the bytes a run of one site's allocations is credited with
differ from the bytes it allocated by less than T (up to T carried in from before it, less than
T carried out past its last tick). The sites run one after another, so each site's sampled
bytes s satisfy |s - a| < T (+ a per-object allowance d on the LOH, where .NET Core 3.1 counts
3 pointers more than each object's size), and the LOH share of LohHeavy, s / S over all LOH
ticks, lies in ((a - T) / (L + n*d + T), (a + n_a*d + T) / (L - T)) with L the LOH bytes of all
sites. SOH bytes are counted in allocation contexts, so SmallChurn's bound is 2T.
"""
import json
import os
import sys

TICK = 100 * 1024


def frames_have(ev, prefix):
    return any(f["method"] and f["method"].startswith(prefix) for f in ev["frames"])


def leaf_is(ev, prefix):
    return bool(ev["frames"]) and (ev["frames"][0]["method"] or "").startswith(prefix)


WORKLOADS = ("stacks", "stacks-jit")


def check(rt_dir, w):
    o = json.load(open(os.path.join(rt_dir, w + ".oracle.json")))
    st = json.load(open(os.path.join(rt_dir, w + ".stacks.json")))
    sites = {s["method"]: s for s in o["stack_sites"]["sites"]}
    prefix = {m: s["full_name_prefix"] for m, s in sites.items()}
    ptr = o["runtime"]["pointer_size"]
    per_obj = 3 * ptr
    events = st["events"]
    bad, res = [], {}

    def within(name, got, lo, hi):
        ok = lo < got < hi
        res[name] = {"got": got, "bounds": [lo, hi], "ok": ok}
        if not ok:
            bad.append("%s: %s outside (%s, %s)" % (name, got, lo, hi))

    ts = [e["timestamp_ms"] for e in events]
    if any(b < a for a, b in zip(ts, ts[1:])):
        bad.append("TraceLog's events are not in timestamp order")

    ticks = [e for e in events if e["event"] == "AllocationTick"]
    large = [e for e in ticks if e["payload"]["kind"] == "Large"]
    small = [e for e in ticks if e["payload"]["kind"] == "Small"]
    S = sum(e["payload"]["amount"] for e in large)
    L = o["stack_sites"]["loh_bytes_total"]
    n_all = sum(s["loh_objects"] for s in sites.values())
    # Each LOH site, by the leaf frame (the allocating method itself).
    for m in ("LohHeavy", "LohLight", "LohHelper"):
        a, n = sites[m]["loh_bytes"], sites[m]["loh_objects"]
        got = sum(e["payload"]["amount"] for e in large if leaf_is(e, prefix[m]))
        within("loh_bytes." + m, got, a - TICK, a + n * per_obj + TICK)
    # LohHelper's bytes by its caller (the frame below the leaf).
    one = o["stack_sites"]["helper_bytes_by_caller"]
    for caller, a in one.items():
        n = o["stack_sites"]["helper_calls"][caller]
        got = sum(e["payload"]["amount"] for e in large
                  if leaf_is(e, prefix["LohHelper"]) and len(e["frames"]) > 1
                  and (e["frames"][1]["method"] or "").startswith("StackSites.%s(" % caller))
        within("loh_helper_bytes_by_caller." + caller, got, a - TICK, a + n * per_obj + TICK)
    a, n = sites["LohHeavy"]["loh_bytes"], sites["LohHeavy"]["loh_objects"]
    share = sum(e["payload"]["amount"] for e in large if leaf_is(e, prefix["LohHeavy"])) / S if S else 0.0
    within("loh_share.LohHeavy", share, (a - TICK) / (L + n_all * per_obj + TICK), (a + n * per_obj + TICK) / (L - TICK))
    res["loh_share.LohHeavy"]["by_construction"] = a / L
    within("loh_bytes.all_ticks", S, L - TICK, L + n_all * per_obj + TICK)
    a = sites["SmallChurn"]["soh_bytes"]
    got = sum(e["payload"]["amount"] for e in small if leaf_is(e, prefix["SmallChurn"]))
    within("soh_bytes.SmallChurn", got, a - 2 * TICK, a + 2 * TICK)

    # Induced GCs: every one is CallsCollect's, and CallsCollect's are all induced.
    trig = [e for e in events if e["event"] == "GCTriggered"]
    k = sites["CallsCollect"]["induced_gcs"]
    induced = [e for e in trig if e["payload"]["reason"] == "Induced"]
    by_collect = [e for e in trig if frames_have(e, prefix["CallsCollect"])]
    res["induced"] = {"oracle": k, "GCTriggered_Induced": len(induced),
                      "with_CallsCollect_in_stack": sum(1 for e in induced if frames_have(e, prefix["CallsCollect"])),
                      "leaf_methods": sorted({e["frames"][0]["method"] or "?" for e in induced if e["frames"]})}
    if len(induced) != k or len(by_collect) != k or not all(frames_have(e, prefix["CallsCollect"]) for e in induced):
        bad.append("induced: %s" % res["induced"])
    # Every other GC was triggered inside an allocating site.
    allocating = [prefix[m] for m in ("LohHeavy", "LohLight", "LohHelper", "SmallChurn", "PinsHandles")]
    others = [e for e in trig if e["payload"]["reason"] != "Induced"]
    stray = [e["index"] for e in others if not any(frames_have(e, p) for p in allocating)]
    res["triggered_by_allocation"] = {"count": len(others), "outside_the_allocating_sites": stray,
                                      "reasons": sorted({e["payload"]["reason"] for e in others})}
    if stray:
        bad.append("GCTriggered %s: not inside an allocating site" % stray)

    # Pinned handles: what the runtime recorded for PinsHandles' GCHandle.Alloc(.., Pinned).
    pinned = [e for e in events if e["event"] == "SetGCHandle" and e["payload"]["kind"] == "Pinned"]
    n = sites["PinsHandles"]["pinned_handles"]
    attributed = sum(1 for e in pinned if frames_have(e, prefix["PinsHandles"]))
    no_stack = sum(1 for e in pinned if not e["frames"])
    cut = {}
    for e in pinned:
        if e["frames"] and not frames_have(e, prefix["PinsHandles"]):
            leaf = e["frames"][0]["method"] or "?"
            cut[leaf] = cut.get(leaf, 0) + 1
    wrong = [e["index"] for e in pinned
             if any(frames_have(e, prefix[m]) for m in sites if m not in ("PinsHandles",))
             and not frames_have(e, prefix["PinsHandles"])]
    res["pinned_handles"] = {"oracle": n, "SetGCHandle_Pinned": len(pinned), "with_PinsHandles_in_stack": attributed,
                             "without_stack": no_stack, "stack_starts_above_PinsHandles_at": cut,
                             "credited_to_another_site": wrong}
    # The runtime pins handles of its own too; a stack credited to another site is a wrong creator.
    if len(pinned) < n or attributed > n or wrong:
        bad.append("pinned handles: %s" % res["pinned_handles"])
    res["problems"] = bad
    return res


def main():
    out = sys.argv[1]
    report, bad = {}, []
    for rt in sorted(os.listdir(out)):
        for w in WORKLOADS:
            if not os.path.exists(os.path.join(out, rt, w + ".stacks.json")):
                continue
            r = check(os.path.join(out, rt), w)
            report.setdefault(rt, {})[w] = r
            bad += ["%s/%s: %s" % (rt, w, p) for p in r["problems"]]
            p = r["pinned_handles"]
            print("%-10s %-10s LohHeavy LOH share %.4f (by construction %.4f), %d/%d induced GCs under CallsCollect, "
                  "%d/%d pinned handles under PinsHandles (%d without stack) %s" % (
                      rt, w, r["loh_share.LohHeavy"]["got"], r["loh_share.LohHeavy"]["by_construction"],
                      r["induced"]["with_CallsCollect_in_stack"], r["induced"]["oracle"],
                      p["with_PinsHandles_in_stack"], p["oracle"], p["without_stack"],
                      "ok" if not r["problems"] else "MISMATCH"))
    json.dump(report, open(os.path.join(out, "stacks-check.json"), "w"), indent=1)
    if bad:
        sys.exit("the stacks workloads' attribution disagrees with their oracles:\n  " + "\n  ".join(bad))


if __name__ == "__main__":
    main()

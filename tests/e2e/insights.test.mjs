// The insights views (allocations, budgets, roots & compaction, suspensions, memory, counters)
// against references gcscope did not produce where they exist: the runtime's own numbers
// (fixtures' .oracle.json), TraceEvent's counts and per-GC heap stats (.traceevent.json) and
// TraceEvent's baseline for the shared .NET Core 3.0 trace. Where no independent reference
// exists, the shown table must equal `gcscope <subcommand> --json` on the same file (the CLI
// shares the core but not the app's worker message, binning, range filtering or rendering).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { ROOT, SHARED, serveDist, launch, openApp, figuresOnly } from './harness.mjs';
import { GCSCOPE } from '../bench/scale-lib.mjs';

let server, browser;
before(async () => {
  if (!existsSync(GCSCOPE)) {
    const r = spawnSync('cargo', ['build', '--release', '-p', 'gcscope-cli'], { cwd: ROOT, stdio: 'inherit' });
    assert.equal(r.status, 0, 'building the CLI');
  }
  server = await serveDist();
  browser = await launch();
});
after(async () => { await browser?.close(); await server?.close(); });

const FIX = (v, name) => path.join(ROOT, 'fixtures/traces', v, `${name}.nettrace`);
const te = async (file) => JSON.parse(await readFile(file.replace(/\.nettrace$/, '.traceevent.json'), 'utf8'));
const oracle = async (file) => JSON.parse(await readFile(file.replace(/\.nettrace$/, '.oracle.json'), 'utf8'));
const teCount = (ref, name) => ref.counts[`Microsoft-Windows-DotNETRuntime/${name}`] ?? 0;
const SHARED_ZIP = path.join(SHARED, 'traces/perfview/eventpipe-dotnetcore3.0-win-x64-objver4.nettrace.zip');
const noShared = !existsSync(SHARED_ZIP) && 'no ../shared here';

function cli(...args) {
  const r = spawnSync(GCSCOPE, args, { encoding: 'utf8', maxBuffer: 1 << 30 });
  assert.equal(r.status, 0, `gcscope ${args.join(' ')}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

async function baselineCount(name) {
  const text = await readFile(SHARED_ZIP.replace('.zip', '.baseline.txt'), 'utf8');
  const line = text.replace(/^\uFEFF/, '').split('\n').find((l) => l.startsWith(`${name},`));
  return Number(line.split(',')[1].trim());
}

/** Opens `file` and the tab `tab`, waiting until the whole trace is read. */
async function openTab(file, tab) {
  const { page, context, problems } = await openApp(browser, server.base);
  await page.setInputFiles('#file-input', file);
  await page.locator('#report').waitFor({ timeout: 60_000 });
  await page.click(`#tab-${tab}`);
  return { page, context, problems };
}

/** A fact's raw value (`data-value`). */
async function fact(page, id) {
  const v = await page.locator(`#${id}`).getAttribute('data-value');
  assert.ok(v !== null && v !== '', `#${id} has a value`);
  return Number(v);
}

/**
 * An insights table as objects keyed by column (`data-col`): raw numbers, text for names. A long
 * table draws only the rows in view: it is scrolled through, each row read once as it is drawn.
 */
async function rows(page, id) {
  await page.locator(`table#${id}`).waitFor();
  return page.$eval(`table#${id}`, async (t) => {
    const cols = [...t.querySelectorAll('thead th')].map((th) => th.dataset.col);
    const read = (tr) => Object.fromEntries([...tr.querySelectorAll('td')].map((td, i) => {
      const v = td.dataset.value;
      return [cols[i], v === undefined ? td.textContent : v === '' ? null : Number(v)];
    }));
    if (!t.classList.contains('virtual')) return [...t.querySelectorAll('tbody tr')].map(read);
    const n = Number(t.dataset.rows);
    const el = t.closest('.scroller');
    const out = new Array(n);
    let got = 0;
    // A view's worth at a time (less two rows of overlap), reading the rows once they are drawn.
    const rowH = t.querySelector('tbody tr[data-i]')?.getBoundingClientRect().height || 20;
    const drawn = (i) => t.querySelector(`tbody tr[data-i="${i}"]`);
    for (let top = 0; got < n && top <= el.scrollHeight; top += Math.max(rowH, el.clientHeight - 2 * rowH)) {
      el.scrollTop = top;
      const want = Math.min(n - 1, Math.floor((el.scrollTop + el.clientHeight) / rowH) - 1);
      for (let frame = 0; frame < 3 && !drawn(want); frame++) await new Promise((r) => requestAnimationFrame(r));
      for (const tr of t.querySelectorAll('tbody tr[data-i]')) {
        const i = Number(tr.dataset.i);
        if (out[i] === undefined) { out[i] = read(tr); got++; }
      }
    }
    el.scrollTop = 0;
    return out.filter((r) => r !== undefined);
  });
}

function near(a, b, what) {
  if (a === null || b === null || b === undefined) {
    assert.equal(a, b ?? null, what);
    return;
  }
  assert.ok(Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b)), `${what}: shown ${a}, reference ${b}`);
}

/** Each shown row equals the reference row on `keys` (shown column -> reference getter). */
function sameRows(shown, ref, keys, what) {
  assert.equal(shown.length, ref.length, `${what}: row count`);
  shown.forEach((row, i) => {
    for (const [col, get] of Object.entries(keys)) {
      const want = get(ref[i]);
      if (typeof want === 'string') assert.equal(row[col], want, `${what} row ${i} ${col}`);
      else near(row[col], want, `${what} row ${i} ${col}`);
    }
  });
}

/** Drags across a chart's SVG from `a` to `b` (fractions of its width): selects a time range. */
async function dragChart(page, id, a, b) {
  const box = await page.locator(`#${id} svg`).boundingBox();
  const y = box.y + box.height / 2;
  await page.mouse.move(box.x + box.width * a, y);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * (a + b) / 2, y, { steps: 4 });
  await page.mouse.move(box.x + box.width * b, y, { steps: 4 });
  await page.mouse.up();
  await page.locator('#range').waitFor();
  const u = new URL(await page.url());
  return [Number(u.searchParams.get('t0')), Number(u.searchParams.get('t1'))];
}

const GEN = { 0: 'gen0', 1: 'gen1', 2: 'gen2' };
const genName = (g) => (g === null || g === undefined ? '' : GEN[g] ?? 'other');

test('allocations (LOH workload): ticks as TraceEvent counts them, Large bytes as the program requested, types as the CLI; a dragged range gives the CLI figures for it', { skip: figuresOnly('the insights\' figures against TraceEvent, the runtime and the CLI') }, async () => {
  const file = FIX('net8.0', 'loh');
  const [ref, orc] = [await te(file), await oracle(file)];
  const { page, context, problems } = await openTab(file, 'allocs');
  // Every GCAllocationTick TraceEvent saw is a sample.
  assert.equal(await fact(page, 'alloc-ticks'), teCount(ref, 'GC/AllocationTick'));
  // The program requested 137.6 MB of LOH arrays: the sampled Large bytes estimate it within 1%.
  const large = await fact(page, 'alloc-large');
  assert.ok(Math.abs(large - orc.loh_bytes_requested) < 0.01 * orc.loh_bytes_requested, `${large} vs ${orc.loh_bytes_requested}`);
  // The view says these are samples and how the estimate is made.
  const how = await page.locator('#allocs-how').textContent();
  assert.match(how, /samples, not exact counts/);
  assert.match(how, /100 KB/);
  // Whole trace: every type, as the CLI has it.
  const all = cli('allocs', file, '--json', '--top', '1000000');
  assert.equal(await fact(page, 'alloc-bytes'), all.sampled_bytes);
  assert.equal(await fact(page, 'alloc-small'), all.by_kind.small);
  const typeKeys = {
    type_name: (t) => t.type_name, sampled_bytes: (t) => t.sampled_bytes, ticks: (t) => t.ticks, pct: (t) => t.pct,
    small_bytes: (t) => t.by_kind.small, large_bytes: (t) => t.by_kind.large, pinned_bytes: (t) => t.by_kind.pinned,
  };
  sameRows(await rows(page, 'alloc-types'), all.top_types, typeKeys, 'types');
  const byteArrays = all.top_types.find((t) => t.type_name === 'System.Byte[]');
  assert.ok(byteArrays.by_kind.large > 0, 'the workload allocates large byte arrays');
  // The rate chart draws the small and large series.
  assert.equal(await page.locator('#alloc-rate-chart path.line').count(), 2);
  // Drag a range on the rate chart: the types table is the CLI's for the bins it covers.
  await dragChart(page, 'alloc-rate-chart', 0.2, 0.7);
  const note = page.locator('#alloc-range-note');
  const [from, to] = [Number(await note.getAttribute('data-from')), Number(await note.getAttribute('data-to'))];
  assert.ok(to > from, `covered ${from}..${to}`);
  const part = cli('allocs', file, '--json', '--top', '1000000', '--from', String(from), '--to', String(to));
  assert.ok(part.tick_count > 0 && part.tick_count < all.tick_count, `${part.tick_count} of ${all.tick_count} ticks in the range`);
  assert.equal(await fact(page, 'alloc-ticks'), part.tick_count);
  assert.equal(await fact(page, 'alloc-bytes'), part.sampled_bytes);
  sameRows(await rows(page, 'alloc-types'), part.top_types, typeKeys, 'types in range');
  assert.deepEqual(problems, []);
  await context.close();
});

test('allocations (pinning workload, .NET 8): the pinned object heap arrays show as Pinned bytes of System.Byte[]', { skip: figuresOnly('the insights\' figures against TraceEvent, the runtime and the CLI') }, async () => {
  const file = FIX('net8.0', 'pinning');
  const orc = await oracle(file);
  assert.ok(orc.pinned_object_heap_arrays > 0);
  const { page, context, problems } = await openTab(file, 'allocs');
  assert.ok(await fact(page, 'alloc-pinned') > 0);
  const shown = await rows(page, 'alloc-types');
  assert.ok(shown.find((r) => r.type_name === 'System.Byte[]').pinned_bytes > 0);
  assert.deepEqual(problems, []);
  await context.close();
});

test('allocations (TraceEvent 3.0 trace, many types): ticks as the baseline counts them; a dragged range gives exactly the CLI\'s per-tick figures for the bins it covers', { skip: (noShared) || figuresOnly('the insights\' figures against TraceEvent, the runtime and the CLI') }, async () => {
  const { page, context, problems } = await openTab(SHARED_ZIP, 'allocs');
  assert.equal(await fact(page, 'alloc-ticks'), await baselineCount('Microsoft-Windows-DotNETRuntime/GC/AllocationTick'));
  // The first tick (baseline): System.Object[], Small, 104,096 bytes; the whole table as the CLI.
  const all = cli('allocs', SHARED_ZIP, '--json', '--top', '1000000');
  const typeKeys = {
    type_name: (t) => t.type_name, sampled_bytes: (t) => t.sampled_bytes, ticks: (t) => t.ticks, pct: (t) => t.pct,
    small_bytes: (t) => t.by_kind.small, large_bytes: (t) => t.by_kind.large, pinned_bytes: (t) => t.by_kind.pinned,
  };
  const shownAll = await rows(page, 'alloc-types');
  assert.ok(shownAll.length >= 10, `${shownAll.length} types`);
  sameRows(shownAll, all.top_types, typeKeys, 'types');
  assert.ok(shownAll.find((r) => r.type_name === 'System.Object[]').small_bytes >= 104096);
  await dragChart(page, 'alloc-rate-chart', 0.3, 0.6);
  const note = page.locator('#alloc-range-note');
  const [from, to] = [await note.getAttribute('data-from'), await note.getAttribute('data-to')];
  const ref = cli('allocs', SHARED_ZIP, '--json', '--top', '1000000', '--from', from, '--to', to);
  assert.ok(ref.tick_count > 0 && ref.tick_count < all.tick_count, `${ref.tick_count} of ${all.tick_count} ticks in ${from}..${to}`);
  assert.equal(await fact(page, 'alloc-ticks'), ref.tick_count);
  assert.equal(await fact(page, 'alloc-bytes'), ref.sampled_bytes);
  sameRows(await rows(page, 'alloc-types'), ref.top_types, typeKeys, 'types in range');
  assert.deepEqual(problems, []);
  await context.close();
});

test('budgets (server GC): one row per GC, one per GC and heap with the oracle heap count, exceeded counts recomputed from the CLI; a range keeps the GCs that started in it', { skip: figuresOnly('the insights\' figures against TraceEvent, the runtime and the CLI') }, async () => {
  const file = FIX('net8.0', 'server');
  const orc = await oracle(file);
  const heaps = orc.gc_settings_at_start.heap_count;
  assert.ok(heaps > 1);
  const ref = cli('budgets', file, '--json');
  const { page, context, problems } = await openTab(file, 'budgets');
  const keys = {
    gc_number: (b) => b.gc_number, gen: (b) => b.gen, start_ms: (b) => b.start_ms, reason: (b) => b.reason,
    budget_exceeded_gen: (b) => genName(b.budget_exceeded_gen), why: (b) => b.why,
    gen0_budget_bytes: (b) => b.total.gen0.budget_bytes, gen0_allocated_bytes: (b) => b.total.gen0.allocated_since_previous_bytes,
    gen0_used_pct: (b) => b.total.gen0.budget_used_pct, gen2_budget_bytes: (b) => b.total.gen2.budget_bytes,
    loh_budget_bytes: (b) => b.total.loh.budget_bytes, loh_allocated_bytes: (b) => b.total.loh.allocated_since_previous_bytes,
  };
  sameRows(await rows(page, 'budgets'), ref, keys, 'budgets');
  const perHeap = await rows(page, 'budgets-per-heap');
  assert.equal(perHeap.length, ref.reduce((n, b) => n + b.heaps.length, 0));
  for (const b of ref) assert.equal(b.heaps.length, heaps, `GC ${b.gc_number} has a row per heap`);
  const flat = ref.flatMap((b) => b.heaps.map((h) => ({ b, h })));
  sameRows(perHeap, flat, {
    gc_number: (x) => x.b.gc_number, heap: (x) => x.h.heap, budget_exceeded_gen: (x) => genName(x.h.budget_exceeded_gen),
    gen0_budget_bytes: (x) => x.h.generations.gen0.budget_bytes, gen0_allocated_bytes: (x) => x.h.generations.gen0.allocated_since_previous_bytes,
  }, 'per heap');
  // Which generation's budget was exceeded: GCs counted here from the CLI's rows.
  const exceeded = await rows(page, 'budget-exceeded');
  for (const row of exceeded) {
    const e = { gen0: 0, gen1: 1, gen2: 2, 'none reported': null }[row.exceeded];
    const sel = ref.filter((b) => (e === null ? b.budget_exceeded_gen === null || b.budget_exceeded_gen > 2 : b.budget_exceeded_gen === e));
    assert.equal(row.all, sel.length, `${row.exceeded}: all`);
    for (const g of [0, 1, 2]) assert.equal(row[`gen${g}`], sel.filter((b) => Math.min(b.gen, 2) === g).length, `${row.exceeded}: gen${g}`);
  }
  assert.equal(exceeded.reduce((n, r) => n + r.all, 0), ref.length);
  // A dragged range keeps the GCs whose pause started in it.
  const [t0, t1] = await dragChart(page, 'budget-chart', 0.3, 0.8);
  const inRange = ref.filter((b) => b.start_ms >= t0 && b.start_ms <= t1);
  assert.ok(inRange.length > 0 && inRange.length < ref.length, `${inRange.length} of ${ref.length} GCs in ${t0}..${t1}`);
  sameRows(await rows(page, 'budgets'), inRange, keys, 'budgets in range');
  assert.deepEqual(problems, []);
  await context.close();
});

test('budgets (workstation GC): no per-heap table for one heap', { skip: figuresOnly('the insights\' figures against TraceEvent, the runtime and the CLI') }, async () => {
  const { page, context, problems } = await openTab(FIX('net8.0', 'pinning'), 'budgets');
  await page.locator('table#budgets').waitFor();
  assert.equal(await page.locator('#budgets-per-heap').count(), 0);
  assert.match(await page.locator('#budgets-one-heap').textContent(), /One heap/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('roots and compaction (TraceEvent 3.0 trace): event counts and GC 1 as the baseline has them, tables as the CLI', { skip: (noShared) || figuresOnly('the insights\' figures against TraceEvent, the runtime and the CLI') }, async () => {
  const { page, context, problems } = await openTab(SHARED_ZIP, 'roots');
  // GC/MarkWithType 1912 and GC/BulkMovedObjectRanges 478 in TraceEvent's baseline.
  assert.equal(await fact(page, 'roots-events'), await baselineCount('Microsoft-Windows-DotNETRuntime/GC/MarkWithType'));
  assert.equal(await fact(page, 'compaction-moved-events'), await baselineCount('Microsoft-Windows-DotNETRuntime/GC/BulkMovedObjectRanges'));
  // The first MarkWithType (heap 0, Type 0 = stack, Promoted 104,989) is GC 1's stack figure (one heap).
  const perGc = await rows(page, 'roots-per-gc');
  assert.equal(perGc[0].gc_number, 1);
  assert.equal(perGc[0].stack, 104989);
  // GC 1's first six moved ranges sum to 2304 bytes (baseline), so it moved at least that.
  const compaction = await rows(page, 'compaction-per-gc');
  assert.equal(compaction[0].gc_number, 1);
  assert.ok(compaction[0].moved_bytes >= 2304);
  // Everything else as the CLI computes it from the same file (extracted from the zip by the CLI).
  const roots = cli('roots', SHARED_ZIP, '--json');
  assert.equal(await fact(page, 'roots-total'), roots.total_bytes);
  // The view lists the kinds that marked anything.
  sameRows(await rows(page, 'roots-by-kind'), roots.by_kind.filter((k) => k.bytes > 0), { kind: (k) => k.kind, bytes: (k) => k.bytes, pct: (k) => k.pct, gcs: (k) => k.gcs }, 'by kind');
  sameRows(perGc, roots.per_gc, { gc_number: (g) => g.gc_number, total_bytes: (g) => g.total_bytes, handles: (g) => g.marked.handles, older: (g) => g.marked.older }, 'roots per GC');
  const mem = cli('memory', SHARED_ZIP, '--json');
  sameRows(compaction, mem.compaction.per_gc, {
    gc_number: (g) => g.gc_number, moved_ranges: (g) => g.moved_ranges, moved_bytes: (g) => g.moved_bytes,
    relocated_bytes: (g) => g.relocated_bytes, surviving_bytes: (g) => g.surviving_bytes,
  }, 'compaction');
  assert.deepEqual(problems, []);
  await context.close();
});

test('roots (fixture): MarkWithType count as TraceEvent; compaction says why it is empty', { skip: figuresOnly('the insights\' figures against TraceEvent, the runtime and the CLI') }, async () => {
  const file = FIX('net8.0', 'loh');
  const ref = await te(file);
  const { page, context, problems } = await openTab(file, 'roots');
  assert.equal(await fact(page, 'roots-events'), teCount(ref, 'GC/MarkWithType'));
  assert.match(await page.locator('#compaction-empty').textContent(), /GCHeapSurvivalAndMovement/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('suspensions (TraceEvent 3.0 trace): count and the first non-GC suspension as the baseline has them; reasons and per-GC times as the CLI', { skip: (noShared) || figuresOnly('the insights\' figures against TraceEvent, the runtime and the CLI') }, async () => {
  const { page, context, problems } = await openTab(SHARED_ZIP, 'suspensions');
  assert.equal(await fact(page, 'suspensions-count'), await baselineCount('Microsoft-Windows-DotNETRuntime/GC/SuspendEEStart'));
  // First SuspendEEStart: 17.9124 ms, SuspendOther, thread 3444; its SuspendEEStop at 18.0222 and
  // RestartEEStop at 18.2565: 0.1098 ms to suspend, 0.3441 ms paused (baseline times: 0.1 us).
  const others = await rows(page, 'suspend-not-for-gc');
  const first = others[0];
  assert.equal(first.reason, 'SuspendOther');
  assert.equal(first.thread, 3444);
  assert.ok(Math.abs(first.begin_ms - 17.9124) < 1e-3);
  assert.ok(Math.abs(first.suspend_ms - 0.1098) < 1e-3);
  assert.ok(Math.abs(first.pause_ms - 0.3441) < 1e-3);
  assert.ok(others.every((r) => r.reason !== 'SuspendForGC' && r.reason !== 'SuspendForGCPrep'));
  const ref = cli('suspensions', SHARED_ZIP, '--json');
  sameRows(await rows(page, 'suspend-reasons'), ref.by_reason, {
    reason: (r) => r.reason, count: (r) => r.count, total_suspend_ms: (r) => r.total_suspend_ms, max_suspend_ms: (r) => r.max_suspend_ms,
    total_pause_ms: (r) => r.total_pause_ms,
  }, 'by reason');
  // 478 blocking GCs, one suspension each.
  const perGc = await rows(page, 'suspend-per-gc');
  assert.equal(perGc.length, await baselineCount('Microsoft-Windows-DotNETRuntime/GC/Start'));
  sameRows(perGc, ref.per_gc, {
    gc_number: (g) => g.gc_number, count: (g) => g.count, reasons: (g) => g.reasons.join(', '),
    total_suspend_ms: (g) => g.total_suspend_ms, total_pause_ms: (g) => g.total_pause_ms,
  }, 'per GC');
  assert.equal(Number((await page.locator('#suspend-not-for-gc-count').textContent()).match(/^(\d+)/)[1]), ref.not_for_gc.length);
  assert.deepEqual(problems, []);
  await context.close();
});

test('memory (pressure workload): pressure calls and bytes as the program made them; finalization and segments as TraceEvent and the CLI', { skip: figuresOnly('the insights\' figures against TraceEvent, the runtime and the CLI') }, async () => {
  const file = FIX('net8.0', 'mempressure');
  const [ref, orc] = [await te(file), await oracle(file)];
  const o = orc.memory_pressure;
  const { page, context, problems } = await openTab(file, 'memory');
  // 40 RemoveMemoryPressure calls freeing the bytes the program counted; 40 adds plus the
  // runtime's own at startup (TraceEvent counts 41 id-200 events).
  assert.equal(await fact(page, 'pressure-removes'), o.remove_calls);
  assert.equal(await fact(page, 'pressure-removed'), o.bytes_removed);
  assert.equal(await fact(page, 'pressure-adds'), o.add_calls + 1);
  assert.equal(await fact(page, 'pressure-adds'), teCount(ref, 'EventID(200)'));
  const added = await fact(page, 'pressure-added');
  assert.equal(await fact(page, 'pressure-net'), added - o.bytes_removed);
  assert.ok(await page.locator('#pressure-chart path.line').count() === 1);
  // FinalizeObject events as TraceEvent counts them.
  assert.equal(await fact(page, 'finalize-object-events'), teCount(ref, 'GC/FinalizeObject'));
  const mem = cli('memory', file, '--json');
  assert.equal(await fact(page, 'finalizers-run'), mem.finalization.finalizers_run);
  sameRows(await rows(page, 'finalization-per-gc'), mem.finalization.per_gc, {
    gc_number: (g) => g.gc_number, promoted_bytes: (g) => g.promoted_bytes, promoted_count: (g) => g.promoted_count, finalizers_run: (g) => g.finalizers_run,
  }, 'finalization per GC');
  sameRows(await rows(page, 'finalizer-runs'), mem.finalization.runs, { end_ms: (r) => r.end_ms, count: (r) => r.count, after_gc: (r) => r.after_gc }, 'runs');
  sameRows(await rows(page, 'segments'), mem.segments.segments, {
    address: (s) => s.address, size_bytes: (s) => s.size_bytes, kind: (s) => s.kind, created_ms: (s) => s.created_ms, freed_ms: (s) => s.freed_ms,
  }, 'segments');
  assert.equal(await fact(page, 'segments-created'), mem.segments.created);
  assert.deepEqual(problems, []);
  await context.close();
});

test('counters (pinning workload): one sample per GCHeapStats with TraceEvent\'s sizes and counts, induced GCs as the program\'s GC.Collect calls, definitions on hover', { skip: figuresOnly('the insights\' figures against TraceEvent, the runtime and the CLI') }, async () => {
  const file = FIX('net8.0', 'pinning');
  const [ref, orc] = [await te(file), await oracle(file)];
  const { page, context, problems } = await openTab(file, 'counters');
  const shown = await rows(page, 'counters');
  assert.equal(shown.length, teCount(ref, 'GC/HeapStats'));
  assert.equal(shown[shown.length - 1].induced_gcs, orc.induced.total_calls);
  // Each sample's sizes and counts are that GC's GCHeapStats as TraceEvent read it.
  const byNumber = new Map(ref.gcs.map((g) => [g.Number, g]));
  let compared = 0;
  for (const row of shown) {
    const hs = byNumber.get(row.gc_number)?.HeapStats;
    if (!hs) continue;
    compared++;
    assert.equal(row.gen1_heap_size_bytes, hs.GenerationSize1, `GC ${row.gc_number} gen1`);
    assert.equal(row.gen2_heap_size_bytes, hs.GenerationSize2, `GC ${row.gc_number} gen2`);
    assert.equal(row.loh_size_bytes, hs.GenerationSize3, `GC ${row.gc_number} loh`);
    assert.equal(row.gc_handles, hs.GCHandleCount, `GC ${row.gc_number} handles`);
    assert.equal(row.pinned_objects, hs.PinnedObjectCount, `GC ${row.gc_number} pinned`);
    assert.equal(row.promoted_from_gen0_bytes, hs.TotalPromotedSize0, `GC ${row.gc_number} promoted 0`);
  }
  assert.ok(compared > 10, `${compared} GCs compared`);
  // Every other figure as the CLI has it.
  const cliRows = cli('counters', file, '--json');
  const keys = Object.fromEntries(Object.keys(cliRows[0]).map((k) => [k, (c) => c[k]]));
  sameRows(shown, cliRows, keys, 'counters');
  // Definitions on hover: the header and the picker carry them; picking charts that counter.
  const th = page.locator('table#counters th[data-col="gen0_heap_size_bytes"]');
  assert.match(await th.getAttribute('title'), /budget/);
  await page.click('button[data-counter="gc_handles"]');
  assert.equal(await page.locator('#counter-title').textContent(), '# GC Handles');
  assert.match(await page.locator('#counter-definition').textContent(), /GCHandleCount/);
  assert.equal(await page.locator('#counter-chart path.line').count(), 1);
  assert.deepEqual(problems, []);
  await context.close();
});

test('every insights tab renders without errors, is reachable by keyboard, and exports its tables', async () => {
  const { page, context, problems } = await openTab(FIX('net8.0', 'wks-concurrent'), 'allocs');
  // Keys 8 and 9 switch to the first two insights tabs.
  await page.locator('body').click({ position: { x: 5, y: 5 } });
  await page.keyboard.press('9');
  assert.match(await page.url(), /tab=stacks/);
  for (const tab of ['allocs', 'budgets', 'roots', 'suspensions', 'memory', 'counters']) {
    await page.click(`#tab-${tab}`);
    await page.locator('.insights').waitFor();
    assert.match(await page.url(), new RegExp(`tab=${tab}`));
  }
  // An exported table holds the shown rows.
  await page.click('#tab-suspensions');
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#suspend-per-gc-count ~ .exports .export-json')]);
  const json = JSON.parse(await readFile(await dl.path(), 'utf8'));
  assert.equal(json.length, (await rows(page, 'suspend-per-gc')).length);
  assert.deepEqual(problems, []);
  await context.close();
});

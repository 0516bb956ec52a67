// Scale benchmark: generated traces of 100 MB / 1 GB / 2 GB opened in the built app in each browser
// engine (Chromium, Firefox ESR, WebKitGTK: the end-to-end tests' engines), file input, next to the
// native CLI, the native decoder and `cat` on the same file.
//
//   node tests/bench/browser-bench.mjs [--sizes 100,1024,2048] [--engines chromium,firefox,webkit]
//                                      [--dist DIR] [--runs N] [--json OUT] [--no-build] [--no-native]
//                                      [--no-browser] [--app-only] [--worker-prelude JS] [--then-tabs budgets,allocs]
//                                      [--heaps N] [--alloc-stacks] [--etl] [--workers 1,2] [--baseline-dist DIR]
//
// --baseline-dist DIR also measures another build of the app (the previous release's dist/, say),
// served from its own server, as one more variant per engine, alternating with this build within
// every run; the report gives this build's time over the baseline's, run by run and by median, so
// the comparison holds on a machine whose speed drifts.
// --workers 1,2 measures only how the decode scales with the workers the app may use (app/src/worker/
// parts.rs; `?workers=N`): for each N in turn within each run, the app's worker alone (the merging
// worker and its N - 1 part workers, no UI; and how long the merging worker was busy, not waiting for
// the part workers) and the whole app (file input to fully shown), with the
// core count, the load average and the speedup against the first N.
// --heaps N generates server-GC traces with N heaps instead (one GCPerHeapHistory per heap per GC).
// --alloc-stacks generates traces whose allocation ticks carry stacks (bigtrace --alloc-stacks);
// with --then-tabs stacks, the time to the Stacks tab's flame graph.
// --etl also relogs each generated trace into a plain and a compressed .etl (core/examples/
// etl_relog.rs: the same GC workload, one process, 64 KiB buffers; MS-XCA Plain LZ77 for the
// compressed one) and measures those in each engine (timing run, worker alone, decoder alone) and
// natively, next to the .nettrace's figures.
// Sizes are MiB; the traces are generated on demand into /tmp (gcscope-scale-<size>mb-<checkout>.nettrace) by
// the native generator (core/examples/bigtrace.rs) and reused. DIST defaults to dist/ (scripts/build-app.sh).
// CARGO_TARGET_DIR is honoured for the native tools. Engines alternate within each run. Timings in
// the browser are measured on the page's clock from the file input's change event; memory is read
// from the kernel for the process that runs the page and its worker (private memory, and peak RSS,
// VmHWM, reset before each file) and, in Chromium, sampled through the DevTools protocol (page and
// worker: JS heap + ArrayBuffer backing stores, which include wasm memory). --app-only skips the
// worker-alone and decoder-alone runs.
import os from 'node:os';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  ROOT, BENCH_STREAM, GCSCOPE, buildTools, ensureTrace, timed, warmFile, serveDir, measureOpen, measureWorkerOnly, launchForMeasuring,
} from './scale-lib.mjs';
import { ENGINES, packageVersion } from '../e2e/engines/index.mjs';

const argv = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : dflt;
};
const flag = (name) => argv.includes(`--${name}`);
const sizes = opt('sizes', '100,1024,2048').split(',').map(Number);
const dist = path.resolve(opt('dist', path.join(ROOT, 'dist')));
const runs = Number(opt('runs', '1'));
const jsonOut = opt('json', '/tmp/gcscope-bench.json');
// Views opened after loading (their memory is reported apart: the insights are built on first view).
const thenTabs = opt('then-tabs', '').split(',').filter(Boolean);
const heaps = Number(opt('heaps', '1'));
const withEtl = flag('etl');
const ETL_RELOG = path.join(path.dirname(BENCH_STREAM), 'etl_relog');
// Each engine, and with --worker-prelude JS each engine again with JS run in the worker before the
// app's (an A/B of the read path in one run, e.g. 'delete Blob.prototype.stream;' reads slices).
const prelude = opt('worker-prelude', '');
const baselineDist = opt('baseline-dist', '') && path.resolve(opt('baseline-dist', ''));
const variants = opt('engines', ENGINES.join(',')).split(',').filter(Boolean).flatMap((engine) => [
  { key: engine, engine, prelude: '' },
  ...(prelude ? [{ key: `${engine} (worker prelude)`, engine, prelude }] : []),
  ...(baselineDist ? [{ key: `${engine} (baseline)`, engine, prelude: '', baseline: true }] : []),
]);
const engines = [...new Set(variants.map((v) => v.engine))];
const versions = Object.fromEntries(await Promise.all(engines.map(async (e) => [e, await packageVersion(e)])));

const GOALS = { firstRowMs: 1000, oneGbDoneMs: 3000, wasmVsNative: 0.5, tabPeakMiB: 256 };

function machine() {
  const cpu = readFileSync('/proc/cpuinfo', 'utf8').split('\n').find((l) => l.startsWith('model name'))?.split(':')[1]?.trim();
  return { nproc: os.cpus().length, cpu, memGiB: +(os.totalmem() / 2 ** 30).toFixed(1), node: process.version, browsers: versions, load: os.loadavg().map((x) => +x.toFixed(2)) };
}

const best = (xs, key) => xs.reduce((a, b) => (b[key] < a[key] ? b : a));

/** The generated trace relogged into a plain or a compressed .etl (made once, reused). */
function etlOf(t, compressed) {
  const file = t.file.replace(/\.nettrace$/, compressed ? '.compressed.etl' : '.plain.etl');
  const fresh = existsSync(file) && statSync(file).mtimeMs > statSync(t.file).mtimeMs;
  if (!fresh) timed(ETL_RELOG, [t.file, file, ...(compressed ? ['--compressed'] : [])]);
  return { file, bytes: statSync(file).size };
}

/** The ETL case: native and in-tab throughput of the same workload as a plain and a compressed .etl. */
async function measureEtl(t, server) {
  if (!existsSync(ETL_RELOG)) timed('cargo', ['build', '--release', '-p', 'gcscope-core', '--features', 'encode', '--example', 'etl_relog'], { cwd: ROOT });
  const fresh = async (engine, fn) => {
    const browser = await launchForMeasuring(engine);
    try { return await fn(browser); } finally { await browser.close(); }
  };
  const out = {};
  for (const compressed of [false, true]) {
    const kind = compressed ? 'compressed' : 'plain';
    const e = etlOf(t, compressed);
    const r = { file: e.file, bytes: e.bytes, engines: {} };
    console.log(`\n== ${kind} .etl of the same workload: ${e.file}, ${(e.bytes / 1e6).toFixed(0)} MB`);
    if (!flag('no-native')) {
      const stream = [];
      for (let i = 0; i < runs; i++) { warmFile(e.file); stream.push(JSON.parse(timed(BENCH_STREAM, [e.file]).stdout)); }
      const s = best(stream, 'decode_s');
      r.native = { decodeMBs: s.decode_mbps, workerMBs: s.worker_mbps, workerS: s.worker_s, peakRssMiB: s.peak_rss_mb };
      console.log(`native: decode ${s.decode_mbps} MB/s, worker's path ${s.worker_mbps} MB/s (${s.worker_s} s), peak RSS ${s.peak_rss_mb} MiB`);
    }
    if (server) {
      const per = Object.fromEntries(engines.map((engine) => [engine, { timing: [], worker: [], decode: [] }]));
      for (let i = 0; i < runs; i++) {
        for (const engine of engines) {
          const p = per[engine];
          p.timing.push(await fresh(engine, async (b) => { const m = await measureOpen(b, server.base, e.file, { sample: false }); await m.close(); return m.result; }));
          p.worker.push(await fresh(engine, (b) => measureWorkerOnly(b, server.base, e.file)));
          p.decode.push(await fresh(engine, (b) => measureWorkerOnly(b, server.base, e.file, { decodeOnly: true })));
        }
      }
      for (const engine of engines) {
        const p = per[engine];
        const tb = best(p.timing, 'doneMs');
        const wo = best(p.worker, 'ms');
        const wd = best(p.decode, 'ms');
        r.engines[engine] = {
          app: { doneMs: tb.doneMs, mbPerS: tb.mbPerS, firstRowMs: tb.firstRowMs, rows: tb.shown.rowCount, problems: tb.problems },
          workerOnly: { ms: wo.ms, mbPerS: wo.mbPerS, error: wo.error },
          wasmDecodeOnly: { ms: wd.ms, mbPerS: wd.mbPerS, error: wd.error },
        };
        console.log(`${engine}: app (timing run) fully shown ${tb.doneMs.toFixed(0)} ms (${tb.mbPerS.toFixed(0)} MB/s of .etl), first GC row ${tb.firstRowMs.toFixed(0)} ms, shown: ${tb.shown.rowCount}${tb.problems.length ? `, problems: ${tb.problems.join(' | ')}` : ''} [runs: ${p.timing.map((x) => `${x.firstRowMs.toFixed(0)}/${x.doneMs.toFixed(0)}`).join(', ')} ms]`);
        console.log(`  worker alone ${wo.ms.toFixed(0)} ms (${wo.mbPerS.toFixed(0)} MB/s)${wo.error ? `, error: ${wo.error}` : ''} | wasm decoder alone ${wd.ms.toFixed(0)} ms (${wd.mbPerS.toFixed(0)} MB/s)${wd.error ? `, error: ${wd.error}` : ''} | load ${os.loadavg()[0].toFixed(1)}`);
      }
    }
    out[kind] = r;
  }
  return out;
}

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };

/** `--baseline-dist`: this build's fully-analysed time over the baseline's, per run (the two ran
 * back to back, so each ratio shares the machine's state of that moment) and the median of those. */
function againstBaseline(per) {
  const out = {};
  for (const v of variants.filter((x) => x.baseline)) {
    const mine = per[v.engine];
    const base = per[v.key];
    const pairs = (k) => mine[k].map((r, i) => [r, base[k][i]]).filter(([a, b]) => a && b);
    const ratios = (k, f) => pairs(k).map(([a, b]) => f(a) / f(b));
    const r = {
      timingDone: ratios('timing', (x) => x.doneMs),
      memoryRunDone: ratios('memory', (x) => x.doneMs),
      workerAlone: ratios('worker', (x) => x.ms),
    };
    out[v.engine] = Object.fromEntries(Object.entries(r).map(([k, xs]) => [k, { runs: xs.map((x) => +x.toFixed(3)), median: xs.length ? +median(xs).toFixed(3) : null }]));
    const show = (k) => `${out[v.engine][k].median ?? '-'} [${out[v.engine][k].runs.join(', ')}]`;
    console.log(`${v.engine}: this build / baseline (below 1: faster): fully analysed ${show('timingDone')}; memory run ${show('memoryRunDone')}; worker alone ${show('workerAlone')}`);
  }
  return out;
}

/** `--workers`: the worker alone and the whole app at each worker count, alternating within a run. */
async function measureWorkers(t, server, counts) {
  const out = {};
  for (const engine of engines) {
    const per = Object.fromEntries(counts.map((n) => [n, { worker: [], app: [] }]));
    for (let i = 0; i < runs; i++) {
      for (const n of counts) {
        const browser = await launchForMeasuring(engine);
        try {
          const w = await measureWorkerOnly(browser, server.base, t.file, { workers: n });
          const m = await measureOpen(browser, server.base, t.file, { sample: false, query: `?tab=gcs&workers=${n}` });
          await m.close();
          per[n].worker.push(w);
          per[n].app.push(m.result);
          console.log(`${engine} N=${n} run ${i + 1}: worker alone ${w.ms.toFixed(0)} ms (${w.mbPerS.toFixed(0)} MB/s, ${w.workers} workers, `
            + `${(w.partBytes / 1e6).toFixed(0)} MB in parts, merging worker busy ${(w.ms - w.waitedMs).toFixed(0)} ms, private peak ${w.privatePeakMiB} MiB)${w.error ? `, error: ${w.error}` : ''} | app fully shown ${m.result.doneMs.toFixed(0)} ms, `
            + `first row ${m.result.firstRowMs.toFixed(0)} ms | load ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
        } finally {
          await browser.close();
        }
      }
    }
    const base = counts[0];
    out[engine] = Object.fromEntries(counts.map((n) => {
      const w = best(per[n].worker, 'ms');
      const a = best(per[n].app, 'doneMs');
      return [n, { workerMs: w.ms, workerMBs: w.mbPerS, busyMs: w.ms - w.waitedMs, privatePeakMiB: w.privatePeakMiB, appDoneMs: a.doneMs, firstRowMs: a.firstRowMs, partBytes: w.partBytes }];
    }));
    for (const n of counts) {
      const r = out[engine][n];
      const b = out[engine][base];
      // With cores to spare the merging worker's own work bounds the time: N=1's time over it is
      // the most N workers could gain there (the projection in docs/performance-log/journal.md,
      // "Several workers in the tab").
      console.log(`${engine} best of ${runs}, N=${n}: worker alone ${r.workerMs.toFixed(0)} ms (x${(b.workerMs / r.workerMs).toFixed(2)} vs N=${base}; `
        + `merging worker busy ${r.busyMs.toFixed(0)} ms, at most x${(b.workerMs / r.busyMs).toFixed(2)} with cores to spare), `
        + `app ${r.appDoneMs.toFixed(0)} ms (x${(b.appDoneMs / r.appDoneMs).toFixed(2)})`);
    }
  }
  return out;
}

async function main() {
  if (!flag('no-build')) buildTools();
  const report = { machine: machine(), when: new Date().toISOString(), files: [] };
  console.log(`machine: ${report.machine.nproc} cores, ${report.machine.cpu}, ${report.machine.memGiB} GiB, load ${report.machine.load.join(' ')}; ${Object.values(versions).join(', ')}`);
  const server = flag('no-browser') ? null : await serveDir(dist);
  const baselineServer = server && baselineDist ? await serveDir(baselineDist) : null;
  if (baselineServer) console.log(`baseline build: ${baselineDist}`);
  const baseOf = (v) => (v.baseline ? baselineServer : server).base;
  try {
    for (const mb of sizes) {
      const t = ensureTrace(mb, heaps > 1 ? { extra: ['--heaps', String(heaps)], tag: `server${heaps}` }
        : flag('alloc-stacks') ? { extra: ['--alloc-stacks'], tag: 'stacks' } : {});
      const entry = { sizeMiB: mb, heaps, bytes: t.bytes, events: t.events, gcs: t.gcs };
      console.log(`\n== ${t.file}: ${(t.bytes / 1e6).toFixed(0)} MB, ${t.events} events, ${t.gcs} GCs`);
      if (opt('workers', '') && server) {
        entry.workers = await measureWorkers(t, server, opt('workers', '').split(',').map(Number));
        report.files.push(entry);
        continue;
      }
      if (!flag('no-native')) {
        warmFile(t.file); // warm the page cache: every reader below sees the same
        const cat = [];
        const cli = [];
        const stream = [];
        for (let i = 0; i < runs; i++) {
          cat.push(warmFile(t.file) / 1000);
          cli.push(timed(GCSCOPE, ['summary', t.file, '--json']).seconds);
          stream.push(JSON.parse(timed(BENCH_STREAM, [t.file]).stdout));
        }
        const s = best(stream, 'decode_s');
        entry.native = {
          catS: Math.min(...cat), catMBs: t.bytes / 1e6 / Math.min(...cat),
          cliSummaryS: Math.min(...cli), cliSummaryMBs: t.bytes / 1e6 / Math.min(...cli),
          decodeS: s.decode_s, decodeMBs: s.decode_mbps, decodeModelS: s.model_s, decodeModelMBs: s.model_mbps,
          workerS: s.worker_s, workerMBs: s.worker_mbps,
          readS: s.read_s, peakRssMiB: s.peak_rss_mb,
        };
        const n = entry.native;
        console.log(`native: cat ${n.catS.toFixed(2)} s (${n.catMBs.toFixed(0)} MB/s) | gcscope summary ${n.cliSummaryS.toFixed(2)} s (${n.cliSummaryMBs.toFixed(0)} MB/s) | decode ${n.decodeMBs} MB/s, decode+model ${n.decodeModelMBs} MB/s, worker's path ${n.workerMBs} MB/s, peak RSS ${n.peakRssMiB} MiB`);
      }
      if (server) {
        // Every engine, alternating within each run (the machine's load drifts): a fresh browser
        // for every measurement, nothing left over from the previous file.
        const per = Object.fromEntries(variants.map((v) => [v.key, { memory: [], timing: [], worker: [], decode: [] }]));
        const fresh = async (engine, fn) => {
          const browser = await launchForMeasuring(engine);
          try { return await fn(browser); } finally { await browser.close(); }
        };
        for (let i = 0; i < runs; i++) {
          for (const v of variants) {
            const { key, engine, prelude: workerPrelude } = v;
            const base = baseOf(v);
            const p = per[key];
            // The app's times without the memory samplers, which interrupt the worker and take CPU
            // from it (the memory run below measures memory).
            p.timing.push(await fresh(engine, async (browser) => {
              const m = await measureOpen(browser, base, t.file, { sample: false, workerPrelude });
              await m.close();
              return m.result;
            }));
            p.memory.push(await fresh(engine, async (browser) => {
              const m = await measureOpen(browser, base, t.file, { thenTabs, workerPrelude });
              await m.close();
              return m.result;
            }));
            if (flag('app-only')) continue;
            p.worker.push(await fresh(engine, (browser) => measureWorkerOnly(browser, base, t.file, { workerPrelude })));
            // The wasm decoder alone (every event delivered, nothing built), as native `decode` does.
            p.decode.push(await fresh(engine, (browser) => measureWorkerOnly(browser, base, t.file, { decodeOnly: true, workerPrelude })));
            const last = (xs) => xs[xs.length - 1];
            console.log(`  run ${i + 1} ${key}: first GC row ${last(p.timing).firstRowMs.toFixed(0)} ms, fully analysed ${last(p.timing).doneMs.toFixed(0)} ms, `
              + `worker alone ${last(p.worker).ms.toFixed(0)} ms, decoder alone ${last(p.decode).ms.toFixed(0)} ms, load ${os.loadavg()[0].toFixed(1)}`);
          }
        }
        entry.engines = {};
        for (const { key: engine, engine: name } of variants) {
          const p = per[engine];
          const tb = best(p.timing, 'doneMs');
          const b = best(p.memory, 'doneMs');
          const e = (entry.engines[engine] = { browserTiming: tb, browser: b, browserRuns: p.memory, timingRuns: p.timing });
          console.log(`${engine} (${versions[name]}):`);
          console.log(`  app, timing runs (no memory sampling): first GC row ${tb.firstRowMs.toFixed(0)} ms | fully analysed ${tb.doneMs.toFixed(0)} ms (${tb.mbPerS.toFixed(0)} MB/s) [runs: ${p.timing.map((r) => `${r.firstRowMs.toFixed(0)}/${r.doneMs.toFixed(0)}`).join(', ')} ms; page cache read just before: ${p.timing.map((r) => r.warmReadMs.toFixed(0)).join(', ')} ms]`);
          for (const r of [...p.timing, ...p.memory]) if (r.problems.length) console.log(`  problems: ${r.problems.join(' | ')}`);
          if (p.worker.length) {
            const wo = (e.workerOnly = best(p.worker, 'ms'));
            const wd = (e.wasmDecodeOnly = best(p.decode, 'ms'));
            const mem = (r) => `private ${r.privateBeforeMiB} -> ${r.privatePeakMiB} MiB`;
            console.log(`  worker alone (no UI): ${wo.ms.toFixed(0)} ms (${wo.mbPerS.toFixed(0)} MB/s), first rows ${wo.firstRows?.toFixed(0)} ms, ${wo.batches} row batches, ${mem(wo)}${wo.error ? `, error: ${wo.error}` : ''} [runs: ${p.worker.map((r) => r.ms.toFixed(0)).join(', ')}]`);
            console.log(`  wasm decoder alone (every event, nothing built): ${wd.ms.toFixed(0)} ms (${wd.mbPerS.toFixed(0)} MB/s), ${mem(wd)}${wd.error ? `, error: ${wd.error}` : ''} [runs: ${p.decode.map((r) => r.ms.toFixed(0)).join(', ')}]`);
            if (entry.native) {
              // Same work on both sides: the decoder alone; the worker's path (filtered decode, model,
              // bounded insights) against core's example doing exactly that natively.
              e.wasmDecodeVsNative = wd.mbPerS / entry.native.decodeMBs;
              e.wasmVsNative = wo.mbPerS / entry.native.workerMBs;
              e.appVsNative = tb.mbPerS / entry.native.workerMBs;
              console.log(`  wasm / native, same work: decoder alone ${(100 * e.wasmDecodeVsNative).toFixed(0)} % | worker path ${(100 * e.wasmVsNative).toFixed(0)} % | whole app (incl. rendering) ${(100 * e.appVsNative).toFixed(0)} %`);
            }
          }
          console.log(`  app, memory run: first GC row ${b.firstRowMs.toFixed(0)} ms | fully analysed ${b.doneMs.toFixed(0)} ms | shown: ${b.shown.rowCount}`);
          console.log(`  worker messages: first rows at ${b.firstRowsMessageMs.toFixed(0)} ms, final analysis at ${b.doneMessageMs.toFixed(0)} ms (${b.rowBatches} row batches, ${b.progressMessages} progress)`);
          console.log(`  content process before the file (MiB): RSS ${b.rendererBeforeMiB.rss}, private ${b.rendererBeforeMiB.private}; peaks: RSS ${b.rendererPeakRssMiB}, private ${b.peakMiB.private}`);
          if (b.tabsPeakMiB) console.log(`  after opening ${thenTabs.join(', ')} (${JSON.stringify(b.tabsMs)} ms): private ${b.tabsPeakMiB.private} MiB, RSS ${b.tabsRendererPeakRssMiB} MiB, page wasm ${b.tabsPeakMiB.pageWasm} MiB`);
          if (b.devtools) console.log(`  DevTools peaks (MiB): page JS ${b.peakMiB.pageJs} + buffers ${b.peakMiB.pageBacking} + wasm ${b.peakMiB.pageWasm} | worker JS ${b.peakMiB.workerJs} + buffers ${b.peakMiB.workerBacking} | sum ${b.peakMiB.total} (${b.samples} DevTools samples, ${b.procSamples} /proc samples) | measureUserAgentSpecificMemory mid-run: ${JSON.stringify(b.uaMemoryMidRunMiB)}`);
        }
        if (baselineServer) entry.againstBaseline = againstBaseline(per);
      }
      report.files.push(entry);
      if (withEtl) entry.etl = await measureEtl(t, server);
    }
  } finally {
    await server?.close();
    await baselineServer?.close();
  }
  // Goals.
  const goals = [];
  for (const f of report.files) {
    for (const [engine, e] of Object.entries(f.engines ?? {})) {
      const firstRow = Math.max(e.browser.firstRowMs, e.browserTiming.firstRowMs);
      const at = `${engine}, ${f.sizeMiB} MiB`;
      goals.push([`first GC row < ${GOALS.firstRowMs} ms (${at})`, firstRow, firstRow < GOALS.firstRowMs]);
      goals.push([`tab peak < ${GOALS.tabPeakMiB} MiB (${at}, content process private memory)`, e.browser.peakMiB.private, e.browser.peakMiB.private < GOALS.tabPeakMiB]);
      goals.push([`tab peak < ${GOALS.tabPeakMiB} MiB (${at}, content process RSS incl. shared libraries)`, e.browser.rendererPeakRssMiB, e.browser.rendererPeakRssMiB < GOALS.tabPeakMiB]);
      if (f.sizeMiB === 1024) {
        goals.push([`1 GiB fully analysed < 3 s (${engine}, app, shown; timing run)`, e.browserTiming.doneMs, e.browserTiming.doneMs < GOALS.oneGbDoneMs]);
        if (e.workerOnly) goals.push([`1 GiB fully analysed < 3 s (${engine}, worker alone)`, e.workerOnly.ms, e.workerOnly.ms < GOALS.oneGbDoneMs]);
      }
      if (e.wasmDecodeVsNative !== undefined) goals.push([`wasm decoder >= 50% of the native decoder (${at}, %)`, +(100 * e.wasmDecodeVsNative).toFixed(0), e.wasmDecodeVsNative >= GOALS.wasmVsNative]);
      if (e.wasmVsNative !== undefined) goals.push([`wasm worker path >= 50% of the same path native (${at}, %)`, +(100 * e.wasmVsNative).toFixed(0), e.wasmVsNative >= GOALS.wasmVsNative]);
    }
  }
  report.goals = goals.map(([goal, value, met]) => ({ goal, value, met }));
  console.log('\ngoals:');
  for (const g of report.goals) console.log(`  ${g.met ? 'MET ' : 'MISS'} ${g.goal}: ${typeof g.value === 'number' ? g.value.toFixed(0) : g.value}`);
  await writeFile(jsonOut, JSON.stringify(report, null, 2));
  console.log(`\nfull results: ${jsonOut}`);
}

await main();

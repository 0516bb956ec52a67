// Scale benchmark: generated traces of 100 MB / 1 GB / 2 GB opened in the built app in Debian's
// headless Chromium (file input), next to the native CLI, the native decoder and `cat` on the same file.
//
//   node tests/bench/browser-bench.mjs [--sizes 100,1024,2048] [--dist DIR] [--runs N] [--json OUT]
//                                      [--no-build] [--no-native] [--no-browser] [--then-tabs budgets,allocs]
//                                      [--heaps N]
//
// --heaps N generates server-GC traces with N heaps instead (one GCPerHeapHistory per heap per GC).
// --etl also relogs each generated trace into a plain and a compressed .etl (core/examples/
// etl_relog.rs: the same GC workload, one process, 64 KiB buffers; MS-XCA Plain LZ77 for the
// compressed one) and measures those in the tab (timing run, worker alone, decoder alone) and
// natively, next to the .nettrace's figures.
// Sizes are MiB; the traces are generated on demand into /tmp (gcscope-scale-<size>mb.nettrace) by
// the native generator (core/examples/bigtrace.rs) and reused. DIST defaults to dist/ (scripts/build-app.sh).
// CARGO_TARGET_DIR is honoured for the native tools. Timings in the browser are measured on the page's
// clock from the file input's change event; memory is sampled through the DevTools protocol (page and
// worker: JS heap + ArrayBuffer backing stores, which include wasm memory) and read from the kernel
// (the renderer process's peak RSS, VmHWM, reset before each file).
import os from 'node:os';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  ROOT, BENCH_STREAM, GCSCOPE, buildTools, ensureTrace, timed, warmFile, serveDir, measureOpen, measureWorkerOnly, launchForMeasuring,
} from './scale-lib.mjs';

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

const GOALS = { firstRowMs: 1000, oneGbDoneMs: 3000, wasmVsNative: 0.5, tabPeakMiB: 256 };

function machine() {
  const cpu = readFileSync('/proc/cpuinfo', 'utf8').split('\n').find((l) => l.startsWith('model name'))?.split(':')[1]?.trim();
  const chromium = timed('/usr/bin/chromium', ['--version']).stdout.trim();
  return { nproc: os.cpus().length, cpu, memGiB: +(os.totalmem() / 2 ** 30).toFixed(1), node: process.version, chromium, load: os.loadavg().map((x) => +x.toFixed(2)) };
}

const best = (xs, key) => xs.reduce((a, b) => (b[key] < a[key] ? b : a));

/** The generated trace relogged into a plain and a compressed .etl (made once, reused). */
function etlOf(t, compressed) {
  const file = t.file.replace(/\.nettrace$/, compressed ? '.compressed.etl' : '.plain.etl');
  const fresh = existsSync(file) && statSync(file).mtimeMs > statSync(t.file).mtimeMs;
  if (!fresh) timed(ETL_RELOG, [t.file, file, ...(compressed ? ['--compressed'] : [])]);
  return { file, bytes: statSync(file).size };
}

/** The ETL case: native and in-tab throughput of the same workload as a plain and a compressed .etl. */
async function measureEtl(t, server) {
  if (!existsSync(ETL_RELOG)) timed('cargo', ['build', '--release', '-p', 'gcscope-core', '--features', 'encode', '--example', 'etl_relog'], { cwd: ROOT });
  const out = {};
  for (const compressed of [false, true]) {
    const kind = compressed ? 'compressed' : 'plain';
    const e = etlOf(t, compressed);
    const r = { file: e.file, bytes: e.bytes };
    console.log(`\n== ${kind} .etl of the same workload: ${e.file}, ${(e.bytes / 1e6).toFixed(0)} MB`);
    if (!flag('no-native')) {
      const stream = [];
      for (let i = 0; i < runs; i++) { warmFile(e.file); stream.push(JSON.parse(timed(BENCH_STREAM, [e.file]).stdout)); }
      const s = best(stream, 'decode_s');
      r.native = { decodeMBs: s.decode_mbps, workerMBs: s.worker_mbps, workerS: s.worker_s, peakRssMiB: s.peak_rss_mb };
      console.log(`native: decode ${s.decode_mbps} MB/s, worker's path ${s.worker_mbps} MB/s (${s.worker_s} s), peak RSS ${s.peak_rss_mb} MiB`);
    }
    if (server) {
      const measure = async (f) => {
        const xs = [];
        for (let i = 0; i < runs; i++) {
          const browser = await launchForMeasuring();
          try { xs.push(await f(browser)); } finally { await browser.close(); }
        }
        return xs;
      };
      const timing = await measure(async (b) => { const m = await measureOpen(b, server.base, e.file, { sample: false }); await m.close(); return m.result; });
      const tb = best(timing, 'doneMs');
      const wo = best(await measure((b) => measureWorkerOnly(b, server.base, e.file)), 'ms');
      const wd = best(await measure((b) => measureWorkerOnly(b, server.base, e.file, { decodeOnly: true })), 'ms');
      r.browser = { doneMs: tb.doneMs, mbPerS: tb.mbPerS, firstRowMs: tb.firstRowMs, rows: tb.shown.rowCount, problems: tb.problems };
      r.workerOnly = { ms: wo.ms, mbPerS: wo.mbPerS, error: wo.error };
      r.wasmDecodeOnly = { ms: wd.ms, mbPerS: wd.mbPerS, error: wd.error };
      console.log(`app (timing run): full analysis ${tb.doneMs.toFixed(0)} ms (${tb.mbPerS.toFixed(0)} MB/s of .etl), first GC row ${tb.firstRowMs.toFixed(0)} ms, shown: ${tb.shown.rowCount}${tb.problems.length ? `, problems: ${tb.problems.join(' | ')}` : ''}`);
      console.log(`worker alone: ${wo.ms.toFixed(0)} ms (${wo.mbPerS.toFixed(0)} MB/s)${wo.error ? `, error: ${wo.error}` : ''} | wasm decoder alone: ${wd.ms.toFixed(0)} ms (${wd.mbPerS.toFixed(0)} MB/s)${wd.error ? `, error: ${wd.error}` : ''}`);
    }
    out[kind] = r;
  }
  return out;
}

async function main() {
  if (!flag('no-build')) buildTools();
  const report = { machine: machine(), when: new Date().toISOString(), files: [] };
  console.log(`machine: ${report.machine.nproc} cores, ${report.machine.cpu}, ${report.machine.memGiB} GiB, ${report.machine.chromium}`);
  const server = flag('no-browser') ? null : await serveDir(dist);
  try {
    for (const mb of sizes) {
      const t = ensureTrace(mb, heaps > 1 ? { extra: ['--heaps', String(heaps)], tag: `server${heaps}` } : {});
      const entry = { sizeMiB: mb, heaps, bytes: t.bytes, events: t.events, gcs: t.gcs };
      console.log(`\n== ${t.file}: ${(t.bytes / 1e6).toFixed(0)} MB, ${t.events} events, ${t.gcs} GCs`);
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
        const results = [];
        for (let i = 0; i < runs; i++) {
          // A fresh browser per run: nothing left over from the previous file (and a second
          // measurement in the same browser has crashed its renderer here).
          const browser = await launchForMeasuring();
          let m;
          try {
            m = await measureOpen(browser, server.base, t.file, { thenTabs });
            await m.close();
          } finally {
            await browser.close();
          }
          results.push(m.result);
          if (m.result.problems.length) console.log(`  problems: ${m.result.problems.join(' | ')}`);
        }
        // The app's times without the memory samplers, which interrupt the worker and take CPU
        // from it (the run above measures memory).
        const timings = [];
        for (let i = 0; i < runs; i++) {
          const browser = await launchForMeasuring();
          try {
            const m = await measureOpen(browser, server.base, t.file, { sample: false });
            await m.close();
            timings.push(m.result);
          } finally {
            await browser.close();
          }
        }
        const tb = best(timings, 'doneMs');
        entry.browserTiming = tb;
        console.log(`app, timing run (no memory sampling): first GC row ${tb.firstRowMs.toFixed(0)} ms | full analysis ${tb.doneMs.toFixed(0)} ms (${tb.mbPerS.toFixed(0)} MB/s) [runs: ${timings.map((r) => r.doneMs.toFixed(0)).join(', ')} ms; file read into the page cache just before: ${timings.map((r) => r.warmReadMs.toFixed(0)).join(', ')} ms]`);
        const workerRuns = [];
        for (let i = 0; i < runs; i++) {
          const browser = await launchForMeasuring();
          try { workerRuns.push(await measureWorkerOnly(browser, server.base, t.file)); } finally { await browser.close(); }
        }
        const wo = best(workerRuns, 'ms');
        entry.workerOnly = wo;
        // The wasm decoder alone (every event delivered, nothing built), as native `decode` does.
        const decodeRuns = [];
        for (let i = 0; i < runs; i++) {
          const browser = await launchForMeasuring();
          try { decodeRuns.push(await measureWorkerOnly(browser, server.base, t.file, { decodeOnly: true })); } finally { await browser.close(); }
        }
        const wd = best(decodeRuns, 'ms');
        entry.wasmDecodeOnly = wd;
        console.log(`wasm decoder alone (every event, nothing built): ${wd.ms.toFixed(0)} ms (${wd.mbPerS.toFixed(0)} MB/s; cache read ${wd.warmReadMs.toFixed(0)} ms)${wd.error ? `, error: ${wd.error}` : ''}`);
        console.log(`worker alone (no UI): ${wo.ms.toFixed(0)} ms (${wo.mbPerS.toFixed(0)} MB/s; cache read ${wo.warmReadMs.toFixed(0)} ms), first rows ${wo.firstRows?.toFixed(0)} ms, ${wo.batches} row batches${wo.error ? `, error: ${wo.error}` : ''}`);
        const b = best(results, 'doneMs');
        entry.browser = b;
        entry.browserRuns = results;
        console.log(`app, memory run (sampled): first GC row ${b.firstRowMs.toFixed(0)} ms | full analysis ${b.doneMs.toFixed(0)} ms (${b.mbPerS.toFixed(0)} MB/s) | shown: ${b.shown.rowCount}`);
        console.log(`  worker messages: first rows at ${b.firstRowsMessageMs.toFixed(0)} ms, final analysis at ${b.doneMessageMs.toFixed(0)} ms (${b.rowBatches} row batches, ${b.progressMessages} progress)`);
        console.log(`  renderer before the file (MiB): RSS ${b.rendererBeforeMiB.rss}, private ${b.rendererBeforeMiB.private}`);
        if (b.tabsPeakMiB) console.log(`  after opening ${thenTabs.join(', ')} (${JSON.stringify(b.tabsMs)} ms): renderer private ${b.tabsPeakMiB.private} MiB, RSS ${b.tabsRendererPeakRssMiB} MiB, page wasm ${b.tabsPeakMiB.pageWasm} MiB`);
        console.log(`  memory peaks (MiB): renderer RSS ${b.rendererPeakRssMiB}, private ${b.peakMiB.private} | page JS ${b.peakMiB.pageJs} + buffers ${b.peakMiB.pageBacking} + wasm ${b.peakMiB.pageWasm} | worker JS ${b.peakMiB.workerJs} + buffers ${b.peakMiB.workerBacking} | sum ${b.peakMiB.total} (${b.samples} DevTools samples, ${b.procSamples} /proc samples) | measureUserAgentSpecificMemory mid-run: ${JSON.stringify(b.uaMemoryMidRunMiB)}`);
        if (entry.native) {
          // Same work on both sides: the decoder alone; the worker's path (filtered decode, model,
          // bounded insights) against core's example doing exactly that natively.
          entry.wasmDecodeVsNative = wd.mbPerS / entry.native.decodeMBs;
          entry.wasmVsNative = wo.mbPerS / entry.native.workerMBs;
          entry.appVsNative = tb.mbPerS / entry.native.workerMBs;
          console.log(`  wasm / native, same work: decoder alone ${(100 * entry.wasmDecodeVsNative).toFixed(0)} % | worker path ${(100 * entry.wasmVsNative).toFixed(0)} % | whole app (incl. rendering) ${(100 * entry.appVsNative).toFixed(0)} %`);
        }
      }
      report.files.push(entry);
      if (withEtl) entry.etl = await measureEtl(t, server);
    }
  } finally {
    await server?.close();
  }
  // Goals.
  const goals = [];
  for (const f of report.files) {
    if (!f.browser) continue;
    const firstRow = Math.max(f.browser.firstRowMs, f.browserTiming.firstRowMs);
    goals.push([`first GC row < ${GOALS.firstRowMs} ms (${f.sizeMiB} MiB)`, firstRow, firstRow < GOALS.firstRowMs]);
    goals.push([`tab peak < ${GOALS.tabPeakMiB} MiB (${f.sizeMiB} MiB, renderer private memory)`, f.browser.peakMiB.private, f.browser.peakMiB.private < GOALS.tabPeakMiB]);
    goals.push([`tab peak < ${GOALS.tabPeakMiB} MiB (${f.sizeMiB} MiB, renderer RSS incl. shared libraries)`, f.browser.rendererPeakRssMiB, f.browser.rendererPeakRssMiB < GOALS.tabPeakMiB]);
    if (f.sizeMiB === 1024) {
      goals.push(['1 GiB fully analysed < 3 s (app, shown; timing run)', f.browserTiming.doneMs, f.browserTiming.doneMs < GOALS.oneGbDoneMs]);
      if (f.workerOnly) goals.push(['1 GiB fully analysed < 3 s (worker alone)', f.workerOnly.ms, f.workerOnly.ms < GOALS.oneGbDoneMs]);
    }
    if (f.wasmDecodeVsNative !== undefined) goals.push([`wasm decoder >= 50% of the native decoder (${f.sizeMiB} MiB, %)`, +(100 * f.wasmDecodeVsNative).toFixed(0), f.wasmDecodeVsNative >= GOALS.wasmVsNative]);
    if (f.wasmVsNative !== undefined) goals.push([`wasm worker path >= 50% of the same path native (${f.sizeMiB} MiB, %)`, +(100 * f.wasmVsNative).toFixed(0), f.wasmVsNative >= GOALS.wasmVsNative]);
  }
  report.goals = goals.map(([goal, value, met]) => ({ goal, value, met }));
  console.log('\ngoals:');
  for (const g of report.goals) console.log(`  ${g.met ? 'MET ' : 'MISS'} ${g.goal}: ${typeof g.value === 'number' ? g.value.toFixed(0) : g.value}`);
  await writeFile(jsonOut, JSON.stringify(report, null, 2));
  console.log(`\nfull results: ${jsonOut}`);
}

await main();

// Scale, CI-sized: a ~100 MB generated trace opened in the app through the file input. The tab's
// memory stays bounded, the first GC rows show quickly, and the GC table the app shows equals the
// native CLI's model of the same file and the generator's own record of what it wrote.
//
// Needs the release native tools (the test builds them when missing, which is slow; scripts/test.sh
// builds them first):
//   cargo build --release -p gcscope-cli && cargo build --release -p gcscope-core --features encode --example bigtrace --example bench_stream
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { DIST } from './harness.mjs';
import {
  BIGTRACE, BENCH_STREAM, GCSCOPE, buildTools, ensureTrace, timed, serveDir, measureOpen, exportGcTable, launchForMeasuring,
} from '../bench/scale-lib.mjs';

/** MiB. The goal is < 256 MiB for a 2 GB trace; a 100 MB one must be well inside it. */
const TAB_PEAK_BOUND = 256;
const SIZE_MB = 100;

let server, browser, trace;
before(async () => {
  if (![BIGTRACE, BENCH_STREAM, GCSCOPE].every(existsSync)) buildTools({ quiet: true });
  trace = ensureTrace(SIZE_MB);
  server = await serveDir(process.env.GCSCOPE_DIST ?? DIST);
  browser = await launchForMeasuring();
});
after(async () => { await browser?.close(); await server?.close(); });

const close = (a, b, what, tol = 1e-6) =>
  assert.ok(Math.abs(a - b) <= tol * Math.max(1, Math.abs(b)), `${what}: app ${a} vs ${b}`);

let measured = null;

test(`a ${SIZE_MB} MB trace: early first rows, and the CLI's model`, { timeout: 120_000 }, async () => {
  const m = await measureOpen(browser, server.base, trace.file);
  try {
    const r = m.result;
    measured = r;
    console.log(`# ${r.engine} ${path.basename(trace.file)}: first row ${r.firstRowMs.toFixed(0)} ms, done ${r.doneMs.toFixed(0)} ms `
      + `(${r.mbPerS.toFixed(0)} MB/s); renderer peak RSS ${r.rendererPeakRssMiB} MiB; peaks (MiB) ${JSON.stringify(r.peakMiB)}`);
    assert.deepEqual(r.problems, []);
    assert.equal(r.shown.error, null);
    assert.ok(r.firstRowMs > 0 && r.firstRowMs < r.doneMs, 'rows show before the analysis ends');

    // The model shown (the app's own JSON export of the GC table) against the CLI and the generator.
    const shown = await exportGcTable(m.page);
    const cliGcs = JSON.parse(timed(GCSCOPE, ['gcs', trace.file, '--json']).stdout);
    const summary = JSON.parse(timed(GCSCOPE, ['summary', trace.file, '--json']).stdout);
    const all = summary.rollup.find((g) => g.gen === 'all');
    assert.equal(shown.length, trace.gcs, 'GC count = what the generator wrote');
    assert.equal(cliGcs.length, trace.gcs);
    assert.equal(all.count, trace.gcs);
    const shownTotal = shown.reduce((s, g) => s + (g.pause_ms ?? 0), 0);
    close(shownTotal, all.total_pause_ms, 'total pause vs CLI', 1e-6);
    close(shownTotal, trace.total_pause_ms, 'total pause vs generator', 1e-6);
    const longest = cliGcs.reduce((a, b) => (b.pause_ms > a.pause_ms ? b : a));
    for (const n of [1, 2, Math.floor(trace.gcs / 2), longest.number, trace.gcs]) {
      const a = shown.find((g) => g.number === n);
      const b = cliGcs.find((g) => g.number === n);
      assert.ok(a && b, `GC #${n} present in both`);
      assert.equal(a.gen, b.gen, `GC #${n} gen`);
      close(a.pause_ms, b.pause_ms, `GC #${n} pause`);
    }
    assert.equal(shown.filter((g) => g.gen === 2).length, trace.gen2, 'gen2 GCs = what the generator wrote');
  } finally {
    await m.close();
  }
});

test(`a ${SIZE_MB} MB trace: bounded tab memory`, () => {
  const r = measured;
  assert.ok(r, 'the trace was measured (test above)');
  assert.ok(r.procSamples >= 10, `memory sampled during decoding (${r.procSamples} samples)`);
  // The tab's own memory, in every engine: the private resident pages of the process that runs
  // the page and its worker (Chromium's renderer, Firefox's content process, WebKit's web
  // process; their RSS also counts the shared libraries).
  assert.ok(r.peakMiB.private > 0 && r.peakMiB.private < TAB_PEAK_BOUND,
    `${r.engine} content process peak private memory ${r.peakMiB.private} MiB < ${TAB_PEAK_BOUND} MiB`);
  if (r.devtools) {
    // Chromium also gives the page's and the worker's own heaps (DevTools protocol).
    assert.ok(r.workerMeasured, 'the decoding worker was reached over CDP (its memory is counted)');
    assert.ok(r.samples >= 2, `DevTools samples during decoding (${r.samples})`);
    assert.ok(r.peakMiB.total < TAB_PEAK_BOUND, `page + worker heaps and buffers ${r.peakMiB.total} MiB < ${TAB_PEAK_BOUND} MiB`);
  }
});

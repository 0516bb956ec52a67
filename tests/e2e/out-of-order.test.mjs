// The sort buffer's budget in the tab (core::sort::MAX_BUFFERED_BYTES): the crafted trace of tiny
// events without sequence points, past the budget, is read whole, and the overview says how many
// events may be out of order: the count the native CLI's model has, read on one thread and in parts
// on two (`--jobs`), which core/tests/sort_budget.rs checks against the delivered order itself. A
// trace within the budget says nothing of the kind.
//
// Needs the release native tools (built when missing, which is slow; scripts/test.sh builds them
// first): cargo build --release -p gcscope-cli && cargo build --release -p gcscope-core --features encode --example bigtrace --example bench_stream
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { serveDist, launch, openApp, screenshot, DIST } from './harness.mjs';
import {
  BIGTRACE, BENCH_STREAM, GCSCOPE, buildTools, ensureTrace, timed, serveDir, launchForMeasuring, measureOpen,
} from '../bench/scale-lib.mjs';

/** MiB: past the budget (the unbudgeted buffer would hold ~16 bytes per byte of it). */
const SIZE_MB = 48;
/**
 * MiB: the tab's private memory while it reads the crafted trace. Without the budget the worker's
 * sort buffer alone would grow past 16 x SIZE_MB = 768 MiB (core/tests/sort_budget.rs measures the
 * bytes per byte natively); with it, the buffer stays at core::sort::MAX_BUFFERED_BYTES, and the
 * tab's peak does not grow with the file (Chromium 223-224 MiB and Firefox 218-220 MiB at 24 and
 * at 48 MiB, measured 2026-11-27).
 */
const TAB_BOUND_MIB = 320;

let server, browser, crafted, plain;
before(async () => {
  if (![BIGTRACE, BENCH_STREAM, GCSCOPE].every(existsSync)) buildTools({ quiet: true });
  crafted = ensureTrace(SIZE_MB, { extra: ['--crafted'], tag: 'crafted' });
  plain = ensureTrace(10);
  server = await serveDist();
  browser = await launch();
});
after(async () => { await browser?.close(); await server?.close(); });

/** The out-of-order note and fact the overview shows once the whole trace is in. */
async function open(file, shot) {
  const { page, context, problems } = await openApp(browser, server.base);
  try {
    await page.setInputFiles('#file-input', file);
    await page.locator('#report').waitFor({ timeout: 120_000 });
    assert.equal(await page.locator('#error').count(), 0, 'no error shown');
    const note = (await page.locator('#out-of-order').count()) ? await page.locator('#out-of-order').textContent() : null;
    const fact = await page.locator('#fact-out-of-order-events').textContent();
    const events = Number((await page.locator('#fact-events').textContent()).replace(/,/g, ''));
    if (shot) await screenshot(page, shot);
    assert.deepEqual(problems, []);
    return { note, fact, events };
  } finally {
    await context.close();
  }
}

const cliLate = (file, jobs) =>
  JSON.parse(timed(GCSCOPE, ['summary', file, '--json', '--jobs', String(jobs)]).stdout).process.out_of_order_events;

test('past the sort budget, the overview says how many events may be out of order, as the CLI counts them', { timeout: 300_000 }, async () => {
  const late = cliLate(crafted.file, 1);
  assert.ok(late > 0, 'the crafted trace is past the budget');
  assert.equal(cliLate(crafted.file, 2), late, 'the CLI in parts counts the same');
  const shown = await open(crafted.file, 'out-of-order');
  const n = late.toLocaleString('en-US');
  assert.match(shown.note ?? '', new RegExp(`^⚠ ${n} events may be out of order`));
  assert.equal(shown.fact, n);
  assert.equal(shown.events, crafted.events, 'every event the generator wrote was read');
});

test('within the budget, no out-of-order note', { timeout: 120_000 }, async () => {
  assert.equal(cliLate(plain.file, 1), 0);
  const shown = await open(plain.file);
  assert.equal(shown.note, null);
  assert.equal(shown.fact, '0');
});

test('past the sort budget, the tab\'s memory stays bounded', { timeout: 300_000 }, async () => {
  const measuring = await launchForMeasuring();
  const dist = await serveDir(process.env.GCSCOPE_DIST ?? DIST);
  try {
    const m = await measureOpen(measuring, dist.base, crafted.file, { query: '', doneSelector: '#report' });
    try {
      const r = m.result;
      console.log(`# ${r.engine} crafted ${SIZE_MB} MiB: done in ${r.doneMs.toFixed(0)} ms; content process private peak `
        + `${r.peakMiB.private} MiB (before: ${r.rendererBeforeMiB.private}); peaks (MiB) ${JSON.stringify(r.peakMiB)}`);
      assert.deepEqual(r.problems, []);
      assert.equal(r.shown.error, null);
      assert.ok(r.procSamples >= 10, `memory sampled while reading (${r.procSamples} samples)`);
      assert.ok(r.peakMiB.private > 0 && r.peakMiB.private < TAB_BOUND_MIB,
        `${r.engine} content process peak private memory ${r.peakMiB.private} MiB < ${TAB_BOUND_MIB} MiB`);
    } finally {
      await m.close();
    }
  } finally {
    await measuring.close();
    await dist.close();
  }
});

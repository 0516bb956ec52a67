// Several workers decode one file exactly as one does. The same generated trace is opened with
// `?workers=1` (one worker reads and decodes it all) and `?workers=3` (two part workers read and
// decode its blocks, one merges; app/src/worker/parts.rs), and everything the overview shows and
// the whole GC table (the app's JSON export) must be the same; the generator's own record of what
// it wrote (GC count, total pause) checks the one-worker side. The same for the trace relogged
// into a plain and an MS-XCA compressed .etl (whose parts send their own payloads back, not the
// bytes they read). A .gz of it is read on one worker whatever is allowed, and the overview says
// why. The crafted trace of tiny events without sequence points, past the sort buffer's budget,
// says how many events may be out of order, the same on both paths and the same as the native
// CLI's model.
//
// Needs the release native tools (built when missing, which is slow; scripts/test.sh builds them
// first): cargo build --release -p gcscope-cli && cargo build --release -p gcscope-core --features encode --example bigtrace --example bench_stream --example etl_relog
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { serveDist, launch, openApp, screenshot } from './harness.mjs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { BIGTRACE, BENCH_STREAM, GCSCOPE, buildTools, ensureTrace, timed } from '../bench/scale-lib.mjs';

const ETL_RELOG = path.join(path.dirname(BENCH_STREAM), 'etl_relog');

/** MiB: several 4 MiB pieces (app/src/worker/feed.rs), so part workers get several tasks each. */
const SIZE_MB = 24;

let server, browser, trace, crafted, gz;
before(async () => {
  if (![BIGTRACE, BENCH_STREAM, GCSCOPE].every(existsSync)) buildTools({ quiet: true });
  if (!existsSync(ETL_RELOG)) {
    const r = spawnSync('cargo', ['build', '--release', '-p', 'gcscope-core', '--features', 'encode', '--example', 'etl_relog'], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
  }
  trace = ensureTrace(SIZE_MB);
  crafted = ensureTrace(SIZE_MB, { extra: ['--crafted'], tag: 'crafted' });
  gz = `${trace.file}.gz`;
  if (!existsSync(gz)) writeFileSync(gz, gzipSync(readFileSync(trace.file), { level: 1 }));
  server = await serveDist();
  browser = await launch();
});
after(async () => { await browser?.close(); await server?.close(); });

/**
 * Opens `file` with `workers` workers allowed and returns what the page shows once the whole trace
 * is in: the overview's text (without the "Decoded on" fact, which says how it was read), that
 * fact, the out-of-order note, the GC table's JSON export, and the Allocations view's table of
 * allocated types (JSON export: the part workers intern the ticks' type names and send most ticks
 * without their payloads, the merging worker renumbers the names; the order and sums must be the
 * one worker's).
 */
async function open(file, workers, shot, { allocs = true } = {}) {
  const { page, context, problems } = await openApp(browser, server.base, `?workers=${workers}`);
  try {
    await page.setInputFiles('#file-input', file);
    await page.locator('#report').waitFor({ timeout: 120_000 });
    assert.equal(await page.locator('#error').count(), 0, 'no error shown');
    const seen = await page.evaluate(() => {
      const o = document.querySelector('.overview').cloneNode(true);
      const how = o.querySelector('#fact-decoded-on');
      const decodedOn = how?.textContent ?? null;
      how?.previousElementSibling?.remove();
      how?.remove();
      return { overview: o.textContent, decodedOn, late: document.querySelector('#out-of-order')?.textContent ?? null };
    });
    if (shot) await screenshot(page, shot);
    await page.click('#tab-gcs');
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('.gc-table .export-json').click()]);
    seen.gcs = JSON.parse(readFileSync(await download.path(), 'utf8'));
    // The crafted trace has no allocation ticks (no table of types to export).
    if (allocs) {
      await page.click('#tab-allocs');
      const [types] = await Promise.all([page.waitForEvent('download'), page.locator('.side-table:has(#alloc-types) .export-json').click()]);
      seen.allocTypes = JSON.parse(readFileSync(await types.path(), 'utf8'));
    }
    assert.deepEqual(problems, []);
    return seen;
  } finally {
    await context.close();
  }
}

test(`a ${SIZE_MB} MiB trace shows the same on three workers as on one`, { timeout: 300_000 }, async () => {
  const one = await open(trace.file, 1);
  const three = await open(trace.file, 3, 'parallel-3-workers');
  // One worker: no "Decoded on"; three: two part workers decoded most of the file.
  assert.equal(one.decodedOn, null);
  const m = /^3 workers \(([\d.]+) MB decoded in parallel\)$/.exec(three.decodedOn ?? '');
  assert.ok(m, `decoded on: ${three.decodedOn}`);
  assert.ok(Number(m[1]) > SIZE_MB / 2, `part workers decoded ${m[1]} MiB of ${SIZE_MB}`);
  // The one-worker side against the generator.
  assert.equal(one.gcs.length, trace.gcs);
  const total = one.gcs.reduce((s, g) => s + (g.pause_ms ?? 0), 0);
  assert.ok(Math.abs(total - trace.total_pause_ms) <= 1e-6 * trace.total_pause_ms, `total pause ${total} vs ${trace.total_pause_ms}`);
  // Every figure the same.
  assert.equal(three.overview, one.overview);
  assert.deepEqual(three.gcs, one.gcs);
  assert.ok(one.allocTypes.length > 1, `allocated types: ${one.allocTypes.length}`);
  assert.deepEqual(three.allocTypes, one.allocTypes);
});

/** `trace` relogged into an .etl (made once for the generated file it comes from). */
function relogged(compressed) {
  const file = trace.file.replace(/\.nettrace$/, compressed ? '.c.etl' : '.etl');
  if (!existsSync(file) || statSync(file).mtimeMs < statSync(trace.file).mtimeMs) {
    const r = spawnSync(ETL_RELOG, [trace.file, file, ...(compressed ? ['--compressed'] : [])], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
  }
  return file;
}

for (const compressed of [false, true]) {
  test(`the trace as ${compressed ? 'a compressed' : 'a plain'} .etl shows the same on three workers as on one`, { timeout: 300_000 }, async () => {
    const file = relogged(compressed);
    const one = await open(file, 1);
    const three = await open(file, 3);
    assert.equal(one.decodedOn, null);
    const m = /^3 workers \(([\d.]+) MB decoded in parallel\)$/.exec(three.decodedOn ?? '');
    assert.ok(m, `decoded on: ${three.decodedOn}`);
    const mb = statSync(file).size / 1e6;
    assert.ok(Number(m[1]) > mb / 2, `part workers decoded ${m[1]} MB of ${mb.toFixed(1)}`);
    // The relogged trace holds the generator's GCs.
    assert.equal(one.gcs.length, trace.gcs);
    assert.equal(three.overview, one.overview);
    assert.deepEqual(three.gcs, one.gcs);
    assert.ok(one.allocTypes.length > 1, `allocated types: ${one.allocTypes.length}`);
    assert.deepEqual(three.allocTypes, one.allocTypes);
  });
}

test('a .gz is decoded on one worker, says so, and shows what the plain file shows', { timeout: 300_000 }, async () => {
  const plain = await open(trace.file, 1);
  const packed = await open(gz, 3);
  assert.match(packed.decodedOn ?? '', /^1 worker: a compressed file \(\.zip, \.gz\) is decoded on one worker$/);
  assert.deepEqual(packed.gcs, plain.gcs);
  // The overview names the file (and its size): the rest is the same.
  const unnamed = (t) => t.replace(/gcscope-scale-[^ ]+ \([^)]*\)/, 'FILE');
  assert.equal(unnamed(packed.overview), unnamed(plain.overview));
});

test('past the sort budget, the same out-of-order count on one and three workers, as the CLI has it', { timeout: 300_000 }, async () => {
  const one = await open(crafted.file, 1, undefined, { allocs: false });
  const three = await open(crafted.file, 3, 'parallel-out-of-order', { allocs: false });
  const summary = JSON.parse(timed(GCSCOPE, ['summary', crafted.file, '--json', '--jobs', '1']).stdout);
  const late = summary.process.out_of_order_events;
  assert.ok(late > 0, 'the crafted trace is past the budget');
  assert.match(one.late ?? '', new RegExp(`^⚠ ${late.toLocaleString('en-US')} events may be out of order`));
  assert.equal(three.late, one.late);
  assert.match(three.decodedOn ?? '', /^3 workers/);
  assert.equal(three.overview, one.overview);
  assert.deepEqual(three.gcs, one.gcs);
});

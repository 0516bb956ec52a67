// The Heap tab on a large heap snapshot: a synthetic .gcdump of N objects (tests/bench/heap-gen.py,
// from ../shared/heapdumps/gcdumpanalyze-test1.gcdump as template) opened by file input in the
// built app, headless; prints the time from the file input to the totals and types table shown,
// then the retained bytes and the root categories (the worker answers in stages), the heap
// worker's own timings (read, dominator tree, tables: #heap-timing) and the peak private
// memory of the processes that run the page and its workers.
//
//   node tests/bench/heap-bench.mjs [--nodes 1000000,10000000] [--engine chromium] [--dist DIR]

import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { ROOT, serveDir, launchForMeasuring, sampleContentMemory } from './scale-lib.mjs';

const argv = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : dflt;
};
const nodes = opt('nodes', '1000000').split(',').map(Number);
const engine = opt('engine', 'chromium');
const dist = path.resolve(opt('dist', path.join(ROOT, 'dist')));
const template = path.join(process.env.GCSCOPE_SHARED ?? path.join(ROOT, '../shared'), 'heapdumps/gcdumpanalyze-test1.gcdump');
if (!existsSync(template)) {
  console.log(`skipped: no ${template}`);
  process.exit(0);
}

const server = await serveDir(dist, { engine });
const browser = await launchForMeasuring(engine);
for (const n of nodes) {
  const file = `/tmp/gcscope-heap-${n}.gcdump`;
  if (!existsSync(file)) {
    const r = spawnSync('python3', [path.join(ROOT, 'tests/bench/heap-gen.py'), template, String(n), file], { stdio: 'inherit' });
    if (r.status !== 0) throw new Error('heap-gen.py failed');
  }
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(server.base);
  await page.locator('#file-input').waitFor({ state: 'attached' });
  const mem = sampleContentMemory(engine);
  const t0 = Date.now();
  await page.setInputFiles('#file-input', file);
  await page.locator('#heap-types tr[data-row], #heap-types tbody tr, #heap-error').first().waitFor({ timeout: 600_000 });
  const shown = Date.now() - t0;
  // A staged build (#heap-timing's data-stage) shows the retained column, then the root
  // categories, later; an older one shows everything at once.
  const staged = await page.locator('#heap-timing[data-stage]').count();
  let retained = shown, complete = shown;
  if (staged) {
    await page.locator('#heap-timing[data-stage="retained"], #heap-timing[data-stage="complete"], #heap-error').first().waitFor({ timeout: 600_000 });
    retained = Date.now() - t0;
    await page.locator('#heap-timing[data-stage="complete"], #heap-error').first().waitFor({ timeout: 600_000 });
    complete = Date.now() - t0;
  }
  const { peak } = await mem.stop();
  const err = await page.locator('#heap-error').count() ? await page.locator('#heap-error').textContent() : null;
  const timing = err ?? await page.locator('#heap-timing').textContent();
  console.log(`${engine} ${n.toLocaleString('en')} nodes: types table shown ${shown} ms after the file input, retained bytes ${retained} ms, root categories ${complete} ms; ${timing}; peak private memory of the page's processes ${(peak / 2 ** 30).toFixed(2)} GiB`);
  await context.close();
}
await browser.close();
await server.close();

// Screenshots of every view (light, and the overview in dark) for docs/screenshots/, taken from the
// committed fixtures. Each view is also checked to have rendered its main element. Chromium's are
// the documentation's; in the other engines every view goes to tests/output/<engine>/ and the
// overview and the allocations view also to docs/screenshots/<engine>/ (what differs shows there).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { existsSync } from 'node:fs';
import { copyFile } from 'node:fs/promises';
import { ROOT, SHARED, ENGINE, OUT, serveDist, launch, dropFile } from './harness.mjs';

const DOCS = ENGINE === 'chromium' ? path.join(ROOT, 'docs/screenshots') : OUT;
const ENGINE_DOCS = path.join(ROOT, 'docs/screenshots', ENGINE);
const IN_ENGINE_DOCS = ['04-overview', '14-allocations'];
const FIX = (name) => path.join(ROOT, 'fixtures/traces/net8.0', `${name}.nettrace`);
/** TraceEvent's .NET Core 3.0 test trace: it has mark roots, moved ranges and non-GC suspensions. */
const TE3 = path.join(SHARED, 'traces/perfview/eventpipe-dotnetcore3.0-win-x64-objver4.nettrace.zip');
let server, browser;
before(async () => {
  server = await serveDist();
  browser = await launch();
  await mkdir(DOCS, { recursive: true });
  if (ENGINE !== 'chromium') await mkdir(ENGINE_DOCS, { recursive: true });
});
after(async () => { await browser?.close(); await server?.close(); });

async function page(colorScheme = 'light') {
  const context = await browser.newContext({ viewport: { width: 1400, height: 860 }, colorScheme });
  const p = await context.newPage();
  const problems = [];
  p.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  p.on('console', (m) => { if (m.type() === 'error') problems.push(`console error: ${m.text()}`); });
  await p.goto(server.base);
  return { p, context, problems };
}
async function shot(p, name, fullPage = false) {
  const file = path.join(DOCS, `${name}.png`);
  await p.screenshot({ path: file, fullPage });
  if (ENGINE !== 'chromium' && IN_ENGINE_DOCS.includes(name)) await copyFile(file, path.join(ENGINE_DOCS, `${name}.png`));
}

test('empty, loading and error states', async () => {
  const { p, context, problems } = await page();
  await p.locator('#sample-0').waitFor({ timeout: 10_000 });
  await shot(p, '01-empty');
  // Hold the worker's wasm back a moment so the loading state stays long enough to be photographed.
  let release;
  const held = new Promise((r) => { release = r; });
  await p.route('**/worker_bg.wasm', async (route) => { await held; await route.continue(); });
  await p.setInputFiles('#file-input', FIX('server'));
  await p.locator('#progress').waitFor({ timeout: 10_000 });
  await shot(p, '02-loading');
  release();
  await p.locator('#fact-gcs').waitFor({ timeout: 60_000 });
  await p.unroute('**/worker_bg.wasm');
  await dropFile(p, '#drop-zone', 'notes.txt', Buffer.from('this is not a trace file at all'));
  await p.locator('#error').waitFor({ timeout: 30_000 });
  await shot(p, '03-error');
  assert.deepEqual(problems, []);
  await context.close();
});

test('every view of a server-GC trace, and pinning', async () => {
  const { p, context, problems } = await page();
  await p.setInputFiles('#file-input', FIX('server'));
  await p.locator('#fact-gcs').waitFor({ timeout: 30_000 });
  await shot(p, '04-overview');
  await p.click('#tab-gcs');
  await p.locator('#gc-table tbody tr[data-gc]').first().waitFor();
  await shot(p, '05-gc-table');
  await p.click('#gc-table th[data-col="pause_ms"]');
  await p.click('#gc-table th[data-col="pause_ms"]');
  await p.locator('#gc-table tbody tr[data-gc]').first().click();
  await p.locator('#detail-heaps').waitFor();
  await shot(p, '06-gc-detail');
  await p.keyboard.press('Escape');
  await p.click('#column-chooser summary');
  await shot(p, '07-column-chooser');
  await p.click('#column-chooser summary');
  await p.click('#tab-reasons');
  await p.locator('#condition-grid').waitFor();
  await shot(p, '08-condemn-reasons');
  await p.click('#tab-charts');
  await p.locator('#heap-chart').waitFor();
  await shot(p, '09-charts');
  await p.click('#tab-events');
  await p.locator('#event-table').waitFor();
  await shot(p, '10-events');
  await p.setInputFiles('#file-input', FIX('pinning'));
  await p.click('#tab-pins');
  await p.locator('#pinned-types tbody tr').first().waitFor({ timeout: 30_000 });
  await shot(p, '11-pinning-handles');
  assert.deepEqual(problems, []);
  await context.close();
});

test('dark: overview and GC table', async () => {
  const { p, context, problems } = await page('dark');
  await p.setInputFiles('#file-input', FIX('wks-concurrent'));
  await p.locator('#fact-gcs').waitFor({ timeout: 30_000 });
  await shot(p, '12-overview-dark');
  await p.click('#tab-gcs');
  await p.locator('#gc-table tbody tr[data-gc]').nth(4).click();
  await shot(p, '13-gc-table-dark');
  assert.deepEqual(problems, []);
  await context.close();
});

test('insights views: allocations, budgets, roots & compaction, suspensions, memory, counters', async () => {
  const { p, context, problems } = await page();
  const open = async (file, tab, ready) => {
    await p.setInputFiles('#file-input', file);
    await p.locator('#report').waitFor({ timeout: 60_000 });
    await p.click(`#tab-${tab}`);
    await p.locator(ready).first().waitFor({ timeout: 30_000 });
  };
  await open(FIX('loh'), 'allocs', '#alloc-types tbody tr');
  await shot(p, '14-allocations');
  await open(FIX('server'), 'budgets', '#budgets-per-heap tbody tr');
  await shot(p, '15-budgets');
  // The fixtures have no moved ranges: the shared 3.0 trace shows both halves (the fixture otherwise).
  const te3 = existsSync(TE3);
  await open(te3 ? TE3 : FIX('loh'), 'roots', '#roots-per-gc tbody tr');
  await shot(p, '16-roots-compaction', true);
  await p.click('#tab-suspensions');
  await p.locator(te3 ? '#suspend-not-for-gc tbody tr' : '#suspend-per-gc tbody tr').first().waitFor();
  await shot(p, '17-suspensions');
  await open(FIX('mempressure'), 'memory', '#pressure-chart');
  await shot(p, '18-memory', true);
  await open(FIX('pinning'), 'counters', '#counters tbody tr');
  await p.click('button[data-counter="gc_handles"]');
  await shot(p, '19-counters');
  assert.deepEqual(problems, []);
  await context.close();
});

test('dark: allocations', async () => {
  const { p, context, problems } = await page('dark');
  await p.setInputFiles('#file-input', FIX('pinning'));
  await p.locator('#report').waitFor({ timeout: 60_000 });
  await p.click('#tab-allocs');
  await p.locator('#alloc-types tbody tr').first().waitFor();
  await shot(p, '20-allocations-dark');
  assert.deepEqual(problems, []);
  await context.close();
});

test('latency and comparison: the Latency tab, a range with no GC, comparing two traces (start, loading, side by side, dark)', async () => {
  const { p, context, problems } = await page();
  await p.goto(`${server.base}?tab=latency&budget=2`);
  await p.setInputFiles('#file-input', FIX('server'));
  await p.locator('#mmu').waitFor({ timeout: 60_000 });
  await shot(p, '25-latency', true);
  // A range in which no GC paused (the trace's first GC comes after 80 ms): the view says so.
  await p.goto(`${server.base}?tab=latency&t0=1&t1=20`);
  await p.setInputFiles('#file-input', FIX('server'));
  await p.locator('#latency-empty').waitFor({ timeout: 60_000 });
  await shot(p, '26-latency-no-gcs');
  await p.click('#clear-range');
  await p.click('#tab-compare');
  await p.locator('#compare-drop').waitFor();
  await shot(p, '27-compare-start');
  // Hold B's worker back so its loading state can be photographed.
  let release;
  const held = new Promise((r) => { release = r; });
  await p.route('**/worker_bg.wasm', async (route) => { await held; await route.continue(); });
  await p.setInputFiles('#compare-input', FIX('wks-nonconcurrent'));
  await p.locator('#compare-loading').waitFor({ timeout: 10_000 });
  await shot(p, '28-compare-loading');
  release();
  await p.locator('#compare-figures').waitFor({ timeout: 60_000 });
  await p.unroute('**/worker_bg.wasm');
  await shot(p, '29-compare', true);
  assert.deepEqual(problems, []);
  await context.close();
  const dark = await page('dark');
  await dark.p.setInputFiles('#file-input', FIX('wks-concurrent'));
  await dark.p.locator('#report').waitFor({ timeout: 60_000 });
  await dark.p.setInputFiles('#compare-input', FIX('server'));
  await dark.p.locator('#compare-figures').waitFor({ timeout: 60_000 });
  await shot(dark.p, '30-compare-dark');
  assert.deepEqual(dark.problems, []);
  await dark.context.close();
});

// The Latency tab and the comparison of two traces. The figures the app shows (computed on the page
// from the rows the worker sent, for the time range, budget and window the address holds) must
// equal `gcscope latency --json` and `gcscope compare --json` on the same files (the CLI shares the
// core's figures but not the worker's messages, the page's pause log, the address bar or the
// rendering); GC counts, the longest pause and % time paused are checked against TraceEvent's
// analysis too (fixtures' .traceevent.json). Links must reopen the latency view with its settings
// and the comparison with both traces.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { ROOT, serveDist, launch, openApp, dropFile, figuresOnly } from './harness.mjs';
import { GCSCOPE } from '../bench/scale-lib.mjs';
import { FIXTURES, openWithFixtures } from './inputs.mjs';

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

const FIX = (v, name) => path.join(FIXTURES, v, `${name}.nettrace`);
const te = async (file) => JSON.parse(await readFile(file.replace(/\.nettrace$/, '.traceevent.json'), 'utf8'));

function cli(...args) {
  const r = spawnSync(GCSCOPE, args, { encoding: 'utf8', maxBuffer: 1 << 30 });
  assert.equal(r.status, 0, `gcscope ${args.join(' ')}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

/** A table's rows as objects keyed by its headers' `data-col`: numbers from `data-value`, text as
 * shown. */
async function table(page, id) {
  await page.locator(`#${id}`).waitFor();
  return page.$eval(`#${id}`, (t) => {
    const cols = [...t.querySelectorAll('thead th')].map((th) => th.dataset.col);
    return [...t.querySelectorAll('tbody tr:not(.spacer)')].map((tr) => Object.fromEntries(
      [...tr.querySelectorAll('td')].map((td, i) => [cols[i], td.dataset.value !== undefined
        ? (td.dataset.value === '' ? null : Number(td.dataset.value)) : td.textContent])));
  });
}

/** The shown table equals the CLI's list `want`, field by field (the kind reads with spaces). */
function sameRows(shown, want, what) {
  assert.equal(shown.length, want.length, `${what}: rows`);
  shown.forEach((row, i) => {
    for (const [k, v] of Object.entries(row)) {
      const w = want[i][k];
      if (typeof v === 'string') assert.equal(v, String(w).replaceAll('_', ' '), `${what}[${i}].${k}`);
      else assert.equal(v, w ?? null, `${what}[${i}].${k}`);
    }
  });
}

/** Everything the Latency tab shows against `gcscope latency --json` with the same settings. */
async function checkLatency(page, file, args) {
  const want = cli('latency', file, '--json', ...args);
  sameRows(await table(page, 'pause-percentiles'), want.pauses, 'pauses');
  sameRows(await table(page, 'budget-windows'), want.budget.worst_windows, 'worst windows');
  if (want.budget.worst_gcs.length) sameRows(await table(page, 'budget-gcs'), want.budget.worst_gcs, 'worst GCs');
  sameRows(await table(page, 'mmu'), want.mmu, 'mmu');
  const summary = await page.locator('#budget-summary').textContent();
  assert.match(summary, new RegExp(`^${want.budget.over_budget} of ${want.budget.gcs} GCs over`), summary);
  assert.equal(await page.locator('#utilization-count').textContent(), `${want.utilization.windows.length} windows`);
  assert.equal(Number(await page.locator('#budget-input').inputValue()), want.budget.budget_ms);
  assert.equal(Number(await page.locator('#window-input').inputValue()), want.utilization.window_ms);
  return want;
}

test('Latency tab: percentiles, budget, worst windows and MMU as gcscope latency has them; the link keeps the budget, window and range', async () => {
  const file = FIX('net8.0', 'server');
  const ref = await te(file);
  const query = '?trace=remote/net8.0/server.nettrace&tab=latency&budget=2&window=5';
  const { page, context, problems } = await openWithFixtures(browser, server.base, query);
  await page.locator('#pause-percentiles').waitFor({ timeout: 60_000 });
  const want = await checkLatency(page, file, ['--budget', '2', '--window', '5']);
  // TraceEvent's own analysis: every GC complete, its longest pause.
  const all = want.pauses[0];
  assert.equal(all.count, ref.gcs.filter((g) => g.IsComplete).length);
  assert.equal(all.max_ms.toFixed(3), Math.max(...ref.gcs.map((g) => g.PauseDurationMSec)).toFixed(3));
  assert.ok(want.budget.over_budget > 0, 'some GCs over 2 ms');

  // A new budget typed in the box: the figures and the address follow.
  await page.fill('#budget-input', '5');
  await page.locator('#budget-input').dispatchEvent('change');
  await page.waitForFunction(() => /[?&]budget=5(&|$)/.test(location.search));
  await checkLatency(page, file, ['--budget', '5', '--window', '5']);

  // A time range (as a drag across a chart sets it): every figure is the range's.
  await page.goto(server.base + query.replace('budget=2', 'budget=5') + '&t0=100&t1=180');
  await page.locator('#pause-percentiles').waitFor({ timeout: 60_000 });
  await page.locator('.range-note').waitFor();
  const ranged = await checkLatency(page, file, ['--budget', '5', '--window', '5', '--from', '100', '--to', '180']);
  assert.ok(ranged.pauses[0].count < all.count, 'the range holds fewer GCs');

  // The link reopens the same view with the same settings and figures.
  const link = await page.url();
  assert.match(link, /trace=remote\/net8\.0\/server\.nettrace/);
  const again = await context.newPage();
  await again.goto(link);
  await again.locator('#pause-percentiles').waitFor({ timeout: 60_000 });
  await checkLatency(again, file, ['--budget', '5', '--window', '5', '--from', '100', '--to', '180']);
  assert.deepEqual(problems, []);
  await context.close();
});

test('Overview: pause percentiles as gcscope summary has them, and PerfView\'s % over the GC span as TraceEvent computes it', { skip: figuresOnly('the percentiles against the CLI and TraceEvent') }, async () => {
  // A trace whose pauses are TraceEvent's to the µs (a background GC inside its first suspension
  // makes them differ: core/tests/model_fixtures.rs).
  const file = FIX('net8.0', 'wks-nonconcurrent');
  const ref = await te(file);
  const { page, context, problems } = await openWithFixtures(browser, server.base, '?trace=remote/net8.0/wks-nonconcurrent.nettrace');
  await page.locator('#overview-percentiles').waitFor({ timeout: 60_000 });
  sameRows(await table(page, 'overview-percentiles'), cli('summary', file, '--json').pauses, 'pauses');
  // PerfView: TraceEvent's total pause over its ProcessDuration (the GC span).
  const span = Number(await page.locator('#gc-span-pct').getAttribute('data-value'));
  const perfview = 100 * ref.gc_stats.TotalPauseTimeMSec / ref.gc_stats.ProcessDuration;
  assert.ok(Math.abs(span - perfview) < 0.01, `${span} vs TraceEvent ${perfview}`);
  assert.deepEqual(problems, []);
  await context.close();
});

/** The comparison shown against `gcscope compare A B --json`: every figure (A, B, B - A, % and
 * the verdict) and every fact. */
async function checkComparison(page, a, b) {
  const want = cli('compare', a, b, '--json');
  const figures = await table(page, 'compare-figures');
  const byKey = new Map(want.figures.map((f) => [f.key, f]));
  // A WebKit run once read A's % paused as empty while the rows above it were right (not seen in
  // 42 reruns): say what the table held, and what it holds a moment later, if it happens again.
  const differ = figures.filter((f) => ['a', 'b', 'delta', 'delta_pct'].some((k) => f[k] !== (byKey.get(f.key)?.[k] ?? null)));
  if (differ.length > 0) {
    await new Promise((r) => setTimeout(r, 500));
    const again = await table(page, 'compare-figures');
    console.log(`compare-figures differ from the CLI: ${JSON.stringify(differ.slice(0, 5))}; facts ${JSON.stringify(await table(page, 'compare-facts'))}; `
      + `500 ms later ${JSON.stringify(again.filter((f) => differ.some((d) => d.key === f.key)).slice(0, 5))}`);
  }
  assert.equal(figures.length, want.figures.length);
  for (const f of figures) {
    const w = byKey.get(f.key);
    assert.ok(w, `figure ${f.key}`);
    for (const k of ['a', 'b', 'delta', 'delta_pct']) assert.equal(f[k], w[k] ?? null, `${f.key}.${k}`);
    assert.equal(f.verdict, w.verdict, `${f.key} verdict`);
    assert.equal(f.better, w.better, `${f.key} better`);
  }
  const facts = await table(page, 'compare-facts');
  assert.deepEqual(facts.map((f) => [f.a, f.b]), want.facts.map((f) => [f.a, f.b]));
  return new Map(figures.map((f) => [f.key, f]));
}

test('Compare: two traces by address side by side with gcscope compare\'s differences; the link reopens the comparison; leaving it', async () => {
  // Workstation against server GC, two traces whose pauses are TraceEvent's to the µs.
  const [a, b] = [FIX('net8.0', 'wks-nonconcurrent'), FIX('net8.0', 'server')];
  const [refA, refB] = [await te(a), await te(b)];
  const { page, context, problems } = await openWithFixtures(browser, server.base,
    '?trace=remote/net8.0/wks-nonconcurrent.nettrace&compare=remote/net8.0/server.nettrace');
  // The Compare tab shows both.
  await page.click('#tab-compare');
  await page.locator('#compare-figures').waitFor({ timeout: 60_000 });
  const shown = await checkComparison(page, a, b);
  // Independent of gcscope: each trace's GC count is TraceEvent's, and the difference follows.
  const gcs = shown.get('process.gc_count');
  assert.deepEqual([gcs.a, gcs.b, gcs.delta], [refA.gcs.length, refB.gcs.length, refB.gcs.length - refA.gcs.length]);
  const session = (r) => Date.parse(r.SessionEndTime) - Date.parse(r.SessionStartTime);
  const paused = shown.get('latency.paused_pct');
  assert.ok(Math.abs(paused.a - 100 * refA.gc_stats.TotalPauseTimeMSec / session(refA)) < 0.5, `A ${paused.a}`);
  assert.ok(Math.abs(paused.b - 100 * refB.gc_stats.TotalPauseTimeMSec / session(refB)) < 0.5, `B ${paused.b}`);
  assert.match(await page.locator('#compare-a').textContent(), /wks-nonconcurrent\.nettrace/);
  assert.match(await page.locator('#compare-b').textContent(), /server\.nettrace/);

  // The link keeps both addresses and reopens the comparison.
  const link = await page.url();
  assert.match(link, /trace=remote\/net8\.0\/wks-nonconcurrent\.nettrace&compare=remote\/net8\.0\/server\.nettrace/);
  const again = await context.newPage();
  await again.goto(link);
  await again.locator('#compare-figures').waitFor({ timeout: 60_000 });
  await checkComparison(again, a, b);

  // Leaving: B is forgotten, the address drops it, and the tab offers a new comparison.
  await again.click('#leave-compare');
  await again.locator('#compare-drop').waitFor();
  assert.doesNotMatch(await again.url(), /compare=/);
  assert.match(await again.url(), /trace=remote/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('Compare: a second trace chosen or dropped while one is open, as gcscope compare has them', async () => {
  const [a, b, c] = [FIX('net8.0', 'induced'), FIX('netcore3.1', 'induced'), FIX('net8.0', 'pinning')];
  const { page, context, problems } = await openApp(browser, server.base);
  await page.setInputFiles('#file-input', a);
  await page.locator('#report').waitFor({ timeout: 60_000 });
  // Chosen with the top bar's button: the Compare tab opens on it.
  await page.setInputFiles('#compare-input', b);
  await page.locator('#compare-figures').waitFor({ timeout: 60_000 });
  assert.match(await page.url(), /tab=compare/);
  assert.doesNotMatch(await page.url(), /compare=/, 'a local file has no address');
  await checkComparison(page, a, b);
  // Dropped on the comparison's drop zone after leaving: the open trace stays A.
  await page.click('#leave-compare');
  await dropFile(page, '#compare-drop', path.basename(c), await readFile(c));
  await page.locator('#compare-figures').waitFor({ timeout: 60_000 });
  await checkComparison(page, a, c);
  assert.match(await page.locator('.tagline').textContent(), /induced\.nettrace/);
  assert.deepEqual(problems, []);
  await context.close();
});

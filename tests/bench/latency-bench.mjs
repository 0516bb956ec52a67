// How long the Latency tab's figures take in the browser for a GC-dense trace (~100,000 GCs): the
// page gathers the rows' pauses once (`AppState::pauses`), then runs core's `latency::analyze`
// (percentiles, histogram, CDF, budget, % paused per window and the exact MMU curve) each time the
// range, budget or window changes; the tab shows both times (`#latency-timing`). A benchmark, not a
// test: it prints the times, and checks that the figures equal `gcscope latency --json`.
//
//   node tests/bench/latency-bench.mjs [--dist DIR] [--trace FILE] [--runs N] [--screenshot PNG]
//
// Without --trace it makes (or reuses) the e2e GC-dense trace: 266 MiB, one GC per simulated
// millisecond (tests/e2e/huge-table.test.mjs).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import os from 'node:os';
import path from 'node:path';
import { ROOT, BIGTRACE, GCSCOPE, buildTools, ensureTrace, serveDir, launchForMeasuring, warmFile } from './scale-lib.mjs';

const { values: opt } = parseArgs({
  options: {
    dist: { type: 'string', default: process.env.GCSCOPE_DIST ?? path.join(ROOT, 'dist') },
    trace: { type: 'string' },
    runs: { type: 'string', default: '5' },
    screenshot: { type: 'string' },
  },
});
if (![BIGTRACE, GCSCOPE].every(existsSync)) buildTools({ quiet: true });
const trace = opt.trace ?? ensureTrace(266, { extra: ['--threads', '1', '--gc-every-kib', '1024'], tag: 'dense' }).file;
const server = await serveDir(path.resolve(opt.dist));
const browser = await launchForMeasuring();
const load = () => os.loadavg().map((l) => l.toFixed(1)).join(' ');

const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
const page = await context.newPage();
const problems = [];
page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
page.on('console', (m) => { if (m.type() === 'error') problems.push(`console error: ${m.text()}`); });
await page.goto(`${server.base}?tab=latency`);
warmFile(trace);
const opened = Date.now();
await page.setInputFiles('#file-input', trace);
await page.locator('#latency-timing').waitFor({ timeout: 900_000 });
console.log(`# ${path.basename(trace)} read and shown in ${((Date.now() - opened) / 1000).toFixed(1)} s (load ${load()})`);

const timing = async () => {
  const t = await page.$eval('#latency-timing', (e) => ({
    percentiles: Number(e.dataset.percentilesMs), mmu: Number(e.dataset.mmuMs), rest: Number(e.dataset.restMs),
    log: Number(e.dataset.logMs), gcs: Number(e.dataset.gcs),
  }));
  return { ...t, both: Math.round((t.percentiles + t.mmu) * 10) / 10, all: Math.round((t.percentiles + t.mmu + t.rest) * 10) / 10 };
};
const first = await timing();
console.log(`gathering the pauses of ${first.gcs} GCs: ${first.log} ms; first run: percentiles ${first.percentiles} + MMU ${first.mmu} ms, everything ${first.all} ms`);

// Each new budget runs analyze again over the same pause log (the budget changes the worst GCs
// and windows; the percentiles and MMU are computed again all the same).
const runs = [];
for (let i = 0; i < Number(opt.runs); i++) {
  // Under 10 ms, so that the summary shows it to 3 decimals (format::ms).
  const budget = String(3 + i * 0.5);
  await page.fill('#budget-input', budget);
  await page.locator('#budget-input').dispatchEvent('change');
  await page.waitForFunction((b) => document.querySelector('#budget-input')?.value === b
    && document.querySelector('#budget-summary')?.textContent.includes(`over ${Number(b).toFixed(3)} ms`), budget);
  const t = await timing();
  runs.push(t);
  console.log(`budget ${budget} ms: percentiles ${t.percentiles} ms + MMU ${t.mmu} ms = ${t.both} ms; everything ${t.all} ms (load ${load()})`);
}
const stat = (k) => {
  const v = runs.map((r) => r[k]).sort((a, b) => a - b);
  return `best ${v[0]} ms, median ${v[Math.floor(v.length / 2)]} ms`;
};
console.log(`${first.gcs} GCs: percentiles + MMU ${stat('both')}; percentiles ${stat('percentiles')}; MMU ${stat('mmu')}; everything analyze computes ${stat('all')}`);

// The figures are the CLI's.
const budget = String(3 + (Number(opt.runs) - 1) * 0.5);
const r = spawnSync(GCSCOPE, ['latency', trace, '--json', '--budget', budget], { encoding: 'utf8', maxBuffer: 1 << 30 });
const want = JSON.parse(r.stdout);
const shown = await page.$$eval('#pause-percentiles tbody tr', (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.dataset.value ?? td.textContent)));
const same = want.pauses.every((p, i) => [p.count, p.p50_ms, p.p90_ms, p.p99_ms, p.p999_ms, p.max_ms]
  .every((v, j) => {
    const cell = shown[i][[1, 2, 3, 5, 6, 7][j]];
    return cell === '' ? v === null : Number(cell) === v;
  }));
const mmu = await page.$$eval('#mmu tbody tr:not(.spacer)', (trs) => trs.map((tr) => Number(tr.querySelectorAll('td')[1].dataset.value)));
const sameMmu = mmu.length === want.mmu.length && want.mmu.every((p, i) => p.min_utilization_pct === mmu[i]);
if (!same) console.log(JSON.stringify({ shown, want: want.pauses }));
console.log(`percentiles equal gcscope latency --json: ${same}; MMU curve (${mmu.length} sizes) equal: ${sameMmu}; problems: ${JSON.stringify(problems)}`);
if (opt.screenshot) await page.screenshot({ path: opt.screenshot, fullPage: true });
await browser.close();
await server.close();
if (!same || !sameMmu || problems.length) process.exit(1);

// The Findings panel (the Overview's top) against the native CLI on the same files: the panel's
// ranked findings (rule, severity, summary, how many GCs) are `gcscope findings --json`'s, with the
// default settings and with the goal and pause budget set in the page (and kept in the address
// bar). A finding's link filters the GC table to exactly its GCs; a trace with nothing wrong says so
// and lists what was checked. Screenshots of the panel on three traces go to docs/screenshots/.
// Needs the release CLI and trace generator: cargo build --release -p gcscope-cli &&
//   cargo build --release -p gcscope-core --features encode --example bigtrace
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { ROOT, ENGINE, OUT, serveDist, launch, openApp } from './harness.mjs';
import { mkdir } from 'node:fs/promises';
import { GCSCOPE, ensureTrace } from '../bench/scale-lib.mjs';

// Chromium's screenshots are the documentation's; the other engines' go to tests/output/<engine>/.
const DOCS = ENGINE === 'chromium' ? path.join(ROOT, 'docs/screenshots') : OUT;
const FIX = (v, name) => path.join(ROOT, 'fixtures/traces', v, `${name}.nettrace`);
let server, browser;
before(async () => { server = await serveDist(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

/** `gcscope findings FILE --json [args]`, parsed. */
function cli(file, args = []) {
  const r = spawnSync(GCSCOPE, ['findings', file, '--json', ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

async function open(page, file) {
  await page.setInputFiles('#file-input', file);
  await page.locator('#report').waitFor({ timeout: 30_000 });
  await page.locator('#findings-verdict').waitFor();
}

/** The panel's findings as the CLI's JSON has them. */
async function panel(page) {
  return page.$$eval('#findings-list > li.finding', (lis) => lis.map((li) => ({
    rule: li.dataset.rule,
    severity: li.dataset.severity,
    summary: li.querySelector('.finding-summary').textContent,
    gcs: Number(li.querySelector('.finding-gcs')?.dataset.count ?? 0),
  })));
}

const expected = (report) => report.findings.map((f) => ({
  rule: f.rule, severity: f.severity, summary: f.summary, gcs: f.evidence.gcs.length,
}));

test('the panel shows the findings gcscope findings --json gives, on four workloads', async () => {
  const { page, context, problems } = await openApp(browser, server.base);
  for (const [v, name] of [['net8.0', 'induced'], ['net8.0', 'mempressure'], ['net9.0', 'datas'], ['netcore3.1', 'pinning']]) {
    const file = FIX(v, name);
    await open(page, file);
    const want = cli(file);
    assert.ok(want.findings.length > 0, `${v}/${name}`);
    assert.deepEqual(await panel(page), expected(want), `${v}/${name}`);
    assert.equal(await page.locator('#findings-verdict').textContent(), want.verdict);
    // Every rule checked is listed with its outcome.
    const outcomes = await page.$$eval('#findings-checks-table tbody tr', (trs) => trs.map((tr) => tr.children[2].textContent));
    assert.deepEqual(outcomes, want.checks.map((c) => c.outcome.replace('_', ' ')), `${v}/${name}`);
  }
  assert.deepEqual(problems, []);
  await context.close();
});

test('a finding links to its GCs: the GC table shows exactly them', async () => {
  const file = FIX('net8.0', 'induced');
  const want = cli(file).findings.find((f) => f.rule === 'induced').evidence.gcs;
  const { page, context, problems } = await openApp(browser, server.base);
  await open(page, file);
  await page.click('#findings-list li[data-rule="induced"] .finding-gcs');
  await page.locator('#gc-table tbody tr[data-gc]').first().waitFor();
  const shown = await page.$$eval('#gc-table tbody tr[data-gc]', (trs) => trs.map((tr) => Number(tr.dataset.gc)));
  assert.deepEqual(shown, want);
  const count = await page.locator('#row-count').textContent();
  assert.match(count, new RegExp(`^${want.length} of `), count);
  assert.match(await page.locator('#filter-only').textContent(), new RegExp(`${want.length} GCs`));
  // The filter is in the address (a link to it shows the same GCs).
  const url = await page.url();
  assert.match(url, /[?&]tab=gcs/);
  assert.match(url, /[?&]only=[0-9,-]+/);
  // Opening the finding's first GC shows its detail panel.
  await page.click('#tab-overview');
  await page.click(`#findings-list li[data-rule="induced"] .finding-gc`);
  assert.match(await page.url(), new RegExp(`[?&]gc=${want[0]}(&|$)`));
  assert.deepEqual(problems, []);
  await context.close();
});

test('goal and pause budget set in the page reach the rules and the address bar', async () => {
  const file = FIX('net8.0', 'induced');
  const want = cli(file, ['--goal', 'latency', '--budget', '9.5']);
  assert.ok(want.findings.some((f) => f.rule === 'pauses-over-budget'));
  const { page, context, problems } = await openApp(browser, server.base);
  await open(page, file);
  await page.selectOption('#findings-goal', 'latency');
  await page.fill('#findings-budget', '9.5');
  await page.locator('#findings-budget').dispatchEvent('change');
  await page.locator('#findings-list li[data-rule="pauses-over-budget"]').waitFor();
  assert.deepEqual(await panel(page), expected(want));
  const url = await page.url();
  assert.match(url, /[?&]goal=latency/);
  assert.match(url, /[?&]budget=9\.5/);
  // The same address opens the same settings.
  const { page: again, context: c2, problems: p2 } = await openApp(browser, server.base, '?goal=latency&budget=9.5');
  await open(again, file);
  assert.deepEqual(await panel(again), expected(want));
  assert.equal(await again.locator('#findings-goal').inputValue(), 'latency');
  assert.deepEqual([...problems, ...p2], []);
  await context.close();
  await c2.close();
});

test('a trace with nothing wrong says so and lists every rule it checked', async () => {
  // A generated trace with a GC every ~100 MB: well under 5% of its time paused.
  const { file } = ensureTrace(4, { extra: ['--gc-every-kib', '100000'], tag: 'quiet' });
  const want = cli(file);
  assert.equal(want.findings.length, 0, want.verdict);
  const { page, context, problems } = await openApp(browser, server.base);
  await open(page, file);
  await page.locator('#findings-none').waitFor();
  assert.equal(await page.locator('#findings-list > li').count(), 0);
  assert.equal(await page.locator('#findings-verdict').textContent(), want.verdict);
  // The list of rules is open, every rule with what it saw.
  assert.equal(await page.locator('#findings-checks').getAttribute('open'), '');
  const notes = await page.$$eval('#findings-checks-table tbody tr', (trs) => trs.map((tr) => tr.children[3].textContent));
  assert.deepEqual(notes, want.checks.map((c) => c.note));
  assert.deepEqual(problems, []);
  await context.close();
});

test('screenshots of the Findings panel on three traces', async () => {
  const { file: quiet } = ensureTrace(4, { extra: ['--gc-every-kib', '100000'], tag: 'quiet' });
  await mkdir(DOCS, { recursive: true });
  for (const [file, name, expand] of [
    [FIX('net8.0', 'mempressure'), '22-findings', null],
    [FIX('net9.0', 'datas'), '23-findings-datas', 'datas'],
    [quiet, '24-findings-none', null],
  ]) {
    const context = await browser.newContext({ viewport: { width: 1400, height: 860 } });
    const page = await context.newPage();
    await page.goto(server.base);
    await open(page, file);
    if (expand) await page.click(`#findings-list li[data-rule="${expand}"] .finding-details summary`);
    // The panel is the Overview's top: the viewport shows it.
    await page.screenshot({ path: path.join(DOCS, `${name}.png`) });
    await context.close();
  }
});

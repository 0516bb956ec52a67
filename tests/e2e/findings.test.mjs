// The Findings panel (the Overview's top) against the native CLI on the same files: the panel's
// ranked findings (rule, severity, summary, how many GCs) are `gcscope findings --json`'s, with the
// default settings and with the goal and pause budget set in the page (and kept in the address
// bar). A finding's link filters the GC table to exactly its GCs; a trace with nothing wrong says so
// and lists what was checked. On an ETW trace, the panel is the picked process's findings
// (`gcscope findings --pid N`), each naming the events the session lost. The Compare tab shows the
// findings that appear, disappear or change from A to B as `gcscope compare --json` has them, each
// linking to its evidence on its side. Screenshots of the panel on three traces and of the
// comparison's findings go to docs/screenshots/.
// Needs the release CLI and the test-only writers: cargo build --release -p gcscope-cli &&
//   cargo build --release -p gcscope-core --features encode --example bigtrace --example etl_machine
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { existsSync } from 'node:fs';
import os from 'node:os';
import { ROOT, SHARED, ENGINE, OUT, serveDist, launch, openApp, figuresOnly } from './harness.mjs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { GCSCOPE, TARGET, ensureTrace } from '../bench/scale-lib.mjs';
import { FIXTURES, openWithFixtures } from './inputs.mjs';

// Chromium's screenshots are the documentation's; the other engines' go to tests/output/<engine>/.
const DOCS = ENGINE === 'chromium' ? path.join(ROOT, 'docs/screenshots') : OUT;
const FIX = (v, name) => path.join(FIXTURES, v, `${name}.nettrace`);
const PERFVIEW_X64 = path.join(SHARED, 'traces/perfview/net.4.5.2.x64.etl.zip');
const ETL_MACHINE = path.join(TARGET, 'release/examples/etl_machine');
let server, browser, tmp;
before(async () => {
  if (!existsSync(ETL_MACHINE)) {
    const r = spawnSync('cargo', ['build', '--release', '-p', 'gcscope-core', '--features', 'encode', '--example', 'etl_machine'], { cwd: ROOT, stdio: 'inherit' });
    assert.equal(r.status, 0, 'building etl_machine');
  }
  tmp = await mkdtemp(path.join(os.tmpdir(), 'gcscope-findings-'));
  server = await serveDist();
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await server?.close();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

/** `gcscope SUBCOMMAND ...args --json`, parsed. */
function gcscope(args) {
  const r = spawnSync(GCSCOPE, [...args, '--json'], { encoding: 'utf8', maxBuffer: 1 << 28 });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

/** `gcscope findings FILE --json [args]`, parsed. */
const cli = (file, args = []) => gcscope(['findings', file, ...args]);

/** The pids of an ETW trace's processes with GC events, as the CLI lists them (default first). */
function cliPids(file) {
  const r = spawnSync(GCSCOPE, ['summary', '--json', file], { encoding: 'utf8', maxBuffer: 1 << 28 });
  assert.equal(r.status, 0, r.stderr);
  const pids = [...r.stderr.matchAll(/\(pid (\d+)\)/g)].map((m) => Number(m[1]));
  return pids.length ? pids : [JSON.parse(r.stdout).process.process_id];
}

/** Picks process `pid` in the ETW picker and waits until it is read. */
async function pick(page, pid) {
  if (!(await page.$$eval('#processes', (d) => d[0].open))) await page.click('#processes summary');
  await page.click(`#process-table button[data-pid="${pid}"]`);
  await page.locator(`#process-table tr.current[data-pid="${pid}"]`).waitFor({ timeout: 60_000, state: 'attached' });
  await page.locator('#report').waitFor({ timeout: 60_000 });
  await page.locator('#findings-verdict').waitFor();
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

test('the panel shows the findings gcscope findings --json gives, on four workloads', { skip: figuresOnly('the findings against the CLI') }, async () => {
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

test('a trace with nothing wrong says so and lists every rule it checked', { skip: figuresOnly('the findings against the CLI') }, async () => {
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

test('an ETW trace: the picked process\'s findings, as gcscope findings --pid gives them', { skip: (!existsSync(PERFVIEW_X64) && 'no ../shared here (the PerfView .etl.zip files)') || figuresOnly('the findings against the CLI') }, async () => {
  const pids = cliPids(PERFVIEW_X64);
  assert.equal(pids.length, 2, 'the test app and PerfView');
  // A 5 ms budget for latency: PerfView's one GC pauses longer, the test app's do not.
  const settings = ['--goal', 'latency', '--budget', '5'];
  const { page, context, problems } = await openApp(browser, server.base, '?goal=latency&budget=5');
  await open(page, PERFVIEW_X64);
  for (const [i, pid] of pids.entries()) {
    if (i > 0) await pick(page, pid);
    const want = cli(PERFVIEW_X64, ['--pid', String(pid), ...settings]);
    assert.deepEqual(await panel(page), expected(want), `pid ${pid}`);
    assert.equal(await page.locator('#findings-verdict').textContent(), want.verdict, `pid ${pid}`);
    const outcomes = await page.$$eval('#findings-checks-table tbody tr', (trs) => trs.map((tr) => tr.children[2].textContent));
    assert.deepEqual(outcomes, want.checks.map((c) => c.outcome.replace('_', ' ')), `pid ${pid}`);
    // Nothing lost in this session: no finding carries a warning.
    assert.equal(await page.locator('#findings-list .finding-caveat').count(), 0, `pid ${pid}`);
  }
  // The two processes' findings differ, so the panel did follow the pick.
  assert.notDeepEqual(expected(cli(PERFVIEW_X64, ['--pid', String(pids[0]), ...settings])), expected(cli(PERFVIEW_X64, ['--pid', String(pids[1]), ...settings])));
  assert.deepEqual(problems, []);
  await context.close();
});

test('a machine-wide ETW trace that lost events: each process\'s findings name what the loss may hide or fake', { skip: figuresOnly('the findings against the CLI') }, async () => {
  const procs = [[5012, 'Shop.Api', 'server'], [7200, 'Batch', 'induced'], [6100, 'Worker', 'mempressure']];
  const file = path.join(tmp, 'lost.etl');
  const r = spawnSync(ETL_MACHINE, [file, '--lost', '123', ...procs.map(([pid, name, fix]) => `${pid}:${name}:${FIX('net8.0', fix)}`)], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const pids = cliPids(file);
  assert.deepEqual([...pids].sort(), procs.map(([pid]) => pid).sort());
  const { page, context, problems } = await openApp(browser, server.base);
  await open(page, file);
  let found = 0;
  for (const [i, pid] of pids.entries()) {
    if (i > 0) await pick(page, pid);
    const want = cli(file, ['--pid', String(pid)]);
    found += want.findings.length;
    assert.deepEqual(await panel(page), expected(want), `pid ${pid}`);
    // The verdict says events were lost; each finding, what the loss could do to it (the rule's own
    // sentence), in sight on the finding.
    assert.equal(await page.locator('#findings-verdict').textContent(), want.verdict);
    assert.match(want.verdict, /123 events were lost/);
    const caveats = await page.$$eval('#findings-list > li.finding', (lis) => lis.map((li) => [...li.querySelectorAll(':scope > .finding-caveat')].map((p) => p.textContent)));
    assert.deepEqual(caveats, want.findings.map((f) => f.caveats.map((c) => `⚠ ${c}`)), `pid ${pid}`);
    for (const c of caveats) assert.ok(c.some((t) => /^⚠ 123 events were lost: ./.test(t)), `pid ${pid}: ${c}`);
  }
  assert.ok(found > 0, 'the induced and memory-pressure workloads have findings');
  // Looked at: the warning under each finding (tests/output/<engine>/).
  await mkdir(OUT, { recursive: true });
  await page.screenshot({ path: path.join(OUT, 'findings-etl-lost.png') });
  assert.deepEqual(problems, []);
  await context.close();
});

test('Compare: the findings that appear, disappear or change from A to B, as gcscope compare --json has them, each linking to its evidence', async () => {
  // Two workloads whose findings differ: gen2 GCs triggered by large allocations in A, pinning and
  // mostly blocking gen2 GCs in B.
  const [a, b] = ['net8.0/loh.nettrace', 'net8.0/pinning.nettrace'];
  const want = gcscope(['compare', path.join(FIXTURES, a), path.join(FIXTURES, b)]).findings;
  const [ra, rb] = [cli(path.join(FIXTURES, a)), cli(path.join(FIXTURES, b))];
  const kinds = new Set(want.map((c) => c.kind));
  assert.ok(kinds.has('appeared') && kinds.has('disappeared'), JSON.stringify([...kinds]));
  const { page, context, problems } = await openWithFixtures(browser, server.base, `?trace=remote/${a}&compare=remote/${b}&tab=compare`);
  await page.locator('#compare-findings-list').waitFor({ timeout: 60_000 });
  const shown = await page.$$eval('#compare-findings-list > li', (lis) => lis.map((li) => ({
    rule: li.dataset.rule,
    kind: li.dataset.kind,
    what: li.querySelector('.compare-what').textContent,
    a: Number(li.querySelector('.compare-a-gcs')?.dataset.count ?? 0),
    b: Number(li.querySelector('.compare-b-gcs')?.dataset.count ?? 0),
  })));
  const word = { appeared: 'appears', disappeared: 'gone', changed: 'changed', not_comparable: 'one side only' };
  const gcsOf = (r, rule) => r.findings.find((f) => f.rule === rule)?.evidence.gcs ?? [];
  assert.deepEqual(shown, want.map((c) => ({ rule: c.rule, kind: word[c.kind], what: c.what, a: gcsOf(ra, c.rule).length, b: gcsOf(rb, c.rule).length })));
  assert.equal(await page.locator('#compare-findings-a').textContent(), `A: ${ra.verdict}`);
  assert.equal(await page.locator('#compare-findings-b').textContent(), `B: ${rb.verdict}`);

  // B's side: its link opens B alone with only the finding's GCs in its table.
  const appeared = want.find((c) => c.kind === 'appeared' && gcsOf(rb, c.rule).length > 0);
  const href = await page.locator(`#compare-findings-list li[data-rule="${appeared.rule}"] .compare-b-gcs`).getAttribute('href');
  assert.match(href, new RegExp(`trace=remote/${b.replace('.', '\\.')}`));
  await page.screenshot({ path: path.join(DOCS, '34-compare-findings.png'), fullPage: false });
  const bPage = await context.newPage();
  await bPage.goto(new URL(href, await page.url()).href);
  await bPage.locator('#gc-table tbody tr[data-gc]').first().waitFor({ timeout: 60_000 });
  const bShown = await bPage.$$eval('#gc-table tbody tr[data-gc]', (trs) => trs.map((tr) => Number(tr.dataset.gc)));
  assert.deepEqual(bShown, [...new Set(gcsOf(rb, appeared.rule))].sort((x, y) => x - y));

  // A's side: its GCs in this page's table.
  const gone = want.find((c) => c.kind === 'disappeared' && gcsOf(ra, c.rule).length > 0);
  await page.click(`#compare-findings-list li[data-rule="${gone.rule}"] .compare-a-gcs`);
  await page.locator('#gc-table tbody tr[data-gc]').first().waitFor();
  const aShown = await page.$$eval('#gc-table tbody tr[data-gc]', (trs) => trs.map((tr) => Number(tr.dataset.gc)));
  assert.deepEqual(aShown, [...new Set(gcsOf(ra, gone.rule))].sort((x, y) => x - y));

  // B a local file: no address to open it by, so its GCs are listed on the tab.
  await page.click('#tab-compare');
  await page.click('#leave-compare');
  await page.setInputFiles('#compare-input', path.join(FIXTURES, b));
  await page.locator('#compare-findings-list').waitFor({ timeout: 60_000 });
  assert.equal(await page.locator('#compare-findings-list .compare-b-gcs').count(), 0);
  const listed = await page.$$eval('#compare-findings-list > li', (lis) => lis.map((li) => [li.dataset.rule, li.querySelector('.compare-b-list')?.textContent ?? '']));
  for (const [rule, text] of listed) {
    const g = gcsOf(rb, rule);
    assert.equal(text, g.length ? g.slice(0, 200).map((n) => `#${n}`).join(', ') + (g.length > 200 ? `, … ${g.length - 200} more` : '') : '', rule);
  }
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

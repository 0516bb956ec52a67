// The DATAS tab against `gcscope datas --json` on the same file (the native CLI over the same core,
// itself checked against the runtime's settings and TraceEvent in core's tests), and its per-GC heap
// counts against TraceEvent's reading of each GC's GCGlobalHeapHistory; the empty state of traces
// without DATAS against the runtime's own settings; a `?trace=...&tab=datas` link reopening the tab
// with its time range and a table's filter. Interactions are kept to goto, set input files, click
// and read text (the harness is to run in other browsers too).
//
// Needs the release CLI (built here when missing): cargo build --release -p gcscope-cli
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, mkdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { ROOT, ENGINE, OUT, serveDist, launch, openApp, figuresOnly } from './harness.mjs';

const GCSCOPE = path.join(process.env.CARGO_TARGET_DIR ?? path.join(ROOT, 'target'), 'release/gcscope');
const FIX = (name) => path.join(ROOT, 'fixtures/traces', `${name}.nettrace`);
const te = async (file) => JSON.parse(await readFile(file.replace(/\.nettrace$/, '.traceevent.json'), 'utf8'));
const oracle = async (file) => JSON.parse(await readFile(file.replace(/\.nettrace$/, '.oracle.json'), 'utf8'));
/** Every DATAS fixture: .NET 8 (opt-in; HeapCountSample/Tuning), .NET 9 and 10 (default and tuned). */
const DATAS = ['net8.0/datas', 'net9.0/datas', 'net9.0/datas-tuned', 'net10.0/datas', 'net10.0/datas-tuned'];

let server, browser;
before(async () => {
  if (!existsSync(GCSCOPE)) {
    const r = spawnSync('cargo', ['build', '--release', '-p', 'gcscope-cli'], { cwd: ROOT, stdio: 'pipe', encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`cargo build --release -p gcscope-cli failed:\n${r.stderr}`);
  }
  server = await serveDist();
  browser = await launch();
});
after(async () => { await browser?.close(); await server?.close(); });

function cli(args) {
  const r = spawnSync(GCSCOPE, args, { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`gcscope ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}
const cliJson = (file) => JSON.parse(cli(['datas', file, '--json']));

async function open(page, file) {
  await page.setInputFiles('#file-input', file);
  // The report button appears once the whole model is in, on every tab.
  await page.locator('#report').waitFor({ timeout: 30_000 });
}

/**
 * The table `id` as the page shows it: its rows as objects by column key, numbers from the
 * cells' raw values (`data-value`; null when empty), text as shown; and the GC each row opens.
 */
async function table(page, id) {
  const t = await page.$eval(`#${id}`, (el) => ({
    cols: [...el.querySelectorAll('thead th')].map((th) => th.dataset.col),
    rows: [...el.querySelectorAll('tbody tr:not(.spacer)')].map((tr) => ({
      gc: tr.dataset.gc ?? null,
      cells: [...tr.cells].map((td) => (td.dataset.value !== undefined ? { v: td.dataset.value } : { t: td.textContent })),
    })),
    total: Number(el.dataset.rows),
  }));
  assert.equal(t.rows.length, t.total, `${id}: every row is drawn`);
  const rows = t.rows.map((r) => Object.fromEntries(r.cells.map((c, i) => [t.cols[i],
    'v' in c ? (c.v === '' ? null : Number(c.v)) : c.t])));
  return { rows, gcs: t.rows.map((r) => (r.gc === null ? null : Number(r.gc))) };
}

/** The gen0 budget per heap DATAS had set at GC `gc`: the last sample at or before it (what the
 * CLI's sentence quotes). */
const budgetAt = (j, gc) => [...j.samples].reverse().find((s) => s.gc <= gc && s.gen0_budget_per_heap_bytes != null)
  ?.gen0_budget_per_heap_bytes ?? null;

/** A tuning code as the decisions table shows it: the runtime's name and the number the event
 * carried (the number alone for a code gcscope does not know); empty for events without codes. */
const named = (c) => (c == null ? '' : c.name === String(c.value) ? c.name : `${c.name} (${c.value})`);

/** What each table must hold, from the CLI's JSON (restricted to `keep(gc, ms)` for a range). */
function expected(j, keep = () => true) {
  const start = new Map(j.per_gc.map((g) => [g.gc, g.ms]));
  const inRange = (gc, ms) => keep(start.get(gc) ?? ms);
  const changes = j.changes.filter((c) => inRange(c.gc, c.ms)).map((c) => {
    const d = c.decision == null ? null : j.decisions[c.decision];
    return {
      gc: c.gc, ms: c.ms, from: c.from, to: c.to,
      'decision.gc': d?.gc ?? null,
      'decision.event': d?.event ?? 'no tuning event',
      'decision.verdict': d?.verdict ?? '',
      'decision.median_tcp_pct': d?.median_tcp_pct ?? null,
      'decision.tcp_considered_pct': d?.tcp_considered_pct ?? null,
      'decision.gcs_since_last_change': d?.gcs_since_last_change ?? null,
      'decision.soh_stable_bytes': d?.soh_stable_bytes ?? null,
      'decision.max_heaps_by_budget': d?.max_heaps_by_budget ?? null,
      'decision.min_heaps_by_budget': d?.min_heaps_by_budget ?? null,
      gen0_budget_per_heap_bytes: d ? budgetAt(j, d.gc) : null,
      'decision.other_fields': d?.other_fields ?? '',
    };
  });
  const decisions = j.decisions.map((d, i) => [d, i]).filter(([d]) => inRange(d.gc, d.ms)).map(([d, i]) => ({
    gc: d.gc, ms: d.ms, event: d.event, heaps_before: d.heaps_before, new_heap_count: d.new_heap_count,
    verdict: d.verdict,
    median_tcp_pct: d.median_tcp_pct, tcp_considered_pct: d.tcp_considered_pct,
    gcs_since_last_change: d.gcs_since_last_change, soh_stable_bytes: d.soh_stable_bytes,
    max_heaps_by_budget: d.max_heaps_by_budget, min_heaps_by_budget: d.min_heaps_by_budget,
    'codes.change_decision': named(d.codes?.change_decision),
    'codes.adjustment_reason': named(d.codes?.adjustment_reason),
    'codes.change_frequency_factor': d.codes?.change_frequency_factor ?? null,
    'codes.change_frequency_reason': named(d.codes?.change_frequency_reason),
    'codes.adjustment_metric': named(d.codes?.adjustment_metric),
    changed_at_gc: j.changes.find((c) => c.decision === i)?.gc ?? null,
    other_fields: d.other_fields,
  }));
  const samples = j.samples.filter((s) => inRange(s.gc, s.ms)).map((s) => ({
    gc: s.gc, ms: s.ms, heaps: s.heaps, pause_us: s.pause_us, elapsed_between_gcs_us: s.elapsed_between_gcs_us,
    msl_wait_us: s.msl_wait_us, throughput_cost_pct: s.throughput_cost_pct,
    gen0_budget_per_heap_bytes: s.gen0_budget_per_heap_bytes, soh_stable_bytes: s.soh_stable_bytes,
  }));
  const perGc = j.per_gc.filter((g) => keep(g.ms)).map((g) => ({ gc: g.gc, ms: g.ms, heaps: g.heaps }));
  const why = j.changes.map((c, i) => [c, j.why[i]]).filter(([c]) => inRange(c.gc, c.ms)).map(([, w]) => w);
  return { changes, decisions, samples, perGc, why };
}

test('DATAS tab: changes, decisions, samples and heap counts equal `gcscope datas --json`; heap counts equal TraceEvent\'s', { skip: figuresOnly('the DATAS figures against the CLI and TraceEvent') }, async () => {
  for (const name of DATAS) {
    const file = FIX(name);
    const j = cliJson(file);
    assert.ok(j.samples.length > 0 && j.decisions.length > 0, `${name}: the fixture has DATAS events`);
    // A fresh page for each trace: nothing of the one before can be read for it.
    const { page, context, problems } = await openApp(browser, server.base);
    await open(page, file);
    await page.click('#tab-datas');
    await page.locator('#datas-per-gc').waitFor();
    assert.match(await page.url(), /[?&]tab=datas\b/);
    const want = expected(j);
    assert.equal(await page.locator('#datas-mode').textContent(), j.gc_mode, name);
    assert.equal(Number(await page.locator('#datas-change-count').textContent()), j.changes.length, name);
    // Each change with the decision behind it, the decisions, the samples, every GC's heap count.
    const changes = await table(page, 'datas-changes');
    assert.deepEqual(changes.rows, want.changes, `${name}: changes`);
    assert.deepEqual(changes.gcs, want.changes.map((c) => c.gc), `${name}: change rows open their GC`);
    assert.deepEqual((await table(page, 'datas-decisions')).rows, want.decisions, `${name}: decisions`);
    // Each change's decision says which way it went and why, from the runtime's codes.
    for (const c of want.changes.filter((c) => c['decision.event'] === 'SizeAdaptationTuning')) {
      assert.match(c['decision.verdict'], c.to > c.from ? /^increase: throughput cost above target/ : /^decrease: throughput cost below target/, name);
    }
    assert.doesNotMatch(await page.locator('#datas-raw-note').textContent(), /does not decode/);
    assert.deepEqual((await table(page, 'datas-samples')).rows, want.samples, `${name}: samples`);
    const perGc = await table(page, 'datas-per-gc');
    assert.deepEqual(perGc.rows, want.perGc, `${name}: heap count per GC`);
    assert.deepEqual((await table(page, 'datas-by-heap-count')).rows, j.gcs_by_heap_count, `${name}: GCs per heap count`);
    // "Why": one sentence per change, the CLI's, in order; the chart marks each change at its GC.
    if (j.changes.length) {
      assert.deepEqual(await page.locator('#datas-why li .why-text').allTextContents(), want.why, name);
    } else {
      assert.match(await page.locator('#datas-why-none').textContent(), /never changed/);
    }
    const marks = await page.$$eval('#datas-heaps-chart g.mark', (gs) => gs.map((g) => Number(g.dataset.gc)));
    assert.deepEqual(marks, j.changes.map((c) => c.gc), name);
    // "Why did my app grow to N heaps?": the sentence of the first change that reached the most heaps.
    const most = Math.max(...j.per_gc.map((g) => g.heaps));
    const reached = j.changes.findIndex((c) => c.to === most);
    const whyMost = await page.locator('#datas-why-most').textContent();
    assert.ok(whyMost.startsWith(`Why ${most} heap${most === 1 ? '' : 's'}? `), whyMost);
    if (reached >= 0) assert.ok(whyMost.includes(j.why[reached]), `${whyMost} / ${j.why[reached]}`);
    // Independently: each GC's heap count as TraceEvent read its GCGlobalHeapHistory (where it has one).
    const ref = new Map((await te(file)).gcs.filter((g) => g.GlobalHeapHistory).map((g) => [g.Number, g.GlobalHeapHistory.NumHeaps]));
    let compared = 0;
    for (const g of perGc.rows) {
      if (!ref.has(g.gc)) continue;
      assert.equal(g.heaps, ref.get(g.gc), `${name}: GC ${g.gc}'s heap count`);
      compared++;
    }
    // TraceEvent has no global history for a few GCs (background GCs whose history it gives to
    // another GC); every other GC is compared.
    assert.ok(compared >= 0.95 * perGc.rows.length, `${name}: ${compared} of ${perGc.rows.length} GCs compared with TraceEvent`);
    assert.ok(new Set(perGc.rows.map((g) => g.gc)).size === perGc.rows.length, `${name}: one row per GC`);
    assert.deepEqual(problems, [], name);
    await context.close();
  }
});

test('DATAS tab: a row, a change\'s link and a chart mark open their GC', async () => {
  const file = FIX('net9.0/datas');
  const j = cliJson(file);
  const { page, context, problems } = await openApp(browser, server.base);
  await open(page, file);
  await page.click('#tab-datas');
  const g = j.per_gc[3].gc;
  await page.click(`#datas-per-gc tbody tr[data-gc="${g}"]`);
  assert.match(await page.locator('#detail-title').textContent(), new RegExp(`GC #${g}\\b`));
  assert.match(await page.url(), new RegExp(`[?&]gc=${g}\\b`));
  assert.equal(await page.locator(`#datas-per-gc tbody tr.selected`).getAttribute('data-gc'), String(g));
  const c = j.changes[0].gc;
  // The detail panel covers the page's right side, where a sentence's link can end up.
  await page.keyboard.press('Escape');
  await page.click(`#datas-why li[data-gc="${c}"] button`);
  assert.match(await page.locator('#detail-title').textContent(), new RegExp(`GC #${c}\\b`));
  const last = j.changes[j.changes.length - 1].gc;
  await page.keyboard.press('Escape'); // the detail panel covers the chart's right side
  await page.click(`#datas-heaps-chart g.mark[data-gc="${last}"] rect.mark-hit`);
  assert.match(await page.locator('#detail-title').textContent(), new RegExp(`GC #${last}\\b`));
  assert.deepEqual(problems, []);
  await context.close();
});

test('a ?trace=...&tab=datas link reopens the tab with its time range and a table\'s filter', async () => {
  const file = FIX('net9.0/datas');
  const j = cliJson(file);
  const { page, context, problems } = await openApp(browser, server.base);
  // The trace as if on a web server: at an address under the app's, answered from the fixture.
  const bytes = await readFile(file);
  await page.route('**/remote/datas.nettrace', (route) => route.fulfill({ status: 200, body: bytes, contentType: 'application/octet-stream' }));
  // A range from the first change's GC start to just before the last change's: one change in it.
  const start = new Map(j.per_gc.map((g) => [g.gc, g.ms]));
  const t0 = start.get(j.changes[0].gc);
  const t1 = start.get(j.changes[j.changes.length - 1].gc) - 1;
  assert.ok(j.changes.length >= 2 && t1 > t0, 'the fixture changes its heap count twice');
  const query = `?trace=remote/datas.nettrace&tab=datas&t0=${t0}&t1=${t1}&decisionq=FullGC`;
  await page.goto(server.base + query);
  await page.locator('#datas-per-gc').waitFor({ timeout: 30_000 });
  assert.ok(await page.locator('#tab-datas.active').count(), 'the DATAS tab is open');
  assert.match(await page.locator('#range').textContent(), /Time range/);
  const keep = (ms) => ms >= t0 && ms <= t1;
  const want = expected(j, keep);
  assert.equal(want.changes.length, 1);
  assert.deepEqual((await table(page, 'datas-changes')).rows, want.changes);
  assert.deepEqual((await table(page, 'datas-per-gc')).rows, want.perGc);
  assert.deepEqual((await table(page, 'datas-samples')).rows, want.samples);
  assert.deepEqual(await page.locator('#datas-why li .why-text').allTextContents(), want.why);
  // The decisions table keeps its filter from the link: the full-GC decisions in the range.
  assert.equal(await page.locator('#datas-decisions-filter').inputValue(), 'FullGC');
  const full = want.decisions.filter((d) => `${d.event} ${d.other_fields}`.toLowerCase().includes('fullgc'));
  assert.ok(full.length > 0);
  assert.deepEqual((await table(page, 'datas-decisions')).rows, full);
  // The address still holds all of it (a link made now reopens the same view).
  const q = new URL(await page.url()).searchParams;
  assert.equal(q.get('tab'), 'datas');
  assert.equal(q.get('trace'), 'remote/datas.nettrace');
  assert.equal(Number(q.get('t0')), t0);
  assert.equal(q.get('decisionq'), 'FullGC');
  assert.deepEqual(problems, []);
  await context.close();
});

test('DATAS tab on traces without DATAS: says so, with the GC mode\'s evidence, and how to enable and capture it', { skip: figuresOnly('the DATAS figures against the CLI and TraceEvent') }, async () => {
  for (const name of ['net10.0/wks-concurrent', 'net8.0/server', 'netcore3.1/server']) {
    const { page, context, problems } = await openApp(browser, server.base);
    const file = FIX(name);
    const [j, orc] = [cliJson(file), await oracle(file)];
    // The runtime's own settings: no DATAS (workstation GC, .NET 8 server GC without the opt-in, 3.1).
    const set = orc.gc_settings_at_start ?? {}, env = orc.runtime?.environment ?? {};
    const major = Number(orc.runtime.environment_version.split('.')[0]);
    const isServer = set.is_server_gc ?? env.DOTNET_gcServer === '1';
    const mode = set.dynamic_adaptation_mode ?? Number(env.DOTNET_GCDynamicAdaptationMode ?? (major >= 9 ? 1 : 0));
    assert.ok(!isServer || major < 8 || mode !== 1 || (env.DOTNET_GCHeapCount ?? env.COMPlus_GCHeapCount) !== undefined, `${name}: the runtime ran without DATAS`);
    assert.equal(j.datas, false, name);
    await open(page, file);
    await page.click('#tab-datas');
    await page.locator('#datas-empty').waitFor();
    assert.equal(await page.locator('#datas-per-gc').count(), 0);
    const verdict = await page.locator('#datas-verdict').textContent();
    const datasFact = j.evidence.find((f) => f.setting === 'datas');
    assert.equal(verdict, `This trace is not DATAS: the GC did not adapt its heap count (${datasFact.evidence}).`, name);
    const evidence = await page.locator('#datas-empty-evidence li').allTextContents();
    assert.equal(evidence[0], `GC mode: ${j.gc_mode}`);
    for (const s of ['gc', 'datas', 'heaps']) {
      const f = j.evidence.find((x) => x.setting === s);
      assert.ok(evidence.includes(`${s}: ${f.value} (${f.evidence})`), `${name}: ${s}`);
    }
    // How to enable DATAS and capture its events: the CLI's text for the same trace.
    const human = cli(['datas', file]);
    const how = human.slice(human.indexOf('No DATAS events in this trace.') + 'No DATAS events in this trace.'.length).trim();
    assert.equal(await page.locator('#datas-how').textContent(), how.replace(/\n/g, ' '), name);
    assert.match(how, /Microsoft-Windows-DotNETRuntime:0x1:4/);
    assert.deepEqual(problems, [], name);
    await context.close();
  }
});

test('screenshots: the DATAS tab of a .NET 9 trace, and its empty state', async () => {
  // Chromium's are the documentation's; the other engines' go to tests/output/<engine>/.
  const dir = ENGINE === 'chromium' ? path.join(ROOT, 'docs/screenshots') : OUT;
  await mkdir(dir, { recursive: true });
  const { page, context, problems } = await openApp(browser, server.base, '', { viewport: { width: 1400, height: 860 } });
  await open(page, FIX('net9.0/datas'));
  await page.click('#tab-datas');
  await page.locator('#datas-heaps-chart g.mark').first().waitFor();
  await page.screenshot({ path: path.join(dir, '22-datas.png') });
  await page.evaluate(() => document.querySelector('#datas-changes').closest('.side-table').scrollIntoView());
  await page.screenshot({ path: path.join(dir, '23-datas-decisions.png') });
  assert.deepEqual(problems, []);
  await context.close();
  const empty = await openApp(browser, server.base, '', { viewport: { width: 1400, height: 860 } });
  await open(empty.page, FIX('net10.0/wks-concurrent'));
  await empty.page.click('#tab-datas');
  await empty.page.locator('#datas-empty').waitFor();
  await empty.page.screenshot({ path: path.join(dir, '24-datas-empty.png') });
  assert.deepEqual(empty.problems, []);
  await empty.context.close();
});

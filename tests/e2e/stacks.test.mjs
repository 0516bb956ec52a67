// The Stacks tab: allocations by call stack. The flame graph's frames and bytes are checked
// against what `gcscope stacks --json` prints for the same file and selection (the CLI and the
// page share core, but the page's tree comes through the stacks worker, its pruning and its
// layout); a trace without stacks says so and gives the capture recipe.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { ROOT, SHARED, serveDist, launch, openApp } from './harness.mjs';
import { GCSCOPE } from '../bench/scale-lib.mjs';

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

const FIX = (v, name) => path.join(ROOT, 'fixtures/traces', v, `${name}.nettrace`);
const LOH = FIX('net8.0', 'loh');
/** Where `STACKS_SHOTS=DIR` saves the screenshots of the view (to look at them). */
const SHOTS = process.env.STACKS_SHOTS;

function stacksJson(file, ...args) {
  const r = spawnSync(GCSCOPE, ['stacks', file, '--json', ...args], { encoding: 'utf8', maxBuffer: 1 << 30 });
  assert.equal(r.status, 0, `gcscope stacks ${file}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

/** A frame's label as core's `Frame::label` makes it from the CLI's fields. */
const label = (f) => (f.method ? (f.module ? `${f.module}!${f.method}` : f.method) : f.address).replaceAll(';', ':');

/** The top-down tree's first level from the CLI's stacks: each outermost frame's bytes. */
function outermost(json) {
  const by = new Map();
  const add = (l, v) => by.set(l, (by.get(l) ?? 0) + v);
  for (const s of json.stacks) add(s.frames.length ? label(s.frames[s.frames.length - 1]) : '[no stack recorded]', s.value);
  if (json.no_stack.count) add('[no stack recorded]', json.no_stack.value);
  if (json.missing_stack.count) add('[stack missing from the trace]', json.missing_stack.value);
  return [...by].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
}

async function openStacks(file) {
  const { page, context, problems } = await openApp(browser, server.base);
  await page.setInputFiles('#file-input', file);
  await page.locator('#report').waitFor({ timeout: 60_000 });
  await page.click('#tab-stacks');
  return { page, context, problems };
}

/** Waits until the address matches `re`. */
async function waitUrl(page, re) {
  for (let i = 0; i < 300 && !re.test(await page.url()); i++) await new Promise((r) => setTimeout(r, 100));
  assert.match(await page.url(), re);
}

/** The flame graph's boxes at `depth`, largest first: [label, bytes]. */
async function boxes(page, depth) {
  await page.locator('#stacks-flame g.flame-frame').first().waitFor({ timeout: 60_000 });
  const all = await page.$$eval('#stacks-flame g.flame-frame', (gs) =>
    gs.map((g) => [g.dataset.label, Number(g.dataset.bytes), Number(g.dataset.depth)]));
  return all.filter((b) => b[2] === depth).map((b) => [b[0], b[1]]).sort((a, b) => b[1] - a[1]);
}

test('LOH allocations by call stack: the flame graph and call tree hold the CLI\'s frames and bytes', async () => {
  const json = stacksJson(LOH, '--event', 'alloc-loh');
  assert.ok(json.total_value > 0 && json.leaf_methods.length > 0, 'the fixture has LOH ticks with stacks');
  const { page, context, problems } = await openStacks(LOH);
  await page.selectOption('#stacks-heap', 'loh');
  await waitUrl(page, /sheap=loh/);
  // The tree shown is the LOH's once the total is (the worker answers the new choice).
  for (let i = 0; i < 300 && Number(await page.locator('#stacks-total').getAttribute('data-bytes')) !== json.total_value; i++) {
    await new Promise((r) => setTimeout(r, 100));
  }
  // The root is the whole selection.
  const root = await boxes(page, 0);
  assert.deepEqual(root, [['all', json.total_value]]);
  assert.equal(Number(await page.locator('#stacks-total').getAttribute('data-bytes')), json.total_value);
  // Top-down: the outermost frames.
  const top = await boxes(page, 1);
  assert.deepEqual(top[0], outermost(json)[0]);
  if (SHOTS) {
    await mkdir(SHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SHOTS, 'stacks-loh-top-down.png'), fullPage: true });
  }
  // Bottom-up: the leaf methods, the largest first, as the CLI sums them.
  await page.click('#stacks-order');
  await waitUrl(page, /sorder=up/);
  await page.locator('#stacks-order', { hasText: 'bottom-up' }).waitFor();
  const leaves = await boxes(page, 1);
  const want = json.leaf_methods.map((l) => [l.method, l.value]).sort((a, b) => b[1] - a[1]);
  assert.deepEqual(leaves[0], want[0]);
  const hover = await page.locator(`#stacks-flame g.flame-frame[data-depth="1"] title`).first().textContent();
  assert.ok(hover.includes('%'), hover);
  // The call tree's first row is the root, its second the largest leaf method.
  const rows = await page.$$eval('#stacks-tree tbody tr', (trs) => trs.slice(0, 2).map((tr) => [tr.dataset.label, Number(tr.dataset.bytes)]));
  assert.deepEqual(rows, [['all', json.total_value], want[0]]);
  // Zooming on a frame keeps it in the address; its box is then the whole width.
  await page.locator(`#stacks-flame g.flame-frame[data-depth="1"]`).first().click();
  await waitUrl(page, /sfocus=/);
  const zoomed = await boxes(page, 0);
  assert.deepEqual(zoomed, [want[0]]);
  if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'stacks-loh-bottom-up-zoomed.png'), fullPage: true });
  // The folded export holds the CLI's lines.
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#stacks-folded')]);
  const text = await readFile(await dl.path(), 'utf8');
  const r = spawnSync(GCSCOPE, ['stacks', LOH, '--event', 'alloc-loh', '--folded'], { encoding: 'utf8' });
  assert.equal(text, r.stdout);
  assert.deepEqual(problems, []);
  await context.close();
});

test('a trace without method events shows addresses and why; one without allocation ticks says what to capture', async () => {
  // net10.0's fixtures were captured without rundown: stacks whose frames no method names.
  const file = FIX('net10.0', 'loh');
  const json = stacksJson(file, '--event', 'alloc');
  assert.equal(json.methods.rundown_methods + json.methods.jit_loads, 0, 'the fixture has no method events');
  assert.ok(json.trace_stacks > 0 && json.total_count > 0);
  const { page, context, problems } = await openStacks(file);
  const note = await page.locator('#stacks-unresolved').textContent({ timeout: 60_000 });
  assert.match(note, /no method events/);
  assert.match(note, /docs\/guide\/stacks\.md/);
  // An address of the CLI's, shown as the frame's label.
  const addresses = new Set(json.stacks.flatMap((s) => s.frames.map((f) => f.address)));
  const top = await boxes(page, 1);
  assert.ok(addresses.has(top[0][0]), `${top[0][0]} is one of the CLI's addresses`);
  assert.equal((await boxes(page, 0))[0][1], json.total_value);
  if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'stacks-unresolved.png'), fullPage: true });
  // The induced workload allocates too little for a tick: the page says so, with the recipe.
  const induced = FIX('net10.0', 'induced');
  assert.equal(stacksJson(induced, '--event', 'alloc').events.alloc_ticks, 0, 'the fixture has no allocation ticks');
  await page.setInputFiles('#file-input', induced);
  const empty = await page.locator('#stacks-empty').textContent({ timeout: 60_000 });
  assert.match(empty, /no GCAllocationTick/);
  assert.match(empty, /docs\/guide\/stacks\.md/);
  if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'stacks-empty.png'), fullPage: true });
  assert.deepEqual(problems, []);
  await context.close();
});

test('induced GCs by call stack, their callers in the finding, and one GC\'s trigger as TraceEvent reads it', async () => {
  // conserve.stacks.json: TraceEvent's TraceLog reading of the fixture's GCTriggered stacks.
  const file = FIX('net9.0', 'conserve');
  const oracle = JSON.parse(await readFile(file.replace('.nettrace', '.stacks.json'), 'utf8'));
  const teLabel = (f) => (f.method ? (f.module ? `${f.module}!${f.method}` : f.method) : f.address);
  const induced = oracle.events.filter((e) => e.event === 'GCTriggered' && /^Induced/.test(e.payload.reason ?? ''));
  assert.ok(induced.length > 0, 'the fixture has induced GCs');
  const json = stacksJson(file, '--event', 'induced');
  assert.equal(json.total_count, induced.length);
  const { page, context, problems } = await openStacks(file);
  await page.selectOption('#stacks-event', 'induced');
  await waitUrl(page, /sevent=induced/);
  for (let i = 0; i < 300 && Number(await page.locator('#stacks-total').getAttribute('data-count')) !== induced.length; i++) {
    await new Promise((r) => setTimeout(r, 100));
  }
  // A count, not bytes: the root holds one per induced GC, the outermost frames as the CLI's.
  assert.deepEqual(await boxes(page, 0), [['all', induced.length]]);
  assert.deepEqual((await boxes(page, 1))[0], outermost(json)[0]);
  assert.equal(await page.locator('#stacks-heap').count(), 0, 'no heap choice for GCs');
  if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'stacks-induced.png'), fullPage: true });
  // The induced finding lists the callers: TraceEvent's frames, leaf first.
  await page.click('#tab-overview');
  const item = page.locator('li[data-rule="induced"] .top-stack').first();
  await item.waitFor({ timeout: 60_000 });
  assert.equal(Number(await item.getAttribute('data-count')), induced.length);
  const shown = await page.$$eval('li[data-rule="induced"] .top-stack-frames li', (lis) => lis.map((l) => l.textContent));
  assert.deepEqual(shown, induced[0].frames.slice(0, shown.length).map(teLabel));
  if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'finding-induced-callers.png'), fullPage: true });
  // Its first GC's detail: the GCTriggered stack that started it, TraceEvent's first induced one.
  await page.click('li[data-rule="induced"] .finding-gc');
  await page.locator('#trigger-frames li').first().waitFor({ timeout: 60_000 });
  const frames = await page.$$eval('#trigger-frames li', (lis) => lis.map((l) => l.textContent));
  assert.deepEqual(frames, induced[0].frames.slice(0, frames.length).map(teLabel));
  if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'detail-trigger-stack.png') });
  // Its link opens the Stacks tab on GC triggers at that instant, bottom-up on the leaf.
  await page.click('#trigger-open');
  await waitUrl(page, /sevent=triggered/);
  assert.match(await page.url(), /sorder=up/);
  assert.deepEqual((await boxes(page, 0)).map((b) => b[0]), [frames[0]]);
  assert.deepEqual(problems, []);
  await context.close();
});

/**
 * The caller of a stack as the Caller column names it, from TraceEvent's frames (leaf first): the
 * first frame above the runtime's own (System.Private.CoreLib, and native code no method covers:
 * no module, no method, in a trace with rundown), else the first method outside System.GC, else
 * the leaf.
 */
function teCaller(frames) {
  const runtime = (f) => (f.module ? f.module === 'System.Private.CoreLib' : !f.method);
  return frames.find((f) => !runtime(f)) ?? frames.find((f) => f.method && !f.method.startsWith('System.GC.')) ?? frames[0];
}

/** Each TraceEvent GC's trigger caller label ('' for none): its last GCTriggered after the previous GC's start. */
function expectedCallers(te, oracle) {
  const teLabel = (f) => (f.method ? (f.module ? `${f.module}!${f.method}` : f.method) : f.address);
  const triggers = oracle.events.filter((e) => e.event === 'GCTriggered');
  const starts = te.gcs.map((g) => g.StartRelativeMSec);
  return new Map(te.gcs.map((g) => {
    const before = starts.filter((s) => s < g.StartRelativeMSec);
    const after = before.length ? Math.max(...before) : -Infinity;
    const mine = triggers.filter((t) => t.timestamp_ms <= g.StartRelativeMSec && t.timestamp_ms > after);
    const t = mine.sort((a, b) => a.timestamp_ms - b.timestamp_ms).at(-1);
    return [g.Number, { caller: t?.frames.length ? teLabel(teCaller(t.frames)) : '', leaf: t?.frames.length ? teLabel(t.frames[0]) : '', induced: /^Induced/.test(g.Reason) }];
  }));
}

/** The GC table's shown rows: GC number, Caller cell text and tooltip. */
async function callerCells(page) {
  const cols = await page.$$eval('#gc-table thead th', (ths) => ths.map((th) => th.dataset.col));
  const at = cols.indexOf('caller');
  assert.ok(at >= 0, `a Caller column among ${cols}`);
  return page.$$eval('#gc-table tbody tr[data-gc]', (trs, at) => trs.map((tr) => {
    const td = tr.children[at];
    return [Number(tr.dataset.gc), td.textContent, td.getAttribute('title') ?? ''];
  }), at);
}

async function download(page, selector) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
  return readFile(await dl.path(), 'utf8');
}

test('the GC table\'s Caller column: each GC\'s trigger caller as TraceEvent reads its stack, sorted, filtered, opening the Stacks tab', async () => {
  const file = FIX('net9.0', 'conserve');
  const te = JSON.parse(await readFile(file.replace('.nettrace', '.traceevent.json'), 'utf8'));
  const oracle = JSON.parse(await readFile(file.replace('.nettrace', '.stacks.json'), 'utf8'));
  const want = expectedCallers(te, oracle);
  const induced = [...want].filter(([, w]) => w.induced);
  assert.ok(induced.length > 0 && induced.every(([, w]) => w.caller), 'the fixture\'s induced GCs have stacks');
  // Through reflection: the caller is the workload's method, not CoreLib's invoker.
  assert.match(induced[0][1].caller, /^Workloads!Rt\.CallGC/);
  const { page, context, problems } = await openApp(browser, server.base);
  await page.setInputFiles('#file-input', file);
  await page.locator('#report').waitFor({ timeout: 60_000 });
  await page.click('#tab-gcs');
  // Shown by default (the trace's induced GCs have callers), beside the trigger reason.
  await page.locator('#gc-table th[data-col="caller"]').waitFor({ timeout: 60_000 });
  assert.doesNotMatch(await page.url(), /cols=/);
  const heads = await page.$$eval('#gc-table thead th', (ths) => ths.map((th) => th.dataset.col));
  assert.equal(heads[heads.indexOf('reason') + 1], 'caller');
  // Every GC's caller, in the export (the table draws only the rows in view).
  await page.locator('#gc-table button.cell-link').first().waitFor({ timeout: 60_000 });
  const rows = JSON.parse(await download(page, '.gc-table .export-json'));
  assert.equal(rows.length, want.size);
  for (const r of rows) assert.equal(r.caller, want.get(r.number).caller, `GC ${r.number}'s caller`);
  // The induced GCs' cells: the caller, its tooltip, and a link.
  await page.selectOption('#filter-induced', '1');
  await waitUrl(page, /induced=1|ind=1/);
  const cells = await callerCells(page);
  assert.deepEqual(cells.map((c) => [c[0], c[1]]), induced.map(([n, w]) => [n, w.caller]));
  for (const c of cells) assert.ok(c[2].startsWith(c[1]) && /Stacks tab/.test(c[2]), c[2]);
  if (SHOTS) {
    await mkdir(SHOTS, { recursive: true });
    await page.selectOption('#filter-induced', '');
    await page.screenshot({ path: path.join(SHOTS, 'gc-table-caller.png') });
    await page.selectOption('#filter-induced', '1');
  }
  await page.selectOption('#filter-induced', '');
  // The text filter finds GCs by caller (the induced ones, and one that allocated in its reflection).
  await page.fill('#filter-text', 'rt.callgc');
  const byText = [...want].filter(([, w]) => /rt\.callgc/i.test(w.caller)).map(([n]) => n);
  assert.ok(byText.length > induced.length);
  for (let i = 0; i < 100 && (await callerCells(page)).length !== byText.length; i++) await new Promise((r) => setTimeout(r, 100));
  assert.deepEqual((await callerCells(page)).map((c) => c[0]), byText);
  await page.fill('#filter-text', '');
  // Sorting by it keeps the sort in the address; the export follows the sort (empty cells last).
  await page.click('#gc-table th[data-col="caller"]');
  await waitUrl(page, /sort=caller/);
  const sorted = JSON.parse(await download(page, '.gc-table .export-json')).map((r) => r.caller);
  const named = sorted.filter((c) => c);
  assert.deepEqual(named, [...named].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
  assert.deepEqual(sorted.slice(named.length), sorted.filter((c) => !c));
  // A cell opens the Stacks tab on that GC's trigger: bottom-up, on its leaf frame.
  await page.selectOption('#filter-induced', '1');
  await page.locator('#gc-table button.cell-link').first().click();
  await waitUrl(page, /sevent=triggered/);
  assert.match(await page.url(), /sorder=up/);
  assert.deepEqual((await boxes(page, 0)).map((b) => b[0]), [induced.find(([n]) => n === cells[0][0])[1].leaf]);
  assert.equal(await page.locator('#detail').count(), 0, 'the click opens no GC detail');
  assert.deepEqual(problems, []);
  await context.close();
});

const GCEVENTS = path.join(SHARED, 'traces/perfview/gcevents.etl.zip');
test('a trace without call stacks: no Caller column by default; chosen, its cells say why they are empty', { skip: !existsSync(GCEVENTS) && 'no ../shared here (the PerfView .etl.zip files)' }, async () => {
  const { page, context, problems } = await openApp(browser, server.base);
  await page.setInputFiles('#file-input', GCEVENTS);
  await page.locator('#report').waitFor({ timeout: 120_000 });
  await page.click('#tab-gcs');
  await page.locator('#gc-table tbody tr[data-gc]').first().waitFor({ timeout: 60_000 });
  assert.equal(await page.locator('#gc-table th[data-col="caller"]').count(), 0);
  await page.click('#column-chooser summary');
  await page.check('#column-chooser input[data-col="caller"]');
  await waitUrl(page, /cols=[^&]*caller/);
  let cells = [];
  for (let i = 0; i < 300; i++) {
    cells = await callerCells(page);
    if (cells.length && cells.every((c) => /no call stacks/.test(c[2]))) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.ok(cells.length > 0);
  for (const c of cells) {
    assert.equal(c[1], '', `GC ${c[0]} has no caller`);
    assert.match(c[2], /no call stacks/);
  }
  await page.click('#column-chooser summary');
  if (SHOTS) {
    await mkdir(SHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SHOTS, 'gc-table-caller-empty.png') });
  }
  assert.deepEqual(problems, []);
  await context.close();
});

test('a trace without method events: each induced GC\'s Caller is its stack\'s leaf address, the reason in its tooltip', async () => {
  // net10.0's fixtures have no rundown: no frame is known to be the runtime's, so the caller is
  // the leaf, as an address (the CLI's).
  const file = FIX('net10.0', 'induced');
  const json = stacksJson(file, '--event', 'induced');
  assert.equal(json.methods.rundown_methods + json.methods.jit_loads, 0, 'the fixture has no method events');
  const leaves = new Set(json.stacks.map((s) => s.frames[0].address));
  const { page, context, problems } = await openApp(browser, server.base, '?tab=gcs&induced=1');
  await page.setInputFiles('#file-input', file);
  await page.locator('#gc-table button.cell-link').first().waitFor({ timeout: 60_000 });
  const cells = await callerCells(page);
  assert.equal(cells.length, json.total_count - json.no_stack.count - json.missing_stack.count);
  for (const [n, text, title] of cells) {
    assert.ok(leaves.has(text), `GC ${n}'s caller ${text} is a leaf address of the CLI's`);
    assert.match(title, /no method events/);
  }
  assert.deepEqual(problems, []);
  await context.close();
});

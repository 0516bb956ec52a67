// The Heap tab: a .gcdump heap snapshot opened by file or by address shows its totals, types,
// dominator tree, paths to the root and the difference with a second snapshot. The expected
// figures are ../shared/heapdumps/README.md's, read from the files' node tables independently of
// gcscope; a .zip holding one opens as the file does; a trace keeps its tabs and has no Heap
// tab; a cut-off snapshot says where it ends.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ROOT, SHARED, serveDist, launch, openApp, screenshot } from './harness.mjs';

const DUMPS = path.join(SHARED, 'heapdumps');
const TEST1 = path.join(DUMPS, 'gcdumpanalyze-test1.gcdump');
const MONO_A = path.join(DUMPS, 'monogcdumprepro-150515.gcdump');
const MONO_B = path.join(DUMPS, 'monogcdumprepro-150644.gcdump');
const NO_SHARED = !existsSync(TEST1) && `no ${DUMPS} (the shared heap snapshots are not beside this checkout)`;
/** Where `HEAP_SHOTS=1` saves the screenshots of the tab (tests/output/ENGINE). */
const SHOTS = process.env.HEAP_SHOTS;

let server, browser;
before(async () => { server = await serveDist(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

const value = async (page, id) => Number(await page.locator(`#${id}`).getAttribute('data-value'));

async function waitUrl(page, re) {
  for (let i = 0; i < 300 && !re.test(await page.url()); i++) await new Promise((r) => setTimeout(r, 100));
  assert.match(await page.url(), re);
}

/** The rows a table's JSON button downloads. */
async function exported(page, id) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click(`#${id}-count ~ .exports .export-json`)]);
  return JSON.parse(await readFile(await dl.path(), 'utf8'));
}

test('a .gcdump shows the Heap tab alone, with the snapshot\'s totals and types', { skip: NO_SHARED }, async () => {
  const { page, context, problems } = await openApp(browser, server.base);
  await page.setInputFiles('#file-input', TEST1);
  // The worker answers in stages (types, retained, root categories): the last one has it all.
  await page.locator('#heap-timing[data-stage="complete"]').waitFor({ timeout: 30_000 });
  assert.equal(await page.locator('#heap-roots-pending, #heap-tree-pending').count(), 0);
  assert.doesNotMatch(await page.locator('#heap-types thead').textContent(), /computing/);
  assert.equal(await page.locator('#tab-heap').count(), 1);
  assert.equal(await page.locator('#tab-overview').count(), 0, 'no GC tabs for a heap snapshot');
  // README: 46,645 nodes, 82,475 edges, 3,339,490 bytes, 1 undefined node.
  assert.equal(await value(page, 'heap-nodes'), 46645);
  assert.equal(await value(page, 'heap-edges'), 82475);
  assert.equal(await value(page, 'heap-bytes'), 3339490);
  assert.equal(await value(page, 'heap-pointer'), 8);
  assert.match(await page.locator('#heap-warnings').textContent(), /1 nodes are referenced but never defined/);
  assert.equal(await page.locator('#heap-retained-root .heap-warn').count(), 1, 'the warning sits beside the retained bytes');
  // The top type by bytes: System.String, 6,913 instances, 518,562 bytes.
  await page.fill('#heap-types-filter', 'System.String');
  await waitUrl(page, /heapq=System.String/);
  const rows = await exported(page, 'heap-types');
  const s = rows.find((r) => r.name === 'System.String');
  assert.equal(s.count, 6913);
  assert.equal(s.bytes, 518562);
  assert.ok(s.retained_bytes >= s.bytes || s.unreachable_count > 0, 'strings retain at least themselves');
  assert.ok(rows.every((r) => r.name.includes('System.String')), 'the filter keeps the strings');
  if (SHOTS) await screenshot(page, 'heap-types');
  assert.deepEqual(problems, []);
  await context.close();
});

test('the dominator tree opens lazily, largest first, and a link reopens it with a type\'s paths', { skip: NO_SHARED }, async () => {
  const bytes = await readFile(TEST1);
  const { page, context, problems } = await openApp(browser, server.base);
  await page.route('**/remote/test1.gcdump', (route) => route.fulfill({ status: 200, body: bytes, contentType: 'application/octet-stream' }));
  await page.goto(server.base + '?trace=remote/test1.gcdump');
  await page.locator('#heap-tree .heap-level .heap-node').first().waitFor({ timeout: 30_000 });
  const retained = async (sel) => page.$$eval(sel, (els) => els.map((e) => Number(e.getAttribute('data-value'))));
  const top = await retained('#heap-tree > .heap-level > .heap-node > .heap-retained');
  assert.ok(top.length > 0);
  assert.deepEqual([...top].sort((a, b) => b - a), top, 'largest retained first');
  // Open the largest node with children: its children come, each retaining no more than it.
  const node = await page.$$eval('#heap-tree > .heap-level > .heap-node', (els) =>
    els.find((e) => !e.querySelector(':scope > .heap-toggle').disabled)?.getAttribute('data-node'));
  assert.ok(node, 'a node of the first level has children');
  const first = page.locator(`#heap-tree .heap-node[data-node="${node}"]`);
  const own = Number(await first.locator('.heap-retained').first().getAttribute('data-value'));
  await first.locator('.heap-toggle').first().click();
  await waitUrl(page, new RegExp(`hopen=${node}\\b`));
  const sel = `#heap-tree .heap-node[data-node="${node}"] > .heap-level > .heap-node > .heap-retained`;
  await page.locator(sel).first().waitFor({ timeout: 10_000 });
  const kids = await retained(sel);
  assert.ok(kids.every((k) => k <= own), 'a child retains no more than its dominator');
  if (SHOTS) {
    await page.evaluate(() => document.querySelector('#heap-tree').previousElementSibling.previousElementSibling.scrollIntoView({ block: 'start' }));
    await screenshot(page, 'heap-tree');
  }
  // Paths of System.String: all 6,913 instances are counted (README).
  await page.fill('#heap-type', 'System.String');
  await page.locator('#heap-type').dispatchEvent('change');
  await waitUrl(page, /htype=System.String/);
  await page.locator('#heap-paths-summary').waitFor({ timeout: 10_000 });
  assert.match(await page.locator('#heap-paths-summary').textContent(), /^6,913 instances of System\.String/);
  assert.ok(await page.locator('#heap-paths > li').count() > 0);
  if (SHOTS) {
    await page.locator('#heap-type').scrollIntoViewIfNeeded();
    await screenshot(page, 'heap-tree-paths');
  }
  // The address reopens the same view.
  const url = await page.url();
  await page.goto(url);
  await page.locator(sel).first().waitFor({ timeout: 30_000 });
  await page.locator('#heap-paths-summary').waitFor({ timeout: 10_000 });
  assert.equal(await page.locator('#heap-type').inputValue(), 'System.String');
  assert.deepEqual(problems, []);
  await context.close();
});

test('?trace=A&compare=B shows each type\'s change, most grown first', { skip: NO_SHARED }, async () => {
  const a = await readFile(MONO_A);
  const b = await readFile(MONO_B);
  const { page, context, problems } = await openApp(browser, server.base);
  await page.route('**/remote/a.gcdump', (route) => route.fulfill({ status: 200, body: a, contentType: 'application/octet-stream' }));
  await page.route('**/remote/b.gcdump', (route) => route.fulfill({ status: 200, body: b, contentType: 'application/octet-stream' }));
  await page.goto(server.base + '?trace=remote/a.gcdump&compare=remote/b.gcdump');
  await page.locator('#heap-diff').waitFor({ timeout: 30_000 });
  // README: nodes 27,570 -> 27,914; System.String 4,174 -> 4,230 instances, 285,248 -> 292,088 bytes.
  assert.match(await page.locator('#heap-diff-summary').textContent(), /nodes 27,570 → 27,914/);
  const rows = await exported(page, 'heap-diff');
  const s = rows.find((r) => r.name === 'System.String');
  assert.equal(s.count_change, 4230 - 4174);
  assert.equal(s.bytes_change, 292088 - 285248);
  assert.equal(s.count_a, 4174);
  assert.equal(s.count_b, 4230);
  const growth = rows.map((r) => r.bytes_change);
  assert.deepEqual([...growth].sort((x, y) => y - x), growth, 'sorted by growth');
  for (const r of rows.filter((r) => r.new === 'yes')) assert.equal(r.count_a, 0, `${r.name} is new`);
  if (SHOTS) await screenshot(page, 'heap-diff');
  assert.deepEqual(problems, []);
  await context.close();
});

/** A .zip of `entries` ([name, bytes]), stored, written from APPNOTE 4.3.7 (CRCs left zero: unchecked). */
function storedZip(entries) {
  const parts = [];
  const central = [];
  let offset = 0;
  for (const [name, data] of entries) {
    const n = Buffer.from(name);
    const h = Buffer.alloc(30);
    h.writeUInt32LE(0x04034b50, 0); h.writeUInt16LE(20, 4);
    h.writeUInt32LE(data.length, 18); h.writeUInt32LE(data.length, 22); h.writeUInt16LE(n.length, 26);
    const c = Buffer.alloc(46);
    c.writeUInt32LE(0x02014b50, 0); c.writeUInt16LE(20, 4); c.writeUInt16LE(20, 6);
    c.writeUInt32LE(data.length, 20); c.writeUInt32LE(data.length, 24); c.writeUInt16LE(n.length, 28);
    c.writeUInt32LE(offset, 42);
    parts.push(h, n, data);
    central.push(c, n);
    offset += 30 + n.length + data.length;
  }
  const cd = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0); end.writeUInt16LE(entries.length, 8); end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12); end.writeUInt32LE(offset, 16);
  return Buffer.concat([...parts, cd, end]);
}

test('a .zip holding a .gcdump opens in the Heap tab, as the file itself does', { skip: NO_SHARED }, async () => {
  const { page, context, problems } = await openApp(browser, server.base);
  const zip = storedZip([['notes.txt', Buffer.from('not a snapshot')], ['dumps/test1.gcdump', await readFile(TEST1)]]);
  await page.setInputFiles('#file-input', { name: 'snapshots.zip', mimeType: 'application/zip', buffer: zip });
  await page.locator('#heap-timing[data-stage="complete"]').waitFor({ timeout: 30_000 });
  assert.equal(await page.locator('#tab-overview').count(), 0, 'no GC tabs for a heap snapshot');
  // README: 46,645 nodes, 82,475 edges, 3,339,490 bytes.
  assert.equal(await value(page, 'heap-nodes'), 46645);
  assert.equal(await value(page, 'heap-edges'), 82475);
  assert.equal(await value(page, 'heap-bytes'), 3339490);
  assert.deepEqual(problems, []);
  await context.close();
});

test('a cut-off snapshot says where it ends; a trace keeps its tabs', { skip: NO_SHARED }, async () => {
  const { page, context, problems } = await openApp(browser, server.base);
  const cut = (await readFile(TEST1)).subarray(0, 5000);
  await page.setInputFiles('#file-input', { name: 'cut.gcdump', mimeType: 'application/octet-stream', buffer: cut });
  await page.locator('#heap-error').waitFor({ timeout: 30_000 });
  assert.match(await page.locator('#heap-error').textContent(), /cut\.gcdump: .*at byte \d+/);
  if (SHOTS) await screenshot(page, 'heap-error');
  await page.setInputFiles('#file-input', path.join(ROOT, 'fixtures/traces/net8.0/loh.nettrace'));
  await page.locator('#report').waitFor({ timeout: 60_000 });
  assert.equal(await page.locator('#tab-heap').count(), 0, 'no Heap tab for a trace');
  assert.equal(await page.locator('#tab-overview').count(), 1);
  assert.equal(await page.locator('#heap-error').count(), 0);
  assert.deepEqual(problems, []);
  await context.close();
});

// A trace's heap walk in the Heap tab: `gcscope gcdump --pid P --nettrace FILE` on tools/tracegen's
// `heap-cache` workload (.NET 9) writes the session's trace beside the .gcdump. The trace opened
// in the app keeps its own tabs and adds the Heap tab, which reads the walk from the trace. Its
// totals must be those `gcscope heap` reads from the .gcdump written from the same walk, and the
// cache as constructed: 10,000 `HeapCache+Entry` objects, each the only holder of a 4,096-byte
// array, so they retain at least 10,000 x 4 KB.
//
// Skips, saying so, when the gcscope binary (target/release or target/debug) or the cached .NET 9
// runtime is missing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { serveDist, launch, openApp, screenshot } from './harness.mjs';
import { BIN, LIVE_SH, whyNoNet9 } from './live-target.mjs';

const ENTRIES = 10_000;
const ENTRY_BYTES = 4096;

let server, browser;
before(async () => { server = await serveDist(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

/** Takes a heap snapshot of the heap-cache workload: the .gcdump and the session's trace. */
async function snapshot(dir) {
  const w = spawn(LIVE_SH, ['net9.0', path.join(dir, 'oracle.json'), 'heap-cache'], { stdio: ['pipe', 'pipe', 'inherit'] });
  try {
    await new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error('the heap-cache workload did not start in 120 s')), 120_000);
      readline.createInterface({ input: w.stdout }).on('line', (l) => { if (/ready/.test(l)) { clearTimeout(t); resolve(); } });
      w.on('exit', (code) => reject(new Error(`the heap-cache workload exited (${code})`)));
    });
    const files = { gcdump: path.join(dir, 'cache.gcdump'), trace: path.join(dir, 'cache.nettrace') };
    const out = spawnSync(BIN, ['gcdump', '--pid', String(w.pid), '-o', files.gcdump, '--nettrace', files.trace], { encoding: 'utf8', timeout: 120_000 });
    assert.equal(out.status, 0, `gcdump failed: ${out.stderr}`);
    return files;
  } finally {
    w.stdin.write('go\n');
    setTimeout(() => w.kill('SIGKILL'), 5000).unref();
  }
}

const value = async (page, id) => Number(await page.locator(`#${id}`).getAttribute('data-value'));

test('a trace with a heap walk keeps its tabs and opens the walk in the Heap tab', { skip: whyNoNet9() }, async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gcscope-heap-walk-e2e-'));
  try {
    const files = await snapshot(dir);
    const cli = JSON.parse(spawnSync(BIN, ['heap', '--json', files.gcdump], { encoding: 'utf8' }).stdout);

    const { page, context, problems } = await openApp(browser, server.base);
    await page.setInputFiles('#file-input', files.trace);
    await page.locator('#report').waitFor({ timeout: 60_000 });
    assert.equal(await page.locator('#tab-overview').count(), 1, 'the trace keeps its tabs');
    await page.locator('#tab-heap').waitFor({ timeout: 30_000 });
    await page.click('#tab-heap');
    await page.locator('#heap-timing[data-stage="complete"]').waitFor({ timeout: 60_000 });
    assert.match(await page.url(), /[?&]tab=heap/);
    assert.match(await page.locator('h2:has(#heap-file)').textContent(), /^Heap walk of cache\.nettrace, at GC #\d+$/);
    // The same walk as the .gcdump written from it.
    assert.equal(await value(page, 'heap-nodes'), cli.nodes);
    assert.equal(await value(page, 'heap-edges'), cli.edges);
    assert.equal(await value(page, 'heap-bytes'), cli.total_bytes);
    // The cache as constructed.
    await page.fill('#heap-types-filter', 'Entry');
    const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#heap-types-count ~ .exports .export-json')]);
    const rows = JSON.parse(await readFile(await dl.path(), 'utf8'));
    const entry = rows.find((r) => r.name === 'HeapCache+Entry' || r.name === 'Entry');
    assert.ok(entry, `no HeapCache+Entry in ${rows.map((r) => r.name).join(', ')}`);
    assert.equal(entry.count, ENTRIES);
    assert.ok(entry.retained_bytes >= ENTRIES * ENTRY_BYTES, `the entries retain ${entry.retained_bytes} bytes`);
    await page.fill('#heap-types-filter', '');
    await screenshot(page, 'heap-walk-of-trace');
    // The trace's other tabs are still there, with its GCs.
    await page.click('#tab-gcs');
    await page.locator('#gc-table tbody tr').first().waitFor({ timeout: 30_000 });
    assert.deepEqual(problems, []);
    await context.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

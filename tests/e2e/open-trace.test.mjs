// Opening traces: the file input, a simulated drag-and-drop, a bundled sample, and a bad file.
// Expected numbers come from outside gcscope: TraceEvent's baseline for the shared reference trace,
// and TraceEvent's own reading (traceevent.json) of the committed generated fixture.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { SHARED, SEES_WORKER_CONSOLE, serveDist, launch, openApp, screenshot, dropFile } from './harness.mjs';
import { fixtureGcStarts, FIXTURE } from './inputs.mjs';

let server, browser;
before(async () => { server = await serveDist(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

const SHARED_ZIP = path.join(SHARED, 'traces/perfview/eventpipe-dotnetcore3.0-win-x64-objver4.nettrace.zip');
const SHARED_BASELINE = SHARED_ZIP.replace('.zip', '.baseline.txt');

/** The GC/Start count TraceEvent wrote in its baseline for the shared 3.0 trace. */
async function baselineCount(name) {
  const text = await readFile(SHARED_BASELINE, 'utf8');
  const line = text.replace(/^\uFEFF/, '').split('\n').find((l) => l.startsWith(`${name},`));
  return Number(line.split(',')[1].trim());
}

async function shownGcCount(page) {
  const text = await page.locator('#fact-gcs').textContent({ timeout: 30_000 });
  return Number(text.replace(/,/g, ''));
}

test('the page loads from a sub-path and shows the empty state with a sample button', async () => {
  const { page, context, problems } = await openApp(browser, server.base);
  await page.locator('.empty h2').waitFor();
  assert.match(await page.locator('.empty h2').textContent(), /Drop a \.nettrace/);
  await page.locator('#sample-0').waitFor({ timeout: 10_000 });
  await screenshot(page, '01-empty');
  assert.deepEqual(problems, []);
  assert.ok(server.requests.every((p) => p.startsWith('/some/prefix/')), `requests outside the prefix: ${server.requests}`);
  await context.close();
});

test('a committed fixture opened with the file input shows TraceEvent\'s GC count', async () => {
  const { page, context, problems } = await openApp(browser, server.base);
  await page.setInputFiles('#file-input', FIXTURE);
  assert.equal(await shownGcCount(page), await fixtureGcStarts());
  await screenshot(page, '02-fixture-loaded');
  assert.deepEqual(problems, []);
  await context.close();
});

test('the shared .NET Core 3.0 trace, zipped, dropped on the page, shows 478 GCs', { skip: !existsSync(SHARED_ZIP) && 'no ../shared here' }, async () => {
  const { page, context, problems } = await openApp(browser, server.base);
  await dropFile(page, '#drop-zone', path.basename(SHARED_ZIP), await readFile(SHARED_ZIP));
  assert.equal(await shownGcCount(page), await baselineCount('Microsoft-Windows-DotNETRuntime/GC/Start'));
  await screenshot(page, '03-dropped-zip');
  assert.deepEqual(problems, []);
  await context.close();
});

test('the bundled sample opens with one click, named after its address', async () => {
  const { page, context, problems } = await openApp(browser, server.base);
  await page.locator('#sample-0').click();
  assert.ok((await shownGcCount(page)) > 0);
  // Named as the file at the address is (samples/index.json), not "trace".
  assert.match(await page.locator('#fact-file').textContent(), /^net8-wks-concurrent\.nettrace \(/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('opening a trace logs no warning, the decoding worker\'s included', { skip: !SEES_WORKER_CONSOLE && 'WebKitGTK\'s WebDriver shows no console, and the page cannot see its worker\'s' }, async () => {
  const { page, context, problems, warnings } = await openApp(browser, server.base);
  await page.setInputFiles('#file-input', FIXTURE);
  assert.equal(await shownGcCount(page), await fixtureGcStarts());
  await page.locator('#report').waitFor();
  // e.g. wasm-bindgen's "using deprecated parameters for the initialization function". Chromium
  // also says that it ignores the integrity of Trunk's preload of the page's wasm (the module
  // itself is still checked): that one is about the page's markup, not the app, and is let be.
  const known = /integrity. attribute is currently ignored for preload destinations/;
  assert.deepEqual(warnings.filter((w) => !known.test(w)), []);
  assert.deepEqual(problems, []);
  await context.close();
});

test('a PNG dropped on the page gets a clear error, and another file can be opened after it', async () => {
  const { page, context, problems } = await openApp(browser, server.base);
  const png = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex');
  await dropFile(page, '#drop-zone', 'picture.png', png);
  const err = await page.locator('#error').textContent({ timeout: 30_000 });
  assert.match(err, /not a \.NET trace/i);
  assert.match(err, /PNG/);
  await screenshot(page, '04-png-error');
  await page.setInputFiles('#file-input', FIXTURE);
  assert.equal(await shownGcCount(page), await fixtureGcStarts());
  assert.deepEqual(problems, []);
  await context.close();
});

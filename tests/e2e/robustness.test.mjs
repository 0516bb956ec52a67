// The page survives a decoder that cannot start or dies: it says so and stays usable.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serveDist, launch, openApp, screenshot } from './harness.mjs';
import { FIXTURE } from './inputs.mjs';

let server, browser;
before(async () => { server = await serveDist(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

test('a worker whose wasm cannot be compiled shows an error instead of waiting forever', async () => {
  const { page, context } = await openApp(browser, server.base);
  await page.route('**/worker_bg.wasm', (route) =>
    route.fulfill({ status: 200, contentType: 'application/wasm', body: Buffer.from('not wasm at all') }));
  await page.setInputFiles('#file-input', FIXTURE);
  const err = await page.locator('#error').textContent({ timeout: 15_000 });
  assert.match(err, /decoder/i);
  await screenshot(page, 'robustness-worker-failed');
  // The page is still usable: with the real wasm back, the same file opens.
  await page.unroute('**/worker_bg.wasm');
  await page.setInputFiles('#file-input', FIXTURE);
  await page.locator('#fact-gcs').waitFor({ timeout: 30_000 });
  await context.close();
});

test('a worker script that fails to load shows an error', async () => {
  const { page, context } = await openApp(browser, server.base);
  await page.route('**/worker.js', (route) => route.fulfill({ status: 404, body: 'gone' }));
  await page.setInputFiles('#file-input', FIXTURE);
  const err = await page.locator('#error').textContent({ timeout: 15_000 });
  assert.match(err, /decoder/i);
  await context.close();
});

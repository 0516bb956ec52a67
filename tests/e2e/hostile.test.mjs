// Hostile and broken inputs in the browser: a decoder that dies, a second file while one decodes, a
// cut-off trace, HTML in trace strings and file names, files that are not traces, and the
// Content-Security-Policy the page runs under. The page must stay usable throughout.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { DIST, ROOT, serveDist, launch, openApp, screenshot, dropFile } from './harness.mjs';
import { FIXTURE } from './inputs.mjs';

let server, browser;
before(async () => { server = await serveDist(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

// ---- A minimal NetTrace V4 writer (FastSerialization framing, uncompressed event headers), written
// from PerfView's NetTraceFormat.md, to craft traces the fixtures do not contain. ----
const u16 = (v) => { const b = Buffer.alloc(2); b.writeUInt16LE(v); return b; };
const u32 = (v) => { const b = Buffer.alloc(4); b.writeUInt32LE(v >>> 0); return b; };
const i64 = (v) => { const b = Buffer.alloc(8); b.writeBigInt64LE(BigInt(v)); return b; };
const utf16z = (s) => Buffer.concat([Buffer.from(s, 'utf16le'), Buffer.alloc(2)]);
const RUNTIME = 'Microsoft-Windows-DotNETRuntime';

class NetTrace {
  constructor() {
    this.parts = [];
    this.len = 0;
    this.seq = 0;
    this.put(Buffer.from('Nettrace'), u32(20), Buffer.from('!FastSerialization.1'));
    this.objectHeader('Trace', 4, 4);
    // SYSTEMTIME, sync QPC 0, 10 MHz, 8-byte pointers, pid, 4 CPUs, sampling rate; end tag.
    this.put(Buffer.concat([2026, 11, 1, 23, 1, 0, 0, 0].map(u16)), i64(0), i64(10_000_000), u32(8), u32(4242), u32(4), u32(1000), Buffer.from([6]));
    this.ids = new Map();
  }
  put(...bufs) { for (const b of bufs) { this.parts.push(b); this.len += b.length; } }
  objectHeader(name, version, minReader) {
    this.put(Buffer.from([5, 5, 1]), u32(version), u32(minReader), u32(name.length), Buffer.from(name), Buffer.from([6]));
  }
  block(name, content) {
    this.objectHeader(name, 2, 2);
    this.put(u32(content.length));
    this.put(Buffer.alloc((4 - (this.len % 4)) % 4), content, Buffer.from([6]));
  }
  static event(metadataId, seq, ts, payload) {
    const pad = (4 - (payload.length % 4)) % 4;
    return Buffer.concat([u32(76 + payload.length + pad), u32(metadataId), u32(seq), i64(1), i64(1), u32(0), u32(0), i64(ts),
      Buffer.alloc(32), u32(payload.length), payload, Buffer.alloc(pad)]);
  }
  static rows(events) { return Buffer.concat([u16(20), u16(0), i64(0), i64(0), ...events]); }
  /** Metadata for runtime event `id` version `version` (no field list: runtime events have none). */
  define(id, version) {
    const key = `${id}/${version}`;
    if (!this.ids.has(key)) {
      const mid = this.ids.size + 1;
      const p = Buffer.concat([u32(mid), utf16z(RUNTIME), u32(id), utf16z(''), i64(1), u32(version), u32(5), u32(0)]);
      this.block('MetadataBlock', NetTrace.rows([NetTrace.event(0, 0, 0, p)]));
      this.ids.set(key, mid);
    }
    return this.ids.get(key);
  }
  events(list) {
    const rows = list.map(([id, version, ts, payload]) => NetTrace.event(this.define(id, version), ++this.seq, ts, payload));
    this.block('EventBlock', NetTrace.rows(rows));
  }
  end() { this.put(Buffer.from([1])); return Buffer.concat(this.parts); }
}

/** GC number `n` at `t` ms with one pinned object of type `typeName`, as the runtime writes it. */
function gcWithPin(n, t, typeName) {
  const ts = (ms) => Math.round(ms * 10_000);
  const clr = u16(0);
  return [
    [9, 1, ts(t), Buffer.concat([u32(1), u32(n), clr])], // SuspendEEBegin: reason, count
    [8, 1, ts(t + 0.1), clr], // SuspendEEEnd
    [1, 2, ts(t + 0.2), Buffer.concat([u32(n), u32(0), u32(0), u32(0), clr, i64(0)])], // GCStart gen0 AllocSmall
    [33, 0, ts(t + 0.3), Buffer.concat([i64(0x1000 + n), i64(0x7f0000 + n), i64(4096), utf16z(typeName), clr])], // PinObjectAtGCTime
    [2, 1, ts(t + 1.0), Buffer.concat([u32(n), u32(0), clr])], // GCEnd
    [7, 1, ts(t + 1.1), clr], // RestartEEBegin
    [3, 1, ts(t + 1.2), clr], // RestartEEEnd
  ];
}

// ---- Worker instrumentation: appended to worker.js for one page (the real decoder still runs). ----
async function instrumentWorker(page, js) {
  await page.route('**/worker.js', async (route) => {
    const res = await route.fetch();
    route.fulfill({ response: res, body: (await res.text()) + '\n' + js });
  });
}

/** A page of the app whose CSP violations are collected (the page's securitypolicyviolation events, every engine). */
async function openWithCsp(query = '') {
  const { page, context, problems, violations } = await openApp(browser, server.base, query);
  // Only page errors count as problems here: the tests look at the violations themselves.
  const errors = () => problems.filter((p) => p.startsWith('page error'));
  return { page, context, violations, problems: errors };
}

test('the page runs under its Content-Security-Policy: app and worker load, no violation, inline script blocked', async () => {
  const html = await readFile(path.join(DIST, 'index.html'), 'utf8');
  const csp = html.match(/http-equiv="Content-Security-Policy" content="([^"]*)"/)?.[1];
  assert.ok(csp, 'dist/index.html has a CSP meta tag');
  assert.match(csp, /script-src 'self' 'wasm-unsafe-eval' 'sha256-[A-Za-z0-9+/=]{44}'/, csp);
  assert.doesNotMatch(csp, /INLINE-SCRIPTS|unsafe-inline'[^;]*;.*script|script-src[^;]*unsafe-inline/, csp);
  // Our own service worker (sw.js) and the decoding workers' blob: URLs, nothing else.
  assert.match(csp, /worker-src 'self' blob:;/);
  const { page, context, violations, problems } = await openWithCsp();
  await page.setInputFiles('#file-input', FIXTURE);
  await page.locator('#fact-gcs').waitFor({ timeout: 30_000 });
  assert.ok(Number((await page.locator('#fact-gcs').textContent()).replace(/,/g, '')) > 0);
  assert.deepEqual(violations, [], 'no CSP violation while loading and decoding');
  assert.deepEqual(problems(), []);
  // An injected inline script (what an HTML-injection bug would need) does not run.
  const ran = await page.evaluate(async () => {
    const s = document.createElement('script');
    s.textContent = 'window.__inlineRan = true';
    document.body.appendChild(s);
    await new Promise((r) => setTimeout(r, 100));
    return window.__inlineRan === true;
  });
  assert.equal(ran, false, 'inline script blocked by the CSP');
  assert.ok(violations.some((v) => /script-src/.test(v)), `the block was reported: ${violations}`);
  await context.close();
});

test('a panic in the worker (wasm trap) shows an error and the next file opens', async () => {
  const { page, context } = await openApp(browser, server.base);
  // A trap in the wasm surfaces as an uncaught RuntimeError in the worker's message handler; this
  // raises exactly that for a file named panic.nettrace, before the decoder's handler runs.
  await instrumentWorker(page, `self.addEventListener('message', (e) => {
    const file = e.data && (e.data.blob ?? e.data); // the UI posts { blob, entry } (protocol.rs)
    if (file && file.name === 'panic.nettrace') { e.stopImmediatePropagation(); throw new WebAssembly.RuntimeError('unreachable executed'); }
  });`);
  await dropFile(page, '#drop-zone', 'panic.nettrace', await readFile(FIXTURE));
  const err = await page.locator('#error').textContent({ timeout: 15_000 });
  assert.match(err, /decoder stopped unexpectedly/i, err);
  assert.match(err, /unreachable/, err);
  await screenshot(page, 'hostile-worker-panic');
  // The page is alive: another file decodes in a fresh worker.
  await dropFile(page, '#drop-zone', 'after-panic.nettrace', await readFile(FIXTURE));
  await page.locator('#fact-gcs').waitFor({ timeout: 30_000 });
  assert.match(await page.locator('#fact-file').textContent(), /after-panic\.nettrace/);
  assert.equal(await page.locator('#error').count(), 0, 'the old error is gone');
  await context.close();
});

test('a second file dropped while the first decodes cancels the first', async () => {
  const { page, context } = await openApp(browser, server.base);
  // Slow every chunk read down so the first (two-chunk) file is still decoding when the second
  // comes: the worker reads through a BYOB reader of Blob.stream() or Blob.slice().arrayBuffer().
  await instrumentWorker(page, `{
    const later = (p) => p.then((v) => new Promise((r) => setTimeout(() => r(v), 1500)));
    if (self.ReadableStreamBYOBReader) {
      const read = ReadableStreamBYOBReader.prototype.read;
      ReadableStreamBYOBReader.prototype.read = function (...a) { return later(read.apply(this, a)); };
    }
    const buffer = Blob.prototype.arrayBuffer;
    Blob.prototype.arrayBuffer = function () { return later(buffer.call(this)); };
  }`);
  const first = await readFile(FIXTURE);
  assert.ok(first.length > 512 * 1024, 'the first file takes more than one chunk');
  await dropFile(page, '#drop-zone', 'first.nettrace', first);
  await page.locator('#progress').waitFor({ timeout: 10_000 });
  await dropFile(page, '#drop-zone', 'second.nettrace', await readFile(path.join(ROOT, 'fixtures/traces/net8.0/induced.nettrace')));
  await page.locator('#fact-file').waitFor({ timeout: 30_000 });
  assert.match(await page.locator('#fact-file').textContent(), /second\.nettrace/);
  // Long after the first file would have finished, the page still shows the second.
  await page.waitForTimeout(4000);
  assert.match(await page.locator('#fact-file').textContent(), /second\.nettrace/);
  assert.equal(await page.locator('#error').count(), 0);
  await context.close();
});

test('a cut-off trace shows the error with its offset and the GCs before the cut', async () => {
  const { page, context, problems } = await openApp(browser, server.base);
  const full = await readFile(FIXTURE);
  const cut = Math.floor(full.length * 0.6) + 3;
  await dropFile(page, '#drop-zone', 'cut.nettrace', full.subarray(0, cut));
  const err = await page.locator('#error').textContent({ timeout: 30_000 });
  assert.match(err, new RegExp(`cut off at byte ${cut}\\b`), err);
  assert.match(err, /before that point/, err);
  const gcs = Number((await page.locator('#fact-gcs').textContent()).replace(/,/g, ''));
  assert.ok(gcs > 0, `GCs before the cut are shown (${gcs})`);
  await page.click('#tab-gcs');
  assert.ok(await page.locator('#gc-table tbody tr[data-gc]').count() > 0, 'the GC table has rows');
  await screenshot(page, 'hostile-truncated');
  assert.deepEqual(problems, []);
  await context.close();
});

test('HTML in a type name and in the file name is shown as text, never run', async () => {
  const { page, context, violations, problems } = await openWithCsp();
  const evil = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>';
  const t = new NetTrace();
  t.events([...gcWithPin(1, 10, evil), ...gcWithPin(2, 20, 'System.Byte[]')]);
  const bytes = t.end();
  const evilName = '<img src=y onerror="window.__xss=3">.nettrace';
  await dropFile(page, '#drop-zone', evilName, bytes);
  await page.locator('#fact-file').waitFor({ timeout: 30_000 });
  assert.equal(await page.locator('#error').count(), 0, 'the crafted trace decodes cleanly');
  assert.ok((await page.locator('#fact-file').textContent()).includes(evilName), 'file name shown literally');
  await page.click('#tab-pins');
  const types = await page.$$eval('#pinned-types tbody tr td:first-child', (tds) => tds.map((td) => td.textContent));
  assert.ok(types.includes(evil), `the type name is shown literally: ${JSON.stringify(types)}`);
  assert.ok(types.includes('System.Byte[]'));
  await page.waitForTimeout(300);
  assert.equal(await page.evaluate(() => window.__xss), undefined, 'no injected script ran');
  assert.equal(await page.locator('#pinned-types img, #facts img, #pinned-types script').count(), 0, 'no element was made from the text');
  await screenshot(page, 'hostile-html-type-name');
  assert.deepEqual(violations, [], 'nothing even tried to run (no CSP violation)');
  assert.deepEqual(problems(), []);
  await context.close();
});

/** A stored .zip (CRCs zero: gcscope does not check them), written from APPNOTE 4.3.7. */
function storedZip(entries) {
  const local = [], central = [];
  let offset = 0;
  for (const [name, data] of entries) {
    const n = Buffer.from(name);
    const h = Buffer.concat([u32(0x04034b50), u16(20), u16(0), u16(0), u32(0), u32(0), u32(data.length), u32(data.length), u16(n.length), u16(0), n]);
    central.push(Buffer.concat([u32(0x02014b50), u16(20), u16(20), u16(0), u16(0), u32(0), u32(0), u32(data.length), u32(data.length), u16(n.length), Buffer.alloc(12), u32(offset), n]));
    local.push(h, data);
    offset += h.length + data.length;
  }
  const cd = Buffer.concat(central);
  return Buffer.concat([...local, cd, u32(0x06054b50), u32(0), u16(entries.length), u16(entries.length), u32(cd.length), u32(offset), u16(0)]);
}

test('files that are not traces say what they are, and the page stays usable', async () => {
  const { page, context, problems } = await openApp(browser, server.base);
  const cases = [
    ['picture.png', Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), /PNG image/],
    ['empty.nettrace', Buffer.alloc(0), /empty/],
    ['profile.speedscope.json', Buffer.from('{"$schema": "https://www.speedscope.app/file-format-schema.json", "shared": {"frames": []}}'), /speedscope/],
    ['app.trace.zip', storedZip([['app.trace/lttngTrace/ust/uid/0/64-bit/metadata', Buffer.from('/* CTF 1.8 */')]]), /perfcollect/],
    // An .etl entry that is not an ETW file (real .etl.zip files are read: etl_baselines.rs).
    ['PerfViewData.etl.zip', storedZip([['PerfViewData.etl', Buffer.alloc(300)]]), /zero bytes/],
  ];
  for (const [name, bytes, what] of cases) {
    await dropFile(page, '#drop-zone', name, bytes);
    await page.waitForFunction((n) => document.querySelector('#error')?.textContent.includes(n), name, { timeout: 15_000 });
    const err = await page.locator('#error').textContent();
    assert.match(err, what, `${name}: ${err}`);
  }
  await screenshot(page, 'hostile-not-a-trace');
  await page.setInputFiles('#file-input', FIXTURE);
  await page.locator('#fact-gcs').waitFor({ timeout: 30_000 });
  assert.deepEqual(problems, []);
  await context.close();
});

// A .zip with several traces: the first opens, the page lists the others, one click opens another.
// Expected GC counts are TraceEvent's own (the fixtures' .traceevent.json).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ROOT, serveDist, launch, openApp, screenshot, dropFile } from './harness.mjs';

let server, browser;
before(async () => { server = await serveDist(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

const TRACES = ['wks-concurrent', 'server'].map((w) => path.join(ROOT, `fixtures/traces/net8.0/${w}.nettrace`));

async function traceEventGcStarts(file) {
  const te = JSON.parse(await readFile(file.replace(/\.nettrace$/, '.traceevent.json'), 'utf8'));
  return te.events.find((r) => r.provider === 'Microsoft-Windows-DotNETRuntime' && r.name === 'GC/Start').count;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buf) {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** A stored (uncompressed) zip of `entries` [{ name, data }], written per the PKWARE APPNOTE. */
function makeZip(entries) {
  const parts = [];
  const central = [];
  let offset = 0;
  for (const { name, data } of entries) {
    const nameBuf = Buffer.from(name);
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0); local.writeUInt16LE(20, 4);
    local.writeUInt32LE(crc, 14); local.writeUInt32LE(data.length, 18); local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(nameBuf.length, 26);
    const dir = Buffer.alloc(46);
    dir.writeUInt32LE(0x02014b50, 0); dir.writeUInt16LE(20, 4); dir.writeUInt16LE(20, 6);
    dir.writeUInt32LE(crc, 16); dir.writeUInt32LE(data.length, 20); dir.writeUInt32LE(data.length, 24);
    dir.writeUInt16LE(nameBuf.length, 28); dir.writeUInt32LE(offset, 42);
    parts.push(local, nameBuf, data);
    central.push(dir, nameBuf);
    offset += local.length + nameBuf.length + data.length;
  }
  const dirBuf = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0); end.writeUInt16LE(entries.length, 8); end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(dirBuf.length, 12); end.writeUInt32LE(offset, 16);
  return Buffer.concat([...parts, dirBuf, end]);
}

async function shownGcs(page) {
  await page.locator('#fact-gcs').waitFor({ timeout: 30_000 });
  return Number((await page.locator('#fact-gcs').textContent()).replace(/,/g, ''));
}

test('a zip of two traces opens the first, lists both, and opens the second on click', async () => {
  const entries = await Promise.all(TRACES.map(async (f) => ({ name: path.basename(f), data: await readFile(f) })));
  const [first, second] = await Promise.all(TRACES.map(traceEventGcStarts));
  assert.notEqual(first, second, 'the two fixtures must differ for this test to mean anything');
  const { page, context, problems } = await openApp(browser, server.base);
  await dropFile(page, '#drop-zone', 'two-traces.zip', makeZip(entries));
  assert.equal(await shownGcs(page), first);
  const notice = page.locator('#zip-entries');
  assert.match(await notice.textContent(), /holds 2 traces; showing wks-concurrent\.nettrace/);
  await screenshot(page, 'zip-entries');
  await notice.locator('button', { hasText: 'server.nettrace' }).click();
  await page.waitForFunction(async (n) => {
    const el = document.querySelector('#fact-gcs');
    return el && Number(el.textContent.replace(/,/g, '')) === n;
  }, second, { timeout: 30_000 });
  assert.match(await page.locator('#zip-entries').textContent(), /showing server\.nettrace/);
  assert.deepEqual(problems, []);
  await context.close();
});

// How fast each engine hands a dropped file's bytes to a worker, by each way the worker could read
// it, without decoding anything: what the app's read path costs apart from the wasm decoder.
//
//   node tests/bench/read-bench.mjs [--sizes 100,1024] [--engines chromium,firefox,webkit] [--runs 3]
//
// In a dedicated worker (as the app's), the File is read front to back in 4 MiB pieces and each
// piece is copied into one 4 MiB buffer (as the app copies each chunk into wasm memory):
//   byob      blob.stream() with a BYOB reader into one reused buffer (the app's first choice)
//   stream    blob.stream() with the default reader (the chunks the engine picks)
//   slice     blob.slice().arrayBuffer(), the next piece requested while one is copied (the app's fallback)
//   segments  16 MiB slices, each through its own stream's default reader (the app's way in WebKit)
//   probe-slice  slice, after a BYOB reader of the file's own stream was asked for (WebKit: the
//             stream reads the whole file into memory; the app now asks an empty Blob)
//   sync      FileReaderSync.readAsArrayBuffer(blob.slice()) (synchronous, workers only)
//   headers-sync / headers-async  64 bytes every 61,200 (a planner reading only block headers), through
//             FileReaderSync or blob.slice().arrayBuffer(), one read after the other
//   sliceDxM  blob.slice().arrayBuffer() with D reads of M MiB in flight (e.g. slice2x4)
//   response-byob  new Response(blob).body with a BYOB reader
// Engines alternate within each run; the trace is read into the page cache before each. Also
// reported: the peak private memory of the process that runs the page and the worker, sampled
// every 20 ms during the read, above what it held before.
import os from 'node:os';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { existsSync } from 'node:fs';
import { ROOT, BIGTRACE, buildTools, ensureTrace, warmFile, serveDir, sampleContentMemory } from './scale-lib.mjs';
import { launchEngine } from '../e2e/engines/index.mjs';

const argv = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : dflt;
};
const sizes = opt('sizes', '100,1024').split(',').map(Number);
const engines = opt('engines', 'chromium,firefox,webkit').split(',');
const runs = Number(opt('runs', '3'));
const ways = opt('ways', 'byob,stream,slice,sync').split(',');

// The worker: reads `file` the way `way` names, returns { ms, pieces }.
const WORKER = `
const PIECE = 4 * 1024 * 1024;
const target = new Uint8Array(PIECE);
// A BYOB reader into one reused buffer, as the app's worker reads.
async function byob(reader) {
  let pieces = 0, bytes = 0;
  let buf = new ArrayBuffer(PIECE);
  for (;;) {
    const { value, done } = await reader.read(new Uint8Array(buf, 0, PIECE));
    if (done) break;
    target.set(value);
    bytes += value.length; pieces++;
    buf = value.buffer;
  }
  return { pieces, bytes };
}
async function read(file, way) {
  const t0 = performance.now();
  let pieces = 0, bytes = 0;
  if (way === 'byob') {
    ({ pieces, bytes } = await byob(file.stream().getReader({ mode: 'byob' })));
  } else if (way === 'stream') {
    const reader = file.stream().getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      for (let o = 0; o < value.length; o += PIECE) target.set(value.subarray(o, Math.min(o + PIECE, value.length)));
      bytes += value.length; pieces++;
    }
  } else if (way === 'segments') {
    // The file's 16 MiB slices one after the other, each through its own stream's default reader
    // (the app's way where there is no BYOB reader: one stream would read on without limit).
    const SEGMENT = 16 * 1024 * 1024;
    for (let at = 0; at < file.size; at += SEGMENT) {
      const reader = file.slice(at, Math.min(at + SEGMENT, file.size)).stream().getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        for (let o = 0; o < value.length; o += PIECE) target.set(value.subarray(o, Math.min(o + PIECE, value.length)));
        bytes += value.length; pieces++;
      }
    }
  } else if (way === 'slice' || way === 'probe-slice') {
    // probe-slice: as slice, after asking the file itself for a BYOB reader of its stream, as the
    // app's worker once did (WebKit throws, and its stream then reads the whole file into memory).
    if (way === 'probe-slice') try { file.stream().getReader({ mode: 'byob' }); } catch (e) { /* WebKit */ }
    let at = 0;
    const next = () => (at < file.size ? file.slice(at, (at += PIECE)).arrayBuffer() : null);
    let pending = next();
    while (pending) {
      const ab = await pending;
      pending = next();
      target.set(new Uint8Array(ab));
      bytes += ab.byteLength; pieces++;
    }
  } else if (/^slice(\\d+)x(\\d+)$/.test(way)) {
    // sliceDxM: D reads in flight, M MiB each.
    const [, depth, mib] = way.match(/^slice(\\d+)x(\\d+)$/).map(Number);
    const size = mib * 1024 * 1024;
    let at = 0;
    const next = () => (at < file.size ? file.slice(at, (at += size)).arrayBuffer() : null);
    const queue = [];
    for (let i = 0; i < depth; i++) { const p = next(); if (p) queue.push(p); }
    while (queue.length) {
      const ab = await queue.shift();
      const p = next();
      if (p) queue.push(p);
      const bytesIn = new Uint8Array(ab);
      for (let o = 0; o < bytesIn.length; o += PIECE) target.set(bytesIn.subarray(o, Math.min(o + PIECE, bytesIn.length)));
      bytes += ab.byteLength; pieces++;
    }
  } else if (way === 'response-byob') {
    ({ pieces, bytes } = await byob(new Response(file).body.getReader({ mode: 'byob' })));
  } else if (way === 'headers-sync' || way === 'headers-async') {
    // What a planner that reads only the blocks' headers would read: 64 bytes every 61,200 (the
    // generated trace's mean block size), one read after the other (each header says where the
    // next one is). Not a whole read of the file: bytes counts the file as skipped over.
    const r = way === 'headers-sync' ? new FileReaderSync() : null;
    for (let at = 0; at < file.size; at += 61200) {
      const s = file.slice(at, Math.min(at + 64, file.size));
      const ab = r ? r.readAsArrayBuffer(s) : await s.arrayBuffer();
      target.set(new Uint8Array(ab));
      pieces++;
    }
    bytes = file.size;
  } else if (way === 'sync') {
    const r = new FileReaderSync();
    for (let at = 0; at < file.size; at += PIECE) {
      const ab = r.readAsArrayBuffer(file.slice(at, at + PIECE));
      target.set(new Uint8Array(ab));
      bytes += ab.byteLength; pieces++;
    }
  }
  if (bytes !== file.size) throw new Error(way + ': read ' + bytes + ' of ' + file.size + ' bytes');
  return { ms: performance.now() - t0, pieces };
}
onmessage = async (e) => {
  try { postMessage(await read(e.data.file, e.data.way)); } catch (err) { postMessage({ error: String(err && err.message || err) }); }
};`;

async function measure(browser, base, file, way) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(base);
  await page.evaluate(() => document.body.insertAdjacentHTML('beforeend', '<input type="file" id="read-file" hidden>'));
  await page.setInputFiles('#read-file', file);
  warmFile(file);
  const memory = sampleContentMemory(browser.engine);
  await page.evaluate(([src, way]) => {
    window.__read = null;
    const w = new Worker(URL.createObjectURL(new Blob([src], { type: 'text/javascript' })));
    w.onmessage = (e) => { window.__read = e.data; w.terminate(); };
    w.onerror = (e) => { window.__read = { error: e.message }; };
    w.postMessage({ file: document.querySelector('#read-file').files[0], way });
  }, [WORKER, way]);
  const r = await page.waitForFunction(() => window.__read, null, { timeout: 300_000, polling: 50 });
  const { before, peak } = await memory.stop();
  await context.close();
  return { ...r, growMiB: (peak - before) / 2 ** 20 };
}

async function main() {
  if (!existsSync(BIGTRACE)) buildTools();
  const server = await serveDir(path.join(ROOT, 'dist'), { isolated: false });
  console.log(`${os.cpus().length} cores, load ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  const results = {};
  const grow = {};
  try {
    for (const mb of sizes) {
      const t = ensureTrace(mb);
      const size = (await stat(t.file)).size;
      for (let run = 0; run < runs; run++) {
        for (const engine of engines) {
          const browser = await launchEngine(engine);
          try {
            for (const way of ways) {
              const r = await measure(browser, server.base, t.file, way);
              const key = `${mb} MiB ${engine} ${way}`;
              (results[key] ??= []).push(r.error ? r.error : r.ms);
              (grow[key] ??= []).push(r.growMiB);
              console.log(`${key}: ${r.error ?? `${r.ms.toFixed(0)} ms, ${(size / 1e6 / (r.ms / 1000)).toFixed(0)} MB/s, ${r.pieces} pieces, +${r.growMiB.toFixed(0)} MiB private`}`);
            }
          } finally {
            await browser.close();
          }
        }
      }
    }
  } finally {
    await server.close();
  }
  console.log(`\nbest of ${runs} (ms), load now ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}:`);
  for (const [k, v] of Object.entries(results)) {
    const ms = v.filter((x) => typeof x === 'number');
    console.log(`${k}: ${ms.length ? Math.min(...ms).toFixed(0) : v[0]}  [${v.map((x) => (typeof x === 'number' ? x.toFixed(0) : 'error')).join(', ')}]; private memory +${grow[k].map((x) => x.toFixed(0)).join(', ')} MiB`);
  }
}

await main();

import { serveDir, launchForMeasuring } from './scale-lib.mjs';
import { execSync } from 'node:child_process';
const file = process.argv[2];
const server = await serveDir(process.env.GCSCOPE_DIST);
const browser = await launchForMeasuring();
const context = await browser.newContext();
const page = await context.newPage();
await page.goto(server.base);
await page.evaluate(() => document.body.insertAdjacentHTML('beforeend', '<input type="file" id="f" hidden>'));
await page.setInputFiles('#f', file);
for (let round = 0; round < 2; round++) {
  const load = execSync('cat /proc/loadavg').toString().split(' ')[0];
  const r = await page.evaluate(async () => {
    const f = document.querySelector('#f').files[0];
    const code = `onmessage = async (e) => { const {f, mode, n} = e.data; const t0 = performance.now(); let sum = 0;
      if (mode === 'slices') { const C = 4 << 20; const per = Math.ceil(f.size / n); const jobs = [];
        for (let k = 0; k < n; k++) jobs.push((async () => { for (let o = k * per; o < Math.min(f.size, (k+1)*per); o += C) { const b = await f.slice(o, Math.min(o + C, (k+1)*per, f.size)).arrayBuffer(); sum += b.byteLength; } })());
        await Promise.all(jobs); }
      else if (mode === 'prefetch') { const C = 4 << 20; let p = f.slice(0, C).arrayBuffer(); for (let o = 0; o < f.size; o += C) { const q = o + C < f.size ? f.slice(o + C, o + 2 * C).arrayBuffer() : null; const b = await p; sum += b.byteLength; p = q; } }
      else { const r = f.stream().getReader({ mode: 'byob' }); let buf = new ArrayBuffer(4 << 20); for (;;) { const { value, done } = await r.read(new Uint8Array(buf)); if (done) break; sum += value.byteLength; buf = value.buffer; } }
      postMessage({ ms: performance.now() - t0, sum }); };`;
    const run = (mode, n) => new Promise((res) => { const w = new Worker(URL.createObjectURL(new Blob([code]))); w.onmessage = (e) => { w.terminate(); res(e.data); }; w.postMessage({ f, mode, n }); });
    const out = {};
    for (const [m, n] of [['byob', 1], ['slices', 1], ['prefetch', 1], ['slices', 2], ['slices', 4]]) out[`${m}${n}`] = (await run(m, n)).ms.toFixed(0);
    return out;
  });
  console.log(JSON.stringify(r), 'load', load);
}
await browser.close(); await server.close();

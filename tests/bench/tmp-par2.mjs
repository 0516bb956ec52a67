import { serveDir, launchForMeasuring, measureWorkerOnly } from './scale-lib.mjs';
import { execSync } from 'node:child_process';
const file = process.argv[2];
const server = await serveDir(process.env.GCSCOPE_DIST);
const browser = await launchForMeasuring();
browser.on?.('disconnected', () => {});
for (let round = 0; round < 3; round++) for (const w of [1, 2, 3]) {
  const load = execSync('cat /proc/loadavg').toString().split(' ')[0];
  const r = await measureWorkerOnly(browser, server.base, file, { workers: w, onConsole: (t) => console.log('  console:', t) });
  console.log(`workers=${w}: ${r.ms.toFixed(0)} ms (${r.mbPerS.toFixed(0)} MB/s) used ${r.workers} part bytes ${(r.partBytes/1e6).toFixed(0)} MB error ${r.error} load ${load}`);
}
await browser.close(); await server.close();

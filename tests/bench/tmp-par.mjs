import { serveDir, measureOpen, exportGcTable, launchForMeasuring, measureWorkerOnly } from './scale-lib.mjs';
const file = process.argv[2];
const server = await serveDir(process.env.GCSCOPE_DIST);
const browser = await launchForMeasuring();
const tables = {};
for (const w of [1, 2, 1, 2]) {
  const m = await measureOpen(browser, server.base, file, { query: `?tab=gcs&workers=${w}`, sample: false });
  const r = m.result;
  const t = await exportGcTable(m.page);
  console.log(`workers=${w}: done ${r.doneMs.toFixed(0)} ms first row ${r.firstRowMs.toFixed(0)} rows ${t.length} problems ${JSON.stringify(r.problems)} error ${r.shown.error}`);
  tables[w] = JSON.stringify(t);
  await m.close();
}
console.log('same table:', tables[1] === tables[2]);
await browser.close(); await server.close();

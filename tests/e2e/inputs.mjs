// Test inputs committed in the repository, with expected values that gcscope did not produce.
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { ROOT, openApp } from './harness.mjs';

/** The generated workloads' traces: FIXTURES/RUNTIME/WORKLOAD.nettrace, with their oracles. */
export const FIXTURES = path.join(ROOT, 'fixtures/traces');

/**
 * The app (openApp) with the fixtures served at `remote/` (`?trace=remote/net8.0/loh.nettrace`,
 * `&compare=...`), then `query` followed. The start page's fetch of the samples' list ends first:
 * a navigation that cut it off would be a NetworkError on the page in Firefox.
 */
export async function openWithFixtures(browser, base, query = '') {
  const app = await openApp(browser, base);
  await app.page.route('**/remote/**', async (route, request) => {
    const rel = decodeURIComponent(new URL(request.url()).pathname.split('/remote/')[1]);
    const file = path.join(FIXTURES, rel);
    if (!file.startsWith(FIXTURES) || !existsSync(file)) return route.fulfill({ status: 404, body: 'no such fixture' });
    await route.fulfill({ status: 200, body: await readFile(file), contentType: 'application/octet-stream' });
  });
  if (query) {
    await app.page.locator('#sample-0').waitFor({ timeout: 30_000 });
    await app.page.goto(base + query);
  }
  return app;
}

/** A real .NET 8 trace made by tools/tracegen (see fixtures/README.md). */
export const FIXTURE = path.join(ROOT, 'fixtures/traces/net8.0/wks-concurrent.nettrace');

/** GC/Start events as counted by TraceEvent itself (fixture's .traceevent.json). */
export async function fixtureGcStarts() {
  const te = JSON.parse(await readFile(FIXTURE.replace(/\.nettrace$/, '.traceevent.json'), 'utf8'));
  const rows = te.events ?? te.event_counts ?? [];
  const row = rows.find((r) => r.provider === 'Microsoft-Windows-DotNETRuntime' && r.name === 'GC/Start');
  if (!row) throw new Error(`no GC/Start count in ${FIXTURE}.traceevent.json`);
  return row.count;
}

// Test inputs committed in the repository, with expected values that gcscope did not produce.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ROOT } from './harness.mjs';

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

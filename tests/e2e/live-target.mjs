// What the tests that run a real .NET process need (live.test.mjs, heap-walk.test.mjs): the
// gcscope binary, tools/tracegen's launcher of its workloads on a cached runtime, and why a test
// skips when either is missing.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './harness.mjs';

/** The gcscope binary built here (release first), or undefined. */
export const BIN = ['release', 'debug'].map((p) => path.join(ROOT, 'target', p, 'gcscope')).find((p) => existsSync(p));
/** `live.sh RUNTIME ORACLE [WORKLOAD]`: runs a workload that waits for a line on its stdin. */
export const LIVE_SH = path.join(ROOT, 'tools/tracegen/live.sh');

/** Why a test on .NET 9 cannot run here, or false. */
export function whyNoNet9() {
  if (!BIN) return 'no gcscope binary in target/ (cargo build -p gcscope-cli)';
  const probe = spawnSync(LIVE_SH, ['net9.0', '/dev/null'], { env: { ...process.env, GCSCOPE_LIVE_GCS: '0' }, input: '\n' });
  if (probe.status === 3) return `.NET 9 is not cached: ${String(probe.stderr).trim()}`;
  return false;
}

// The live tab: `gcscope serve --pid P` on tools/tracegen's `live` workload (.NET 9), the app opened
// at the URL it serves with `?live=stream`. The workload prints each GC's number and the wall
// clock as it ended (its own truth); the test reads the live bar's count as the GCs come, so the
// latency from a GC's end to the page showing it is measured; the Overview's findings grow before
// the session ends, its facts name the runtime and the command line before the rundown does, and
// the findings' call stacks come from the session's trace once it has ended; then it
// presses Stop: the session ends
// (the bar says so), the analysis comes, the GC table holds every GC the workload made after the
// session started, and the trace's download is the session's bytes. A reload in the middle reads
// the session again from its first byte.
//
// Skips, saying so, when the gcscope binary (target/release or target/debug) or the cached .NET 9
// runtime is missing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { DIST, ENGINE, launch, openApp, screenshot } from './harness.mjs';
import { BIN, LIVE_SH, whyNoNet9 } from './live-target.mjs';

const GCS = 160;
const EVERY_MS = 150;

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

/** Lines of a child's stream, each with the time it came. */
function lines(stream) {
  const got = [];
  const waiters = [];
  readline.createInterface({ input: stream }).on('line', (l) => {
    got.push({ l, at: Date.now() });
    for (const w of [...waiters]) if (w.re.test(l)) { waiters.splice(waiters.indexOf(w), 1); w.resolve(l); }
  });
  return {
    got,
    waitFor(re, ms = 60_000) {
      const hit = got.find((g) => re.test(g.l));
      if (hit) return Promise.resolve(hit.l);
      return new Promise((resolve, reject) => {
        const w = { re, resolve };
        waiters.push(w);
        setTimeout(() => reject(new Error(`no line ${re} in ${ms} ms: ${got.map((g) => g.l).join(' | ')}`)), ms);
      });
    },
  };
}

test('the live tab grows as GCs end; Stop ends the session and offers the trace', { skip: whyNoNet9() }, async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gcscope-live-e2e-'));
  const oracle = path.join(dir, 'oracle.json');
  const w = spawn(LIVE_SH, ['net9.0', oracle], {
    env: { ...process.env, GCSCOPE_LIVE_GCS: String(GCS), GCSCOPE_LIVE_EVERY_MS: String(EVERY_MS) },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const wl = lines(w.stdout);
  let serve;
  try {
    await wl.waitFor(/^ready$/);
    serve = spawn(BIN, ['serve', '--pid', String(w.pid), '--dist', DIST], { stdio: ['ignore', 'ignore', 'pipe'] });
    const sl = lines(serve.stderr);
    const url = (await sl.waitFor(/http:\/\/127\.0\.0\.1:\d+\/[0-9a-f]+\/\?live=stream/)).trim();
    const base = url.slice(0, url.indexOf('?'));
    const { page, problems } = await openApp(browser, base, '?live=stream');
    await page.locator('#live-bar').waitFor({ timeout: 60_000 });
    assert.match(await page.locator('#live-state').textContent(), /Live/);
    w.stdin.write('go\n');

    // The count the bar shows, polled; the first time each count is seen.
    const seen = new Map();
    const deadline = Date.now() + 60_000;
    let shown = 0;
    while (shown < 8 && Date.now() < deadline) {
      const t = await page.locator('#live-counts').textContent();
      shown = Number(/(\d+) GCs? ended/.exec(t)?.[1] ?? 0);
      if (!seen.has(shown)) seen.set(shown, Date.now());
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.ok(shown >= 8, `the bar shows ${shown} GCs`);
    await screenshot(page, 'live-tab');
    // Latency: a GC's end on the workload's clock to the bar's count reaching it. The GC numbers
    // count from the first after attaching, as the bar's count does.
    const ends = wl.got.map((g) => /^gc (\d+) ([\d.]+)$/.exec(g.l)).filter(Boolean).map((m) => Number(m[2]));
    const lat = [...seen].filter(([n]) => n >= 1 && n <= ends.length).map(([n, at]) => at - ends[n - 1]).sort((a, b) => a - b);
    console.log(`${ENGINE}: live tab latency from GC end to the bar: median ${lat[lat.length >> 1]?.toFixed(0)} ms, max ${lat[lat.length - 1]?.toFixed(0)} ms over ${lat.length} GCs`);

    // The findings grow with the session, before it ends: every GC the workload makes is a
    // GC.Collect(), so the induced-GC finding names GCs, never more than the workload has printed,
    // and names more a few seconds on.
    const induced = async (more) => {
      await page.waitForFunction((n) => {
        const b = document.querySelector('#findings-list li[data-rule="induced"] .finding-gcs');
        return b && Number(b.dataset.count) > n;
      }, more, { timeout: 30_000, polling: 50 });
      const n = Number(await page.locator('#findings-list li[data-rule="induced"] .finding-gcs').getAttribute('data-count'));
      const printed = wl.got.filter((g) => /^gc \d+ /.test(g.l)).length;
      assert.notEqual(await page.locator('#live-bar').getAttribute('data-ended'), 'true', 'the findings came before the session ended');
      assert.ok(n <= printed, `${n} induced GCs in the findings, ${printed} made`);
      return n;
    };
    // The call stacks are read from the session's trace: until it ends, the finding says so.
    const stacks = '#findings-list li[data-rule="induced"] .top-stacks';
    await page.waitForFunction((sel) => /come once the session\s+ends/.test(document.querySelector(sel)?.textContent ?? ''), stacks, { timeout: 30_000, polling: 50 });
    assert.doesNotMatch(await page.locator(stacks).textContent(), /could not be read/);
    const first = await induced(0);
    // Before the rundown, the facts name the runtime and the command line from what the runtime
    // said of its process: the version the workload printed, the words of its kernel command line.
    const version = /^runtime (\S+)$/.exec(wl.got.find((g) => /^runtime /.test(g.l))?.l ?? '')?.[1];
    assert.ok(version, 'the workload printed its runtime version');
    assert.match(await page.locator('#fact-runtime').textContent(), new RegExp(version.replaceAll('.', '\\.')));
    const words = readFileSync(`/proc/${w.pid}/cmdline`, 'utf8').split('\0').filter(Boolean).slice(1);
    const cmd = await page.locator('#fact-command-line').textContent();
    for (const word of words) assert.ok(cmd.includes(word), `${cmd} lacks ${word}`);
    assert.match(await page.locator('#live-process').textContent(), new RegExp(`pid ${w.pid}\\b`));
    assert.notEqual(await page.locator('#live-bar').getAttribute('data-ended'), 'true', 'the facts came before the session ended');
    const later = await induced(first);
    console.log(`${ENGINE}: induced GCs in the live findings: ${first}, then ${later}`);
    await screenshot(page, 'live-tab-findings');

    // A reload reads the session again from its first byte: the address keeps `?live=`.
    assert.match(await page.url(), /[?&]live=stream/);
    await page.reload();
    await page.locator('#live-bar').waitFor({ timeout: 60_000 });
    await page.waitForFunction((n) => Number(/(\d+) GCs? ended/.exec(document.querySelector('#live-counts')?.textContent ?? '')?.[1] ?? 0) >= n,
      shown, { timeout: 60_000, polling: 50 });

    await page.locator('#live-stop').click();
    await page.waitForFunction(() => document.querySelector('#live-bar')?.dataset.ended === 'true', undefined, { timeout: 60_000, polling: 100 });
    assert.match(await page.locator('#live-state').textContent(), /Session ended/);
    // Then the page fetches the session's trace and reads its call stacks.
    await page.waitForFunction((sel) => {
      const t = document.querySelector(sel)?.textContent ?? '';
      return t !== '' && !/come once the session\s+ends|Reading the call stacks/.test(t);
    }, stacks, { timeout: 60_000, polling: 100 });
    const after = await page.locator(stacks).textContent();
    assert.doesNotMatch(after, /could not be read/, after);
    const ended = Number(/(\d+) GCs? ended/.exec(await page.locator('#live-counts').textContent())?.[1] ?? 0);
    assert.ok(ended >= shown && ended < GCS, `${ended} GCs when stopped`);
    // The download is the session's bytes; the CLI reads the same GC count from them.
    const href = await page.locator('#live-download').getAttribute('href');
    const bytes = Buffer.from(await page.evaluate(async (u) => {
      const b = new Uint8Array(await (await fetch(u)).arrayBuffer());
      return Array.from(b);
    }, new URL(href, base).href));
    const file = path.join(dir, 'live.nettrace');
    writeFileSync(file, bytes);
    const cli = JSON.parse(spawnSync(BIN, ['summary', file, '--json'], { encoding: 'utf8' }).stdout);
    const all = cli.rollup.find((r) => r.gen === 'all');
    assert.equal(all.count, ended, 'the downloaded trace has the GCs the tab shows');
    await screenshot(page, 'live-tab-ended');
    assert.deepEqual(problems, []);
  } finally {
    serve?.kill('SIGINT');
    setTimeout(() => serve?.kill('SIGKILL'), 2000).unref();
    w.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});

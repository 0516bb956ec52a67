// ETW traces in the tab: PerfView's .etl.zip files (../shared/traces/perfview) and machine-wide
// .etl files written by the test-only writer (core/examples/etl_machine.rs). A machine-wide trace
// holds every process: the page shows one (the most GC pause, or `?pid=`), lists the processes with
// GC events in a picker, switches between them, and says what a trace without GCs holds.
//
// References: the native CLI over the same core (`gcscope summary --json [--pid N]`, itself checked
// against TraceEvent's baselines in core/tests/etl_*.rs), TraceEvent's baseline counts (GC/Stop of
// every process), and for the generated file the fixtures' own TraceEvent analyses (.traceevent.json).
// Written for the three-engine harness (tests/README.md): Playwright's API as harness.mjs serves it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile, mkdtemp, mkdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { ROOT, SHARED, ENGINE, OUT, serveDist, launch, openApp, figuresOnly } from './harness.mjs';
import { BIGTRACE, GCSCOPE, TARGET, ensureTrace } from '../bench/scale-lib.mjs';

const PERFVIEW = path.join(SHARED, 'traces/perfview');
const ETL = (name) => path.join(PERFVIEW, `${name}.etl.zip`);
const THREE = ['gcevents', 'net.4.5.2.x64', 'net.4.5.2.x86'];
const noShared = !existsSync(ETL('net.4.5.2.x64')) && 'no ../shared here (the PerfView .etl.zip files)';
const ETL_MACHINE = path.join(TARGET, 'release/examples/etl_machine');
const FIX = (name) => path.join(ROOT, 'fixtures/traces/net8.0', `${name}.nettrace`);

let server, browser, tmp;
before(async () => {
  const build = (args) => {
    const r = spawnSync('cargo', args, { cwd: ROOT, stdio: 'inherit' });
    assert.equal(r.status, 0, `cargo ${args.join(' ')}`);
  };
  if (!existsSync(GCSCOPE)) build(['build', '--release', '-p', 'gcscope-cli']);
  if (!existsSync(ETL_MACHINE)) build(['build', '--release', '-p', 'gcscope-core', '--features', 'encode', '--example', 'etl_machine']);
  tmp = await mkdtemp(path.join(os.tmpdir(), 'gcscope-etw-'));
  server = await serveDist();
  browser = await launch();
});
after(async () => { await browser?.close(); await server?.close(); });

const num = (s) => Number(String(s).replace(/[^0-9.\-]/g, ''));

function run(cmd, args) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 30 });
  assert.equal(r.status, 0, `${cmd} ${args.join(' ')}: ${r.stderr}`);
  return r;
}

/**
 * The CLI's view of FILE: the process it shows by default, and every process with GC events with
 * its GC count and total pause from `gcscope summary --json --pid N`. The list is what the CLI says
 * on stderr when a trace holds several ("showing NAME (pid P): ..." and "  NAME (pid P): ...").
 */
function cliProcesses(file) {
  const r = run(GCSCOPE, ['summary', '--json', file]);
  const whole = JSON.parse(r.stdout);
  const pids = [...r.stderr.matchAll(/\(pid (\d+)\)/g)].map((m) => Number(m[1]));
  if (pids.length === 0) pids.push(whole.process.process_id);
  const list = pids.map((pid) => {
    const s = JSON.parse(run(GCSCOPE, ['summary', '--json', '--pid', String(pid), file]).stdout);
    const all = s.rollup.find((g) => g.gen === 'all');
    return { pid, name: s.process.process_name, gcs: s.process.gc_count, pause: all.total_pause_ms, runtime: s.process.runtime_version };
  });
  return { shown: whole.process.process_id, list, whole };
}

/** TraceEvent's baseline count of `name` (every process of the trace). */
async function baselineCount(trace, name) {
  const text = await readFile(path.join(PERFVIEW, `${trace}.baseline.txt`), 'utf8');
  const line = text.replace(/^\uFEFF/, '').split('\n').find((l) => l.startsWith(`COUNT ${name}:`));
  return Number(line.split(':').pop());
}

/** Opens `file` with the file input and waits until the whole trace is read. */
async function open(page, file) {
  await page.setInputFiles('#file-input', file);
  await page.locator('#report').waitFor({ timeout: 60_000 });
}

/** The picker's rows: pid, name, GC count, total pause (ms, with the precision shown). */
async function pickerRows(page) {
  const rows = [];
  const trs = page.locator('#process-table tbody tr');
  for (let i = 0, n = await trs.count(); i < n; i++) {
    const tr = trs.nth(i);
    const pause = (await tr.locator('.proc-pause').textContent()).trim();
    const decimals = (pause.split(' ')[0].split('.')[1] ?? '').length;
    rows.push({
      pid: Number(await tr.getAttribute('data-pid')),
      name: (await tr.locator('.process-pick').textContent()).trim(),
      gcs: num(await tr.locator('.proc-gcs').textContent()),
      pause: num(pause),
      tol: 0.5 * 10 ** -decimals + 1e-9,
      runtime: (await tr.locator('.proc-runtime').textContent()).trim(),
    });
  }
  return rows;
}

/** The shown process's pid (from the overview's Process fact). */
async function shownPid(page) {
  const m = (await page.locator('#fact-process').textContent()).match(/pid (\d+)/);
  return Number(m[1]);
}

/** The page shows process `p` of the CLI's list: its facts and its GC table. */
async function assertShows(page, p, what) {
  assert.equal(await shownPid(page), p.pid, `${what}: pid`);
  assert.equal(num(await page.locator('#fact-gcs').textContent()), p.gcs, `${what}: GCs`);
  if (p.name) assert.match(await page.locator('#fact-process').textContent(), new RegExp(`^${p.name.replace('.', '\\.')} · pid`), what);
  assert.equal(await page.locator('#process-shown').textContent(), `${p.name ?? '?'} (pid ${p.pid})`, what);
}

async function gcTableRows(page) {
  await page.click('#tab-gcs');
  const t = await page.locator('#row-count').textContent();
  await page.click('#tab-overview');
  return num(t.match(/of ([\d,]+)/)[1]);
}

test('each PerfView .etl.zip: the process shown, the picker\'s processes, GC counts and pauses as the CLI and TraceEvent count them', { skip: (noShared) || figuresOnly('the ETW processes\' figures against the CLI and TraceEvent') }, async () => {
  for (const trace of THREE) {
    const file = ETL(trace);
    const cli = cliProcesses(file);
    const { page, context, problems } = await openApp(browser, server.base);
    await open(page, file);
    // The picker lists the CLI's processes, in its order (most GC pause first), with its figures.
    const rows = await pickerRows(page);
    assert.deepEqual(rows.map((r) => r.pid), cli.list.map((p) => p.pid), `${trace}: processes`);
    for (const [i, r] of rows.entries()) {
      const p = cli.list[i];
      assert.equal(r.gcs, p.gcs, `${trace} pid ${p.pid}: GCs`);
      assert.ok(Math.abs(r.pause - p.pause) <= r.tol, `${trace} pid ${p.pid}: pause ${r.pause} vs CLI ${p.pause}`);
      assert.equal(r.name, p.name ?? '?', `${trace} pid ${p.pid}: name`);
    }
    // Every GC of every process, as TraceEvent counts them (one GC/Stop per GC).
    const stops = await baselineCount(trace, 'Microsoft-Windows-DotNETRuntime/GC/Stop');
    assert.equal(rows.reduce((s, r) => s + r.gcs, 0), stops, `${trace}: GCs of all processes vs TraceEvent's GC/Stop`);
    // The default: the CLI's choice, its facts and every one of its GCs in the table.
    const shown = cli.list.find((p) => p.pid === cli.shown);
    await assertShows(page, shown, trace);
    assert.equal(await gcTableRows(page), shown.gcs, `${trace}: GC table`);
    // The runtime as people name it, the file's own facts: PerfView's merged (relogged) .NET
    // Framework files are compressed, the .NET 8 one is not.
    const framework = trace.startsWith('net.4.5.2');
    assert.match(await page.locator('#fact-runtime').textContent(), framework ? /^\.NET Framework 4\.x \(CLR 4\.0\.30319\.34209\)$/ : /^\.NET 8\.0\.0 /, trace);
    assert.match(await page.locator('#fact-etl-file').textContent(), framework ? /^compressed/ : /^not compressed/, trace);
    assert.equal(await page.locator('#fact-etw-lost').textContent(), `0 events · 0 buffers`, trace);
    assert.equal(num(await page.locator('#fact-dropped-events').textContent()), cli.whole.process.dropped_events, trace);
    assert.equal(await page.locator('#fact-events .warn').count(), 0, `${trace}: nothing lost, no warning`);
    assert.deepEqual(problems, [], trace);
    await context.close();
  }
});

test('switching process: the picker, Back and Forward, and a ?pid= link, from what the worker kept or by reading the file again', { skip: noShared }, async () => {
  const file = ETL('net.4.5.2.x64');
  const cli = cliProcesses(file);
  assert.equal(cli.list.length, 2, 'two processes with GC events (the test app and PerfView)');
  const [first, second] = cli.list;
  for (const keep of [null, 0]) {
    const what = keep === null ? 'kept' : 'read again';
    const { page, context, problems } = await openApp(browser, server.base, '?tab=overview');
    // Tests only: what the worker may keep of the other processes (0: nothing, switching reads again).
    if (keep !== null) await page.evaluate((k) => { window.gcscopeKeepBytes = k; }, keep);
    await open(page, file);
    await assertShows(page, first, what);
    assert.ok(!new URL(await page.url()).searchParams.has('pid'), 'the default is not written into the address');
    await page.click('#processes summary');
    await page.click(`#process-table button[data-pid="${second.pid}"]`);
    await page.locator(`#process-table tr.current[data-pid="${second.pid}"]`).waitFor({ timeout: 60_000 });
    await page.locator('#report').waitFor({ timeout: 60_000 });
    await assertShows(page, second, `${what}: picked`);
    assert.equal(new URL(await page.url()).searchParams.get('pid'), String(second.pid));
    await page.goBack();
    await page.locator(`#process-table tr.current[data-pid="${first.pid}"]`).waitFor({ timeout: 60_000, state: 'attached' });
    await page.locator('#report').waitFor({ timeout: 60_000 });
    await assertShows(page, first, `${what}: back`);
    await page.goForward();
    await page.locator(`#process-table tr.current[data-pid="${second.pid}"]`).waitFor({ timeout: 60_000, state: 'attached' });
    await page.locator('#report').waitFor({ timeout: 60_000 });
    await assertShows(page, second, `${what}: forward`);
    // (Tabs are steps in the history too: this comes after Back and Forward.)
    assert.equal(await gcTableRows(page), second.gcs, `${what}: GC table of the picked process`);
    assert.deepEqual(problems, [], what);
    await context.close();
  }

  // A link: the trace by address and its process (the trace served from this page's origin).
  const bytes = await readFile(file);
  for (const [query, expect, note] of [
    [`?trace=shared/net.4.5.2.x64.etl.zip&pid=${second.pid}`, second, null],
    // A pid the trace has no GCs for: the default, and the page says why.
    ['?trace=shared/net.4.5.2.x64.etl.zip&pid=999999', first, /pid 999999 has no GC events in this trace/],
  ]) {
    // The test server answers the route once the page is on it; then the link is followed.
    const { page, context, problems } = await openApp(browser, server.base);
    await page.route('**/shared/net.4.5.2.x64.etl.zip', (route) => route.fulfill({ status: 200, body: bytes, contentType: 'application/zip' }));
    await page.goto(server.base + query);
    await page.locator('#report').waitFor({ timeout: 60_000 });
    await assertShows(page, expect, query);
    if (note) assert.match(await page.locator('#processes summary').textContent(), note);
    assert.deepEqual(problems, [], query);
    await context.close();
  }
  // A file opened on a page whose address names a process: that process.
  const { page, context, problems } = await openApp(browser, server.base, `?pid=${second.pid}`);
  await open(page, file);
  await assertShows(page, second, 'file opened under ?pid=');
  assert.deepEqual(problems, []);
  await context.close();
});

test('a cut-off .etl.zip: the processes and GCs before the cut, and a message that says where it ends', { skip: (noShared) || figuresOnly('the ETW processes\' figures against the CLI and TraceEvent') }, async () => {
  // 1,000,000 bytes of the 3.8 MB zip: about half of the test app's GCs, and PerfView's one GC.
  const cut = path.join(tmp, 'net.4.5.2.x64.cut.etl.zip');
  await writeFile(cut, (await readFile(ETL('net.4.5.2.x64'))).subarray(0, 1_000_000));
  const cli = cliProcesses(cut);
  const full = cliProcesses(ETL('net.4.5.2.x64'));
  const shown = cli.list.find((p) => p.pid === cli.shown);
  assert.ok(shown.gcs > 0 && shown.gcs < full.list.find((p) => p.pid === cli.shown).gcs, 'the cut leaves part of the GCs');
  const { page, context, problems } = await openApp(browser, server.base);
  await open(page, cut);
  const error = await page.locator('#error').textContent();
  assert.match(error, /1,?000,?000|cut off|truncated|ends/i, error);
  assert.match(error, /the figures cover everything before that point/);
  await assertShows(page, shown, 'cut');
  const rows = await pickerRows(page);
  assert.deepEqual(rows.map((r) => [r.pid, r.gcs]), cli.list.map((p) => [p.pid, p.gcs]));
  assert.deepEqual(problems, []);
  await context.close();
});

test('a machine-wide trace of three .NET processes (generated): each process as its own trace\'s TraceEvent analysis counts it', { skip: figuresOnly('the ETW processes\' figures against the CLI and TraceEvent') }, async () => {
  const procs = [[5012, 'Shop.Api', 'server'], [6100, 'Worker', 'wks-concurrent'], [7200, 'Batch', 'induced']];
  const file = path.join(tmp, 'three.etl');
  // A session that lost events (its logfile header says how many): every count may be short.
  run(ETL_MACHINE, [file, '--compressed', '--lost', '123', ...procs.map(([pid, name, fix]) => `${pid}:${name}:${FIX(fix)}`)]);
  const cli = cliProcesses(file);
  const { page, context, problems } = await openApp(browser, server.base);
  await open(page, file);
  const rows = await pickerRows(page);
  assert.deepEqual(rows.map((r) => r.pid), cli.list.map((p) => p.pid), 'the CLI\'s processes, in its order');
  for (const [pid, name, fix] of procs) {
    const te = JSON.parse(await readFile(FIX(fix).replace(/\.nettrace$/, '.traceevent.json'), 'utf8'));
    const r = rows.find((x) => x.pid === pid);
    assert.ok(r, `pid ${pid} listed`);
    assert.equal(r.name, name);
    assert.equal(r.gcs, te.gcs.length, `${name}: GCs as TraceEvent counts them in ${fix}.nettrace`);
    const c = cli.list.find((p) => p.pid === pid);
    assert.ok(Math.abs(r.pause - c.pause) <= r.tol, `${name}: pause ${r.pause} vs CLI ${c.pause}`);
    assert.match(r.runtime, /^\.NET 8\./);
  }
  // What was lost, and a warning next to the figures it may skew, and on the picker.
  assert.equal(await page.locator('#fact-etw-lost').textContent(), '123 events · 0 buffers');
  for (const id of ['gcs', 'events', 'gc-events']) {
    assert.match(await page.locator(`#fact-${id} .warn`).getAttribute('title'), /lost 123 events/, id);
  }
  assert.match(await page.locator('#processes summary .warn').textContent(), /events lost/);
  // Each process through the picker, from what the worker kept.
  await page.click('#processes summary');
  for (const p of cli.list.slice(1)) {
    await page.click(`#process-table button[data-pid="${p.pid}"]`);
    await page.locator(`#process-table tr.current[data-pid="${p.pid}"]`).waitFor({ timeout: 60_000 });
    await page.locator('#report').waitFor({ timeout: 60_000 });
    await assertShows(page, p, p.name);
    assert.match(await page.locator('#fact-command-line').textContent(), new RegExp(`^${p.name.replace('.', '\\.')}\\.exe --serve$`));
  }
  assert.deepEqual(problems, []);
  await context.close();
});

test('while reading, the page shows the process leading in GC pause, and only the final one\'s rows once another takes the lead', async () => {
  // Two generated workloads (the same GC rate): Batch (10 MiB of it) starts first and leads,
  // Shop.Api (40 MiB) starts 1 s later and overtakes it once Batch ends, so the lead changes while
  // the file is read. The file (79 MB) is larger than the decoder's merge window (32 MiB), so
  // rows reach the page while it is read.
  if (!existsSync(BIGTRACE)) {
    assert.equal(spawnSync('cargo', ['build', '--release', '-p', 'gcscope-core', '--features', 'encode', '--example', 'bigtrace'], { cwd: ROOT, stdio: 'inherit' }).status, 0);
  }
  const big = ensureTrace(40);
  const small = ensureTrace(10);
  const file = path.join(tmp, 'lead.etl');
  run(ETL_MACHINE, [file, `7200:Batch:${small.file}`, `5012:Shop.Api:${big.file}:1000`]);
  const cli = cliProcesses(file);
  assert.deepEqual(cli.list.map((p) => p.pid), [5012, 7200], 'Shop.Api has the most GC pause');
  // The generator's own record of what it wrote, and the CLI's rows.
  assert.equal(cli.list[0].gcs, big.gcs);
  assert.ok(Math.abs(cli.list[0].pause - big.total_pause_ms) < 1e-6 * big.total_pause_ms);
  const gcs = JSON.parse(run(GCSCOPE, ['gcs', '--json', '--pid', '5012', file]).stdout).map((g) => g.number);
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  // The worker's messages, by type, as the page receives them.
  await context.addInitScript(() => {
    const W = window.Worker;
    window.__types = [];
    window.Worker = function (...args) {
      const w = new W(...args);
      w.addEventListener('message', (e) => window.__types.push(e.data?.type));
      return w;
    };
    window.Worker.prototype = W.prototype;
  });
  const page = await context.newPage();
  await page.goto(`${server.base}?tab=gcs`);
  await open(page, file);
  const types = await page.evaluate(() => window.__types);
  const reset = types.indexOf('reset');
  assert.ok(reset > 0 && types.slice(0, reset).includes('gcs'), `Batch's rows came first, then a reset: ${types.join(' ')}`);
  assert.ok(types.slice(reset).includes('gcs'));
  assert.equal(types.filter((t) => t === 'done').length, 1);
  // Every row is Shop.Api's, each once: the GC table's own JSON export against the CLI's.
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click('.gc-table .export-json')]);
  const shown = JSON.parse(await readFile(await dl.path(), 'utf8')).map((g) => g.number);
  assert.deepEqual(shown.sort((a, b) => a - b), gcs);
  await page.click('#tab-overview');
  await assertShows(page, cli.list[0], 'after the lead changed');
  await context.close();
});

test('no GCs in a machine-wide trace: which processes it has, and what to collect; an EventPipe trace has no picker', { skip: figuresOnly('the ETW processes\' figures against the CLI and TraceEvent') }, async () => {
  // No .NET process at all: Windows' own processes (the generator's list).
  const file = path.join(tmp, 'no-dotnet.etl');
  const written = JSON.parse(run(ETL_MACHINE, [file]).stdout);
  assert.equal(written.processes.length, 0);
  const { page, context, problems } = await openApp(browser, server.base);
  await open(page, file);
  const text = await page.locator('#no-gcs').textContent();
  assert.match(text, /has no \.NET process/);
  assert.match(text, new RegExp(`${written.system} other processes named by the kernel`));
  assert.match(text, /explorer \(pid 2876\)/);
  assert.match(text, /PerfView \/GCCollectOnly/);
  assert.match(text, /Microsoft-Windows-DotNETRuntime/);
  assert.equal(await page.locator('#process-table').count(), 0);
  // The overview describes the trace, not a process it does not have: every event the file holds
  // (the logfile header and one Process/DCStart per process the generator wrote).
  assert.equal(await page.locator('#fact-process').count(), 0);
  assert.match(await page.locator('#no-process').textContent(), /No \.NET process, so no GCs/);
  assert.equal(num(await page.locator('#fact-events').textContent()), 1 + written.system);
  assert.deepEqual(problems, []);
  await context.close();
  // A .NET process whose GC events were not collected (PerfView's rundown-only file): named, with
  // its runtime, as the CLI reads it.
  if (!noShared) {
    const cli = JSON.parse(run(GCSCOPE, ['summary', '--json', ETL('gcrundownevents')]).stdout);
    assert.equal(cli.process.gc_count, 0);
    const { page, context, problems } = await openApp(browser, server.base);
    await open(page, ETL('gcrundownevents'));
    const t = await page.locator('#no-gcs').textContent();
    assert.match(t, /No process in this ETW trace has GC events/);
    assert.match(t, new RegExp(`pid ${cli.process.process_id}\\), \\.NET 8\\.0\\.0`));
    assert.match(t, /wrote runtime events but no GC events/);
    assert.deepEqual(problems, []);
    await context.close();
  }
  // One process, one file: no picker, no notice.
  const one = await openApp(browser, server.base);
  await open(one.page, FIX('wks-concurrent'));
  assert.equal(await one.page.locator('#processes').count(), 0);
  assert.equal(await one.page.locator('#no-gcs').count(), 0);
  assert.deepEqual(one.problems, []);
  await one.context.close();
});

test('screenshots for docs/screenshots/: a .NET Framework ETL trace with the process picker, and a trace without a .NET process', async () => {
  // The documentation's from Chromium; the other engines' to tests/output/<engine>/ (look at them).
  const DOCS = ENGINE === 'chromium' ? path.join(ROOT, 'docs/screenshots') : OUT;
  await mkdir(DOCS, { recursive: true });
  const shoot = async (file, name, before) => {
    const context = await browser.newContext({ viewport: { width: 1400, height: 860 } });
    const page = await context.newPage();
    await page.goto(server.base);
    await open(page, file);
    await before(page);
    await page.screenshot({ path: path.join(DOCS, `${name}.png`) });
    await context.close();
  };
  if (!noShared) {
    await shoot(ETL('net.4.5.2.x64'), '32-etw-overview-processes', async (page) => {
      await page.click('#processes summary');
      await page.locator('#process-table').waitFor();
    });
  }
  const file = path.join(tmp, 'no-dotnet-shot.etl');
  run(ETL_MACHINE, [file]);
  await shoot(file, '33-etw-no-dotnet', (page) => page.locator('#no-gcs').waitFor());
});

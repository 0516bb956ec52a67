// Shared by the browser benchmark (tests/bench/browser-bench.mjs) and the CI-sized scale test
// (tests/e2e/scale.test.mjs): native tools, generated traces in /tmp, a static server for a dist/
// directory, and measuring one trace opened in the app (timings and the tab's memory) in any of
// the three engines (the engine adapter of tests/e2e/engines/).
import { readFile, stat, writeFile } from 'node:fs/promises';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from '../e2e/engines/server.mjs';
import { ENGINE, launchEngine } from '../e2e/engines/index.mjs';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const TARGET = process.env.CARGO_TARGET_DIR ?? path.join(ROOT, 'target');
export const BIGTRACE = path.join(TARGET, 'release/examples/bigtrace');
export const BENCH_STREAM = path.join(TARGET, 'release/examples/bench_stream');
export const GCSCOPE = path.join(TARGET, 'release/gcscope');

/** Builds the generator, the native stream benchmark and the CLI (release) unless `skip` is set. */
export function buildTools({ quiet = false } = {}) {
  const run = (args) => {
    const r = spawnSync('cargo', args, { cwd: ROOT, stdio: quiet ? 'pipe' : 'inherit', encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`cargo ${args.join(' ')} failed:\n${r.stderr ?? ''}`);
  };
  run(['build', '--release', '-p', 'gcscope-core', '--features', 'encode', '--example', 'bigtrace', '--example', 'bench_stream']);
  run(['build', '--release', '-p', 'gcscope-cli']);
}

/**
 * Which checkout the generated traces belong to: several checkouts on one machine (engineers side
 * by side) each regenerate a shared file when their own generator differs, and a file rewritten
 * while a browser reads it fails there (WebKit: "The object can not be found here").
 */
const CHECKOUT = createHash('sha256').update(ROOT).digest('hex').slice(0, 8);

/** A generated trace of about `mb` MiB in /tmp (made once, reused; never committed). */
export function ensureTrace(mb, { seed, extra = [], tag = '' } = {}) {
  const file = `/tmp/gcscope-scale-${mb}mb${seed ? `-s${seed}` : ''}${tag ? `-${tag}` : ''}-${CHECKOUT}.nettrace`;
  const meta = `${file}.json`;
  // Reused while the generator binary is the one that wrote it.
  const generator = statSync(BIGTRACE).mtimeMs;
  if (existsSync(file) && existsSync(meta)) {
    const m = JSON.parse(readFileSync(meta, 'utf8'));
    if (m.generator === generator) return { file, ...m };
  }
  const args = [file, String(mb)];
  if (seed) args.push('--seed', String(seed));
  args.push(...extra);
  const r = spawnSync(BIGTRACE, args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`bigtrace failed: ${r.stderr}`);
  const written = JSON.parse(r.stdout);
  writeFileSync(meta, JSON.stringify({ ...written, generator }));
  return { file, ...written };
}

/** Runs a command and returns { seconds, stdout }. */
export function timed(cmd, args, opts = {}) {
  const t = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 30, ...opts });
  const seconds = Number(process.hrtime.bigint() - t) / 1e9;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return { seconds, stdout: r.stdout };
}

/**
 * Reads `file` through the page cache just before a browser run and returns how long that took (ms).
 * This machine's page cache holds only ~1.1 GB and is trimmed within seconds to minutes (kdamond),
 * so a 1-2 GiB trace read a minute earlier is partly back on disk, and a cold read adds ~1.4 s per
 * GiB to any reader. The native figures are taken right after a read too: both sides see the file cached.
 */
export function warmFile(file) {
  return timed('sh', ['-c', 'cat "$0" > /dev/null', file]).seconds * 1000;
}

/**
 * Serves `dir` at /app/. With `isolated`, sends COOP/COEP so the page is cross-origin isolated and
 * `performance.measureUserAgentSpecificMemory()` (page + its workers) is available (Chromium).
 */
export async function serveDir(dir, { isolated = true, engine = ENGINE } = {}) {
  return serve(path.resolve(dir), { prefix: '/app/', isolated, captureDownloads: engine !== 'chromium' });
}

/** `engine` (default: this run's), headless, as the end-to-end tests launch it; Chromium measures memory eagerly. */
export async function launchForMeasuring(engine = ENGINE) {
  return launchEngine(engine, { measuring: true });
}

/** Browser processes that descend from this node process, with their command lines. */
function ourBrowserProcesses() {
  const procs = new Map();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const st = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(st.slice(st.lastIndexOf(')') + 2).split(' ')[1]);
      procs.set(Number(d), { pid: Number(d), ppid, cmd: readFileSync(`/proc/${d}/cmdline`, 'utf8').replace(/\0/g, ' ') });
    } catch { /* gone */ }
  }
  const mine = new Set([process.pid]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const p of procs.values()) if (!mine.has(p.pid) && mine.has(p.ppid)) { mine.add(p.pid); grew = true; }
  }
  return [...procs.values()].filter((p) => mine.has(p.pid) && p.pid !== process.pid);
}

function statusKb(pid, field) {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith(field + ':'));
    return line ? Number(line.split(/\s+/)[1]) : 0;
  } catch { return 0; }
}

/** Private (unshared) resident memory of a process, bytes: what the tab alone costs. */
export function privateBytes(pid) {
  try {
    const t = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    const kb = (k) => Number((t.match(new RegExp(`^${k}:\\s+(\\d+)`, 'm')) ?? [0, 0])[1]);
    return (kb('Private_Clean') + kb('Private_Dirty')) * 1024;
  } catch { return 0; }
}

/**
 * The processes of our browser that run web pages (the tab's page and its dedicated worker live in
 * one): Chromium's renderers, Firefox's content processes, WebKit's web processes.
 */
const CONTENT = {
  chromium: (cmd) => cmd.includes('--type=renderer'),
  firefox: (cmd) => cmd.includes('-contentproc') && /\btab\s*$/.test(cmd),
  webkit: (cmd) => /WebKitWebProcess/.test(cmd) && !/^\S*bwrap\b/.test(cmd),
};
export function rendererPids(engine = ENGINE) {
  return ourBrowserProcesses().filter((p) => CONTENT[engine](p.cmd)).map((p) => p.pid);
}

/**
 * Samples the private memory of `engine`'s content processes every 20 ms from now until `stop()`,
 * which resolves to { before, peak } in bytes.
 */
export function sampleContentMemory(engine) {
  const pids = rendererPids(engine);
  const before = Math.max(0, ...pids.map(privateBytes));
  let peak = before;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      peak = Math.max(peak, ...pids.map(privateBytes));
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  return { stop: async () => { sampling = false; await sampler; return { before, peak }; } };
}

/** Resets the kernel's peak-RSS counter (VmHWM) of `pids` (root or own processes). */
async function resetPeak(pids) {
  for (const pid of pids) {
    try { await writeFile(`/proc/${pid}/clear_refs`, '5'); } catch { /* not permitted: peak then covers the page's life */ }
  }
}

const MB = 1024 * 1024;

/**
 * Sends a CDP command to a worker through a browser-level session, the non-flattened way
 * (Target.sendMessageToTarget), since playwright's CDPSession cannot address child sessions.
 */
class WorkerCdp {
  constructor(browserSession) {
    this.s = browserSession;
    this.pending = new Map();
    this.nextId = 1;
    this.sessionId = null;
    this.s.on('Target.receivedMessageFromTarget', (e) => {
      const msg = JSON.parse(e.message);
      const p = this.pending.get(msg.id);
      if (p) { this.pending.delete(msg.id); msg.error ? p.reject(new Error(msg.error.message)) : p.resolve(msg.result); }
    });
  }
  /** Attaches to the (newest) dedicated worker, if there is one; returns whether attached. */
  async attach() {
    const { targetInfos } = await this.s.send('Target.getTargets');
    const workers = targetInfos.filter((t) => t.type === 'worker');
    if (!workers.length) return false;
    const t = workers[workers.length - 1];
    if (this.targetId === t.targetId && this.sessionId) return true;
    const { sessionId } = await this.s.send('Target.attachToTarget', { targetId: t.targetId, flatten: false });
    this.sessionId = sessionId;
    this.targetId = t.targetId;
    return true;
  }
  send(method, params = {}) {
    const id = this.nextId++;
    const message = JSON.stringify({ id, method, params });
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.s.send('Target.sendMessageToTarget', { sessionId: this.sessionId, message }).catch(reject);
      setTimeout(() => { if (this.pending.delete(id)) reject(new Error(`${method}: no answer`)); }, 5000);
    });
  }
}

/** JS heap (committed) and ArrayBuffer backing stores of a CDP target, in bytes. */
async function heapUsage(send) {
  const h = await send('Runtime.getHeapUsage');
  // totalSize: what the JS heap has committed (used + free space it holds on to).
  return { js: h.totalSize, backing: h.backingStorageSize ?? 0 };
}


/**
 * Opens `file` in the app through the file input and measures it. Returns timings (ms from the
 * input's change event), the peaks of the sampled memory figures (MiB) and the renderer's peak RSS.
 * `query` picks the view (the GC table, so rows are visible as they stream in).
 */
/** What shows a tab is drawn, where its first element is not enough (see `thenTabs`). */
const TAB_SHOWN = { stacks: '#stacks-flame g.flame-frame, #stacks-error, #stacks-empty, #stacks-none' };

export async function measureOpen(browser, base, file, { query = '?tab=gcs', timeoutMs = 600_000, sampleMs = 50, sample = true, thenTabs = [], workerPrelude = '', doneSelector = '#gc-table tr[data-gc]' } = {}) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  // Trunk's loader announces the page's wasm instance; keep its memory to measure it.
  await context.addInitScript(() => addEventListener('TrunkApplicationStarted', (e) => { window.__wasmMemory = e.detail.wasm.memory; }));
  // When the worker's messages arrive (page clock): splits the worker's time from the page's.
  await context.addInitScript(() => {
    const W = window.Worker;
    const log = (window.__workerMessages = []);
    window.Worker = function (...args) {
      const w = new W(...args);
      w.addEventListener('message', (e) => {
        const d = e.data;
        log.push({ at: performance.now(), type: d?.type ?? "?", rows: d?.type === "gcs" ? (typeof d.rows === "number" ? d.rows : (d.rows ?? []).length) : undefined });
      });
      return w;
    };
    window.Worker.prototype = W.prototype;
  });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console error: ${m.text()}`); });
  await page.goto(base + query);
  await page.locator('#file-input').waitFor({ state: 'attached' });
  // `workerPrelude`: JavaScript run in the worker before the app's (a benchmark's "before" variant).
  if (workerPrelude) {
    await page.route('**/worker.js', async (route) => {
      const res = await route.fetch();
      await route.fulfill({ response: res, body: `${workerPrelude}\n${await res.text()}` });
    });
  }
  // The page's and the worker's heaps through the DevTools protocol: Chromium only. Every engine
  // gets the kernel's figures for its content process (below).
  const engine = browser.engine;
  const devtools = engine === 'chromium';
  const pageCdp = devtools ? await context.raw.newCDPSession(page.raw) : null;
  const browserCdp = devtools ? await browser.raw.newBrowserCDPSession() : null;
  const worker = devtools ? new WorkerCdp(browserCdp) : null;
  // Timestamps on the page's clock: the file input's change, the first GC row painted, the end.
  // `doneSelector`: what shows once the trace is in (a trace without GCs has no GC rows).
  await page.evaluate((doneSelector) => {
    const b = (window.__bench = { change: null, firstRow: null, done: null });
    document.addEventListener('change', () => { if (b.change === null) b.change = performance.now(); }, true);
    const check = () => {
      if (b.change === null) return;
      if (b.firstRow === null && document.querySelector('#gc-table tr[data-gc]')) {
        b.firstRow = -1;
        requestAnimationFrame(() => { b.firstRow = performance.now(); });
      }
      if (b.done === null && !document.querySelector('.loading') && (document.querySelector(doneSelector) || document.querySelector('#error'))) {
        b.done = -1;
        requestAnimationFrame(() => { b.done = performance.now(); });
      }
    };
    new MutationObserver(check).observe(document.body, { subtree: true, childList: true, attributes: true });
  }, doneSelector);
  const renderers = rendererPids(engine);
  const baseline = {
    rss: Math.max(0, ...renderers.map((pid) => statusKb(pid, 'VmRSS') * 1024)),
    private: Math.max(0, ...renderers.map(privateBytes)),
  };
  await resetPeak(renderers);
  const peak = { pageJs: 0, pageBacking: 0, pageWasm: 0, workerJs: 0, workerBacking: 0, total: 0, rss: 0, private: 0 };
  let samples = 0;
  let procSamples = 0;
  let pids = renderers;
  let workerSeen = false;
  // Off for a timing run: the samplers take CPU from the page and interrupt the worker.
  let sampling = sample;
  const sampler = (async () => {
    while (sampling && devtools) {
      try {
        const p = await heapUsage((m) => pageCdp.send(m));
        const pWasm = await page.evaluate(() => window.__wasmMemory?.buffer.byteLength ?? 0);
        let w = { js: 0, backing: 0, wasm: 0 };
        try {
          if (worker.sessionId || await worker.attach()) {
            const send = (m, p) => worker.send(m, p);
            w = { ...(await heapUsage(send)), wasm: 0 }; // not reachable: see docs/performance-log/journal.md, "Earlier (stop 10)"
            workerSeen = true;
          }
        } catch { worker.sessionId = null; /* the worker ended; a new one is looked for next time */ }
        peak.pageJs = Math.max(peak.pageJs, p.js);
        peak.pageBacking = Math.max(peak.pageBacking, p.backing);
        peak.workerJs = Math.max(peak.workerJs, w.js);
        peak.workerBacking = Math.max(peak.workerBacking, w.backing);
        peak.pageWasm = Math.max(peak.pageWasm, pWasm);
        peak.total = Math.max(peak.total, p.js + p.backing + pWasm + w.js + w.backing + w.wasm);
        samples++;
      } catch { /* page navigating or closing */ }
      await new Promise((r) => setTimeout(r, sampleMs));
    }
  })();
  // The kernel's view of the renderer, sampled faster than the DevTools figures above.
  const procSampler = (async () => {
    let n = 0;
    while (sampling) {
      if (n++ % 40 === 0) pids = rendererPids(engine);
      peak.rss = Math.max(peak.rss, ...pids.map((pid) => statusKb(pid, 'VmRSS') * 1024));
      peak.private = Math.max(peak.private, ...pids.map(privateBytes));
      procSamples++;
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  // Mid-run, the browser's own per-context breakdown (page and dedicated worker: JS and wasm
  // memory), where the page is cross-origin isolated. Asked once: it makes V8 walk its heaps.
  const midRun = !devtools ? Promise.resolve(null) : page.waitForFunction(() => Number(document.querySelector('#progress')?.value ?? 0) >= 50, null, { timeout: timeoutMs, polling: 100 })
    .then(() => page.evaluate(async () => {
      if (!self.crossOriginIsolated || !performance.measureUserAgentSpecificMemory) return null;
      const m = await performance.measureUserAgentSpecificMemory();
      const by = {};
      for (const b of m.breakdown) for (const a of b.attribution) by[a.scope] = (by[a.scope] ?? 0) + b.bytes;
      return { bytes: m.bytes, byScope: by };
    }))
    .catch(() => null);
  const warmReadMs = warmFile(file);
  const started = Date.now();
  await page.setInputFiles('#file-input', file);
  await page.waitForFunction(() => window.__bench.done > 0, null, { timeout: timeoutMs, polling: 50 });
  const wallMs = Date.now() - started;
  await new Promise((r) => setTimeout(r, 3 * sampleMs));
  // Then the views that build more when opened (the insights are finished on first view): the
  // peaks with them open are reported apart from the load's.
  const loadPeak = { ...peak };
  const loadHwm = Math.max(0, ...rendererPids(engine).map((pid) => statusKb(pid, 'VmHWM') * 1024));
  // What the GC table shows, read before `thenTabs` leave it (its row count is on that tab only).
  const shown = await page.evaluate(() => ({
    rowCount: document.querySelector('#row-count')?.textContent ?? null,
    error: document.querySelector('#error')?.textContent ?? null,
  }));
  const tabsMs = {};
  for (const tab of thenTabs) {
    const t0 = Date.now();
    await page.click(`#tab-${tab}`);
    // The tab is shown when its content is: for the Stacks tab, the flame graph (its worker reads
    // the file again and sums the stacks), or the reason there is none.
    const shownBy = TAB_SHOWN[tab] ?? '.tab-body section, .tab-body table';
    await page.waitForFunction((sel) => document.querySelector(sel), shownBy, { timeout: timeoutMs, polling: 50 });
    tabsMs[tab] = Date.now() - t0;
    await new Promise((r) => setTimeout(r, 5 * sampleMs));
  }
  sampling = false;
  await sampler;
  await procSampler;
  const t = await page.evaluate(() => window.__bench);
  const messages = await page.evaluate(() => window.__workerMessages);
  const firstOf = (type) => messages.find((m) => m.type === type)?.at;
  const mid = await Promise.race([midRun, new Promise((r) => setTimeout(() => r(null), 2000))]);
  const hwm = Math.max(0, ...rendererPids(engine).map((pid) => statusKb(pid, 'VmHWM') * 1024));
  // The browser's own breakdown (page + dedicated workers), where the page is cross-origin isolated.
  let uaMemory = null;
  try {
    uaMemory = await page.evaluate(async () => {
      if (!self.crossOriginIsolated || !performance.measureUserAgentSpecificMemory) return null;
      const m = await performance.measureUserAgentSpecificMemory();
      return m.bytes;
    });
  } catch { /* not available */ }
  const size = (await stat(file)).size;
  const result = {
    file,
    bytes: size,
    firstRowMs: t.firstRow - t.change,
    // Worker messages: first batch of rows and the final analysis, as they reach the page.
    firstRowsMessageMs: (firstOf('gcs') ?? NaN) - t.change,
    doneMessageMs: (firstOf('done') ?? NaN) - t.change,
    rowBatches: messages.filter((m) => m.type === 'gcs').length,
    progressMessages: messages.filter((m) => m.type === 'progress').length,
    doneMs: t.done - t.change,
    wallMs,
    warmReadMs,
    mbPerS: size / 1e6 / ((t.done - t.change) / 1000),
    peakMiB: Object.fromEntries(Object.entries(loadPeak).map(([k, v]) => [k, +(v / MB).toFixed(1)])),
    // With `thenTabs` opened after loading (null without).
    tabsPeakMiB: thenTabs.length ? Object.fromEntries(Object.entries(peak).map(([k, v]) => [k, +(v / MB).toFixed(1)])) : null,
    tabsMs,
    rendererPeakRssMiB: +(loadHwm / MB).toFixed(1),
    tabsRendererPeakRssMiB: thenTabs.length ? +(hwm / MB).toFixed(1) : null,
    rendererBeforeMiB: { rss: +(baseline.rss / MB).toFixed(1), private: +(baseline.private / MB).toFixed(1) },
    uaMemoryAfterMiB: uaMemory === null ? null : +(uaMemory / MB).toFixed(1),
    uaMemoryMidRunMiB: mid && Object.fromEntries(Object.entries({ total: mid.bytes, ...mid.byScope }).map(([k, v]) => [k, +(v / MB).toFixed(1)])),
    engine,
    /** The DevTools figures (page and worker heaps) were sampled: Chromium's memory runs. */
    devtools: devtools && sample,
    workerMeasured: workerSeen,
    samples,
    procSamples,
    shown,
    problems,
  };
  return { result, page, context, close: async () => { await browserCdp?.detach().catch(() => {}); await context.close(); } };
}

/** The GC table as the app exports it (JSON button of the GC table). */
export async function exportGcTable(page) {
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.locator('.gc-table .export-json').click(),
  ]);
  const p = await download.path();
  return JSON.parse(await readFile(p, 'utf8'));
}

/**
 * The decoding worker alone (no UI): the app's worker.js + worker_bg.wasm started the way the app
 * starts them, fed `file`, its messages counted but not rendered. Measures what the wasm decoder and
 * model sustain in the browser, to compare with the native decoder on the same file.
 */
export async function measureWorkerOnly(browser, base, file, { timeoutMs = 600_000, decodeOnly = false, noStreams = false, workerPrelude = '', workers = 1, onConsole = null } = {}) {
  const context = await browser.newContext();
  const page = await context.newPage();
  if (onConsole) page.on('console', (m) => onConsole(m.text()));
  await page.goto(base);
  await page.evaluate(() => document.body.insertAdjacentHTML('beforeend', '<input type="file" id="bench-file" hidden>'));
  await page.setInputFiles('#bench-file', file);
  const warmReadMs = warmFile(file);
  // The content process's private memory while the worker runs (every engine).
  const memory = sampleContentMemory(browser.engine);
  // Started here, waited for below: no single call into the page lasts the whole decode.
  await page.evaluate(([timeoutMs, decodeOnly, noStreams, workerPrelude, workers]) => {
    const f = document.querySelector('#bench-file').files[0];
    const js = new URL('worker.js', document.baseURI).href;
    const wasm = new URL('worker_bg.wasm', document.baseURI).href;
    // `noStreams`: the worker as in a browser without Blob.stream() (it reads Blob slices then).
    const boot = `${workerPrelude}${noStreams ? 'delete Blob.prototype.stream;' : ''}importScripts(${JSON.stringify(js)}); wasm_bindgen({ module_or_path: ${JSON.stringify(wasm)} });`;
    const bootUrl = URL.createObjectURL(new Blob([boot], { type: 'text/javascript' }));
    const w = new Worker(bootUrl);
    // `workers`: how many workers may decode the file, the decoding one included
    // (app/src/protocol/mod.rs MSG_WORKERS). As the app does (app/src/loader/worker_client.rs), the
    // page starts the part workers and gives each, once ready, one end of a channel whose other
    // end goes to the decoding worker (MSG_PORTS, MSG_PORT).
    const parts = [], ports = [];
    for (let i = 1; i < (decodeOnly ? 1 : workers); i++) {
      const p = new Worker(bootUrl), ch = new MessageChannel();
      p.onmessage = () => { p.onmessage = null; p.postMessage({ mode: 'part', port: ch.port2 }, [ch.port2]); };
      parts.push(p); ports.push(ch.port1);
    }
    window.__workerRun = null;
    new Promise((resolve, reject) => {
      let t0 = 0;
      let firstRows = null;
      let batches = 0;
      setTimeout(() => reject(new Error('worker timed out')), timeoutMs);
      w.onerror = (e) => reject(new Error(e.message));
      w.onmessage = (e) => {
        const d = e.data;
        // `mode: "decode"`: the decoder alone, every event delivered (app/src/protocol/mod.rs MSG_MODE).
        if (d.type === 'ready') {
          t0 = performance.now();
          if (decodeOnly) w.postMessage({ blob: f, mode: 'decode' });
          else w.postMessage({ blob: f, workers, ports }, ports);
        }
        if (d.type === 'gcs') { batches++; if (firstRows === null) firstRows = performance.now() - t0; }
        if (d.type === 'done') {
          const ms = performance.now() - t0;
          w.terminate();
          parts.forEach((p) => p.terminate());
          resolve({ ms, firstRows, batches, error: d.value?.error ?? d.error ?? null, decodeMs: d.value?.decode_ms ?? d.decode_ms ?? null,
            workers: d.workers ?? 1, partBytes: d.part_bytes ?? 0, waitedMs: d.waited_ms ?? 0 });
        }
      };
    }).then((r) => { window.__workerRun = r; }, (e) => { window.__workerRun = { error: String(e), ms: NaN }; });
  }, [timeoutMs, decodeOnly, noStreams, workerPrelude, workers]);
  const r = await page.waitForFunction(() => window.__workerRun, null, { timeout: timeoutMs, polling: 50 });
  const { before, peak } = await memory.stop();
  await context.close();
  const size = (await stat(file)).size;
  return { ...r, warmReadMs, mbPerS: size / 1e6 / (r.ms / 1000), privateBeforeMiB: +(before / MB).toFixed(1), privatePeakMiB: +(peak / MB).toFixed(1) };
}

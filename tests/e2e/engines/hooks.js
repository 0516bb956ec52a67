// Served by the test server (server.mjs) and loaded by the app's page as its first script, right
// after the Content-Security-Policy (it is one of our own files, so the policy allows it, as it
// would any of the app's). It only observes, the same way in every engine, what not every driver
// can: errors and console errors of the page (WebKitGTK's WebDriver sees no console), CSP
// violations, the page's requests (Resource Timing), what the app writes to the clipboard, and
// the files it offers for download. The adapter takes what it saw with every call (in-page.mjs).
// The worker's console is not visible here; drivers that see it (Chromium, Firefox) report it.
(() => {
  const cfg = document.currentScript ? document.currentScript.dataset : {};
  const rec = (window.__e2e = { seen: [], clipboard: [], downloads: [], captureDownloads: cfg.captureDownloads === '1' });
  const push = (kind, text) => rec.seen.push({ kind, text: String(text) });
  const str = (x) => {
    if (x instanceof Error) return x.message;
    if (typeof x === 'string') return x;
    try { return JSON.stringify(x); } catch { return String(x); }
  };
  for (const [level, type] of [['error', 'error'], ['warn', 'warning']]) {
    const log = console[level];
    console[level] = function (...args) {
      push('console', JSON.stringify({ type, text: args.map(str).join(' ') }));
      return log.apply(this, args);
    };
  }
  // The page's wasm memory, for the report of a wasm trap (Trunk's loader hands it over).
  let wasmMemory = null;
  addEventListener('TrunkApplicationStarted', (e) => { wasmMemory = e.detail && e.detail.wasm && e.detail.wasm.memory; });
  // A wasm trap ("Out of bounds memory access", "unreachable") says little by its message alone:
  // its report carries the page's memory size and the stack's first frames (function indices of
  // this build's wasm), for a trap seen once (docs/performance-log/journal.md, "A WebKit page trap").
  const trap = (e) => {
    if (!(typeof WebAssembly !== 'undefined' && e.error instanceof WebAssembly.RuntimeError)) return '';
    const mib = wasmMemory ? (wasmMemory.buffer.byteLength / 1048576).toFixed(1) : '?';
    const frames = String(e.error.stack || '').split('\n').slice(0, 8).join(' <- ');
    return ` [page wasm memory ${mib} MiB; stack: ${frames}]`;
  };
  addEventListener('error', (e) => { if (e instanceof ErrorEvent) push('pageerror', (e.message || (e.error && e.error.message) || 'error') + trap(e)); });
  addEventListener('unhandledrejection', (e) => push('pageerror', `unhandled rejection: ${str(e.reason)}`));
  document.addEventListener('securitypolicyviolation', (e) => push('csp', `${e.violatedDirective}: ${e.blockedURI} ${e.sample || ''}`));
  try {
    new PerformanceObserver((list) => { for (const e of list.getEntries()) push('request', e.name); })
      .observe({ type: 'resource', buffered: true });
  } catch { /* no Resource Timing */ }

  // Clipboard writes: the text and whether the browser took it.
  if (navigator.clipboard && navigator.clipboard.writeText) {
    const write = navigator.clipboard.writeText.bind(navigator.clipboard);
    navigator.clipboard.writeText = (text) => {
      const entry = { text: String(text), state: 'pending' };
      rec.clipboard.push(entry);
      return write(text).then(
        (v) => { entry.state = 'written'; return v; },
        (e) => { entry.state = `refused: ${str(e)}`; throw e; },
      );
    };
  }

  // Downloads (engines whose driver has no download event): the blob behind an <a download>
  // the app clicks is read here instead of saved; the name is the one the browser would use.
  const blobs = new Map();
  const createObjectURL = URL.createObjectURL;
  URL.createObjectURL = function (obj) {
    const url = createObjectURL.call(URL, obj);
    if (obj instanceof Blob && obj.size < 256 * 1024 * 1024) {
      blobs.set(url, obj);
      if (blobs.size > 32) blobs.delete(blobs.keys().next().value);
    }
    return url;
  };
  const capture = (a) => {
    const blob = blobs.get(a.href);
    if (!rec.captureDownloads || !a.hasAttribute('download') || !blob) return false;
    const entry = { name: a.getAttribute('download') || a.href.split('/').pop(), done: false };
    rec.downloads.push(entry);
    blob.arrayBuffer().then((buf) => {
      const bytes = new Uint8Array(buf);
      let bin = '';
      for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
      entry.base64 = btoa(bin);
      entry.done = true;
    }, (e) => { entry.error = str(e); entry.done = true; });
    return true;
  };
  const click = HTMLAnchorElement.prototype.click;
  HTMLAnchorElement.prototype.click = function () {
    if (capture(this)) return undefined;
    return click.call(this);
  };
  document.addEventListener('click', (e) => {
    const a = e.target instanceof Element && e.target.closest('a[download]');
    if (a && capture(a)) e.preventDefault();
  }, true);
})();

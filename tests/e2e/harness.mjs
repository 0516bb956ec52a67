// Shared pieces of the end-to-end tests: a static server for dist/ (under a sub-path, as on any
// static host), Debian's headless Chromium through playwright-core, and the test inputs.
import { createServer } from 'node:http';
import { readFile, mkdir, stat } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The built app: dist/, or another build given by GCSCOPE_DIST (each engineer can test their own). */
export const DIST = process.env.GCSCOPE_DIST ? path.resolve(process.env.GCSCOPE_DIST) : path.join(ROOT, 'dist');
export const SHARED = path.resolve(ROOT, '../shared');
export const OUT = path.join(ROOT, 'tests/output');
/** dist/ is served under this prefix to prove relative asset URLs. */
export const PREFIX = '/some/prefix/';

const MIME = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript',
  '.wasm': 'application/wasm', '.css': 'text/css', '.json': 'application/json',
  '.png': 'image/png', '.svg': 'image/svg+xml',
};

/** Serves dist/ at PREFIX on 127.0.0.1 (random port). Records every path requested. */
export async function serveDist() {
  if (!existsSync(path.join(DIST, 'index.html'))) {
    throw new Error('dist/index.html missing: build the app first (scripts/build-app.sh)');
  }
  const requests = [];
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, 'http://localhost');
    requests.push(url.pathname);
    if (!url.pathname.startsWith(PREFIX)) {
      res.writeHead(404).end('outside the app prefix');
      return;
    }
    let rel = decodeURIComponent(url.pathname.slice(PREFIX.length)) || 'index.html';
    const file = path.join(DIST, rel);
    if (!file.startsWith(DIST)) { res.writeHead(403).end(); return; }
    try {
      const st = await stat(file);
      const body = await readFile(st.isDirectory() ? path.join(file, 'index.html') : file);
      res.writeHead(200, { 'content-type': MIME[path.extname(file)] ?? 'application/octet-stream' });
      res.end(body);
    } catch {
      res.writeHead(404).end('not found');
    }
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${server.address().port}${PREFIX}`;
  return { base, requests, close: () => new Promise((r) => server.close(r)) };
}

/** Launches Debian's Chromium headless with the network kept quiet (no background services). */
export async function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--disable-quic', '--disable-dev-shm-usage'],
  });
}

/**
 * A page that fails the test on any page error, console error, or request that leaves our server.
 * Returns { page, problems } where problems collects what went wrong.
 */
export async function openApp(browser, base, query = '') {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console error: ${m.text()}`); });
  page.on('request', (r) => {
    const u = r.url();
    if (!u.startsWith(base) && !u.startsWith('blob:') && !u.startsWith('data:')) problems.push(`external request: ${u}`);
  });
  await page.goto(base + query);
  return { page, context, problems };
}

export async function screenshot(page, name) {
  await mkdir(OUT, { recursive: true });
  const file = path.join(OUT, `${name}.png`);
  await page.screenshot({ path: file, fullPage: false });
  return file;
}

/** Puts `bytes` as a File named `name` into a DataTransfer and dispatches drop on `selector`. */
export async function dropFile(page, selector, name, bytes) {
  const b64 = Buffer.from(bytes).toString('base64');
  const dataTransfer = await page.evaluateHandle(({ b64, name }) => {
    const bin = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const dt = new DataTransfer();
    dt.items.add(new File([bin], name, { type: 'application/octet-stream' }));
    return dt;
  }, { b64, name });
  await page.dispatchEvent(selector, 'dragover', { dataTransfer });
  await page.dispatchEvent(selector, 'drop', { dataTransfer });
}

// Shared pieces of the end-to-end tests: a static server for dist/ (under a sub-path, as on any
// static host), the browser engine of this run, and the test inputs.
//
// Every test runs in Chromium, Firefox and WebKit (tests/run-e2e.mjs runs the suite once per
// engine, GCSCOPE_ENGINE names it), but for those whose checks are all of the core's figures
// (`figuresOnly`), which run in Chromium alone. Write tests against what `launch()` and `openApp()` give:
// Playwright's Browser/BrowserContext/Page/Locator API, the part listed in engines/page.mjs, with
// every method async (`await page.url()`). Do not import a driver (playwright-core, puppeteer-core,
// selenium-webdriver) in a test: what a driver cannot do in some engine is done in the page or by
// the test server instead (routes, init scripts, downloads, clipboard), the same way everywhere.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from './engines/server.mjs';
import { ENGINE, launchEngine } from './engines/index.mjs';

export { ENGINE, ENGINES, SEES_WORKER_CONSOLE } from './engines/index.mjs';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The built app: dist/, or another build given by GCSCOPE_DIST (each engineer can test their own). */
export const DIST = process.env.GCSCOPE_DIST ? path.resolve(process.env.GCSCOPE_DIST) : path.join(ROOT, 'dist');
/** The shared test data beside the checkout, or where GCSCOPE_SHARED says (a worktree elsewhere). */
export const SHARED = process.env.GCSCOPE_SHARED ? path.resolve(process.env.GCSCOPE_SHARED) : path.resolve(ROOT, '../shared');
/** Screenshots and other output of this run's engine. */
export const OUT = path.join(ROOT, 'tests/output', ENGINE);
/**
 * A test's `skip` when every check it makes is of figures the core computes (a view's numbers
 * against TraceEvent, the runtime or the CLI): the wasm is the same in every engine, so such a
 * test runs in Chromium alone, and what an engine can change (the ways in, the worker and its
 * messages, drawing, links, the address, exports, screenshots) is checked in every engine by the
 * tests that do not call this. `GCSCOPE_E2E_EVERY_ENGINE=1` runs them everywhere.
 */
export function figuresOnly(what) {
  if (ENGINE === 'chromium' || process.env.GCSCOPE_E2E_EVERY_ENGINE === '1') return false;
  return `figures only (${what}): the same wasm in every engine, checked in Chromium`;
}

/** dist/ is served under this prefix to prove relative asset URLs. */
export const PREFIX = '/some/prefix/';

/**
 * Serves dist/ at PREFIX on 127.0.0.1 (random port). Records every path requested; `route` and
 * `addInitScript` of a page act here (engines/server.mjs).
 */
export async function serveDist(options = {}) {
  return serve(DIST, { prefix: PREFIX, captureDownloads: ENGINE !== 'chromium', ...options });
}

/** Launches this run's engine, headless (Chromium: Debian's chromium; see engines/). */
export async function launch(options) {
  return launchEngine(ENGINE, options);
}

/**
 * A page that fails the test on any page error, console error, CSP violation or request that
 * leaves our server. Returns { page, context, problems, violations, warnings }: problems collects
 * what went wrong, violations the CSP violations alone, warnings the console's warnings. What is seen depends on the engine's driver:
 * Chromium and Firefox report the page's and the worker's console; in WebKit the page's observer
 * reports the page's console errors, uncaught errors and requests, not the worker's console (the
 * tests check what the page shows, e.g. #error, for the worker).
 */
export async function openApp(browser, base, query = '', { viewport = { width: 1400, height: 900 }, colorScheme } = {}) {
  const context = await browser.newContext({ viewport, colorScheme });
  const page = await context.newPage();
  const problems = [];
  const violations = [];
  const warnings = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console error: ${m.text()}`);
    if (m.type() === 'warning' || m.type() === 'warn') warnings.push(m.text());
  });
  page.on('csp', (v) => { violations.push(v); problems.push(`CSP violation: ${v}`); });
  page.on('request', (r) => {
    const u = r.url();
    if (!u.startsWith(base) && !u.startsWith('blob:') && !u.startsWith('data:')) problems.push(`external request: ${u}`);
  });
  await page.goto(base + query);
  // 'load' can fire before the app's wasm has arrived (Firefox): a test that navigates on at once
  // would abort that fetch and see the page it leaves report it. The app's root means it runs.
  await page.locator('#drop-zone').waitFor({ timeout: 30_000 });
  return { page, context, problems, violations, warnings };
}

export async function screenshot(page, name) {
  await mkdir(OUT, { recursive: true });
  const file = path.join(OUT, `${name}.png`);
  await page.screenshot({ path: file, fullPage: false });
  return file;
}

/** Puts `bytes` as a File named `name` into a DataTransfer and dispatches dragover and drop on `selector`. */
export async function dropFile(page, selector, name, bytes) {
  await page.locator(selector).first().evaluate((el, { b64, name }) => {
    const bin = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const dataTransfer = new DataTransfer();
    dataTransfer.items.add(new File([bin], name, { type: 'application/octet-stream' }));
    for (const type of ['dragover', 'drop']) {
      el.dispatchEvent(new DragEvent(type, { dataTransfer, bubbles: true, cancelable: true, composed: true }));
    }
  }, { b64: Buffer.from(bytes).toString('base64'), name });
}

/**
 * Dispatches a paste event on `selector` carrying `{ text }` or a file `{ name, bytes }`, as Ctrl+V
 * with that on the clipboard would. Firefox empties the clipboardData of a constructed
 * ClipboardEvent, so there the event is given the DataTransfer as its own clipboardData property:
 * the app's handler reads the same thing in every engine.
 */
export async function paste(page, selector, { text, name, bytes }) {
  await page.locator(selector).first().evaluate((el, { text, name, b64 }) => {
    const data = new DataTransfer();
    if (text !== undefined) data.setData('text/plain', text);
    if (b64 !== undefined) data.items.add(new File([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], name));
    const event = new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true, composed: true });
    if (event.clipboardData !== data && event.clipboardData?.types.length !== data.types.length) {
      Object.defineProperty(event, 'clipboardData', { value: data });
    }
    el.dispatchEvent(event);
  }, { text, name, b64: bytes === undefined ? undefined : Buffer.from(bytes).toString('base64') });
}

// The engine adapter: one way to write an end-to-end test for every engine. Tests get a Browser,
// BrowserContext, Page and Locator with the part of Playwright's API that the tests use (same
// names, same meaning, every method async, `page.url()` included); everything that touches the
// page's DOM runs in the page (in-page.mjs), the same code in every engine, so only the few
// primitives below differ between drivers (chromium.mjs, firefox.mjs, webkit.mjs):
//
//   driver browser:  newContext({ viewport, colorScheme }) -> driver context, close(), version,
//                    sees { console, pageerror, request }: what the driver reports itself
//   driver context:  newPage() -> driver page, close(), grantPermissions(list)
//   driver page:     goto(url), evaluate(expression) -> string, setInputFiles(css, paths),
//                    mouseMove(points), mouseDown(), mouseUp(), key(name, 'press'|'down'|'up'),
//                    screenshot({ fullPage }) -> Buffer, close(), onEvent(fn(kind, value)), raw (its
//                    own page); download(timeout) and readClipboard() where the driver can (Chromium)
//   driver browser may set `slice`: the longest a call waits in the page (WebDriver classic: short)
import { EventEmitter } from 'node:events';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { inPage } from './in-page.mjs';
import { SERVERS } from './server.mjs';

const IN_PAGE = inPage.toString();
/** Playwright's default for actions and waits. */
export const DEFAULT_TIMEOUT = 30_000;
/**
 * The longest a single call waits in the page; longer waits are several calls (driver timeouts).
 * A driver that runs one command at a time (WebDriver classic) asks for short ones (`slice`), so
 * that a wait does not hold back an action the test runs beside it (Promise.all).
 */
const SLICE = 10_000;

export class TimeoutError extends Error {}

// ---- values to and from the page: undefined, NaN, Infinity, -0 and RegExps survive (in-page.mjs) ----
function encode(v) {
  if (v === undefined) return { $u: 1 };
  if (typeof v === 'number' && (!Number.isFinite(v) || Object.is(v, -0))) return { $n: String(v === 0 ? '-0' : v) };
  if (v instanceof RegExp) return { $re: v.source, flags: v.flags };
  if (Buffer.isBuffer(v) || v instanceof Uint8Array) return [...v];
  if (Array.isArray(v)) return v.map(encode);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, encode(x)]));
  return v;
}
function decode(v) {
  if (Array.isArray(v)) return v.map(decode);
  if (v && typeof v === 'object') {
    if (v.$u) return undefined;
    if (v.$n !== undefined) return Number(v.$n);
    if (v.$date) return new Date(v.$date);
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, decode(x)]));
  }
  return v;
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const source = (fn) => (typeof fn === 'function' ? fn.toString() : `() => (${fn})`);
/** A message of a driver that says the page navigated away under a call (worth another try). */
const NAVIGATED = /context was destroyed|navigat|Cannot find context|detached|JavaScript execution context|no such window|unload|Inspected target/i;

export class Browser {
  constructor(engine, driver) {
    this.engine = engine;
    this.driver = driver;
    this.contexts = new Set();
  }
  /** "chromium 156.0…", "firefox 153.7.0", "webkitgtk 2.50.6". */
  version() { return this.driver.version; }
  get raw() { return this.driver.raw; }
  async newContext({ viewport = { width: 1280, height: 720 }, colorScheme = 'light', permissions = [] } = {}) {
    const c = new BrowserContext(this, await this.driver.newContext({ viewport, colorScheme }), viewport);
    if (permissions.length) await c.grantPermissions(permissions);
    this.contexts.add(c);
    return c;
  }
  async newPage(options) {
    const context = await this.newContext(options);
    const page = await context.newPage();
    page.ownsContext = true;
    return page;
  }
  async close() {
    for (const c of [...this.contexts]) await c.close().catch(() => {});
    await this.driver.close();
  }
}

export class BrowserContext {
  constructor(browser, driver, viewport) {
    this.browser = browser;
    this.driver = driver;
    this.viewport = viewport;
    this.pages = new Set();
  }
  get raw() { return this.driver.raw; }
  async newPage() {
    const p = new Page(this, await this.driver.newPage());
    this.pages.add(p);
    return p;
  }
  /**
   * Clipboard permissions: granted for real where the driver can (Chromium); elsewhere the app's
   * clipboard writes are read from the page (`page.clipboardText()`).
   */
  async grantPermissions(list) { if (this.driver.grantPermissions) await this.driver.grantPermissions(list); }
  /** Runs `fn` first in every page of the app, served by the test server (all engines). */
  async addInitScript(fn, arg) {
    const src = arg === undefined ? source(fn) : `() => (${source(fn)})(${JSON.stringify(arg)})`;
    for (const s of SERVERS.values()) s.addInitScript(src, this);
  }
  async close() {
    for (const s of SERVERS.values()) s.forget(this);
    for (const p of [...this.pages]) await p.close().catch(() => {});
    await this.driver.close().catch(() => {});
    this.browser.contexts.delete(this);
  }
}

/** A page of the app, with Playwright's API (the part tests use). */
export class Page extends EventEmitter {
  constructor(context, driver) {
    super();
    this.ctx = context;
    this.driver = driver;
    this.lastUrl = 'about:blank';
    this.downloadsTaken = 0;
    this.pointer = { x: 0, y: 0 };
    this.keyboard = {
      press: (key) => this.keys(key, 'press'),
      down: (key) => this.driver.key(key, 'down'),
      up: (key) => this.driver.key(key, 'up'),
      type: async (text) => { for (const ch of text) await this.driver.key(ch, 'press'); },
      insertText: (text) => this.evaluate((t) => document.execCommand('insertText', false, t), text),
    };
    this.mouse = {
      move: (x, y, { steps = 1 } = {}) => {
        const from = this.pointer;
        const points = [];
        for (let i = 1; i <= steps; i++) points.push({ x: from.x + ((x - from.x) * i) / steps, y: from.y + ((y - from.y) * i) / steps });
        this.pointer = { x, y };
        return this.driver.mouseMove(points);
      },
      down: () => this.driver.mouseDown(),
      up: () => this.driver.mouseUp(),
      click: async (x, y) => { await this.mouse.move(x, y); await this.driver.mouseDown(); await this.driver.mouseUp(); },
    };
    driver.onEvent((kind, value) => this.driverEvent(kind, value));
  }
  get raw() { return this.driver.raw; }
  context() { return this.ctx; }
  get engine() { return this.ctx.browser.engine; }

  // ---- what the page reported ----
  driverEvent(kind, value) {
    if (kind === 'console') this.emit('console', { type: () => value.type, text: () => value.text });
    else if (kind === 'pageerror') this.emit('pageerror', { message: value });
    else if (kind === 'request') this.emit('request', { url: () => value });
  }
  /** What the observer in the page saw (hooks.js), less what the driver reports itself. */
  observed(seen) {
    const sees = this.ctx.browser.driver.sees;
    for (const { kind, text } of seen) {
      if (kind === 'csp') this.emit('csp', text);
      else if (!sees[kind]) this.driverEvent(kind, kind === 'console' ? JSON.parse(text) : text);
    }
  }

  // ---- calls into the page ----
  /** Runs in-page operation `op` until it gives an answer or `timeout` ms pass. */
  async call(op, args = {}, fn = null, { timeout = DEFAULT_TIMEOUT, retry = false, what } = {}) {
    const deadline = Date.now() + timeout;
    const most = this.ctx.browser.driver.slice ?? SLICE;
    for (;;) {
      const slice = Math.max(0, Math.min(most, deadline - Date.now()));
      const expr = `(${IN_PAGE})(${JSON.stringify(op)}, ${JSON.stringify({ ...args, slice, what })}, ${fn ? source(fn) : 'null'})`;
      let text;
      try {
        text = await this.driver.evaluate(expr);
      } catch (e) {
        if (retry && NAVIGATED.test(e.message) && Date.now() < deadline) { await sleep(50); continue; }
        throw e;
      }
      const r = JSON.parse(text);
      this.lastUrl = r.url;
      this.observed(r.seen);
      if (r.error) throw new Error(`${what ?? op}: ${r.error}`);
      const v = decode(r.v);
      if (v && typeof v === 'object' && v.$timeout) {
        if (Date.now() < deadline) continue;
        throw new TimeoutError(`${what ?? op}: timed out after ${timeout} ms`);
      }
      return v;
    }
  }

  async goto(url, { waitUntil } = {}) {
    await this.driver.goto(url, { waitUntil });
    this.lastUrl = url;
    await this.call('take', {}, null, { retry: true });
    return null;
  }
  /** The page's address now (async: read from the page). */
  async url() { await this.call('take', {}, null, { retry: true }); return this.lastUrl; }
  async title() { return this.evaluate(() => document.title); }
  async goBack({ timeout = DEFAULT_TIMEOUT } = {}) { return this.history(-1, timeout); }
  async goForward({ timeout = DEFAULT_TIMEOUT } = {}) { return this.history(1, timeout); }
  async history(dir, timeout) {
    await this.call('history', { dir }, null, { timeout: Math.min(timeout, SLICE), what: dir < 0 ? 'goBack' : 'goForward' });
    return null;
  }
  async reload() { await this.goto(await this.url()); }
  async evaluate(fn, arg) { return this.call('eval', { arg: encode(arg) }, fn, { what: 'evaluate' }); }
  async waitForFunction(fn, arg, { timeout = DEFAULT_TIMEOUT, polling = 'raf' } = {}) {
    return this.call('waitFunction', { arg: encode(arg), raf: polling === 'raf', interval: polling === 'raf' ? 0 : polling }, fn,
      { timeout, retry: true, what: 'waitForFunction' });
  }
  async waitForTimeout(ms) { await sleep(ms); }
  async waitForSelector(selector, options) { await this.locator(selector).first().waitFor(options); return null; }
  async $$eval(selector, fn, arg) {
    return this.call('elements', { chain: [{ css: selector }], all: true, arg: encode(arg) }, fn, { what: `$$eval(${selector})` });
  }
  async $eval(selector, fn, arg) {
    return this.call('elements', { chain: [{ css: selector }, { nth: 0 }], arg: encode(arg) }, fn, { what: `$eval(${selector})` });
  }
  locator(selector, options) { return new Locator(this, [{ css: selector, ...textOption(options) }]); }
  // Playwright's page.<action>(selector) acts on the first match.
  first(selector) { return this.locator(selector).first(); }
  click(selector, options) { return this.first(selector).click(options); }
  hover(selector, options) { return this.first(selector).hover(options); }
  check(selector, options) { return this.first(selector).check(options); }
  uncheck(selector, options) { return this.first(selector).uncheck(options); }
  isChecked(selector) { return this.first(selector).isChecked(); }
  fill(selector, value, options) { return this.first(selector).fill(value, options); }
  focus(selector, options) { return this.first(selector).focus(options); }
  press(selector, key, options) { return this.first(selector).press(key, options); }
  selectOption(selector, values, options) { return this.first(selector).selectOption(values, options); }
  textContent(selector, options) { return this.first(selector).textContent(options); }
  getAttribute(selector, name, options) { return this.first(selector).getAttribute(name, options); }
  dispatchEvent(selector, type, init, options) { return this.first(selector).dispatchEvent(type, init, options); }
  setInputFiles(selector, files, options) { return this.first(selector).setInputFiles(files, options); }

  /** Presses a key or a chord ("Control+v"), as Playwright names them. */
  async keys(chord, how) {
    const parts = chord.split('+').filter(Boolean);
    const key = parts.pop() ?? '+';
    for (const m of parts) await this.driver.key(m, 'down');
    await this.driver.key(key, how);
    for (const m of parts.reverse()) await this.driver.key(m, 'up');
  }

  async screenshot({ path: file, fullPage = false } = {}) {
    const png = await this.driver.screenshot({ fullPage });
    if (file) await writeFile(file, png);
    return png;
  }

  /**
   * `waitForEvent('download')`: the file the app offers next. Chromium: the browser's own
   * download; other engines: the blob behind the app's <a download>, read in the page (hooks.js).
   */
  async waitForEvent(event, { timeout = DEFAULT_TIMEOUT } = {}) {
    if (event !== 'download') throw new Error(`waitForEvent(${event}): only 'download' is supported by the engine adapter`);
    if (this.driver.download) return this.driver.download(timeout);
    const i = this.downloadsTaken++;
    const d = await this.waitForFunction((i) => {
      const e = window.__e2e && window.__e2e.downloads[i];
      return e && e.done ? e : null;
    }, i, { timeout, polling: 50 });
    if (d.error) throw new Error(`download ${d.name}: ${d.error}`);
    const body = Buffer.from(d.base64, 'base64');
    let file;
    return {
      suggestedFilename: () => d.name,
      path: async () => {
        if (!file) {
          file = path.join(await mkdtemp(path.join(os.tmpdir(), 'gcscope-dl-')), d.name.replace(/[/\\]/g, '_'));
          await writeFile(file, body);
        }
        return file;
      },
      saveAs: (to) => writeFile(to, body),
    };
  }

  /**
   * What the app last put on the clipboard. Chromium reads the clipboard itself (permission granted
   * by the adapter); other engines report what the app handed to navigator.clipboard.writeText and
   * that the browser took it (hooks.js), since their drivers cannot grant clipboard reading.
   */
  async clipboardText() {
    if (this.driver.readClipboard) return this.driver.readClipboard();
    const last = await this.waitForFunction(() => {
      const c = window.__e2e && window.__e2e.clipboard.at(-1);
      return c && c.state !== 'pending' ? c : null;
    }, undefined, { timeout: 5000, polling: 20 });
    if (last.state !== 'written') throw new Error(`the clipboard write was ${last.state}`);
    return last.text;
  }

  // ---- test server routes (every engine: the server answers for our own files) ----
  server() {
    const s = SERVERS.get(new URL(this.lastUrl).origin);
    if (!s) throw new Error(`route: ${this.lastUrl} is not served by a test server (open the app first)`);
    return s;
  }
  async route(pattern, handler) { this.server().route(pattern, handler, this.ctx); }
  async unroute(pattern, handler) { this.server().unroute(pattern, handler, this.ctx); }

  async close() {
    if (this.closed) return;
    this.closed = true;
    this.ctx.pages.delete(this);
    await this.driver.close().catch(() => {});
    if (this.ownsContext) await this.ctx.close();
  }
}

function textOption(options) {
  if (!options?.hasText) return {};
  return { hasText: encode(options.hasText) };
}

/** Playwright's Locator (the part tests use): resolved in the page at each use. */
export class Locator {
  constructor(page, chain) {
    this.page = page;
    this.chain = chain;
  }
  toString() {
    return this.chain.map((s) => (s.css !== undefined ? `locator(${JSON.stringify(s.css)}${s.hasText ? `, hasText ${JSON.stringify(s.hasText)}` : ''})` : s.nth !== undefined ? `nth(${s.nth})` : `filter(${JSON.stringify(s.hasText)})`)).join('.');
  }
  with(step) { return new Locator(this.page, [...this.chain, step]); }
  locator(selector, options) { return this.with({ css: selector, ...textOption(options) }); }
  first() { return this.with({ nth: 0 }); }
  last() { return this.with({ nth: -1 }); }
  nth(i) { return this.with({ nth: i }); }
  filter({ hasText } = {}) { return hasText === undefined ? this : this.with(textOption({ hasText })); }

  call(op, args = {}, fn = null, { timeout, retry = true, what } = {}) {
    return this.page.call(op, { chain: this.chain, strict: true, ...args }, fn, { timeout, retry, what: `${this}.${what ?? op}` });
  }
  async count() { return this.call('count', {}, null, { what: 'count()' }); }
  async waitFor({ state = 'visible', timeout = DEFAULT_TIMEOUT } = {}) {
    await this.call('wait', { state }, null, { timeout, what: `waitFor(${state})` });
  }
  /** `fn(element, arg)` on the one element (waits for it). */
  async evaluate(fn, arg, { timeout } = {}) {
    return this.call('elements', { wait: true, arg: encode(arg) }, fn, { timeout, retry: false, what: 'evaluate()' });
  }
  async evaluateAll(fn, arg) { return this.call('elements', { all: true, arg: encode(arg) }, fn, { retry: false, what: 'evaluateAll()' }); }
  async textContent({ timeout } = {}) { return this.evaluate((el) => el.textContent, undefined, { timeout }); }
  async innerText({ timeout } = {}) { return this.evaluate((el) => el.innerText, undefined, { timeout }); }
  async inputValue({ timeout } = {}) { return this.evaluate((el) => el.value, undefined, { timeout }); }
  async getAttribute(name, { timeout } = {}) { return this.evaluate((el, n) => el.getAttribute(n), name, { timeout }); }
  async allTextContents() { return this.evaluateAll((els) => els.map((e) => e.textContent)); }
  async isVisible() {
    return this.call('elements', { all: true }, (els) => {
      const el = els[0];
      if (!el || !el.isConnected) return false;
      const r = el.getBoundingClientRect();
      const s = getComputedStyle(el);
      return (r.width > 0 || r.height > 0) && s.visibility !== 'hidden' && s.display !== 'none';
    }, { what: 'isVisible()' });
  }
  async isChecked() {
    await this.call('wait', { state: 'attached' }, null, { what: 'isChecked()' });
    return this.call('checked', {}, null, { what: 'isChecked()' });
  }
  async boundingBox({ timeout } = {}) {
    await this.call('wait', { state: 'attached' }, null, { timeout, what: 'boundingBox()' });
    return this.call('box', {}, null, { what: 'boundingBox()' });
  }
  async scrollIntoViewIfNeeded({ timeout } = {}) {
    await this.call('act', { hitTest: false, enabled: false }, null, { timeout, what: 'scrollIntoViewIfNeeded()' });
  }
  /** Where a pointer action lands: visible, enabled, still, in view and not covered. */
  point({ position, timeout } = {}, what = 'click()', guard = false) {
    return this.call('act', { position, guard }, null, { timeout, what });
  }
  /**
   * Clicks the element; a click that the page moved onto another element in between is stopped
   * in the page and made again (in-page.mjs, guard). Returns where it clicked.
   */
  async clickOnce(options = {}, what = 'click()') {
    const deadline = Date.now() + (options.timeout ?? DEFAULT_TIMEOUT);
    for (;;) {
      const p = await this.point({ ...options, timeout: Math.max(1, deadline - Date.now()) }, what, true);
      await this.page.mouse.click(p.x, p.y);
      const verdict = await this.page.call('guardResult', {}, null, { retry: true });
      if (verdict !== 'intercepted') return p;
      if (Date.now() > deadline) throw new TimeoutError(`${this}.${what}: another element took every click`);
    }
  }
  async click(options = {}) { await this.clickOnce(options); }
  async dblclick(options = {}) {
    const p = await this.clickOnce(options, 'dblclick()');
    await this.page.mouse.click(p.x, p.y);
  }
  async hover(options = {}) {
    const p = await this.point(options, 'hover()');
    await this.page.mouse.move(p.x, p.y);
  }
  async setChecked(want, options = {}) {
    const what = want ? 'check()' : 'uncheck()';
    const p = await this.point(options, what);
    if (!!p.checked === want) return;
    await this.clickOnce(options, what);
    const now = await this.call('checked', {}, null, { what: 'check()' });
    if (now !== want) throw new Error(`${this}: clicking did not ${want ? 'check' : 'uncheck'} it`);
  }
  check(options) { return this.setChecked(true, options); }
  uncheck(options) { return this.setChecked(false, options); }
  async fill(value, { timeout } = {}) { await this.call('fill', { value: String(value) }, null, { timeout, retry: false, what: 'fill()' }); }
  async selectOption(values, { timeout } = {}) {
    return this.call('select', { values }, null, { timeout, retry: false, what: 'selectOption()' });
  }
  async focus({ timeout } = {}) { await this.call('focus', {}, null, { timeout, what: 'focus()' }); }
  async press(key, options) { await this.focus(options); await this.page.keyboard.press(key); }
  async dispatchEvent(type, init = {}, { timeout } = {}) {
    await this.call('dispatch', { type, init: encode(init) }, null, { timeout, retry: false, what: `dispatchEvent(${type})` });
  }
  /**
   * Files for an <input type=file> through the driver's own file upload (paths, or Playwright's
   * { name, mimeType, buffer } written to a temporary folder under that name first).
   */
  async setInputFiles(files, { timeout } = {}) {
    const list = [].concat(files);
    const paths = [];
    for (const f of list) {
      if (typeof f === 'string') { paths.push(path.resolve(f)); continue; }
      const dir = await mkdtemp(path.join(os.tmpdir(), 'gcscope-upload-'));
      const file = path.join(dir, f.name);
      await writeFile(file, f.buffer);
      paths.push(file);
    }
    const mark = `m${Date.now().toString(36)}${Math.random().toString(36).slice(2, 7)}`;
    await this.call('mark', { mark }, null, { timeout, what: 'setInputFiles()' });
    try {
      await this.page.driver.setInputFiles(`[data-e2e-mark="${mark}"]`, paths);
    } finally {
      await this.page.call('unmark', { mark }, null, { retry: true }).catch(() => {});
    }
  }
}

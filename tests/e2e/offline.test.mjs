// The installed, offline app: after one visit the service worker serves the app's own files with
// the network gone, and a trace still opens; a new build replaces the old one and the page says
// so; a ?trace=URL the network cannot reach offers a local copy; the installed app opens the files
// the OS gives it (launchQueue); Chromium's installability checks pass.
//
// "Offline" is the test server dropping every connection unanswered (server.setOffline), the same
// in every engine; in Chromium the context is also put offline (Playwright's setOffline, DevTools'
// network emulation), so that there `navigator.onLine` is false as well. Firefox's BiDi driver and
// WebKitGTK's WebDriver have no offline emulation: there the page sees a network that answers
// nothing, which is what the service worker must survive.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cp, mkdtemp, readFile, readdir, rm, writeFile, mkdir } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { DIST, ENGINE, ROOT, serveDist, launch, openApp, screenshot } from './harness.mjs';
import { FIXTURE, fixtureGcStarts } from './inputs.mjs';

/** Where the screenshots for people to look at go, beside tests/output/ENGINE. */
const SHOTS = process.env.GCSCOPE_OFFLINE_SHOTS;

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

/** Waits until the app's service worker controls the page (installed, precached, activated). */
async function controlled(page) {
  await page.waitForFunction(() => navigator.serviceWorker?.controller?.scriptURL.endsWith('/sw.js') === true, undefined,
    { timeout: 60_000, polling: 200 });
}

async function goOffline(server, context, offline) {
  server.setOffline(offline);
  if (ENGINE === 'chromium') await context.raw.setOffline(offline);
}

async function shownGcCount(page) {
  const text = await page.locator('#fact-gcs').textContent({ timeout: 60_000 });
  return Number(text.replace(/,/g, ''));
}

/**
 * The paths that reached the server from `from` on, less the tests' observer, the browser's check
 * for a new sw.js (made on every load; offline it fails, and the installed version runs on) and the
 * samples' list (samples/ goes to the network by design: the samples are traces; offline the start
 * page lists none). Firefox tries a dropped connection again several times, so a path may repeat.
 */
function reached(server, from) {
  const expected = (p) => p.endsWith('/__e2e/hooks.js') || p.endsWith('/sw.js') || p.includes('/samples/');
  return server.requests.slice(from).filter((p) => !expected(p));
}

/**
 * What went wrong on the page, less the failed loads that going offline causes by design: the
 * tests' observer script (hooks.js: the test server's, not the app's, so not cached) and the
 * samples' list (never cached). Engines word a failed load differently and do not all name the
 * file, so every failed load is let be here; the app's own files are checked by what reached the
 * server and by what the page shows.
 */
function realProblems(problems) {
  return problems.filter((p) => !/Failed to load resource|hooks\.js|NetworkError|ERR_INTERNET_DISCONNECTED/.test(p));
}

async function shot(page, name) {
  await screenshot(page, name);
  if (SHOTS) {
    await mkdir(SHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SHOTS, `${ENGINE}-${name}.png`) });
  }
}

test('after one visit the app reloads and opens a trace with the network gone', async () => {
  const server = await serveDist({ serviceWorker: true });
  try {
    const { page, context, problems } = await openApp(browser, server.base);
    await page.locator('.empty h2').waitFor();
    await controlled(page);
    await goOffline(server, context, true);
    const from = server.requests.length;
    await page.reload();
    await page.locator('.empty h2').waitFor({ timeout: 30_000 });
    await page.setInputFiles('#file-input', FIXTURE);
    assert.equal(await shownGcCount(page), await fixtureGcStarts());
    // The GC table is drawn: its rows come from the decoding worker, whose script and wasm the
    // service worker served too.
    await page.locator('table.grid tbody tr').first().waitFor({ timeout: 30_000 });
    assert.deepEqual(reached(server, from), [], 'nothing of the app was fetched from the network');
    assert.deepEqual(realProblems(problems), []);
    await context.close();
  } finally {
    await server.close();
  }
});

test('offline, a ?trace=URL says the network is gone and opens a local copy instead', async () => {
  const server = await serveDist({ serviceWorker: true });
  try {
    const { page, context, problems } = await openApp(browser, server.base);
    await controlled(page);
    await goOffline(server, context, true);
    const remote = `${server.base}remote/wks-concurrent.nettrace`;
    await page.goto(`${server.base}?trace=${encodeURIComponent(remote)}`);
    const notice = page.locator('#unreachable');
    await notice.waitFor({ timeout: 30_000 });
    const text = await notice.textContent();
    assert.ok(text.includes(remote), text);
    // Only Chromium's driver can tell the browser it is offline; elsewhere the network just answers nothing.
    assert.match(text, ENGINE === 'chromium' ? /You are offline/ : /could not be fetched: the network or its server cannot be reached/);
    await shot(page, 'offline-trace-url');
    // The notice's button is the file picker's label: the chosen copy opens as a dropped file does.
    assert.equal(await page.locator('#open-local-copy').getAttribute('for'), 'file-input');
    await page.setInputFiles('#file-input', FIXTURE);
    assert.equal(await shownGcCount(page), await fixtureGcStarts());
    assert.equal(await page.locator('#unreachable').count(), 0);
    assert.deepEqual(realProblems(problems), []);
    await context.close();
  } finally {
    await server.close();
  }
});

/**
 * A second version of the build in dist/: its stylesheet changed (so renamed, as Trunk names it by
 * its content), its worker.js changed (a name without a hash), its title says "v2", and its sw.js
 * made again by the build's own step (scripts/offline.mjs), so with another build id.
 */
async function secondVersion() {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'gcscope-v2-'));
  await cp(DIST, dir, { recursive: true });
  const css = (await readdir(dir)).find((f) => /^style-[0-9a-f]+\.css$/.test(f));
  const newCss = 'style-0123456789abcdef.css';
  const oldText = await readFile(path.join(dir, css), 'utf8');
  const newText = `${oldText}\n/* v2 */\n`;
  await writeFile(path.join(dir, newCss), newText);
  await rm(path.join(dir, css));
  // Trunk's link carries the stylesheet's integrity (SRI): the new one's digest replaces it.
  const sri = (t) => `sha384-${createHash('sha384').update(t, 'utf8').digest('base64')}`;
  let html = await readFile(path.join(dir, 'index.html'), 'utf8');
  assert.ok(html.includes(sri(oldText)), 'the stylesheet link carries its sha384');
  html = html.replaceAll(css, newCss).replace(sri(oldText), sri(newText)).replace('<title>gcscope:', '<title>gcscope v2:');
  await writeFile(path.join(dir, 'index.html'), html);
  await writeFile(path.join(dir, 'worker.js'), `${await readFile(path.join(dir, 'worker.js'), 'utf8')}\n// v2\n`);
  execFileSync(process.execPath, [path.join(ROOT, 'scripts/offline.mjs'), dir]);
  return { dir, css, newCss };
}

/** The build id written into a build's sw.js. */
async function buildId(dir) {
  return (await readFile(path.join(dir, 'sw.js'), 'utf8')).match(/const BUILD = "([0-9a-f]+)"/)[1];
}

test('a new build replaces the old one: the page offers to reload, and no file of the old one is left', async () => {
  const v2 = await secondVersion();
  const server = await serveDist({ serviceWorker: true });
  try {
    const [id1, id2] = [await buildId(DIST), await buildId(v2.dir)];
    assert.notEqual(id1, id2);
    const { page, context, problems } = await openApp(browser, server.base);
    await controlled(page);
    assert.match(await page.title(), /^gcscope:/);
    // The host now serves the second version; the first one's worker serves this reload, and the
    // browser finds the new sw.js meanwhile.
    server.serveFrom(v2.dir);
    await page.reload();
    await page.locator('#update-ready').waitFor({ timeout: 60_000 });
    assert.match(await page.title(), /^gcscope:/, 'the old version still runs until the user reloads');
    assert.match(await page.locator('#update-ready').textContent(), /A new version of gcscope is ready/);
    await shot(page, 'update-ready');
    await page.locator('#update-reload').click();
    await page.waitForFunction(() => document.title.startsWith('gcscope v2:'), undefined, { timeout: 60_000, polling: 200 });
    await controlled(page);
    const after = await page.evaluate(async () => {
      const keys = (await caches.keys()).filter((k) => k.startsWith('gcscope '));
      const cached = keys.length === 1 ? (await (await caches.open(keys[0])).keys()).map((r) => r.url) : [];
      const worker = await (await fetch('worker.js')).text();
      const styles = [...document.querySelectorAll('link[rel=stylesheet]')].map((l) => l.getAttribute('href'));
      return { keys, cached, workerIsV2: worker.endsWith('// v2\n'), styles, banner: !!document.querySelector('#update-ready') };
    });
    assert.equal(after.keys.length, 1, `one cache left: ${after.keys}`);
    assert.ok(after.keys[0].endsWith(` ${id2}`), `the cache is the new build's: ${after.keys[0]}`);
    assert.ok(after.cached.some((u) => u.endsWith(v2.newCss)), 'the new stylesheet is cached');
    assert.ok(!after.cached.some((u) => u.endsWith(v2.css)), 'the old stylesheet is gone');
    assert.ok(after.workerIsV2, 'worker.js (a name without a hash) is the new one');
    assert.ok(after.styles.some((h) => h.endsWith(v2.newCss)), `the page uses the new stylesheet: ${after.styles}`);
    assert.equal(after.banner, false, 'the banner is gone after the reload');
    // And the new version is what opens offline.
    await goOffline(server, context, true);
    await page.reload();
    await page.locator('.empty h2').waitFor({ timeout: 30_000 });
    assert.match(await page.title(), /^gcscope v2:/);
    assert.deepEqual(realProblems(problems), []);
    await context.close();
  } finally {
    await server.close();
    await rm(v2.dir, { recursive: true, force: true });
  }
});

test('the files the OS launches the installed app with open as a dropped file does', async () => {
  // The File Handling API has no driver command: the page is given a launchQueue before the app
  // starts, which hands the app's consumer a file handle of the fixture, as the browser would.
  const server = await serveDist();
  try {
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    await context.addInitScript((b64) => {
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      const handle = { kind: 'file', name: 'launched.nettrace', getFile: async () => new File([bytes], 'launched.nettrace') };
      const queue = { setConsumer(consumer) { setTimeout(() => consumer({ files: [handle] }), 0); } };
      // Chromium has a launchQueue of its own (a getter, which a plain assignment would not replace).
      Object.defineProperty(window, 'launchQueue', { configurable: true, value: queue });
    }, (await readFile(FIXTURE)).toString('base64'));
    const page = await context.newPage();
    const problems = [];
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('console', (m) => { if (m.type() === 'error') problems.push(`console error: ${m.text()}`); });
    await page.goto(server.base);
    assert.equal(await shownGcCount(page), await fixtureGcStarts());
    assert.match(await page.locator('#fact-file').textContent(), /^launched\.nettrace \(/);
    assert.deepEqual(problems, []);
    await context.close();
  } finally {
    await server.close();
  }
});

test('Chromium reads the manifest back and finds the app installable', { skip: ENGINE !== 'chromium' && 'the installability checks are Chromium\'s DevTools protocol' }, async () => {
  const server = await serveDist({ serviceWorker: true });
  // Every Playwright context is off the record, where Chromium installs nothing ("in-incognito"):
  // this test runs in a browser with a profile of its own.
  const profiled = await launch({ profile: true });
  try {
    const { page, context, problems } = await openApp(profiled, server.base);
    await controlled(page);
    const cdp = await context.raw.newCDPSession(page.raw);
    const m = await cdp.send('Page.getAppManifest');
    assert.equal(m.url, `${server.base}manifest.webmanifest`);
    assert.deepEqual(m.errors, [], 'the manifest parses without errors');
    const manifest = JSON.parse(m.data);
    assert.equal(manifest.short_name, 'gcscope');
    assert.equal(manifest.display, 'standalone');
    const exts = manifest.file_handlers.flatMap((h) => Object.values(h.accept).flat()).sort();
    assert.deepEqual(exts, ['.etl', '.etl.zip', '.gcdump', '.gz', '.netperf', '.nettrace', '.trace.zip', '.zip']);
    // Chromium resolves the manifest's scope "." to the app's sub-path; start_url is "." too.
    assert.equal(m.parsed?.scope, server.base);
    assert.equal(new URL(manifest.start_url, m.url).href, server.base);
    const { installabilityErrors } = await cdp.send('Page.getInstallabilityErrors');
    assert.deepEqual(installabilityErrors, []);
    assert.deepEqual(problems, []);
  } finally {
    await profiled.close();
    await server.close();
  }
});

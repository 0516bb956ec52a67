// WebKit: WebKitGTK's MiniBrowser (Debian's libwebkit2gtk-4.1-0) under WebKitWebDriver (Debian's
// webkit2gtk-driver), in an Xvfb display of its own, through selenium-webdriver (classic W3C
// WebDriver: WebKitGTK has no BiDi). The driver sees no console, no page errors and no requests:
// the page's observer reports them (hooks.js), the worker's console stays unseen, and tests check
// what the page shows instead. One browser session holds every context; a context's pages are
// windows of it (the app keeps no storage, and the test server forbids caching, so nothing leaks
// from one context to the next). A dark context runs in a second session whose GTK theme is dark
// (WebKitGTK takes prefers-color-scheme from it), started when first needed.
import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { Builder, By, Origin, Button } from 'selenium-webdriver';

export const MINIBROWSER = process.env.MINIBROWSER ?? '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';
export const WEBKIT_DRIVER = process.env.WEBKIT_WEBDRIVER ?? 'WebKitWebDriver';

const children = new Set();
process.on('exit', () => { for (const c of children) c.kill('SIGKILL'); });

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

/** An Xvfb display of our own (-displayfd picks a free one). */
async function xvfb() {
  const p = spawn('Xvfb', ['-displayfd', '3', '-screen', '0', '1920x1200x24', '-nolisten', 'tcp', '-noreset'],
    { stdio: ['ignore', 'ignore', 'pipe', 'pipe'] });
  children.add(p);
  let err = '';
  p.stderr.on('data', (d) => { err += d; });
  const display = await new Promise((resolve, reject) => {
    p.on('error', (e) => reject(new Error(`cannot start Xvfb (scripts/setup.sh installs it): ${e.message}`)));
    p.on('exit', (code) => reject(new Error(`Xvfb exited (${code}): ${err}`)));
    p.stdio[3].once('data', (d) => resolve(String(d).trim()));
  });
  return { display: `:${display}`, stop: () => { p.kill(); children.delete(p); } };
}

/** WebKitWebDriver on a free port, with one MiniBrowser session. */
async function session(display, env = {}) {
  const port = await freePort();
  const proc = spawn(WEBKIT_DRIVER, [`--port=${port}`], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, DISPLAY: display, ...env } });
  children.add(proc);
  let err = '';
  proc.stderr.on('data', (d) => { err = (err + d).slice(-2000); });
  const started = await new Promise((resolve) => {
    proc.on('error', (e) => resolve(e));
    const t0 = Date.now();
    const tryStatus = async () => {
      try {
        const r = await fetch(`http://127.0.0.1:${port}/status`);
        if (r.ok) { resolve(null); return; }
      } catch { /* not yet */ }
      if (Date.now() - t0 > 10_000) resolve(new Error(`WebKitWebDriver did not answer: ${err}`));
      else setTimeout(tryStatus, 50);
    };
    tryStatus();
  });
  if (started) throw new Error(`cannot start WebKitWebDriver (scripts/setup.sh installs webkit2gtk-driver): ${started.message}`);
  const driver = await new Builder().usingServer(`http://127.0.0.1:${port}`).withCapabilities({
    browserName: 'MiniBrowser',
    'webkitgtk:browserOptions': { binary: MINIBROWSER, args: ['--automation'] },
  }).build();
  // A test's own evaluate may run long (Playwright sets no limit): the driver must not stop it first.
  await driver.manage().setTimeouts({ script: 600_000, pageLoad: 120_000 });
  const home = await driver.getWindowHandle();
  return {
    driver,
    home,
    async quit() {
      await driver.quit().catch(() => {});
      proc.kill();
      children.delete(proc);
    },
  };
}

export async function launch() {
  const x = await xvfb();
  const light = await session(x.display);
  let dark = null;
  const caps = await light.driver.getCapabilities();
  const version = `webkitgtk ${caps.get('browserVersion')}`;
  // One command at a time per session: a page's window is selected before its command runs.
  const lock = { tail: Promise.resolve() };
  const exclusive = (fn) => {
    const run = lock.tail.then(fn, fn);
    lock.tail = run.catch(() => {});
    return run;
  };
  return {
    version,
    raw: light.driver,
    // WebKitWebDriver runs one command at a time: waits in the page are cut into short calls.
    slice: 250,
    sees: { console: false, pageerror: false, request: false },
    async newContext({ viewport, colorScheme }) {
      const s = colorScheme === 'dark' ? (dark ??= await session(x.display, { GTK_THEME: 'Adwaita:dark' })) : light;
      const pages = new Set();
      return {
        raw: s.driver,
        async newPage() {
          const page = await exclusive(() => webkitPage(s, viewport, exclusive));
          pages.add(page);
          return page;
        },
        async close() { for (const p of [...pages]) await p.close(); },
      };
    },
    async close() {
      await dark?.quit();
      await light.quit();
      x.stop();
    },
  };
}

const KEY = {
  Enter: '\uE007', Escape: '\uE00C', Tab: '\uE004', Backspace: '\uE003', Delete: '\uE017', ArrowUp: '\uE013',
  ArrowDown: '\uE015', ArrowLeft: '\uE012', ArrowRight: '\uE014', Home: '\uE011', End: '\uE010', PageUp: '\uE00E',
  PageDown: '\uE00F', Space: ' ', Shift: '\uE008', Control: '\uE009', Alt: '\uE00A', Meta: '\uE03D',
};

async function webkitPage(s, viewport, exclusive) {
  const d = s.driver;
  await d.switchTo().newWindow('window');
  const handle = await d.getWindowHandle();
  // The window holds MiniBrowser's toolbar: size it so that the page gets the viewport asked for.
  await d.manage().window().setRect({ width: viewport.width, height: viewport.height });
  const [w, h] = await d.executeScript('return [innerWidth, innerHeight]');
  await d.manage().window().setRect({ width: viewport.width + (viewport.width - w), height: viewport.height + (viewport.height - h) });
  const run = (fn) => exclusive(async () => {
    if (s.current !== handle) { await d.switchTo().window(handle); s.current = handle; }
    return fn();
  });
  s.current = handle;
  let closed = false;
  const actions = () => d.actions({ async: true });
  return {
    raw: d,
    onEvent() { /* nothing: the driver reports no events (hooks.js does) */ },
    goto: (url) => run(() => d.get(url)),
    evaluate: (expression) => run(() => d.executeScript(`return ${expression};`)),
    setInputFiles: (css, paths) => run(async () => {
      const input = await d.findElement(By.css(css));
      await input.sendKeys(paths.join('\n'));
    }),
    mouseMove: (points) => run(async () => {
      let a = actions();
      for (const p of points) a = a.move({ x: Math.round(p.x), y: Math.round(p.y), origin: Origin.VIEWPORT, duration: 0 });
      await a.perform();
    }),
    mouseDown: () => run(() => actions().press(Button.LEFT).perform()),
    mouseUp: () => run(() => actions().release(Button.LEFT).perform()),
    key: (name, how) => run(async () => {
      const k = KEY[name] ?? name;
      const a = actions();
      if (how === 'down') await a.keyDown(k).perform();
      else if (how === 'up') await a.keyUp(k).perform();
      else await a.keyDown(k).keyUp(k).perform();
    }),
    screenshot: () => run(async () => Buffer.from(await d.takeScreenshot(), 'base64')),
    close: () => exclusive(async () => {
      if (closed) return;
      closed = true;
      await d.switchTo().window(handle);
      await d.close();
      await d.switchTo().window(s.home);
      s.current = s.home;
    }),
  };
}

export function packageVersion() {
  const q = spawnSync('dpkg-query', ['-W', '-f', '${Version}', 'libwebkit2gtk-4.1-0'], { encoding: 'utf8' });
  return `WebKitGTK ${q.stdout?.trim() || '?'}`;
}

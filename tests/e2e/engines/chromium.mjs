// Chromium: Debian's `chromium`, headless, through playwright-core (Chrome DevTools Protocol).
// Sees the console (page and worker), page errors and requests itself; downloads are the browser's
// own; the clipboard is read for real. `raw` gives Playwright's objects for what only Chromium
// offers (the DevTools protocol: heap figures of the page and its worker, scale-lib.mjs).
import { chromium } from 'playwright-core';
import { spawnSync } from 'node:child_process';

export const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';

export async function launch({ measuring = false } = {}) {
  const args = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--disable-quic', '--disable-dev-shm-usage'];
  if (measuring) args.push('--enable-blink-features=ForceEagerMeasureMemory');
  const browser = await chromium.launch({ executablePath: CHROMIUM, args });
  const version = `chromium ${browser.version()}`;
  return {
    version,
    raw: browser,
    sees: { console: true, pageerror: true, request: true },
    async newContext({ viewport, colorScheme }) {
      const context = await browser.newContext({ viewport, colorScheme, acceptDownloads: true });
      return {
        raw: context,
        grantPermissions: (list) => context.grantPermissions(list),
        close: () => context.close(),
        async newPage() { return chromiumPage(context, await context.newPage()); },
      };
    },
    close: () => browser.close(),
  };
}

function chromiumPage(context, page) {
  return {
    raw: page,
    onEvent(fn) {
      page.on('console', (m) => fn('console', { type: m.type(), text: m.text() }));
      page.on('pageerror', (e) => fn('pageerror', e.message));
      page.on('request', (r) => fn('request', r.url()));
    },
    goto: (url) => page.goto(url),
    // A string is evaluated as an expression (not subject to the page's CSP) and its promise awaited.
    evaluate: (expression) => page.evaluate(expression),
    setInputFiles: (css, paths) => page.setInputFiles(css, paths),
    async mouseMove(points) { for (const p of points) await page.mouse.move(p.x, p.y); },
    mouseDown: () => page.mouse.down(),
    mouseUp: () => page.mouse.up(),
    key(name, how) { return how === 'press' ? page.keyboard.press(name) : page.keyboard[how](name); },
    screenshot: ({ fullPage }) => page.screenshot({ fullPage }),
    async download(timeout) {
      const d = await page.waitForEvent('download', { timeout });
      return { suggestedFilename: () => d.suggestedFilename(), path: () => d.path(), saveAs: (to) => d.saveAs(to) };
    },
    async readClipboard() {
      await context.grantPermissions(['clipboard-read', 'clipboard-write']);
      return page.evaluate(() => navigator.clipboard.readText());
    },
    close: () => page.close(),
  };
}

/** The Debian package's version, for the report (`chromium --version`). */
export function packageVersion() {
  return spawnSync(CHROMIUM, ['--version'], { encoding: 'utf8' }).stdout?.trim() ?? '?';
}

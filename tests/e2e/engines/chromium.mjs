// Chromium: Debian's `chromium`, headless, through playwright-core (Chrome DevTools Protocol).
// Sees the console (page and worker), page errors and requests itself; downloads are the browser's
// own; the clipboard is read for real. `raw` gives Playwright's objects for what only Chromium
// offers (the DevTools protocol: heap figures of the page and its worker, scale-lib.mjs).
import { chromium } from 'playwright-core';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';

/**
 * `profile`: one context in a real (throwaway) profile instead of off-the-record ones, for what
 * Chromium refuses off the record (an app is not installable "in-incognito"). Its one context is
 * the browser's own: `newContext` gives it once, and closing it closes the browser.
 */
export async function launch({ measuring = false, profile = false } = {}) {
  const args = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--disable-quic', '--disable-dev-shm-usage'];
  if (measuring) args.push('--enable-blink-features=ForceEagerMeasureMemory');
  if (profile) return launchProfile(args);
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

async function launchProfile(args) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gcscope-chromium-'));
  const context = await chromium.launchPersistentContext(dir, { executablePath: CHROMIUM, args, headless: true, acceptDownloads: true });
  const close = async () => {
    await context.close().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  };
  let given = false;
  return {
    version: `chromium ${context.browser()?.version() ?? ''}`.trim(),
    raw: context,
    sees: { console: true, pageerror: true, request: true },
    async newContext({ viewport }) {
      if (given) throw new Error('a profile browser has one context');
      given = true;
      return {
        raw: context,
        grantPermissions: (list) => context.grantPermissions(list),
        close,
        async newPage() {
          const page = context.pages()[0] ?? (await context.newPage());
          await page.setViewportSize(viewport);
          return chromiumPage(context, page);
        },
      };
    },
    close,
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

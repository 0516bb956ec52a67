// Firefox: Debian's `firefox-esr`, headless, through puppeteer-core over WebDriver BiDi. Sees the
// console (page and worker), page errors and requests itself. No download event and no clipboard
// permission over BiDi: the adapter reads both from the page (hooks.js). BiDi cannot emulate
// prefers-color-scheme, so a dark context runs in a second Firefox whose profile asks for dark
// pages (layout.css.prefers-color-scheme.content-override = 0), started when first needed.
import puppeteer from 'puppeteer-core';
import { spawnSync } from 'node:child_process';

export const FIREFOX = process.env.FIREFOX ?? '/usr/bin/firefox-esr';

async function start(prefs = {}) {
  return puppeteer.launch({
    browser: 'firefox',
    executablePath: FIREFOX,
    headless: true,
    protocolTimeout: 120_000,
    extraPrefsFirefox: {
      // Quiet: no update, telemetry or remote-settings traffic from the browser itself.
      'app.update.enabled': false, 'datareporting.healthreport.uploadEnabled': false, 'toolkit.telemetry.enabled': false,
      'browser.safebrowsing.malware.enabled': false, 'browser.safebrowsing.phishing.enabled': false, 'network.captive-portal-service.enabled': false,
      ...prefs,
    },
  });
}

export async function launch() {
  const browser = await start();
  let dark = null;
  const version = `firefox ${(await browser.version()).replace(/^firefox\//i, '')}`;
  return {
    version,
    raw: browser,
    sees: { console: true, pageerror: true, request: true },
    async newContext({ viewport, colorScheme }) {
      let owner = browser;
      if (colorScheme === 'dark') owner = dark ??= await start({ 'layout.css.prefers-color-scheme.content-override': 0 });
      const context = await owner.createBrowserContext();
      return {
        raw: context,
        close: () => context.close(),
        async newPage() {
          const page = await context.newPage();
          await page.setViewport(viewport);
          return firefoxPage(page);
        },
      };
    },
    async close() {
      await dark?.close();
      await browser.close();
    },
  };
}

function firefoxPage(page) {
  return {
    raw: page,
    onEvent(fn) {
      page.on('console', (m) => fn('console', { type: m.type(), text: m.text() }));
      page.on('pageerror', (e) => fn('pageerror', e.message ?? String(e)));
      page.on('request', (r) => fn('request', r.url()));
    },
    goto: (url) => page.goto(url, { waitUntil: 'load' }),
    evaluate: (expression) => page.evaluate(expression),
    async setInputFiles(css, paths) {
      const input = await page.$(css);
      await input.uploadFile(...paths);
      await input.dispose();
    },
    async mouseMove(points) { for (const p of points) await page.mouse.move(p.x, p.y); },
    mouseDown: () => page.mouse.down(),
    mouseUp: () => page.mouse.up(),
    key(name, how) {
      const k = name === ' ' ? 'Space' : name;
      return how === 'press' ? page.keyboard.press(k) : page.keyboard[how](k);
    },
    screenshot: ({ fullPage }) => page.screenshot({ fullPage }).then((b) => Buffer.from(b)),
    close: () => page.close(),
  };
}

export function packageVersion() {
  return spawnSync(FIREFOX, ['--version'], { encoding: 'utf8' }).stdout?.trim() ?? '?';
}

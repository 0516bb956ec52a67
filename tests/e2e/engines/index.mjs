// Which engine the end-to-end tests run in: GCSCOPE_ENGINE=chromium|firefox|webkit (chromium when
// unset). tests/run-e2e.mjs runs the whole suite once per engine.
import { Browser } from './page.mjs';

export const ENGINES = ['chromium', 'firefox', 'webkit'];
export const ENGINE = process.env.GCSCOPE_ENGINE ?? 'chromium';
if (!ENGINES.includes(ENGINE)) throw new Error(`GCSCOPE_ENGINE=${ENGINE}: not one of ${ENGINES.join(', ')}`);

/**
 * Whether this engine's driver shows the worker's console (Chromium's DevTools protocol and
 * Firefox's BiDi do; WebKitGTK's WebDriver shows no console at all, and the page cannot see its
 * worker's). A test that needs it skips in WebKit and says so.
 */
export const SEES_WORKER_CONSOLE = ENGINE !== 'webkit';


const backends = {
  chromium: () => import('./chromium.mjs'),
  firefox: () => import('./firefox.mjs'),
  webkit: () => import('./webkit.mjs'),
};

/** Launches `engine` (default: this run's) headless; `measuring` adds Chromium's eager memory measurement. */
export async function launchEngine(engine = ENGINE, options = {}) {
  const backend = await backends[engine]();
  return new Browser(engine, await backend.launch(options));
}

/** The installed browser's version, as its package reports it. */
export async function packageVersion(engine = ENGINE) {
  return (await backends[engine]()).packageVersion();
}

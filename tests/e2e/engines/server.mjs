// The test server: serves a built app (dist/) under a sub-path on 127.0.0.1, as any static host
// would, with what every engine's tests need from it, since not every driver can do it in the
// browser: the observer script (hooks.js) and the tests' init scripts in every page of the app,
// and routes that replace or hold back one of our files (Playwright's page.route, for every engine:
// every request for our files reaches this server). Nothing is cached (no-store), so a route
// applies to the next page whatever the engine's cache. For the same reason the app's service
// worker (sw.js, which would answer from its own cache) is served only to the tests that ask for
// it (`serviceWorker`); the others get a worker that does nothing.
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const HOOKS = readFileSync(path.join(HERE, 'hooks.js'), 'utf8');
const HOOKS_PATH = '__e2e/hooks.js';

const MIME = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript',
  '.wasm': 'application/wasm', '.css': 'text/css', '.json': 'application/json',
  '.png': 'image/png', '.svg': 'image/svg+xml', '.webmanifest': 'application/manifest+json',
};

/** What tests without `serviceWorker` get for sw.js: a worker with no fetch handler. */
const NO_SERVICE_WORKER = '// The e2e server: this test runs without the app\'s service worker.\n';

/** Servers by origin: a page finds the server its routes go to from its address. */
export const SERVERS = new Map();

/** Playwright's URL glob (`**` any characters, `*` any but `/`), a RegExp or a predicate. */
function matcher(pattern) {
  if (typeof pattern === 'function') return (u) => pattern(new URL(u));
  if (pattern instanceof RegExp) return (u) => pattern.test(u);
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '*' && pattern[i + 1] === '*') { re += '.*'; i++; } else if (c === '*') re += '[^/]*';
    else re += c.replace(/[.+?^${}()|[\]\\/]/g, '\\$&');
  }
  const rx = new RegExp(`^${re}$`);
  return (u) => rx.test(u);
}

/**
 * Serves `dir` at `prefix`. `isolated` adds COOP/COEP (cross-origin isolation, for the browser's
 * own memory breakdown); `captureDownloads` tells the observer to read offered files instead of
 * letting the browser save them (engines whose driver has no download event); `serviceWorker`
 * serves the app's own sw.js. `serveFrom(dir)` switches to another build (a new version of the
 * app); `setOffline(true)` drops every connection unanswered, as a gone network would, in every
 * engine (the requests are still recorded).
 */
export async function serve(dir, { prefix = '/', isolated = false, captureDownloads = false, serviceWorker = false } = {}) {
  let offline = false;
  if (!existsSync(path.join(dir, 'index.html'))) {
    throw new Error(`${dir}/index.html missing: build the app first (scripts/build-app.sh)`);
  }
  const requests = [];
  const routes = []; // { match, handler, owner, pattern }
  const initScripts = []; // { source, owner }

  /** Our own answer for `rel` (a path under the prefix): { status, headers, body: Buffer }. */
  async function own(rel) {
    if (rel === HOOKS_PATH) {
      const body = [HOOKS, ...initScripts.map((s) => `;(${s.source})();`)].join('\n');
      return { status: 200, headers: { 'content-type': MIME['.js'] }, body: Buffer.from(body) };
    }
    if (rel === 'sw.js' && !serviceWorker) {
      return { status: 200, headers: { 'content-type': MIME['.js'] }, body: Buffer.from(NO_SERVICE_WORKER) };
    }
    const file = path.join(dir, rel || 'index.html');
    if (!file.startsWith(dir)) return { status: 403, headers: {}, body: Buffer.alloc(0) };
    try {
      const st = await stat(file);
      const real = st.isDirectory() ? path.join(file, 'index.html') : file;
      let body = await readFile(real);
      if (real.endsWith('.html')) {
        // The observer goes first, right after the page's Content-Security-Policy.
        const tag = `<script src="${prefix}${HOOKS_PATH}"${captureDownloads ? ' data-capture-downloads="1"' : ''}></script>`;
        const html = body.toString('utf8');
        const csp = html.match(/<meta http-equiv="Content-Security-Policy"[^>]*>/);
        body = Buffer.from(csp ? html.replace(csp[0], `${csp[0]}\n    ${tag}`) : html.replace('<head>', `<head>${tag}`));
      }
      return { status: 200, headers: { 'content-type': MIME[path.extname(real)] ?? 'application/octet-stream' }, body };
    } catch {
      return { status: 404, headers: {}, body: Buffer.from('not found') };
    }
  }

  const server = createServer(async (req, res) => {
    const url = new URL(req.url, 'http://localhost');
    requests.push(url.pathname);
    if (offline) {
      res.socket?.destroy();
      return;
    }
    const send = ({ status, headers, body }) => {
      const h = { 'cache-control': 'no-store', ...headers };
      if (isolated) {
        h['cross-origin-opener-policy'] = 'same-origin';
        h['cross-origin-embedder-policy'] = 'require-corp';
      }
      res.writeHead(status, h).end(body);
    };
    if (!url.pathname.startsWith(prefix)) {
      send({ status: 404, headers: {}, body: Buffer.from('outside the app prefix') });
      return;
    }
    const rel = decodeURIComponent(url.pathname.slice(prefix.length));
    const full = `http://${req.headers.host}${req.url}`;
    const route = [...routes].reverse().find((r) => r.match(full));
    if (!route) {
      send(await own(rel));
      return;
    }
    // A test's route (Playwright's Route, the parts the tests use).
    let answered = false;
    const answer = (r) => { if (!answered) { answered = true; send(r); } };
    const response = (r) => ({
      status: () => r.status, headers: () => r.headers, body: async () => r.body, text: async () => r.body.toString('utf8'),
      _raw: r,
    });
    const api = {
      request: () => ({ url: () => full, method: () => req.method }),
      fetch: async () => response(await own(rel)),
      continue: async () => answer(await own(rel)),
      abort: async () => { answered = true; res.destroy(); },
      fulfill: async ({ response: from, status, contentType, headers, body } = {}) => {
        const base = from?._raw ?? { status: 200, headers: {}, body: Buffer.alloc(0) };
        const h = { ...base.headers, ...headers };
        if (contentType) h['content-type'] = contentType;
        const b = body === undefined ? base.body : Buffer.isBuffer(body) ? body : Buffer.from(String(body));
        answer({ status: status ?? base.status, headers: h, body: b });
      },
    };
    try {
      await route.handler(api, api.request());
    } catch (e) {
      answer({ status: 500, headers: {}, body: Buffer.from(`route failed: ${e.message}`) });
    }
    if (!answered) answer(await own(rel));
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${server.address().port}`;
  const api = {
    base: `${origin}${prefix}`,
    origin,
    requests,
    /** Answers requests matching `pattern` with `handler(route)` until unrouted or its owner closes. */
    route(pattern, handler, owner) { routes.push({ pattern, match: matcher(pattern), handler, owner }); },
    unroute(pattern, handler, owner) {
      for (let i = routes.length - 1; i >= 0; i--) {
        const r = routes[i];
        if (r.pattern === pattern && (!handler || r.handler === handler) && (!owner || r.owner === owner)) routes.splice(i, 1);
      }
    },
    /** Runs `source` (a function's text) first in every page of the app, until its owner closes. */
    addInitScript(source, owner) { initScripts.push({ source, owner }); },
    /** Drops the routes and init scripts of a closed context. */
    forget(owner) {
      for (const list of [routes, initScripts]) {
        for (let i = list.length - 1; i >= 0; i--) if (list[i].owner === owner) list.splice(i, 1);
      }
    },
    serveFrom(other) { dir = other; },
    setOffline(value) {
      offline = value;
      // Connections kept alive would still carry requests: a gone network ends them too.
      if (value) server.closeIdleConnections();
    },
    close: () => { SERVERS.delete(origin); return new Promise((r) => server.close(r)); },
  };
  SERVERS.set(origin, api);
  return api;
}

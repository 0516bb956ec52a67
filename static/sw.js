// gcscope's service worker: keeps this build's own files, and nothing else, so that the app opens
// with no network after one visit. scripts/offline.mjs (a Trunk post_build hook) writes the build's
// id and the list of its files in place of the two placeholders below; a new build is a
// byte-different sw.js, which the browser installs beside the old one (docs/design/app.md, "The
// service worker"). Every URL is relative to this script, so the app works under any sub-path.
const BUILD = '__GCSCOPE_BUILD__';
const FILES = __GCSCOPE_FILES__;

// Cache Storage is per origin, and several copies of the app may live on one origin under
// different sub-paths: each scope names its own caches, and only its own are deleted.
const PREFIX = `gcscope ${self.registration.scope} `;
const CACHE = PREFIX + BUILD;
const INDEX = new URL('./', self.location).href;
const OWN = new Set(FILES.map((f) => new URL(f, self.location).href));

self.addEventListener('install', (event) => {
  // `reload` skips the HTTP cache: a file of the old build kept by it must not enter the new cache.
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(FILES.map((f) => new Request(f, { cache: 'reload' })))));
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    for (const key of await caches.keys()) if (key.startsWith(PREFIX) && key !== CACHE) await caches.delete(key);
    // The first visit's page is served by the network; claiming it lets its decoding workers'
    // requests, and its next reload, come from the cache.
    await self.clients.claim();
  })());
});

// The page asks a waiting worker to take over when the user chooses to reload for the new version.
self.addEventListener('message', (event) => {
  if (event.data === 'skip-waiting') self.skipWaiting();
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  let key = null;
  if (request.mode === 'navigate') {
    // The page itself, whatever its query (?trace=URL, ?tab=...).
    url.search = '';
    url.hash = '';
    if (url.href === INDEX || url.href === `${INDEX}index.html`) key = INDEX;
  } else if (!url.search && OWN.has(url.href.replace(/#.*/, ''))) {
    key = url.href.replace(/#.*/, '');
  }
  // Anything else (a trace, ?trace=URL's fetch, the samples) goes to the network untouched.
  if (key === null) return;
  event.respondWith(caches.open(CACHE).then((cache) => cache.match(key)).then((hit) => hit ?? fetch(request)));
});

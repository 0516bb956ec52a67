// Trunk post_build hook (after csp-hash.mjs): writes the service worker, sw.js, into the build from
// its source static/sw.js, with the list of the build's own files and an id of this build, so that
// the worker precaches exactly these files and a new build replaces the old one (a byte-different
// sw.js is what makes a browser install the new version). Trunk names most files by their content
// hash; worker.js and worker_bg.wasm keep their names, so the id is a hash of every file's bytes.
//
//   node scripts/offline.mjs            as the hook (TRUNK_STAGING_DIR is the build)
//   node scripts/offline.mjs DIR        on a finished build in DIR (the tests make a second version)
//
// samples/ is left out: the bundled samples are traces, and traces are never cached.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SOURCE = path.join(ROOT, 'static/sw.js');
const dir = process.argv[2] ?? process.env.TRUNK_STAGING_DIR;
if (!dir) {
  console.error('offline: give the build directory, or run as a Trunk post_build hook (TRUNK_STAGING_DIR)');
  process.exit(1);
}
const LEFT_OUT = new Set(['sw.js', 'samples']);

/** Every file under `d`, as paths relative to the build with '/' separators. */
function files(d, rel = '') {
  const out = [];
  for (const e of readdirSync(d, { withFileTypes: true })) {
    const r = rel ? `${rel}/${e.name}` : e.name;
    if (!rel && LEFT_OUT.has(e.name)) continue;
    if (e.isDirectory()) out.push(...files(path.join(d, e.name), r));
    else if (e.isFile()) out.push(r);
  }
  return out;
}

const list = files(dir).sort();
if (!list.includes('index.html')) {
  console.error(`offline: ${dir} has no index.html`);
  process.exit(1);
}
const id = createHash('sha256');
for (const f of list) id.update(`${f}\0${createHash('sha256').update(readFileSync(path.join(dir, f))).digest('hex')}\n`);
const build = id.digest('hex').slice(0, 16);
// The page is cached as the directory's URL ("./"), the address it is opened at.
const urls = list.map((f) => (f === 'index.html' ? './' : f));

const source = readFileSync(SOURCE, 'utf8');
for (const p of ['__GCSCOPE_BUILD__', '__GCSCOPE_FILES__']) {
  if (!source.includes(p)) {
    console.error(`offline: ${SOURCE} has no ${p}`);
    process.exit(1);
  }
}
const out = source
  .replace("'__GCSCOPE_BUILD__'", () => JSON.stringify(build))
  .replace('__GCSCOPE_FILES__', () => JSON.stringify(urls, null, 2));
writeFileSync(path.join(dir, 'sw.js'), out);
console.log(`offline: sw.js for build ${build}, ${urls.length} files`);

// Trunk post_build hook: puts the sha256 of every inline <script> Trunk wrote into index.html into the
// Content-Security-Policy meta tag, in place of the placeholder 'sha256-INLINE-SCRIPTS'. Trunk's
// loader script names the hashed asset files, so its hash changes with every build and cannot be
// written by hand; with it in the policy, no other inline script can run.
import { readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';

const PLACEHOLDER = "'sha256-INLINE-SCRIPTS'";
const dir = process.env.TRUNK_STAGING_DIR;
if (!dir) {
  console.error('csp-hash: TRUNK_STAGING_DIR is not set (run as a Trunk post_build hook)');
  process.exit(1);
}
const file = path.join(dir, 'index.html');
const html = readFileSync(file, 'utf8');
if (!html.includes(PLACEHOLDER)) {
  console.error(`csp-hash: ${file} has no ${PLACEHOLDER} in its Content-Security-Policy`);
  process.exit(1);
}
const hashes = [];
for (const m of html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)) {
  hashes.push(`'sha256-${createHash('sha256').update(m[1], 'utf8').digest('base64')}'`);
}
if (hashes.length === 0) {
  console.error('csp-hash: no inline script found (did Trunk change how it loads the app?)');
  process.exit(1);
}
writeFileSync(file, html.replace(PLACEHOLDER, hashes.join(' ')));
console.log(`csp-hash: ${hashes.length} inline script hash(es) in the CSP`);

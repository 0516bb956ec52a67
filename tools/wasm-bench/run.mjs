// Times the worker's decoding path in V8 (Node) on a trace already in wasm memory: see README.md.
//   node tools/wasm-bench/run.mjs FILE [--mode 0|1|2] [--runs N] [--chunk-kib K]
import { readFileSync, openSync, readSync, fstatSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const argv = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : dflt;
};
const file = argv[0];
if (!file || file.startsWith('--')) {
  console.error('usage: node tools/wasm-bench/run.mjs FILE [--mode 0|1|2] [--runs N] [--chunk-kib K]');
  process.exit(2);
}
const mode = Number(opt('mode', '0'));
const runs = Number(opt('runs', '3'));
const chunk = Number(opt('chunk-kib', '4096')) * 1024;
const here = path.dirname(fileURLToPath(import.meta.url));
const wasmPath = path.join(here, 'target/wasm32-unknown-unknown/release/gcscope_wasm_bench.wasm');
const { instance } = await WebAssembly.instantiate(readFileSync(wasmPath), {});
const x = instance.exports;
const fd = openSync(file, 'r');
const len = fstatSync(fd).size;
const at = x.alloc_bytes(len);
for (let off = 0; off < len; ) {
  const n = Math.min(1 << 26, len - off);
  off += readSync(fd, new Uint8Array(x.memory.buffer, at + off, n), 0, n, off);
}
const what = mode === 1 ? 'events (every event decoded, nothing built)' : mode === 2 ? "GCs (the worker's path without the tick lane)" : "GCs (the worker's path)";
for (let i = 0; i < runs; i++) {
  const t = performance.now();
  const n = x.run(at, len, chunk, mode);
  const ms = performance.now() - t;
  if (n === 2n ** 64n - 1n) throw new Error('the trace did not decode');
  console.log(`run ${i + 1}: ${n} ${what} in ${ms.toFixed(0)} ms (${(len / 1e6 / (ms / 1000)).toFixed(0)} MB/s)`);
}

// Draws the app's icons (static/icons/icon-192.png, icon-512.png): three bars of GC pauses, white on
// the app's accent blue, in a rounded square. The icons are committed; run this again only to
// change them (`node scripts/make-icons.mjs`). The bars stay inside the middle 80%, the part a
// "maskable" icon keeps whatever shape the OS cuts it to.
import { writeFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const OUT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../static/icons');
const BLUE = [0x24, 0x57, 0xc5];
const WHITE = [0xff, 0xff, 0xff];

const CRC = new Int32Array(256).map((_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c;
});
function crc32(buf) {
  let c = -1;
  for (const b of buf) c = CRC[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ -1) >>> 0;
}
function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(td));
  return Buffer.concat([len, td, crc]);
}

/** An RGBA PNG of `size` pixels, each pixel's colour and coverage (0..1) from `paint(x, y)`. */
function png(size, paint) {
  const raw = Buffer.alloc(size * (size * 4 + 1));
  for (let y = 0; y < size; y++) {
    raw[y * (size * 4 + 1)] = 0; // filter: none
    for (let x = 0; x < size; x++) {
      // 4x4 samples a pixel smooth the edges.
      const acc = [0, 0, 0, 0];
      for (let sy = 0; sy < 4; sy++) {
        for (let sx = 0; sx < 4; sx++) {
          const px = paint((x + (sx + 0.5) / 4) / size, (y + (sy + 0.5) / 4) / size);
          if (!px) continue;
          for (let i = 0; i < 3; i++) acc[i] += px[i];
          acc[3] += 1;
        }
      }
      const o = y * (size * 4 + 1) + 1 + x * 4;
      if (acc[3]) for (let i = 0; i < 3; i++) raw[o + i] = Math.round(acc[i] / acc[3]);
      raw[o + 3] = Math.round((acc[3] / 16) * 255);
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 6; // RGBA
  const sig = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([sig, chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw, { level: 9 })), chunk('IEND', Buffer.alloc(0))]);
}

/** Whether (x, y), in 0..1, is inside a square of side 1 with corners of radius r. */
function inRounded(x, y, r) {
  const cx = Math.min(Math.max(x, r), 1 - r);
  const cy = Math.min(Math.max(y, r), 1 - r);
  return (x - cx) ** 2 + (y - cy) ** 2 <= r * r;
}

// Three bars standing on a base line, tallest in the middle: (left, right, top), in 0..1.
const BARS = [[0.24, 0.38, 0.52], [0.43, 0.57, 0.26], [0.62, 0.76, 0.42]];
const BASE = [0.20, 0.80, 0.70, 0.75]; // left, right, top, bottom

function paint(x, y) {
  if (!inRounded(x, y, 0.18)) return null;
  for (const [l, r, t] of BARS) if (x >= l && x <= r && y >= t && y <= BASE[2]) return WHITE;
  if (x >= BASE[0] && x <= BASE[1] && y >= BASE[2] && y <= BASE[3]) return WHITE;
  return BLUE;
}

for (const size of [192, 512]) {
  const file = path.join(OUT, `icon-${size}.png`);
  writeFileSync(file, png(size, paint));
  console.log(`wrote ${file}`);
}

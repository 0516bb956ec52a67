#!/usr/bin/env python3
"""Writes a synthetic .gcdump of N objects for timing the Heap tab, from a real one as template.

    tests/bench/heap-gen.py TEMPLATE.gcdump NODES OUT.gcdump [STATED_NODES STATED_BYTES]

The template's header, type table and trailing fields are kept; its node table and node data are
replaced by N nodes: node 0 the template's root type, each other node referenced by a random
earlier node (its parent, within the last 5,000) and, for half of them, by a second random earlier
node, so the dominator tree is not the reference tree. Sizes are 24-215 bytes, types the
template's. Every file position after the node data (the forward reference table, the trailer)
is moved by the change in length. STATED_NODES and STATED_BYTES are the template's node count and
total, to find its node table and graph header (default: what ../shared/heapdumps/README.md gives
gcdumpanalyze-test1).
"""
import random
import struct
import sys


def compressed(v, out):
    """The node data's signed integers: 7 bits a byte, most significant first (gcdump.rs)."""
    for k in range(1, 5):
        lo, hi = -(1 << (7 * k - 1)), (1 << (7 * k - 1)) - 1
        if lo <= v <= hi:
            for j in range(k - 1, -1, -1):
                b = (v >> (7 * j)) & 0x7F
                out.append(b | (0x80 if j else 0))
            return
    raise ValueError(v)


def read_compressed(b, pos):
    x = b[pos]
    v = ((x & 0x7F) ^ 0x40) - 0x40
    pos += 1
    while x & 0x80:
        x = b[pos]
        pos += 1
        v = (v << 7) + (x & 0x7F)
    return v, pos


def main():
    template, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    stated = int(sys.argv[4]) if len(sys.argv) > 4 else 46645
    stated_bytes = int(sys.argv[5]) if len(sys.argv) > 5 else 3339490
    f = bytearray(open(template, 'rb').read())
    # The node table: its count, then one u32 label a node, then the data's length and the data.
    at = -1
    while True:
        at = f.find(struct.pack('<i', stated), at + 1)
        if at < 0:
            sys.exit('no node table of %d nodes in %s' % (stated, template))
        blob_len_at = at + 4 + 4 * stated
        if blob_len_at + 4 > len(f):
            continue
        blob_len = struct.unpack_from('<i', f, blob_len_at)[0]
        labels = struct.unpack_from('<%dI' % stated, f, at + 4)
        if 0 < blob_len < len(f) and max(labels) < blob_len:
            break
    blob_at = blob_len_at + 4
    blob_end = blob_at + blob_len
    # The graph's stated total (i64) and root index (i32) come before the type table: found by
    # the template's total, they become the new total and node 0.
    total_at = f.find(struct.pack('<q', stated_bytes))
    if total_at < 0 or total_at > at:
        sys.exit('no stated total of %d bytes in %s' % (stated_bytes, template))
    root = struct.unpack_from('<i', f, total_at + 8)[0]
    root_type = read_compressed(f, blob_at + labels[root])[0] >> 1
    rng = random.Random(1)
    # Types: every label's type in the template, to draw from.
    seen = set()
    for lab in labels[:5000]:
        t, _ = read_compressed(f, blob_at + lab)
        seen.add(t >> 1)
    types = sorted(seen)
    kids = [[] for _ in range(n)]
    for i in range(1, n):
        kids[rng.randrange(max(0, i - 5000), i)].append(i)
        if i > 1 and rng.random() < 0.5:
            kids[rng.randrange(0, i)].append(i)
    blob = bytearray([0, 0])  # the record undefined nodes point at: type 0, no children
    table = bytearray()
    total = 0
    for i in range(n):
        table += struct.pack('<I', len(blob))
        t = root_type if i == 0 else types[i % len(types)]
        size = 0 if i == 0 else 24 + 8 * rng.randrange(0, 24)
        total += size
        compressed((t << 1) | 1, blob)
        compressed(size, blob)
        compressed(len(kids[i]), blob)
        for c in kids[i]:
            compressed(c - i, blob)
    head = f[:at] + struct.pack('<i', n) + table + struct.pack('<i', len(blob))
    tail = f[blob_end:]
    new = bytearray(head + blob + tail)
    delta = len(new) - len(f)
    # Move every file position past the node data: the trailer, the forward reference table.
    trailer = struct.unpack_from('<I', f, len(f) - 4)[0]
    table_at = struct.unpack_from('<I', f, trailer)[0]
    count = struct.unpack_from('<i', f, table_at)[0]
    fix = lambda p: p + delta if p >= blob_end else p
    struct.pack_into('<I', new, len(new) - 4, fix(trailer))
    struct.pack_into('<I', new, fix(trailer), fix(table_at))
    for k in range(count):
        lab = struct.unpack_from('<I', f, table_at + 4 + 4 * k)[0]
        struct.pack_into('<I', new, fix(table_at) + 4 + 4 * k, fix(lab))
    struct.pack_into('<q', new, total_at, total)
    struct.pack_into('<i', new, total_at + 8, 0)
    open(out, 'wb').write(new)
    print('%s: %d nodes, %d edges, %d bytes, %d types drawn from' % (out, n, sum(map(len, kids)), total, len(types)))


if __name__ == '__main__':
    main()

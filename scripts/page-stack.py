#!/usr/bin/env python3
"""Copies a built dist/ with the page's wasm stack shrunk, to measure how much stack the page uses.

    scripts/page-stack.py DIST OUT_DIR KIB
    GCSCOPE_DIST=OUT_DIR GCSCOPE_ENGINE=webkit node --test e2e/hostile.test.mjs   (in tests/)

Rust's wasm32 target puts the stack at the bottom of linear memory (`--stack-first`, 1 MiB), so its
first global, the stack pointer, starts at 1 MiB and an overflow goes below address 0: a trap,
"Out of bounds memory access". Starting the stack pointer at KIB instead leaves the page KIB of
stack: a test that passes so needs less. The page's `<link rel=preload>` carries the wasm's
integrity hash, so index.html is rewritten with the new one. Only the page's wasm is changed, not
the workers'. Used on 2026-11-29 to rule out a stack overflow behind a WebKit page trap
(docs/performance-log/journal.md, "A WebKit page trap, narrowed down").
"""

import base64
import hashlib
import os
import re
import shutil
import sys

from wasm_module import section_spans, uleb


def sleb4(v):
    """`v` as a signed LEB128 of exactly four bytes (padded: the stack pointer's is four bytes)."""
    assert 0 < v < (1 << 27), v
    return bytes(((v >> (7 * k)) & 0x7F) | (0x80 if k < 3 else 0) for k in range(4))


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    src, dst, kib = sys.argv[1], sys.argv[2], int(sys.argv[3])
    if os.path.exists(dst):
        shutil.rmtree(dst)
    shutil.copytree(src, dst)
    name = next(f for f in os.listdir(dst) if f.startswith("gcscope-app") and f.endswith(".wasm"))
    path = os.path.join(dst, name)
    b = bytearray(open(path, "rb").read())
    for section, body, _ in section_spans(bytes(b)):
        if section == 6:  # globals: count, then the first global's type, mutability, init
            _, g = uleb(b, body)
            init = g + 2
            if b[init] != 0x41:  # i32.const
                sys.exit("the first global does not start with an i32.const")
            old, end = uleb(b, init + 1)
            if end - (init + 1) != 4:
                sys.exit("the stack pointer's constant is not four bytes long")
            b[init + 1 : end] = sleb4(kib * 1024)
            print(f"{name}: stack pointer starts at {kib * 1024} (was {old})")
            break
    else:
        sys.exit("no global section")
    open(path, "wb").write(b)
    digest = "sha384-" + base64.b64encode(hashlib.sha384(b).digest()).decode()
    index = os.path.join(dst, "index.html")
    html = open(index).read()
    pattern = r'(href="\./' + re.escape(name) + r'"[^>]*integrity=")[^"]*"'
    patched = re.sub(pattern, lambda m: m.group(1) + digest + '"', html)
    if patched == html:
        sys.exit("index.html has no integrity hash for the page's wasm")
    open(index, "w").write(patched)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Names the wasm functions of a page trap's stack (`wasm-function[N]`, as the e2e page observer
reports them), for the build in dist/.

    scripts/wasm-frames.py N [N ...]

dist/'s page wasm has no names. Trunk makes it from target/wasm-bindgen/release/gcscope-app_bg.wasm
(which has them) with `wasm-opt -Oz`; run again with `-g` the same pass keeps the names and, as
checked here, gives the same code section, so function N is the same function in both. Run it after
the `scripts/build-app.sh` that made dist/ (the build must not have changed since). Used on
2026-11-29 for the WebKit page trap (docs/performance-log/journal.md, "A WebKit page trap").
"""

import glob
import os
import subprocess
import sys
import tempfile

from wasm_module import sections, uleb

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NAMED = os.path.join(ROOT, "target/wasm-bindgen/release/gcscope-app_bg.wasm")
WASM_OPT = os.path.join(ROOT, "tests/node_modules/.bin/wasm-opt")


def function_names(name_section):
    names, i = {}, 0
    while i < len(name_section):
        kind = name_section[i]
        size, body = uleb(name_section, i + 1)
        if kind == 1:  # function names
            count, at = uleb(name_section, body)
            for _ in range(count):
                index, at = uleb(name_section, at)
                n, at = uleb(name_section, at)
                names[index] = name_section[at : at + n].decode("utf-8", "replace")
                at += n
        i = body + size
    return names


def main():
    wanted = [int(a) for a in sys.argv[1:]]
    if not wanted:
        sys.exit(__doc__)
    dist = glob.glob(os.path.join(ROOT, "dist/gcscope-app-*_bg.wasm"))
    if len(dist) != 1:
        sys.exit(f"expected one page wasm in dist/, found {dist}")
    with tempfile.TemporaryDirectory() as tmp:
        named = os.path.join(tmp, "named.wasm")
        subprocess.run([WASM_OPT, NAMED, "-Oz", "-g", "-o", named], check=True)
        mine, theirs = sections(named), sections(dist[0])
        if mine.get(10) != theirs.get(10):
            sys.exit("the code differs from dist/'s: rebuild with scripts/build-app.sh first")
        names = function_names(mine.get("name", b""))
    for n in wanted:
        print(f"{n}\t{names.get(n, '?')}")


if __name__ == "__main__":
    main()

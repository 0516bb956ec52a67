#!/usr/bin/env python3
"""Fails when a module of a crate imports a module that imports it back (an import cycle).

    scripts/check-cycles.py [CRATE_SRC_DIR ...]      (default: core/src app/src cli/src)

How it reads the code (text, not a compiler): every file is a module (`gc/derive.rs` is
`gc::derive`, `gc/mod.rs` is `gc`, `lib.rs`/`main.rs` the crate root). Its edges are the modules
named by its `use` declarations (brace groups expanded) and by the `crate::`/`super::`/`self::`
paths in its code, each resolved to the longest prefix that is a module of the crate. Two kinds of
reference are not edges, because they are how Rust builds a tree rather than a dependency:
a module naming one of its own descendants (a `mod.rs` that declares, re-exports or drives its
children), and a module naming itself (inline `mod tests` included). Every other pair of modules
that reach each other, directly or through others, is a cycle: the script prints each strongly
connected component with one edge of the cycle and the line that makes it, and exits 1.
"""
import os
import re
import sys
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def module_of(src, path):
    rel = os.path.relpath(path, src)[:-3].split(os.sep)
    if rel[-1] in ("mod", "lib", "main"):
        rel = rel[:-1]
    if rel and rel[0] == "bin":  # src/bin/x.rs is its own crate root
        return None
    return tuple(rel)


def strip(text):
    """Removes comments and string/char literals, keeping line breaks (for line numbers)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif c == "r" and re.match(r'r#*"', text[i:i + 10]) and not (i and (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'r(#*)"', text[i:])
            end = text.find('"' + m.group(1), i + len(m.group(0)))
            end = n if end < 0 else end + 1 + len(m.group(1))
            out.append("\n" * text.count("\n", i, end))
            i = end
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append("\n" * text.count("\n", i, j))
            i = j + 1
        elif c == "'" and re.match(r"'(\\.|[^\\'])'", text[i:i + 4] + "  "):
            m = re.match(r"'(\\[^']*|[^\\'])'", text[i:])
            i += len(m.group(0)) if m else 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def expand_use(tree):
    """`a::{b, c::{d, e}}` -> [a::b, a::c::d, a::c::e] (self in a group means the prefix)."""
    tree = re.sub(r"\s+", "", tree)
    depth, start = 0, None
    for k, ch in enumerate(tree):
        if ch == "{":
            if depth == 0:
                start = k
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                prefix, inner, rest = tree[:start], tree[start + 1:k], tree[k + 1:]
                parts, d, cur = [], 0, ""
                for ch2 in inner:
                    if ch2 == "," and d == 0:
                        parts.append(cur)
                        cur = ""
                        continue
                    d += ch2 == "{"
                    d -= ch2 == "}"
                    cur += ch2
                parts.append(cur)
                res = []
                for p in parts:
                    if not p:
                        continue
                    if p == "self":
                        res.append(prefix.rstrip(":"))
                    else:
                        res.extend(expand_use(prefix + p + rest))
                return res
    return [re.sub(r"as\w+$", "", tree)]


def scan(src):
    files = {}
    for dirpath, _, names in os.walk(src):
        for name in names:
            if name.endswith(".rs"):
                path = os.path.join(dirpath, name)
                mod = module_of(src, path)
                if mod is not None:
                    files[mod] = path
    modules = set(files)
    edges = defaultdict(dict)  # from -> {to: (path, line)}

    def resolve(cur, segs):
        if not segs:
            return None
        if segs[0] == "crate":
            absolute = list(segs[1:])
        elif segs[0] in ("self", "super"):
            absolute, segs2 = list(cur), list(segs)
            while segs2 and segs2[0] in ("self", "super"):
                if segs2.pop(0) == "super":
                    absolute = absolute[:-1]
            absolute += segs2
        elif tuple(cur) + (segs[0],) in modules:
            absolute = list(cur) + list(segs)
        elif cur == () and (segs[0],) in modules:
            absolute = list(segs)
        else:
            return None  # another crate, or a local item
        for k in range(len(absolute), -1, -1):
            if tuple(absolute[:k]) in modules:
                return tuple(absolute[:k])
        return None

    for mod, path in files.items():
        text = strip(open(path, encoding="utf-8").read())
        # Inline modules (`mod tests { ... }`): `super` inside them means the file's module, so
        # resolve their paths from a module path one level deeper.
        inline_spans = []
        for m in re.finditer(r"\bmod\s+(\w+)\s*\{", text):
            depth, j = 1, m.end()
            while j < len(text) and depth:
                depth += text[j] == "{"
                depth -= text[j] == "}"
                j += 1
            inline_spans.append((m.start(), j, m.group(1)))

        def context(pos):
            ctx = list(mod)
            for a, b, name in inline_spans:
                if a <= pos < b:
                    ctx.append(name)
            return tuple(ctx)

        refs, aliases = [], {}
        for m in re.finditer(r"\buse\s+([^;]+);", text):
            for p in expand_use(m.group(1)):
                alias = re.search(r"as(\w+)$", re.sub(r"\s+", "", m.group(1))) if "{" not in m.group(1) else None
                segs = [s for s in p.split("::") if s]
                refs.append((m.start(), segs))
                # `use crate::insights;` lets the code say `insights::budgets::Budgets`.
                target = resolve(context(m.start()), segs)
                if target is not None and segs and segs[-1] == (target[-1] if target else None):
                    aliases[alias.group(1) if alias else segs[-1]] = target
        for a, target in aliases.items():
            for m in re.finditer(r"(?<![\w:])" + re.escape(a) + r"((?:::\w+)+)", text):
                refs.append((m.start(), ["crate"] + list(target) + [s for s in m.group(1).split("::") if s]))
        for m in re.finditer(r"\b(crate|super|self)((?:::\w+)+)", text):
            refs.append((m.start(), [m.group(1)] + [s for s in m.group(2).split("::") if s]))
        for pos, segs in refs:
            ctx = context(pos)
            target = resolve(ctx, segs)
            if target is None or target == mod:
                continue
            if target[: len(mod)] == mod:  # a module naming its own descendant
                continue
            line = text.count("\n", 0, pos) + 1
            edges[mod].setdefault(target, (path, line))
    return modules, edges


def sccs(nodes, edges):
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def name(mod):
    return "::".join(mod) or "(crate root)"


def main():
    dirs = sys.argv[1:] or ["core/src", "app/src", "cli/src"]
    failed = False
    for d in dirs:
        src = os.path.join(ROOT, d) if not os.path.isabs(d) else d
        modules, edges = scan(src)
        comps = sccs(modules, edges)
        n_edges = sum(len(v) for v in edges.values())
        if not comps:
            print(f"check-cycles: {d}: {len(modules)} modules, {n_edges} imports, no cycles")
            continue
        failed = True
        print(f"check-cycles: {d}: {len(comps)} import cycle(s):")
        for comp in comps:
            print("  " + " <-> ".join(name(m) for m in comp))
            members = set(comp)
            for a in comp:
                for b, (path, line) in sorted(edges[a].items()):
                    if b in members:
                        print(f"      {name(a)} -> {name(b)}  ({os.path.relpath(path, ROOT)}:{line})")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Re-bundle a .NET single-file app around another main assembly.

A single-file .NET app is its native host (with the runtime linked in) followed by a bundle of
files and a manifest; the host finds the manifest through an 8-byte offset stored just before a
fixed 32-byte signature, and runs the main assembly whose file name it has baked in. This
script keeps the host and the framework's own assemblies of an existing bundle, drops the app's
assemblies, and writes a new bundle whose main assembly (under the same file name) is ours, with a
runtimeconfig.json and deps.json of our own. It is how tools/tracegen runs workloads on the .NET 10
runtime of a trimmed, single-file npm package that disables startup hooks.

  usage: rebundle.py HOST_APP MAIN.dll OUT [EXTRA.dll ...] [--list]

EXTRA assemblies (e.g. forwarding facades such as mscorlib.dll that the trimmed framework lacks)
are bundled beside the main one and listed with it in deps.json.

Only the bundle format's facts are used (manifest v6: header, then per file offset/size/
compressed size/type/path; files of type 1 assembly, 3 deps.json, 4 runtimeconfig.json).
"""
import json
import struct
import sys

SIGNATURE = bytes.fromhex("8b1202b96a6120387" "27b930214d7a03213f5b9e6efae3318ee3b2dce24b36aae")
ASSEMBLY, NATIVE, DEPS, RUNTIMECONFIG = 1, 2, 3, 4
ALIGN = 4096  # assemblies are mapped from the file: page-align them


class Cursor:
    def __init__(self, b, p):
        self.b, self.p = b, p

    def take(self, fmt):
        v = struct.unpack_from(fmt, self.b, self.p)
        self.p += struct.calcsize(fmt)
        return v

    def string(self):
        n = shift = 0
        while True:
            c = self.b[self.p]
            self.p += 1
            n |= (c & 0x7F) << shift
            shift += 7
            if c < 0x80:
                break
        s = self.b[self.p:self.p + n].decode("utf-8")
        self.p += n
        return s


def encode_string(s):
    raw = s.encode("utf-8")
    n, out = len(raw), bytearray()
    while True:
        out.append((n & 0x7F) | (0x80 if n > 0x7F else 0))
        n >>= 7
        if not n:
            break
    return bytes(out) + raw


def read_bundle(b):
    sig = b.find(SIGNATURE)
    if sig < 8 or b.find(SIGNATURE, sig + 1) != -1:
        sys.exit("not a single-file .NET app (bundle signature missing or repeated)")
    c = Cursor(b, struct.unpack_from("<q", b, sig - 8)[0])
    major, _minor, count = c.take("<IIi")
    if major < 6:
        sys.exit("bundle manifest version %d: only 6+ (.NET 6 and later) is handled" % major)
    c.string()  # bundle id
    c.take("<qqqqQ")  # deps.json and runtimeconfig.json locations, flags
    files = []
    for _ in range(count):
        off, size, compressed = c.take("<qqq")
        (kind,) = c.take("<B")
        files.append(dict(offset=off, size=size, compressed=compressed, kind=kind, path=c.string()))
    return sig, files


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) < 3:
        sys.exit(__doc__)
    host_path, main_path, out_path = args[:3]
    extras = args[3:]
    b = open(host_path, "rb").read()
    sig, files = read_bundle(b)
    if "--list" in sys.argv:
        for f in files:
            print(f["kind"], f["size"], f["path"])
    if any(f["compressed"] for f in files):
        sys.exit("compressed bundles are not handled")
    deps = json.loads(next(b[f["offset"]:f["offset"] + f["size"]] for f in files if f["kind"] == DEPS))
    rtconfig = json.loads(next(b[f["offset"]:f["offset"] + f["size"]] for f in files if f["kind"] == RUNTIMECONFIG))
    target_name = deps["runtimeTarget"]["name"]
    target = deps["targets"][target_name]
    # The main assembly: the runtime asset of the deps.json's project (the host has its name
    # baked in and looks it up in the bundle).
    project = next(k for k, v in deps["libraries"].items() if v.get("type") == "project")
    app = next(iter(target[project]["runtime"]))
    # Keep the runtime pack (the framework's own assemblies, as trimmed for the app) only.
    pack = next(k for k in target if k.startswith("runtimepack.Microsoft.NETCore.App.Runtime"))
    framework = set(target[pack].get("runtime", {}))
    app_lib = app[:-4] + "/1.0.0"
    new_deps = {
        "runtimeTarget": deps["runtimeTarget"],
        "compilationOptions": {},
        "targets": {target_name.split("/")[0]: {}, target_name: {
            app_lib: {"runtime": dict((p, {}) for p in [app] + [x.rsplit("/", 1)[-1] for x in extras])},
            pack: target[pack],
        }},
        "libraries": {
            app_lib: {"type": "project", "serviceable": False, "sha512": ""},
            pack: deps["libraries"][pack],
        },
    }
    opts = rtconfig["runtimeOptions"]
    opts["includedFrameworks"] = [f for f in opts["includedFrameworks"] if f["name"] == "Microsoft.NETCore.App"]
    contents = [(app, ASSEMBLY, open(main_path, "rb").read())]
    for x in extras:
        contents.append((x.rsplit("/", 1)[-1], ASSEMBLY, open(x, "rb").read()))
    for f in files:
        if f["kind"] == ASSEMBLY and f["path"] in framework:
            contents.append((f["path"], ASSEMBLY, b[f["offset"]:f["offset"] + f["size"]]))
    stem = app[:-4]
    contents.append((stem + ".deps.json", DEPS, json.dumps(new_deps, indent=2).encode()))
    contents.append((stem + ".runtimeconfig.json", RUNTIMECONFIG, json.dumps(rtconfig, indent=2).encode()))

    out = bytearray(b[:min(f["offset"] for f in files)])
    entries, where = [], {}
    for path, kind, data in contents:
        if kind == ASSEMBLY:
            out += b"\0" * (-len(out) % ALIGN)
        entries.append((len(out), len(data), kind, path))
        where[kind] = (len(out), len(data))
        out += data
    manifest_at = len(out)
    import hashlib
    bundle_id = hashlib.sha256(b"".join(c[2] for c in contents)).hexdigest()[:12]
    m = struct.pack("<IIi", 6, 0, len(entries)) + encode_string(bundle_id)
    m += struct.pack("<qqqqQ", *where[DEPS], *where[RUNTIMECONFIG], 0)
    for off, size, kind, path in entries:
        m += struct.pack("<qqqB", off, size, 0, kind) + encode_string(path)
    out += m
    struct.pack_into("<q", out, sig - 8, manifest_at)
    with open(out_path, "wb") as w:
        w.write(out)
    print("%s: %s around %s, %d files, %d bytes" % (out_path, app, main_path, len(entries), len(out)))


if __name__ == "__main__":
    main()

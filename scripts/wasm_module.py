"""Reading a wasm module's sections (shared by scripts/page-stack.py and scripts/wasm-frames.py)."""


def uleb(b, i):
    """An unsigned LEB128 at b[i]: (value, index after it)."""
    value = shift = 0
    while True:
        x = b[i]
        i += 1
        value |= (x & 0x7F) << shift
        shift += 7
        if not x & 0x80:
            return value, i


def section_spans(b):
    """Each section of the module `b`: (id, start of its body, end of its body)."""
    i = 8  # magic and version
    while i < len(b):
        sid = b[i]
        size, body = uleb(b, i + 1)
        yield sid, body, body + size
        i = body + size


def sections(path):
    """The module's sections: id -> bytes, custom sections by name."""
    b = open(path, "rb").read()
    out = {}
    for sid, body, end in section_spans(b):
        if sid == 0:
            n, at = uleb(b, body)
            out[b[at : at + n].decode()] = b[at + n : end]
        else:
            out[sid] = b[body:end]
    return out

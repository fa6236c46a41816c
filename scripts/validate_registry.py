"""Read cases/validation.yaml with PyYAML when it is installed, else with a small reader of the YAML subset
that file uses, so that `scripts/validate --runs-only` needs only the Python standard library (the GPU
machine has no PyYAML). CTest validate_registry_reader checks that both readers give the same entries.

The subset: a top-level block sequence of mappings; `key: value` pairs; plain scalars that continue on
more-indented lines (folded with spaces); "double" or 'single' quoted strings; flow sequences [..] and
flow mappings {..} (nested, spanning lines); block sequences (`- item`) under a key with no value;
`#` comments. Plain scalars resolve like YAML 1.1's core types: int, float, true/false, null.
"""
import re


def load(path):
    try:
        import yaml
    except ImportError:
        return load_subset(path)
    with open(path) as f:
        return yaml.safe_load(f)


def load_subset(path):
    lines = _logical_lines(path)
    entries, i = [], 0
    while i < len(lines):
        ind, text, ln = lines[i]
        if ind != 0 or not text.startswith("- "):
            raise ValueError(f"{path}:{ln}: expected '- key: value' at column 1 (a new entry)")
        entry = {}
        entries.append(entry)
        first = (2, text[2:], ln)
        i = _mapping(path, lines, i + 1, entry, first)
    return entries


def _mapping(path, lines, i, out, first):
    """Keys at the indentation of `first`; returns the index of the first line after the mapping."""
    ind0, text, ln = first
    while True:
        key, value = _split_key(path, ln, text)
        if value == "":  # a block sequence follows, more indented, or an empty value
            items = []
            while i < len(lines) and lines[i][0] > ind0 and lines[i][1].startswith("- "):
                items.append(_flow(path, lines[i][2], lines[i][1][2:].strip()))
                i += 1
            out[key] = items if items else None
        else:
            parts = [value]
            while i < len(lines) and lines[i][0] > ind0 and not value.startswith(("[", "{", '"', "'")):
                parts.append(lines[i][1])  # continuation of a plain scalar
                i += 1
            out[key] = _flow(path, ln, " ".join(parts))
        if i >= len(lines) or lines[i][0] != ind0:
            return i
        ind0, text, ln = lines[i]
        i += 1


def _split_key(path, ln, text):
    m = re.match(r"([A-Za-z_][\w\-]*):(?:\s+(.*))?$", text)
    if not m:
        raise ValueError(f"{path}:{ln}: expected 'key: value', got {text!r}")
    return m.group(1), (m.group(2) or "").strip()


def _logical_lines(path):
    """(indent, text, line number) without comments or blank lines; an open [ or { joins the next lines."""
    out, pending = [], None
    with open(path) as f:
        for ln, raw in enumerate(f, 1):
            text = _strip_comment(raw.rstrip("\n"))
            if not text.strip():
                continue
            if pending:
                pending[1] += " " + text.strip()
            else:
                pending = [len(text) - len(text.lstrip(" ")), text.strip(), ln]
            if _depth(pending[1]) == 0:
                out.append(tuple(pending))
                pending = None
    if pending:
        raise ValueError(f"{path}:{pending[2]}: unclosed [ or {{")
    return out


def _strip_comment(s):
    q = None
    for k, c in enumerate(s):
        if q:
            q = None if c == q else q
        elif c in "\"'":
            q = c
        elif c == "#" and (k == 0 or s[k - 1] in " \t"):
            return s[:k].rstrip()
    return s


def _depth(s):
    d, q = 0, None
    for c in s:
        if q:
            q = None if c == q else q
        elif c in "\"'":
            q = c
        elif c in "[{":
            d += 1
        elif c in "]}":
            d -= 1
    return d


def _flow(path, ln, s):
    value, k = _value(path, ln, s, 0, top=True)
    if s[k:].strip():
        raise ValueError(f"{path}:{ln}: unexpected {s[k:].strip()!r}")
    return value


def _value(path, ln, s, k, top=False):
    while k < len(s) and s[k] == " ":
        k += 1
    if k < len(s) and s[k] in "[{":
        close, seq, k = "]" if s[k] == "[" else "}", [] if s[k] == "[" else {}, k + 1
        while True:
            while k < len(s) and s[k] == " ":
                k += 1
            if k < len(s) and s[k] == close:
                return seq, k + 1
            if isinstance(seq, list):
                v, k = _value(path, ln, s, k)
                seq.append(v)
            else:
                m = re.compile(r"\s*([A-Za-z_][\w\-]*):\s").match(s, k)
                if not m:
                    raise ValueError(f"{path}:{ln}: expected 'key: ' in a {{...}} at {s[k:]!r}")
                v, k = _value(path, ln, s, m.end())
                seq[m.group(1)] = v
            while k < len(s) and s[k] == " ":
                k += 1
            if k < len(s) and s[k] == ",":
                k += 1
            elif k >= len(s) or s[k] != close:
                raise ValueError(f"{path}:{ln}: expected ',' or '{close}' at {s[k:]!r}")
    if k < len(s) and s[k] in "\"'":
        end = s.index(s[k], k + 1)
        return s[k + 1:end], end + 1
    m = re.compile(r"[^\]\},]*" if not top else r".*").match(s, k)
    return _scalar(m.group(0).strip()), m.end()


def _scalar(t):
    if t in ("", "~", "null", "Null", "NULL"):
        return None
    if t in ("true", "True", "TRUE"):
        return True
    if t in ("false", "False", "FALSE"):
        return False
    if re.fullmatch(r"[-+]?\d+", t):
        return int(t)
    if re.fullmatch(r"[-+]?(\d+\.\d*|\.\d+|\d+)([eE][-+]?\d+)?", t) and re.search(r"[.eE]", t):
        return float(t)
    return t

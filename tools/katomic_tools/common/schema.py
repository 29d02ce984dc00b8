"""A small schema checker for katomic's JSON documents (no third-party package).

The schemas (tools/schema/*.schema.json) use a subset of JSON Schema, so they
read like the real thing and a newcomer knows the words:

  type                 "object" "array" "string" "integer" "number" "boolean"
                       "null", or a list of them
  properties, required, additionalProperties (false or a schema)
  items, minItems
  enum, const, pattern (a Python regular expression, searched), minimum, maximum
  minLength            strings: 1 unless a schema says otherwise, so that an
                       empty value ("") fails, as the old `"c11_insns": ,` did
  $ref                 "#/$defs/NAME", or "OTHER.schema.json" (another file of tools/schema/)
  anyOf                the first alternative that matches; if none does, the
                       error of the most likely one: not one failing on a
                       const/enum (that is another kind of item), then the
                       one that got furthest, then the first
  description, unit, title, $defs, $schema, $id: documentation, not checked

Numbers must be finite, and a document with NaN/Infinity or a key given
twice is refused when it is read (read_json), before any schema applies.

    python3 -m katomic_tools.common.schema FILE...      validate each file
    python3 -m katomic_tools.common.schema --update-doc docs/json.md   its field tables

A file names its schema in its "schema" field: katomic-codegen ->
tools/schema/codegen.schema.json, and so on.
"""
import json
import math
import os
import re
import sys

SCHEMA_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "schema")

_TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


class SchemaError(Exception):
    """One thing wrong with a document: where (a JSON path) and what."""

    def __init__(self, path, what, mismatch=False):
        super().__init__("%s: %s" % (path or "(top)", what))
        self.path = path
        self.what = what
        self.mismatch = mismatch    # a const/enum value differs: rather another kind (anyOf)


def read_json(path):
    """Parse a JSON file strictly: no NaN/Infinity, no key given twice.

    Raises ValueError with 'FILE: line L: what' for a malformed file."""
    def no_constant(name):
        raise ValueError("%s is not JSON" % name)

    def no_duplicates(pairs):
        seen = {}
        for k, v in pairs:
            if k in seen:
                raise ValueError("key %r given twice" % k)
            seen[k] = v
        return seen

    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise ValueError("%s: %s" % (path, e.strerror)) from None
    except UnicodeDecodeError as e:
        raise ValueError("%s: not UTF-8 (%s)" % (path, e.reason)) from None
    try:
        return json.loads(text, parse_constant=no_constant, object_pairs_hook=no_duplicates)
    except json.JSONDecodeError as e:
        raise ValueError("%s: line %d: %s" % (path, e.lineno, e.msg)) from None
    except ValueError as e:
        raise ValueError("%s: %s" % (path, e)) from None


def load_schema(name):
    """The schema for a document kind ("codegen", "litmus", ...)."""
    return read_json(os.path.join(SCHEMA_DIR, name + ".schema.json"))


def schema_name_of(doc):
    """The kind a document declares: its "schema" field without the katomic- prefix.

    A litmus run written before the runner named its schema is recognised by
    its shape (backend, cc, tests)."""
    if isinstance(doc, dict):
        s = doc.get("schema")
        if isinstance(s, str) and s.startswith("katomic-"):
            return s[len("katomic-"):]
        if s is None and {"backend", "cc", "tests"} <= set(doc):
            return "litmus"
    return None


def _resolve(root, schema):
    ref = schema.get("$ref")
    if ref is None:
        return schema
    if not ref.startswith("#/$defs/"):
        raise SchemaError("", "schema: only #/$defs/NAME references are supported: %s" % ref)
    try:
        return _resolve(root, root["$defs"][ref[len("#/$defs/"):]])
    except KeyError:
        raise SchemaError("", "schema: no definition %s" % ref) from None


def _type_names(t):
    return t if isinstance(t, list) else [t]


def check(value, schema, root=None, path=""):
    """Raise SchemaError for the first way `value` does not fit `schema`."""
    root = schema if root is None else root
    ref = schema.get("$ref", "")
    if ref.endswith(".schema.json"):
        other = load_schema(ref[:-len(".schema.json")])
        return check(value, other, other, path)
    schema = _resolve(root, schema)
    if "anyOf" in schema:
        errors = []
        for alt in schema["anyOf"]:
            try:
                check(value, alt, root, path)
                break
            except SchemaError as e:
                errors.append(e)
        else:
            raise min(enumerate(errors), key=lambda ie: (ie[1].mismatch, -_depth(ie[1].path), ie[0]))[1]
    if "type" in schema:
        names = _type_names(schema["type"])
        if not any(_TYPES[n](value) for n in names):
            raise SchemaError(path, "expected %s, got %s" % (" or ".join(names), _describe(value)))
    if "const" in schema and value != schema["const"]:
        raise SchemaError(path, "expected %s, got %s" % (json.dumps(schema["const"]), _describe(value)), True)
    if "enum" in schema and value not in schema["enum"]:
        raise SchemaError(path, "%s is not one of %s" % (_describe(value), ", ".join(json.dumps(e) for e in schema["enum"])),
                          True)
    if isinstance(value, str):
        if len(value) < schema.get("minLength", 1):
            raise SchemaError(path, "empty string" if not value else "shorter than %d" % schema["minLength"])
        if "pattern" in schema and not re.search(schema["pattern"], value):
            raise SchemaError(path, "%s does not match /%s/" % (_describe(value), schema["pattern"]))
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if isinstance(value, float) and not math.isfinite(value):
            raise SchemaError(path, "not a finite number")
        if "minimum" in schema and value < schema["minimum"]:
            raise SchemaError(path, "%s is below the minimum %s" % (value, schema["minimum"]))
        if "maximum" in schema and value > schema["maximum"]:
            raise SchemaError(path, "%s is above the maximum %s" % (value, schema["maximum"]))
    if isinstance(value, dict):
        props = schema.get("properties", {})
        # the fields that say what kind of object this is (a const or an enum) first
        for k, sub in props.items():
            if k in value and _is_marker(root, sub):
                check(value[k], sub, root, "%s.%s" % (path, k) if path else k)
        for k in schema.get("required", []):
            if k not in value:
                raise SchemaError(path, "missing field %r" % k)
        extra = schema.get("additionalProperties", True)
        for k, v in value.items():
            sub = "%s.%s" % (path, k) if path else k
            if k in props:
                check(v, props[k], root, sub)
            elif extra is False:
                raise SchemaError(path, "unexpected field %r" % k)
            elif isinstance(extra, dict):
                check(v, extra, root, sub)
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0):
            raise SchemaError(path, "%d item(s), at least %d expected" % (len(value), schema["minItems"]))
        if "items" in schema:
            for i, v in enumerate(value):
                check(v, schema["items"], root, "%s[%d]" % (path, i))


def _is_marker(root, sub):
    if sub.get("$ref", "").endswith(".schema.json"):
        return False
    r = _resolve(root, sub)
    return "const" in r or "enum" in r


def _depth(path):
    return path.count(".") + path.count("[") + (1 if path else 0)


def _describe(v):
    s = json.dumps(v)
    return s if len(s) <= 40 else s[:37] + "..."


def validate_file(path, kind=None):
    """Read and check one document; return its kind.  Raises ValueError
    ('FILE: where: what') when it is malformed or does not fit its schema."""
    doc = read_json(path)
    kind = kind or schema_name_of(doc)
    if kind is None:
        raise ValueError("%s: names no katomic schema (a \"schema\" field such as \"katomic-codegen\")" % path)
    try:
        schema = load_schema(kind)
    except ValueError:
        raise ValueError("%s: unknown schema %r (no tools/schema/%s.schema.json)" % (path, kind, kind)) from None
    try:
        check(doc, schema)
    except SchemaError as e:
        raise ValueError("%s: %s" % (path, e)) from None
    return kind


# ------------------------------------------------------------------ docs/json.md
def _type_text(schema, root):
    if schema.get("$ref", "").endswith(".schema.json"):
        return "object: a %s document" % schema["$ref"][:-len(".schema.json")]
    s = _resolve(root, schema)
    if "anyOf" in s:
        return " or ".join(a["$ref"].rsplit("/", 1)[-1] if "$ref" in a else _type_text(a, root) for a in s["anyOf"])
    values = s["enum"] if "enum" in s else [s["const"]] if "const" in s else []
    inferred = list(dict.fromkeys(n for v in values for n in _TYPES if _TYPES[n](v) and n != "number"))
    t = _type_names(s.get("type") or inferred or "any")
    out = []
    for n in t:
        if n == "array" and "items" in s:
            out.append("array of " + _type_text(s["items"], root))
        else:
            out.append(n)
    txt = " or ".join(out)
    if "enum" in s:
        txt += ": " + ", ".join("`%s`" % json.dumps(e) for e in s["enum"])
    if "const" in s:
        txt += " `%s`" % json.dumps(s["const"])
    return txt


def _rows(schema, root, prefix, out, seen):
    if schema.get("$ref", "").endswith(".schema.json"):
        return
    s = _resolve(root, schema)
    if "anyOf" in s:
        for a in s["anyOf"]:     # one block of rows per kind of item: tests[]<run_test>.verdict
            name = a.get("$ref", "").rsplit("/", 1)[-1]
            _rows(a, root, prefix + ("<%s>" % name if name else ""), out, seen)
        return
    if "items" in s and not s.get("properties"):
        _rows(s["items"], root, prefix + "[]", out, seen)
        return
    req = set(s.get("required", []))
    for k, v in s.get("properties", {}).items():
        name = "%s.%s" % (prefix, k) if prefix else k
        if name in seen:
            continue
        seen.add(name)
        r = v if v.get("$ref", "").endswith(".schema.json") else _resolve(root, v)
        desc = v.get("description", r.get("description", ""))
        unit = v.get("unit", r.get("unit", ""))
        out.append("| `%s` | %s | %s | %s | %s |" % (
            name, _type_text(v, root).replace("|", "\\|"), unit or "-", "yes" if k in req else "no",
            desc.replace("|", "\\|")))
        items = r.get("items", {})
        if r.get("properties") or "anyOf" in r or (items and (items.get("anyOf") or _resolve_any(root, items).get("properties"))):
            _rows(r, root, name, out, seen)


def _resolve_any(root, s):
    return {} if s.get("$ref", "").endswith(".schema.json") else _resolve(root, s)


def field_table(kind):
    """The Markdown table of every field of one schema (for docs/json.md)."""
    root = load_schema(kind)
    out = ["| field | type | unit | required | meaning |", "|---|---|---|---|---|"]
    _rows(root, root, "", out, set())
    return "\n".join(out)


DOC_KINDS = ("codegen", "litmus", "bench", "run", "report", "report-merged", "kernel", "verify")


def doc_block(kind):
    """docs/json.md's generated block for one schema (between its markers)."""
    root = load_schema(kind)
    return "### `%s` (tools/schema/%s.schema.json, version %s)\n\n%s" % (
        root.get("title", kind), kind, root.get("properties", {}).get("version", {}).get("const", "-"), field_table(kind))


def update_doc(path):
    """Rewrite the generated blocks of `path` (docs/json.md) from the schemas."""
    text = open(path, encoding="utf-8").read()
    for k in DOC_KINDS:
        begin, end = "<!-- generated: %s -->" % k, "<!-- end: %s -->" % k
        block = "%s\n%s\n%s" % (begin, doc_block(k), end)
        if begin in text and end in text:
            text = text[:text.index(begin)] + block + text[text.index(end) + len(end):]
        else:
            text = text.rstrip("\n") + "\n\n" + block + "\n"
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def main(argv):
    if argv[:1] == ["--update-doc"] and len(argv) == 2:
        update_doc(argv[1])
        return 0
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip().split("\n\n")[-1], file=sys.stderr)
        print("usage: python3 -m katomic_tools.common.schema [--as KIND] FILE... | --update-doc docs/json.md",
              file=sys.stderr)
        return 2
    kind = None
    if argv[0] == "--as":
        kind, argv = argv[1], argv[2:]
    bad = 0
    for path in argv:
        try:
            k = validate_file(path, kind)
            print("ok %s (%s)" % (path, k))
        except ValueError as e:
            print("error: %s" % e, file=sys.stderr)
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

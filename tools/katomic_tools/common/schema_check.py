"""make check-json: the schemas, their documentation, and that the checker
refuses what it must.

  1. every tools/schema/*.schema.json is strict JSON, and every field in it
     has a description (docs/json.md is made from them);
  2. docs/json.md's field tables are what `schema --doc` makes of the schemas;
  3. every document in tests/json/ fits its schema, and
     tests/json/invalid-*.json is refused with its file and line;
  4. mutations of each valid document are refused: every required field
     removed, every string emptied (where the schema wants text), every
     number replaced by a string, a value given as NaN.
Prints TAP-like lines and "N passed, M failed".
"""
import copy
import glob
import json
import os
import sys
import tempfile

from . import schema
from .paths import root
from .tap import Tap


def fields_without_description(s, root_schema, path=""):
    """Paths of properties that have no description (directly or by their $ref)."""
    out = []
    if s.get("$ref", "").endswith(".schema.json"):
        return out
    s = schema._resolve(root_schema, s)
    for alt in s.get("anyOf", []):
        out += fields_without_description(alt, root_schema, path)
    if "items" in s:
        out += fields_without_description(s["items"], root_schema, path + "[]")
    for k, v in s.get("properties", {}).items():
        p = "%s.%s" % (path, k) if path else k
        r = v if v.get("$ref", "").endswith(".schema.json") else schema._resolve(root_schema, v)
        if not (v.get("description") or r.get("description")):
            out.append(p)
        out += fields_without_description(v, root_schema, p)
    return out


def doc_blocks(text):
    """{kind: table text} of docs/json.md's generated blocks."""
    blocks, cur, kind = {}, None, None
    for line in text.splitlines():
        if line.startswith("<!-- generated: "):
            kind, cur = line[len("<!-- generated: "):-len(" -->")], []
        elif line.startswith("<!-- end: ") and cur is not None:
            blocks[kind] = "\n".join(cur).strip()
            cur = None
        elif cur is not None:
            cur.append(line)
    return blocks


def refused(doc, kind):
    try:
        schema.check(doc, schema.load_schema(kind))
        return None
    except schema.SchemaError as e:
        return str(e)


def mutations(doc):
    """(description, mutated document) for the top level and the first item of each array."""
    def walk(obj, path):
        yield obj, path
        if isinstance(obj, dict):
            for k, v in obj.items():
                if isinstance(v, (dict, list)):
                    yield from walk(v, path + [k])
        elif isinstance(obj, list) and obj:
            yield from walk(obj[0], path + [0])

    for obj, path in list(walk(doc, [])):
        if not isinstance(obj, dict):
            continue
        for k, v in obj.items():
            where = ".".join(str(p) for p in path + [k])
            for what, new in (("removed", None), ("emptied", ""), ("a string", "x")):
                if what == "emptied" and not isinstance(v, str):
                    continue
                if what == "a string" and (isinstance(v, str) or v is None):
                    continue
                d = copy.deepcopy(doc)
                target = d
                for p in path:
                    target = target[p]
                if new is None:
                    del target[k]
                else:
                    target[k] = new
                yield "%s %s" % (where, what), d, k, what


def main():
    tap = Tap()
    sdir = schema.SCHEMA_DIR
    for f in sorted(glob.glob(os.path.join(sdir, "*.schema.json"))):
        name = os.path.basename(f)
        try:
            s = schema.read_json(f)
        except ValueError as e:
            tap.check(False, "%s parses: %s" % (name, e))
            continue
        missing = fields_without_description(s, s)
        tap.check(not missing, "%s: every field described%s" % (name, ": missing " + ", ".join(missing[:5]) if missing else ""))
    docs = os.path.join(root(), "docs", "json.md")
    have = doc_blocks(open(docs, encoding="utf-8").read()) if os.path.exists(docs) else {}
    for kind in schema.DOC_KINDS:
        tap.check(have.get(kind) == schema.doc_block(kind).strip(),
                  "docs/json.md: the %s table matches its schema (else: make json-doc)" % kind)
    tdir = os.path.join(root(), "tests", "json")
    for f in sorted(glob.glob(os.path.join(tdir, "*.json"))):
        name = os.path.relpath(f, root())
        try:
            kind = schema.validate_file(f)
            ok, why = not os.path.basename(f).startswith("invalid-"), "fits %s" % kind
        except ValueError as e:
            ok = os.path.basename(f).startswith("invalid-") and str(e).startswith(f + ": line ")
            why = "refused: %s" % e
        tap.check(ok, "%s %s" % (name, why))
        if not ok or os.path.basename(f).startswith("invalid-"):
            continue
        doc = schema.read_json(f)
        props = schema.load_schema(kind)
        n = bad = 0
        for desc, d, key, what in mutations(doc):
            err = refused(d, kind)
            # accepted: an optional field, or a key of a free map (a histogram state's values)
            optional = what == "removed" and err is None and (_optional_somewhere(props, key) or
                                                                not _declared_somewhere(props, key))
            text_may_be_empty = what == "emptied" and err is None and _may_be_empty(props, key)
            n += 1
            if err is None and not optional and not text_may_be_empty:
                bad += 1
                print("# accepted: %s" % desc)
        tap.check(bad == 0, "%s: %d mutations refused (fields removed, emptied, mistyped)" % (name, n - bad))
        nan = os.path.join(tempfile.mkdtemp(), "nan.json")
        with open(nan, "w") as out:
            out.write(json.dumps(doc).replace("{", '{"nan_field": NaN, ', 1))
        try:
            schema.read_json(nan)
            tap.check(False, "%s with a NaN: refused" % name)
        except ValueError as e:
            tap.check("NaN is not JSON" in str(e), "%s with a NaN: refused (%s)" % (name, e))
        dup = json.dumps(doc).replace("{", '{"%s": null, ' % next(iter(doc)), 1)
        with open(nan, "w") as out:
            out.write(dup)
        try:
            schema.read_json(nan)
            tap.check(False, "%s with a key given twice: refused" % name)
        except ValueError as e:
            tap.check("given twice" in str(e), "%s with a key given twice: refused" % name)
    return tap.summary()


def _objects(x):
    """Every object (dict) anywhere in a schema."""
    if isinstance(x, dict):
        yield x
        for v in x.values():
            yield from _objects(v)
    elif isinstance(x, list):
        for v in x:
            yield from _objects(v)


def _declared_somewhere(s, key):
    """Some object of the schema declares a property `key`."""
    return any(key in o.get("properties", {}) for o in _objects(s))


def _optional_somewhere(s, key):
    """Some object of the schema has a property `key` it does not require."""
    return any(key in o.get("properties", {}) and key not in o.get("required", []) for o in _objects(s))


def _may_be_empty(s, key):
    """Some property `key` of the schema allows an empty string (minLength 0)."""
    return any(o.get("properties", {}).get(key, {}).get("minLength") == 0 for o in _objects(s))


if __name__ == "__main__":
    sys.exit(main())

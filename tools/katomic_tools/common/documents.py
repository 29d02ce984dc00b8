"""Write and read katomic's JSON documents, checked against their schema."""
import json
import os

from . import schema


def dumps(doc):
    """The text of a document: two-space indent, keys in insertion order."""
    return json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def write(path, doc):
    """Check `doc` against its schema, then write it (atomically)."""
    kind = schema.schema_name_of(doc)
    try:
        schema.check(doc, schema.load_schema(kind))
    except schema.SchemaError as e:
        raise ValueError("%s: would not fit tools/schema/%s.schema.json: %s" % (path, kind, e)) from None
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(dumps(doc))
    os.replace(tmp, path)


def read(path, kind=None):
    """A document, checked; ValueError 'FILE: where: what' if it is not one."""
    schema.validate_file(path, kind)
    return schema.read_json(path)

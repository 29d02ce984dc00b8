"""Several katomic-kernel documents (one per `katomic kernel` run: x86-64 gcc,
clang, `--arch arm64`, `--arch riscv64`, defconfig ... each with its own
--out) as one, for the report's kernel section.

Every build, boot and audit is kept under its key (architecture, config,
compiler, variant, and -smp for a boot); when two runs hold the same key,
the later run (machine.date) wins for that key only, so no run's results
overwrite another's -- but a build's `up_elision` that a later run did not
measure (an audit with --no-boot) keeps the earlier run's reading.  The
machine is the latest run's, with KVM when any run had it and every run's
load; `c11_kept_asm` is the union of the latest x86 run's list and the
latest --arch run's (the list describes the code of that run: an older
run's entries may be gone)."""
import copy


def _arch(x):
    return x.get("arch", "x86_64")


KEYS = {
    "builds": lambda b: (_arch(b), b["config"], b["cc"], b["variant"]),
    "boots": lambda b: (_arch(b), b["config"], b["cc"], b["variant"], b["smp"]),
    "audit": lambda a: (_arch(a), a["config"], a["cc"], a.get("variant", "c11")),
}


def unique(values):
    out = []
    for v in values:
        if v not in out:
            out.append(v)
    return out


def merge(docs):
    """One katomic-kernel document from `docs` (None when there are none)."""
    docs = [d for d in docs if d]
    if not docs:
        return None
    if len(docs) == 1:
        return docs[0]
    docs = sorted(docs, key=lambda d: d["machine"]["date"])
    out = copy.deepcopy(docs[-1])
    for field, key in KEYS.items():
        merged = {}
        for d in docs:
            for item in d[field]:
                k = key(item)
                old = merged.pop(k, None)   # a later run's item replaces it, at the end
                if field == "builds" and old is not None and not item.get("up_elision", {}).get("measured", True) \
                        and old.get("up_elision", {}).get("measured"):
                    item = dict(item, up_elision=old["up_elision"])
                merged[k] = item
        out[field] = [copy.deepcopy(v) for v in merged.values()]
    latest = {}
    for d in docs:                      # sorted by date: the last of each kind stays
        latest["x86" if all(_arch(b) == "x86_64" for b in d["builds"]) else "arch"] = d
    out["c11_kept_asm"] = copy.deepcopy(unique([x for d in latest.values() for x in d["c11_kept_asm"]]))
    out["machine"]["kvm"] = any(d["machine"]["kvm"] for d in docs)
    out["machine"]["load"] = "; ".join(unique(d["machine"]["load"] for d in docs))
    out["source"]["version"] = ", ".join(unique(d["source"]["version"] for d in docs))
    return out

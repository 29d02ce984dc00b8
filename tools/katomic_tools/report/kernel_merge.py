"""Several katomic-kernel documents (one per `katomic kernel` run: x86-64 gcc,
clang, `--arch arm64`, `--arch riscv64`, defconfig ... each with its own
--out) as one, for the report's kernel section.

Every build, boot and audit is kept under its key (architecture, config,
compiler, variant, and -smp for a boot); when two runs hold the same key,
the later run (machine.date) wins for that key only, so no run's results
overwrite another's.  The machine is the latest run's, with KVM when any
run had it and every run's load; `c11_kept_asm` is the union (the x86
layer's list and the asm-generic one's)."""
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
                merged.pop(k, None)         # a later run's item replaces it, at the end
                merged[k] = item
        out[field] = [copy.deepcopy(v) for v in merged.values()]
    out["c11_kept_asm"] = copy.deepcopy(unique([x for d in docs for x in d["c11_kept_asm"]]))
    out["machine"]["kvm"] = any(d["machine"]["kvm"] for d in docs)
    out["machine"]["load"] = "; ".join(unique(d["machine"]["load"] for d in docs))
    out["source"]["version"] = ", ".join(unique(d["source"]["version"] for d in docs))
    return out

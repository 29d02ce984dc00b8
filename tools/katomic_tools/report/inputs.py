"""Read what a report is rendered from: a run directory's run.json and the
instrument documents it names, each checked against its schema.

A run directory is what `katomic report` writes:
  run.json                the run: machine, mode, each stage's status and notes
  codegen/codegen.json    katomic codegen's document
  litmus/BACKEND-CC.json  one katomic-litmus --json document per run
  bench/bench.json        katomic bench's document
  kernel/kernel.json      optional: katomic kernel's document (report --kernel,
                          or copied in; docs/kernel-boot.md); kernel/ARCH/kernel.json
                          (katomic kernel --arch ARCH) too: merged (kernel_merge.py)
`katomic report --from DIR` renders DIR again, or, when DIR holds no
run.json but subdirectories that do (one per machine: copy each machine's
report directory in), one report showing every machine.  A --from directory that holds only a
kernel.json (a `katomic kernel --out DIR`: DIR/kernel.json, or
DIR/ARCH/kernel.json of --arch) adds its kernel results to the run of the same
machine name (else to the first run); several such directories are merged.
"""
import os
from dataclasses import dataclass, field

from ..common import documents
from .kernel_merge import merge as merge_kernel

ARCH_DIRS = ("x86_64", "arm64", "riscv64")     # katomic kernel --arch ARCH writes OUT/ARCH/kernel.json


@dataclass
class RunInputs:
    dir: str
    run: dict
    codegen: dict = None
    litmus: dict = field(default_factory=dict)     # run index -> document
    bench: dict = None
    kernel: dict = None                             # katomic-kernel document, optional
    verify: dict = None                             # katomic-verify document (verify/verify.json), optional


def _document(base, stage, kind):
    rel = stage.get("document")
    if not rel or stage.get("status") != "ok":
        return None
    return documents.read(os.path.join(base, rel), kind)


def load(run_dir):
    """RunInputs of one run directory; ValueError ('FILE: where: what') if a document is bad."""
    run = documents.read(os.path.join(run_dir, "run.json"), "run")
    st = run["stages"]
    litmus = {}
    for i, r in enumerate(st["litmus"].get("runs", [])):
        if r["status"] == "ok":
            litmus[i] = documents.read(os.path.join(run_dir, r["document"]), "litmus")
    kernel = merge_kernel([documents.read(p, "kernel") for p in kernel_paths(os.path.join(run_dir, "kernel"))])
    vpath = os.path.join(run_dir, "verify", "verify.json")
    verify = documents.read(vpath, "verify") if os.path.isfile(vpath) else None
    spath = os.path.join(run_dir, "verify", "verify-slowpath.json")      # katomic verify --slowpath
    if verify is not None and os.path.isfile(spath):
        verify = dict(verify, slowpath=documents.read(spath, "verify").get("slowpath", []))
    return RunInputs(run_dir, run, _document(run_dir, st["codegen"], "codegen"), litmus,
                     _document(run_dir, st["bench"], "bench"), kernel, verify)


def kernel_paths(d):
    """The kernel.json files of directory d: d/kernel.json and d/ARCH/kernel.json."""
    return [p for p in [os.path.join(d, "kernel.json")] + [os.path.join(d, a, "kernel.json") for a in ARCH_DIRS]
            if os.path.isfile(p)]


def kernel_dir_docs(d):
    """The kernel.json files of a --from directory that holds kernel results only
    (no run.json): those of DIR and of DIR/kernel; [] for a report directory."""
    if os.path.isfile(os.path.join(d, "run.json")):
        return []
    return kernel_paths(d) + kernel_paths(os.path.join(d, "kernel"))


def find_runs(dirs):
    """The run directories under each of `dirs`: the directory itself when it has a
    run.json, else its subdirectories that have one (sorted).  ValueError if none."""
    runs = []
    for d in dirs:
        if kernel_dir_docs(d):
            continue
        if os.path.isfile(os.path.join(d, "run.json")):
            runs.append(d)
            continue
        subs = sorted(os.path.join(d, s) for s in os.listdir(d) if os.path.isfile(os.path.join(d, s, "run.json"))) \
            if os.path.isdir(d) else []
        if not subs:
            raise ValueError("%s: no run.json in it or in its subdirectories (a `katomic report` output directory)" % d)
        runs.extend(subs)
    if not runs:
        raise ValueError("%s: kernel results only: --from also needs a report directory to add them to" % dirs[0])
    return runs


def kernel_docs(dirs):
    """[(path, katomic-kernel document)] of the kernel-only --from directories;
    ValueError ('FILE: where: what') if one is malformed."""
    return [(p, documents.read(p, "kernel")) for d in dirs for p in kernel_dir_docs(d)]

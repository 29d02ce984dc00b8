"""The verifier's compile step: tests -> C units (katomic-litmus --emit-verify),
a kv-head.h per target and mutation, compiled and disassembled, cached by
the hash of everything the compiler reads."""
import hashlib
import re
import os
import shutil
import subprocess
import threading
from dataclasses import dataclass

from . import isa as isas
from . import kernel_layer


@dataclass(frozen=True)
class Target:
    name: str       # what --target takes
    isa: str        # isa.ISAS key, or "" when herd7 has no model for it
    triple: str
    gcc_flags: str
    clang_flags: str
    why_not: str = ""   # a target listed but not judged: the reason


TARGETS = (
    Target("aarch64-lse", "aarch64", "aarch64-linux-gnu", "-march=armv8.1-a", "-march=armv8.1-a"),
    Target("aarch64-llsc", "aarch64", "aarch64-linux-gnu", "-march=armv8-a -mno-outline-atomics",
           "-march=armv8-a -mno-outline-atomics"),
    # -mno-relax: the assembler resolves every branch in the object (with linker relaxation clang
    # leaves them to relocations against anonymous ".L0 " labels, which objdump cannot name)
    Target("riscv64", "riscv64", "riscv64-linux-gnu", "-mno-relax", "-mno-relax"),
    Target("ppc64le", "ppc64le", "powerpc64le-linux-gnu", "", ""),
    Target("x86_64", "x86_64", "x86_64-linux-gnu", "", ""),
    Target("armv7", "", "arm-linux-gnueabihf", "", "", "herd7's ARM model is not translated to (yet)"),
    Target("s390x", "", "s390x-linux-gnu", "", "", "herd7 has no s390x model"),
)
BY_NAME = {t.name: t for t in TARGETS}
DEFAULT_TARGETS = ("aarch64-lse", "aarch64-llsc", "riscv64", "ppc64le", "x86_64")

# Mutations: a deliberately weakened mapping, that the verifier must catch.
# Defined after the layer's headers: their macros expand where the threads use them.
MUTATIONS = {
    "smp_mb=barrier": {"lib": "#undef ka_arch_smp_mb\n#define ka_arch_smp_mb() ka_barrier()",
                       "kernel": "#undef __smp_mb\n#define __smp_mb() barrier()"},
    "wmb=none": {"lib": "#undef ka_arch_smp_wmb\n#define ka_arch_smp_wmb() ka_barrier()",
                 "kernel": "#undef __smp_wmb\n#define __smp_wmb() barrier()"},
    # fully ordered RMWs as a plain SEQ_CST builtin, with no fence of the policy's around them
    "full=seqcst": {"lib": "\n".join(
        ["#undef __ka_%s_%s" % (k, w) for k in ("full", "cas_full") for w in ("pre", "order", "post")] +
        ["#define __ka_%s_pre(size) ((void)0)\n#define __ka_%s_order(size) __ATOMIC_SEQ_CST\n"
         "#define __ka_%s_post(size) ((void)0)" % (k, k, k) for k in ("full", "cas_full")]),
        "kernel": "\n".join(
            ["#undef __ka_c11_%s_FULL" % w for w in ("pre", "ord", "post", "cas_pre", "cas_ord", "cas_post")] +
            ["#define __ka_c11_%spre_FULL __ka_c11_none\n#define __ka_c11_%sord_FULL(size) __ATOMIC_SEQ_CST\n"
             "#define __ka_c11_%spost_FULL __ka_c11_none" % (k, k, k) for k in ("", "cas_")])},
}


def _have(cmd):
    return shutil.which(cmd) is not None


def compiler(target, cc):
    """(argv, label) for compiling for target with cc ("gcc" or "clang[-N]"), or (None, reason)."""
    native = target.name == "x86_64"
    if cc.startswith("gcc"):
        argv0 = cc if native else target.triple + "-" + cc
        if not _have(argv0):
            return None, "%s not installed (apt-get install gcc-%s)" % (argv0, target.triple)
        return [argv0] + target.gcc_flags.split(), cc
    if cc.startswith("clang"):
        if not _have(cc):
            return None, "%s not installed" % cc
        if not native and not os.path.isdir("/usr/%s/include" % target.triple):
            return None, "no /usr/%s (apt-get install libc6-dev-*-cross)" % target.triple
        argv = [cc] + ([] if native else ["--target=" + target.triple]) + target.clang_flags.split()
        return argv, cc
    return None, "compiler '%s' not understood (gcc or clang-N)" % cc


def objdump_for(target):
    for cand in (target.triple + "-objdump", "objdump" if target.name == "x86_64" else None,
                 "llvm-objdump-19"):
        if cand and _have(cand):
            return cand
    return None


def head_text(target, layer, mutation):
    """kv-head.h: the layer's headers, the kernel's types, where observed registers go."""
    isa = isas.ISAS[target.isa]
    lines = ["/* katomic verify: kv-head.h for %s, layer %s, mutation %s */" % (target.name, layer, mutation or "none"),
             "#ifndef KV_HEAD_H", "#define KV_HEAD_H"]
    lines += ["#include <stdint.h>", "#include <stddef.h>"]
    if layer == "lib":
        lines.append("#include <katomic/katomic.h>")
    else:
        lines.append(kernel_layer.header(target.isa))
    if mutation:
        text = MUTATIONS[mutation].get(layer)
        if text is None:
            raise RuntimeError("mutation %s has no form for the %s layer" % (mutation, layer))
        lines.append("/* mutation %s */" % mutation)
        lines.append(text)
    lines += [
        "typedef unsigned char u8; typedef unsigned short u16; typedef unsigned int u32;",
        "typedef unsigned long long u64; typedef signed char s8; typedef short s16;",
        "typedef int s32; typedef long long s64;",
        "/* the kernel's RCU readers, where no grace period is called (tests that call one are not judged) */",
        "#ifndef rcu_read_lock",
        "#define rcu_read_lock() barrier()",
        "#define rcu_read_unlock() barrier()",
        "#endif",
        "#define KV_THREAD __attribute__((__noinline__, __used__))",
        "#define KV_REG(np, k) KV_REG_(np, k)",
        "#define KV_REG_(np, k) KV_REG_##np##_##k",
    ]
    for np in range(9):
        args = set(isa.arg_regs[:np])
        outs = [r for r in out_regs_order(isa) if r not in args]
        for k, r in enumerate(outs):
            lines.append('#define KV_REG_%d_%d "%s"' % (np, k, r))
    return "\n".join(lines) + "\n#endif\n"


def out_regs_order(isa):
    """The registers an observed register may leave in: caller-saved, never an argument's first."""
    return {
        "aarch64": ["x9", "x10", "x11", "x12", "x13", "x14", "x15"],
        "riscv64": ["t0", "t1", "t2", "t3", "t4", "t5", "t6"],
        "ppc64le": ["r10", "r9", "r8", "r7", "r6", "r5", "r4", "r11", "r12"],
        "x86_64": ["r11", "r10", "rax", "r9", "r8", "rcx", "rdx", "rsi"],
    }[isa.name]


def out_regs(isa, nargs, nobs):
    args = set(isa.arg_regs[:nargs])
    return [r for r in out_regs_order(isa) if r not in args][:nobs]


def emit(files, out_dir, litmus_bin):
    """katomic-litmus --emit-verify: C units and tests.json for the given files."""
    os.makedirs(out_dir, exist_ok=True)
    p = subprocess.run([litmus_bin, "--emit-verify", out_dir, "-r"] + list(files), capture_output=True, text=True)
    if p.returncode not in (0, 2):
        raise RuntimeError("katomic-litmus --emit-verify failed: %s" % (p.stderr.strip() or p.stdout.strip()))
    return os.path.join(out_dir, "tests.json"), p.stderr


class Compiler:
    def __init__(self, cache, include_dir, extra_includes=()):
        self.cache = os.path.join(cache, "obj")
        os.makedirs(self.cache, exist_ok=True)
        self.include_dir = include_dir
        self.extra = list(extra_includes)
        self.hits = self.runs = 0
        self._ver = {}
        self._hdr = None

    def _headers_hash(self):
        if self._hdr is None:
            h = hashlib.sha256()
            for base in [self.include_dir] + self.extra:
                for root, _, names in sorted(os.walk(base)):
                    for n in sorted(names):
                        if n.endswith(".h"):
                            with open(os.path.join(root, n), "rb") as f:
                                h.update(n.encode() + f.read())
            self._hdr = h.hexdigest()
        return self._hdr

    def version(self, argv0):
        if argv0 not in self._ver:
            self._ver[argv0] = subprocess.run([argv0, "--version"], capture_output=True, text=True).stdout.split("\n")[0]
        return self._ver[argv0]

    def _key(self, argv, objdump, unit_text, head, extra_includes):
        return hashlib.sha256("\0".join([self.version(argv[0])] + argv + list(extra_includes) +
                                        [objdump, unit_text, head, self._headers_hash()]).encode()).hexdigest()

    def _cmd(self, argv, workdir, extra_includes, src, obj):
        # herd7's C sets an intptr_t from a pointer without a cast (the corpus's `intptr_t r3=x2;`):
        # clang, and gcc from 14, make that an error unless told it is only a warning (-w silences it);
        # the same two flags as the litmus harness's (tools/litmus/compile.c)
        cmd = argv + ["-std=gnu11", "-O2", "-w", "-Wno-error=int-conversion", "-Wno-error=incompatible-pointer-types",
                      "-c", "-fno-stack-protector",
                      "-fno-asynchronous-unwind-tables", "-I", workdir, "-I", self.include_dir]
        return cmd + sum([["-I", e] for e in list(extra_includes) + self.extra], []) + [src, "-o", obj]

    def _store(self, key, text):
        cpath = os.path.join(self.cache, key[:2], key + ".dis")
        os.makedirs(os.path.dirname(cpath), exist_ok=True)
        tmp = "%s.%d.%d.tmp" % (cpath, os.getpid(), threading.get_ident())
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, cpath)

    def prefetch(self, argv, objdump, units, head, workdir, extra_includes=(), chunk=48):
        """Compile the units not in the cache BATCH at a time in one translation unit each (the
        header's parse is most of a compile): each test's functions P<n> renamed kvt<k>_P<n>, the
        disassembly split back per test and cached as if compiled alone.  A batch that does not
        compile is left to disassemble(), test by test, which names the culprit."""
        todo = []
        for text in units:
            key = self._key(argv, objdump, text, head, extra_includes)
            if not os.path.isfile(os.path.join(self.cache, key[:2], key + ".dis")):
                todo.append((key, text))
        for b in range(0, len(todo), chunk):
            batch = todo[b:b + chunk]
            os.makedirs(workdir, exist_ok=True)
            with open(os.path.join(workdir, "kv-head.h"), "w") as f:
                f.write(head)
            src, obj = os.path.join(workdir, "batch.c"), os.path.join(workdir, "batch.o")
            with open(src, "w") as f:
                for k, (_, text) in enumerate(batch):
                    f.write("".join("#define P%d kvt%d_P%d\n" % (n, k, n) for n in range(32)))
                    f.write(text)
                    f.write("".join("#undef P%d\n" % n for n in range(32)))
            if subprocess.run(self._cmd(argv, workdir, extra_includes, src, obj), capture_output=True).returncode:
                continue
            d = subprocess.run([objdump, "-dr", "--no-show-raw-insn", obj], capture_output=True, text=True)
            if d.returncode:
                continue
            per = _split_batch(d.stdout)
            self.runs += 1
            for k, (key, _) in enumerate(batch):
                self._store(key, per.get(k, ""))

    def disassemble(self, argv, objdump, unit_text, head, workdir, extra_includes=()):
        """objdump -dr text of the unit compiled with argv at -O2, or raises RuntimeError(message)."""
        key = self._key(argv, objdump, unit_text, head, extra_includes)
        cpath = os.path.join(self.cache, key[:2], key + ".dis")
        if os.path.isfile(cpath):
            self.hits += 1
            with open(cpath) as f:
                return f.read()
        self.runs += 1
        os.makedirs(workdir, exist_ok=True)
        src, obj = os.path.join(workdir, "unit.c"), os.path.join(workdir, "unit.o")
        with open(os.path.join(workdir, "kv-head.h"), "w") as f:
            f.write(head)
        with open(src, "w") as f:
            f.write(unit_text)
        p = subprocess.run(self._cmd(argv, workdir, extra_includes, src, obj), capture_output=True, text=True)
        if p.returncode:
            msg = [ln for ln in p.stderr.splitlines() if "error" in ln] or p.stderr.splitlines() or ["failed"]
            raise RuntimeError("does not compile: %s" % msg[0][:240])
        d = subprocess.run([objdump, "-dr", "--no-show-raw-insn", obj], capture_output=True, text=True)
        if d.returncode:
            raise RuntimeError("%s failed: %s" % (objdump, d.stderr.strip()[:200]))
        self._store(key, d.stdout)
        return d.stdout


_BATCH_FUNC = re.compile(r"^([0-9a-f]+) <kvt(\d+)_(P\d+)>:$")


def _split_batch(text):
    """{test index: objdump text of its functions, named P<n> again} from a batch's objdump."""
    out, cur = {}, None
    for line in text.splitlines():
        m = _BATCH_FUNC.match(line)
        if m:
            cur = int(m.group(2))
            out.setdefault(cur, []).append("%s <%s>:" % (m.group(1), m.group(3)))
            continue
        if re.match(r"^[0-9a-f]+ <", line) and not re.match(r"^[0-9a-f]+ <\.L", line):
            cur = None                  # another function (a helper of the headers)
            continue
        if line.startswith("Disassembly of section"):
            cur = None
            continue
        if cur is not None:
            out[cur].append(re.sub(r"<kvt\d+_(P\d+)", r"<\1", line))
    return {k: "\n".join(v) + "\n" for k, v in out.items()}

#!/usr/bin/env python3
"""katomic verify's translator on hand-written listings: what it must keep
(every fence, every dependency, every exit), what it must refuse (calls,
stack use it cannot follow), and, with herd7, that the pipeline can fail: the
same SB compiled with and without its fence must be judged differently.
Prints TAP; herd7's part is skipped with a note where herd7 is missing."""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))

from katomic_tools.common.tap import Tap  # noqa: E402
from katomic_tools.common import herd  # noqa: E402
from katomic_tools.verify import firstlock, isa as isas, lean, listing, normal, translate  # noqa: E402

tap = Tap()
ok = tap.check


def objdump(funcs):
    """A fake objdump -dr text: {name: [(addr, text) or (addr, text, reloc symbol[, reloc type])]}."""
    out = []
    for name, insns in funcs.items():
        out.append("%016x <%s>:" % (insns[0][0], name))
        for ins in insns:
            out.append(" %x:\t%s" % (ins[0], ins[1]))
            if len(ins) > 2:
                out.append("\t\t\t%x: %s\t%s" % (ins[0], ins[3] if len(ins) > 3 else "R_AARCH64_CALL26", ins[2]))
        out.append("")
    return "\n".join(out) + "\n"


SB = {"name": "SB", "quant": "exists", "cond": "(%0:0%=0 /\\ %1:0%=0)", "filter": None,
      "vars": [{"name": "x", "init": 0}, {"name": "y", "init": 0}],
      "threads": [{"id": 0, "args": ["x", "y"], "observed": ["r0"]}, {"id": 1, "args": ["y", "x"], "observed": ["r0"]}],
      "observed": [["0:r0", "%0:0%"], ["1:r0", "%1:0%"]]}

A64 = isas.ISAS["aarch64"]


def sb_listing(fence):
    body = [(0x0, "mov\tw2, #0x1                   \t// #1"), (0x4, "str\tw2, [x0]")]
    if fence:
        body.append((0x8, "dmb\tish"))
    body += [(0xc, "ldr\tw9, [x1]"), (0x10, "ret")]
    p1 = [(a + 0x40, t) for a, t in body]
    return listing.parse(objdump({"P0": body, "P1": p1}))


def a64_litmus(funcs, test=SB):
    regs = {t["id"]: ["x9"] * len(t["observed"]) for t in test["threads"]}
    return translate.litmus(A64, test, funcs, regs)


# ---- the listing reader
f = sb_listing(True)
ok(sorted(f) == ["P0", "P1"] and [i.mnem for i in f["P0"]] == ["mov", "str", "dmb", "ldr", "ret"],
   "objdump text read into each function's instructions")
ok(f["P0"][0].ops == ["w2", "#0x1"], "operands split, objdump's comment dropped")

# ---- what must be kept
text, notes, keymap = a64_litmus(sb_listing(True))
ok("DMB ISH" in text.upper(), "a fence is translated, not dropped")
ok("0:X0=x" in text and "0:X1=y" in text and "1:X0=y" in text, "arguments: the shared variables' addresses in x0, x1")
ok(keymap == {"0:X9": "0:r0", "1:X9": "1:r0"}, "observed registers map back to the source's names")
ok("exists (0:X9=0 /\\ 1:X9=0)" in text, "the final condition names the machine registers")
text_nf, _, _ = a64_litmus(sb_listing(False))
ok("DMB" not in text_nf, "no fence in, no fence out")

# an address dependency: ldr x1,[x0]; ldr w9,[x1] keeps its register chain
dep = {"P0": [(0, "ldr\tx2, [x1]"), (4, "ldr\tw9, [x2]"), (8, "ret")]}
t1 = {"name": "dep", "quant": "exists", "cond": "(%0:0%=0)", "filter": None, "vars": [{"name": "x", "init": 0},
      {"name": "p", "init": "x"}], "threads": [{"id": 0, "args": ["x", "p"], "observed": ["r0"]}],
      "observed": [["0:r0", "%0:0%"]]}
text, _, _ = a64_litmus(listing.parse(objdump(dep)), t1)
ok("LDR X2,[X1]" in text and "LDR W9,[X2]" in text, "an address dependency's registers are kept as compiled")

# a retry loop (LL/SC) becomes one pass and a filtered failure exit; its exit stays
llsc = {"P0": [(0, "ldxr\tw3, [x0]"), (4, "add\tw4, w3, #0x1"), (8, "stlxr\tw5, w4, [x0]"),
               (0xc, "cbnz\tw5, 0 <P0>"), (0x10, "dmb\tish"), (0x14, "ldr\tw9, [x1]"), (0x18, "ret")]}
t2 = dict(SB, threads=[SB["threads"][0]], observed=[SB["observed"][0]], cond="(%0:0%=0)")
text, notes, _ = a64_litmus(listing.parse(objdump(llsc)), t2)
ok("CBNZ W5,Lfail0" in text and "Lfail0:" in text, "a retry loop's back edge goes to the failure exit")
ok("filter (0:X28=0)" in text and "MOV X28,#1" in text, "the failure exit sets a marker the filter drops")
ok("DMB ISH" in text.upper(), "the fence after a retry loop stays")
ok(any("first pass" in x for x in notes), "the assumption is said in the notes")

# a loop that stores keeps its back edge (herd7 unrolls it)
store_loop = {"P0": [(0, "str\twzr, [x0]"), (4, "ldr\tw9, [x1]"), (8, "cbz\tw9, 0 <P0>"), (0xc, "ret")]}
text, notes, _ = a64_litmus(listing.parse(objdump(store_loop)), t2)
ok("CBZ W9,L0_0" in text and "L0_0:" in text and "Lfail0" not in text, "a loop that stores keeps its back edge")

# calls: a lock's slow path is the fast path failing; any other call is refused
lock = {"P0": [(0, "mov\tw1, #0x0"), (4, "mov\tw2, #0x1"), (8, "casah\tw1, w2, [x0]"), (0xc, "cbnz\tw1, 18 <P0+0x18>"),
               (0x10, "stlrb\twzr, [x0]"), (0x14, "ret"), (0x18, "bl\t0 <__ka_spin_lock_slowpath>",
                                                             "__ka_spin_lock_slowpath"), (0x1c, "ret")]}
t3 = dict(t2, cond="(%0:0%=0)")
text, notes, _ = a64_litmus(listing.parse(objdump(lock)), t3)
ok("B Lfail0" in text and any("slow path" in x for x in notes), "a lock's slow path call: the fast path retried")
other = {"P0": [(0, "bl\t0 <printf>", "printf"), (4, "ret")]}
try:
    a64_litmus(listing.parse(objdump(other)), t3)
    ok(False, "an out-of-line call is refused")
except isas.NotTaken as e:
    ok("printf" in str(e), "an out-of-line call is refused with its name")

# the stack: spills become register moves, the frame record disappears
spill = {"P0": [(0, "stp\tx29, x30, [sp, #-32]!"), (4, "mov\tx29, sp"), (8, "str\tw9, [sp, #28]"),
                (0xc, "ldr\tw9, [sp, #28]"), (0x10, "ldp\tx29, x30, [sp], #32"), (0x14, "ret")]}
text, _, _ = a64_litmus(listing.parse(objdump(spill)), t3)
prog = text.split("\n")[3:10]
ok(any("MOV W" in ln and ",W9" in ln for ln in prog) and any(ln.strip().startswith("MOV W9,W") for ln in prog)
   and "[SP" not in text, "a spill and its reload are register moves")
frame = {"P0": [(0, "add\tx2, x29, #0x10"), (4, "ldr\tw9, [x29, #16]"), (8, "ret")]}
try:
    a64_litmus(listing.parse(objdump(frame)), t3)
    ok(False, "a stack access it cannot follow is refused")
except isas.NotTaken:
    ok(True, "a stack access it cannot follow is refused")

# clang-19's kernel-layer lock on x86-64: every register is named, most of them only by the moves around the
# slow-path call (which goes to FAIL) and the reloads after it (which nothing reaches); the translator
# runs out of spare registers, then leaves that code out and takes its registers
X = isas.ISAS["x86_64"]
SLOW = "queued_spin_lock_slowpath-0x4"
xcl = [(0x0, "push   %rbp"), (0x1, "push   %r15"), (0x3, "push   %r14"), (0x5, "push   %r13"), (0x7, "push   %r12"),
       (0x9, "push   %rbx"), (0xa, "push   %rax"), (0xb, "mov    $0x1,%ebx"), (0x10, "xor    %eax,%eax"),
       (0x12, "lock cmpxchg %ebx,(%r8)"), (0x17, "jne    40 <P0+0x40>"), (0x19, "movl   $0x1,(%rcx)"),
       (0x1f, "mov    (%rdi),%r10d"), (0x22, "mov    (%rsi),%r11d"), (0x25, "movb   $0x0,(%r8)"),
       (0x29, "add    $0x8,%rsp"), (0x2d, "pop    %rbx"), (0x2e, "pop    %r12"), (0x30, "pop    %r13"),
       (0x32, "pop    %r14"), (0x34, "pop    %r15"), (0x36, "pop    %rbp"), (0x37, "ret"),
       (0x40, "mov    %rdi,%r14"), (0x43, "mov    %r8,%rdi"), (0x46, "mov    %rsi,%r15"), (0x49, "mov    %eax,%esi"),
       (0x4b, "mov    %rdx,%r12"), (0x4e, "mov    %r9,%rbp"), (0x51, "mov    %rcx,%r13"),
       (0x54, "call   59 <P0+0x59>", SLOW, "R_X86_64_PLT32"), (0x59, "mov    %r13,%rcx"), (0x5c, "mov    %r15,%rsi"),
       (0x5f, "mov    %rbp,%r9"), (0x62, "mov    %r14,%rdi"), (0x65, "mov    %r12,%rdx"), (0x68, "jmp    19 <P0+0x19>")]
xf = listing.parse(objdump({"P0": xcl}))["P0"]
XARGS = ("rdi", "rsi", "rdx", "rcx", "r8", "r9")
notes = set()
lines, marker = translate.thread(X, xf, notes, 0, reserved=XARGS + ("r10", "r11"), args=XARGS, lock_swap="swap")
body = lines[:lines.index("Lfail0:")]
ok(marker in ("r15", "r14", "r13", "r12", "rbp") and not any(re.search(r"%r1[2-5]|%rbp", ln) for ln in body if "$1" not in ln)
   and "lock cmpxchg" not in " ".join(lines) and any("left out" in n for n in notes),
   "x86: out of spare registers, the slow path's moves and reloads left out, their registers spare (%s, %s)" % (marker, body))
ok(any(ln.startswith("xchg") for ln in lines) and "jmp Lfail0" in lines,
   "x86: the pruned thread still swaps its lock site and goes to FAIL where the slow path was called")
try:
    translate.thread(X, listing.parse(objdump({"P0": xcl[:23] + [(0x40, "mov    %rdi,%r14"), (0x43, "mov    %r14,(%rcx)")] +
                                              xcl[24:]}))["P0"], set(), 0, reserved=XARGS + ("r10", "r11"), args=XARGS,
                     lock_swap="swap")
    ok(True, "x86: a store before the slow-path call is left out with it (every way from it goes to FAIL)")
except isas.NotTaken as e:
    ok(False, "x86: a store before the slow-path call is left out with it: %s" % e)
loop = [(0x0, "mov    $0x1,%eax"), (0x5, "test   %eax,%eax"), (0x7, "jne    5 <P0+0x5>"), (0x9, "ret")]
ok(translate._pruned(X, listing.parse(objdump({"P0": loop}))["P0"], {}) == (set(), set()),
   "pruned: a loop that never leaves is not code that goes to FAIL")

# other ISAs: branch syntax and the register names herd7 reads
rv = isas.ISAS["riscv64"]
i = listing.parse(objdump({"P0": [(0, "bnez\tt0,8 <P0+0x8>"), (4, "amoadd.w.aqrl\ta5,a4,(a0)"), (8, "ret")]}))["P0"]
ok(rv.render(i[0], lambda a: "L")[0] == "bne x5,zero,L", "riscv: bnez becomes bne with zero, t0 is x5")
ok(rv.render(i[1], lambda a: "L")[0] == "amoadd.w.aq.rl x15,x14,(x10)", "riscv: .aqrl is herd7's .aq.rl")
i = listing.parse(objdump({"P0": [(0, "lr.w\ta1,(s0)"), (4, "sd\ta1,8(sp)"), (8, "ret")]}))["P0"]
ok(rv.stack(i[0], translate.Slots(rv, set())) is None, "riscv: an access through s0 is memory, not the stack (no frame pointer at -O2)")
ok(rv.stack(i[1], translate.Slots(rv, set())) not in (None, []), "riscv: an access through sp is a stack slot")
x86 = isas.ISAS["x86_64"]
i = listing.parse(objdump({"P0": [(0, "lock orl $0x0,-0x4(%rsp)"), (7, "lock cmpxchg %edx,(%rdi)"), (0xb, "ret")]}))["P0"]
ok(x86.stack(i[0], translate.Slots(x86, set())) == ["mfence"], "x86: a locked RMW of the stack is a full fence")
ok(x86.render(i[1], lambda a: "L")[0] == "lock; cmpxchg (%rdi),%edx", "x86: cmpxchg in herd7's operand order")
# x86 setCC: a branch writing 0/1 to the whole register, only where its other bits are known to be zero
i = x86.prepare(listing.parse(objdump({"P0": [(0, "cmp    $0x0,%eax"), (3, "setne  %al"), (6, "movzbl %al,%eax"),
                                              (9, "ret")]}))["P0"])
lines = x86.render(i[1], lambda a: "L0_%x" % a)
ok(lines[0] == "jne L0_3s" and "movq $0,%rax" in lines and "movq $1,%rax" in lines and
   lines.index("L0_3s:") < lines.index("movq $1,%rax") and x86.render(i[2], lambda a: "L")[0] == "movq %rax,%rax",
   "x86: setne + movzbl become a branch to 1 or 0 in rax (the condition kept): %s" % lines)
i = x86.prepare(listing.parse(objdump({"P0": [(0, "xor    %r10d,%r10d"), (3, "mov    (%rdi),%eax"),
                                              (5, "test   %eax,%eax"), (7, "sete   %r10b"), (0xb, "ret")]}))["P0"])
ok(x86.render(i[3], lambda a: "L0_%x" % a)[0] == "je L0_7s", "x86: sete after xor of its register (a test between)")
try:
    x86.prepare(listing.parse(objdump({"P0": [(0, "mov    (%rdi),%eax"), (2, "cmp    $0x1,%eax"),
                                           (5, "sete   %al"), (8, "ret")]}))["P0"])
    ok(False, "x86: a setCC over a register with live upper bits is refused")
except isas.NotTaken as e:
    ok("not known to be zero" in str(e), "x86: a setCC over a register with live upper bits is refused: %s" % e)
ppc = isas.ISAS["ppc64le"]
i = listing.parse(objdump({"P0": [(0, "lwarx   r9,0,r3"), (4, "bne-    0 <P0>"), (8, "blr")]}))["P0"]
ok(ppc.render(i[0], lambda a: "L")[0] == "lwarx r9,r0,r3", "ppc: RA=0 is written r0 (herd7 reads it as 0)")
i = listing.parse(objdump({"P0": [(0, "ld      r10,0(r3)"), (4, "cmpdi   r10,1"), (8, "cmpd    cr7,r10,r9"),
                                  (0xc, "beq     cr7,14 <P0+0x14>"), (0x10, "blr"), (0x14, "blr")]}))["P0"]
i = ppc.prepare(i)
ok([ppc.render(j, lambda a: "L")[0] for j in i[1:4]] == ["cmpwi r10,1", "cmpw r10,r9", "beq L"],
   "ppc: cmpdi/cmpd become herd7's cmpwi/cmpw (a whole-register compare there), cr7 moved to cr0")
def ppc_cmps(branch):
    i = listing.parse(objdump({"P0": [(0, "ld      r10,0(r3)"), (4, "cmpldi  cr7,r10,1"), (8, branch + "     cr7,10 <P0+0x10>"),
                                      (0xc, "blr"), (0x10, "blr")]}))["P0"]
    return [ppc.render(j, lambda a: "L")[0] for j in ppc.prepare(i)[1:3]]


ok(ppc_cmps("bne") == ["cmpwi r10,1", "bne L"], "ppc: an unsigned compare read only by beq/bne is the signed one")
ok(ppc_cmps("blt") == ["cmpldi r10,1", "blt L"], "ppc: an unsigned compare read by blt stays unsigned (herd7 refuses it)")

# riscv: clang leaves a branch to a local label to the linker (offset 0 in the object, objdump shows the
# branch itself as its target): the relocation must give the target, or a forward branch reads as a loop
rvtext = ("0000000000000000 <P0>:\n 0:\tlw\ta4,0(a0)\n 4:\tbne\ta4,a0,0x4 <P0+0x4>\n"
          "\t\t\t4: R_RISCV_BRANCH\t.LBB0_2\n 8:\tsw\ta0,0(a1)\n\n000000000000000c <.LBB0_2>:\n c:\tret\n\n")
i = listing.parse(rvtext)["P0"]
ok(rv.branch(i[1])[0] == 0xc, "riscv: a branch's target from its relocation to a local label")
t4 = dict(t2, threads=[{"id": 0, "args": ["x", "y"], "observed": []}], observed=[], cond="(x=0)")
text, _, _ = translate.litmus(rv, t4, listing.parse(rvtext), {0: []})
ok("bne x14,x10,L0_c" in text and "Lfail" not in text, "riscv: that forward branch stays a forward branch")

# x86-64: lock xadd (herd7 has none) as a lock cmpxchg retry from a load; sub $imm as add of -imm
X86T = dict(t2, threads=[{"id": 0, "args": ["x", "y"], "observed": ["r0"]}])


def x86_litmus(text, test=X86T):
    return translate.litmus(x86, test, listing.parse(text), {0: ["r11"] * len(test["threads"][0]["observed"])})


def x86_fn(*insns, name="P0", base=0):
    return "%016x <%s>:\n" % (base, name) + "".join(" %x:\t%s\n" % (base + 4 * k, t) for k, t in enumerate(insns)) + "\n"


text, notes, _ = x86_litmus(x86_fn("mov    $0x1,%edx", "lock xadd %edx,(%rdi)", "mov    %edx,%r11d", "ret"))
prog = [ln.split("|")[0].strip(" ;") for ln in text.split("\n")]
k = prog.index("lock; cmpxchgl (%rdi),%r14d")
ok(prog[k - 3:k + 4] == ["movl %edx,%r14d", "movl (%rdi),%eax", "addl %eax,%r14d",
                         "lock; cmpxchgl (%rdi),%r14d", "jne Lfail0", "movl %eax,%edx", "mov %edx,%r11d"],
   "x86: lock xadd is a load, the sum, a locked cmpxchg (its failure to the failure exit), the old value "
   "(%%rax's save and restore dropped: nothing reads it after): %s" % prog)
xi = listing.parse(x86_fn("mov    $0x1,%edx", "lock xadd %edx,(%rdi)", "mov    %edx,%r11d", "ret"))["P0"]
xs = iter(["r14", "r13"])
ok(x86.expand(xi[1], xi, lambda: next(xs), "Lfail0", set()) ==
   ["movl %edx,%r14d", "movq %rax,%r13", "movl (%rdi),%eax", "addl %eax,%r14d", "lock; cmpxchgl (%rdi),%r14d",
    "jne Lfail0", "movl %eax,%edx", "movq %r13,%rax"], "x86: the xadd's expansion saves and restores %rax")
ok("filter (0:r15=0)" in text and any("xadd" in n for n in notes), "x86: the xadd's retry is filtered and said in the notes")
for bad, why in ((("xor    %r11d,%r11d", "lock xadd %eax,(%rdi)", "sete   %r11b", "ret"), "flags"),
                 (("lock xadd %edx,(%rax)", "ret"), "rax")):
    try:
        x86_litmus(x86_fn(*bad))
        ok(False, "x86: an xadd whose %s the cmpxchg form changes is refused" % why)
    except isas.NotTaken as e:
        ok(why in str(e), "x86: an xadd whose %s the cmpxchg form changes is refused: %s" % (why, e))
text, _, _ = x86_litmus(x86_fn("lock subl $0x1,(%rdi)", "sub    $0xffffffff,%eax", "ret"))
ok("lock; addl $-1,(%rdi)" in text and "add $1,%eax" in text, "x86: sub $imm is add of -imm, its lock kept")
text, _, _ = x86_litmus(x86_fn("cmp    $0x1,%eax", "jl     c <P0+0xc>", "movl   $0x1,(%rsi)", "ret"))
ok("jge L0_c_n4" in text and "jmp L0_c" in text and "L0_c_n4:" in text and "jlt" not in text,
   "x86: jl is 'not jge' (herd7's own jlt means <=)")

# riscv64: gcc's masked sub-word LR/SC (a byte xchg of x, then a fence and a load of y)
RVXB = ["and\ta3,a0,3", "sll\ta3,a3,0x3", "li\ta2,255", "li\ta5,1", "sllw\ta2,a2,a3", "sllw\ta5,a5,a3",
        "and\ta5,a5,a2", "not\ta7,a2", "and\ta0,a0,-4", "sext.w\ta7,a7", "lr.w\ta4,(a0)", "and\ta6,a4,a7",
        "or\ta6,a6,a5", "sc.w\ta6,a6,(a0)", "bnez\ta6,28 <P0+0x28>", "FENCE", "and\tt0,a4,a2",
        "srlw\tt0,t0,a3", "lw\tt1,0(a1)", "ret"]


def rv_xb(fence, base=0, name="P0", loadreg="a1"):
    ins = [("fence" if t == "FENCE" else t) for t in RVXB if fence or t != "FENCE"]
    ins = [t.replace("28 <P0+0x28>", "%x <%s+0x%x>" % (base + 40, name, 40)) for t in ins]
    ins = [t.replace("lw\tt1,0(a1)", "lw\tt1,0(%s)" % loadreg) for t in ins]
    return "%016x <%s>:\n" % (base, name) + "".join(" %x:\t%s\n" % (base + 4 * k, t) for k, t in enumerate(ins)) + "\n"


RVSB = {"name": "SB", "quant": "exists", "cond": "(%0:1%=0 /\\ %1:1%=0)", "filter": None,
        "vars": [{"name": "x", "init": 0}, {"name": "y", "init": 0}],
        "threads": [{"id": 0, "args": ["x", "y"], "observed": ["r0", "r1"]},
                    {"id": 1, "args": ["y", "x"], "observed": ["r0", "r1"]}],
        "observed": [["0:r0", "%0:0%"], ["0:r1", "%0:1%"], ["1:r0", "%1:0%"], ["1:r1", "%1:1%"]]}


def rv_sb(fence, lean=False):
    """The translation before lean (whose folding would hide the shapes these tests look at)."""
    funcs = listing.parse(rv_xb(fence) + rv_xb(fence, 0x100, "P1"))
    translate.LEAN = lean
    try:
        return translate.litmus(rv, RVSB, funcs, {0: ["t0", "t1"], 1: ["t0", "t1"]})
    finally:
        translate.LEAN = True


text, notes, _ = rv_sb(True)
p0 = [ln.split("|")[0].strip(" ;") for ln in text.split("\n")]
ok("mv x10,x10" in p0 and "li x13,0" in p0 and "andi" not in " ".join(p0[:6]),
   "riscv: the sub-word's aligned word and offset of an argument's address: mv and li 0: %s" % p0)
ok("sext.w x5,x5" in p0 and "srlw" not in text and "slli x13,x13,3" in p0 and "xori x17,x12,-1" in p0,
   "riscv: srlw by that 0 offset is sext.w; sll/not are herd7's slli/xori")
ok("fence" in p0 and "bne x16,zero,Lfail0" in p0 and any("offset 0" in n for n in notes),
   "riscv: the fence after the masked LR/SC stays, its retry goes to the failure exit, the assumption is said")
lp0 = [ln.split("|")[0].strip(" ;") for ln in rv_sb(True, lean=True)[0].split("\n")]
mem = re.compile(r"^(lr|sc|lw|sw|fence|bne|and x\d+,x14,)")
ok([ln for ln in lp0 if mem.match(ln)] == [ln for ln in p0 if mem.match(ln)] and len(lp0) < len(p0),
   "riscv lean: the same memory accesses, fence, branches and masking of the loaded word, fewer lines: %s" % lp0)
# the and-rewrite only on an argument's address as it arrived; a loaded pointer keeps its and (herd7 refuses)
i = rv.prepare(listing.parse(x86_fn("ld\ta5,0(a0)", "and\ta4,a5,3", "and\ta3,a0,3", "ret"))["P0"], ["a0"])
ok([j.mnem for j in i[1:3]] == ["and", "li"], "riscv: only an argument's address is taken as aligned")
i = rv.prepare(listing.parse(x86_fn("and\ta3,a0,3", "beqz\ta0,c <P0+0xc>", "li\ta3,8", "srlw\ta4,a4,a3",
                                    "ret"))["P0"], ["a0"])
ok(i[3].mnem == "srlw", "riscv: an offset written again after a branch target is not taken as 0")
# after a branch target: the argument copied before any branch holds on every path (the second
# lock of spin_unlock(); spin_lock()), unless one path into the target overwrites it
after = ("mv\ts0,a0", "bnez\ta1,10 <P0+0x10>", "nop", "nop", "and\ta2,s0,3", "slli\ta2,a2,3",
         "srlw\ta4,a4,a2", "mv\ts0,a5", "ret")
i = rv.prepare(listing.parse(x86_fn(*after))["P0"], ["a0"])
ok([j.mnem for j in i[4:7]] == ["li", "slli", "sext.w"],
   "riscv: past a branch target, an offset of the argument held on every path is 0 (srlw by it is sext.w): %s"
   % [j.text for j in i[4:7]])
i = rv.prepare(listing.parse(x86_fn(*(after[:2] + ("li\ts0,8",) + after[3:])))["P0"], ["a0"])
ok([j.mnem for j in i[4:7]] == ["and", "slli", "srlw"],
   "riscv: ... not where one path into the target overwrites the address register: %s" % [j.text for j in i[4:7]])
i = listing.parse(x86_fn("seqz\tt0,a5", "snez\tt1,a5", "ret"))["P0"]
ex = rv.expand(i[0], i, lambda: "s11", "Lfail0", set())
ok(ex == ["sub x27,zero,x15", "or x27,x27,x15", "slt x5,x27,zero", "xori x5,x5,1"],
   "riscv: seqz from (0-rs)|rs's sign, no branch (no control dependency added): %s" % ex)

# ppc: spin_is_locked's `cntlzw d,s` ... `srwi d,d,5` (s == 0) has no herd7 form: fused into one
# branch-free iszero where the srwi is d's next use; srwi/slwi are herd7's rlwinm
def ppc_iszero(*mid):
    return ppc.prepare(listing.parse(x86_fn("lwz\tr9,0(r3)", "lwz\tr8,0(r3)", "cntlzw\tr9,r9", *mid, "blr"))["P0"])
i = ppc_iszero("cntlzw\tr8,r8", "srwi\tr9,r9,5", "srwi\tr8,r8,5")
ok([j.mnem for j in i[2:6]] == ["kv.iszero", "kv.iszero", "nop", "nop"],
   "ppc: interleaved cntlzw/srwi 5 pairs fused: %s" % [j.mnem for j in i])
spares = iter(("r31", "r30"))
ex = ppc.expand(i[2], i, lambda: next(spares), "Lfail0", set())
ok(ex == ["li r31,0", "sub r31,r31,r9", "or r31,r31,r9", "lis r30,-32768", "and r31,r31,r30",
          "divw r31,r31,r30", "xori r9,r31,1"],
   "ppc: iszero from (0-s)|s's sign, no branch (no control dependency added), no compare: %s" % ex)
i = ppc_iszero("srwi\tr9,r9,4")
ok(i[2].mnem == "cntlzw", "ppc: cntlzw with another shift is left alone (herd7 refuses it)")
i = ppc_iszero("mr\tr7,r9", "srwi\tr9,r9,5")
ok(i[2].mnem == "cntlzw", "ppc: cntlzw whose count is read elsewhere is left alone")
i = ppc_iszero("bne\t18 <P0+0x18>", "srwi\tr9,r9,5")
ok(i[2].mnem == "cntlzw", "ppc: cntlzw and srwi across a branch are left alone")
ok([ppc.render(j, lambda a: "L")[0] for j in listing.parse(x86_fn("ldarx\tr9,0,r3", "stdcx.\tr10,0,r3"))["P0"]]
   == ["lwarx r9,r0,r3", "stwcx. r10,r0,r3"], "ppc: ldarx/stdcx. as herd7's lwarx/stwcx. (one value per location)")
# clang: a cr0 compare inside the acquire's cmpd cr7; bne- cr7,next; isync moves after the branch
# (which then goes to it): every path runs it before the beq reads cr0
lines, _ = translate.thread(ppc, listing.parse(x86_fn(
    "ld\tr10,0(r4)", "cmpd\tcr7,r10,r10", "cmpldi\tr10,0", "bne-\tcr7,10 <P0+0x10>", "isync",
    "beq\t1c <P0+0x1c>", "std\tr3,0(r5)", "blr"))["P0"], set(), 0, {"r3", "r4", "r5"})
ok(lines[:7] == ["ld r10,0(r4)", "cmpw r10,r10", "bne L0_d", "L0_d:", "cmpwi r10,0", "isync", "beq L0_1c"],
   "ppc: a cr0 compare between cmpd cr7 and its bne- to the next instruction moves after it: %s" % lines)
def ppc_sunk(*mid):
    return [(j.mnem, j.ops) for j in ppc.prepare(listing.parse(x86_fn(
        "ld\tr10,0(r4)", "cmpd\tcr7,r10,r10", *mid, "bne-\tcr7,%x <P0+0x>" % (4 * (3 + len(mid))), "isync",
        "beq\t40 <P0+0x40>", "blr"))["P0"])]
for mid, why in ((("cmpldi\tr10,0", "li\tr10,1"), "its register written after it"),
                 (("cmpldi\tr10,0", "isel\tr9,r9,r8,2"), "cr0 read by an isel after it"),
                 (("cmpldi\tr10,0", "add.\tr9,r9,r9"), "a record form after it")):
    try:
        ppc_sunk(*mid)
        ok(False, "ppc: ... not with %s" % why)
    except isas.NotTaken:
        ok(True, "ppc: ... not with %s (refused, as before)" % why)
# gcc's spin_trylock result: mfocrf d,128 (cr0 into d) ... rlwinm e,d,3,31,31 (its EQ bit)
i = ppc.prepare(listing.parse(x86_fn("cmpwi\tr9,0", "mfocrf\tr9,128", "rlwinm\tr9,r9,3,31,31", "blr"))["P0"])
ok([(j.mnem, j.ops) for j in i[1:3]] == [("kv.cr0bit", ["r9", "3"]), ("nop", [])], "ppc: mfocrf/rlwinm n,31,31 fused")
spares = iter(("r31", "r30"))
ok(ppc.expand(i[1], i, lambda: next(spares), "Lfail0", set()) == ["mfcr r31", "li r30,2", "and r31,r31,r30",
                                                                "divw r9,r31,r30"],
   "ppc: cr0's EQ from herd7's mfcr (its nibble: EQ is 2), no branch")
ok(ppc.prepare(listing.parse(x86_fn("mfocrf\tr9,128", "rlwinm\tr9,r9,4,31,31", "blr"))["P0"])[0].mnem == "mfocrf",
   "ppc: ... not cr0's SO bit (n = 4): left to herd7")
# clang: the shift into another register, the count's register dead after it (overwritten, or
# never read again and not observed)
def ppc_iszero2(*tail, live=("r10",)):
    return [(j.mnem, j.ops) for j in ppc.prepare(listing.parse(x86_fn(
        "lwz\tr3,0(r4)", "cntlzw\tr3,r3", "rlwinm\tr10,r3,27,5,31", *tail, "blr"))["P0"], live_out=live)]
ok(ppc_iszero2()[1:3] == [("kv.iszero", ["r10", "r3"]), ("nop", [])], "ppc: cntlzw d,s; srwi e,d,5 fused: %s" % ppc_iszero2())
ok(ppc_iszero2("li\tr3,0")[1][0] == "kv.iszero", "ppc: ... the count overwritten after it: fused")
ok(ppc_iszero2("stw\tr3,0(r4)")[1][0] == "cntlzw", "ppc: ... the count stored after it: left alone")
ok(ppc_iszero2(live=("r10", "r3"))[1][0] == "cntlzw", "ppc: ... the count an observed value: left alone")
ok(ppc.prepare(listing.parse(x86_fn("cntlzw\tr3,r3", "lwz\tr5,0(r3)", "srwi\tr3,r3,5", "blr"))["P0"])[0].mnem
   == "cntlzw", "ppc: ... the count read as an address before the shift: left alone")
ok(ppc_iszero2("mtctr\tr3")[1][0] == "cntlzw", "ppc: ... the count moved to ctr after it (a read): left alone")
ok(ppc_iszero2("stw\tr10,0(r4)")[1][0] == "kv.iszero" and
   ppc.prepare(listing.parse(x86_fn("lwz\tr3,0(r4)", "cntlzw\tr3,r3", "lwz\tr9,0(r10)", "rlwinm\tr10,r3,27,5,31",
                                    "blr"))["P0"], live_out=("r10",))[1].mnem == "cntlzw",
   "ppc: ... and not where the result's register is read (as an address) between the two")
ok([ppc.render(listing.parse(x86_fn(t))["P0"][0], lambda a: "L")[0] for t in ("srwi\tr9,r8,5", "slwi\tr9,r8,3")]
   == ["rlwinm r9,r8,27,5,31", "rlwinm r9,r8,3,0,28"], "ppc: srwi/slwi as rlwinm")

# x86: the epilogue's restores of callee-saved registers (pops followed by pops and ret) and their
# pushes are no-ops (a thread has no caller), and take no stack slot; any other pop keeps both
def x86_saves(*insns):
    return [(j.mnem, j.ops) for j in x86.prepare(listing.parse(x86_fn(*insns))["P0"])]
got = x86_saves("push   %rbp", "push   %rbx", "mov    $0x1,%ebx", "mov    %ebx,(%rdi)", "pop    %rbx",
                "pop    %rbp", "ret")
ok([m for m, _ in got] == ["nop", "nop", "mov", "mov", "nop", "nop", "ret"], "x86: callee-saved restores dropped: %s" % got)
got = x86_saves("push   %rbx", "pop    %rbx", "mov    %ebx,(%rdi)", "push   %rbx", "pop    %rbx", "ret")
ok([m for m, _ in got] == ["push", "pop", "mov", "push", "pop", "ret"],
   "x86: a pop whose value is read after it keeps every push and pop of its register: %s" % got)
got = x86_saves("push   %r11", "pop    %r11", "ret")
ok([m for m, _ in got] == ["push", "pop", "ret"], "x86: a caller-saved register's push/pop is kept: %s" % got)
lines, _ = translate.thread(x86, listing.parse(x86_fn(*["push   %%%s" % r for r in ("rbp", "r15", "r14", "r12", "rbx")],
                                                      "mov    $0x1,%ebp", "mov    %ebp,(%rdi)",
                                                      *["pop    %%%s" % r for r in ("rbx", "r12", "r14", "r15", "rbp")],
                                                      "ret"))["P0"], set(), 0,
                            {"rdi", "rsi", "rdx", "rcx", "rax", "r13", "r11", "r10", "r9", "r8"})
ok(lines == ["mov $1,%ebp", "mov %ebp,(%rdi)", "ret"],
   "x86: five callee-saved pushes with one spare register left: translated: %s" % lines)

# x86: movslq between registers and lea without an index, which herd7 lacks
def x86_ex(*insns):
    i = listing.parse(x86_fn(*insns))["P0"]
    return x86.expand(i[0], i, lambda: "r15", "Lfail0", set())
ok(x86_ex("movslq %r11d,%r11", "ret") == ["movl %r11d,%r11d"] and x86_ex("movslq %eax,%r11", "ret") == ["movl %eax,%r11d"],
   "x86: movslq r32,r64 is herd7's movl (a signed word there): %s" % x86_ex("movslq %eax,%r11", "ret"))
ok(x86_ex("movslq 0x4(%rdi),%rax", "ret") is None, "x86: a sign-extending load is left to herd7")
ok(x86_ex("lea    0x1(%rax),%edx", "ret") == ["movl %eax,%edx", "addl $1,%edx"] and
   x86_ex("lea    0x8(%rdi),%rdi", "cmp    $0x1,%eax", "je     20 <P0+0x20>", "ret") == ["addq $8,%rdi"],
   "x86: lea k(base),dst as mov and add, at dst's width: %s" % x86_ex("lea    0x1(%rax),%edx", "ret"))
try:
    x86_ex("lea    0x1(%rax),%edx", "jmp    c <P0+0xc>", "ret", "jne    20 <P0+0x20>", "ret")
    ok(False, "x86: a lea whose flags are read past a jmp is refused")
except isas.NotTaken as e:
    ok("flags" in str(e), "x86: a lea whose flags are read past a jmp (at its target) is refused: %s" % e)
ok(x86_ex("lea    0x1(%rax),%edx", "jmp    c <P0+0xc>", "ret", "cmp    $0x1,%eax", "jne    20 <P0+0x20>", "ret")
   == ["movl %eax,%edx", "addl $1,%edx"], "x86: ... not where the jmp's target writes them first")
ok(x86_ex("lea    (%rdi,%rax,8),%rax", "ret") is None, "x86: an indexed lea is left to herd7 (address arithmetic)")
try:
    x86_ex("cmp    $0x1,%eax", "ret")
    x86_ex("lea    0x1(%rax),%edx", "je     20 <P0+0x20>", "ret")
    ok(False, "x86: a lea whose flags would be read is refused")
except isas.NotTaken as e:
    ok("flags" in str(e), "x86: a lea whose (add's) flags would be read is refused: %s" % e)
# ---- the reasons a test is not judged are counted by class: a time limit is not an instruction
from katomic_tools.verify.__main__ import _reason_class  # noqa: E402
for reason, cls in (("herd7 (AArch64): herd7 ran over 60 s", "herd7 time limit"),
                    ("herd7 (LKMM): herd7 ran over 300 s", "herd7 time limit"),
                    ("herd7 (X86_64): unexpected '('", "instruction herd7 does not take"),
                    ("herd7 (LKMM): herd7 printed no states", "herd7 LKMM error"),
                    ("herd7 (AArch64): Fatal: Adios", "herd7 gave up (memory or stack)"),
                    ("more observed registers than free caller-saved registers: P0 has 4, x86_64 has 3 beside 6 "
                     "arguments", "more observed registers than free registers")):
    ok(_reason_class(reason) == cls, "not judged, %r: counted as %r (%r)" % (reason, cls, _reason_class(reason)))

# a store both branches of an if/else make: clang hoists it out and the control dependency goes
from katomic_tools.verify.__main__ import _same_store_both_ways  # noqa: E402
ok(_same_store_both_ways("r1 = READ_ONCE(*x); if (r1) { WRITE_ONCE(*z, 1); WRITE_ONCE(*y,1); } "
                         "else { WRITE_ONCE(*z, 2); WRITE_ONCE( *y, 1); }")
   and not _same_store_both_ways("if (r1) { WRITE_ONCE(*z, 1); } else { WRITE_ONCE(*z, 2); }")
   and not _same_store_both_ways("if (r1) { WRITE_ONCE(*y, 1); }"),
   "a control dependency to a store both branches make is told apart (dependency folded), different stores are not")

# a test herd7 ran over its limit on two configurations is not run on the others, and says so
# ---- the lock-order split (locksplit.py) and the lock sites' swap
from katomic_tools.verify import locksplit  # noqa: E402
LK2 = """C kv-lk2
{}
P0(int *x, spinlock_t *l) {
  spin_lock(l);
  WRITE_ONCE(*x, 1);
  spin_unlock(l);
}
P1(int *x, spinlock_t *l) {
  spin_lock(l);
  int r0 = READ_ONCE(*x);
  spin_unlock(l);
  spin_lock(l);
  int r1 = READ_ONCE(*x);
  spin_unlock(l);
}
exists (1:r0=1 /\\ 1:r1=0)
"""
gen, orders = locksplit.split(LK2)
ok(len(locksplit.split(LK2.replace("P0(int *x, spinlock_t *l) {", "P0(int *x, spinlock_t *l) // the writer\n{"))[1]) == 3,
   "split: a comment between a thread's parameters and its body")
ok(len(orders) == 3, "split: one section of P0 and two of P1 in order: 3 orders (%d)" % len(orders))
ok("spin_lock(l_a1_1);" in gen and "spin_unlock(l_r1_1);" in gen and "spinlock_t *l_a0_0, spinlock_t *l_r0_0" in gen,
   "split: each section's lock and unlock get parameters of their own")
firsts = sorted(w["l_a0_0"] for w, _ in orders)
ok(firsts == ["l_o1", "l_o2", "l_o3"] and all(i["l_o1"] == 0 and i["l_o2"] == 1 for _, i in orders),
   "split: P0's section comes first, second or third; the first location starts free, the rest held")
ok(all(w["l_r1_0"] == w["l_a1_1"] for w, _ in orders) is False and
   all(int(w["l_a1_1"][-1]) > int(w["l_a1_0"][-1]) for w, _ in orders),
   "split: a thread's own sections keep their order in every order")
rec = {"vars": [{"name": "x", "kind": "scalar", "init": 0}, {"name": "l_a0_0", "kind": "lock", "init": 0},
                {"name": "l_r0_0", "kind": "lock", "init": 0}],
       "threads": [{"id": 0, "args": ["x", "l_a0_0", "l_r0_0"]}]}
o = locksplit.order_test(rec, {"l_a0_0": "l_o2", "l_r0_0": "l_o3"}, {"l_o1": 0, "l_o2": 1, "l_o3": 1})
ok(o["threads"][0]["args"] == ["x", "l_o2", "l_o3"] and {v["name"]: v["init"] for v in o["vars"]} ==
   {"x": 0, "l_o1": 0, "l_o2": 1, "l_o3": 1}, "split: an order's record points the lock parameters at its locations")
for bad, why in (("  if (READ_ONCE(*x)) { spin_lock(l); WRITE_ONCE(*x, 2); spin_unlock(l); }", "inside a block"),
                 ("  if (READ_ONCE(*x)) spin_lock(l);", "not a statement of its own"),
                 ("  spin_lock(l);", "still held"),
                 ("  if (spin_trylock(l)) WRITE_ONCE(*x, 2);", "other than by spin_lock"),
                 ("  spin_unlock(l);", "while not held")):
    try:
        locksplit.split(LK2.replace("  WRITE_ONCE(*x, 1);\n  spin_unlock(l);\n", bad + "\n", 1)
                        .replace("P0(int *x, spinlock_t *l) {\n  spin_lock(l);\n", "P0(int *x, spinlock_t *l) {\n", 1))
        ok(False, "split refuses: %s" % why)
    except locksplit.NotSplit as e:
        ok(why in str(e), "split refuses a test whose lock is %s (%s)" % (why, e))
try:
    locksplit.split(LK2.replace("exists (", "exists (l=0 /\\ "))
    ok(False, "split refuses a lock the final clause names")
except locksplit.NotSplit as e:
    ok("outside" in str(e), "split refuses a lock the final clause names (%s)" % e)
try:
    locksplit.split(LK2.replace("  spin_unlock(l);\n}\n", "  spin_unlock(l);\n" + "  spin_lock(l);\n  spin_unlock(l);\n" * 12
                                + "}\n"))
    ok(False, "split refuses too many orders")
except locksplit.NotSplit as e:
    ok("orders" in str(e), "split refuses more than %d orders (%s)" % (locksplit.MAX_ORDERS, e))

ok(locksplit.plain_rmw(LK2) and not locksplit.plain_rmw(LK2.replace("WRITE_ONCE(*x, 1)", "atomic_inc(x)")),
   "split: a test whose only RMWs are its locks may take them plainly; one with an atomic_inc may not")
ppc = isas.ISAS["ppc64le"]
PS = ["li r10,1", "lwarx r9,r0,r7", "cmpwi r9,0", "bne L0_90", "stwcx. r10,r0,r7", "bne Lfail0", "isync", "lwz r10,0(r6)",
      "blr", "L0_90:", "b Lfail0", "Lfail0:", "blr"]
got, kind = ppc.swap_lock_sites(PS, "Lfail0", plain=True)
ok(kind and got[1:5] == ["lwz r9,0(r7)", "cmpwi r9,0", "bne L0_90", "stw r10,0(r7)"] and got[5] == "isync",
   "plain: ppc's lwarx/stwcx. site as lwz/stw, cr0 the compare's EQ at the store, the retry dropped")
ok(ppc.swap_lock_sites(PS, "Lfail0")[1] == "", "plain: not without plain_rmw (the site stays an LL/SC pair)")
ok(ppc.swap_lock_sites(PS[:2] + ["cmpwi r9,1"] + PS[3:], "Lfail0", plain=True)[1] == "",
   "plain: ppc refuses a site whose compare is not with 0")
rv = isas.ISAS["riscv64"]
RS = ["lr.w x16,(x14)", "and x9,x16,x8", "bne x9,zero,L0_34", "xor x9,x16,x23", "sc.w x9,x9,(x14)", "bne x9,zero,Lfail0",
      "L0_34:", "fence r,rw", "ret", "Lfail0:", "ret"]
got, kind = rv.swap_lock_sites(RS, "Lfail0", plain=True)
ok(kind and got[:6] == ["lw x16,0(x14)", "and x9,x16,x8", "bne x9,zero,L0_34", "xor x9,x16,x23", "sw x9,0(x14)", "li x9,0"],
   "plain: riscv's lr.w/sc.w site as lw/sw and a status of 0")
ok(rv.swap_lock_sites([RS[0].replace("lr.w", "lr.w.aq")] + RS[1:], "Lfail0", plain=True)[1] == "" and
   rv.swap_lock_sites(RS[:3] + ["lw x5,0(x13)"] + RS[3:], "Lfail0", plain=True)[1] == "",
   "plain: riscv refuses an annotated lr.w (its .aq would be lost) and a memory access inside the pair")

from katomic_tools.verify import doomed  # noqa: E402


def lead(fail, moves):
    return lambda label, lines: isas.Isa._leads_to(lines, label, fail, moves)


RVD = ["lui x8,16", "addiw x8,x8,-1", "li x23,1", "lw x16,0(x14)", "and x9,x16,x8", "bne x9,zero,L0_34",
       "xor x9,x16,x23", "sw x9,0(x14)", "li x9,0", "L0_34:", "slli x16,x16,48", "fence r,rw", "bne x16,zero,L0_8c",
       "lw x5,0(x13)", "ret", "L0_8c:", "mv x10,x14", "j Lfail0", "j L0_34", "Lfail0:", "li x27,1", "ret"]
got, n = doomed.redirect("riscv64", RVD, "Lfail0", lead("Lfail0", doomed.MOVES["riscv64"]))
ok(n == 1 and got[5] == "bne x9,zero,Lfail0", "doomed: riscv's busy branch (low 16 bits) goes to FAIL, its second "
   "test (the same bits, by slli 48) sends them there")
for why, lines in (("a second test of fewer bits", RVD[:10] + ["slli x16,x16,56"] + RVD[11:]),
                   ("a first test of more bits", RVD[:4] + ["mv x9,x16"] + RVD[5:]),
                   ("a second test of another load", RVD[:10] + ["lw x16,0(x13)"] + RVD[11:]),
                   ("a mask not known", ["lw x8,0(x12)"] + RVD[2:]),
                   ("a second branch that does not reach FAIL", RVD[:15] + ["L0_8c:", "sw x9,0(x13)", "j Lfail0"] + RVD[18:])):
    ok(doomed.redirect("riscv64", lines, "Lfail0", lead("Lfail0", doomed.MOVES["riscv64"]))[1] == 0,
       "doomed refuses: %s" % why)
RVG = ["li x28,0", "lui x16,16", "slli x28,x28,3", "addiw x16,x16,-1", "sllw x16,x16,x28", "sext.w x13,x16", "li x10,0",
       "lw x12,0(x15)", "and x6,x12,x13", "bne x6,x10,L0_64", "sw x6,0(x15)", "L0_64:", "and x12,x12,x16",
       "sext.w x12,x12", "fence", "beq x12,zero,L0_106", "nop", "j Lfail0", "L0_106:", "ret", "Lfail0:", "ret"]
ok(doomed.redirect("riscv64", RVG, "Lfail0", lead("Lfail0", doomed.MOVES["riscv64"]))[0][9] == "bne x6,x10,Lfail0",
   "doomed: gcc's shape, the mask built by shifts, FAIL on the second branch's fall-through")
PPD = ["li r10,1", "lwz r9,0(r7)", "cmpwi r9,0", "bne L0_40", "stw r10,0(r7)", "L0_40:", "cmplwi r9,0", "lwsync",
       "bne L0_b8", "blr", "L0_b8:", "b Lfail0", "b L0_40", "Lfail0:", "blr"]
got, n = doomed.redirect("ppc64le", PPD, "Lfail0", lead("Lfail0", doomed.MOVES["ppc64le"]))
ok(n == 1 and got[3] == "bne Lfail0", "doomed: ppc clang's cmpwi/bne then cmplwi/bne of the same register")
ok(doomed.redirect("ppc64le", PPD[:6] + ["cmplwi r10,0"] + PPD[7:], "Lfail0",
                   lead("Lfail0", doomed.MOVES["ppc64le"]))[1] == 0, "doomed refuses: ppc's second compare of another register")
ok(doomed.redirect("ppc64le", PPD[:6] + ["lwz r9,0(r6)"] + PPD[6:], "Lfail0",
                   lead("Lfail0", doomed.MOVES["ppc64le"]))[1] == 0, "doomed refuses: the register loaded again between")

A64_CAS = ["MOV W0,#0", "MOV W1,#1", "CASA W0,W1,[X2]", "CBNZ W0,L0_40", "LDR W9,[X3]", "ADD W9,W9,#1",
           "STR W9,[X3]", "STLR WZR,[X2]", "RET", "L0_40:", "MOV X0,X2", "B Lfail0", "Lfail0:", "MOV X28,#1", "RET"]
got, n = A64.swap_lock_sites(A64_CAS, "Lfail0")
ok(n == "swap" and got[2] == "SWPA W1,W0,[X2]" and got[3] == "CBNZ W0,L0_40", "swap: gcc's casa with 0 expected, cbnz to FAIL")
clang = ["MOV W8,WZR", "MOV W10,#1", "CASAL W8,W10,[X4]", "CMP W8,#0", "B.NE L0_48"] + A64_CAS[4:9] + \
    ["L0_48:", "MOV X9,X0", "B Lfail0", "Lfail0:", "RET"]
got, n = A64.swap_lock_sites(clang, "Lfail0")
ok(n == "swap" and got[2] == "SWPAL W10,W8,[X4]", "swap: clang's casal with wzr expected, cmp/b.ne to FAIL")
for why, lines in (("expected value 1", ["MOV W0,#1"] + A64_CAS[1:]),
                   ("a label before the CAS", ["MOV W0,#0", "L0_4:"] + A64_CAS[1:]),
                   ("its failure not to FAIL", A64_CAS[:10] + ["LDR W9,[X3]", "B Lfail0"] + A64_CAS[12:]),
                   ("a relaxed CAS", [ln.replace("CASA", "CAS") for ln in A64_CAS])):
    ok(A64.swap_lock_sites(lines, "Lfail0")[1] == "", "swap refuses: %s" % why)
LLSC = ["MOV W0,#1", "LDAXR W1,[X4]", "CBNZ W1,L0_30", "STXR W2,W0,[X4]", "CBNZ W2,Lfail0", "L0_30:", "CMP W1,#0",
        "B.NE L0_78", "LDR W9,[X3]", "STLR WZR,[X4]", "RET", "L0_78:", "MOV X0,X4", "B Lfail0", "Lfail0:", "RET"]
got, n = A64.swap_lock_sites(LLSC, "Lfail0")
ok(n == "swap" and got[1:5] == ["SWPA W0,W1,[X4]", "L0_30:", "CMP W1,#0", "B.NE L0_78"], "swap: gcc's ldaxr/stxr pair")
cl = ["MOV W8,#1", "LDAXR W9,[X4]", "CBNZ W9,L0_4c", "STXR W9,W8,[X4]", "CBNZ W9,Lfail0", "LDR W9,[X3]", "RET",
      "L0_4c:", "MOV X9,X0", "B Lfail0", "Lfail0:", "RET"]
got, n = A64.swap_lock_sites(cl, "Lfail0")
ok(n == "swap" and got[1:3] == ["SWPA W8,W9,[X4]", "CBNZ W9,L0_4c"], "swap: clang's pair, status in the loaded register")
ok(A64.swap_lock_sites(LLSC[:8] + ["ADD W9,W2,#1"] + LLSC[8:], "Lfail0")[1] == "",
   "swap refuses a pair whose status register is read afterwards")
ok(A64.swap_lock_sites([ln.replace("LDR W9,[X3]", "LDR W3,[X3]") for ln in LLSC], "Lfail0", live_out={"x2"})[1] == ""
   and A64.swap_lock_sites(LLSC, "Lfail0", live_out={"x2"})[1] == "",
   "swap refuses a pair whose status register is observed at the return (read after the thread)")
ok(A64.swap_lock_sites(LLSC[:8] + ["B.EQ L0_90", "MOV W2,#0", "L0_90:", "ADD W9,W2,#1"] + LLSC[8:], "Lfail0")[1] == "",
   "swap refuses a pair whose status register is read on one way of a branch")
# the kernel layer's try_cmpxchg lock sites as clang-19 schedules them: moves between the CAS and its
# test, the free value taken by the branch and the busy one falling through to FAIL
KCL = ["MOV W4,WZR", "MOV W1,#1", "MOV X12,X16", "CASA W4,W1,[X17]", "MOV X8,X18", "CMP W4,#0", "B.EQ L0_0",
       "MOV X18,X17", "MOV W16,W4", "B L0_2", "L0_0:", "LDR W19,[X8]", "STLR WZR,[X17]", "RET", "L0_2:", "B Lfail0",
       "Lfail0:", "MOV X20,#1", "RET"]
got, n = A64.swap_lock_sites(KCL, "Lfail0")
ok(n == "swap" and got[3] == "SWPA W1,W4,[X17]" and got[4:7] == KCL[4:7],
   "swap: clang's casa, a move before its cmp/b.eq, the busy value falling through (moves, jumps) to FAIL")
got, n = A64.swap_lock_sites(KCL[:5] + ["CBZ W4,L0_0"] + KCL[7:], "Lfail0")
ok(n == "swap" and got[3] == "SWPA W1,W4,[X17]", "swap: casa, cbz to the critical section, busy falls through to FAIL")
for why, lines in (("a move between sets the compared register", KCL[:4] + ["MOV W4,W8"] + KCL[5:]),
                   ("the fall-through stores before FAIL", KCL[:8] + ["STR W1,[X8]"] + KCL[8:]),
                   ("the fall-through returns", KCL[:9] + ["RET"] + KCL[10:]),
                   ("the fall-through jumps back to itself", KCL[:9] + ["L0_9:", "B L0_9"] + KCL[10:]),
                   ("the branch tests another register", KCL[:5] + ["CMP W1,#0"] + KCL[6:])):
    ok(A64.swap_lock_sites(lines, "Lfail0")[1] == "", "swap refuses: %s" % why)
# clang-19's LL/SC try_cmpxchg: `mov wv,#1` between the cbnz and the stxr, the success flag tested by a
# tbnz of that constant, the busy way a tbz of a constant 0 (firstlock.folded decides both)
KLL = ["LDAXR W0,[X1]", "CBNZ W0,L1_3", "MOV W2,#1", "STXR W3,W2,[X1]", "CBNZ W3,Lfail0", "TBNZ W2,#0,L1_1",
       "L1_0:", "B Lfail0", "L1_1:", "LDR W10,[X11]", "STLR WZR,[X1]", "RET", "L1_3:", "MOV W13,WZR",
       "TBZ W13,#0,L1_0", "B L1_1"]
folded = firstlock.folded(A64, KLL, {"Lfail0"})
ok(folded[5] == "B L1_1" and folded[14] == "B L1_0",
   "folded: tbnz of the constant 1 and tbz of the constant 0 become jumps (%s)" % folded)
ok(firstlock.folded(A64, KLL[:2] + ["LDR W2,[X9]"] + KLL[3:], {"Lfail0"})[5] == "TBNZ W2,#0,L1_1",
   "folded: a tbnz of a loaded value stays")
ok(firstlock.folded(A64, ["MOV W2,#1", "CBNZ W9,L0_1", "MOV W2,#0", "L0_1:", "TBNZ W2,#0,L0_2", "RET", "L0_2:", "RET"],
                    ())[4] == "TBNZ W2,#0,L0_2", "folded: a value two ways disagree on decides nothing")
got, n = A64.swap_lock_sites(folded, "Lfail0")
ok(n == "swap" and got[:3] == ["MOV W2,#1", "SWPA W2,W0,[X1]", "CBNZ W0,L1_3"],
   "swap: clang's pair, the move of the new value before it goes before the swap (%s)" % got[:4])
for why, lines in (("a move between reads the loaded register", folded[:2] + ["MOV W5,W0"] + folded[2:]),
                   ("a move between sets the address", folded[:2] + ["MOV X1,X9"] + folded[2:]),
                   ("ldaxr with stlxr (swpal orders more)", folded[:3] + ["STLXR W3,W2,[X1]"] + folded[4:]),
                   ("the busy way not folded (a tbz of a loaded value)", KLL[:13] + ["LDR W13,[X9]"] + KLL[14:])):
    ok(A64.swap_lock_sites(firstlock.folded(A64, lines, {"Lfail0"}), "Lfail0")[1] == "", "swap refuses: %s" % why)
# lean (x86-64): xor %r,%r as mov $0,%r where every path writes the flags before reading them
X86L = isas.ISAS["x86_64"]
XZ = ["xor %eax,%eax", "mov $1,%edx", "xchg (%r8),%edx", "cmp %eax,%edx", "jne Lfail0", "movl $2,(%rcx)", "ret"]
ok(lean.zero_moves(X86L, XZ, "Lfail0")[0] == "mov $0,%eax", "lean: x86 xor %eax,%eax as mov $0 (the cmp writes the flags first)")
for why, lines in (("a jne reads them first", ["xor %eax,%eax", "jne L0_9", "ret", "L0_9:", "ret"]),
                   ("a setne reads them first", ["xor %eax,%eax", "setne %al", "ret"]),
                   ("an instruction it does not know (adc) comes first", ["xor %eax,%eax", "adc $0,%edx", "cmp %eax,%edx", "ret"]),
                   ("a jump's target reads them", ["xor %eax,%eax", "jmp L0_9", "ret", "L0_9:", "jne Lfail0", "ret"]),
                   ("a label it cannot follow", ["xor %eax,%eax", "jmp Lx9", "ret"]),
                   ("two registers", ["xor %eax,%edx", "cmp %eax,%edx", "ret"])):
    ok(lean.zero_moves(X86L, lines, "Lfail0") == lines, "lean refuses: x86 xor kept where %s" % why)
ok(lean.zero_moves(X86L, ["xor %eax,%eax", "jmp L0_9", "ret", "L0_9:", "lock; cmpxchg %edx,(%rdi)", "ret"], "Lfail0")[0]
   == "mov $0,%eax", "lean: x86 the flags followed through a jmp to a locked cmpxchg, which writes them")
# lean: cmp wn,#0; b.ne/b.eq as cbnz/cbz where nothing reads the flags after
LN = ["LDR W8,[X0]", "CMP W8,#0", "B.NE L0_20", "STR W8,[X1]", "RET", "L0_20:", "MOV X9,X0", "B Lfail0"]
ok(lean.cmp0_branches(A64, LN, "Lfail0") == ["LDR W8,[X0]", "CBNZ W8,L0_20"] + LN[3:], "lean: cmp #0 and b.ne as cbnz")
ok(lean.cmp0_branches(A64, [ln.replace("B.NE", "B.EQ") for ln in LN], "Lfail0")[1] == "CBZ W8,L0_20", "lean: cmp #0 and b.eq as cbz")
ok(lean.cmp0_branches(A64, [ln.replace("W8", "X8").replace("[X8]", "[X8]") for ln in LN], "Lfail0")[1] == "CBNZ X8,L0_20",
   "lean: a 64-bit compare as a 64-bit cbnz")
for why, lines in (("a flag read after the fall-through", LN[:3] + ["CSET W9,EQ"] + LN[3:]),
                   ("a flag read at the target", LN[:6] + ["B.GT L0_40"] + LN[6:]),
                   ("a flag read after a jump", LN[:3] + ["B L0_30", "L0_30:", "CCMP W8,#1,#0,NE"] + LN[3:]),
                   ("a target we cannot follow", LN[:2] + ["B.NE L0_99"] + LN[3:]),
                   ("a compare with 1", [LN[0], "CMP W8,#1"] + LN[2:]),
                   ("a label between", LN[:2] + ["L0_10:"] + LN[2:]),
                   ("another condition", LN[:2] + ["B.GT L0_20"] + LN[3:])):
    ok(lean.cmp0_branches(A64, lines, "Lfail0") == lines, "lean refuses: %s" % why)
ok(lean.cmp0_branches(A64, LN[:3] + ["CMP W8,#2", "B.EQ L0_20"] + LN[3:], "Lfail0")[1] == "CBNZ W8,L0_20",
   "lean: a flag write before the next read")
# lean: register moves nothing reads afterwards are dropped, the others kept
DM = ["MOV X27,X19", "MOV X19,X1", "MOV W0,#1", "SWPA W0,W1,[X19]", "CBNZ W1,L0_40", "MOV X5,X19", "LDR W9,[X5]",
      "MOV X19,X27", "RET", "L0_40:", "MOV X24,X3", "B Lfail0"]
got = lean.drop_dead_moves(A64, DM, "Lfail0", {"x9"})
ok(got == ["MOV X19,X1", "MOV W0,#1", "SWPA W0,W1,[X19]", "CBNZ W1,L0_40", "MOV X5,X19", "LDR W9,[X5]", "RET",
           "L0_40:", "B Lfail0"], "lean: the callee-saved save and restore and a failure path's copy dropped: %s" % got)
got = lean.drop_dead_moves(A64, DM, "Lfail0", {"x9", "x19"})
ok("MOV X19,X27" in got and "MOV X27,X19" in got,
   "lean: a move into an observed register is kept (and the save it reads)")
ok("MOV X24,X3" in lean.drop_dead_moves(A64, DM[:-1] + ["B L0_99"], "Lfail0", {"x9"}),
   "lean: a move before a jump we cannot follow is kept")
ok("MOV X27,X19" in lean.drop_dead_moves(A64, DM[:7] + ["ADD X19,X27,#0"] + DM[8:], "Lfail0", {"x9"}),
   "lean: a move another instruction reads is kept")
ok("MOV W0,#1" in lean.drop_dead_moves(A64, DM[:4] + ["L0_10:"] + DM[4:10] + ["STR W0,[X3]", "B L0_10"], "Lfail0", {"x9"}),
   "lean: a move read on a path through a label is kept")
x86 = isas.ISAS["x86_64"]
RVD = ["mv x26,s1", "li a0,1", "lw x12,0(x15)", "bne x12,zero,Lfail0", "sw a0,0(x14)", "mv s1,x26", "ret"]
ok(lean.drop_dead_moves(isas.ISAS["riscv64"], RVD, "Lfail0", {"t0"}) == RVD[1:5] + ["ret"],
   "lean riscv64: the save and restore of s1 dropped, li a0 kept (an ABI name read by the store)")
RVF = ["li x28,0", "lui x16,16", "slli x28,x28,3", "addiw x16,x16,-1", "sllw x16,x16,x28", "xori x6,x16,-1",
       "sext.w x11,x6", "li x17,1", "slli x17,x17,32", "srli x17,x17,32", "lw x12,0(x15)", "and x6,x12,x11",
       "or x6,x6,x17", "sw x6,0(x15)", "ret"]
got = lean.fold_constants(isas.ISAS["riscv64"], RVF)
ok(got[3:10] == ["li x16,65535", "li x16,65535", "li x6,-65536", "li x11,-65536", "li x17,1", "li x17,4294967296",
                 "li x17,1"] and got[10:] == RVF[10:], "lean riscv64: gcc's sub-word masks folded to li: %s" % got)
ok(lean.lean(isas.ISAS["riscv64"], RVF, "Lfail0", ()) == ["li x11,-65536", "li x17,1"] + RVF[10:],
   "lean riscv64: then the constants nothing reads dropped, the load's and, or and store kept")
for why, lines in (("a join between", ["li x5,1", "L0_10:", "addi x5,x5,1"]),
                   ("a loaded source", ["lw x5,0(x10)", "addi x5,x5,1"]),
                   ("after a jump", ["li x5,1", "j L0_20", "addi x5,x5,1"])):
    ok(lean.fold_constants(isas.ISAS["riscv64"], lines)[-1] == lines[-1], "fold refuses: %s" % why)
ok(lean.fold_constants(isas.ISAS["riscv64"], ["li x5,-1", "srliw x6,x5,1", "sraiw x7,x5,1", "addiw x8,x5,-2147483648"])[1:] ==
   ["li x6,2147483647", "li x7,-1", "li x8,2147483647"], "fold: 32-bit shifts and adds sign-extend their result")
RVS = ["lw x16,0(x14)", "and x9,x16,x8", "bne x9,zero,Lfail0", "sw x9,0(x14)", "slli x16,x16,48", "fence r,rw",
       "bne x16,zero,L0_8c", "lw x13,0(x11)", "and x15,x13,x14", "bne x15,zero,Lfail0", "and x15,x13,x14",
       "sext.w x15,x15", "beq x15,zero,L0_90", "ret", "L0_8c:", "j Lfail0", "L0_90:", "ret"]
RV = isas.ISAS["riscv64"]
got = lean.settled_branches(RV, ["li x8,65535", "li x14,255"] + RVS)[2:]
ok(got == RVS[:6] + RVS[7:12] + ["j L0_90"] + RVS[13:],
   "lean riscv64: a branch on bits a branch above found 0 settled (bne dropped, beq a jump): %s" % got)
for why, lines in (("the value loaded again", RVS[:4] + ["lw x16,0(x14)"] + RVS[4:]),
                   ("a wider mask", ["li x8,255"] + RVS),
                   ("a join between", RVS[:4] + ["L0_60:"] + RVS[4:]),
                   ("a shift leaving bits the branch did not test", RVS[:4] + ["slli x16,x16,40"] + RVS[5:])):
    got = lean.settled_branches(RV, ["li x8,65535", "li x14,255"] + lines if "li x8,255" not in lines else
                              ["li x14,255"] + lines)
    ok("bne x16,zero,L0_8c" in got, "lean riscv64 keeps a branch when %s" % why)
PPR = ["lwz r9,0(r7)", "cmpwi r9,0", "bne L0_90", "stw r10,0(r7)", "isync", "bne L0_90", "cmplwi r9,0", "lwsync",
       "bne L0_94", "blr"]
ok(lean.repeated_branches(isas.ISAS["ppc64le"], PPR) == PPR[:5] + PPR[6:8] + ["blr"],
   "lean ppc64le: gcc's second bne after the isync and clang's cmplwi/bne of the same register dropped")
for why, lines in (("the register written between", PPR[:4] + ["lwz r9,0(r7)"] + PPR[4:]),
                   ("a stwcx. between (it writes cr0)", PPR[:3] + ["stwcx. r10,0,r7"] + PPR[4:6]),
                   ("a join between", PPR[:4] + ["L0_40:"] + PPR[4:6]),
                   ("another immediate", PPR[:3] + ["cmplwi r9,1", "lwsync", "bne L0_94"])):
    ok(lean.repeated_branches(isas.ISAS["ppc64le"], lines) == lines, "lean ppc64le keeps the second test when %s" % why)
PPD2 = ["mr r29,r31", "li r10,1", "lwz r9,0(r7)", "cmpwi r9,0", "bne L0_90", "stw r10,0(r7)", "mr r31,r29", "blr",
        "L0_90:", "mr r3,r7", "b Lfail0"]
ok(lean.drop_dead_moves(isas.ISAS["ppc64le"], PPD2, "Lfail0", {"r9"}) == PPD2[1:6] + ["blr", "L0_90:", "b Lfail0"],
   "lean ppc64le: the r31 save and restore and the failure path's copy dropped")
XD = ["mov %rdi,%r12", "mov $1,%edx", "xchg (%r8),%edx", "cmp %eax,%edx", "jne L0_50", "movl $1,(%r12)",
      "mov %r13,%rbx", "ret", "L0_50:", "mov %r8,%rdi", "jmp Lfail0"]
ok(lean.drop_dead_moves(x86, XD, "Lfail0", {"r11"}) == XD[:6] + ["ret", "L0_50:", "jmp Lfail0"],
   "lean x86-64: a dead callee-saved copy and the failure path's copy dropped, the address copy kept")
ok("mov %r13,%rbx" in lean.drop_dead_moves(x86, XD, "Lfail0", {"r11", "rbx"}),
   "lean x86-64: a move into an observed register kept")
ok("mov $1,%edx" in lean.drop_dead_moves(x86, ["mov $1,%edx", "lock; cmpxchg (%rdi),%dx", "ret"], "Lfail0", ()),
   "lean x86-64: a move read through a 16-bit name kept")
ok("mov $0,%eax" in lean.drop_dead_moves(x86, ["mov $0,%eax", "lock; cmpxchg (%rdi),%edx", "ret"], "Lfail0", ()),
   "lean x86-64: a move into %eax kept before a cmpxchg (which reads it unnamed)")
ok("mov $0,%edx" in lean.drop_dead_moves(x86, ["mov $0,%edx", "cltq", "ret"], "Lfail0", ()),
   "lean x86-64: an instruction that may read registers it does not name keeps every move before it")
XS = ["xor %eax,%eax", "mov $1,%edx", "lock; cmpxchg (%r8),%edx", "jne L0_48", "mov (%rcx),%r11d", "ret", "L0_48:",
      "mov %r8,%rdi", "jmp Lfail0", "Lfail0:", "ret"]
spares = iter(["r15", "r14"])
got, n = x86.swap_lock_sites(XS, "Lfail0", lambda: next(spares), live_out={"r11", "rdx"})
ok(n == "swap" and got[2:6] == ["mov %edx,%r15d", "xchg (%r8),%r15d", "cmp %eax,%r15d", "jne L0_48"],
   "swap: x86 lock cmpxchg with %eax 0 becomes an xchg of a copy and a compare (%edx observed at ret)")
got, n = x86.swap_lock_sites(XS, "Lfail0", None, live_out={"r11"})
ok(n == "swap" and got[2:5] == ["xchg (%r8),%edx", "cmp %eax,%edx", "jne L0_48"],
   "swap: x86, the new value's register dead at ret: xchg it in place, no spare register")
for why, after, inplace in (("set again (gcc's next lock site)", ["xor %eax,%eax", "mov $1,%edx"], True),
                            ("set again through a label", ["L0_20:", "movl $1,%edx"], True),
                            ("read after", ["mov %edx,(%rcx)"], False),
                            ("its low byte read", ["mov %dl,(%rcx)"], False),
                            ("only its low word set", ["mov $1,%dx"], False),
                            ("its low word read by a cmpxchg", ["lock; cmpxchg (%rdi),%dx"], False),
                            ("read by an instruction that names no register", ["cltd", "mov $1,%edx"], False),
                            ("a branch to the failure path first", ["jmp L0_48"], True),
                            ("read after a branch", ["jne L0_60", "mov $1,%edx", "L0_60:", "mov %edx,(%rcx)"], False),
                            ("set again on both ways of a branch", ["jne L0_60", "mov $1,%edx", "jmp L0_70", "L0_60:",
                                                                    "mov $2,%edx", "L0_70:"], True),
                            ("a branch to a label not in the thread first", ["jne L9_99"], False),
                            ("loaded into", ["mov (%rcx),%edx"], True),
                            ("an address", ["mov (%rdx),%ecx"], False)):
    lines = XS[:4] + after + XS[4:]
    got, n = x86.swap_lock_sites(lines, "Lfail0", lambda: "r15", live_out={"r11", "rdx"})
    ok(n == "swap" and (got[2] == "xchg (%r8),%edx") == inplace,
       "swap: x86, the new value's register %s: %s" % (why, "in place" if inplace else "a copy"))
ok(x86.swap_lock_sites(["mov $1,%eax"] + XS[1:], "Lfail0", lambda: "r15")[1] == "",
   "swap refuses a cmpxchg whose expected %eax is not 0")
# aarch64 liveness: a load sets its destination, a store-exclusive its status, a swap its old value (none reads
# it), so gcc's LL/SC fast path whose status register the next lock site's pair writes again is swapped
A64L = isas.ISAS["aarch64"]
ok(A64L.def_use("LDAXRH W1,[X4]") == ({"X1"}, {"X4"}) and A64L.def_use("STXRH W2,W0,[X4]") == ({"X2"}, {"X0", "X4"})
   and A64L.def_use("SWPA W0,W1,[X19]") == ({"X1"}, {"X0", "X19"}) and A64L.def_use("LDR W0,[X1],#4")[0] == set()
   and A64L.def_use("LDP W0,W1,[X2]")[0] == set(),
   "aarch64 def_use: loads, store-exclusives and swaps set their destination; a write-back or a pair sets none")
GCC2 = ["MOV W0,#1", "LDAXRH W1,[X4]", "CBNZ W1,L0_30", "STXRH W2,W0,[X4]", "CBNZ W2,Lfail0", "L0_30:", "CMP W1,#0",
        "B.NE L0_74", "MOV W0,#1", "LDAXRH W1,[X19]", "CBNZ W1,L0_54", "STXRH W2,W0,[X19]", "CBNZ W2,Lfail0", "L0_54:",
        "CMP W1,#0", "B.NE L0_74", "RET", "L0_74:", "B Lfail0"]
got = A64L.swap_lock_sites(GCC2, "Lfail0")[0]
ok(got.count("SWPA W0,W1,[X4]") == 1 and got.count("SWPA W0,W1,[X19]") == 1 and not any("XRH" in ln for ln in got),
   "swap: gcc's two LL/SC lock sites in a row, the first one's status written again by the second (%s)" % got)
got = A64L.swap_lock_sites(GCC2[:13] + ["MOV W3,W2"] + GCC2[13:], "Lfail0")[0]
ok(got.count("SWPA W0,W1,[X4]") == 1 and got.count("LDAXRH W1,[X19]") == 1 and got.count("SWPA W0,W1,[X19]") == 0,
   "swap: a status register read after the second site keeps that site a pair, not the first (%s)" % got)
# any width: gcc's 16-bit fast path (`cmpxchg %dx`) compares with %ax, a byte one with %al
XW = ["xor %eax,%eax", "mov $1,%edx", "lock; cmpxchg (%r8),%dx", "jne L0_48", "mov (%rcx),%r11d", "ret", "L0_48:",
      "jmp Lfail0", "Lfail0:", "ret"]
got, n = x86.swap_lock_sites(XW, "Lfail0", None, live_out={"r11"})
ok(n == "swap" and got[2:5] == ["xchg (%r8),%dx", "cmp %ax,%dx", "jne L0_48"],
   "swap: x86 16-bit lock cmpxchg, its register dead: xchg in place and a 16-bit compare with %%ax (%s)" % got[2:5])
got, n = x86.swap_lock_sites(XW, "Lfail0", lambda: "r15", live_out={"r11", "rdx"})
ok(n == "swap" and got[2:6] == ["mov %dx,%r15w", "xchg (%r8),%r15w", "cmp %ax,%r15w", "jne L0_48"],
   "swap: x86 16-bit lock cmpxchg, its register observed: a 16-bit copy (%s)" % got[2:6])
got, n = x86.swap_lock_sites([ln.replace("%dx", "%dl") for ln in XW], "Lfail0", lambda: "rbx", live_out={"r11", "rdx"})
ok(n == "swap" and got[2:5] == ["mov %dl,%bl", "xchg (%r8),%bl", "cmp %al,%bl"],
   "swap: x86 byte lock cmpxchg: a byte copy compared with %%al (%s)" % got[2:5])
got, n = x86.swap_lock_sites([ln.replace("%dx", "%rdx") for ln in XW], "Lfail0", None, live_out={"r11"})
ok(n == "swap" and got[2:4] == ["xchg (%r8),%rdx", "cmp %rax,%rdx"], "swap: x86 64-bit lock cmpxchg compared with %rax")
ok(x86.swap_lock_sites([ln.replace("%dx", "%dh") for ln in XW], "Lfail0", lambda: "r15")[1] == "",
   "swap refuses a cmpxchg of a high byte (%dh: no part of another register names it)")


from katomic_tools.verify.__main__ import GiveUp  # noqa: E402
calls = []


def fake(reason, whole=True, split=True):
    calls.append(reason if whole else "split: " + reason)
    return {"verdict": "not judged", "reason": reason}


g, t0 = GiveUp(2), {"name": "T", "path": "T.litmus"}
recs = [g.run(0, t0, "auto", fake, r) for r in ("herd7 (PPC): herd7 ran over 10 s", "herd7 (RISCV): unexpected 'x'",
                                        "herd7 (RISCV): herd7 ran over 10 s", "herd7 (X86_64): never run")]
recs.append(g.run(1, dict(t0, name="U"), "auto", fake, "herd7 (X86_64): another test is run"))
ok(len(calls) == 4 and _reason_class(recs[3]["reason"]) == "herd7 time limit" and "not run" in recs[3]["reason"],
   "give up: after 2 time-outs of a test (not counting its other refusals) its next configuration is not run, "
   "counted as a herd7 time limit")
ok(calls[-1].endswith("another test is run") and GiveUp(0).run(0, t0, "auto", fake, "x") and len(calls) == 5,
   "give up: only that test; --give-up-after 0 runs everything")
import tempfile  # noqa: E402
with tempfile.NamedTemporaryFile("w", suffix=".litmus", delete=False) as lk:
    lk.write(LK2)
g, tl = GiveUp(1), {"name": "kv-lk2", "path": lk.name}
g.run(0, tl, "auto", fake, "herd7 (PPC): herd7 ran over 10 s")
g.run(0, tl, "auto", fake, "herd7 (PPC): the next configuration")
g.run(1, t0, "always", fake, "herd7 (PPC): --lock-split always, a test it does not take")
ok(calls[-3:] == ["herd7 (PPC): herd7 ran over 10 s", "split: herd7 (PPC): the next configuration",
                  "herd7 (PPC): --lock-split always, a test it does not take"],
   "give up: a lock test the split takes goes to the split after its time-outs; one it does not take runs whole")
r = g.run(0, tl, "never", fake, "herd7 (PPC): --lock-split never")
ok(r.get("reason", "").endswith("not run") and calls[-1].startswith("herd7 (PPC): --lock-split always"),
   "give up: --lock-split never leaves a timed-out lock test not run, as before the split")
os.unlink(lk.name)
# auto: a test of 5 or more critical sections goes to the split without a whole run; 4 runs whole first
for n_sec, whole in ((4, True), (5, False), (8, False)):
    # thread k takes lock k/2: two sections a lock, few orders
    body = "".join("P%d(spinlock_t *l%d, int *x) { spin_lock(l%d); WRITE_ONCE(*x, %d); spin_unlock(l%d); }\n"
                   % (k, k // 2, k // 2, k, k // 2) for k in range(n_sec))
    with tempfile.NamedTemporaryFile("w", suffix=".litmus", delete=False) as lk:
        lk.write("C many\n{}\n%sexists (x=0)\n" % body)
    rec = GiveUp(2).run(0, {"name": "many", "path": lk.name}, "auto", fake, "sections %d" % n_sec)
    ok(calls[-1] == ("sections %d" % n_sec if whole else "split: sections %d" % n_sec) and
       locksplit.sections(open(lk.name).read()) == n_sec,
       "--lock-split auto: %d critical sections %s" % (n_sec, "run whole first" if whole else "go to the split at once"))
    os.unlink(lk.name)


# ---- the slow path's ways out (waysout.py): the lock's address, the sites, a retry
from katomic_tools.verify import slowpath, waysout  # noqa: E402


def slow_fn(*insns, base=0):
    """A fake __ka_spin_lock_slowpath_v2, instructions 4 bytes apart (a call names its symbol)."""
    rows = [(base + 4 * k,) + ((t,) if isinstance(t, str) else t) for k, t in enumerate(insns)]
    return listing.parse(objdump({"P0": rows}))["P0"]


# ldxr/stxr on a copy of the lock, an RMW at lock+2 (no site), one through a reloaded pointer
# (unknown), the copy in a caller-saved register lost at a call
SLOW = ["mov\tx19, x0", "add\tx1, x19, #0x2", "ldxrh\tw2, [x1]", "mov\tx9, x19",
        ("bl\t0 <sched_yield>", "sched_yield"), "ldr\tx3, [x20]", "swpal\tw4, w5, [x3]",
        "ldaxr\tw6, [x19]", "cbnz\tw6, 0x30", "stxr\tw7, w8, [x19]", "cbnz\tw7, 0x1c", "ret", "ldxr\tw6, [x9]",
        "ret"]
fs = slow_fn(*SLOW)
lr = waysout.lock_regs(A64, fs, slowpath._succ(A64, fs))
ok(lr[0x8] == {"x0": 0, "x19": 0, "x1": 2}, "ways out: mov and add #2 carry the lock's address: %s" % lr[0x8])
ok("x9" in lr[0x10] and "x9" not in lr[0x14] and "x19" in lr[0x14],
   "ways out: a call forgets the caller-saved copy, keeps the callee-saved one")
ok(waysout.is_rmw(A64, fs[2]) == "ll" and waysout.is_rmw(A64, fs[9]) == "sc" and waysout.is_rmw(A64, fs[6]) == "rmw",
   "ways out: ldxrh a load-exclusive, stxr its store, swpal an RMW")
ok(waysout.read_reg(A64, fs[6]) == "w5" and waysout.read_reg(A64, fs[7]) == "w6",
   "ways out: swpal leaves its read in its second register, ldaxr in its first")
J = waysout.Judge(None, A64, fs, slowpath._succ(A64, fs), slowpath.WIDE_PICK["aarch64"])
ok(J.retry([0x1c, 0x20, 0x24, 0x28]),
   "ways out: ldaxr; cbnz; stxr; cbnz on the status back to the ldaxr is a retry that writes nothing")

ok(waysout.mem_base(A64, fs[6]) == ("x3", 0) and "x3" not in lr[0x18],
   "ways out: an RMW through a pointer loaded from memory is of no known word (unknown)")

# riscv64: clang's CAS tests its success again after the fence, against a mask another register
# holds (s1 and s6 both 0xffff, set before the site): the failed compare followed by the success
# branch is no path; the failed compare followed by the failure branch is one
RVF = ["lui\ts6,0x10", "addw\ts6,s6,-1", "lui\ts1,0x10", "addw\ts1,s1,-1",
       "lr.w\ta3,(s7)", "and\ta4,a3,s1", "bne\ta4,a1,0x24", "sc.w\ta4,a4,(s7)", "bnez\ta4,0x10",
       "and\ta2,a3,s6", "fence\tr,rw", "bne\ta1,a2,0x10", "ret"]
rf = slow_fn(*RVF)
rsucc = slowpath._succ(rv, rf)
rby = {i.addr: i for i in rf}
rvals = waysout.rv_values(rv, rf, rsucc)
rc = waysout.rv_consts(rvals)
ok(rc[0x10].get("s1") == 0xffff and rc[0x10].get("s6") == 0xffff,
   "ways out: riscv constants carried to the site (lui 0x10; addw -1 = 0xffff): %s" % rc.get(0x10))
ok(waysout.infeasible(rv, rby, rsucc, [0x10, 0x14, 0x18, 0x24, 0x28, 0x2c, 0x30], rvals[0x10]),
   "ways out: riscv failed compare, then the re-test taken as success: no path")
ok(not waysout.infeasible(rv, rby, rsucc, [0x10, 0x14, 0x18, 0x24, 0x28, 0x2c, 0x10], rvals[0x10]),
   "ways out: riscv failed compare, then the re-test failing too: a path")
ok(not waysout.infeasible(rv, rby, rsucc, [0x10, 0x14, 0x18, 0x24, 0x28, 0x2c, 0x30]),
   "ways out: riscv without the constants the two masks may differ: a path (no judgement)")
ok(not waysout.infeasible(rv, rby, rsucc, [0x10, 0x14, 0x18, 0x1c, 0x20, 0x24, 0x28, 0x2c, 0x30], rvals[0x10]),
   "ways out: riscv compare that succeeded, then the re-test as success: a path")
relo = listing.parse(objdump({"P0": [(0x0, "lui\ta0,0x0", "sym"), (0x4, "ret")]}))["P0"]
ok("a0" not in waysout.rv_consts(waysout.rv_values(rv, relo, slowpath._succ(rv, relo)))[0x4],
   "ways out: a relocated lui is no constant")

# riscv64: gcc's masked 16-bit CAS of the lock word (turn_take's).  The offset is `and lock,3`
# (0: the word is aligned) and the mask 0xffff << 0; the expected half-word comes from one of two
# loads (a loop reloads it at another address), masked and shifted into a4, and is compared
# again, unshifted, with the old value after the loop.  The failed compare followed by the
# equal test is no path: gcc's "success" test after a failed compare.
def rv_cas(alt):
    """alt: the instruction on the second way into the merge (0x2c) that sets a4 there."""
    return slow_fn("mv\ts8,a0", "and\ta7,s8,3", "sll\ta7,a7,0x3", "lui\ta3,0x10",            # 0x0
                   "addw\ta3,a3,-1", "sllw\ta3,a3,a7", "and\ta6,s8,-4", "lhu\ts0,0(s8)",      # 0x10
                   "beqz\ta1,0x2c", "lhu\ts0,0(s8)", alt,                                   # 0x20
                   "sllw\ta4,s0,a7", "and\ta4,a4,a3", "sext.w\ta4,a4",                     # 0x2c
                   "lr.w\ta5,(a6)", "and\tt3,a5,a3", "bne\tt3,a4,0x50", "sc.w\tt3,t3,(a6)",  # 0x38
                   "bnez\tt3,0x38",                                                        # 0x48
                   "j\t0x60",                                                              # 0x4c
                   "and\ta5,a5,a3", "srlw\ta5,a5,a7", "beq\ta5,s0,0x60",                   # 0x50
                   "j\t0x38", "fence\tr,rw", "ret")                                        # 0x5c
cas = rv_cas("nop")
csucc = slowpath._succ(rv, cas)
cby = {i.addr: i for i in cas}
cv = waysout.rv_values(rv, cas, csucc, waysout.lock_regs(rv, cas, csucc))
ok(cv[0x38].get("a7") == ("const", 0) and cv[0x38].get("a3") == ("const", 0xffff),
   "ways out: riscv sub-word offset and mask of the aligned lock word are constants: %s" % cv.get(0x38))
ok(cv[0x38].get("a4") == cv[0x38].get("s0") and cv[0x38]["s0"][0] == "val",
   "ways out: riscv one value for the half-word loaded on either way, masked or not: %s" % cv.get(0x38))
failed_then_equal = [0x38, 0x3c, 0x40, 0x50, 0x54, 0x58, 0x60]
ok(waysout.infeasible(rv, cby, csucc, failed_then_equal, cv[0x38]),
   "ways out: riscv gcc's masked CAS, compare failed then old == expected: no path")
ok(not waysout.infeasible(rv, cby, csucc, [0x38, 0x3c, 0x40, 0x50, 0x54, 0x58, 0x5c], cv[0x38]),
   "ways out: riscv gcc's masked CAS, compare failed then old != expected: a path")
cas2 = rv_cas("addi\ts0,s0,1")    # one way in gives s0 a value that may not fit 16 bits
c2succ = slowpath._succ(rv, cas2)
cv2 = waysout.rv_values(rv, cas2, c2succ, waysout.lock_regs(rv, cas2, c2succ))
ok(cv2[0x38].get("a4") != cv2[0x38].get("s0") and cv2[0x38]["s0"][0] == "val",
   "ways out: riscv s0 + 1 may be 0x10000: masked to 16 bits it is not s0: %s" % cv2.get(0x38))
ok(not waysout.infeasible(rv, {i.addr: i for i in cas2}, c2succ, failed_then_equal, cv2[0x38]),
   "ways out: riscv ... so the failed compare and the equal test are a path")
cas3 = slow_fn("lhu\ts0,0(a0)", "lhu\ta4,0(a0)", "beqz\ta1,0x10", "addi\ta4,a4,1",  # 0x0
               "lr.w\ta5,(a0)", "bne\ta5,a4,0x1c", "beq\ta5,s0,0x20", "ret", "ret")   # 0x10
c3succ = slowpath._succ(rv, cas3)
cv3 = waysout.rv_values(rv, cas3, c3succ)
ok(cv3[0x10].get("a4") != cv3[0x10].get("s0") and cv3[0x10].get("s0") is not None,
   "ways out: riscv two loads are two values; one changed on a way in is a value of its own: %s" % cv3.get(0x10))
ok(not waysout.infeasible(rv, {i.addr: i for i in cas3}, c3succ, [0x10, 0x14, 0x18, 0x1c], cv3[0x10]),
   "ways out: riscv no contradiction between values not known equal")
# a loop that copies the old value before loading anew: the copy is not the new value
loop = slow_fn("lhu\ts0,0(a0)", "mv\ts1,s0", "lhu\ts0,0(a0)", "bnez\ta1,0x4",            # 0x0
               "bne\ts1,s0,0x18", "ret", "ret")                                          # 0x10
lsucc = slowpath._succ(rv, loop)
lv = waysout.rv_values(rv, loop, lsucc)
ok(lv[0x10].get("s1") != lv[0x10].get("s0") and lv[0x4].get("s0") is not None,
   "ways out: riscv a loop's copy of the previous load is not the new one: %s" % lv.get(0x10))
lv4 = lv[0x4]
ok(all(("phi", 0x4) != t[:2] or e == ("val", t, e[2]) for e in lv4.values() for t in waysout._leaves(e)
       if isinstance(t[0], str) and t[0] == "phi"),
   "ways out: riscv a loop head names its own phis only as whole values")
# the way of a bnez on which the register is 0 gives it the constant
ez = slow_fn("lhu\ta4,0(a0)", "bnez\ta4,0xc", "lr.w\ta5,(a0)", "ret")
ev = waysout.rv_values(rv, ez, slowpath._succ(rv, ez))
ok(ev[0x8].get("a4") == ("const", 0) and ev[0xc].get("a4") != ("const", 0),
   "ways out: riscv bnez's fall-through knows the register is 0, its target does not: %s %s" % (
       ev[0x8].get("a4"), ev[0xc].get("a4")))
# the path test starts the registers known constant at the site with their values, and gives
# srlw by a register known 0 (herd7 lacks srlw) as sext.w
J = waysout.Judge(None, rv, cas, csucc, slowpath.WIDE_PICK["riscv64"])
text = J.path_test([0x38, 0x3c, 0x40, 0x50, 0x54, 0x58], 0x5c)[0]
if not ok("1:x13=65535;" in text and "1:x17=0;" in text and "srlw" not in text and "sext.w x15,x15" in text,
          "ways out: riscv path test with the site's constants and srlw by 0 as sext.w"):
    print(text)

PPC = isas.ISAS["ppc64le"]
lw = listing.Insn(0, "lwarx", ["r9", "0", "r4"], "lwarx   r9,0,r4")
ok(waysout.mem_base(PPC, lw) == ("r4", 0) and waysout._touches(PPC, lw) and waysout.is_rmw(PPC, lw) == "ll",
   "ways out: ppc's indexed lwarx r9,0,r4 is a load-exclusive of [r4] that ends a path")
ok(waysout.mem_base(PPC, listing.Insn(0, "lwzx", ["r9", "r3", "r4"], "lwzx r9,r3,r4")) == ("r3", None),
   "ways out: base+index (lwzx r9,r3,r4) has no known displacement")

# ppc64le: clang's CAS tests its success again after the loop (cmpw; bne in it, cmplw; beq after
# it, on the same pair): the failed compare followed by the equal test is no path
PF = ["lharx\tr4,0,r30", "cmpw\tr4,r20", "bne\t0x10", "sthcx.\tr3,0,r30",      # 0x0
      "cmplw\tr4,r20", "lwsync", "beq\t0x20", "blr", "blr"]                    # 0x10
pf = slow_fn(*PF)
psucc = slowpath._succ(PPC, pf)
pby = {i.addr: i for i in pf}
ok(waysout.infeasible(PPC, pby, psucc, [0x0, 0x4, 0x8, 0x10, 0x14, 0x18, 0x20]),
   "ways out: ppc failed compare (cmpw; bne), then cmplw; beq on the same pair: no path")
ok(not waysout.infeasible(PPC, pby, psucc, [0x0, 0x4, 0x8, 0x10, 0x14, 0x18, 0x1c]),
   "ways out: ppc failed compare, then the re-test failing too: a path")
ok(not waysout.infeasible(PPC, pby, psucc, [0x0, 0x4, 0x8, 0xc, 0x10, 0x14, 0x18, 0x20]),
   "ways out: ppc compare that succeeded, then the re-test as success: a path")
# what changes the pair, or the field, between the two tests takes the contradiction away
for before, after, why in (("lharx\tr4,0,r30", "lwsync", "r4 loaded again before the second compare"),
                           ("mr\tr20,r5", "lwsync", "r20 another value before the second compare"),
                           ("lwsync", "crset\t4*cr0+eq", "cr0 set by a cr operation before the branch"),
                           ("lwsync", "andi.\tr5,r6,1", "cr0 set by a record form before the branch"),
                           ("lwsync", "isel\tr5,r5,r6,4*cr1+gt", "an instruction naming a cr field before the branch")):
    pf2 = slow_fn(*(PF[:4] + [before, "cmplw\tr4,r20", after, "beq\t0x24", "blr", "blr"]))
    ok(not waysout.infeasible(PPC, {i.addr: i for i in pf2}, slowpath._succ(PPC, pf2),
                              [0x0, 0x4, 0x8, 0x10, 0x14, 0x18, 0x1c, 0x24]),
       "ways out: ppc no contradiction with %s" % why)
PF7 = ["lharx\tr4,0,r30", "cmpw\tcr7,r4,r20", "bne\tcr7,0x10", "sthcx.\tr3,0,r30"]
for second, want, why in (("cmplw\tr4,r20", True, "cr7's failed test, then cr0's equal test of the same pair: no path"),
                          ("cmplw\tcr6,r4,r20", False, "a compare into cr6 is not what beq (cr0) tests")):
    pf3 = slow_fn(*(PF7 + [second, "lwsync", "beq\t0x20", "blr", "blr"]))
    ok(waysout.infeasible(PPC, {i.addr: i for i in pf3}, slowpath._succ(PPC, pf3),
                          [0x0, 0x4, 0x8, 0x10, 0x14, 0x18, 0x20]) == want, "ways out: ppc %s" % why)

# the library's globals: a TOC entry's load is one's address, and so is it plus an index; a load
# of a global's contents (TOC16_LO on another symbol) is not; an RMW there is no lock site
G = [(0x0, "mr\tr30,r3"), (0x4, "addis\tr5,r2,0", ".toc", "R_PPC64_TOC16_HA"),
     (0x8, "ld\tr25,0(r5)", ".toc", "R_PPC64_TOC16_LO_DS"), (0xc, "add\tr4,r25,r6"),
     (0x10, "lwarx\tr7,0,r4"), (0x14, "lwarx\tr7,r25,r6"), (0x18, "lwarx\tr7,r25,r30"),
     (0x1c, "ld\tr8,0(r5)", "sym", "R_PPC64_TOC16_LO_DS"), (0x20, "lwarx\tr7,0,r8"),
     (0x24, "lwarx\tr7,0,r30"), (0x28, "ori\tr7,r7,256"), (0x2c, "stwcx.\tr7,0,r30"),
     (0x30, "lwarx\tr7,0,r30"), (0x34, "ori\tr7,r7,257"), (0x38, "stwcx.\tr7,0,r30"), (0x3c, "blr")]
gf = listing.parse(objdump({"P0": G}))["P0"]
gsucc = slowpath._succ(PPC, gf)
glr = waysout.lock_regs(PPC, gf, gsucc)
gg = waysout.global_regs(PPC, gf, gsucc, glr)
gat = {i.addr: waysout.of_global(PPC, i, gg.get(i.addr, {}), glr.get(i.addr, {})) for i in gf}
ok(gat[0x10] and gat[0x14] and not gat[0x18] and not gat[0x20] and not gat[0x24],
   "ways out: ppc TOC entry + index is a global's; + the lock's address, a global's contents, the lock: not: %s" % gat)
ok(waysout.keeps_locked_byte(PPC, gf, gf.index(gf[9])) and not waysout.keeps_locked_byte(PPC, gf, 12),
   "ways out: ppc lwarx; ori 256; stwcx. cannot write the locked byte; ori 257 can")
X86 = isas.ISAS["x86_64"]
lo = lambda t: listing.parse(x86_fn(t, "ret"))["P0"]
ok(waysout.keeps_locked_byte(X86, lo("lock orl $0x100,(%rdi)"), 0)
   and not waysout.keeps_locked_byte(X86, lo("lock orl $0x101,(%rdi)"), 0)
   and not waysout.keeps_locked_byte(X86, lo("lock andl $0x100,(%rdi)"), 0),
   "ways out: x86 lock or $0x100 cannot write the locked byte; or $0x101 and an and can")
ra = slow_fn("li\ta5,256", "amoor.w\tzero,a5,(a0)", "li\ta5,1", "amoor.w\tzero,a5,(a0)", "ret")
rav = waysout.rv_consts(waysout.rv_values(rv, ra, slowpath._succ(rv, ra)))
ok(waysout.keeps_locked_byte(rv, ra, 1, rav[0x4]) and not waysout.keeps_locked_byte(rv, ra, 3, rav[0xc])
   and not waysout.keeps_locked_byte(rv, ra, 1, {}),
   "ways out: riscv amoor of a register known 256 cannot write the locked byte; of 1, or of an unknown one, can")
RG = [(0x0, "auipc\ts11,0x0", "__ka_spin_nodes_v1", "R_RISCV_GOT_HI20"), (0x4, "ld\ts11,0(s11)", ".L0 ", "R_RISCV_PCREL_LO12_I"),
      (0x8, "auipc\ta1,0x0", "counter", "R_RISCV_PCREL_HI20"), (0xc, "lw\ta1,0(a1)", ".L0 ", "R_RISCV_PCREL_LO12_I"),
      (0x10, "add\ta5,a5,s11"), (0x14, "amoswap.w\ta4,a4,(a5)"), (0x18, "amoswap.w\ta4,a4,(a1)"), (0x1c, "ret")]
rgf = listing.parse(objdump({"P0": RG}))["P0"]
rgs = slowpath._succ(rv, rgf)
rgl = waysout.lock_regs(rv, rgf, rgs)
rgg = waysout.global_regs(rv, rgf, rgs, rgl)
ok(waysout.of_global(rv, rgf[5], rgg[0x14], rgl[0x14]) and not waysout.of_global(rv, rgf[6], rgg[0x18], rgl[0x18]),
   "ways out: riscv a GOT entry's address plus an index is a global's; a word loaded from a global is not")
XG = [(0x0, "lea    0x0(%rip),%r14", "__ka_spin_nodes_v1", "R_X86_64_PC32"),
      (0x4, "lea    0x6(%r14,%rbp,1),%rdx"), (0x8, "xchg   %cl,(%rdx)"),
      (0xc, "lea    0x6(%r14,%rdi,1),%rdx"), (0x10, "xchg   %cl,(%rdx)"),
      (0x14, "mov    0x0(%rip),%rax", "ptr", "R_X86_64_PC32"), (0x18, "xchg   %cl,(%rax)"), (0x1c, "ret")]
xg = listing.parse(objdump({"P0": XG}))["P0"]
xgs = slowpath._succ(isas.ISAS["x86_64"], xg)
xgl = waysout.lock_regs(isas.ISAS["x86_64"], xg, xgs)
xgg = waysout.global_regs(isas.ISAS["x86_64"], xg, xgs, xgl)
xat = {i.addr: waysout.of_global(isas.ISAS["x86_64"], i, xgg.get(i.addr, {}), xgl.get(i.addr, {})) for i in xg}
ok(xat[0x8] and not xat[0x10] and not xat[0x18],
   "ways out: x86 lea of a global + an index is a global's; + the lock's address, or a pointer loaded from a global: not")
# ppc's own stack: the prologue's indexed vector store and the epilogue's load are the stack's
ok(not waysout._touches(PPC, listing.Insn(0, "lxvd2x", ["vs63", "r1", "r3"], "lxvd2x vs63,r1,r3"))
   and waysout._touches(PPC, listing.Insn(0, "lwzx", ["r9", "r3", "r4"], "lwzx r9,r3,r4")),
   "ways out: ppc lxvd2x vs63,r1,r3 is the thread's own stack, lwzx r9,r3,r4 is not")

xf = listing.parse(x86_fn("cmp    $0x1,%eax", "jbe    c <P0+0xc>", "ret", "lock cmpxchg %dx,(%rdi)", "ret"))["P0"]
ok(slowpath._succ(X86, xf)[4] == [0xc, 0x8], "ways out: a branch the tables do not name (jbe) has both edges")
try:
    slowpath._succ(X86, listing.parse(x86_fn("ret", "lock cmpxchg %dx,(%rdi)", "ret"))["P0"])
    ok(False, "ways out: code the graph does not reach is refused")
except isas.NotTaken as e:
    ok("does not reach" in str(e), "ways out: code the graph does not reach is refused (%s)" % e)
ok(slowpath._succ(X86, listing.parse(x86_fn("ret", "xchg   %ax,%ax", "nopl   0x0(%rax)"))["P0"]) is not None,
   "ways out: padding after a return is not code lost")

# ---- lean.entry_values: the entry's register copies and constants as initial values
A64E, X86E, RVE, PPCE = (isas.ISAS[n] for n in ("aarch64", "x86_64", "riscv64", "ppc64le"))
got, ini = lean.entry_values(A64E, ["MOV X19,X1", "MOV X21,X0", "MOV W0,#1", "SWPA W0,W1,[X19]", "LDR W9,[X21]", "RET"],
                             "Lfail0", {"X0": "y", "X1": "l"}, ["x9"])
ok(got == ["SWPA W0,W1,[X19]", "LDR W9,[X21]", "RET"] and ini == {"X19": "l", "X21": "y", "X0": "1"},
   "entry values: aarch64 argument copies and a constant start in their registers; X1, read by none, goes (%s %s)"
   % (got, ini))
for why, lines in (("its destination read by a line kept before it", ["LDR W2,[X0]", "MOV X0,X3", "RET"]),
                   ("its source set by a line kept before it", ["LDR X3,[X0]", "MOV X4,X3", "STR W4,[X4]", "RET"]),
                   ("a W copy (zero-extended)", ["MOV W4,W0", "STR WZR,[X4]", "RET"]),
                   ("a negative W constant (zero-extended)", ["MOV W4,#-1", "STR W4,[X0]", "RET"]),
                   ("after a branch", ["CBZ X0,L0_8", "MOV X4,X0", "L0_8:", "STR WZR,[X4]", "RET"]),
                   ("after a label", ["L0_4:", "MOV X4,X0", "STR WZR,[X4]", "RET"])):
    got, ini = lean.entry_values(A64E, lines, "Lfail0", {"X0": "y"})
    ok(got == lines, "entry values refuse: aarch64 move %s (%s)" % (why, got))
got, ini = lean.entry_values(A64E, ["MOV X4,#-1", "STR X4,[X0]", "RET"], "Lfail0", {"X0": "y"})
ok(got == ["STR X4,[X0]", "RET"] and ini == {"X0": "y", "X4": "-1"}, "entry values: a negative X constant is its value")
got, ini = lean.entry_values(A64E, ["MOV X4,#1", "RET"], "Lfail0", {"X0": "y"}, ["x4"])
ok(got == ["RET"] and ini == {"X4": "1"}, "entry values: an observed register keeps its value, an unread argument goes")
got, ini = lean.entry_values(X86E, ["mov %rdi,%r12", "mov %edi,%r13d", "mov $-1,%eax", "movq $-1,%r15",
                                    "mov $1,%edx", "mov (%r12),%ecx", "mov %ecx,(%r13)", "mov %eax,(%rdi)",
                                    "mov %r15,(%rdi)", "mov %edx,(%rdi)", "ret"], "Lfail0", {"rdi": "x"})
ok(got[:3] == ["mov %edi,%r13d", "mov $-1,%eax", "mov (%r12),%ecx"] and ini == {"rdi": "x", "r12": "x", "r15": "-1",
                                                                               "rdx": "1"},
   "entry values: x86-64 64-bit copies and constants; a 32-bit copy or a negative 32-bit constant kept (%s %s)"
   % (got[:3], ini))
got, ini = lean.entry_values(X86E, ["cpuid", "mov %rdi,%r12", "mov (%r12),%ecx", "ret"], "Lfail0", {"rdi": "x"})
ok(got[:2] == ["cpuid", "mov %rdi,%r12"], "entry values refuse: x86-64 after a line that may touch unnamed registers")
got, ini = lean.entry_values(RVE, ["mv x9,x10", "li x15,1", "li x0,1", "sw x15,0(x9)", "ret"], "Lfail0", {"x10": "x"})
ok(got == ["li x0,1", "sw x15,0(x9)", "ret"] and ini == {"x9": "x", "x15": "1"},
   "entry values: riscv64 mv and li (not into zero) (%s %s)" % (got, ini))
got, ini = lean.entry_values(PPCE, ["mr r31,r3", "li r10,1", "li r0,5", "stw r10,0(r31)", "stw r0,0(r31)", "blr"],
                             "Lfail0", {"r3": "x"})
ok(got == ["li r0,5", "stw r10,0(r31)", "stw r0,0(r31)", "blr"] and ini == {"r31": "x", "r10": "1"},
   "entry values: ppc64le mr and li (not r0) (%s %s)" % (got, ini))


# ---- firstlock: the branches of a lock fl_site whose lock the order gives to its section first
FAIL_A64 = ["RET", "L0_68:", "B Lfail0", "Lfail0:", "MOV X28,#1", "RET"]
fl_site = ["SWPA W1,W0,[X4]", "CBNZ W0,L0_68", "MOV W0,#1", "STR W0,[X3]", "STLR WZR,[X5]"]
got = firstlock.decided(A64E, fl_site + FAIL_A64, {"X4": "l_o1", "X3": "x", "X5": "l_o2", "X1": "1"}, {"l_o1"})
ok("CBNZ W0,L0_68" not in got and got[:1] == fl_site[:1] and len(got) == len(fl_site) + len(FAIL_A64) - 1,
   "first lock: aarch64 swap on a first location, its CBNZ to FAIL dropped (%s)" % got)
got = firstlock.decided(A64E, fl_site + FAIL_A64, {"X4": "l_o2", "X3": "x", "X5": "l_o3"}, {"l_o1"})
ok(got == fl_site + FAIL_A64, "first lock: a second section's site keeps its branch (its lock starts held)")
fl_two = ["SWPA W1,W0,[X4]", "CBNZ W0,L0_68", "SWPA W1,W0,[X4]", "CMP W0,#0", "B.NE L0_68", "CBZ W0,L0_70", "L0_70:"]
got = firstlock.decided(A64E, fl_two + FAIL_A64, {"X4": "l_o1"}, {"l_o1"})
ok(got[:6] == ["SWPA W1,W0,[X4]", "SWPA W1,W0,[X4]", "CMP W0,#0", "B.NE L0_68", "CBZ W0,L0_70", "L0_70:"],
   "first lock: only the first access of a first location reads 0: a second swap's tests kept (%s)" % got[:6])
got = firstlock.decided(A64E, ["SWPA W1,W0,[X4]", "CBZ W0,L0_70", "B Lfail0", "L0_70:", "RET", "Lfail0:", "RET"],
                        {"X4": "l_o1"}, {"l_o1"})
ok(got[:3] == ["SWPA W1,W0,[X4]", "B L0_70", "B Lfail0"], "first lock: a branch always taken is a jump (%s)" % got[:3])
# the kernel layer's spin_lock: a try_cmpxchg, CASA (its compared register gets the value read)
fl_cas = ["MOV W0,WZR", "MOV W1,#1", "CASA W0,W1,[X2]", "CBZ W0,L0_70", "B Lfail0", "L0_70:", "STR W1,[X4]",
          "STLR WZR,[X5]", "RET", "Lfail0:", "MOV X10,#1", "RET"]
got = firstlock.decided(A64E, fl_cas, {"X2": "l_o1", "X4": "x", "X5": "l_o2"}, {"l_o1"})
ok(got[:4] == ["MOV W0,WZR", "MOV W1,#1", "CASA W0,W1,[X2]", "B L0_70"],
   "first lock: aarch64 CASA on a first location reads 0: its CBZ always taken, a jump (%s)" % got[:4])
got = firstlock.decided(A64E, fl_cas, {"X2": "l_o2", "X4": "x", "X5": "l_o3"}, {"l_o1"})
ok(got == fl_cas, "first lock: CASA on a second section's location keeps its branch")
got = firstlock.decided(A64E, ["STR W1,[X2]"] + fl_cas, {"X2": "l_o1", "X4": "x", "X5": "l_o2"}, {"l_o1"})
ok(got == ["STR W1,[X2]"] + fl_cas, "first lock: CASA after a store to its location keeps its branch")
fl_ppc_site = ["lwz r9,0(r7)", "cmpwi r9,0", "bne L0_90", "stw r10,0(r7)", "isync", "li r9,1", "stw r9,0(r6)",
            "lwsync", "li r9,0", "stw r9,0(r8)", "blr", "L0_90:", "b Lfail0", "Lfail0:", "li r30,1", "blr"]
got = firstlock.decided(PPCE, fl_ppc_site, {"r7": "l_o1", "r6": "x", "r8": "l_o2", "r10": "1"}, {"l_o1"})
ok("bne L0_90" not in got and "cmpwi r9,0" in got and len(got) == len(fl_ppc_site) - 1,
   "first lock: ppc64le plain site on a first location, its bne dropped, the compare kept (%s)" % got[:4])
got = firstlock.decided(PPCE, ["li r7,0"] + fl_ppc_site, {"r7": "l_o1", "r6": "x", "r8": "l_o2"}, {"l_o1"})
ok("bne L0_90" in got, "first lock: ppc64le base register set again before the site: kept")
fl_x86_site = ["xchg (%r8),%dx", "cmp %ax,%dx", "jne L0_50", "movl $1,(%rcx)", "movb $0,(%r9)", "ret", "L0_50:",
            "jmp Lfail0", "Lfail0:", "movq $1,%r15", "ret"]
got = firstlock.decided(X86E, fl_x86_site, {"r8": "l_o1", "rax": "0", "rdx": "1", "rcx": "x", "r9": "l_o2"}, {"l_o1"})
ok("jne L0_50" not in got and len(got) == len(fl_x86_site) - 1,
   "first lock: x86-64 16-bit swap against %%ax = 0, its jne dropped (%s)" % got[:3])
got = firstlock.decided(X86E, fl_x86_site, {"r8": "l_o1", "rdx": "1", "rcx": "x", "r9": "l_o2"}, {"l_o1"})
ok("jne L0_50" in got, "first lock: x86-64 compared with a register of no known value: kept")
got = firstlock.decided(X86E, ["mov $0x10000,%eax"] + fl_x86_site, {"r8": "l_o1", "rcx": "x", "r9": "l_o2"}, {"l_o1"})
ok("jne L0_50" not in got, "first lock: x86-64 16-bit compare sees %%ax of 0x10000 as 0 (%s)" % got[:4])
got = firstlock.decided(X86E, ["mov $0x1,%eax"] + fl_x86_site, {"r8": "l_o1", "rcx": "x", "r9": "l_o2"}, {"l_o1"})
ok(got[:4] == ["mov $0x1,%eax", "xchg (%r8),%dx", "cmp %ax,%dx", "jmp L0_50"],
   "first lock: x86-64 a compare that differs is always taken (%s)" % got[:4])
# gcc's riscv64 layout: the second fl_site after a label only a later jump reaches, its base a copy
fl_rv = ["lw x12,0(x15)", "and x6,x12,x11", "bne x6,x10,Lfail0", "sw x17,0(x15)", "j L0_10c", "L0_7c:",
      "mv x11,x18", "li x16,65535", "li x17,0", "lw x13,0(x11)", "and x6,x13,x16", "bne x6,x17,Lfail0",
      "sw x15,0(x11)", "ret", "L0_10c:", "j L0_7c", "Lfail0:", "li x27,1", "ret"]
got = firstlock.decided(RVE, fl_rv, {"x15": "l_o2", "x18": "m_o1", "x11": "65535", "x10": "0", "x17": "1"}, {"l_o1", "m_o1"})
ok(got.count("bne x6,x10,Lfail0") == 1 and "bne x6,x17,Lfail0" not in got,
   "first lock: riscv64 masked site through a copy, after a label a later jump reaches: dropped; the "
   "second-section site kept (%s)" % [ln for ln in got if ln.startswith("b")])
fl_loop = ["L0_0:", "lw x12,0(x15)", "bne x12,zero,L0_0", "sw x17,0(x15)", "ret", "Lfail0:", "ret"]
got = firstlock.decided(RVE, fl_loop, {"x15": "l_o1", "x17": "1"}, {"l_o1"})
ok(got == fl_loop, "first lock: a read in a loop is not the first access on every way there: kept")
fl_join = ["beq x9,zero,L0_8", "mv x15,x20", "L0_8:", "lw x12,0(x15)", "bne x12,zero,Lfail0", "ret", "Lfail0:", "ret"]
got = firstlock.decided(RVE, fl_join, {"x15": "l_o1", "x20": "y"}, {"l_o1"})
ok(got == fl_join, "first lock: a base the ways to the site disagree on: kept")


# ---- the normal form (normal.py): names herd7 does not read, renamed; nothing else
def table(arch, name, init, cols, tail):
    rows = ["%-22s | %-22s ;" % (cols[0][r] if r < len(cols[0]) else "", cols[1][r] if r < len(cols[1]) else "")
            for r in range(max(map(len, cols)))]
    return "%s %s\n{ %s }\n P0 | P1 ;\n%s\n%s\n" % (arch, name, init, "\n".join(rows), tail)


A64_MP = ("x=0; y=0; 0:X0=x; 0:X1=y; 1:X0=x; 1:X1=y;", "locations [1:X9; 1:X10]\nexists (1:X9=1 /\\ 1:X10=0)")
mp_gcc = table("AArch64", "MP+gcc", A64_MP[0], [["MOV W2,#1", "STR W2,[X0]", "STLR W2,[X1]", "RET"],
                                                 ["LDAR W9,[X1]", "CBNZ W9,L1_1c", "L1_1c:", "LDR W10,[X0]", "RET"]],
               A64_MP[1])
mp_clang = table("AArch64", "MP+clang", A64_MP[0], [["MOV W8,#1", "STR W8,[X0]", "STLR W8,[X1]", "RET"],
                                                     ["LDAR W9,[X1]", "CBNZ W9,L1_30", "L1_30:", "LDR W10,[X0]", "RET"]],
                 A64_MP[1])
n_gcc, back = normal.normal(A64, mp_gcc)
n_clang, back_clang = normal.normal(A64, mp_clang)
ok(n_gcc == n_clang, "normal form: two tests that differ in name, registers and labels only are one test")
ok(normal.normal(A64, n_gcc)[0] == n_gcc, "normal form: the normal form of a normal form is itself")
ok("1:X0=1 /\\ 1:X2=0" in n_gcc and back["1:X0"] == "1:X9" and back["1:W2"] == "1:W10" and "0:X0" not in back
   and "{ 0:X1=x; 0:X2=y; 1:X1=y; 1:X3=x; x=0; y=0; }" in n_gcc,
   "normal form: a thread's registers in order of first use (code, then initial state and condition), the initial "
   "values sorted, and the observed ones back (%s)" % n_gcc.split("\n")[1])
other = table("AArch64", "MP+other", A64_MP[0], [["MOV W2,#1", "STR W2,[X0]", "STLR W3,[X1]", "RET"],
                                                  ["LDAR W9,[X1]", "CBNZ W9,L1_1c", "L1_1c:", "LDR W10,[X0]", "RET"]],
               A64_MP[1])
ok(normal.normal(A64, other)[0] != n_gcc, "normal form: a register used differently is a different test")
swapped = table("AArch64", "MP", A64_MP[0], [["MOV W2,#1", "STR W2,[X1]", "STLR W2,[X0]", "RET"],
                                             ["LDAR W9,[X1]", "CBNZ W9,L1_1c", "L1_1c:", "LDR W10,[X0]", "RET"]],
                A64_MP[1])
ok(normal.normal(A64, swapped)[0] != n_gcc, "normal form: the same code on other locations is a different test")
# webs: a register reused for a second value is two names; one written on two ways into a join is one
reuse = table("AArch64", "t", "x=0; y=0; 0:X0=x; 0:X1=y; 1:X0=x;",
              [["LDR W2,[X0]", "STR W2,[X1]", "MOV W2,#1", "STR W2,[X0]", "RET"], ["RET"]], "locations [x]")
fresh = table("AArch64", "t", "x=0; y=0; 0:X0=x; 0:X1=y; 1:X0=x;",
              [["LDR W5,[X0]", "STR W5,[X1]", "MOV W7,#1", "STR W7,[X0]", "RET"], ["RET"]], "locations [x]")
ok(normal.normal(A64, reuse)[0] == normal.normal(A64, fresh)[0],
   "normal form: a register reused for a second value and two registers are one test (webs)")
normal.WEBS = False
ok(normal.normal(A64, reuse)[0] != normal.normal(A64, fresh)[0], "normal form: without webs they are two")
normal.WEBS = True
join = table("AArch64", "t", "x=0; 0:X0=x; 1:X0=x;",
             [["LDR W3,[X0]", "CBZ W3,L0_1", "MOV W4,#1", "B L0_2", "L0_1:", "MOV W4,#2", "L0_2:", "STR W4,[X0]",
               "RET"], ["RET"]], "locations [x]")
nj = normal.normal(A64, join)[0]
ok("MOV W2,#1" in nj and "MOV W2,#2" in nj and "STR W2,[X1]" in nj,
   "normal form: a register written on both ways into a join and read after it is one name (%s)"
   % [ln.split("|")[0].strip() for ln in nj.split("\n")[3:12]])
obs = table("AArch64", "t", "x=0; 0:X0=x; 1:X0=x;",
            [["LDR W3,[X0]", "CBZ W3,L0_1", "MOV W9,#1", "RET", "L0_1:", "MOV W9,#2", "RET"], ["LDR W9,[X0]", "RET"]],
            "locations [0:X9; 1:X9]")
no, bo = normal.normal(A64, obs)
ok("MOV W2,#1" in no and "MOV W2,#2" in no and "locations [0:X2; 1:X0]" in no and bo["0:X2"] == "0:X9"
   and bo["1:X0"] == "1:X9", "normal form: an observed register set on two ways to two returns is one name, "
   "and back (%s %s)" % (no.split("\n")[-3:], bo))
both = normal.normal(A64, table("AArch64", "t", "x=0; 0:X0=x; 1:X0=x;", [["LDR X0,[X0]", "STR W0,[X0]", "RET"],
                                                                      ["RET"]], "locations [x]"))[0]
ok("LDR X0,[X0]" in both and "0:X0=x" in both, "normal form: a line that reads the register it writes keeps one name")
lost = normal.normal(A64, table("AArch64", "t", "x=0; 0:X0=x; 1:X0=x;", [["MOV W5,#1", "B L9_9", "RET"], ["RET"]],
                                "locations [x]"))[0]
ok("MOV W0,#1" in lost, "normal form: a branch to a label the thread lacks: one name per register, as before webs")
fixed = normal.normal(A64, table("AArch64", "t", "x=0; 0:X0=x; 1:X0=x;", [["MOV X30,#1", "STR WZR,[X0]", "RET"],
                                                                          ["LDR W29,[X0]", "RET"]], "locations [x]"))[0]
ok("X30" in fixed and "WZR" in fixed and "W29" in fixed, "normal form: aarch64's X29, X30 and WZR keep their names")
X86N = isas.ISAS["x86_64"]
x86t = table("X86_64", "t", "x=0; 0:rdi=x; 1:rdi=x;",
             [["mov $1,%r11d", "lock; cmpxchg %r11d,(%rdi)", "mov %eax,%ebx", "ret"],
              ["mov (%rdi),%r10", "cpuid", "mov %r10,%rsi", "ret"]], "locations [0:rbx; 1:rsi]")
nx, bx = normal.normal(X86N, x86t)
c0 = [ln.split("|")[0].rstrip() for ln in nx.split("\n") if ln.endswith(";")]
c1 = [ln.split("|")[1] for ln in nx.split("\n") if ln.endswith(";")]
ok(c0[1:4] == [" mov $1,%ebx", " lock; cmpxchg %ebx,(%rsi)", " mov %eax,%edi"],
   "normal form: x86-64's cmpxchg keeps %%rax, its other registers are renamed (%s)" % c0)
ok(any("%r10" in c for c in c1) and any("%rsi" in c for c in c1) and "1:rsi" in nx,
   "normal form: an x86-64 thread with an instruction that may use a register it does not name keeps its names")
ok(bx.get("0:rdi") == "0:rbx" and bx.get("0:edi") == "0:ebx" and "0:rdi" in nx and "1:rsi" not in bx,
   "normal form: x86-64 states renamed back, every part of a register")
hi = normal.normal(X86N, table("X86_64", "t", "x=0; 0:rdi=x; 1:rdi=x;", [["movb %bh,(%rdi)", "ret"], ["ret"]],
                               "locations [x]"))[0]
ok("%bh" in hi and "%rdi" in hi, "normal form: an x86-64 thread that names a high byte keeps its names")
RVN, PPCN = isas.ISAS["riscv64"], isas.ISAS["ppc64le"]
ok(not A64.renames("CASPAL X0,X1,X2,X3,[X4]") and not PPCN.renames("lq r4,0(r3)") and not PPCN.renames("stqcx. r4,0,r3")
   and not RVN.renames("amocas.q x5,x6,(x10)") and A64.renames("CASAL W0,W1,[X2]") and PPCN.renames("lwarx r4,0,r3"),
   "normal form: a thread with a register pair (casp, lq, stqcx., amocas.q) keeps its names")
rvn = normal.normal(RVN, table("RISCV", "t", "x=0; 0:x10=x; 1:x10=x;", [["li a5,1", "sw a5,0(x10)", "ret"],
                                                                       ["lw x15,0(x10)", "ret"]], "locations [1:x15]"))
ok("li t0,1" in rvn[0] and "sw t0,0(x6)" in rvn[0] and "0:x6=x" in rvn[0] and "lw x5,0(x6)" in rvn[0] and
   rvn[1]["1:x5"] == "1:x15", "normal form: riscv64 renamed by number, an ABI name kept an ABI name")
pp = normal.normal(PPCN, table("PPC", "t", "x=0; 0:r3=x; 1:r3=x;", [["li r9,1", "stw r9,0(r3)", "stw r0,0(r1)", "blr"],
                                                                    ["lmw r29,0(r3)", "blr"]], "locations [1:r29]"))[0]
ok("li r3,1" in pp and "stw r0,0(r1)" in pp and "lmw r29,0(r3)" in pp,
   "normal form: ppc64le's r0 and r1 keep their names, a thread with lmw all of them")


def permuted(isa, text, seed):
    """The test with each thread's renameable registers permuted at random (a test herd7 reads as
    the same), by the same rules normal.py renames with."""
    import random
    rnd = random.Random(seed)
    lines, start, end, cols = translate.read_code_table(text)
    width = len(cols)
    perm = []
    for k in range(width):
        pool = list(isa.RENAME_POOL)
        perm.append(dict(zip(pool, rnd.sample(pool, len(pool)))))

    def sub(k, name):
        fam = isa.family(name)
        return isa.spell(perm[k][fam[0]], fam[1]) if fam else name
    out = []
    for n, ln in enumerate(lines):
        if start < n < end:
            cells = ln.rstrip()[:-1].split("|")
            ln = "|".join(isa.HERD_REG.sub(lambda m: m.group(0).replace(m.group(0).lstrip("%"),
                                                                        sub(k, m.group(0).lstrip("%"))), c)
                          for k, c in enumerate(cells)) + ";"
        elif n != start:
            ln = normal.COND_KEY.sub(lambda m: "%s:%s" % (m.group(1), sub(int(m.group(1)), m.group(2)))
                                     if int(m.group(1)) < width else m.group(0), ln)
        out.append(ln)
    return "\n".join(out)


samples = [(A64, mp_gcc), (A64, a64_litmus(sb_listing(True))[0]), (RVN, rv_sb(True)[0]), (RVN, rv_sb(False, lean=True)[0]),
           (X86N, x86_litmus(x86_fn("mov    $0x1,%edx", "lock xadd %edx,(%rdi)", "mov    %edx,%r11d", "ret"))[0])]
same = [normal.normal(isa, permuted(isa, t, seed))[0] == normal.normal(isa, t)[0] and permuted(isa, t, seed) != t
        for isa, t in samples for seed in range(20)]
ok(all(same), "normal form: 20 random register permutations of each of %d tests, one normal form each (%d of %d)"
   % (len(samples), sum(same), len(same)))

# ---- with herd7: the pipeline must be able to fail

try:
    h7, lib = herd.find_herd()
except herd.HerdMissing as e:
    h7 = None
    print("# SKIP herd7 part: %s" % e)
if h7:
    import tempfile
    H = herd.Herd(h7, lib, os.path.dirname(os.path.abspath(__file__)), tempfile.mkdtemp(prefix="kv-test-"))
    src = H.run(a64_litmus(sb_listing(True))[0], source=False)
    weak = H.run(a64_litmus(sb_listing(False))[0], source=False)
    both0 = frozenset([("0:X9", "0"), ("1:X9", "0")])
    ok("states" in src and both0 not in src["states"], "herd7: SB with dmb ish never ends with both loads 0")
    ok("states" in weak and both0 in weak["states"], "herd7: SB without it does: the verifier can see a dropped fence")
    res = H.run(a64_litmus(listing.parse(objdump(llsc)))[0] if False else
                translate.litmus(A64, t2, listing.parse(objdump(llsc)), {0: ["x9"]})[0], source=False)
    ok("states" in res and res["states"] and not res.get("unrolled"), "herd7 takes a filtered retry loop without unrolling")
    # x86: the xadd's store and old value survive, and so does its full barrier (SB on xadd then a load)
    res = H.run(x86_litmus(x86_fn("mov    $0x1,%edx", "lock xadd %edx,(%rdi)", "mov    %edx,%r11d", "ret"),
                           dict(X86T, cond="(x=1)", observed=[["0:r0", "%0:0%"]]))[0].replace(
                               "locations [0:r11]", "locations [0:r11; x]"), source=False)
    ok(res.get("states") == [frozenset([("0:r11", "0"), ("x", "1")])],
       "herd7: lock xadd 1 on x=0 ends with x=1 and the old value 0: %s" % res.get("states"))
    xsb = dict(SB, threads=[dict(t, observed=["r0"]) for t in SB["threads"]])

    def x86_sb(add):
        f = listing.parse(x86_fn("mov    $0x1,%eax", add, "mov    (%rsi),%r11d", "ret") +
                          x86_fn("mov    $0x1,%eax", add, "mov    (%rsi),%r11d", "ret", name="P1", base=0x40))
        return translate.litmus(x86, xsb, f, {0: ["r11"], 1: ["r11"]})[0]
    both0 = frozenset([("0:r11", "0"), ("1:r11", "0")])
    locked, plain = H.run(x86_sb("lock xadd %eax,(%rdi)"), source=False), H.run(x86_sb("add    %eax,(%rdi)"), source=False)
    ok("states" in locked and both0 not in locked["states"], "herd7: SB through lock xadd forbids both loads 0")
    ok("states" in plain and both0 in plain["states"], "herd7: without the lock it allows them: a dropped lock is seen")
    res = H.run(x86_litmus(x86_fn("mov    (%rdi),%eax", "cmp    $0x1,%eax", "jl     10 <P0+0x10>",
                                  "movl   $0x1,(%rsi)", "ret"), dict(X86T, vars=[{"name": "x", "init": 1},
                                  {"name": "y", "init": 0}], observed=[], cond="(y=1)",
                                  threads=[{"id": 0, "args": ["x", "y"], "observed": []}]))[0], source=False)
    ok(res.get("states") == [frozenset([("y", "1")])], "herd7: x86 jl on 1 < 1 falls through (the store kept): %s"
       % res.get("states"))
    # ppc: the fused iszero is C's (low word == 0) for the words a 32-bit compare tells apart
    for v in (0, 1, 2, 0x40000000, 0x7fffffff, 0x80000000, 0xffffffff):
        lines, _ = translate.thread(ppc, ppc_iszero("srwi\tr9,r9,5")[:1] + ppc_iszero("srwi\tr9,r9,5")[2:],
                                    set(), 0, {"r3", "r9"})
        res = H.run("PPC iszero%d\n{ x=%d; 0:r3=x; }\n P0 ;\n%s\nlocations [0:r9]\nexists (0:r9=0)\n"
                    % (v, v, "\n".join(" %s ;" % ln for ln in lines)), source=False)
        ok(res.get("states") == [frozenset([("0:r9", "1" if v == 0 else "0")])],
           "herd7: ppc cntlzw/srwi 5 of %#x is %d: %s" % (v, v == 0, res))
    # ppc: the fused cr0 bit is the compare's LT/GT/EQ, and the stwcx.'s success as EQ
    def cr0bit(pre, n):
        lines, _ = translate.thread(ppc, ppc.prepare(listing.parse(x86_fn(
            *pre, "mfocrf\tr9,128", "rlwinm\tr9,r9,%d,31,31" % n, "blr"))["P0"]), set(), 0, {"r3", "r9"})
        res = H.run("PPC crbit\n{ x=0; 0:r3=x; }\n P0 ;\n%s\nlocations [0:r9]\nexists (0:r9=0)\n"
                    % "\n".join(" %s ;" % ln for ln in lines), source=False)
        return sorted(v for st in res.get("states", []) for _, v in st)
    for v, n, want in ((5, 1, ["0"]), (5, 2, ["1"]), (5, 3, ["0"]), (0, 3, ["1"]), (-2, 1, ["1"])):
        got = cr0bit(("li\tr10,%d" % v, "cmpwi\tr10,0"), n)
        ok(got == want, "herd7: ppc cr0 bit %d after cmpwi of %d is %s: %s" % (n, v, want, got))
    got = cr0bit(("li\tr10,1", "lwarx\tr8,0,r3", "stwcx.\tr10,0,r3"), 3)
    ok(got == ["0", "1"], "herd7: ppc stwcx.'s success is cr0's EQ (it may fail): %s" % got)
    # x86: movslq as movl rests on herd7 holding a 32-bit result as a signed word
    for v, want in ((0xffffffff, "-1"), (0x7fffffff, "2147483647"), (0x80000000, "-2147483648"), (5, "5")):
        res = H.run("X86_64 sx%d\n{ x=%d; 0:rdi=x; }\n P0 ;\n movl (%%rdi),%%r11d ;\n %s ;\nlocations [0:r10]\n"
                    "exists (0:r10=0)\n" % (v, v, x86_ex("movslq %r11d,%r10", "ret")[0]), source=False)
        ok(res.get("states") == [frozenset([("0:r10", want)])],
           "herd7: x86 movslq of the word %#x (as movl) is %s: %s" % (v, want, res))
    # riscv: the masked sub-word xchg keeps its store, its value and the fence after it
    rb = [frozenset([("0:x6", "0"), ("1:x6", "0")])]
    fenced, bare = (H.run(rv_sb(f)[0].replace("locations [", "locations [x; y; "), source=False) for f in (True, False))
    ok("states" in fenced and not any(rb[0] <= st for st in fenced["states"]) and
       all(("x", "1") in st and ("0:x5", "0") in st for st in fenced["states"]),
       "herd7: riscv masked byte xchg: x=1 stored, old value 0, and with its fence SB forbids both loads 0")
    ok("states" in bare and any(rb[0] <= st for st in bare["states"]), "herd7: riscv without the fence: allowed")
    # the slow path's ways out: ldaxr; stxr; dmb; ret an acquire; without the dmb and with a plain ldxr,
    # a WEAKER way out; with the ldxr and the dmb, ordered at the dmb
    def ways(ld, fence):
        fs = slow_fn(ld + "\tw1, [x0]", "cbnz\tw1, 0x0", "stxr\tw2, w3, [x0]", "cbnz\tw2, 0x0",
                     *((["dmb\tish"] if fence else []) + ["ret"]))
        return waysout.ways_out(H, A64, fs, slowpath._succ(A64, fs), slowpath.WIDE_PICK["aarch64"])
    for ld, fence, want in (("ldaxr", False, "covered"), ("ldxr", True, "covered"), ("ldxr", False, "WEAKER")):
        sites, outs, tests, weaker = ways(ld, fence)
        got = "WEAKER" if weaker else "covered" if outs and all(w["covered"] for w in outs) else "not covered"
        ok(got == want, "herd7: ways out of %s%s: %s (%s)" % (ld, " with dmb ish" if fence else "", want, got))
    # riscv64: gcc's masked 16-bit CAS (rv_cas above) with its fence r,rw on the way out covers the
    # return (the failed compare then the equal test is no path: otherwise it would reach the
    # return unordered); without the fence the way out is WEAKER
    for fence, want in (("fence\tr,rw", "covered"), ("nop", "WEAKER")):
        fs = [i for i in rv_cas("nop")]
        fs[-2].mnem, fs[-2].ops = (fence.split("\t") + [""])[0], [o for o in (fence.split("\t") + [""])[1].split(",") if o]
        sites, outs, tests, weaker = waysout.ways_out(H, rv, fs, slowpath._succ(rv, fs), slowpath.WIDE_PICK["riscv64"])
        got = "WEAKER" if weaker else "covered" if outs and all(w["covered"] for w in outs) else "not covered"
        ok(got == want, "herd7: ways out of riscv's masked CAS %s: %s (%s)" % (
            "with fence r,rw" if fence != "nop" else "without its fence", want, got))
    # herd7's X86_64 lets an xchg write coherence-before the store it read (C-rel-seq3 of the
    # corpus) under its default options; verify's (-optace true: coherence checked as candidates are
    # built) and the known-weakness check's model (the RMW's own atomicity added) both rule it out
    rs = """X86_64 kv-rel-seq3
{ x=0; y=0; 0:rdi=x; 0:rsi=y; 1:rdi=y; 2:rdi=y; 3:rdi=x; 3:rsi=y; }
 P0              | P1               | P2                | P3                ;
 movl $1,(%rdi)  | mov (%rdi),%r11d | mov $3,%r11d      | mov (%rsi),%r11d  ;
 movl $1,(%rsi)  | movl $2,(%rdi)   | xchg %r11d,(%rdi) | mov (%rdi),%r10d  ;
locations [1:r11; 2:r11; 3:r11; 3:r10]
exists (1:r11=1 /\\ 2:r11=2 /\\ 3:r11=3 /\\ 3:r10=0)
"""
    bad = frozenset([("1:r11", "1"), ("2:r11", "2"), ("3:r11", "3"), ("3:r10", "0")])
    from katomic_tools.verify import known  # noqa: E402
    import subprocess  # noqa: E402
    with open(os.path.join(H.cache, "kv-rel-seq3.litmus"), "w") as f:
        f.write(rs)
    p = subprocess.run([h7] + (["-set-libdir", lib] if lib else []) + ["-variant", "telechat", f.name],
                       capture_output=True, text=True)
    stock = herd.parse_output(p.stdout, p.stderr)
    verify = H.run(rs, source=False)
    atomic = H.run(rs, source=False, model=H.model_file(*known.PROBES["x86_64"]["model"]))
    ok(any(bad <= st for st in stock.get("states", [])), "herd7 x86, default options: an xchg may write before "
       "the store it read (the model's gap)")
    ok("states" in verify and not any(bad <= st for st in verify["states"]) and "states" in atomic
       and not any(bad <= st for st in atomic["states"]),
       "herd7 x86: that state is gone with verify's -optace true and with the known-weakness check's model")
    ok(not known.Known(H).weak("x86_64"), "herd7 x86: the cmpxchg probe finds the gap closed under verify's options")
    # the lock-site swap keeps what the CAS allows: two increments under a lock end with x=2
    def two_incs(lines):
        body = [ln.replace("Lfail0", "Lfail%d") for ln in lines]
        cols = [[ln.replace("%d", str(t)).replace("L0_", "L%d_" % t) for ln in body] + ["Lx%d:" % t] for t in (0, 1)]
        rows = ["%-24s | %-24s ;" % (cols[0][r] if r < len(cols[0]) else "", cols[1][r] if r < len(cols[1]) else "")
                for r in range(max(map(len, cols)))]
        return ("AArch64 kv-inc\n{ l=0; x=0; 0:X2=l; 0:X3=x; 1:X2=l; 1:X3=x; }\n P0 | P1 ;\n" + "\n".join(rows) +
                "\nlocations [x]\nfilter (0:X28=0 /\\ 1:X28=0)\nexists (x=2)\n")
    inc = A64_CAS[:9] + ["L0_40:", "B Lfail0", "Lfail0:", "MOV X28,#1", "RET"]
    whole, swapped = H.run(two_incs(inc), source=False), H.run(two_incs(A64.swap_lock_sites(inc, "Lfail0")[0]), source=False)
    # the normal form: herd7's states of a test and of its normal form, renamed back, are the same
    same = []
    for isa, text in ((A64, a64_litmus(sb_listing(False))[0]), (A64, two_incs(inc)), (A64, mp_gcc),
                      (X86N, x86_sb("lock xadd %eax,(%rdi)")), (X86N, rs),
                      (RVN, rv_sb(False)[0].replace("locations [", "locations [x; y; ")), (RVN, rv_sb(True, lean=True)[0])):
        plain = H.run(text, source=False).get("states")
        same.append(bool(plain) and sorted(map(sorted, plain)) == sorted(map(sorted, normal.run(H, isa, text)["states"])))
    ok(all(same) and len(same) == 7, "herd7: each test and its normal form have the same states (%s)" % same)
    ok("states" in whole and whole["states"] == swapped.get("states") == [frozenset([("x", "2")])],
       "herd7: two locked increments end with x=2, with the CAS and with the swap (%s, %s)" % (whole, swapped))
    # the same on x86-64 with gcc's 16-bit fast path: a compare of the wrong width would let the second
    # thread in while the lock is held (x=1)
    def x86_incs(lines):
        cols = [[ln.replace("Lfail0", "Lfail%d" % t).replace("L0_", "L%d_" % t) for ln in lines] for t in (0, 1)]
        rows = ["%-26s | %-26s ;" % (cols[0][r] if r < len(cols[0]) else "", cols[1][r] if r < len(cols[1]) else "")
                for r in range(max(map(len, cols)))]
        return ("X86_64 kv-inc16\n{ l=0; x=0; 0:rdi=l; 0:rsi=x; 1:rdi=l; 1:rsi=x; }\n P0 | P1 ;\n" + "\n".join(rows) +
                "\nlocations [x]\nfilter (0:r15=0 /\\ 1:r15=0)\nexists (x=2)\n")
    inc16 = ["mov $0,%eax", "mov $1,%edx", "lock; cmpxchg (%rdi),%dx", "jne L0_40", "movl (%rsi),%ecx",
             "add $1,%ecx", "movl %ecx,(%rsi)", "movw $0,(%rdi)", "jmp L0_50", "L0_40:", "jmp Lfail0", "Lfail0:",
             "movq $1,%r15", "L0_50:"]
    sw16, how = x86.swap_lock_sites(inc16, "Lfail0", None)
    w16, s16 = H.run(x86_incs(inc16), source=False), H.run(x86_incs(sw16), source=False)
    ok(how == "swap" and "cmp %ax,%dx" in sw16 and "states" in w16 and w16["states"] == s16.get("states") ==
       [frozenset([("x", "2")])],
       "herd7 x86: two increments under a 16-bit lock end with x=2, with the cmpxchg and with the swap (%s, %s)"
       % (w16, s16))
    # one order of the split: P0 takes l_o1 (free) first and frees l_o2 for P1; firstlock drops P0's test
    order = [ln.replace("movw $0,(%rdi)", "movw $0,(%r9)") for ln in sw16]
    p0 = firstlock.decided(x86, order, {"rdi": "l_o1", "r9": "l_o2", "rsi": "x"}, {"l_o1"})

    def x86_order(c0, c1):
        cols = [c0, [ln.replace("Lfail0", "Lfail1").replace("L0_", "L1_") for ln in c1]]
        rows = ["%-26s | %-26s ;" % (cols[0][r] if r < len(cols[0]) else "", cols[1][r] if r < len(cols[1]) else "")
                for r in range(max(map(len, cols)))]
        return ("X86_64 kv-order\n{ l_o1=0; l_o2=1; l_o3=1; x=0; 0:rdi=l_o1; 0:r9=l_o2; 0:rsi=x; 1:rdi=l_o2; "
                "1:r9=l_o3; 1:rsi=x; }\n P0 | P1 ;\n" + "\n".join(rows) +
                "\nlocations [x; 1:rcx]\nfilter (0:r15=0 /\\ 1:r15=0)\nexists (x=2)\n")
    kept, dropped = H.run(x86_order(order, order), source=False), H.run(x86_order(p0, order), source=False)
    ok(len(p0) == len(order) - 1 and "states" in kept and kept["states"] == dropped.get("states") ==
       [frozenset([("x", "2"), ("1:rcx", "2")])],
       "herd7 x86: one split order, P0's first-section test dropped, the same states (%s, %s)" % (kept, dropped))
    wrong = H.run(x86_order(order, [ln for ln in order if not ln.startswith("jne")]), source=False)
    ok("states" in wrong and frozenset([("x", "1"), ("1:rcx", "1")]) in wrong["states"],
       "herd7 x86: the second section's test dropped instead lets P1 in before the unlock (x=1): %s" % wrong.get("states"))
sys.exit(tap.summary())

"""Where herd7's architecture model is weaker than the architecture, each
shown by a probe run at every verify run (so a fixed herd7 retires it).

A weaker model only adds states: a test it judges "ok" is ok.  A WEAKER whose
compiled code uses the instructions a probe names, and whose WEAKER states all
go once the model's gap is closed (the probe's patch of the test, or its model
with the missing axiom), is not a verdict on katomic's code: it is reported as
"not judged" with the probe's finding.
"""
import re

from . import translate

PROBES = {
    "x86_64": {
        "id": "x86-cmpxchg-atomicity",
        "pattern": re.compile(r"\b(cmpxchg|xchg|xadd)"),
        "what": ("herd7's X86_64 model lets a locked RMW read a write coherence-after its own (x86tso.cat's "
                 "uniproc check, acyclic po-loc | com, does not see the read and write of one instruction): "
                 "in its probe a cmpxchg succeeds on a store that overwrites it; with that axiom added "
                 "(irreflexive rmw;co;rf) the WEAKER states go"),
        # the check: the model with the RMW's own atomicity (its write is not coherence-before the
        # write it read) must lose every WEAKER state; other WEAKERs stay WEAKER
        "model": ("x86tso.cat", "irreflexive rmw;co;rf as rmw-own-write", "X86_64"),
        # P0's cmpxchg succeeds (r11 = 0) only by reading P1's store of 0, so its 1 is after it: s = 1
        "test": """X86_64 kv-probe-cmpxchg
{ s=5; 0:rdi=s; 1:rdi=s; }
 P0                         | P1                        ;
 xor %eax,%eax              | movl $0,(%rdi)            ;
 mov $1,%edx                | ret                       ;
 lock; cmpxchg (%rdi),%edx  |                           ;
 mov %eax,%r11d             |                           ;
 ret                        |                           ;
locations [s]
exists (0:r11=0 /\\ s=0)
""",
        # the model is weak when this state (the cmpxchg succeeded, yet the store it read is last) exists
        "weak_state": frozenset([("0:r11", "0"), ("s", "0")]),
    },
    "ppc64le": {
        "id": "ppc-stwcx-isync-acquire",
        "pattern": re.compile(r"stwcx\.[\s\S]*?\bbne[-+]?\b[\s\S]*?\bisync\b"),
        "what": ("herd7's ppc.cat does not make lwarx; stwcx.; bne; isync an acquire (the kernel's own "
                 "PPC_ACQUIRE_BARRIER sequence after an LL/SC loop): in its probe a later load passes it; "
                 "with lwsync in that isync's place (an acquire in the model) the WEAKER state goes"),
        # the check: the same test with lwsync for each such isync must lose every WEAKER state
        "patch": (re.compile(r"(stwcx\.[^|;]*;[^;]*?\bbne[-+]?\s+\S+\s*;[^;]*?)\bisync\b"), r"\1lwsync"),
        "test": """PPC kv-probe-isync
{ x=0; y=0; 0:r3=x; 0:r4=y; 1:r3=x; 1:r4=y; }
 P0                | P1                ;
 li r9,1           | li r9,2           ;
 stw r9,0(r3)      | lwarx r10,r0,r4   ;
 lwsync            | stwcx. r9,r0,r4   ;
 stw r9,0(r4)      | bne Lf1           ;
 blr               | isync             ;
                   | lwz r9,0(r3)      ;
                   | blr               ;
                   | Lf1:              ;
                   | li r31,1          ;
                   | blr               ;
filter (1:r31=0)
exists (1:r10=1 /\\ 1:r9=0)
""",
        "weak_state": frozenset([("1:r10", "1"), ("1:r9", "0")]),
    },
}


class Known:
    def __init__(self, herd):
        self.herd = herd
        self.found = {}

    def weak(self, isa_name):
        """The probe's finding for this ISA if herd7's model is weak there, else None."""
        if isa_name not in self.found:
            p = PROBES.get(isa_name)
            res = self.herd.run(p["test"], source=False) if p else {}
            states = res.get("states", [])
            self.found[isa_name] = p if p and any(p["weak_state"] <= st for st in states) else None
        return self.found[isa_name]

    def explains(self, isa_name, listing_text, herd_text, still_weaker):
        """The reason a WEAKER is the model's, not the code's, or None.
        still_weaker(text, model=None): does the herd test `text` (under that model) still allow a state
        the LKMM forbids?"""
        p = self.weak(isa_name)
        if not p or not p["pattern"].search(listing_text):
            return None
        if "patch" in p:
            rx, repl = p["patch"]
            patched = _patch_columns(herd_text, rx, repl)
            if patched == herd_text or still_weaker(patched):
                return None
        if "model" in p:
            model = self.herd.model_file(*p["model"])
            if model is None or still_weaker(herd_text, model):
                return None
        return "herd7 model (%s): %s" % (p["id"], p["what"])


def _patch_columns(text, rx, repl):
    """Apply rx to each thread's column of a herd test (read top to bottom, instructions joined by ';')."""
    lines, start, end, cells = translate.read_code_table(text)
    cols = [rx.sub(repl, ";".join(col)).split(";") for col in cells]
    out = lines[:start + 1]
    for k in range(end - start - 1):
        out.append("|".join(col[k] if k < len(col) else "" for col in cols) + " ;")
    return "\n".join(out + lines[end:])

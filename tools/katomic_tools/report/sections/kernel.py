"""The Linux kernel on C11: the kernel built stock and on katomic's C11
atomics, each booted under qemu with its self-tests and torture tests
(docs/kernel-boot.md), and the code audit of the two (docs/kernel.md).
From the optional katomic-kernel document (m.kernel); "" when absent."""
from ...common.tables import Table, h, md_escape
from .. import rules
from ...kernel.audit import reason_groups

TITLE = "The Linux kernel on C11"


def _tests(b):
    st = ", ".join("%s %s" % (s["name"], s["status"]) for s in b["selftests"]) or "-"
    tor = ", ".join("%s %s" % (t["type"], t["status"] if not t["errors"] else "%s (%d errors)" % (
        t["status"], t["errors"])) for t in b["torture"]) or "-"
    return st, tor


def boots_table(k):
    cols = ["variant", "config", "cc", "-smp", "result", "self-tests", "torture", "splats"]
    if k.kvm:
        cols.append("boot s")
    t = Table(cols)
    for b in k.boots:
        st, tor = _tests(b)
        result = "PASS" if b["passed"] else "FAIL: " + (b["problems"] or ["?"])[0]
        row = [b["variant"], b["config"], b["cc"], b["smp"], result, st, tor, len(b["splats"])]
        if k.kvm:
            row.append("%.1f" % b["seconds"] if b["accel"] == "kvm" else "-")
        t.add(*row)
    return t


def builds_table(k):
    t = Table(["variant", "config", "cc", "built", "objtool warnings", "text bytes", "lock prefixes"])
    for b in k.builds:
        t.add(b["variant"], b["config"], b["cc"], "yes" if b["ok"] else "FAILED: " + b.get("error", "?"),
              "-" if b["objtool_warnings"] is None else b["objtool_warnings"],
              "-" if b["text_bytes"] is None else b["text_bytes"],
              "-" if b["lock_prefixes"] is None else b["lock_prefixes"])
    return t


UP_HEAD = ("UP lock elision: the lock sites .smp_locks records (the kernel's rule patches them on one CPU) and the "
           "lock prefixes left in the text of a -smp 1 guest, read by the guest itself (the .smp_locks probe, "
           "docs/kernel.md); modules: the build's own modules' sites, and the probe module's reading; "
           "C11: objtool's .smp_locks against katomic's decoder, site for site")


def up_table(k):
    """Per compiler and variant (stock beside C11): sites recorded, left locked on one CPU."""
    rows = [b for b in k.builds if b.get("arch", "x86_64") == "x86_64" and "up_elision" in b]
    if not rows:
        return None
    order = {"stock": 0}
    rows = sorted(rows, key=lambda b: (b["config"], b["cc"], order.get(b["variant"], 1), b["variant"]))
    t = Table(["config", "cc", "variant", ".smp_locks sites (kernel text)", "patched 0x3e / still 0xf0",
               "unrecorded, 0xf0", "left locked on one CPU: kernel", "modules: recorded",
               "modules: left locked", "probe module: recorded patched / sites", "table freed",
               "objtool vs decoder"])
    for b in rows:
        u = b["up_elision"]
        c = b.get("smp_locks_crosscheck")
        if not c or not c.get("checked"):
            cross = "-" if not c else "not checked: " + c["reason"]
        elif c["agree"]:
            cross = "agree (%d + %d sites)" % (c["vmlinux"]["objtool"], c["modules"]["objtool"])
        else:
            cross = "DIFFER: %d missing, %d extra" % (c["vmlinux"]["n_missing"] + c["modules"]["n_missing"],
                                                     c["vmlinux"]["n_extra"] + c["modules"]["n_extra"])
        if not u["measured"]:
            t.add(b["config"], b["cc"], b["variant"], "not measured: " + u["reason"], *["-"] * 7, cross)
            continue
        t.add(b["config"], b["cc"], b["variant"], u["recorded"],
              "%d / %d" % (u["recorded_patched"], u["recorded_locked"]),
              "%d of %d" % (u["unrecorded_locked"], u["unrecorded"]), u["left_locked"],
              u["modules_recorded"], u["modules_left_locked"],
              "%d / %d" % (u["probe_recorded_patched"], u["probe_recorded"]),
              "yes" if u["table_freed"] else "no", cross)
    return t


TOP_GROWN = 5      # functions more than 16 bytes bigger shown per audit (all: kernel-audit.md)


def audit_table(k):
    """x86-64: stock vs the C11 arch layer, per config and compiler."""
    if not k.x86_audit:
        return None
    t = Table(["config", "cc", "text delta bytes", "functions grown", "functions shrunk", "lock prefixes stock",
               "lock prefixes C11", ".smp_locks stock", ".smp_locks C11", "functions >16 B bigger", "grew most"])
    for a in k.x86_audit:
        bl = a["bloat"]
        top = ", ".join("%s %+d" % (f["fn"], f["delta"]) for f in bl["top_grown"][:3]) or "-"
        sl = a.get("smp_locks", {})
        t.add(a["config"], a["cc"], "%+d" % bl["total_delta"], bl["grown"], bl["shrunk"],
              a["lock_prefixes"]["stock"], a["lock_prefixes"]["c11"], sl.get("stock", "-"), sl.get("c11", "-"),
              len(bl["grown_over_16"]) if "grown_over_16" in bl else "-", top)
    return t


INSN_COLS = (("full fences", ("full_fence",)), ("acquire/release", ("acq_rel",)), ("LL/SC loops", ("llsc_loop",)),
             ("LSE/AMO", ("lse", "lse_full", "amo", "amo_full")),
             ("of them fully ordered", ("lse_full", "amo_full")))


def _insns(counts, keys):
    return sum(counts.get(x, 0) for x in keys)


def cross_table(k):
    """--arch: stock vs the asm-generic C11 layer, per architecture, config and compiler."""
    if not k.cross_audit:
        return None
    t = Table(["arch", "isa", "config", "cc", "text stock", "text C11", "text delta bytes"] +
              ["%s stock -> C11" % c for c, _ in INSN_COLS] +
              ["probes judged", "WEAKER", "functions >16 B bigger", "C11 boots"])
    for a in k.cross_audit:
        bl, ins = a["bloat"], a.get("insns", {"stock": {}, "c11": {}})
        v = a.get("verdicts", {})
        weaker = a.get("weaker", v.get("WEAKER", 0))
        t.add(a["arch"], a.get("isa", "-"), a["config"], a["cc"], bl.get("total_before", "-"),
              bl.get("total_after", "-"), "%+d" % bl["total_delta"],
              *["%d -> %d" % (_insns(ins["stock"], keys), _insns(ins["c11"], keys)) for _, keys in INSN_COLS],
              ", ".join("%s %d" % kv for kv in sorted(v.items())) or "-",
              "%d FAIL" % weaker if weaker else "0",
              len(bl["grown_over_16"]) if "grown_over_16" in bl else "-",
              k.boot_verdict(a["config"], a["cc"], a.get("variant", "c11")))
    return t


def grown_lists(k):
    """[(title, rows)] per audit: the functions more than 16 bytes bigger, the largest first."""
    out = []
    for a in k.audit:
        rows = a["bloat"].get("grown_over_16")
        if rows is None:
            continue
        title = "%s %s %s: %d function(s) more than 16 bytes bigger%s" % (
            a.get("arch", "x86_64"), a["config"], a["cc"], len(rows),
            (", the %d largest (all, with their reasons: kernel-audit.md)" % TOP_GROWN) if len(rows) > TOP_GROWN else "")
        if rows:
            title += "; by reason: " + "; ".join("%d %s" % ng for ng in reason_groups(rows))
        out.append((title, sorted(rows, key=lambda r: -r["delta"])[:TOP_GROWN]))
    return out


def caption(k):
    m = k.doc["machine"]
    how = ("under KVM: the boot times are the kernel's" if k.kvm else
           "under TCG (qemu's emulator; KVM did not work here): the comparison is on code and correctness, "
           "boot times would measure the emulator and are not shown")
    return ("Linux %s, built on %s (%s CPUs, load %s), %s; %s" % (
        k.doc["source"]["version"], m["name"], m["cpus"], m["load"], how,
        "each torture test ran %d s" % k.torture_s if k.boots else "no kernel booted in these runs"))


def text(m):
    k = m.kernel
    if k is None:
        return ""
    out = "\n%s: %s\n%s" % (TITLE, caption(k), boots_table(k).text())
    for tab in (audit_table(k), cross_table(k)):
        if tab is not None:
            out += tab.text()
    u = up_table(k)
    if u is not None:
        out += "%s\n%s" % (UP_HEAD, u.text())
    return out


def markdown(m):
    k = m.kernel
    if k is None:
        return ""
    out = "\n## %s\n\n%s.\n\nBoots (docs/kernel-boot.md):\n\n%s\nBuilds:\n\n%s" % (
        TITLE, md_escape(caption(k)), boots_table(k).markdown(), builds_table(k).markdown())
    a = audit_table(k)
    if a is not None:
        out += "\nCode, C11 against stock (docs/kernel.md):\n\n%s" % a.markdown()
    u = up_table(k)
    if u is not None:
        out += "\n%s:\n\n%s" % (md_escape(UP_HEAD), u.markdown())
    c = cross_table(k)
    if c is not None:
        out += ("\nBringing up a new architecture: the asm-generic C11 layer against the architecture's own atomics "
                "(katomic kernel --arch; instructions counted over vmlinux; the kernel's operations judged by the "
                "codegen classifier, WEAKER is a failure):\n\n%s" % c.markdown())
    for title, rows in grown_lists(k):
        out += "\n%s:\n\n" % md_escape(title) + "".join(
            "- %s %+d bytes: %s\n" % (md_escape(r["fn"]), r["delta"], md_escape(r["reason"])) for r in rows)
    if k.kept_asm:
        out += "\nStill inline asm in the C11 kernel:\n\n" + "".join(
            "- %s: %s\n" % (md_escape(x["what"]), md_escape(x["why"])) for x in k.kept_asm)
    return out


def html(m):
    k = m.kernel
    if k is None:
        return ""
    out = '<h2 id="%s">%s</h2>\n<p class="cap">%s.</p>\n<p>Boots (docs/kernel-boot.md):</p>\n%s' % (
        h(m.html_id("kernel")), h(TITLE), h(caption(k)), boots_table(k).html(m.html_id("kernel-boots")))
    out += "<p>Builds:</p>\n" + builds_table(k).html(m.html_id("kernel-builds"))
    a = audit_table(k)
    if a is not None:
        out += "<p>Code, C11 against stock (docs/kernel.md):</p>\n" + a.html(m.html_id("kernel-audit"))
    u = up_table(k)
    if u is not None:
        out += "<p>%s:</p>\n%s" % (h(UP_HEAD), u.html(m.html_id("kernel-up")))
    c = cross_table(k)
    if c is not None:
        out += ("<p>Bringing up a new architecture: the asm-generic C11 layer against the architecture's own "
                "atomics (katomic kernel --arch; instructions counted over vmlinux; the kernel's operations judged "
                "by the codegen classifier, WEAKER is a failure):</p>\n" + c.html(m.html_id("kernel-arch"), rules.cell_colour))
    for title, rows in grown_lists(k):
        out += "<p>%s:</p>\n<ul>%s</ul>\n" % (h(title), "".join(
            "<li>%s %+d bytes: %s</li>" % (h(r["fn"]), r["delta"], h(r["reason"])) for r in rows))
    if k.kept_asm:
        out += "<p>Still inline asm in the C11 kernel:</p>\n<ul>%s</ul>\n" % "".join(
            "<li>%s: %s</li>" % (h(x["what"]), h(x["why"])) for x in k.kept_asm)
    return out

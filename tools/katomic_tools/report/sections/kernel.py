"""The Linux kernel on C11: the kernel built stock and on katomic's C11
atomics, each booted under qemu with its self-tests and torture tests
(docs/kernel-boot.md), and the code audit of the two (docs/kernel.md).
From the optional katomic-kernel document (m.kernel); "" when absent."""
from ...common.tables import Table, h, md_escape

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


def audit_table(k):
    if not k.audit:
        return None
    t = Table(["config", "cc", "text delta bytes", "functions grown", "functions shrunk",
               "lock prefixes stock", "lock prefixes C11", "grew most"])
    for a in k.audit:
        bl = a["bloat"]
        top = ", ".join("%s %+d" % (f["fn"], f["delta"]) for f in bl["top_grown"][:3]) or "-"
        t.add(a["config"], a["cc"], "%+d" % bl["total_delta"], bl["grown"], bl["shrunk"],
              a["lock_prefixes"]["stock"], a["lock_prefixes"]["c11"], top)
    return t


def caption(k):
    m = k.doc["machine"]
    how = ("under KVM: the boot times are the kernel's" if k.kvm else
           "under TCG (qemu's emulator; KVM did not work here): the comparison is on code and correctness, "
           "boot times would measure the emulator and are not shown")
    return ("Linux %s, built on %s (%s CPUs, load %s), %s; each torture test ran %d s" % (
        k.doc["source"]["version"], m["name"], m["cpus"], m["load"], how, k.torture_s))


def text(m):
    k = m.kernel
    if k is None:
        return ""
    out = "\n%s: %s\n%s" % (TITLE, caption(k), boots_table(k).text())
    a = audit_table(k)
    if a is not None:
        out += a.text()
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
    if k.kept_asm:
        out += "<p>Still inline asm in the C11 kernel:</p>\n<ul>%s</ul>\n" % "".join(
            "<li>%s: %s</li>" % (h(x["what"]), h(x["why"])) for x in k.kept_asm)
    return out

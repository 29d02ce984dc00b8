# Reads `objdump -dr` of the probe object and writes one line per probe_
# function (tab-separated):
#   probe n atomics fullfences lightfences loops calls libcalls pre post fenceabil heavy seq
# n          instructions after normalisation (addresses, nops/padding and the
#            trailing return dropped)
# atomics    atomic instructions: x86 lock/xchg-mem, arm64 ld*x/st*x/LSE,
#            ppc larx/stcx., riscv lr/sc/amo, s390 la*/cs*, arm ldrex/strex,
#            and calls to atomic helpers (__atomic_*, __sync_*, __aarch64_*)
# fullfences / lightfences   fences ordering everything / only some pairs
# loops      backward branches; calls: every call; libcalls: the atomic helpers
# pre        ordering before the first atomic access: none, rel, full
# post       ordering after the last atomic access: none, acq, full
# fenceabil  what the fences present can order: F full, A acquire, R release,
#            L load-load, S store-store (letters, or -)
# heavy      x86: mfence/lfence/sfence used (the kernel's smp_mb is a locked op)
# seq        the normalised instructions joined with "; "
# ARCH is x86_64, aarch64, ppc64le, riscv64, s390x or armhf; CANON=1 renames
# registers in order of appearance (r1, r2, ...).

function flush(    i, j, last, pre, post, fa, k, ab, s, first_a, last_a, sx) {
	if (fn == "") return
	# drop the trailing return
	last = ni
	while (last > 0 && isret(ins[last])) { last--; break }
	n = last
	natom = 0; full = 0; light = 0; loops = 0; calls = 0; lib = ""; heavy = 0; ab = ""
	first_a = 0; last_a = 0
	for (i = 1; i <= n; i++) {
		if (ia[i] != "") { natom++; if (!first_a) first_a = i; last_a = i }
		if (ifk[i] != "") { if (ifk[i] == "FULL") full++; else light++; ab = ab abil(ifk[i]) }
		if (ibk[i]) loops++
		if (icall[i] != "") { calls++; if (icall[i] ~ /^(__atomic_|__sync_|__aarch64_)/) lib = lib (lib == "" ? "" : ",") icall[i] }
		if (ins[i] ~ /^(mfence|lfence|sfence)/) heavy = 1
	}
	# ordering levels around the atomic accesses
	pre = 0; post = 0
	if (first_a) {
		# "before the atomic access": before the load-exclusive that starts the
		# first store-exclusive's loop (an earlier ldrexd may be a plain 64-bit read)
		for (i = first_a; i <= last_a; i++) if (ia[i] != "" && ia[i] !~ /l/) break
		for (j = i; j > first_a; j--) if (ia[j] ~ /l/) break
		if (i <= last_a && ia[i] ~ /s/) first_a = j
		for (i = 1; i < first_a; i++) pre = max(pre, frel(ifk[i]))
		# LL/SC: a successful store-exclusive makes the pair one atomic access,
		# so judge by the success path: a fence before the first
		# store-exclusive (even after its load-exclusive) orders what comes
		# before the whole RMW, and one after it, what comes after.
		for (sx = first_a; sx <= last_a; sx++) if (ia[sx] ~ /s/) break
		if (sx <= last_a) {
			for (i = first_a; i < sx; i++) pre = max(pre, frel(ifk[i]))
			for (i = sx + 1; i <= last_a; i++) post = max(post, facq(ifk[i]))
		}
		for (i = first_a; i <= last_a; i++) {
			if (ia[i] ~ /F/) { pre = max(pre, 2); post = max(post, 2) }
			if (ia[i] ~ /R/) pre = max(pre, 1)
			if (ia[i] ~ /A/) post = max(post, 1)
			if (ia[i] ~ /P/) post = max(post, 2)	# riscv AMO.aq: the one access is ordered before everything later
		}
		for (i = last_a + 1; i <= n; i++) post = max(post, facq(ifk[i]))
	} else {
		for (i = 1; i <= n; i++) { pre = max(pre, frel(ifk[i])); post = max(post, facq(ifk[i])) }
	}
	for (i = 1; i <= n; i++) {	# ldar / stlr: acquire load, release store
		if (iacq[i]) post = max(post, 1)
		if (irel[i]) pre = max(pre, 1)
	}
	s = ""
	for (i = 1; i <= n; i++) s = s (i > 1 ? "; " : "") ins[i]
	printf "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%d\t%s\n", fn, n, natom, full, light, loops, calls,
		(lib == "" ? "-" : lib), (pre == 2 ? "full" : pre == 1 ? "rel" : "none"),
		(post == 2 ? "full" : post == 1 ? "acq" : "none"), (ab == "" ? "-" : uniq(ab)), heavy, (s == "" ? "-" : s)
	fn = ""
}

function max(a, b) { return a > b ? a : b }
function uniq(s,    o, i, c) { o = ""; for (i = 1; i <= length(s); i++) { c = substr(s, i, 1); if (index(o, c) == 0) o = o c } return o }
# fence kinds: FULL, LW (ppc lwsync), TSO, ACQ, REL, LD, ST
function abil(k) {
	if (k == "FULL") return "FARLS"
	if (k == "LW" || k == "TSO") return "ARLS"
	if (k == "ACQ") return "AL"
	if (k == "REL") return "RS"
	if (k == "LD") return "L"
	if (k == "ST") return "S"
	return ""
}
function frel(k) { return k == "FULL" ? 2 : (k == "LW" || k == "TSO" || k == "REL") ? 1 : 0 }
function facq(k) { return k == "FULL" ? 2 : (k == "LW" || k == "TSO" || k == "ACQ") ? 1 : 0 }

function isret(s) {
	if (ARCH == "x86_64") return s ~ /^(rep )?retq?$/
	if (ARCH == "ppc64le") return s == "blr"
	if (ARCH == "s390x") return s == "br %r14"
	if (ARCH == "armhf") return s == "bx lr"
	return s == "ret"
}

function isnop(m, ops) {
	if (m ~ /^(nop|nopw|nopl|c\.nop|nopr|\.\.\.)$/ || m ~ /^\./) return 1
	if (ARCH == "x86_64" && (m ~ /^(int3|endbr64|data16|cs|ds)$/)) return 1
	if (ARCH == "x86_64" && m == "xchg" && ops == "%ax,%ax") return 1
	if (ARCH == "ppc64le" && m == "ori" && ops == "r2,r2,0") return 1
	if (ARCH == "ppc64le" && m ~ /^\./) return 1
	if (ARCH == "s390x" && m == "bcr" && ops ~ /^0,/) return 1
	return 0
}

# fence kind of an instruction, "" if none
function fencekind(m, ops,    pr, su) {
	if (ARCH == "x86_64") {
		if (m == "mfence") return "FULL"
		if (m == "lfence") return "LD"
		if (m == "sfence") return "ST"
		if (m ~ /^lock (or|add)[bwlq]?$/ && ops ~ /^\$0x0,(-0x[0-9a-f]+)?\(%rsp\)$/) return "FULL"
		return ""
	}
	if (ARCH == "aarch64" || ARCH == "armhf") {
		# ARM: a condition suffix (dmbeq in an IT block) still is the fence
		if (ARCH == "armhf") sub(/^(dmb|dsb)(eq|ne|cs|cc|hs|lo|mi|pl|vs|vc|hi|ls|ge|lt|gt|le)$/, substr(m, 1, 3), m)
		if (m != "dmb" && m != "dsb") return ""
		if (ops ~ /st$/) return "ST"
		if (ops ~ /ld$/) return "ACQ"
		return "FULL"
	}
	if (ARCH == "ppc64le") {
		if (m == "sync" || m == "hwsync" || (m == "sync" && ops == "0")) return "FULL"
		if (m == "lwsync") return "LW"
		if (m == "isync") return "ACQ"
		if (m == "eieio") return "ST"
		return ""
	}
	if (ARCH == "riscv64") {
		if (m == "fence.tso") return "TSO"
		if (m != "fence") return ""
		if (ops == "") return "FULL"
		pr = ops; sub(/,.*/, "", pr); su = ops; sub(/.*,/, "", su)
		if (pr ~ /r/ && pr ~ /w/ && su ~ /r/ && su ~ /w/) return "FULL"
		if (pr ~ /r/ && su ~ /r/ && su ~ /w/) return "ACQ"
		if (pr ~ /r/ && pr ~ /w/ && su ~ /w/) return "REL"
		if (pr ~ /r/ && su ~ /r/) return "LD"
		if (pr ~ /w/ && su ~ /w/) return "ST"
		return "LIGHT"
	}
	if (ARCH == "s390x") {
		if ((m == "bnor" && ops == "%r0") || (m == "bcr" && ops ~ /^1[45],%r0$/) || (m == "br" && ops == "%r0")) return "FULL"
		return ""
	}
	return ""
}

# atomic flags of an instruction: "" if not atomic, else "X" plus
# A (acquire), R (release), F (full on its own), P (post-full for riscv AMO.aq)
function atomflags(m, ops,    f, suf) {
	if (ARCH == "x86_64") {
		if (m ~ /^lock /) return "XF"
		if (m ~ /^xchg[bwlq]?$/ && ops ~ /\(/) return "XF"
		return ""
	}
	if (ARCH == "aarch64") {
		if (m ~ /^ld(a)?x(r|p)[bh]?$/) return "Xl" (m ~ /^lda/ ? "A" : "")
		if (m ~ /^st(l)?x(r|p)[bh]?$/) return "Xs" (m ~ /^stl/ ? "R" : "")
		if (m ~ /^(ld(add|clr|eor|set|smax|smin|umax|umin)|st(add|clr|eor|set|smax|smin|umax|umin)|swp|casp?)(a|l|al)?[bh]?$/) {
			suf = m
			sub(/^(ld(add|clr|eor|set|smax|smin|umax|umin)|st(add|clr|eor|set|smax|smin|umax|umin)|swp|casp?)/, "", suf)
			sub(/[bh]$/, "", suf)
			if (suf == "al") return "XARF"
			if (suf == "a") return "XA"
			if (suf == "l") return "XR"
			return "X"
		}
		return ""
	}
	if (ARCH == "ppc64le") return m ~ /^l[bhwdq]arx$/ ? "Xl" : m ~ /^st[bhwdq]cx\.$/ ? "Xs" : ""
	if (ARCH == "riscv64") {
		if (m !~ /^(lr|sc|amo[a-z]+)\.[wdbh]/) return ""
		f = m ~ /^lr\./ ? "Xl" : m ~ /^sc\./ ? "Xs" : "X"
		if (m ~ /\.aqrl$/) f = f "AR" (m ~ /^amo/ ? "F" : "")
		else if (m ~ /\.aq$/) f = f "A" (m ~ /^amo/ ? "P" : "")
		else if (m ~ /\.rl$/) f = f "R"
		return f
	}
	if (ARCH == "s390x") {
		if (m ~ /^(cs|csg|csy|cds|cdsg|cdsy)$/) return "XF"	# compare and swap serialises
		if (m ~ /^la(a|al|n|o|x)g?$/) return "X"
		return ""
	}
	if (ARCH == "armhf") return m ~ /^ldrex[bhd]?$/ ? "Xl" : m ~ /^strex[bhd]?$/ ? "Xs" : ""
	return ""
}

# flags of an out-of-line atomic helper, from its name
function helperflags(sym) {
	if (sym ~ /^__aarch64_/) {
		if (sym ~ /_acq_rel$/) return "XAR"
		if (sym ~ /_acq$/) return "XA"
		if (sym ~ /_rel$/) return "XR"
		if (sym ~ /_sync$/) return "XARF"
		return "X"
	}
	if (sym ~ /^(__atomic_|__sync_)/) return "XARF"	# order passed at run time; taken as asked
	return ""
}

function canon(s,    out, r, key) {
	out = ""
	while (match(s, /%[a-z0-9]+|\<([xwr][0-9]+|[astr][0-9]+|ip|lr)\>/)) {
		r = substr(s, RSTART, RLENGTH)
		if (r ~ /^%(rsp|rip)$/ || r == "lr") key = r
		else { if (!(r in CR)) CR[r] = "R" (++NCR); key = CR[r] }
		out = out substr(s, 1, RSTART - 1) key
		s = substr(s, RSTART + RLENGTH)
	}
	return out s
}

function startfn(name, addr) {
	flush()
	fn = name; base = strtonum_hex(addr); ni = 0; NCR = 0; delete CR
}

function strtonum_hex(h,    i, c, v) {
	v = 0; h = tolower(h)
	for (i = 1; i <= length(h); i++) { c = index("0123456789abcdef", substr(h, i, 1)); if (c == 0) break; v = v * 16 + c - 1 }
	return v
}

BEGIN { fn = ""; FS = "\t" }

/^[0-9a-f]+ <[^>]+>:$/ {
	name = $0; sub(/^[0-9a-f]+ </, "", name); sub(/>:$/, "", name)
	addr = $0; sub(/ .*/, "", addr)
	if (name ~ /^probe_/) startfn(name, addr)
	else if (name !~ /^\./) flush()	# .L local labels (riscv, s390) stay inside the function
	next
}
fn == "" { next }
/^[ \t]*[0-9a-f]+: R_/ {	# relocation of the previous instruction
	if (ni == 0) next
	line = $0; sub(/^[ \t]*[0-9a-f]+: /, "", line)
	split(line, rf, /[ \t]+/)
	sym = rf[2]; sub(/[-+]0x[0-9a-f]+$/, "", sym)
	if (ins[ni] ~ /^(call|callq|jmp|bl|b|brasl|jg|jgnop|blx|auipc|j|jal|tail)( |$)/ || rf[1] ~ /(CALL|PLT|JUMP24|JUMP26|REL24)/) {
		if (sym !~ /^(\.|probe_)/ || sym ~ /^probe_ext$/) {
			icall[ni] = sym
			ins[ni] = ins[ni] " [" sym "]"
			if (ia[ni] == "") ia[ni] = helperflags(sym)
		}
	}
	next
}
/^[ \t]*[0-9a-f]+:\t/ {
	# address, bytes, instruction (mnemonic and operands separated by a tab or spaces)
	if (NF < 3) next
	a = $1; sub(/^[ \t]*/, "", a); sub(/:$/, "", a)
	text = $3
	for (k = 4; k <= NF; k++) text = text " " $k
	if (ARCH == "aarch64") sub(/[ \t]*\/\/.*$/, "", text)	# objdump comments
	else if (ARCH == "armhf") sub(/[ \t]*@.*$/, "", text)
	else sub(/[ \t]+#.*$/, "", text)
	gsub(/[ \t]+/, " ", text); sub(/^ /, "", text); sub(/ $/, "", text)
	if (text == "") next
	m = text; ops = ""
	if (text ~ /^(lock|rep|repz|repnz|notrack|bnd) /) { split(text, w, " "); m = w[1] " " w[2]; ops = substr(text, length(m) + 2) }
	else if (index(text, " ")) { m = substr(text, 1, index(text, " ") - 1); ops = substr(text, index(text, " ") + 1) }
	if (isnop(m, ops)) next
	if (text == "(bad)") next
	ni++
	fk = fencekind(m, ops); af = fk == "" ? atomflags(m, ops) : ""
	if (ARCH == "x86_64" && fk != "") af = ""
	ia[ni] = af; ifk[ni] = fk; icall[ni] = ""; ibk[ni] = 0
	iacq[ni] = (ARCH == "aarch64" && m ~ /^ld(a|apu?)r[bh]?$/)
	irel[ni] = (ARCH == "aarch64" && m ~ /^stl(u)?r[bh]?$/)
	# branch target: "<hex> <probe_x+0x..>" -> "<+0x..>", backward = loop
	if (match(ops, /[0-9a-f]+ <[^>]+>/)) {
		tg = substr(ops, RSTART, RLENGTH); ta = tg; sub(/ .*/, "", ta)
		off = strtonum_hex(ta) - base
		local = tg ~ ("<" fn "(\\+0x[0-9a-f]+)?>") || tg ~ /<\./
		if (local && strtonum_hex(ta) <= strtonum_hex(a) && strtonum_hex(ta) >= base) ibk[ni] = 1
		if (local)
			ops = substr(ops, 1, RSTART - 1) sprintf("<+0x%x>", off) substr(ops, RSTART + RLENGTH)
		else { sub(/[0-9a-f]+ </, "<", ops) }
	}
	if (CANON) ops = canon(ops)
	ins[ni] = ops == "" ? m : m " " ops
	next
}
END { flush() }

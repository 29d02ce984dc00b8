# Sourced by tests/check-interop.sh (uses its pass, flunk, expect_clean, $tmp):
# katomic beside the standard libraries' atomics, for one compiler, its C++
# twin and one backend.  The programs are generated from gen/stdnames.tbl.
#   stdnames_matrix CC CXX BACKEND BACKEND_FLAG
# (sh has no local variables: the caller's cc, cxx, b and bflag keep their
# values; every other variable set here is scratch)

# std_ok COMPILER LANG STD: the compiler knows -std=STD
std_ok() { echo 'int katomic_std_probe;' | $1 -x "$2" -std="$3" -fsyntax-only - >/dev/null 2>&1; }

# build_and_run WHAT COMPILER ARGS...: warning-free build into $tmp/sn, run,
# ok if it exits 0 with no "not ok" line
build_and_run() {
	what=$1; shift
	rm -f "$tmp/sn" "$tmp/out"
	if "$@" -Wall -Wextra -Werror -Iinclude -Itests -o "$tmp/sn" 2>"$tmp/err" &&
		"$tmp/sn" >"$tmp/out" 2>&1 && ! grep -q '^not ok' "$tmp/out"; then
		skips=$(grep -c '# SKIP' "$tmp/out")
		pass "$what ($(grep -c '^ok' "$tmp/out") checks$([ "$skips" -gt 0 ] && echo ", $skips of them names this version lacks"))"
	else
		grep '^not ok' "$tmp/out" >>"$tmp/err" 2>/dev/null; flunk "$what"
	fi
}

# expect_errors WHAT N COMPILER ARGS...: does not compile, with exactly N
# errors, each naming KATOMIC_PREFIX
expect_errors() {
	what=$1 want=$2; shift 2
	if "$@" -Wall -Wextra -Werror -Iinclude -fsyntax-only 2>"$tmp/err"; then flunk "$what (it compiled)"; return; fi
	got=$(grep -c 'error:' "$tmp/err")
	named=$(grep 'error:' "$tmp/err" | grep -c KATOMIC_PREFIX)
	if [ "$got" -eq "$want" ] && [ "$named" -eq "$want" ]; then pass "$what"
	else flunk "$what ($got errors, $named naming KATOMIC_PREFIX; expected $want)"; fi
}

# The functions of an object file, one instruction a line prefixed by the
# function's name; addresses dropped (jump targets keep <function+offset>).
# disasm OBJECT [OBJDUMP]
disasm() {
	${2:-objdump} -d --no-show-raw-insn "$1" | awk '
		/^[0-9a-f]+ <.*>:$/ { fn = $2; next }
		fn != "" && /^ +[0-9a-f]+:/ {
			sub(/^ +[0-9a-f]+:[ \t]+/, ""); gsub(/[0-9a-f]+ </, "<")
			if ($0 !~ /^(nop|xchg +%ax,%ax|cs nop|data16|ori +r2,r2,0$)/) print fn, $0
		}'
}

# all_std_headers c|c++ katomic-first|std-first: a source including katomic
# (and kernel.h) and every header of the C23 or C++23 standard library the
# compiler has (<strstream>: left out, libstdc++ warns that it is deprecated)
all_std_headers() {
	[ "$2" = katomic-first ] && printf '#include <katomic/kernel.h>\n'
	if [ "$1" = c ]; then
		set -- "$2" assert complex ctype errno fenv float inttypes iso646 limits locale math setjmp \
			signal stdalign stdarg stdatomic stdbit stdbool stdckdint stddef stdint stdio stdlib \
			stdnoreturn string tgmath threads time uchar wchar wctype
		o=$1; shift
		for h in "$@"; do printf '#if __has_include(<%s.h>)\n#include <%s.h>\n#endif\n' $h $h; done
	else
		set -- "$2" algorithm any array atomic barrier bit bitset charconv chrono codecvt compare complex \
			concepts condition_variable coroutine deque exception execution expected filesystem \
			flat_map flat_set format forward_list fstream functional future generator \
			initializer_list iomanip ios iosfwd iostream istream iterator latch limits list locale map \
			mdspan memory memory_resource mutex new numbers numeric optional ostream print queue random \
			ranges ratio regex scoped_allocator semaphore set shared_mutex source_location span \
			spanstream sstream stack stacktrace stdexcept stdfloat stop_token streambuf string \
			string_view syncstream system_error thread tuple type_traits typeindex typeinfo \
			unordered_map unordered_set utility valarray variant vector version cassert cctype cerrno \
			cfenv cfloat cinttypes climits clocale cmath csetjmp csignal cstdarg cstddef cstdint cstdio \
			cstdlib cstring ctime cuchar cwchar cwctype
		o=$1; shift
		for h in "$@"; do printf '#if __has_include(<%s>)\n#include <%s>\n#endif\n' $h $h; done
		# C++23's <stdatomic.h>, not the C one a library without it leaves on the path
		printf '#ifdef __cpp_lib_stdatomic_h\n#include <stdatomic.h>\n#endif\n'
	fi
	[ "$o" = std-first ] && printf '#include <katomic/kernel.h>\n'
	printf 'int katomic_all_std_headers;\n'
}

# The names both define, from the generated header.
both_names() { sed -n 's/^#define \(atomic_[a-z_]*\)(a, b) __ka_c11_or_kernel.*/\1/p' include/katomic/generated/names-stdatomic.h; }

stdnames_matrix() {
	cc=$1 cxx=$2 b=$3 bflag=$4
	# Every language version with the C11 backend; another backend changes
	# only the kernel's side: its default versions.  T_CSTDS, T_CXXSTDS: others.
	cstds="gnu11 c11 c17 gnu2x" cxxstds="c++17 c++20 c++23"
	[ "$b" = c11 ] || { cstds=gnu11 cxxstds=c++17; }
	# ---- every name's meaning: C
	for std in ${T_CSTDS:-$cstds}; do
		std_ok "$cc" c "$std" || { echo "# $cc has no -std=$std: skipped"; continue; }
		for order in after before; do
			oflag=; [ $order = before ] && oflag=-DT_STD_FIRST
			build_and_run "$cc -std=$std $b: <stdatomic.h> $order katomic: C11's names mean C11's, the kernel's the kernel's" \
				"$cc" -std=$std -O2 $bflag $oflag tests/generated/stdnames.c
		done
	done
	# ---- C++: <atomic>, and C++23's <stdatomic.h> where the library has it
	if [ -n "$cxx" ]; then
		for std in ${T_CXXSTDS:-$cxxstds}; do
			s=$std
			std_ok "$cxx" c++ $s || { [ $std = c++23 ] && s=c++2b; }
			std_ok "$cxx" c++ $s || { echo "# $cxx has no -std=$std: skipped"; continue; }
			hdrs="<atomic>"
			[ $std = c++23 ] && printf '#include <stdatomic.h>\n_Atomic(int) x;\n' |
				$cxx -x c++ -std=$s -fsyntax-only - >/dev/null 2>&1 && hdrs="<atomic> <stdatomic.h>"
			for h in $hdrs; do
				hflag=; [ "$h" = "<stdatomic.h>" ] && hflag=-DT_STDATOMIC_H
				for order in after before; do
					oflag=; [ $order = before ] && oflag=-DT_STD_FIRST
					build_and_run "$cxx -std=$s $b: $h $order katomic: std::'s names mean the standard's, the kernel's the kernel's" \
						"$cxx" -x c++ -std=$s -O2 $bflag $oflag $hflag tests/generated/stdnames-cxx.c -latomic
				done
			done
		done
	fi

	# ---- a program with a kernel-style and a C11 copy of one structure, threads
	for order in after before; do
		oflag=; [ $order = before ] && oflag=-DSTD_FIRST
		build_and_run "$cc $b: <stdatomic.h> $order katomic: tests/interop/stdatomic.c, kernel-style and C11 side by side" \
			"$cc" -std=gnu11 -O2 -pthread $bflag $oflag tests/interop/stdatomic.c
	done

	# ---- every standard header after katomic (and before): no other name
	# of either standard library is broken by a katomic macro
	if [ "$b" = c11 ]; then
		for order in katomic-first std-first; do
			all_std_headers c "$order" >"$tmp/allstd.c"
			expect_clean "$cc -std=gnu11: every C standard header, $order" "$cc" "$tmp/allstd.c" -std=gnu11
			[ -n "$cxx" ] || continue
			all_std_headers c++ "$order" >"$tmp/allstd.cc"
			for s in c++23 c++2b; do	# the newest: every header exists and compiles there
				std_ok "$cxx" c++ $s || continue
				expect_clean "$cxx -std=$s: every C++ standard header, $order" "$cxx" "$tmp/allstd.cc" -std=$s
				break
			done
		done
	fi

	# ---- a call that fits neither: one error per call, naming KATOMIC_PREFIX
	# (the dispatch does not depend on the backend: checked once)
	if [ "$b" = c11 ]; then
		for nm in $(both_names); do
			printf '#include <katomic/katomic.h>\n#include <stdatomic.h>\nka_atomic_t k; int pl; atomic_int ai;\nint f(void);\n' >"$tmp/m.c"
			printf 'int f(void) { return %s(&k, 1) + %s(1, &pl) + %s(&pl, 1); }\n' $nm $nm $nm >>"$tmp/m.c"
			expect_errors "$cc: $nm(&atomic_t, 1), (1, &int), (&int, 1): three errors naming KATOMIC_PREFIX" 3 "$cc" -std=gnu11 "$tmp/m.c"
			[ -n "$cxx" ] || continue
			for call in "&k, 1" "1, &pl" "&pl, 1"; do
				printf '#include <atomic>\n#include <katomic/katomic.h>\nka_atomic_t k; int pl; std::atomic<int> ai;\nint f();\n' >"$tmp/m.cc"
				printf 'int f() { return %s(%s); }\n' $nm "$call" >>"$tmp/m.cc"
				expect_errors "$cxx: $nm($call): one error naming KATOMIC_PREFIX" 1 "$cxx" -std=c++17 "$tmp/m.cc"
			done
		done
	fi

	# ---- generated code, natively; with the C11 backend also on every
	# cross target installed, where seq_cst and relaxed differ in instructions
	stdnames_codegen "$cc" objdump "$b" "$bflag" "-O2 -O0"
	if [ "$b" = c11 ] && [ "$cc" = "${ccs%% *}" ]; then
		for t in aarch64-linux-gnu powerpc64le-linux-gnu riscv64-linux-gnu s390x-linux-gnu arm-linux-gnueabihf; do
			command -v $t-gcc >/dev/null 2>&1 && command -v $t-objdump >/dev/null 2>&1 ||
				{ echo "# $t-gcc or $t-objdump not installed: its instruction comparison skipped"; continue; }
			stdnames_codegen $t-gcc $t-objdump c11 "" -O2
		done
	fi
}

# stdnames_codegen CC OBJDUMP BACKEND BACKEND_FLAG "OPT...": C11's calls
# through katomic's dispatch compile to what <stdatomic.h> alone gives, the
# kernel's to what ka_atomic_fetch_* gives
stdnames_codegen() {
	cg_cc=$1 cg_od=$2 cg_b=$3 cg_bflag=$4 cg_opts=$5
	command -v $cg_od >/dev/null 2>&1 || { echo "# $cg_od not installed (binutils): instruction comparison skipped"; return; }
	src=tests/generated/stdnames-codegen.c
	for opt in $cg_opts; do
		co() { "$cg_cc" -std=gnu11 $opt -Wall -Wextra -Werror -Iinclude "$@" -c "$src" -o "$tmp/cg.o" 2>"$tmp/err" && disasm "$tmp/cg.o" $cg_od; }
		{ co -DT_REF_C11 && co $cg_bflag -DKATOMIC_PREFIX -DT_REF_KERNEL; } >"$tmp/refs" || { flunk "$cg_cc $cg_b $opt: the reference builds of $src"; continue; }
		grep '^<c11_' "$tmp/refs" >"$tmp/ref-c11"; grep '^<kernel_' "$tmp/refs" >"$tmp/ref-kernel"
		nfn=$(( $(both_names | wc -l) ))
		for order in after before; do
			oflag=; [ $order = before ] && oflag=-DT_STD_FIRST
			what="$cg_cc $cg_b $opt, <stdatomic.h> $order katomic: instructions of $((3 * nfn)) calls as without the other header"
			co $cg_bflag $oflag >"$tmp/both" || { flunk "$what"; continue; }
			grep '^<c11_' "$tmp/both" >"$tmp/both-c11"; grep '^<kernel_' "$tmp/both" >"$tmp/both-kernel"
			nc=$(cut -d' ' -f1 "$tmp/both-c11" | sort -u | wc -l); nk=$(cut -d' ' -f1 "$tmp/both-kernel" | sort -u | wc -l)
			if [ "$nc" -ne $((2 * nfn)) ] || [ "$nk" -ne "$nfn" ]; then
				echo "# found $nc C11 and $nk kernel functions" >"$tmp/err"; flunk "$what"
			elif ! diff "$tmp/ref-c11" "$tmp/both-c11" >"$tmp/err" || ! diff "$tmp/ref-kernel" "$tmp/both-kernel" >"$tmp/err"; then
				flunk "$what"
			else
				pass "$what"
			fi
		done
	done
}

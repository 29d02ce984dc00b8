#!/bin/sh
# make check-linux-source: Debian's linux-source-6.12 as a client nobody here
# wrote.  Extracts (at test time, into $BUILD/linux-source; nothing of it is
# kept in the project) the kernel's scripts/atomic/atomics.tbl,
# tools/virtio/ringtest, include/linux/ptr_ring.h and lib/atomic64_test.c, then
#   atomics-tbl.py  every op and ordering variant of the kernel's table is ours
#   kernel-tests.py the kernel's lib/atomic64_test.c on katomic through a shim:
#                   every compiler, backend, ASan+UBSan and (RINGTEST_CROSS=0:
#                   not) every cross target under qemu-user; a WARN or BUG_ON fails
#   ringtest.py     the virtio ring programs on katomic's barriers and locks, with
#                   every compiler and backend here and (RINGTEST_CROSS=0: not)
#                   the cross compilers under qemu-user
#   kernel-locks.py the kernel's qspinlock, MCS lock and osq (kernel/locking/)
#                   waiting on katomic's smp_cond_load_*, threads outnumbering
#                   CPUs: exact counts, every compiler and backend
# A missing tarball is skipped with a note, or fails with LINUX_SOURCE_REQUIRED=1 (CI).
# Usage: tests/linux-source/run.sh [compiler...]
set -u
tarball=${LINUX_SOURCE_TAR:-/usr/src/linux-source-6.12.tar.xz}
out=${BUILD:-build}/linux-source
ccs=${*:-gcc clang}
here=$(dirname "$0")
if [ ! -f "$tarball" ]; then
	msg="$tarball not found (apt-get install linux-source-6.12)"
	[ "${LINUX_SOURCE_REQUIRED:-0}" = 1 ] && { echo "check-linux-source: $msg" >&2; exit 1; }
	echo "note: check-linux-source skipped: $msg"; exit 0
fi
command -v python3 >/dev/null 2>&1 || { echo "check-linux-source: needs python3 (apt-get install python3)" >&2; exit 1; }
top=$(basename "$tarball" .tar.xz)
rm -rf "$out" && mkdir -p "$out" || exit 1
echo "check-linux-source: extracting from $tarball ..."
tar -xJf "$tarball" -C "$out" "$top/scripts/atomic/atomics.tbl" "$top/tools/virtio/ringtest" \
	"$top/include/linux/ptr_ring.h" "$top/lib/atomic64_test.c" \
	$(for f in qspinlock.c osq_lock.c mcs_spinlock.h qspinlock_stat.h lock_events.h lock_events_list.h; do
		echo "$top/kernel/locking/$f"; done) \
	"$top/include/asm-generic/qspinlock.h" "$top/include/asm-generic/qspinlock_types.h" \
	"$top/include/linux/osq_lock.h" || { echo "check-linux-source: cannot extract from $tarball" >&2; exit 1; }
status=0
echo "== the kernel's scripts/atomic/atomics.tbl against gen/atomics.tbl"
python3 "$here/atomics-tbl.py" "$out/$top/scripts/atomic/atomics.tbl" gen/atomics.tbl \
	include/katomic/generated/names-atomic.h include/katomic/generated/names-stdatomic.h || status=1
echo "== lib/atomic64_test.c on katomic"
python3 "$here/kernel-tests.py" --src "$out/$top" --work "$out/kernel-tests" --ccs "$ccs" \
	$([ "${RINGTEST_CROSS:-1}" = 1 ] && echo --cross) || status=1
echo "== tools/virtio/ringtest on katomic"
python3 "$here/ringtest.py" --src "$out/$top" --work "$out/ringtest" --ccs "$ccs" \
	--cycles "${RINGTEST_CYCLES:-200000}" $([ "${RINGTEST_CROSS:-1}" = 1 ] && echo --cross) || status=1
echo "== kernel/locking (qspinlock, mcs, osq) on katomic, 1-8 threads on 2 CPUs"
python3 "$here/kernel-locks.py" --src "$out/$top" --work "$out/kernel-locks" --ccs "$ccs" || status=1
[ "$status" = 0 ] && echo "check-linux-source: passed" || echo "check-linux-source: FAILED" >&2
exit "$status"

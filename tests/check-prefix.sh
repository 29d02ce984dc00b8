#!/bin/sh
# -DKATOMIC_PREFIX: katomic beside <stdatomic.h> and beside a program's own
# atomic_inc/refcount_read, in two translation units linked together.
set -eu
cc=${1:-cc}
out=${BUILD:-build}/prefix
mkdir -p "$out"
for f in uses-stdatomic own-names; do
	$cc -std=gnu11 -Wall -Wextra -Werror -DKATOMIC_PREFIX -Iinclude -c tests/prefix/$f.c -o "$out/$f.o"
done
$cc -o "$out/prefix-test" "$out/uses-stdatomic.o" "$out/own-names.o"
"$out/prefix-test"

# Sourced by the tests/check-*.sh scripts: a scratch directory removed on
# exit ($tmp) and the backends this machine compiles for ($backends: the asm
# backend is x86-64 only).
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
backends="c11"
case $(cc -dumpmachine 2>/dev/null) in
x86_64*) [ -f include/katomic/backend/asm.h ] && backends="c11 asm" ;;
esac

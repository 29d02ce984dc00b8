/*
 * __ka_c11_hot(): an atomic is no less likely to run for being a builtin.
 * gcc guesses that a branch guarding a call is not taken (its "call"
 * heuristic: a guarded call is often an error path), and an __atomic builtin
 * is a call until RTL.  So `if (flags & X) atomic_dec(&nr_x);` put the locked
 * instruction out of line behind a jump back (1,138 jumps more in the
 * defconfig kernel), where the kernel's asm stays in line.  A hot label
 * cancels that guess; unlikely()/likely() (__builtin_expect) still decide
 * where they are written.  clang has no such guess (and no hot labels);
 * at -Os (the small config) gcc keeps such a block in line anyway, and the
 * hint would only move its other decisions.
 */
#ifndef __ka_c11_hot
#if defined(__GNUC__) && !defined(__clang__) && !defined(__OPTIMIZE_SIZE__)
#define __ka_c11_hot()							\
	do { __label__ __ka_h; __ka_h: __attribute__((__hot__, __unused__)); } while (0)
#else
#define __ka_c11_hot() do { } while (0)
#endif
#endif

/*
 * Stand-ins for what the kernel's headers give a C11 atomic layer, for the
 * two mocks that compile the generated layers in user space (mock-c11.c:
 * x86's; mock-generic-c11.c: asm-generic's).
 */
typedef long long s64;
typedef struct { int counter; } atomic_t;
typedef struct { s64 counter; } atomic64_t;
#ifndef __always_inline
#define __always_inline inline __attribute__((__always_inline__))
#endif
#ifndef unlikely
#define unlikely(x) __builtin_expect(!!(x), 0)
#endif
#define compiletime_assert_atomic_type(t) \
	_Static_assert(sizeof(t) == 1 || sizeof(t) == 2 || sizeof(t) == 4 || sizeof(t) == 8, "size")
#define __unqual_scalar_typeof(x) __typeof__(_Generic((x),			\
	char: (char)0, signed char: (signed char)0, unsigned char: (unsigned char)0, \
	short: (short)0, unsigned short: (unsigned short)0,			\
	int: (int)0, unsigned int: (unsigned int)0,				\
	long: (long)0, unsigned long: (unsigned long)0,				\
	long long: (long long)0, unsigned long long: (unsigned long long)0,	\
	default: (x)))

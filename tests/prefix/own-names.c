/*
 * A program with its own external atomic_inc() and refcount_read(): linked
 * with a katomic user, it must still get its own symbols, and katomic's
 * prefixed spellings must work beside them.
 */
#include <stdio.h>
#include <katomic/katomic.h>

int prefix_stdatomic_part(void);

static int legacy_counter;
void atomic_inc(int *p);
unsigned int refcount_read(void);

void atomic_inc(int *p) { *p += 100; }		/* not the kernel's */
unsigned int refcount_read(void) { return 42; }

int main(void)
{
	ka_refcount_t r = KA_REFCOUNT_INIT(1);
	int pass = 1;

	atomic_inc(&legacy_counter);
	ka_refcount_inc(&r);
	pass &= legacy_counter == 100;
	pass &= refcount_read() == 42 && ka_refcount_read(&r) == 2;
	pass &= prefix_stdatomic_part();
	printf("%sok 1 - KATOMIC_PREFIX: two translation units with clashing names link and run\n1..1\n",
	       pass ? "" : "not ");
	return !pass;
}

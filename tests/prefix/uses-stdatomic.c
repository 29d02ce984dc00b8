/* With -DKATOMIC_PREFIX, katomic lives beside <stdatomic.h> in one file. */
#include <stdatomic.h>
#include <katomic/katomic.h>

int prefix_stdatomic_part(void);

int prefix_stdatomic_part(void)
{
	atomic_int c11 = 5;		/* C11: atomic_fetch_add(object, operand) */
	ka_atomic_t k = KA_ATOMIC_INIT(5);	/* kernel: ka_atomic_fetch_add(operand, v) */
	int a = atomic_fetch_add(&c11, 2);
	int b = ka_atomic_fetch_add(2, &k);

	return a == 5 && b == 5 && atomic_load(&c11) == 7 && ka_atomic_read(&k) == 7;
}

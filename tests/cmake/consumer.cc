// SPDX-License-Identifier: MIT
// The C++ side of tests/cmake: katomic::katomic gives C++ targets the headers too.
#include <cstdio>
#include <katomic/katomic.h>

int main()
{
	atomic_t v = ATOMIC_INIT(41);
	DEFINE_SPINLOCK(l);
	unsigned long flags;

	spin_lock_irqsave(&l, flags);
	atomic_inc(&v);
	spin_unlock_irqrestore(&l, flags);
	std::printf("cmake C++ consumer: %d\n", atomic_read(&v));
	return atomic_read(&v) == 42 ? 0 : 1;
}

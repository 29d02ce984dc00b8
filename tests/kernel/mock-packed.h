/*
 * Included by both kernel-layer mocks (after ok() and the generated
 * barrier-c11.h): smp_load_acquire/smp_store_release on members of a
 * __packed struct.  Their alignment is 1 in the type system (the kernel's
 * objpool_slot): clang made these accesses libatomic calls, which a mock,
 * linked without libatomic, would not link.  Reached through a pointer the
 * compiler cannot follow, so that only the type's alignment is known.
 */
/* The kernel builds with -Wno-address-of-packed-member, and so does this. */
#pragma GCC diagnostic ignored "-Waddress-of-packed-member"

struct packed_slot {
	unsigned char pad[4];
	unsigned int head;
	unsigned long tail;
} __attribute__((__packed__));

static void test_packed_members(void)
{
	static struct packed_slot slot_mem __attribute__((__aligned__(8)));
	struct packed_slot *volatile slot_p = &slot_mem, *slot = slot_p;

	__smp_store_release(&slot->head, 0xfffffffeU);
	__smp_store_release(&slot->tail, ~0UL);
	ok(__smp_load_acquire(&slot->head) == 0xfffffffeU && __smp_load_acquire(&slot->tail) == ~0UL &&
	   slot->pad[3] == 0, "store_release, load_acquire on members of a __packed struct (naturally aligned)");
}

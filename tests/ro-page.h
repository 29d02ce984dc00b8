/* SPDX-License-Identifier: MIT */
/*
 * ro_copy(): a copy of some bytes on a page of its own, then made read-only,
 * so that a test can prove an operation does not write where it must not
 * (try_cmpxchg's *old on success): the write faults.
 */
#ifndef KATOMIC_TESTS_RO_PAGE_H
#define KATOMIC_TESTS_RO_PAGE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static void *ro_copy(const void *src, size_t size)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	void *p = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED || size > page) {
		perror("mmap");
		exit(2);
	}
	memcpy(p, src, size);
	if (mprotect(p, page, PROT_READ)) {
		perror("mprotect");
		exit(2);
	}
	return p;
}

#endif

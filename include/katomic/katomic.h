/* SPDX-License-Identifier: MIT */
/* katomic: the Linux kernel's atomic API for user-space C.  Everything in one include. */
#ifndef KATOMIC_KATOMIC_H
#define KATOMIC_KATOMIC_H

#define KATOMIC_VERSION "0.1.0"

#include "compiler.h"
#include "rwonce.h"
#include "barrier.h"
#include "atomic.h"
#include "cmpxchg.h"
#include "bitops.h"
#include "refcount.h"
#include "spinlock.h"

#endif /* KATOMIC_KATOMIC_H */

// SPDX-License-Identifier: GPL-2.0-only
/* <linux/cleanup.h> has a guard for spin_lock_bh(): guard(spinlock_bh)(&lock) */
#include <linux/cleanup.h>
#include <linux/spinlock.h>

int cxib_probe(spinlock_t *lock, int *v);
int cxib_probe(spinlock_t *lock, int *v)
{
	guard(spinlock_bh)(lock);
	return *v;
}

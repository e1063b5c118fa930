/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PXCHAIN_H
#define __PXCHAIN_H

#include "pxtypes.h"

/* Key of the hists map: a donor or owner pid with -D/-O, else 0. */
struct pxchain_hist {
	__u64 slots[PX_MAX_DEPTH + 1];	/* linear: slot d = depth d, last = more */
	__u32 tgid;
	char comm[PX_COMM_LEN];
};

/*
 * Key of the lock_types map: the lock type a pick or an abort went
 * through (task_struct::blocked_on's tag), for picks and aborts apart.
 */
enum pxchain_lock_slot {
	PXCHAIN_PICK_MUTEX,
	PXCHAIN_PICK_RWSEM,
	PXCHAIN_ABORT_MUTEX,
	PXCHAIN_ABORT_RWSEM,
	PXCHAIN_LOCK_SLOTS,
};

#endif /* __PXCHAIN_H */

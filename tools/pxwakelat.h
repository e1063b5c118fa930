/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PXWAKELAT_H
#define __PXWAKELAT_H

#include "pxtypes.h"

/* What the woken task was doing when it was woken. */
enum pxwl_class {
	PXWL_OTHER,	/* not waiting on a mutex */
	PXWL_WAITER,	/* blocked in mutex_lock(), never picked as a donor */
	PXWL_DONOR,	/* blocked in mutex_lock() and donated (sched_proxy_pick) */
	PXWL_NCLASS,
};

/* A task inside mutex_lock()'s contended path (contention_begin..end). */
struct pxwl_wait {
	__u64 ts;		/* first contention_begin */
	__u32 blocked;		/* reached the wait loop, not just spinning */
	__u32 donated;		/* was picked as a donor meanwhile */
};

struct pxwl_wake {
	__u64 ts;
	__u32 class;
	__u32 pad;
};

struct pxwl_stats {
	__u64 wakeups[PXWL_NCLASS];	/* wakeup -> on-CPU samples */
	__u64 wake_ns[PXWL_NCLASS];	/* their sum */
	__u64 acquired;			/* blocked waiters that got the mutex */
	__u64 acquired_donated;		/* ... of which donated while waiting */
	__u64 wait_ns;			/* their summed wait */
	__u64 spun;			/* got it while spinning, never blocked */
	__u64 failed;			/* contention_end with an error */
};

/* hists map: PXWL_NCLASS wakeup-latency hists, then the lock-wait one. */
#define PXWL_HIST_LOCKWAIT	PXWL_NCLASS
#define PXWL_NHIST		(PXWL_NCLASS + 1)

#endif /* __PXWAKELAT_H */

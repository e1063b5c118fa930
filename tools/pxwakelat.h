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

/*
 * Slots of the per-task array, a power of two (pid & (slots - 1)): by
 * default pid_max rounded up, so no two live tasks share one, at most
 * PXWL_MAX_SLOTS (a task whose slot another took over loses its sample:
 * counted in pxwl_stats.evicted).
 */
#define PXWL_DEF_SLOTS		32768
#define PXWL_MAX_SLOTS		(1U << 20)

/*
 * Per-task state (one array slot).  A mutex wait: the task is inside
 * mutex_lock()'s contended path (contention_begin..end).  A wakeup: woken
 * and not yet on CPU.  A timestamp of 0: none in progress.
 */
struct pxwl_task {
	__u64 tag;		/* the task's start_time: whose slot this is */
	__u64 wait_ts;		/* first contention_begin of the wait */
	__u64 wait_lock;	/* the mutex it waits on: a spinlock contended
				 * inside the slowpath ends with its own
				 * contention_end, which is not this wait's */
	__u64 wake_ts;		/* rq clock at sched_wakeup, until the task runs */
	__u64 wake_sw;		/* its nvcsw + nivcsw then: the wakeup counts only
				 * if the task was not switched out since */
	__u32 blocked;		/* the wait reached the wait loop, not just spinning */
	__u32 donated;		/* picked as a donor during the wait */
	__u32 wake_class;	/* enum pxwl_class of the pending wakeup */
	__u32 pad;
};

/* One copy per CPU (PERCPU_ARRAY), summed by user space. */
struct pxwl_stats {
	__u64 wakeups[PXWL_NCLASS];	/* wakeup -> on-CPU samples */
	__u64 wake_ns[PXWL_NCLASS];	/* their sum */
	__u64 acquired;			/* blocked waiters that got the mutex */
	__u64 acquired_donated;		/* ... of which donated while waiting */
	__u64 wait_ns;			/* their summed wait */
	__u64 spun;			/* got it while spinning, never blocked */
	__u64 failed;			/* contention_end with an error */
	__u64 evicted;			/* a task took over the slot of another
					 * with a wait or wakeup in progress */
};

/* hists map (PERCPU_ARRAY): PXWL_NCLASS wakeup-latency hists, then the lock-wait one. */
#define PXWL_HIST_LOCKWAIT	PXWL_NCLASS
#define PXWL_NHIST		(PXWL_NCLASS + 1)

#endif /* __PXWAKELAT_H */

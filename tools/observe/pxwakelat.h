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

/*
 * --min: what an event needs beyond struct pxwl_task, in an array of its
 * own indexed like the tasks (one entry without --min: the histograms
 * cost no memory more).  The waker is read at sched_waking, which
 * try_to_wake_up() emits in the waker's context (sched_wakeup may run in
 * the target CPU's IPI instead, on whatever task is current there), or at
 * sched_wakeup_new (the parent, in wake_up_new_task()); the target CPU,
 * what ran there and the mutex at sched_wakeup.
 */
#define PXWL_STACK_DEPTH	32	/* kernel frames kept of a waker's stack */
#define PXWL_MAX_STACKS		8192	/* distinct waker stacks kept (per map) */
#define PXWL_STACK_AGE_NS	2000000000ULL	/* a stack map's generation, at least */

struct pxwl_wake {
	__u64 tag;		/* the woken task's start_time: whose entry this is */
	__u64 lock;		/* waiter/donor: the mutex it was blocked on */
	__u64 rq_switches;	/* wake_cpu's rq->nr_switches at sched_wakeup */
	__u32 waker_pid;	/* 0: no waker seen for this wakeup */
	__u32 waker_tgid;
	__s32 waker_prio;
	__s32 waker_stack;	/* id in the stacks map, < 0: -errno */
	__u32 waker_stack_gen;	/* its generation: stacks0/1 by parity */
	__u32 wake_cpu;		/* the CPU it was woken onto */
	__u32 curr_pid;		/* rq->curr of wake_cpu at sched_wakeup (0: idle) */
	__u32 curr_tgid;
	__s32 curr_prio;
	char waker_comm[PX_COMM_LEN];
	char curr_comm[PX_COMM_LEN];
};

/* One wakeup over --min, through the ring buffer. */
struct pxwl_event {
	__u64 latency_ns;	/* sched_wakeup -> sched_switch to it (rq clocks) */
	__u64 switches;		/* context switches on wake_cpu in between, when
				 * it ran there (run_cpu == wake.wake_cpu) */
	__u32 pid;
	__u32 tgid;
	__s32 prio;		/* kernel prio: 0-99 RT, 100-139 normal, -1 DL */
	__u32 class;		/* enum pxwl_class */
	__u32 run_cpu;		/* the CPU it ran on */
	__u32 pad;
	char comm[PX_COMM_LEN];
	struct pxwl_wake wake;
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
	__u64 events;			/* --min: wakeups over it, sent */
	__u64 lost_rb;			/* ... lost: the ring buffer was full */
};

/* hists map (PERCPU_ARRAY): PXWL_NCLASS wakeup-latency hists, then the lock-wait one. */
#define PXWL_HIST_LOCKWAIT	PXWL_NCLASS
#define PXWL_NHIST		(PXWL_NCLASS + 1)

#endif /* __PXWAKELAT_H */

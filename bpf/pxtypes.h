/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Map shapes shared by the proxyexec BPF programs and their user-space
 * halves.  Included after vmlinux.h (BPF) or <linux/types.h> (user), like
 * libbpf-tools' <tool>.h files.
 */
#ifndef __PXTYPES_H
#define __PXTYPES_H

#define PX_COMM_LEN		16
#define PX_MAX_SLOTS		27	/* log2 slots: up to 2^26 units */
#define PX_MAX_DEPTH		16	/* chain depths >= this share the last slot */
#define PX_MAX_PAIRS		10240
#define PX_MAX_TASKS		10240

/* lock:contention_begin flags (include/trace/events/lock.h). */
#define PX_LCB_F_SPIN		(1U << 0)
#define PX_LCB_F_MUTEX		(1U << 5)

/*
 * sched_proxy_abort reasons are counted by the kernel's own value, in
 * slots 0..PX_ABORT_SLOTS-2; the last slot takes values out of range.
 * The names come from the running kernel's BTF (enum proxy_abort_reason,
 * pxbpf_enum_names()): the enum differs between versions of the series,
 * so no copy of it is kept here.
 */
#define PX_ABORT_SLOTS		16

struct px_hist {
	__u32 slots[PX_MAX_SLOTS];
};

/*
 * One donor/owner pair: the owner (execution context) ran on the donor's
 * (scheduling context's) behalf.  Cumulative since the tool started, in an
 * LRU hash: when it is full the least recently used pair makes room (user
 * space counts those: px_counters.pairs_new minus the pairs present).
 * The tasks' start times are part of the key, so a recycled pid is a new
 * pair with its own comm.
 */
struct px_pair_key {
	__u32 donor_pid;
	__u32 owner_pid;
	__u64 donor_start;	/* task_struct.start_time */
	__u64 owner_start;
};

/*
 * px_pair.lock_types: the kinds of lock a pair's sched_proxy_pick events
 * went through (sched_proxy_pick's blocked_on tag, px_blocked_on_is_rwsem()),
 * since the pair entered the map.  Bits are only ever set, like max_depth
 * only grows: user space takes them from the newest snapshot.
 */
#define PX_LOCK_MUTEX		(1U << 0)
#define PX_LOCK_RWSEM		(1U << 1)

struct px_pair {
	__u64 ns;		/* donor runtime: completed proxy stretches */
	__u64 stretches;	/* completed proxy stretches */
	__u64 max_ns;		/* longest single stretch */
	__u64 picks;		/* sched_proxy_pick resolving donor to owner */
	__u64 migrations;	/* sched_proxy_migrate of donor towards owner */
	__u64 donor_cgid;
	__u64 owner_cgid;
	__u32 donor_tgid;
	__u32 owner_tgid;
	__u32 max_depth;
	__u32 lock_types;	/* PX_LOCK_*: the locks its picks went through */
	char donor_comm[PX_COMM_LEN];
	char owner_comm[PX_COMM_LEN];
};

/*
 * Per-CPU proxy stretch in progress: set at a sched_proxy_switch with
 * next != next_donor, closed by the next sched_proxy_switch on that CPU.
 * @tracked: the pair passed the filters and has an entry in the pairs map.
 */
struct px_stretch {
	__u64 ts;		/* bpf_ktime_get_ns() at start, 0: none */
	struct px_pair_key key;
	__u32 tracked;
	__u32 pad;
};

/* System-wide event counters, one copy per CPU. */
struct px_counters {
	__u64 picks;
	__u64 aborts;
	__u64 migrations;
	__u64 returns;
	__u64 enqueue_sleeping;
	__u64 activations;
	__u64 handoffs_donor;
	__u64 handoffs_top;
	__u64 switches;
	__u64 donated_ns;	/* completed stretches, unfiltered */
	__u64 lost;		/* pairs that did not fit the map */
	__u64 pairs_new;	/* pairs entered into the map */
	__u64 picks_rwsem;	/* picks through an rw_semaphore (of picks) */
};

#endif /* __PXTYPES_H */

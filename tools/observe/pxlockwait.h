/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PXLOCKWAIT_H
#define __PXLOCKWAIT_H

#include "pxtypes.h"

#define PXLW_STACK_DEPTH	48	/* kernel frames kept per stack */
#define PXLW_MAX_LINKS		5	/* the waited mutex + 4 more of the chain */
#define PXLW_MAX_WAITS		4096	/* waits in progress at once */
#define PXLW_WHERE_LEN		32	/* super_block.s_id */

/*
 * What a mutex is, as far as BPF can tell: kallsyms names static ones in
 * user space; a few well-known embedded ones are recognised in BPF by
 * their container's self-reference.
 */
enum pxlw_lock_kind {
	PXLW_LOCK_PLAIN,	/* kallsyms or nothing */
	PXLW_LOCK_SB_RENAME,	/* super_block.s_vfs_rename_mutex (where: s_id) */
};

/*
 * One link of the blocked_on chain: @lock and the task that owned it when
 * the link was read.  Link 0 is the mutex the waiter waits on; link k+1
 * the mutex link k's owner is blocked on.
 */
struct pxlw_link {
	__u64 lock;
	__u32 owner_pid;	/* 0: no owner (released meanwhile) */
	__u32 owner_tgid;
	__s32 owner_prio;
	__u32 kind;		/* enum pxlw_lock_kind */
	char owner_comm[PX_COMM_LEN];
	char where[PXLW_WHERE_LEN];
};

enum pxlw_flags {
	PXLW_F_BLOCKED		= 1 << 0,	/* reached the wait loop (not only spun) */
	PXLW_F_OWNER_ON_CPU	= 1 << 1,	/* link 0's owner was running when read:
						 * its stack is where it last switched */
	PXLW_F_CHAIN_MORE	= 1 << 2,	/* the last link's owner is blocked too */
	PXLW_F_NO_DONOR		= 1 << 3,	/* no sched_proxy events: no donor time */
	PXLW_F_WAITER_CG	= 1 << 4,	/* -c: the waiter is in the cgroup */
	PXLW_F_OWNER_CG		= 1 << 5,	/* -c: link 0's owner is */
};

/*
 * A wait in progress (hash by pid) and, once over --min, the event sent
 * through the ring buffer.  Times are bpf_ktime_get_ns().
 */
struct pxlw_event {
	__u64 tag;		/* waiter's start_time: whose entry this is */
	__u64 start_ns;		/* first contention_begin of the wait */
	__u64 wait_ns;		/* -> contention_end */
	__u64 donor_ns;		/* owners ran on the waiter's context */
	__u32 stretches;	/* proxy stretches counted in donor_ns */
	__u32 flags;		/* enum pxlw_flags */
	__u32 pid;
	__u32 tgid;
	__s32 prio;		/* kernel prio: 0-99 RT, 100-139 normal, -1 DL */
	__s32 ret;		/* contention_end's: 0 acquired, -EINTR, ... */
	__u32 owner_cpu;	/* link 0's owner's CPU when read */
	__u32 nlinks;		/* links[] in use, 0..PXLW_MAX_LINKS */
	char comm[PX_COMM_LEN];
	struct pxlw_link links[PXLW_MAX_LINKS];
	__s32 waiter_stack_sz;	/* bytes, 0: none, < 0: -errno */
	__s32 owner_stack_sz;
	__u64 waiter_stack[PXLW_STACK_DEPTH];
	__u64 owner_stack[PXLW_STACK_DEPTH];
};

/* Counters, one copy per CPU. */
struct pxlw_stats {
	__u64 waits;		/* mutex waits ended (filtered) */
	__u64 events;		/* ... over --min, sent */
	__u64 lost_rb;		/* ... the ring buffer was full */
	__u64 lost_map;		/* waits not tracked: PXLW_MAX_WAITS in progress */
	__u64 stretches;	/* proxy stretches credited to a tracked wait */
};

#endif /* __PXLOCKWAIT_H */

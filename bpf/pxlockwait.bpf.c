// SPDX-License-Identifier: GPL-2.0
/*
 * pxlockwait: one event per kernel mutex wait longer than --min, with the
 * waiter, the owner and the blocked_on chain beyond it when the wait
 * began, the donor time (owners running on the waiter's scheduling
 * context, from sched_proxy_switch) and the kernel stacks of the waiter
 * and the owner.
 *
 * The wait is lock:contention_begin -> contention_end with LCB_F_MUTEX,
 * the events __mutex_lock_common() emits (built in, no CONFIG_LOCKDEP
 * needed; pxwakelat uses them too).  The first contention_begin (spinning)
 * starts the wait; the first one without LCB_F_SPIN, when the waiter is
 * queued and about to sleep, reads the owner, the chain and both stacks
 * again: by then optimistic spinning has given up on the owner, so it is
 * more likely off its CPU and its stack is where it stopped.  The
 * contention_end of the same mutex ends the wait (a spinlock contended
 * inside the slowpath has its own begin/end pair in between).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "pxbpf.h"
#include "pxlockwait.h"

#define MUTEX_FLAGS	0x07UL	/* low bits of mutex->owner (kernel/locking/mutex.h) */

const volatile __u32 targ_tgid = 0;	/* -p: waiter or owner */
const volatile __u64 targ_cgid = 0;	/* -c: waiter or owner, in it or below */
const volatile __u32 targ_cglevel = 0;
const volatile bool targ_comm_set = false;
const volatile char targ_comm[PX_COMM_LEN] = {};	/* --comm: waiter or owner */
const volatile __u64 targ_min_ns = 1000000;
const volatile bool targ_stacks = true;
const volatile bool targ_donor = true;	/* the kernel has sched_proxy_switch */

extern struct task_struct *bpf_task_from_pid(s32 pid) __ksym;
extern void bpf_task_release(struct task_struct *p) __ksym;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PXLW_MAX_WAITS);
	__type(key, __u32);			/* waiter pid */
	__type(value, struct pxlw_event);
} waits SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 512 * 1024);
} events SEC(".maps");

/* The proxy stretch open on each CPU (only the donor half of the key is used). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct px_stretch);
} stretch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pxlw_stats);
} stats SEC(".maps");

/* A new wait starts from this (too big for the BPF stack); never written. */
static struct pxlw_event zero_event;

static __always_inline struct pxlw_stats *st(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&stats, &zero);
}

static __always_inline struct task_struct *mutex_owner(__u64 lock)
{
	struct mutex *m = (void *)lock;

	return (void *)(BPF_CORE_READ(m, owner.counter) & ~MUTEX_FLAGS);
}

/*
 * super_block.s_vfs_rename_mutex, the rename lock, is embedded in every
 * superblock: no symbol.  @lock is one if the superblock around it
 * points back to itself through its root dentry (a random address fails
 * that; the reads are fault-safe); then @where gets its s_id ("tmpfs").
 */
static __always_inline __u32 lock_kind(__u64 lock, char *where)
{
	struct super_block *sb;
	struct dentry *root;

	sb = (void *)(lock - bpf_core_field_offset(struct super_block, s_vfs_rename_mutex));
	root = BPF_CORE_READ(sb, s_root);
	if (!root || BPF_CORE_READ(root, d_sb) != sb || !BPF_CORE_READ(sb, s_type))
		return PXLW_LOCK_PLAIN;
	bpf_probe_read_kernel_str(where, PXLW_WHERE_LEN,
				  (void *)sb + bpf_core_field_offset(struct super_block, s_id));
	return PXLW_LOCK_SB_RENAME;
}

/*
 * -c: is @t in the cgroup targ_cgid or below?  px_task_in_cgroup() with
 * helper reads all along: an owner comes from mutex->owner, a plain
 * number to the verifier.
 */
static __always_inline bool in_cgroup(struct task_struct *t)
{
	struct cgroup *cgrp, *anc = NULL;

	cgrp = BPF_CORE_READ(t, cgroups, dfl_cgrp);
	if (!cgrp || BPF_CORE_READ(cgrp, level) < (int)targ_cglevel)
		return false;
	if (bpf_probe_read_kernel(&anc, sizeof(anc), (void *)cgrp +
				  bpf_core_field_offset(struct cgroup, ancestors) +
				  targ_cglevel * sizeof(anc)))
		return false;
	return anc && BPF_CORE_READ(anc, kn, id) == targ_cgid;
}

/*
 * The chain from @lock: its owner, the mutex that owner is blocked on,
 * its owner, ... at most PXLW_MAX_LINKS links.  Owners are read from
 * mutex->owner, a plain number to the verifier: every read is a
 * fault-safe helper read (an owner may exit meanwhile).
 */
static __always_inline void read_chain(struct pxlw_event *e, __u64 lock)
{
	struct task_struct *owner;
	struct pxlw_link *l;
	int i;

	e->nlinks = 0;
	e->flags &= ~(PXLW_F_CHAIN_MORE | PXLW_F_OWNER_ON_CPU | PXLW_F_OWNER_CG);
	for (i = 0; i < PXLW_MAX_LINKS; i++) {
		l = &e->links[i];
		l->lock = lock;
		l->where[0] = '\0';
		l->kind = lock_kind(lock, l->where);
		owner = mutex_owner(lock);
		l->owner_pid = 0;
		e->nlinks = i + 1;
		if (!owner)
			break;
		l->owner_pid = BPF_CORE_READ(owner, pid);
		l->owner_tgid = BPF_CORE_READ(owner, tgid);
		l->owner_prio = BPF_CORE_READ(owner, prio);
		BPF_CORE_READ_STR_INTO(&l->owner_comm, owner, comm);
		if (i == 0) {
			if (BPF_CORE_READ(owner, on_cpu))
				e->flags |= PXLW_F_OWNER_ON_CPU;
			if (targ_cgid && in_cgroup(owner))
				e->flags |= PXLW_F_OWNER_CG;
			e->owner_cpu = BPF_CORE_READ(owner, thread_info.cpu);
		}
		/* A kernel without proxy execution has no blocked_on. */
		if (!bpf_core_field_exists(owner->blocked_on))
			break;
		lock = (__u64)BPF_CORE_READ(owner, blocked_on);
		if (!lock)
			break;
		if (i == PXLW_MAX_LINKS - 1)
			e->flags |= PXLW_F_CHAIN_MORE;
	}
}

/*
 * Kernel stack of link 0's owner.  bpf_get_task_stack() wants a trusted
 * task pointer: take a reference by pid (the owner pointer itself came
 * from mutex->owner).
 */
static __always_inline void owner_stack(struct pxlw_event *e)
{
	struct task_struct *t;

	e->owner_stack_sz = 0;
	if (!e->links[0].owner_pid)
		return;
	t = bpf_task_from_pid(e->links[0].owner_pid);
	if (!t)
		return;
	e->owner_stack_sz = bpf_get_task_stack(t, e->owner_stack, sizeof(e->owner_stack), 0);
	bpf_task_release(t);
}

static __always_inline int on_contention_begin(void *ctx, void *lock, unsigned int flags)
{
	struct task_struct *cur;
	struct pxlw_stats *s;
	struct pxlw_event *e;
	__u32 pid;

	if (!(flags & PX_LCB_F_MUTEX))
		return 0;
	cur = bpf_get_current_task_btf();
	pid = cur->pid;
	e = bpf_map_lookup_elem(&waits, &pid);
	if (!e || e->tag != cur->start_time || e->links[0].lock != (__u64)lock) {
		/* A new wait (a stale entry of a recycled pid is overwritten). */
		if (bpf_map_update_elem(&waits, &pid, &zero_event, BPF_ANY)) {
			s = st();
			if (s)
				s->lost_map++;
			return 0;
		}
		e = bpf_map_lookup_elem(&waits, &pid);
		if (!e)
			return 0;
		e->tag = cur->start_time;
		e->start_ns = bpf_ktime_get_ns();
		e->pid = pid;
		e->tgid = cur->tgid;
		e->prio = cur->prio;
		BPF_CORE_READ_STR_INTO(&e->comm, cur, comm);
		if (!targ_donor)
			e->flags |= PXLW_F_NO_DONOR;
		if (targ_cgid && in_cgroup(cur))
			e->flags |= PXLW_F_WAITER_CG;
		read_chain(e, (__u64)lock);
	}
	if ((flags & PX_LCB_F_SPIN) || (e->flags & PXLW_F_BLOCKED))
		return 0;
	/* Queued, about to sleep: the owner and the chain as the wait blocks. */
	e->flags |= PXLW_F_BLOCKED;
	read_chain(e, (__u64)lock);
	if (targ_stacks) {
		e->waiter_stack_sz = bpf_get_stack(ctx, e->waiter_stack,
						   sizeof(e->waiter_stack), 0);
		owner_stack(e);
	}
	return 0;
}

static __always_inline bool comm_eq(const char *c)
{
	int i;

	for (i = 0; i < PX_COMM_LEN; i++) {
		if (c[i] != targ_comm[i])
			return false;
		if (!c[i])
			break;
	}
	return true;
}

/* -p, -c and --comm: the waiter or link 0's owner. */
static __always_inline bool match(const struct pxlw_event *e)
{
	if (targ_tgid && e->tgid != targ_tgid && e->links[0].owner_tgid != targ_tgid)
		return false;
	if (targ_cgid && !(e->flags & (PXLW_F_WAITER_CG | PXLW_F_OWNER_CG)))
		return false;
	if (targ_comm_set && !comm_eq(e->comm) &&
	    !(e->links[0].owner_pid && comm_eq(e->links[0].owner_comm)))
		return false;
	return true;
}

static __always_inline int on_contention_end(void *lock, int ret)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	struct pxlw_stats *s;
	struct pxlw_event *e;
	__u32 pid = cur->pid;

	e = bpf_map_lookup_elem(&waits, &pid);
	/* Not ours: a wait we never saw begin, or a spinlock inside the slowpath. */
	if (!e || e->tag != cur->start_time || e->links[0].lock != (__u64)lock)
		return 0;
	s = st();
	e->wait_ns = bpf_ktime_get_ns() - e->start_ns;
	e->ret = ret;
	if (s && match(e)) {
		s->waits++;
		if (e->wait_ns >= targ_min_ns) {
			if (bpf_ringbuf_output(&events, e, sizeof(*e), 0))
				s->lost_rb++;
			else
				s->events++;
		}
	}
	bpf_map_delete_elem(&waits, &pid);
	return 0;
}

/*
 * Donor time: a stretch opens at a sched_proxy_switch with next !=
 * next_donor and closes at the next one on that CPU; its length goes to
 * the donor's wait, if it has one we track (clamped to the wait's start).
 */
static __always_inline int on_proxy_switch(struct task_struct *next,
					   struct task_struct *next_donor)
{
	__u64 now = bpf_ktime_get_ns(), from;
	struct pxlw_stats *s;
	struct pxlw_event *e;
	struct px_stretch *sp;
	__u32 zero = 0, pid;

	sp = bpf_map_lookup_elem(&stretch, &zero);
	if (!sp)
		return 0;
	if (sp->ts) {
		pid = sp->key.donor_pid;
		e = bpf_map_lookup_elem(&waits, &pid);
		if (e && e->tag == sp->key.donor_start && e->start_ns) {
			from = sp->ts > e->start_ns ? sp->ts : e->start_ns;
			if (now > from) {
				__sync_fetch_and_add(&e->donor_ns, now - from);
				__sync_fetch_and_add(&e->stretches, 1);
				s = st();
				if (s)
					s->stretches++;
			}
		}
		sp->ts = 0;
	}
	if (next != next_donor) {
		sp->ts = now;
		px_pair_key_of(&sp->key, next_donor, next);
	}
	return 0;
}

PX_TP(contention_begin, contention_begin,
      PX_ARGS(void *lock, unsigned int flags),
      on_contention_begin(ctx, lock, flags))

PX_TP(contention_end, contention_end,
      PX_ARGS(void *lock, int ret),
      on_contention_end(lock, ret))

PX_TP(sched_proxy_switch, proxy_switch,
      PX_PROTO_SWITCH,
      on_proxy_switch(next, next_donor))

char LICENSE[] SEC("license") = "GPL";

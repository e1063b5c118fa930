// SPDX-License-Identifier: GPL-2.0
/*
 * proxytop: every sched_proxy event, counted system-wide, plus per
 * donor/owner pair donor runtime, picks (and the kinds of lock they went
 * through), deepest chain and migrations.
 *
 * The user side (tools/observe/proxytop*.c) reads, never clears: the
 * cumulative pairs map (struct px_pair, filtered by -p/-c), the per-CPU
 * open stretch (struct px_stretch) and the per-CPU system-wide struct
 * px_counters (types in pxtypes.h); rates are differences between two
 * snapshots.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#define PX_WANT_PAIR_MAPS
#include "pxbpf.h"

const volatile __u32 targ_tgid = 0;
const volatile __u64 targ_cgid = 0;
const volatile __u32 targ_cglevel = 0;

static __always_inline struct px_counters *cnt(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&counters, &zero);
}

/* The pair's entry if it passes the filters, else NULL. */
static __always_inline struct px_pair *
pair(struct task_struct *donor, struct task_struct *owner, struct px_counters *c)
{
	struct px_pair *p;

	if (!owner || !px_pair_match(donor, owner, targ_tgid, targ_cgid, targ_cglevel))
		return NULL;
	p = px_pair_get(&pairs, donor, owner, c);
	if (!p)
		c->lost++;
	return p;
}

/*
 * @blocked_on is the last lock of the chain, the one @owner holds, tagged
 * as task_struct::blocked_on is (bit 0: an rw_semaphore, else a mutex).
 * A donor is picked on one runqueue at a time, under that runqueue's
 * lock: max_depth and lock_types need no atomics.
 */
static __always_inline int
on_pick(struct task_struct *donor, struct task_struct *owner, void *blocked_on, int depth)
{
	bool rwsem = px_blocked_on_is_rwsem(blocked_on);
	__u32 type = rwsem ? PX_LOCK_RWSEM : PX_LOCK_MUTEX;
	struct px_counters *c = cnt();
	struct px_pair *p;

	if (!c)
		return 0;
	c->picks++;
	if (rwsem)
		c->picks_rwsem++;
	p = pair(donor, owner, c);
	if (p) {
		/* The type before the count: no pick is counted without it. */
		if (!(p->lock_types & type))
			p->lock_types |= type;
		__sync_fetch_and_add(&p->picks, 1);
		if (depth > 0 && (__u32)depth > p->max_depth)
			p->max_depth = depth;
	}
	return 0;
}

static __always_inline int
on_migrate(struct task_struct *donor, struct task_struct *owner)
{
	struct px_counters *c = cnt();
	struct px_pair *p;

	if (!c)
		return 0;
	c->migrations++;
	p = pair(donor, owner, c);
	if (p)
		__sync_fetch_and_add(&p->migrations, 1);
	return 0;
}

static __always_inline int
on_switch(struct task_struct *next, struct task_struct *next_donor)
{
	bool track = next != next_donor &&
		     px_pair_match(next_donor, next, targ_tgid, targ_cgid, targ_cglevel);

	px_switch(&pairs, &stretch, &counters, next, next_donor, track);
	return 0;
}

PX_TP(sched_proxy_pick, pick,
      PX_PROTO_PICK,
      on_pick(donor, owner, blocked_on, depth))

PX_TP(sched_proxy_abort, abort,
      PX_PROTO_ABORT,
      ({ struct px_counters *c = cnt(); if (c) c->aborts++; 0; }))

PX_TP(sched_proxy_migrate, migrate,
      PX_PROTO_MIGRATE,
      on_migrate(donor, owner))

PX_TP(sched_proxy_return, return,
      PX_PROTO_RETURN,
      ({ struct px_counters *c = cnt(); if (c) c->returns++; 0; }))

PX_TP(sched_proxy_enqueue_sleeping, enqueue_sleeping,
      PX_PROTO_SLEEPING,
      ({ struct px_counters *c = cnt(); if (c) c->enqueue_sleeping++; 0; }))

PX_TP(sched_proxy_activate, activate,
      PX_PROTO_SLEEPING,
      ({ struct px_counters *c = cnt(); if (c) c->activations++; 0; }))

/* The handoff kinds by the running kernel's values (CO-RE). */
static __always_inline int on_handoff(int kind)
{
	struct px_counters *c = cnt();

	if (!c)
		return 0;
	if (kind == bpf_core_enum_value(enum proxy_handoff_kind___px,
					PROXY_HANDOFF_DONOR___px))
		c->handoffs_donor++;
	else if (kind == bpf_core_enum_value(enum proxy_handoff_kind___px,
					     PROXY_HANDOFF_TOP_WAITER___px))
		c->handoffs_top++;
	return 0;
}

PX_TP(sched_proxy_handoff, handoff,
      PX_PROTO_HANDOFF,
      on_handoff(kind))

PX_TP(sched_proxy_switch, switch,
      PX_PROTO_SWITCH,
      on_switch(next, next_donor))

char LICENSE[] SEC("license") = "GPL";

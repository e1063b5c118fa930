/* SPDX-License-Identifier: GPL-2.0 */
/*
 * BPF-side helpers shared by the proxyexec tools: log2 slots, map
 * lookup-or-init, task identity and filters, and the donor/owner pair and
 * proxy-stretch bookkeeping used by pxdonor and proxytop.
 *
 * Include after vmlinux.h, bpf_helpers.h, bpf_core_read.h and
 * bpf_tracing.h.
 *
 * Every handler is a tp_btf program: its task_struct arguments are BTF
 * pointers, read with plain loads (CO-RE relocated through vmlinux.h's
 * preserve_access_index; the JIT turns them into fault-safe loads, so a
 * NULL argument reads as 0) instead of one bpf_probe_read_kernel() helper
 * call per field.  There is no raw_tp fallback: the tools need the
 * kernel's BTF anyway (pxbpf_preflight()), and every kernel with BTF and
 * the sched_proxy events (6.12 + this series) attaches tp_btf;
 * pxbpf_load_attach() says so if it cannot.
 */
#ifndef __PXBPF_H
#define __PXBPF_H

#include "pxtypes.h"

/*
 * The tp_btf handler @name_btf of @event, returning @call.  PX_ARGS()
 * wraps the TP_PROTO list.
 */
#define PX_ARGS(...) __VA_ARGS__
#define PX_TP(event, name, proto, call)				\
SEC("tp_btf/" #event)						\
int BPF_PROG(name##_btf, proto) { return call; }

/*
 * TP_PROTO of each sched_proxy event (tracepoints/sched_proxy.h), for
 * PX_TP().  Enums are passed as int: vmlinux.h of a kernel without the
 * events has no enum proxy_*.
 */
#define PX_PROTO_PICK	PX_ARGS(struct task_struct *donor, struct task_struct *owner, \
			     void *blocked_on, int depth)
#define PX_PROTO_ABORT	PX_ARGS(struct task_struct *donor, struct task_struct *owner, \
			     void *blocked_on, int depth, int reason)
/*
 * The lock a pick or abort went through, as task_struct::blocked_on
 * encodes it: bit 0 set for an rw_semaphore (kernels before rwsem proxying
 * pass a struct mutex pointer, bit 0 clear).
 */
#define PX_BLOCKED_ON_RWSEM	1UL
#define px_blocked_on_is_rwsem(b)	(((unsigned long)(b)) & PX_BLOCKED_ON_RWSEM)
#define PX_PROTO_SWITCH	PX_ARGS(struct task_struct *prev, struct task_struct *prev_donor, \
			     struct task_struct *next, struct task_struct *next_donor)
#define PX_PROTO_MIGRATE	PX_ARGS(struct task_struct *donor, struct task_struct *owner, \
			     int src_cpu, int dst_cpu)
#define PX_PROTO_RETURN	PX_ARGS(struct task_struct *p, int src_cpu, int dst_cpu, int strategy)
#define PX_PROTO_SLEEPING	PX_ARGS(struct task_struct *donor, struct task_struct *owner)
#define PX_PROTO_HANDOFF	PX_ARGS(struct mutex *lock, struct task_struct *owner, \
			     struct task_struct *to, int kind)

/*
 * Kernel enums the handlers compare with, as CO-RE flavours: their values
 * are relocated to the running kernel's (bpf_core_enum_value()), which
 * may number them differently; vmlinux.h need not have them.
 */
enum proxy_handoff_kind___px {
	PROXY_HANDOFF_DONOR___px,
	PROXY_HANDOFF_TOP_WAITER___px,
};

static __always_inline __u64 px_log2(__u32 v)
{
	__u32 shift, r;

	r = (v > 0xFFFF) << 4; v >>= r;
	shift = (v > 0xFF) << 3; v >>= shift; r |= shift;
	shift = (v > 0xF) << 2; v >>= shift; r |= shift;
	shift = (v > 0x3) << 1; v >>= shift; r |= shift;
	r |= (v >> 1);
	return r;
}

static __always_inline __u64 px_log2l(__u64 v)
{
	__u32 hi = v >> 32;

	return hi ? px_log2(hi) + 32 : px_log2(v);
}

/* log2 slot of @v, clamped to the last slot. */
static __always_inline __u32 px_slot(__u64 v)
{
	__u64 slot = px_log2l(v);

	return slot >= PX_MAX_SLOTS ? PX_MAX_SLOTS - 1 : slot;
}

/*
 * Count @v in @h, an entry of a PERCPU_ARRAY: this CPU's copy, so a plain
 * increment (user space sums the CPUs, pxbpf_percpu_sum()).
 */
static __always_inline void px_hist_add(struct px_hist *h, __u64 v)
{
	__u32 slot = px_slot(v);

	if (slot < PX_MAX_SLOTS)	/* for the verifier */
		h->slots[slot]++;
}

static __always_inline void *
px_lookup_or_init(void *map, const void *key, const void *init)
{
	void *val = bpf_map_lookup_elem(map, key);
	long err;

	if (val)
		return val;
	err = bpf_map_update_elem(map, key, init, BPF_NOEXIST);
	if (err && err != -17 /* EEXIST: raced with another CPU */)
		return NULL;
	return bpf_map_lookup_elem(map, key);
}

static __always_inline __u64 px_task_cgid(struct task_struct *t)
{
	struct css_set *cs = t->cgroups;	/* __rcu: may read as NULL */
	struct cgroup *cgrp = cs ? cs->dfl_cgrp : NULL;

	return cgrp ? cgrp->kn->id : 0;
}

/*
 * Is @t in the cgroup v2 @cgid, which sits at @level below the root, or in
 * one of its descendants?  @cgid 0 matches everything.
 */
static __always_inline bool
px_task_in_cgroup(struct task_struct *t, __u64 cgid, __u32 level)
{
	struct cgroup *cgrp, *anc = NULL;
	struct css_set *cs;

	if (!cgid)
		return true;
	cs = t->cgroups;
	cgrp = cs ? cs->dfl_cgrp : NULL;
	if (!cgrp || cgrp->level < (int)level)
		return false;
	/* A variable index into ancestors[] needs a helper read. */
	if (bpf_probe_read_kernel(&anc, sizeof(anc), (void *)cgrp +
				  bpf_core_field_offset(struct cgroup, ancestors) +
				  level * sizeof(anc)))
		return false;
	/* @anc came from a helper read: a plain number to the verifier. */
	return anc && BPF_CORE_READ(anc, kn, id) == cgid;
}

/*
 * Does @t pass the -p (tgid, 0: any) and -c (cgroup, 0: any) filters?
 * The knobs are rodata: with neither set the verifier drops the reads.
 * A NULL @t (sched_proxy_abort's owner when the chain changed) reads as
 * tgid 0 and cgroup NULL: no match.
 */
static __always_inline bool
px_task_match(struct task_struct *t, __u32 tgid, __u64 cgid, __u32 level)
{
	if (!tgid && !cgid)
		return true;
	if (tgid && t->tgid != tgid)
		return false;
	return px_task_in_cgroup(t, cgid, level);
}

/* A donor/owner pair passes the filters if either side does. */
static __always_inline bool
px_pair_match(struct task_struct *donor, struct task_struct *owner,
	      __u32 tgid, __u64 cgid, __u32 level)
{
	if (!tgid && !cgid)
		return true;
	return px_task_match(donor, tgid, cgid, level) ||
	       px_task_match(owner, tgid, cgid, level);
}

static __always_inline void
px_pair_key_of(struct px_pair_key *key, struct task_struct *donor,
	       struct task_struct *owner)
{
	key->donor_pid = donor->pid;
	key->owner_pid = owner->pid;
	key->donor_start = donor->start_time;
	key->owner_start = owner->start_time;
}

/*
 * The pairs map entry for (@donor, @owner), created on first use (counted
 * in @c->pairs_new: the map is an LRU hash, so a new pair may have evicted
 * an idle one).
 */
static __always_inline struct px_pair *
px_pair_get(void *pairs, struct task_struct *donor, struct task_struct *owner,
	    struct px_counters *c)
{
	struct px_pair_key key;
	struct px_pair *p, init = {};
	long err;

	px_pair_key_of(&key, donor, owner);
	p = bpf_map_lookup_elem(pairs, &key);
	if (p)
		return p;
	init.donor_tgid = donor->tgid;
	init.owner_tgid = owner->tgid;
	init.donor_cgid = px_task_cgid(donor);
	init.owner_cgid = px_task_cgid(owner);
	BPF_CORE_READ_STR_INTO(&init.donor_comm, donor, comm);
	BPF_CORE_READ_STR_INTO(&init.owner_comm, owner, comm);
	err = bpf_map_update_elem(pairs, &key, &init, BPF_NOEXIST);
	if (!err)
		c->pairs_new++;
	else if (err != -17 /* EEXIST: raced with another CPU */)
		return NULL;
	return bpf_map_lookup_elem(pairs, &key);
}

/*
 * Close the proxy stretch in progress on this CPU, crediting its pair.
 * Returns the stretch length in ns, 0 if none was open.
 */
static __always_inline __u64
px_stretch_close(void *pairs, struct px_stretch *st, __u64 now)
{
	struct px_pair_key key;
	struct px_pair *p;
	__u64 delta;

	if (!st->ts)
		return 0;
	delta = now - st->ts;
	st->ts = 0;
	if (!st->tracked)
		return delta;
	key = st->key;
	p = bpf_map_lookup_elem(pairs, &key);
	if (p) {
		__sync_fetch_and_add(&p->ns, delta);
		__sync_fetch_and_add(&p->stretches, 1);
		if (delta > p->max_ns)
			p->max_ns = delta;
	}
	return delta;
}

/*
 * Open a stretch: @next runs on @next_donor's behalf from @now.  @track:
 * the pair passed the filters; it is credited only if it fits the map.
 * Returns false when the pair was wanted but did not fit.
 */
static __always_inline bool
px_stretch_open(void *pairs, struct px_stretch *st, __u64 now,
		struct task_struct *next, struct task_struct *next_donor,
		bool track, struct px_counters *c)
{
	st->ts = now;
	px_pair_key_of(&st->key, next_donor, next);
	st->tracked = track && px_pair_get(pairs, next_donor, next, c);
	return !track || st->tracked;
}

#ifdef PX_WANT_PAIR_MAPS
/*
 * The maps behind px_switch(), for tools that define PX_WANT_PAIR_MAPS
 * before including this file: cumulative donor/owner pairs (LRU: a long
 * run keeps taking new pairs, the idle ones go; user space may resize it
 * before load), the stretch open on each CPU, system-wide counters per CPU.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, PX_MAX_PAIRS);
	__type(key, struct px_pair_key);
	__type(value, struct px_pair);
} pairs SEC(".maps");

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
	__type(value, struct px_counters);
} counters SEC(".maps");
#endif /* PX_WANT_PAIR_MAPS */

/*
 * sched_proxy_switch bookkeeping shared by pxdonor and proxytop: close the
 * stretch open on this CPU, credit it, and open the next one if
 * @next runs on @next_donor's behalf.  @stretch_map is a one-entry
 * PERCPU_ARRAY of struct px_stretch, @counters_map one of struct
 * px_counters.  @track: the new pair passes the tool's filters.
 * Returns the length of the closed stretch if it was tracked, else 0.
 */
static __always_inline __u64
px_switch(void *pairs, void *stretch_map, void *counters_map,
	  struct task_struct *next, struct task_struct *next_donor, bool track)
{
	__u64 now = bpf_ktime_get_ns(), delta;
	struct px_counters *c;
	struct px_stretch *st;
	__u32 zero = 0;
	bool tracked;

	st = bpf_map_lookup_elem(stretch_map, &zero);
	c = bpf_map_lookup_elem(counters_map, &zero);
	if (!st || !c)
		return 0;
	c->switches++;
	tracked = st->tracked;
	delta = px_stretch_close(pairs, st, now);
	c->donated_ns += delta;
	if (next != next_donor &&
	    !px_stretch_open(pairs, st, now, next, next_donor, track, c))
		c->lost++;
	return tracked ? delta : 0;
}

#endif /* __PXBPF_H */

// SPDX-License-Identifier: GPL-2.0
/*
 * pxchain: blocked_on chain depth at each proxy resolution
 * (sched_proxy_pick), system-wide or per donor/owner, and why
 * find_proxy_task() gave up (sched_proxy_abort).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "pxbpf.h"
#include "pxchain.h"

const volatile __u32 targ_tgid = 0;
const volatile __u64 targ_cgid = 0;
const volatile __u32 targ_cglevel = 0;
const volatile bool targ_per_donor = false;
const volatile bool targ_per_owner = false;

/* A plain hash, cleared every interval (--max-tasks sizes it). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PX_MAX_TASKS);
	__type(key, __u32);
	__type(value, struct pxchain_hist);
} hists SEC(".maps");

/* Picks not counted because hists was full: per CPU, summed by user space. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} lost SEC(".maps");

/*
 * Per-CPU counts by the kernel's reason value (user space names them from
 * the kernel's BTF): plain increments; user space sums the CPUs.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PX_ABORT_SLOTS);	/* last: out of range */
	__type(key, __u32);
	__type(value, __u64);
} aborts SEC(".maps");

/* Picks and aborts by lock type (enum pxchain_lock_slot), as aborts. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PXCHAIN_LOCK_SLOTS);
	__type(key, __u32);
	__type(value, __u64);
} lock_types SEC(".maps");

static struct pxchain_hist zero;

static __always_inline void count_lock_type(__u32 key)
{
	__u64 *cnt = bpf_map_lookup_elem(&lock_types, &key);

	if (cnt)
		(*cnt)++;
}

static __always_inline int
on_pick(struct task_struct *donor, struct task_struct *owner, void *blocked_on, int depth)
{
	struct task_struct *who = targ_per_owner ? owner : donor;
	struct pxchain_hist *h;
	__u32 key = 0, slot;

	if (!px_pair_match(donor, owner, targ_tgid, targ_cgid, targ_cglevel))
		return 0;
	count_lock_type(px_blocked_on_is_rwsem(blocked_on) ? PXCHAIN_PICK_RWSEM : PXCHAIN_PICK_MUTEX);
	if (targ_per_donor || targ_per_owner)
		key = who->pid;
	h = bpf_map_lookup_elem(&hists, &key);
	if (!h) {
		h = px_lookup_or_init(&hists, &key, &zero);
		if (!h) {
			__u32 zero_key = 0;
			__u64 *cnt = bpf_map_lookup_elem(&lost, &zero_key);

			if (cnt)
				(*cnt)++;
			return 0;
		}
		if (key) {
			h->tgid = who->tgid;
			BPF_CORE_READ_STR_INTO(&h->comm, who, comm);
		}
	}
	slot = depth < 0 ? 0 : depth;
	if (slot > PX_MAX_DEPTH)
		slot = PX_MAX_DEPTH;
	/* Check the register that indexes, not a copy the compiler made. */
	asm volatile("" : "+r"(slot));
	if (slot <= PX_MAX_DEPTH)
		__sync_fetch_and_add(&h->slots[slot], 1);
	return 0;
}

static __always_inline int
on_abort(struct task_struct *donor, struct task_struct *owner, void *blocked_on, int reason)
{
	__u32 key = reason < 0 || reason >= PX_ABORT_SLOTS - 1 ? PX_ABORT_SLOTS - 1 : reason;
	__u64 *cnt;

	/* @owner is NULL when the chain changed: then only @donor counts. */
	if (!px_pair_match(donor, owner, targ_tgid, targ_cgid, targ_cglevel))
		return 0;
	count_lock_type(px_blocked_on_is_rwsem(blocked_on) ? PXCHAIN_ABORT_RWSEM : PXCHAIN_ABORT_MUTEX);
	cnt = bpf_map_lookup_elem(&aborts, &key);
	if (cnt)
		(*cnt)++;
	return 0;
}

PX_TP(sched_proxy_pick, pick,
      PX_PROTO_PICK,
      on_pick(donor, owner, blocked_on, depth))

PX_TP(sched_proxy_abort, abort,
      PX_PROTO_ABORT,
      on_abort(donor, owner, blocked_on, reason))

char LICENSE[] SEC("license") = "GPL";

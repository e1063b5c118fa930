// SPDX-License-Identifier: GPL-2.0
/*
 * pxwakelat: wakeup -> on-CPU latency, split by whether the woken task was
 * a blocked mutex waiter (and whether it donated its scheduling context
 * meanwhile), and the lock-wait latency of blocked waiters
 * (lock:contention_begin -> contention_end for mutexes).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "pxbpf.h"
#include "pxwakelat.h"

const volatile __u32 targ_tgid = 0;
const volatile __u64 targ_cgid = 0;
const volatile __u32 targ_cglevel = 0;
const volatile bool targ_ms = false;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PX_MAX_TASKS);
	__type(key, __u32);
	__type(value, struct pxwl_wait);
} waiting SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PX_MAX_TASKS);
	__type(key, __u32);
	__type(value, struct pxwl_wake);
} wakeups SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, PXWL_NHIST);
	__type(key, __u32);
	__type(value, struct px_hist);
} hists SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pxwl_stats);
} stats SEC(".maps");

static __always_inline bool match(struct task_struct *t)
{
	return px_task_match(t, targ_tgid, targ_cgid, targ_cglevel);
}

static __always_inline void record(__u32 idx, __u64 ns)
{
	struct px_hist *h = bpf_map_lookup_elem(&hists, &idx);

	if (h)
		px_hist_add(h, ns / (targ_ms ? 1000000 : 1000));
}

static __always_inline struct pxwl_stats *st(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&stats, &zero);
}

static __always_inline int on_contention_begin(unsigned int flags)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	__u32 pid = bpf_get_current_pid_tgid();
	struct pxwl_wait *w, init = {};

	if (!(flags & PX_LCB_F_MUTEX) || !match(cur))
		return 0;
	init.ts = bpf_ktime_get_ns();
	w = px_lookup_or_init(&waiting, &pid, &init);
	if (w && !(flags & PX_LCB_F_SPIN))
		w->blocked = 1;
	return 0;
}

static __always_inline int on_contention_end(int ret)
{
	__u32 pid = bpf_get_current_pid_tgid();
	struct pxwl_stats *s = st();
	struct pxwl_wait *w;
	__u64 ns;

	w = bpf_map_lookup_elem(&waiting, &pid);
	if (!w || !s)
		return 0;
	ns = bpf_ktime_get_ns() - w->ts;
	if (ret) {
		__sync_fetch_and_add(&s->failed, 1);
	} else if (!w->blocked) {
		__sync_fetch_and_add(&s->spun, 1);
	} else {
		__sync_fetch_and_add(&s->acquired, 1);
		if (w->donated)
			__sync_fetch_and_add(&s->acquired_donated, 1);
		__sync_fetch_and_add(&s->wait_ns, ns);
		record(PXWL_HIST_LOCKWAIT, ns);
	}
	bpf_map_delete_elem(&waiting, &pid);
	return 0;
}

static __always_inline int on_wakeup(struct task_struct *p)
{
	__u32 pid = BPF_CORE_READ(p, pid);
	struct pxwl_wake wake = {};
	struct pxwl_wait *w;

	if (!pid || !match(p))
		return 0;
	wake.ts = bpf_ktime_get_ns();
	w = bpf_map_lookup_elem(&waiting, &pid);
	if (w && w->blocked)
		wake.class = w->donated ? PXWL_DONOR : PXWL_WAITER;
	bpf_map_update_elem(&wakeups, &pid, &wake, BPF_ANY);
	return 0;
}

static __always_inline int on_switch(struct task_struct *prev, struct task_struct *next)
{
	__u32 prev_pid = BPF_CORE_READ(prev, pid);
	__u32 pid = BPF_CORE_READ(next, pid);
	struct pxwl_stats *s = st();
	struct pxwl_wake *wake;
	__u32 class;
	__u64 ns;

	/* Woken while still on CPU: no latency to measure. */
	bpf_map_delete_elem(&wakeups, &prev_pid);
	wake = bpf_map_lookup_elem(&wakeups, &pid);
	if (!wake || !s)
		return 0;
	ns = bpf_ktime_get_ns() - wake->ts;
	class = wake->class < PXWL_NCLASS ? wake->class : PXWL_OTHER;
	bpf_map_delete_elem(&wakeups, &pid);
	if (class < PXWL_NCLASS) {	/* for the verifier */
		__sync_fetch_and_add(&s->wakeups[class], 1);
		__sync_fetch_and_add(&s->wake_ns[class], ns);
	}
	record(class, ns);
	return 0;
}

static __always_inline int on_pick(struct task_struct *donor)
{
	__u32 pid = BPF_CORE_READ(donor, pid);
	struct pxwl_wait *w = bpf_map_lookup_elem(&waiting, &pid);

	if (w)
		w->donated = 1;
	return 0;
}

PX_TWIN(contention_begin, contention_begin,
	PX_ARGS(void *lock, unsigned int flags),
	on_contention_begin(flags))

PX_TWIN(contention_end, contention_end,
	PX_ARGS(void *lock, int ret),
	on_contention_end(ret))

PX_TWIN(sched_wakeup, wakeup,
	PX_ARGS(struct task_struct *p),
	on_wakeup(p))

PX_TWIN(sched_wakeup_new, wakeup_new,
	PX_ARGS(struct task_struct *p),
	on_wakeup(p))

PX_TWIN(sched_switch, sched_switch,
	PX_ARGS(bool preempt, struct task_struct *prev, struct task_struct *next,
		unsigned int prev_state),
	on_switch(prev, next))

PX_TWIN(sched_proxy_pick, pick,
	PX_PROTO_PICK,
	on_pick(donor))

char LICENSE[] SEC("license") = "GPL";

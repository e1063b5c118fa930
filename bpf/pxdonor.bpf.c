// SPDX-License-Identifier: GPL-2.0
/*
 * pxdonor: donor runtime, the time an owner (execution context) ran on a
 * donor's (scheduling context's) behalf.  A proxy stretch opens at a
 * sched_proxy_switch with next != next_donor and closes at the next
 * sched_proxy_switch on the same CPU.
 *
 * Maps (types in pxtypes.h, shared with tools/observe/pxdonor.c): the
 * cumulative pairs map (struct px_pair), the per-CPU open stretch (struct
 * px_stretch), per-CPU struct px_counters and one struct px_hist of
 * completed stretch lengths, which the user side clears each interval.
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
const volatile bool targ_ms = false;

/* Per-CPU copies: plain increments; user space sums the CPUs. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct px_hist);
} hist SEC(".maps");

static __always_inline int
on_switch(struct task_struct *next, struct task_struct *next_donor)
{
	bool track = next != next_donor &&
		     px_pair_match(next_donor, next, targ_tgid, targ_cgid, targ_cglevel);
	__u64 delta = px_switch(&pairs, &stretch, &counters, next, next_donor, track);
	struct px_hist *h;
	__u32 zero = 0;

	h = bpf_map_lookup_elem(&hist, &zero);
	if (delta && h)
		px_hist_add(h, delta / (targ_ms ? 1000000 : 1000));
	return 0;
}

PX_TP(sched_proxy_switch, switch,
      PX_PROTO_SWITCH,
      on_switch(next, next_donor))

char LICENSE[] SEC("license") = "GPL";

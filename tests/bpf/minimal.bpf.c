// SPDX-License-Identifier: GPL-2.0
/*
 * Smallest BTF-typed program: bpftool in the guest must resolve
 * sched_switch in the kernel's BTF to load it (tests/guest/00-pipeline.sh).
 */
#define SEC(name) __attribute__((section(name), used))

SEC("tp_btf/sched_switch")
int px_minimal(unsigned long long *ctx)
{
	return 0;
}

char LICENSE[] SEC("license") = "GPL";

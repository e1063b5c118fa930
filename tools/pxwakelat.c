// SPDX-License-Identifier: GPL-2.0
/*
 * pxwakelat: wakeup -> on-CPU latency, split by whether the woken task was
 * a blocked mutex waiter (and whether it donated its scheduling context
 * while blocked), and the lock-wait latency of blocked mutex waiters
 * (lock:contention_begin -> contention_end).
 *
 * Usage: pxwakelat [-h] [-m] [-w] [--slots N] [-p PID] [-c CGROUP] [-T] [-j] [-v]
 *                  [interval] [count]
 */
#define _GNU_SOURCE
#include <argp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "pxwakelat.h"
#include "pxwakelat.skel.h"
#include "pxbpf_user.h"
#include "pxutil.h"

static struct env {
	struct pxbpf_env c;
	bool ms;
	bool waiters_only;
	long slots;		/* --slots, 0: from pid_max */
} env = { .c = PXBPF_ENV_INIT };

enum { OPT_SLOTS = 1000 };

static const char *const class_key[PXWL_NCLASS] = {
	[PXWL_OTHER]	= "other",
	[PXWL_WAITER]	= "waiter",
	[PXWL_DONOR]	= "donor",
};

static const char *const class_title[PXWL_NCLASS] = {
	[PXWL_OTHER]	= "not a mutex waiter",
	[PXWL_WAITER]	= "blocked mutex waiter, never picked as donor",
	[PXWL_DONOR]	= "blocked mutex waiter that donated (proxy)",
};

const char *argp_program_version = "pxwakelat 0.1";
static const char doc[] =
"Wakeup latency of mutex waiters and donors vs other tasks, and mutex wait time.\n"
"\n"
"USAGE: pxwakelat [-h] [-m] [-w] [--slots N] [-p PID] [-c CGROUP] [-T] [-j] [-v]\n"
"                 [interval] [count]\n"
"\n"
"Wakeup latency: sched_wakeup -> the task runs (sched_switch to it).\n"
"Classes: not waiting on a mutex; blocked in mutex_lock(); blocked and\n"
"picked as a proxy donor meanwhile.  Mutex wait: contention_begin ->\n"
"contention_end of waiters that blocked (spinners counted apart).\n"
"\n"
"Per-task state lives in slots indexed by pid: pid_max of them by\n"
"default (at most 2^20); a task that takes over the slot of another with\n"
"a wait or wakeup in progress evicts it (counted: \"evicted\").  On a\n"
"kernel without the sched_proxy events (CONFIG_PROXY_EXEC=n) it runs\n"
"without them, says so, and has no donor class.\n"
"\n"
"EXAMPLES:\n"
"    pxwakelat           # histograms until Ctrl-C\n"
"    pxwakelat 1 10      # 1 second summaries, 10 times\n"
"    pxwakelat -m -w     # milliseconds, mutex waiters only\n"
"    pxwakelat -p 185    # only tasks of process 185\n"
"    pxwakelat -c /lab   # only tasks in cgroup /lab or below\n"
"    pxwakelat -j 1 5    # JSON lines\n";

static const struct argp_option opts[] = {
	{ "milliseconds", 'm', NULL, 0, "Millisecond histograms", 0 },
	{ "waiters", 'w', NULL, 0, "Only time the wakeups of blocked mutex waiters", 0 },
	{ "slots", OPT_SLOTS, "N", 0,
	  "Per-task slots, a power of two (default: pid_max rounded up, at most 2^20)", 0 },
	{},
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'm':
		env.ms = true;
		break;
	case 'w':
		env.waiters_only = true;
		break;
	case OPT_SLOTS:
		env.slots = px_arg_long(state, "slots", arg, 1, PXWL_MAX_SLOTS);
		if (env.slots & (env.slots - 1))
			argp_error(state, "invalid slots: %s (a power of two)", arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* Read and clear the histograms and the stats (per-CPU maps, summed). */
static int read_clear(struct pxwakelat_bpf *obj, struct px_hist *hists,
		      struct pxwl_stats *stats)
{
	__u32 i;
	int err;

	for (i = 0; i < PXWL_NHIST; i++) {
		err = pxbpf_percpu_sum(obj->maps.hists, i, &hists[i], sizeof(hists[i]),
				       sizeof(hists[i].slots[0]), true);
		if (err)
			return err;
	}
	return pxbpf_percpu_sum(obj->maps.stats, 0, stats, sizeof(*stats),
				sizeof(__u64), true);
}

static double avg_us(__u64 ns, __u64 n)
{
	return n ? ns / 1e3 / n : 0;
}

static void print_json(const struct px_hist *hists, const struct pxwl_stats *s,
		       const char *unit)
{
	struct px_json j;
	int c;

	px_json_init(&j, stdout, PX_JSON_LINES);
	px_json_object_begin(&j, NULL);
	px_json_i64(&j, "time", time(NULL));
	px_json_string(&j, "unit", unit);
	px_json_object_begin(&j, "wakeup");
	for (c = 0; c < PXWL_NCLASS; c++) {
		if (env.waiters_only && c == PXWL_OTHER)
			continue;
		px_json_object_begin(&j, class_key[c]);
		px_json_u64(&j, "count", s->wakeups[c]);
		px_json_double(&j, "avg_us", avg_us(s->wake_ns[c], s->wakeups[c]));
		px_json_log2_hist(&j, "hist", hists[c].slots, PX_MAX_SLOTS);
		px_json_object_end(&j);
	}
	px_json_object_end(&j);
	px_json_bool(&j, "proxy_events", env.c.have_proxy);
	px_json_u64(&j, "slots", env.slots);
	px_json_u64(&j, "evicted", s->evicted);
	px_json_object_begin(&j, "mutex_wait");
	px_json_u64(&j, "acquired", s->acquired);
	px_json_u64(&j, "acquired_donated", s->acquired_donated);
	px_json_double(&j, "avg_us", avg_us(s->wait_ns, s->acquired));
	px_json_u64(&j, "spun", s->spun);
	px_json_u64(&j, "failed", s->failed);
	px_json_log2_hist(&j, "hist", hists[PXWL_HIST_LOCKWAIT].slots, PX_MAX_SLOTS);
	px_json_object_end(&j);
	px_json_object_end(&j);
	px_json_finish(&j);
}

static void print_text(const struct px_hist *hists, const struct pxwl_stats *s,
		       const char *unit)
{
	int c;

	printf("\n");
	if (env.c.timestamp) {
		px_print_time(stdout);
		printf("\n");
	}
	for (c = 0; c < PXWL_NCLASS; c++) {
		if (env.waiters_only && c == PXWL_OTHER)
			continue;
		if (!env.c.have_proxy && c == PXWL_DONOR)
			continue;
		printf("wakeup latency, %s: %llu wakeups, avg %.1f us\n", class_title[c],
		       (unsigned long long)s->wakeups[c],
		       avg_us(s->wake_ns[c], s->wakeups[c]));
		if (s->wakeups[c])
			px_print_log2_hist(stdout, hists[c].slots, PX_MAX_SLOTS, unit);
	}
	printf("mutex wait, blocked waiters: %llu acquired (%llu donated while waiting), "
	       "avg %.1f us; %llu spun; %llu failed\n",
	       (unsigned long long)s->acquired, (unsigned long long)s->acquired_donated,
	       avg_us(s->wait_ns, s->acquired), (unsigned long long)s->spun,
	       (unsigned long long)s->failed);
	if (s->acquired)
		px_print_log2_hist(stdout, hists[PXWL_HIST_LOCKWAIT].slots,
				   PX_MAX_SLOTS, unit);
	if (s->evicted)
		printf("(%llu waits or wakeups lost: their task's slot was taken by a "
		       "task with the same pid modulo %ld; --slots)\n",
		       (unsigned long long)s->evicted, env.slots);
}

static int print_interval(void *ctx)
{
	struct pxwakelat_bpf *obj = ctx;
	const char *unit = env.ms ? "msecs" : "usecs";
	struct px_hist hists[PXWL_NHIST];
	struct pxwl_stats stats;
	int err;

	err = read_clear(obj, hists, &stats);
	if (err) {
		px_warnx("failed to read maps: %s", strerror(-err));
		return err;
	}
	if (env.c.json)
		print_json(hists, &stats, unit);
	else
		print_text(hists, &stats, unit);
	fflush(stdout);
	return 0;
}

/* pid_max rounded up to a power of two, within 1..PXWL_MAX_SLOTS. */
static long default_slots(void)
{
	uint64_t pid_max = PXWL_DEF_SLOTS;
	long n = 1;

	px_read_u64("/proc/sys/kernel/pid_max", &pid_max);
	while (n < (long)pid_max && n < (long)PXWL_MAX_SLOTS)
		n <<= 1;
	return n;
}

int main(int argc, char **argv)
{
	static const struct argp argp = {
		.options = opts,
		.parser = parse_arg,
		.doc = doc,
	};
	struct pxwakelat_bpf *obj = NULL;
	int err;

	env.c.proxy_optional = true;	/* only the donor class needs them */
	err = pxbpf_init(&argp, argc, argv, &env.c);
	if (err)
		return err;
	if (!env.slots)
		env.slots = default_slots();

	obj = pxwakelat_bpf__open();
	if (!obj) {
		px_warnx("failed to open BPF object");
		return 1;
	}
	PXBPF_SET_FILTERS(obj->rodata, &env.c);
	obj->rodata->targ_ms = env.ms;
	obj->rodata->targ_waiters_only = env.waiters_only;
	obj->rodata->targ_slot_mask = env.slots - 1;
	err = bpf_map__set_max_entries(obj->maps.tasks, env.slots);
	if (err) {
		px_warnx("cannot size the task slots to %ld: %s", env.slots, strerror(-err));
		goto cleanup;
	}
	if (!env.c.have_proxy) {
		bpf_program__set_autoload(obj->progs.pick_btf, false);
		px_warnx("kernel has no sched_proxy trace events (CONFIG_PROXY_EXEC=n): "
			 "running without them, no donor class");
	}
	err = pxbpf_load_attach(obj->skeleton);
	if (err)
		goto cleanup;
	err = pxbpf_loop(&env.c, "wakeup and mutex wait latency", print_interval, obj);

cleanup:
	pxwakelat_bpf__destroy(obj);
	return err != 0;
}

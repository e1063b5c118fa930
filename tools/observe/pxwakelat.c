// SPDX-License-Identifier: GPL-2.0
/*
 * pxwakelat: wakeup -> on-CPU latency, split by whether the woken task was
 * a blocked mutex waiter (and whether it donated its scheduling context
 * while blocked), and the lock-wait latency of blocked mutex waiters
 * (lock:contention_begin -> contention_end).  With --min, one event per
 * wakeup at least that late instead: which task, woken by whom (and from
 * where: the waker's kernel stack), onto which CPU and what ran there
 * meanwhile, the CPU it ran on, and the mutex a waiter was blocked on.
 *
 * Usage: pxwakelat [-h] [-m] [-w] [--slots N] [--min USEC] [-p PID] [-c CGROUP]
 *                  [-T] [-j] [-v] [interval] [count]
 */
#define _GNU_SOURCE
#include <argp.h>
#include <errno.h>
#include <stdint.h>
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
	uint64_t min_ns;	/* --min, 0: histograms */
} env = { .c = PXBPF_ENV_INIT };

enum {
	OPT_SLOTS = 1000,
	OPT_MIN,
};

/* --min: at least 1 us (0 would send every wakeup), at most an hour. */
#define PXWL_MIN_LO_NS		1000ULL
#define PXWL_MIN_HI_NS		(3600ULL * 1000000000)
#define PXWL_RINGBUF_SIZE	(256 * 1024)

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

static const char doc[] =
"Wakeup latency of mutex waiters and donors vs other tasks, and mutex wait time.\n"
"\n"
"USAGE: pxwakelat [-h] [-m] [-w] [--slots N] [--min USEC] [-p PID] [-c CGROUP]\n"
"                 [-T] [-j] [-v] [interval] [count]\n"
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
"--min USEC: no histograms; one entry per wakeup at least USEC late (also\n"
"100us, 2ms, 1s), filtered in BPF: the task, its class, the latency, the\n"
"CPU it was woken onto and the one it ran on, the waker (at sched_waking)\n"
"and its kernel stack, the task running on the target CPU at the wakeup and\n"
"the context switches there before it ran, and a waiter's mutex (named\n"
"from /proc/kallsyms when static).  -p, -c and -w filter the entries;\n"
"[interval] [count] only bound the run (interval x count seconds).\n"
"Entries the ring buffer had no room for are counted at the end, and so\n"
"are waker stacks not kept: a stack whose slot in the stack map held\n"
"another, or one of a wakeup that waited longer than the map keeps stacks\n"
"(two generations of at least 2 s, or 4 x USEC: the map is emptied as it\n"
"ages, so a long run keeps finding room).\n"
"\n"
"EXAMPLES:\n"
"    pxwakelat           # histograms until Ctrl-C\n"
"    pxwakelat 1 10      # 1 second summaries, 10 times\n"
"    pxwakelat -m -w     # milliseconds, mutex waiters only\n"
"    pxwakelat -p 185    # only tasks of process 185\n"
"    pxwakelat -c /lab   # only tasks in cgroup /lab or below\n"
"    pxwakelat -j 1 5    # JSON lines\n"
"    pxwakelat --min 2ms -w   # each waiter wakeup 2 ms or more late\n"
"    pxwakelat --min 500 -j -p 185 10   # JSON, one object each, for 10 s\n";

static const struct argp_option opts[] = {
	{ "milliseconds", 'm', NULL, 0, "Millisecond histograms", 0 },
	{ "waiters", 'w', NULL, 0, "Only time the wakeups of blocked mutex waiters", 0 },
	{ "slots", OPT_SLOTS, "N", 0,
	  "Per-task slots, a power of two (default: pid_max rounded up, at most 2^20)", 0 },
	{ "min", OPT_MIN, "USEC", 0,
	  "One entry per wakeup at least USEC late instead of histograms (suffixes ns us ms s)",
	  0 },
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
	case OPT_MIN:
		env.min_ns = px_arg_duration_ns(state, "min", arg, 1000, PXWL_MIN_LO_NS,
						PXWL_MIN_HI_NS);
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

/* ------------------------------------------------------------ --min */

static struct pxwakelat_bpf *skel;	/* for the waker stacks */

/*
 * The stack maps' ageing (see the BPF side): the generation whose map the
 * wakeups use now, when it began, how long one lasts, and what the
 * events' stacks came to.
 */
static struct {
	__u32 gen;
	__u64 since_ns;
	__u64 age_ns;
	__u64 kept, taken, expired, failed;
} stk;

/* Empty a stack map: each key is deleted after the next one is found. */
static void stack_map_clear(struct bpf_map *m)
{
	__u32 key, next;
	int err = bpf_map__get_next_key(m, NULL, &next, sizeof(next));

	while (!err) {
		key = next;
		err = bpf_map__get_next_key(m, &key, &next, sizeof(next));
		bpf_map__delete_elem(m, &key, sizeof(key), 0);
	}
}

static struct bpf_map *stack_map(__u32 gen)
{
	return gen & 1 ? skel->maps.stacks1 : skel->maps.stacks0;
}

/*
 * Polled between ring buffer reads (the events of an old generation have
 * all been read before its map is emptied): once a generation has lasted
 * stk.age_ns, empty the map of the one before it and make that map the
 * current one.  Never ends the loop.
 */
static bool stack_age(void)
{
	__u64 now = px_now_ns();

	if (now - stk.since_ns < stk.age_ns)
		return false;
	stack_map_clear(stack_map(stk.gen + 1));
	stk.gen++;
	skel->bss->stack_gen = stk.gen;
	stk.since_ns = now;
	return false;
}

/* Why a waker's stack is not there (waker_stack() < 0), in a few words. */
static const char *stack_lost_text(__s32 err)
{
	switch (err) {
	case -EEXIST:
		return "its slot in the stack map held another stack";
	case -ESTALE:
		return "expired: the wakeup waited longer than stacks are kept";
	case -EFAULT:
		return "the stack could not be walked";
	default:
		return strerror(-err);
	}
}

/* The waker's stack: bytes in @ips, 0 or -errno as px_print_stack() wants. */
static __s32 waker_stack(const struct pxwl_event *e, __u64 *ips)
{
	__u32 gen = e->wake.waker_stack_gen;
	int err, n;

	if (!e->wake.waker_pid)
		return 0;	/* no waker seen: no stack to speak of */
	if (e->wake.waker_stack < 0) {
		if (e->wake.waker_stack == -EEXIST)
			stk.taken++;
		else
			stk.failed++;
		return e->wake.waker_stack;
	}
	/* Its map was emptied, maybe refilled with other stacks since. */
	if (stk.gen - gen >= 2) {
		stk.expired++;
		return -ESTALE;
	}
	err = bpf_map__lookup_elem(stack_map(gen), &e->wake.waker_stack, sizeof(__u32),
				   ips, PXWL_STACK_DEPTH * sizeof(__u64), 0);
	if (err) {
		stk.failed++;
		return err;
	}
	stk.kept++;
	/* The id's stack fills the value from the top; zeros after it. */
	for (n = 0; n < PXWL_STACK_DEPTH && ips[n]; n++)
		;
	return n * sizeof(__u64);
}

static const char *lock_text(__u64 lock, char *buf, size_t len)
{
	char sym[160];

	if (*px_ksym_name(lock, sym, sizeof(sym)))
		snprintf(buf, len, "%s 0x%llx", sym, (unsigned long long)lock);
	else
		snprintf(buf, len, "0x%llx", (unsigned long long)lock);
	return buf;
}

static void event_json(const struct pxwl_event *e, const __u64 *ips, __s32 sz)
{
	const struct pxwl_wake *w = &e->wake;
	struct px_json j;
	char buf[160];

	px_json_init(&j, stdout, PX_JSON_LINES);
	px_json_object_begin(&j, NULL);
	px_json_i64(&j, "time", time(NULL));
	pxbpf_json_task(&j, "task", e->pid, e->tgid, e->comm, e->prio);
	px_json_string(&j, "class", class_key[e->class < PXWL_NCLASS ? e->class : PXWL_OTHER]);
	px_json_u64(&j, "latency_ns", e->latency_ns);
	px_json_u64(&j, "wake_cpu", w->wake_cpu);
	px_json_u64(&j, "run_cpu", e->run_cpu);
	if (w->waker_pid)
		pxbpf_json_task(&j, "waker", w->waker_pid, w->waker_tgid, w->waker_comm,
				w->waker_prio);
	else
		px_json_null(&j, "waker");
	px_json_stack(&j, "waker_stack", ips, sz);
	if (sz < 0)
		px_json_string(&j, "waker_stack_lost", stack_lost_text(sz));
	/* pid 0: the CPU was idle (its swapper). */
	pxbpf_json_task(&j, "cpu_curr", w->curr_pid, w->curr_tgid, w->curr_comm, w->curr_prio);
	if (e->run_cpu == w->wake_cpu)
		px_json_u64(&j, "switches", e->switches);
	else
		px_json_null(&j, "switches");
	if (w->lock) {
		snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)w->lock);
		px_json_string(&j, "lock", buf);
		if (*px_ksym_name(w->lock, buf, sizeof(buf)))
			px_json_string(&j, "lock_sym", buf);
		else
			px_json_null(&j, "lock_sym");
	} else {
		px_json_null(&j, "lock");
		px_json_null(&j, "lock_sym");
	}
	px_json_object_end(&j);
	if (px_json_finish(&j))
		px_warnx("JSON output failed");
}

static void event_text(const struct pxwl_event *e, const __u64 *ips, __s32 sz)
{
	const struct pxwl_wake *w = &e->wake;
	char buf[256];

	px_print_time(stdout);
	printf("%.*s %u [prio %d] %s: ran %.3f ms after its wakeup, on cpu %u",
	       PX_COMM_LEN, e->comm, e->pid, e->prio,
	       class_key[e->class < PXWL_NCLASS ? e->class : PXWL_OTHER],
	       e->latency_ns / 1e6, e->run_cpu);
	if (w->lock)
		printf(", blocked on %s", lock_text(w->lock, buf, sizeof(buf)));
	printf("\n");
	if (w->waker_pid)
		printf("    woken by: %.*s %u [prio %d]\n", PX_COMM_LEN, w->waker_comm,
		       w->waker_pid, w->waker_prio);
	else
		printf("    woken by: unknown (its sched_waking was not seen)\n");
	printf("    woken onto cpu %u, running there: ", w->wake_cpu);
	if (w->curr_pid)
		printf("%.*s %u [prio %d]", PX_COMM_LEN, w->curr_comm, w->curr_pid,
		       w->curr_prio);
	else
		printf("idle");
	if (e->run_cpu == w->wake_cpu)
		printf("; %llu switches there before it ran\n", (unsigned long long)e->switches);
	else
		printf("; it ran on cpu %u instead\n", e->run_cpu);
	if (sz < 0)
		printf("    waker stack: not kept (%s)\n", stack_lost_text(sz));
	else
		px_print_stack(stdout, "waker stack", ips, sz);
}

static int handle_event(void *ctx, void *data, size_t size)
{
	const struct pxwl_event *e = data;
	__u64 ips[PXWL_STACK_DEPTH] = {};
	__s32 sz;

	if (size < sizeof(*e))
		return 0;
	sz = waker_stack(e, ips);
	if (env.c.json)
		event_json(e, ips, sz);
	else
		event_text(e, ips, sz);
	fflush(stdout);
	return 0;
}

static void event_summary(struct pxwakelat_bpf *obj)
{
	FILE *f = env.c.json ? stderr : stdout;
	struct pxwl_stats s;
	__u64 n = 0;
	int c;

	if (pxbpf_percpu_sum(obj->maps.stats, 0, &s, sizeof(s), sizeof(__u64), false)) {
		px_warnx("failed to read the counters");
		return;
	}
	for (c = 0; c < PXWL_NCLASS; c++)
		n += s.wakeups[c];
	fprintf(f, "%llu wakeups, %llu of at least %.3f ms reported",
		(unsigned long long)n, (unsigned long long)s.events, env.min_ns / 1e6);
	if (s.lost_rb)
		fprintf(f, "; lost: %llu (ring buffer full)", (unsigned long long)s.lost_rb);
	if (s.evicted)
		fprintf(f, "; %llu waits or wakeups lost to slot collisions (--slots)",
			(unsigned long long)s.evicted);
	fprintf(f, "\n");
	fprintf(f, "waker stacks: %llu shown, %llu not kept: %llu slots taken, %llu expired, "
		"%llu failed; stack maps emptied %u times (every %.1f s)\n",
		(unsigned long long)stk.kept,
		(unsigned long long)(stk.taken + stk.expired + stk.failed),
		(unsigned long long)stk.taken, (unsigned long long)stk.expired,
		(unsigned long long)stk.failed, stk.gen, stk.age_ns / 1e9);
}

/* Size the --min maps (one entry each without it) before load. */
static int events_setup(struct pxwakelat_bpf *obj)
{
	int err;

	obj->rodata->targ_min_ns = env.min_ns;
	if (!env.min_ns) {
		bpf_program__set_autoload(obj->progs.waking_btf, false);
		return 0;
	}
	err = bpf_map__set_max_entries(obj->maps.wakes, env.slots);
	if (!err)
		err = bpf_map__set_max_entries(obj->maps.stacks0, PXWL_MAX_STACKS);
	if (!err)
		err = bpf_map__set_max_entries(obj->maps.stacks1, PXWL_MAX_STACKS);
	if (!err)
		err = bpf_map__set_max_entries(obj->maps.events, PXWL_RINGBUF_SIZE);
	if (err) {
		px_warnx("cannot size the event maps: %s", strerror(-err));
		return err;
	}
	err = px_ksyms_load(NULL);
	if (err)
		px_warnx("cannot read /proc/kallsyms: %s", strerror(-err));
	return err;
}

static int events_loop(struct pxwakelat_bpf *obj)
{
	struct ring_buffer *rb;
	__u64 duration = 0;
	char what[64];
	int err;

	rb = pxbpf_rb_new(obj->maps.events, handle_event);
	if (!rb)
		return -errno;
	/* [interval] [count]: a run of interval x count seconds (count 1 if left out). */
	if (env.c.nargs)
		duration = (__u64)env.c.interval * (env.c.nargs > 1 ? env.c.count : 1);
	duration = duration > UINT64_MAX / 1000000000 ? 0 : duration * 1000000000;
	snprintf(what, sizeof(what), "wakeups at least %.3f ms late", env.min_ns / 1e6);
	/* A generation outlasts the events it serves: 2 s, or 4 x --min. */
	stk.age_ns = PXWL_STACK_AGE_NS;
	if (env.min_ns < UINT64_MAX / 4 && 4 * env.min_ns > stk.age_ns)
		stk.age_ns = 4 * env.min_ns;
	stk.since_ns = px_now_ns();
	err = pxbpf_rb_loop(rb, env.c.json, what, duration, stack_age);
	event_summary(obj);
	ring_buffer__free(rb);
	return err;
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
	err = events_setup(obj);
	if (err)
		goto cleanup;
	if (!env.c.have_proxy) {
		bpf_program__set_autoload(obj->progs.pick_btf, false);
		px_warnx("kernel has no sched_proxy trace events (CONFIG_PROXY_EXEC=n): "
			 "running without them, no donor class");
	}
	err = pxbpf_load_attach(obj->skeleton);
	if (err)
		goto cleanup;
	skel = obj;
	if (env.min_ns)
		err = events_loop(obj);
	else
		err = pxbpf_loop(&env.c, "wakeup and mutex wait latency", print_interval, obj);

cleanup:
	pxwakelat_bpf__destroy(obj);
	return err != 0;
}

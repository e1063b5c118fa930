// SPDX-License-Identifier: GPL-2.0
/*
 * prioladder - many waiters of different priorities on one mutex owner.
 *
 * The owner (SCHED_OTHER) locks a lab mutex on --cpu and, once it runs
 * after the hog started, spins for --hold before it unlocks.  Waiters with the SCHED_FIFO priorities of --prios,
 * pinned to the same CPU, block on the mutex in the order given (so the
 * mutex's FIFO wait list has them in that order), then a SCHED_FIFO hog of
 * --hog-prio takes the CPU for --hog.
 *
 * With proxy execution the owner runs on the scheduling context of the
 * highest-priority waiter, which outranks the hog, and the unlock hands
 * the mutex to that waiter: the waiters above the hog's priority acquire,
 * highest first, well before the hog's burst ends (each within --bound of
 * the burst's start); those below it wait for the hog, as they must.
 * Without it the owner, outranked by the hog, is starved for the whole
 * burst and the mutex goes to the waiters in wait-list order: the checks
 * fail, which is what a proxy-off boot shows.
 *
 * The order is proxy execution's only while the owner runs on a donor's
 * behalf.  The fair server (a deadline reservation, 50 ms a second by
 * default, that runs CFS tasks starved by RT ones) may run the owner as
 * itself, above every donor; its release then goes in wait-list order, as
 * it must.  So the owner measures how much of its hold it ran on donors
 * (proxy_received_ns in /proc/self/sched), and highest-priority-first is
 * only judged when donors lent it at least 90% of the hold (kernels
 * without the field: always).
 *
 * Prints "ok NAME" / "not ok NAME - why" lines (tests/guest protocol) and
 * one "# waiter" line per waiter; exits 1 if a check failed, 2 on a
 * broken setup, 64 on bad arguments.
 */
#include <argp.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/proxylab.h>

#include "pxutil.h"

#define MAX_WAITERS	16

static struct env {
	int cpu, idx, hog_prio, nwaiters;
	int prio[MAX_WAITERS];
	uint64_t hold_ns, hog_ns, bound_ns;
} env = {
	.cpu = 1,
	.hog_prio = 30,
	.hold_ns = 20000000ULL,
	.hog_ns = 1000000000ULL,
};

struct shared {
	volatile int owner_locked, go, stop, order;
	volatile uint64_t hog_start_ns;
	volatile uint64_t acquired_ns[MAX_WAITERS];
	volatile int rank[MAX_WAITERS];		/* 1 = acquired first */
	/* The owner's hold: how long it took, and how much of it donors lent. */
	volatile int hold_known;
	volatile uint64_t hold_ns, hold_received_ns;
};

static struct shared *sh;
static int failed;

static int lab_open(void)
{
	int fd = px_lab_open();

	if (fd < 0)
		_exit(2);
	return fd;
}

/*
 * Spin for @ns of wall time once running: a starved owner does not get
 * here at all, and host load (TCG) does not stretch a run-time budget.
 */
static void run_for(uint64_t ns)
{
	uint64_t end = px_now_ns() + ns;

	while (px_now_ns() < end && !sh->stop)
		;
}

static void run_owner(void)
{
	struct proxylab_lock arg = { .idx = env.idx };
	int fd = lab_open();

	/* SCHED_OTHER: not the director's FIFO 99. */
	if (px_set_other(0) || px_pin_self(env.cpu) || ioctl(fd, PROXYLAB_IOC_LOCK, &arg))
		_exit(2);
	uint64_t t0, rcv0, rcv1;
	bool known;

	sh->owner_locked = 1;
	while (!sh->go && !sh->stop)
		px_sleep_ns(1000000);
	/*
	 * The kernel adds what donors lend at its accounting points (a tick,
	 * a switch), so each reading may lag by a tick: 1 ms at HZ=1000, which
	 * the 90% threshold below leaves room for.
	 */
	known = !px_proc_sched_ns(NULL, "proxy_received_ns", &rcv0);
	t0 = px_now_ns();
	run_for(env.hold_ns);
	if (known && !px_proc_sched_ns(NULL, "proxy_received_ns", &rcv1)) {
		sh->hold_ns = px_now_ns() - t0;
		sh->hold_received_ns = rcv1 - rcv0;
		sh->hold_known = 1;
	}
	_exit(ioctl(fd, PROXYLAB_IOC_UNLOCK, &arg.idx) ? 1 : 0);
}

static int waiter_index;

static void run_waiter(void)
{
	struct proxylab_lock arg = { .idx = env.idx };
	int i = waiter_index, fd = lab_open();

	if (px_pin_self(env.cpu) || px_set_fifo(env.prio[i]) ||
	    ioctl(fd, PROXYLAB_IOC_LOCK, &arg))
		_exit(2);
	sh->acquired_ns[i] = px_now_ns();
	sh->rank[i] = __atomic_add_fetch(&sh->order, 1, __ATOMIC_SEQ_CST);
	_exit(ioctl(fd, PROXYLAB_IOC_UNLOCK, &arg.idx) ? 1 : 0);
}

static void run_hog(void)
{
	uint64_t end;

	if (px_set_fifo(env.hog_prio) || px_pin_self(env.cpu))
		_exit(2);
	sh->hog_start_ns = px_now_ns();
	end = sh->hog_start_ns + env.hog_ns;
	while (px_now_ns() < end && !sh->stop)
		;
	_exit(0);
}

static bool all_acquired(long ms)
{
	for (; ms > 0; ms--) {
		if (sh->order == env.nwaiters)
			return true;
		px_sleep_ns(1000000);
	}
	return sh->order == env.nwaiters;
}

#define check(name, cond, ...) (failed |= !px_check("prioladder", name, cond, __VA_ARGS__))

static void report(void)
{
	int i, j, above = 0, late = -1, misordered = -1;
	int64_t t;

	for (i = 0; i < env.nwaiters; i++) {
		t = sh->rank[i] ? (int64_t)(sh->acquired_ns[i] - sh->hog_start_ns) : -1;
		printf("# waiter %d: FIFO %d, acquired %s%d, %" PRId64 " us after the hog started\n",
		       i, env.prio[i], sh->rank[i] ? "#" : "never ", sh->rank[i],
		       t < 0 ? (int64_t)-1 : t / 1000);
		if (env.prio[i] <= env.hog_prio)
			continue;
		above++;
		if (!sh->rank[i] || (uint64_t)t >= env.bound_ns)
			late = i;
		/* Above the hog: every higher-priority waiter acquired first. */
		for (j = 0; j < env.nwaiters; j++)
			if (env.prio[j] > env.prio[i] && sh->rank[j] > sh->rank[i])
				misordered = i;
	}
	if (!above) {
		printf("skip prioladder/above-hog - no waiter above the hog's FIFO %d\n",
		       env.hog_prio);
		return;
	}
	check("above-hog-bounded", late < 0,
	      "waiter %d (FIFO %d) acquired %s after the hog started, want < %" PRIu64 " us",
	      late, late < 0 ? 0 : env.prio[late],
	      late < 0 || !sh->rank[late] ? "never" : "too late", env.bound_ns / 1000);
	if (sh->hold_known)
		printf("# owner: held %" PRIu64 " us, donors lent %" PRIu64 " us of it\n",
		       sh->hold_ns / 1000, sh->hold_received_ns / 1000);
	if (sh->hold_known && sh->hold_received_ns < sh->hold_ns / 10 * 9)
		printf("skip prioladder/highest-priority-first - donors lent the owner %" PRIu64
		       " of the %" PRIu64 " us of its hold (the fair server ran it as itself?): its release was not on a donor's behalf\n",
		       sh->hold_received_ns / 1000, sh->hold_ns / 1000);
	else
		check("highest-priority-first", misordered < 0,
		      "waiter %d (FIFO %d) acquired before a higher-priority waiter",
		      misordered, misordered < 0 ? 0 : env.prio[misordered]);
	check("all-acquired", sh->order == env.nwaiters, "%d of %d waiters acquired",
	      sh->order, env.nwaiters);
}

static const char doc[] =
"Many waiters of different priorities on one mutex owner, with a hog between them.\n"
"\n"
"USAGE: prioladder [-c CPU] [-m IDX] [-P PRIOS] [--hog-prio PRIO] [--hog TIME]\n"
"                  [--hold TIME] [--bound TIME]\n"
"\n"
"Prints ok/not ok lines and each waiter's acquisition; exits 1 if a check\n"
"failed, 2 on a broken setup, 64 on bad arguments.\n"
"\n"
"EXAMPLES:\n"
"    prioladder                       # waiters FIFO 10,20,40,60; hog FIFO 30 on CPU 1\n"
"    prioladder -P 5,50,15,70 --hog 2s\n";

enum { OPT_HOG = 1000, OPT_HOG_PRIO, OPT_HOLD, OPT_BOUND };

static const struct argp_option opts[] = {
	{ "cpu", 'c', "CPU", 0, "CPU of the owner, the waiters and the hog (default 1)", 0 },
	{ "prios", 'P', "LIST", 0, "waiters' SCHED_FIFO priorities, in wait-list order (default 10,20,40,60)", 0 },
	{ "hog-prio", OPT_HOG_PRIO, "PRIO", 0, "the hog's SCHED_FIFO priority (default 30)", 0 },
	{ "hog", OPT_HOG, "TIME", 0, "the hog's burst (default 1s)", 0 },
	{ "hold", OPT_HOLD, "TIME", 0, "how long the owner spins, once running, before it unlocks (default 20ms)", 0 },
	{ "bound", OPT_BOUND, "TIME", 0, "latest acquisition of a waiter above the hog, from the burst's start (default hog/4)", 0 },
	{ "mutex", 'm', "IDX", 0, "lab mutex to use (default 0)", 0 },
	{},
};

static void parse_prios(struct argp_state *state, char *arg)
{
	char *s, *save = NULL;
	long p;

	env.nwaiters = 0;
	for (s = strtok_r(arg, ",", &save); s; s = strtok_r(NULL, ",", &save)) {
		if (env.nwaiters == MAX_WAITERS)
			argp_error(state, "at most %d waiters", MAX_WAITERS);
		if (px_parse_long(s, 1, 98, &p))
			argp_error(state, "invalid priority '%s' (1-98)", s);
		env.prio[env.nwaiters++] = (int)p;
	}
	if (!env.nwaiters)
		argp_error(state, "empty priority list");
}

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'c':
		env.cpu = px_arg_long(state, "CPU", arg, 0, CPU_SETSIZE - 1);
		break;
	case 'P':
		parse_prios(state, arg);
		break;
	case OPT_HOG_PRIO:
		env.hog_prio = px_arg_long(state, "hog priority", arg, 1, 98);
		break;
	case OPT_HOG:
		env.hog_ns = px_arg_duration_ns(state, "hog burst", arg, 1000000ULL,
						10000000ULL, 10000000000ULL);
		break;
	case OPT_HOLD:
		env.hold_ns = px_arg_duration_ns(state, "hold", arg, 1000000ULL,
						 100000ULL, 1000000000ULL);
		break;
	case OPT_BOUND:
		env.bound_ns = px_arg_duration_ns(state, "bound", arg, 1000000ULL,
						  1000ULL, 10000000000ULL);
		break;
	case 'm':
		env.idx = px_arg_long(state, "mutex index", arg, 0, PROXYLAB_NR_MUTEXES - 1);
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument: %s", arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct argp argp = { opts, parse_arg, NULL, doc, NULL, NULL, NULL };
	static const int default_prios[] = { 10, 20, 40, 60 };
	pid_t owner, hog = -1, waiter[MAX_WAITERS];
	cpu_set_t online;
	int i, c, started = 0;

	env.nwaiters = 4;
	memcpy(env.prio, default_prios, sizeof(default_prios));
	if (px_argp_parse(&argp, argc, argv, NULL))
		return PX_EXIT_USAGE;
	if (!env.bound_ns)
		env.bound_ns = env.hog_ns / 4;
	if (env.hold_ns >= env.bound_ns)
		px_usage_error("--hold must be shorter than --bound");
	if (px_online_cpus(&online) || !CPU_ISSET(env.cpu, &online) || CPU_COUNT(&online) < 2)
		px_fatalx(2, "CPU %d must be online, with another CPU to direct from", env.cpu);
	for (i = 0; i < env.nwaiters; i++)
		if (env.prio[i] == env.hog_prio)
			px_usage_error("waiter priority %d equals the hog's", env.prio[i]);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		px_fatal(2, "mmap");
	memset((void *)sh, 0, sizeof(*sh));
	/* Direct from another CPU, above everything on the contested one. */
	for (c = 0; c == env.cpu || !CPU_ISSET(c, &online); c++)
		;
	if (px_pin_self(c) || px_set_fifo(99))
		px_fatal(2, "cannot pin to CPU %d at SCHED_FIFO 99", c);

	owner = px_fork_run(run_owner);
	for (i = 0; i < 5000 && !sh->owner_locked; i++)
		px_sleep_ns(1000000);
	if (!sh->owner_locked) {
		px_warnx("the owner did not lock");
		goto out;
	}
	/* One at a time, so that the wait list is in --prios order. */
	for (i = 0; i < env.nwaiters; i++) {
		waiter_index = i;
		waiter[i] = px_fork_run(run_waiter);
		started++;
		if (!px_wait_task_state(waiter[i], 'D', 5000, NULL)) {
			px_warnx("waiter %d never blocked", i);
			goto out;
		}
	}
	hog = px_fork_run(run_hog);
	for (i = 0; i < 5000 && !sh->hog_start_ns; i++)
		px_sleep_ns(1000000);
	sh->go = 1;
	/* The burst, then time for the waiters below the hog. */
	all_acquired((long)(env.hog_ns / 1000000) + 5000);
	report();
out:
	sh->stop = 1;
	if (hog > 0)
		px_reap(hog, 5000);
	px_reap(owner, 5000);
	for (i = 0; i < started; i++)
		px_reap(waiter[i], 5000);
	if (started < env.nwaiters || !sh->hog_start_ns)
		return 2;
	return failed ? 1 : 0;
}

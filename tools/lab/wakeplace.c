// SPDX-License-Identifier: GPL-2.0
/*
 * wakeplace - where does a mutex waiter run when it is woken while a
 * higher-priority task occupies the CPU it is queued on?
 *
 * Per iteration: the owner (SCHED_OTHER) locks a lab mutex on CPU --owner-cpu
 * and spins in user space; the waiter (SCHED_FIFO --prio, allowed on
 * --waiter-cpus) blocks on it.  With proxy execution the waiter is kept
 * queued as a donor and follows the owner to its CPU.  Then a hog
 * (SCHED_FIFO 90) takes the owner's CPU for --hog, the owner is moved to
 * --free-cpu and unlocks there.  A waiter that slept is woken onto an idle
 * CPU at once; a waiter kept queued behind the hog must be placed the same
 * way (try_to_wake_up() -> select_task_rq()), not left waiting for the hog.
 * The checked latency is from the owner's unlock to the waiter's return
 * from LOCK, every iteration (the worst one, not a median).
 *
 * Prints "ok NAME" / "not ok NAME - why" lines (tests/guest protocol),
 * exits 1 if a check failed, 2 on a broken setup, 64 on bad arguments.
 */
#include <argp.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/proxylab.h>

#include "pxutil.h"

#define HOG_PRIO	90

static struct env {
	int owner_cpu, free_cpu, prio, idx;
	cpu_set_t waiter_cpus;
	long iterations;
	uint64_t hog_ns, bound_ns;
} env = {
	.owner_cpu = 1,
	.free_cpu = 3,
	.prio = 50,
	.iterations = 5,
	.hog_ns = 300000000ULL,
	.bound_ns = 0,		/* default: hog / 4 */
};

struct shared {
	volatile int owner_locked, release, stop;
	volatile uint64_t unlock_ns, acquired_ns;
	volatile int waiter_done, waiter_cpu;
};

static struct shared *sh;


static void run_owner(void)
{
	struct proxylab_lock arg = { .idx = env.idx };
	int fd = px_lab_open_or_exit(2);

	if (px_pin_self(env.owner_cpu) || ioctl(fd, PROXYLAB_IOC_LOCK, &arg))
		_exit(1);
	sh->owner_locked = 1;
	while (!sh->release)
		;
	sh->unlock_ns = px_now_ns();
	_exit(ioctl(fd, PROXYLAB_IOC_UNLOCK, &arg.idx) ? 1 : 0);
}

static void run_waiter(void)
{
	struct proxylab_lock arg = { .idx = env.idx };
	int fd = px_lab_open_or_exit(2);

	if (sched_setaffinity(0, sizeof(env.waiter_cpus), &env.waiter_cpus) ||
	    px_set_fifo(env.prio) || ioctl(fd, PROXYLAB_IOC_LOCK, &arg))
		_exit(1);
	sh->acquired_ns = px_now_ns();
	sh->waiter_cpu = sched_getcpu();
	sh->waiter_done = 1;
	_exit(ioctl(fd, PROXYLAB_IOC_UNLOCK, &arg.idx) ? 1 : 0);
}

static void run_hog(void)
{
	uint64_t end;

	/* RT first: on the owner's CPU the RT donor would starve a CFS hog. */
	if (px_set_fifo(HOG_PRIO) || px_pin_self(env.owner_cpu))
		_exit(1);
	end = px_now_ns() + env.hog_ns;
	while (px_now_ns() < end && !sh->stop)
		;
	_exit(0);
}

static bool wait_flag(volatile int *flag, long ms)
{
	for (; ms > 0 && !*flag; ms--)
		px_sleep_ns(1000000);
	return *flag;
}

/* One iteration: the unlock-to-acquire latency in ns, or -1 (setup). */
static int64_t iteration(long i)
{
	pid_t owner, waiter, hog;
	cpu_set_t free_set;
	int64_t lat = -1;

	memset((void *)sh, 0, sizeof(*sh));
	owner = px_fork_run(run_owner);
	if (!wait_flag(&sh->owner_locked, 5000)) {
		px_warnx("iteration %ld: the owner did not lock", i);
		goto out_owner;
	}
	waiter = px_fork_run(run_waiter);
	if (!px_wait_task_state(waiter, 'D', 5000, NULL)) {
		px_warnx("iteration %ld: the waiter never blocked", i);
		goto out_waiter;
	}
	px_sleep_ns(20000000);	/* let proxy execution move the donor, if on */
	hog = px_fork_run(run_hog);
	px_sleep_ns(20000000);	/* the hog runs on the owner's CPU */
	CPU_ZERO(&free_set);
	CPU_SET(env.free_cpu, &free_set);
	if (sched_setaffinity(owner, sizeof(free_set), &free_set)) {
		px_warn("iteration %ld: moving the owner to CPU %d", i, env.free_cpu);
		goto out_hog;
	}
	px_sleep_ns(20000000);	/* the owner runs on the free CPU */
	sh->release = 1;
	if (wait_flag(&sh->waiter_done, (long)(env.hog_ns / 1000000) + 5000))
		lat = (int64_t)(sh->acquired_ns - sh->unlock_ns);
	else
		px_warnx("iteration %ld: the waiter did not acquire", i);
out_hog:
	sh->stop = 1;
	px_reap(hog, 5000);
out_waiter:
	sh->release = 1;
	px_reap(waiter, 5000);
out_owner:
	sh->release = 1;
	px_reap(owner, 5000);
	return lat;
}

static const char doc[] =
"Where a mutex waiter runs when woken while a higher-priority task holds its CPU.\n"
"\n"
"USAGE: wakeplace [-o CPU] [-f CPU] [-w CPUS] [-m IDX] [-p PRIO] [-n N] [--hog TIME]\n"
"                 [--bound TIME]\n"
"\n"
"Needs four CPUs by default: the owner's (also the hog's), a free one, and\n"
"the waiter's two.  Prints ok/not ok lines and each iteration's latency;\n"
"exits 1 if a check failed, 2 on a broken setup, 64 on bad arguments.\n"
"\n"
"EXAMPLES:\n"
"    wakeplace                  # owner/hog CPU 1, free CPU 3, waiter 0,2\n"
"    wakeplace -n 10 --hog 200ms\n";

enum { OPT_HOG = 1000, OPT_BOUND };

static const struct argp_option opts[] = {
	{ "owner-cpu", 'o', "CPU", 0, "CPU of the owner and the hog (default 1)", 0 },
	{ "free-cpu", 'f', "CPU", 0, "CPU the owner is moved to (default 3)", 0 },
	{ "waiter-cpus", 'w', "CPUS", 0, "CPUs the waiter may run on (default 0,2)", 0 },
	{ "prio", 'p', "PRIO", 0, "SCHED_FIFO priority of the waiter, < 90 (default 50)", 0 },
	{ "iterations", 'n', "N", 0, "iterations (default 5)", 0 },
	{ "hog", OPT_HOG, "TIME", 0, "hog burst on the owner's CPU (default 300ms)", 0 },
	{ "bound", OPT_BOUND, "TIME", 0, "worst latency allowed (default hog/4)", 0 },
	{ "mutex", 'm', "IDX", 0, "lab mutex to use (default 0)", 0 },
	{},
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'o':
		env.owner_cpu = px_arg_long(state, "owner CPU", arg, 0, CPU_SETSIZE - 1);
		break;
	case 'f':
		env.free_cpu = px_arg_long(state, "free CPU", arg, 0, CPU_SETSIZE - 1);
		break;
	case 'w':
		if (px_parse_cpulist(arg, &env.waiter_cpus) || !CPU_COUNT(&env.waiter_cpus))
			argp_error(state, "invalid CPU list: %s", arg);
		break;
	case 'p':
		env.prio = px_arg_long(state, "priority", arg, 1, HOG_PRIO - 1);
		break;
	case 'n':
		env.iterations = px_arg_long(state, "iterations", arg, 1, 1000);
		break;
	case OPT_HOG:
		env.hog_ns = px_arg_duration_ns(state, "hog burst", arg, 1000000ULL,
						10000000ULL, 5000000000ULL);
		break;
	case OPT_BOUND:
		env.bound_ns = px_arg_duration_ns(state, "bound", arg, 1000000ULL,
						  1000ULL, 5000000000ULL);
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
	int64_t lat, worst = 0;
	long i, done = 0;
	cpu_set_t online;
	int c;

	CPU_ZERO(&env.waiter_cpus);
	CPU_SET(0, &env.waiter_cpus);
	CPU_SET(2, &env.waiter_cpus);
	if (px_argp_parse(&argp, argc, argv, NULL))
		return PX_EXIT_USAGE;
	if (!env.bound_ns)
		env.bound_ns = env.hog_ns / 4;
	if (px_online_cpus(&online))
		px_fatalx(2, "cannot read the online CPUs");
	if (!CPU_ISSET(env.owner_cpu, &online) || !CPU_ISSET(env.free_cpu, &online) ||
	    env.owner_cpu == env.free_cpu)
		px_fatalx(2, "owner CPU %d and free CPU %d must differ and be online",
			  env.owner_cpu, env.free_cpu);
	for (c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &env.waiter_cpus) &&
		    (!CPU_ISSET(c, &online) || c == env.owner_cpu || c == env.free_cpu))
			px_fatalx(2, "waiter CPU %d: offline, or the owner's or the free CPU", c);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		px_fatal(2, "mmap");
	/* The main process directs from a waiter CPU, off the contested ones. */
	for (c = 0; !CPU_ISSET(c, &env.waiter_cpus); c++)
		;
	px_pin_self(c);

	for (i = 0; i < env.iterations; i++) {
		lat = iteration(i);
		if (lat < 0)
			break;
		printf("# iteration %ld: unlock -> acquired %" PRId64 " us, waiter on CPU %d\n",
		       i, lat / 1000, sh->waiter_cpu);
		if (lat > worst)
			worst = lat;
		done++;
	}
	if (done < env.iterations) {
		printf("not ok wakeplace/completes - %ld of %ld iterations\n", done, env.iterations);
		return 1;
	}
	printf("ok wakeplace/completes\n");
	if ((uint64_t)worst < env.bound_ns) {
		printf("ok wakeplace/woken-waiter-not-behind-hog\n");
		return 0;
	}
	printf("not ok wakeplace/woken-waiter-not-behind-hog - worst unlock -> acquired %" PRId64
	       " us, want < %" PRIu64 " us (hog burst %" PRIu64 " us)\n",
	       worst / 1000, env.bound_ns / 1000, env.hog_ns / 1000);
	return 1;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * spurwake - wake a blocked mutex waiter for no reason, many times, and
 * check that it goes back to waiting and then acquires normally.
 *
 * An owner holds a lab mutex and spins in user space on CPU --cpu; a
 * waiter (SCHED_FIFO --prio, same CPU) blocks on it, so that with proxy
 * execution the owner runs on the waiter's scheduling context.  From
 * another CPU, PROXYLAB_IOC_WAKE then wakes the waiter --pokes times per
 * round, as a late wake_q entry or a spurious wakeup would.  After each
 * round the waiter must be back in D (sleeping in mutex_lock_killable())
 * within --settle: a waiter left TASK_RUNNING but still blocked stays R,
 * is never woken again and is only ever used as a donor.  Then the owner
 * unlocks: the waiter must acquire, with no stale blocked_on afterwards.
 *
 * Prints "ok NAME" / "not ok NAME - why" lines (tests/guest protocol) and
 * exits 1 if any check failed, 2 on a broken setup, 64 on bad arguments.
 */
#include <argp.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
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


static struct env {
	int cpu;
	int prio;
	int idx;
	long rounds;
	long pokes;
	uint64_t gap_ns;
	uint64_t settle_ns;
} env = {
	.cpu = 0,
	.prio = 10,
	.idx = 0,
	.rounds = 4,
	.pokes = 3000,
	.gap_ns = 50000,
	.settle_ns = 2000000000ULL,
};

struct shared {
	volatile int owner_ready;
	volatile int stop;
	volatile int waiter_locked;
	volatile int waiter_blocked_on;	/* BLOCKED_ON after acquiring */
	volatile uint64_t wait_ns;
};

static struct shared *sh;
static int failed;

#define check(name, cond, ...) (failed |= !px_check("spurwake", name, cond, __VA_ARGS__))


static void run_owner(void)
{
	struct proxylab_lock arg = { .idx = env.idx };
	int fd = px_lab_open_or_exit(2);

	if (px_pin_self(env.cpu) || ioctl(fd, PROXYLAB_IOC_LOCK, &arg))
		_exit(1);
	sh->owner_ready = 1;
	while (!sh->stop)
		;	/* on the CPU, in user space: the waiter's donation runs this */
	_exit(ioctl(fd, PROXYLAB_IOC_UNLOCK, &arg.idx) ? 1 : 0);
}

static void run_waiter(void)
{
	struct proxylab_lock arg = { .idx = env.idx };
	uint32_t bo = 1;
	int fd = px_lab_open_or_exit(2);

	if (px_pin_self(env.cpu) || px_set_fifo(env.prio))
		_exit(1);
	if (ioctl(fd, PROXYLAB_IOC_LOCK, &arg))
		_exit(1);
	sh->wait_ns = arg.wait_ns;
	if (ioctl(fd, PROXYLAB_IOC_BLOCKED_ON, &bo))
		bo = errno == ENOTTY ? 0 : 1;
	sh->waiter_blocked_on = bo;
	sh->waiter_locked = 1;
	_exit(ioctl(fd, PROXYLAB_IOC_UNLOCK, &arg.idx) ? 1 : 0);
}

/* @pid is in state D for 5 samples 5 ms apart, within @ns. */
static bool settles_in_d(pid_t pid, uint64_t ns, char *last)
{
	uint64_t end = px_now_ns() + ns;
	int in_d = 0;

	do {
		*last = px_task_state(pid);
		in_d = *last == 'D' ? in_d + 1 : 0;
		if (in_d >= 5)
			return true;
		px_sleep_ns(5000000);
	} while (px_now_ns() < end);
	return false;
}
static const char doc[] =
"Wake a blocked mutex waiter spuriously; it must go back to D and acquire.\n"
"\n"
"USAGE: spurwake [-c CPU] [-p PRIO] [-r ROUNDS] [-n POKES] [-g GAP] [-s SETTLE] [-m IDX]\n"
"\n"
"Needs two online CPUs: the pair runs on CPU, the wakeups come from another.\n"
"Prints ok/not ok lines; exits 1 if a check failed, 2 on a\n"
"broken setup, 64 on bad arguments.\n"
"\n"
"EXAMPLES:\n"
"    spurwake                 # 4 rounds of 3000 wakeups, pair on CPU 0\n"
"    spurwake -c 1 -n 10000   # pair on CPU 1, 10000 wakeups a round\n";

static const struct argp_option opts[] = {
	{ "cpu", 'c', "CPU", 0, "CPU of the owner and the waiter (default 0)", 0 },
	{ "prio", 'p', "PRIO", 0, "SCHED_FIFO priority of the waiter (default 10)", 0 },
	{ "rounds", 'r', "N", 0, "rounds of wakeups (default 4)", 0 },
	{ "pokes", 'n', "N", 0, "wakeups per round (default 3000)", 0 },
	{ "gap", 'g', "TIME", 0, "pause after a wakeup that woke the waiter (default 50us)", 0 },
	{ "settle", 's', "TIME", 0, "time to be back in D after a round (default 2s)", 0 },
	{ "mutex", 'm', "IDX", 0, "lab mutex to use (default 0)", 0 },
	{},
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'c':
		env.cpu = px_arg_long(state, "CPU", arg, 0, 4095);
		break;
	case 'p':
		env.prio = px_arg_long(state, "priority", arg, 1, 99);
		break;
	case 'r':
		env.rounds = px_arg_long(state, "rounds", arg, 1, 1000);
		break;
	case 'n':
		env.pokes = px_arg_long(state, "wakeups", arg, 1, 10000000);
		break;
	case 's':
		env.settle_ns = px_arg_duration_ns(state, "settle time", arg, 1000000000ULL,
						   1000000ULL, 600000000000ULL);
		break;
	case 'g':
		env.gap_ns = px_arg_duration_ns(state, "gap", arg, 1000ULL, 0, 1000000000ULL);
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
	long r, i, woken = 0, busy = 0;
	pid_t owner, waiter;
	int fd, poker_cpu, rc;
	cpu_set_t online;
	char last = '?';
	bool settled = true;

	if (px_argp_parse(&argp, argc, argv, NULL))
		return PX_EXIT_USAGE;
	if (px_online_cpus(&online) || !CPU_ISSET(env.cpu, &online) || CPU_COUNT(&online) < 2)
		px_fatalx(2, "need CPU %d online and a second online CPU", env.cpu);
	for (poker_cpu = 0; poker_cpu == env.cpu || !CPU_ISSET(poker_cpu, &online); poker_cpu++)
		;
	if (px_pin_self(poker_cpu))
		px_fatal(2, "cannot pin to CPU %d", poker_cpu);
	fd = px_lab_open_or_exit(2);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		px_fatal(2, "mmap");

	owner = px_fork_run(run_owner);
	for (i = 0; !sh->owner_ready && i < 500; i++)
		px_sleep_ns(10000000);
	if (!sh->owner_ready) {
		px_reap(owner, 0);
		px_fatalx(2, "the owner did not lock mutex %d within 5 s", env.idx);
	}
	waiter = px_fork_run(run_waiter);
	if (!settles_in_d(waiter, 5000000000ULL, &last)) {
		sh->stop = 1;
		px_reap(waiter, 1000);
		px_reap(owner, 1000);
		px_fatalx(2, "the waiter never blocked (state %c)", last);
	}

	for (r = 0; r < env.rounds && settled; r++) {
		for (i = 0; i < env.pokes; i++) {
			rc = ioctl(fd, PROXYLAB_IOC_WAKE, &waiter);
			if (rc < 0) {
				sh->stop = 1;
				px_reap(waiter, 1000);
				px_reap(owner, 1000);
				px_fatal(2, "PROXYLAB_IOC_WAKE");
			}
			if (rc > 0) {
				woken++;
				/* Let it run and go back to sleep: the next one hits a new window. */
				if (env.gap_ns)
					px_sleep_ns(env.gap_ns);
			} else {
				busy++;
			}
		}
		settled = settles_in_d(waiter, env.settle_ns, &last);
	}
	check("back-to-D", settled,
	      "round %ld of %ld: the waiter stayed in state %c for %" PRIu64 " ms after its wakeups",
	      r, env.rounds, last, env.settle_ns / 1000000);
	/*
	 * Proof that the wakeups reached a sleeping waiter at all.  Most find
	 * it still awake from the previous one (an IPI to its CPU takes a
	 * while under emulation), so only ask for one per round.
	 */
	check("woken", woken >= r,
	      "only %ld of %ld wakeups found the waiter asleep in %ld rounds", woken,
	      woken + busy, r);
	printf("# %ld wakeups woke the waiter, %ld found it awake\n", woken, busy);

	sh->stop = 1;
	rc = px_reap(waiter, 5000);
	check("acquired", rc == 0 && sh->waiter_locked,
	      "waiter exit %d, locked %d, within 5 s of the owner's unlock", rc, sh->waiter_locked);
	check("no-stale-blocked-on", !sh->waiter_locked || !sh->waiter_blocked_on,
	      "blocked_on still set after the waiter acquired");
	rc = px_reap(owner, 2000);
	check("owner-unlocked", rc == 0, "owner exit %d", rc);
	close(fd);
	return failed;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * abba - a true ABBA deadlock between two lab mutexes, on purpose.
 *
 * Task 1 locks mutex A then B, task 2 locks B then A (each on its own CPU,
 * the second lock only once both hold their first): both must end up
 * asleep in D for good -- a deadlock is the lock user's bug, and proxy
 * execution must neither spin on the blocked_on cycle nor stop the CPUs
 * from running other work.  A spinner on every CPU counts its progress
 * meanwhile.  Then both are killed (LOCK is killable) and must exit, and
 * both mutexes must be free again.
 *
 * With --uninterruptible the first locker waits for its second mutex in
 * TASK_UNINTERRUPTIBLE (the second stays killable, so that killing it
 * ends the deadlock): the wait the hung-task detector reports, with proxy
 * execution as without it (tests/guest/37-abba.sh checks the report).
 *
 * Prints "ok NAME" / "not ok NAME - why" lines (tests/guest protocol),
 * exits 1 if a check failed, 2 on a broken setup, 64 on bad arguments.
 */
#include <argp.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/proxylab.h>

#include "pxutil.h"

#define MAX_SPIN	64

static struct env {
	int a, b;
	uint64_t hold_ns;
	bool uninterruptible;
} env = { .a = 0, .b = 1, .hold_ns = 3000000000ULL };

struct shared {
	volatile int locked_first[2];
	volatile unsigned long spins[MAX_SPIN];
	volatile int stop;
};

static struct shared *sh;
static int failed;

#define check(name, cond, why) (failed |= !px_check("abba", name, cond, "%s", why))

static void run_locker(int i, int cpu)
{
	struct proxylab_lock first = { .idx = i ? env.b : env.a };
	struct proxylab_lock second = {
		.idx = i ? env.a : env.b,
		.flags = !i && env.uninterruptible ? PROXYLAB_LOCK_UNINTERRUPTIBLE : 0,
	};
	int fd = px_lab_open();

	if (fd < 0 || px_pin_self(cpu) || ioctl(fd, PROXYLAB_IOC_LOCK, &first))
		_exit(2);
	sh->locked_first[i] = 1;
	while (!sh->locked_first[!i])
		;
	/* Returns only on SIGKILL (or, uninterruptible, once the other died). */
	ioctl(fd, PROXYLAB_IOC_LOCK, &second);
	_exit(3);
}

static void run_spinner(int cpu)
{
	if (px_pin_self(cpu))
		_exit(2);
	while (!sh->stop)
		sh->spins[cpu]++;
	_exit(0);
}

static bool lock_is_free(int idx)
{
	struct proxylab_lock arg = { .idx = idx };
	pid_t pid = fork();
	int status;

	if (!pid) {
		int fd = px_lab_open();

		_exit(fd < 0 || ioctl(fd, PROXYLAB_IOC_LOCK, &arg) ||
		      ioctl(fd, PROXYLAB_IOC_UNLOCK, &arg.idx) ? 1 : 0);
	}
	for (int ms = 2000; ms > 0; ms -= 10) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			return WIFEXITED(status) && WEXITSTATUS(status) == 0;
		px_sleep_ns(10000000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return false;
}

static const char doc[] =
"An ABBA deadlock between two lab mutexes: both tasks must sleep, the CPUs run on.\n"
"\n"
"USAGE: abba [-a IDX] [-b IDX] [--hold TIME] [--uninterruptible]\n"
"\n"
"Needs two online CPUs.  Prints ok/not ok lines; exits 1 if a check failed,\n"
"2 on a broken setup, 64 on bad arguments.\n"
"\n"
"EXAMPLES:\n"
"    abba                # mutexes 0 and 1, deadlocked for 3 s\n"
"    abba --hold 10s\n"
"    abba --uninterruptible --hold 6s   # one locker in TASK_UNINTERRUPTIBLE\n";

enum { OPT_HOLD = 1000, OPT_UNINTERRUPTIBLE };

static const struct argp_option opts[] = {
	{ "mutex-a", 'a', "IDX", 0, "first lab mutex (default 0)", 0 },
	{ "mutex-b", 'b', "IDX", 0, "second lab mutex (default 1)", 0 },
	{ "hold", OPT_HOLD, "TIME", 0, "how long the deadlock is watched (default 3s)", 0 },
	{ "uninterruptible", OPT_UNINTERRUPTIBLE, NULL, 0,
	  "the first locker's second wait is uninterruptible (hung-task detector)", 0 },
	{},
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'a':
		env.a = px_arg_long(state, "mutex index", arg, 0, PROXYLAB_NR_MUTEXES - 1);
		break;
	case 'b':
		env.b = px_arg_long(state, "mutex index", arg, 0, PROXYLAB_NR_MUTEXES - 1);
		break;
	case OPT_HOLD:
		env.hold_ns = px_arg_duration_ns(state, "hold time", arg, 1000000000ULL,
						 100000000ULL, 600000000000ULL);
		break;
	case OPT_UNINTERRUPTIBLE:
		env.uninterruptible = true;
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
	pid_t locker[2], spinner[MAX_SPIN];
	unsigned long before[MAX_SPIN];
	int cpus[MAX_SPIN], ncpu = 0, c, i, st;
	cpu_set_t online;
	bool both_d = false, all_ran = true;
	char why[160];

	if (px_argp_parse(&argp, argc, argv, NULL))
		return PX_EXIT_USAGE;
	if (env.a == env.b)
		px_usage_error("the two mutexes must differ");
	if (px_online_cpus(&online))
		px_fatalx(2, "cannot read the online CPUs");
	for (c = 0; c < CPU_SETSIZE && ncpu < MAX_SPIN; c++)
		if (CPU_ISSET(c, &online))
			cpus[ncpu++] = c;
	if (ncpu < 2)
		px_fatalx(2, "need two online CPUs");
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		px_fatal(2, "mmap");

	for (i = 0; i < 2; i++) {
		locker[i] = fork();
		if (!locker[i])
			run_locker(i, cpus[i]);
	}
	for (i = 0; i < 300 && !both_d; i++) {
		px_sleep_ns(10000000);
		both_d = px_task_state(locker[0]) == 'D' && px_task_state(locker[1]) == 'D';
	}
	check("both-asleep", both_d, "the two lockers are not both in D within 3 s");

	/* The deadlock must not take CPUs: a spinner on each one progresses. */
	for (i = 0; i < ncpu; i++) {
		spinner[i] = fork();
		if (!spinner[i])
			run_spinner(cpus[i]);
	}
	px_sleep_ns(200000000);
	for (i = 0; i < ncpu; i++)
		before[i] = sh->spins[cpus[i]];
	px_sleep_ns(env.hold_ns);
	for (i = 0; i < ncpu; i++) {
		if (sh->spins[cpus[i]] == before[i]) {
			all_ran = false;
			snprintf(why, sizeof(why), "the spinner on CPU %d made no progress in the deadlock",
				 cpus[i]);
		}
	}
	check("cpus-keep-running", all_ran, why);
	check("still-asleep", px_task_state(locker[0]) == 'D' && px_task_state(locker[1]) == 'D',
	      "a locker left D while deadlocked");
	sh->stop = 1;
	for (i = 0; i < ncpu; i++)
		waitpid(spinner[i], NULL, 0);

	for (i = 0; i < 2; i++)
		kill(locker[i], SIGKILL);
	both_d = true;
	for (i = 0; i < 2; i++) {
		int ms;

		for (ms = 3000; ms > 0; ms -= 10) {
			if (waitpid(locker[i], &st, WNOHANG) == locker[i])
				break;
			px_sleep_ns(10000000);
		}
		if (ms <= 0)
			both_d = false;
	}
	check("killed-exit", both_d, "a deadlocked locker did not exit within 3 s of SIGKILL");
	check("mutexes-free", lock_is_free(env.a) && lock_is_free(env.b),
	      "a mutex is still held after both lockers exited");
	return failed;
}

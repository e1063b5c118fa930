// SPDX-License-Identifier: GPL-2.0
/*
 * yieldpeer - an owner that calls sched_yield() while it runs on a blocked
 * waiter's behalf must yield the waiter's scheduling context, not its own.
 *
 * An owner (SCHED_OTHER) holds a lab mutex on --cpu and calls sched_yield()
 * in a loop until told to release it; a SCHED_FIFO waiter (--prio) on the
 * same CPU blocks
 * on the mutex, so that with proxy execution the owner runs on the waiter's
 * scheduling context.  A peer of the waiter's priority, asleep on that CPU,
 * is then woken.  It cannot preempt a task of its own priority, but the
 * owner yields all the time, and a yield of the scheduling context puts the
 * waiter behind the peer: the peer must run before the owner releases the
 * mutex, which the parent asks for once the peer ran, or after --hold.
 * Without proxy execution the peer preempts the SCHED_OTHER owner at once.  A kernel that yields the owner's own class instead (a fair yield
 * on an RT context) keeps the waiter in front, and the peer waits for the
 * release.  That is an order of events, not a latency: under multi-threaded
 * TCG the guest's clock is the host's.
 *
 * Prints "ok NAME" / "not ok NAME - why" lines (tests/guest protocol) and
 * exits 1 if any check failed, 2 on a broken setup, 64 on bad arguments.
 */
#include <argp.h>
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/proxylab.h>

#include "pxutil.h"

static struct env {
	int cpu;
	int prio;
	int idx;
	uint64_t hold_ns;
	uint64_t wake_after_ns;
} env = {
	.cpu = 1,
	.prio = 10,
	.idx = 0,
	.hold_ns = 1500000000ULL,
	.wake_after_ns = 200000000ULL,
};

struct shared {
	volatile int owner_ready;
	volatile int release;		/* the parent's: release the mutex now */
	volatile int peer_ran;
	volatile int waiter_locked;
	volatile uint64_t yields;	/* the owner's sched_yield() calls */
	volatile uint64_t yields_at_wake; /* ... when the peer was woken */
	volatile uint64_t released;	/* set by the owner just before its unlock */
	volatile uint64_t released_seen; /* the peer's view of it when it ran */
};

static struct shared *sh;
static int peer_pipe[2];
static int failed;

#define check(name, cond, ...) (failed |= !px_check("yieldpeer", name, cond, __VA_ARGS__))

static void run_owner(void)
{
	struct proxylab_lock arg = { .idx = env.idx };
	int fd = px_lab_open_or_exit(2);

	if (px_pin_self(env.cpu) || px_set_other(0) || ioctl(fd, PROXYLAB_IOC_LOCK, &arg))
		_exit(1);
	sh->owner_ready = 1;
	while (!sh->release) {
		sched_yield();
		sh->yields++;
	}
	sh->released = 1;
	__sync_synchronize();	/* stored before anyone can see the mutex free */
	_exit(ioctl(fd, PROXYLAB_IOC_UNLOCK, &arg.idx) ? 1 : 0);
}

static void run_waiter(void)
{
	struct proxylab_lock arg = { .idx = env.idx };
	int fd = px_lab_open_or_exit(2);

	if (px_pin_self(env.cpu) || px_set_fifo(env.prio) || ioctl(fd, PROXYLAB_IOC_LOCK, &arg))
		_exit(1);
	sh->waiter_locked = 1;
	_exit(ioctl(fd, PROXYLAB_IOC_UNLOCK, &arg.idx) ? 1 : 0);
}

/* Asleep on the owner's CPU at the waiter's priority until woken. */
static void run_peer(void)
{
	char c;

	if (px_pin_self(env.cpu) || px_set_fifo(env.prio))
		_exit(1);
	if (read(peer_pipe[0], &c, 1) != 1)
		_exit(1);
	sh->released_seen = sh->released;
	sh->peer_ran = 1;
	_exit(0);
}

static const char doc[] =
"An owner that yields while it runs on a blocked waiter's behalf yields the\n"
"waiter's scheduling context: a peer of the waiter's priority, woken on\n"
"their CPU, runs before the owner releases the mutex.\n"
"\n"
"USAGE: yieldpeer [-c CPU] [-p PRIO] [-H HOLD] [-w WAKE] [-m IDX]\n"
"\n"
"Needs two online CPUs: the three tasks run on CPU, the parent on another.\n"
"Prints ok/not ok lines; exits 1 if a check failed, 2 on a broken setup,\n"
"64 on bad arguments.\n"
"\n"
"EXAMPLES:\n"
"    yieldpeer                # on CPU 1; the peer may wait 1.5 s\n"
"    yieldpeer -c 2 -H 3s     # on CPU 2, 3 s\n"
"\n"
"Options:";

static const struct argp_option opts[] = {
	{ "cpu", 'c', "CPU", 0, "CPU of the owner, the waiter and the peer (default 1)", 0 },
	{ "prio", 'p', "PRIO", 0, "SCHED_FIFO priority of the waiter and the peer (default 10)", 0 },
	{ "hold", 'H', "TIME", 0, "how long the owner holds the mutex at most, yielding, 500ms..60s (default 1.5s)", 0 },
	{ "wake", 'w', "TIME", 0, "when the peer is woken, after the waiter blocked, 0..20s (default 200ms)", 0 },
	{ "mutex", 'm', "IDX", 0, "lab mutex to use (default 0)", 0 },
	{},
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'c':
		env.cpu = px_arg_long(state, "CPU", arg, 0, CPU_SETSIZE - 1);
		break;
	case 'p':
		env.prio = px_arg_long(state, "priority", arg, 1, 98);
		break;
	case 'H':
		env.hold_ns = px_arg_duration_ns(state, "hold time", arg, 1000000000ULL,
						 500000000ULL, 60000000000ULL);
		break;
	case 'w':
		env.wake_after_ns = px_arg_duration_ns(state, "wake time", arg, 1000000000ULL,
						       0, 20000000000ULL);
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
	pid_t owner, waiter, peer;
	int cpu, rc_peer, rc_waiter, rc_owner, i;
	uint64_t yields_at_wake;
	cpu_set_t online;
	char last = '?';

	if (px_argp_parse(&argp, argc, argv, NULL))
		return PX_EXIT_USAGE;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (px_online_cpus(&online) || !CPU_ISSET(env.cpu, &online) || CPU_COUNT(&online) < 2)
		px_fatalx(2, "need CPU %d online and a second online CPU", env.cpu);
	for (cpu = 0; cpu == env.cpu || !CPU_ISSET(cpu, &online); cpu++)
		;
	if (px_pin_self(cpu))
		px_fatal(2, "cannot pin to CPU %d", cpu);
	close(px_lab_open_or_exit(2));
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		px_fatal(2, "mmap");
	if (pipe(peer_pipe))
		px_fatal(2, "pipe");

	peer = px_fork_run(run_peer);
	if (!px_wait_task_state(peer, 'S', 5000, &last)) {
		px_reap(peer, 0);
		px_fatalx(2, "the peer never went to sleep (state %c)", last);
	}
	owner = px_fork_run(run_owner);
	for (i = 0; !sh->owner_ready && i < 500; i++)
		px_sleep_ns(10000000);
	waiter = sh->owner_ready ? px_fork_run(run_waiter) : -1;
	if (waiter < 0 || !px_wait_task_state(waiter, 'D', 5000, &last)) {
		sh->release = 1;
		px_reap(peer, 0);
		px_reap(owner, 0);
		if (waiter > 0)
			px_reap(waiter, 0);
		px_fatalx(2, "%s", waiter < 0 ? "the owner did not lock the mutex within 5 s" :
			   "the waiter never blocked on the mutex");
	}
	/* With proxy execution, the owner now runs on the waiter's context. */
	px_sleep_ns(env.wake_after_ns);
	yields_at_wake = sh->yields;
	if (write(peer_pipe[1], "w", 1) != 1) {
		sh->release = 1;
		px_fatal(2, "waking the peer");
	}
	/* The owner releases once the peer ran, or after --hold. */
	for (i = 0; !sh->peer_ran && i < (int)(env.hold_ns / 10000000); i++)
		px_sleep_ns(10000000);
	sh->release = 1;

	rc_peer = px_reap(peer, 5000);
	rc_waiter = px_reap(waiter, 5000);
	rc_owner = px_reap(owner, 5000);
	check("peer-before-release", rc_peer == 0 && sh->peer_ran && !sh->released_seen,
	      "the peer (SCHED_FIFO %d, woken %" PRIu64 " ms after the waiter blocked) ran %s",
	      env.prio, env.wake_after_ns / 1000000,
	      !sh->peer_ran ? "not at all" : "only after the owner's release");
	check("owner-yielded", sh->yields > yields_at_wake,
	      "the owner called sched_yield() %" PRIu64 " times, %" PRIu64 " of them after the peer's wakeup",
	      sh->yields, sh->yields - yields_at_wake);
	check("waiter-acquired", rc_waiter == 0 && sh->waiter_locked,
	      "waiter exit %d, locked %d", rc_waiter, sh->waiter_locked);
	check("owner-unlocked", rc_owner == 0, "owner exit %d", rc_owner);
	printf("# owner: %" PRIu64 " yields, %" PRIu64 " before the peer's wakeup\n",
	       sh->yields, yields_at_wake);
	return failed;
}

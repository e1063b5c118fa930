// SPDX-License-Identifier: GPL-2.0
/*
 * proxysig: a waiter signalled or killed while blocked on a kernel mutex
 * must leave the wait at once, even when proxy execution keeps it queued as
 * a donor running the owner, and must leave no stale blocked_on behind.
 *
 * An owner holds lab mutex 0 and burns CPU for a while on CPU C; a SCHED_FIFO
 * waiter on the same CPU blocks on it (so with proxy execution it is the
 * donor the owner runs on); the parent, on another CPU, signals it.
 *
 * The waiter must leave the wait because of the signal, before the owner
 * releases the mutex (which is at least 800 ms later).  That is an order of
 * events, not a latency bound: under multi-threaded TCG the guest's clock is
 * the host's, and how soon the parent sees the waiter die depends on how
 * busy the host is.
 *
 * Usage: proxysig [-c CPU] [-b MS]
 * Prints TAP-like "ok NAME" / "not ok NAME - reason" lines; exit 1 if any
 * check failed, 2 on a setup failure, 64 on bad usage.
 */
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
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

#define MIN_BURN_MS 1000	/* the signal comes 200 ms into the burn */

static int failed;

/*
 * When the owner began to release mutex 0 (CLOCK_MONOTONIC ms, 0 while it
 * holds it); shared with the forked owner, set before its unlock.
 */
static volatile uint64_t *release_ms;

static void ok(const char *name) { printf("ok %s\n", name); }

static void notok(const char *name, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void notok(const char *name, const char *fmt, ...)
{
	va_list ap;

	printf("not ok %s - ", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	failed++;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("proxysig: sched_setaffinity");
		_exit(2);
	}
}

static int lab_open(void)
{
	int fd = px_lab_open();

	if (fd < 0) {
		fprintf(stderr, "proxysig: %s: %s\n", PX_LAB_DEV, strerror(errno));
		_exit(2);
	}
	return fd;
}

static int lab_lock(int fd, unsigned int idx, unsigned int flags)
{
	struct proxylab_lock arg = { .idx = idx, .flags = flags };

	return ioctl(fd, PROXYLAB_IOC_LOCK, &arg) ? errno : 0;
}

static int lab_unlock(int fd, unsigned int idx)
{
	return ioctl(fd, PROXYLAB_IOC_UNLOCK, &idx) ? errno : 0;
}

static void on_sigusr1(int sig)
{
	(void)sig;
}

/* Owner: hold mutex 0 and burn @burn_ms of CPU on @cpu; report via @wfd. */
static pid_t start_owner(int cpu, int burn_ms, int wfd)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	pin(cpu);
	int fd = lab_open();
	uint64_t us = burn_ms * 1000ULL;

	if (lab_lock(fd, 0, 0))
		_exit(3);
	if (write(wfd, "h", 1) != 1)
		_exit(3);
	if (ioctl(fd, PROXYLAB_IOC_BURN, &us))
		_exit(4);
	*release_ms = now_ms();
	__sync_synchronize();	/* stored before the waiter can take the mutex */
	_exit(lab_unlock(fd, 0) ? 5 : 0);
}

/*
 * Waiter: SCHED_FIFO on @cpu, blocks on mutex 0 with @flags, then reports
 * the result of the wait, how long after it started it ended, whether
 * blocked_on is stale, and whether it can lock another mutex.
 */
struct waiter_report {
	int lock_err;
	int blocked_on;		/* 0, 1, or -errno of the query */
	int relock_err;
	uint64_t end_ms;
};

static pid_t start_waiter(int cpu, unsigned int flags, int wfd)
{
	struct sched_param sp = { .sched_priority = 10 };
	struct waiter_report rep = { 0 };
	struct sigaction sa;
	pid_t pid = fork();
	uint32_t stale;
	int fd;

	if (pid)
		return pid;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigusr1;	/* no SA_RESTART: the wait must end */
	sigaction(SIGUSR1, &sa, NULL);
	pin(cpu);
	fd = lab_open();
	if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
		perror("proxysig: SCHED_FIFO");
		_exit(2);
	}
	if (write(wfd, "w", 1) != 1)
		_exit(3);
	rep.lock_err = lab_lock(fd, 0, flags);
	rep.end_ms = now_ms();
	rep.blocked_on = ioctl(fd, PROXYLAB_IOC_BLOCKED_ON, &stale) ? -errno : (int)stale;
	rep.relock_err = lab_lock(fd, 1, flags);
	if (!rep.relock_err)
		lab_unlock(fd, 1);
	if (!rep.lock_err)
		lab_unlock(fd, 0);
	if (write(wfd, &rep, sizeof(rep)) != sizeof(rep))
		_exit(3);
	_exit(0);
}

static void wait_byte(int rfd, char want)
{
	char c = 0;

	if (read(rfd, &c, 1) != 1 || c != want) {
		fprintf(stderr, "proxysig: child failed to start (%c)\n", c);
		exit(2);
	}
}

/* One round: the waiter is signalled with @sig while the owner burns. */
static void round_signal(const char *name, int cpu, int burn_ms, int sig,
			 unsigned int flags)
{
	struct waiter_report rep;
	int p[2], status;
	pid_t owner, waiter;
	uint64_t sent;
	char t[96];

	if (pipe(p)) {
		perror("proxysig: pipe");
		exit(2);
	}
	*release_ms = 0;
	owner = start_owner(cpu, burn_ms, p[1]);
	wait_byte(p[0], 'h');
	waiter = start_waiter(cpu, flags, p[1]);
	wait_byte(p[0], 'w');
	usleep(200 * 1000);	/* let it block (and, with proxy, donate) */
	sent = now_ms();
	kill(waiter, sig);

	if (sig == SIGKILL) {
		waitpid(waiter, &status, 0);
		uint64_t gone = now_ms(), released = *release_ms;

		/* Reaped before the release: it cannot have waited for it. */
		snprintf(t, sizeof(t), "%s-dies-before-release", name);
		if (WIFSIGNALED(status) && !released)
			ok(t);
		else
			notok(t, "waiter reaped %llu ms after the kill, %s, status %#x",
			      (unsigned long long)(gone - sent),
			      released ? "after the owner's release" : "owner still holding", status);
	} else {
		ssize_t n = read(p[0], &rep, sizeof(rep));

		waitpid(waiter, &status, 0);
		if (n != sizeof(rep)) {
			notok(name, "waiter reported nothing (status %#x)", status);
		} else {
			uint64_t released = *release_ms;

			snprintf(t, sizeof(t), "%s-eintr-before-release", name);
			if (rep.lock_err == EINTR && rep.end_ms >= sent &&
			    (!released || rep.end_ms < released))
				ok(t);
			else
				notok(t, "lock returned %s %lld ms after the signal, the owner's release %lld ms after it",
				      strerror(rep.lock_err), (long long)(rep.end_ms - sent),
				      released ? (long long)(released - sent) : -1LL);
			snprintf(t, sizeof(t), "%s-no-stale-blocked-on", name);
			if (rep.blocked_on == 0)
				ok(t);
			else if (rep.blocked_on == -ENOTTY)
				printf("ok %s # SKIP kernel without proxy execution\n", t);
			else
				notok(t, "blocked_on query says %d", rep.blocked_on);
			snprintf(t, sizeof(t), "%s-relock-other", name);
			if (!rep.relock_err)
				ok(t);
			else
				notok(t, "locking a free mutex after EINTR: %s", strerror(rep.relock_err));
		}
	}
	waitpid(owner, &status, 0);
	snprintf(t, sizeof(t), "%s-owner-finished", name);
	if (WIFEXITED(status) && !WEXITSTATUS(status))
		ok(t);
	else
		notok(t, "owner status %#x", status);
	close(p[0]);
	close(p[1]);
}

static struct env {
	int	cpu;
	int	burn_ms;
} env = {
	.cpu = 1,
	.burn_ms = 3000,
};

static const char doc[] =
"A waiter signalled (SIGUSR1, interruptible lock) or killed (SIGKILL,\n"
"killable lock) while blocked on lab mutex 0, whose owner burns CPU on the\n"
"waiter's CPU, leaves the wait before the owner releases the mutex, with no\n"
"stale blocked_on.\n"
"\n"
"USAGE: proxysig [-h] [-V] [-c CPU] [-b MS]\n"
"\n"
"Prints ok/not ok lines; exits 1 if a check failed, 2 on a broken setup,\n"
"64 on bad arguments.\n"
"\n"
"EXAMPLES:\n"
"    proxysig                 # owner and waiter on CPU 1, 3 s burns\n"
"    proxysig -c 0 -b 1000\n"
"\n"
"Options:";

static const struct argp_option opts[] = {
	{ "burn", 'b', "MS", 0, "How long the owner burns holding the mutex, 1000..10000 ms (default 3000)", 0 },
	{ "cpu", 'c', "CPU", 0, "The CPU of the owner and the waiter (default 1)", 0 },
	{},
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'b':
		env.burn_ms = px_arg_long(state, "burn time in ms", arg, MIN_BURN_MS, 10000);
		break;
	case 'c':
		env.cpu = px_arg_long(state, "CPU", arg, 0, CPU_SETSIZE - 1);
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
	int cpu, burn_ms, fd;
	uint64_t held = 0;

	if (px_argp_parse(&argp, argc, argv, NULL))
		return PX_EXIT_USAGE;
	cpu = env.cpu;
	burn_ms = env.burn_ms;
	setvbuf(stdout, NULL, _IOLBF, 0);
	release_ms = mmap(NULL, sizeof(*release_ms), PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (release_ms == MAP_FAILED) {
		perror("proxysig: mmap");
		return 2;
	}
	round_signal("signal-interruptible", cpu, burn_ms, SIGUSR1,
		     PROXYLAB_LOCK_INTERRUPTIBLE);
	round_signal("kill-killable", cpu, burn_ms, SIGKILL, 0);

	/* Nothing may be left held or waiting: mutex 0 is free right away. */
	fd = lab_open();
	if (lab_lock(fd, 0, 0) == 0 && ioctl(fd, PROXYLAB_IOC_HELD, &held) == 0 &&
	    held == 1 && lab_unlock(fd, 0) == 0)
		ok("mutex-free-after");
	else
		notok("mutex-free-after", "held mask %#llx", (unsigned long long)held);
	close(fd);
	return failed ? 1 : 0;
}

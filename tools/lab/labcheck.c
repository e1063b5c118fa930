// SPDX-License-Identifier: GPL-2.0
/*
 * labcheck - check every error path and the release rules of /dev/proxylab.
 *
 * Prints "ok NAME" or "not ok NAME - why" per check and exits 1 if any
 * failed (the tests/guest protocol).  After each error case a second
 * process must be able to lock the mutex: no error leaks a lock.  Uses
 * lab mutexes 0..10, rwsems 0..5 and rt_mutexes 0..5 (--first-mutex moves
 * all three), so run it alone.  A kernel whose lab has no rwsems
 * (RWSEM_LOCK is ENOTTY) skips the rwsem checks, one without rt_mutexes
 * (RTMUTEX_LOCK is ENOTTY) the rt_mutex checks.
 */
#include <argp.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/proxylab.h>

#include "labcompat.h"
#include "pxutil.h"
#include "labcheck.h"

#define STATE_PATH	"/sys/kernel/debug/proxylab_state"
#define NR_USED		11

int failed, base;
static bool run_errors = true, run_blocking = true;	/* --only */


const struct lab_kind lab_mutex = {
	"mutex", PROXYLAB_IOC_LOCK, PROXYLAB_IOC_UNLOCK, PROXYLAB_IOC_HELD, STATE_PATH, "",
};
const struct lab_kind lab_rwsem = {
	"rwsem", PROXYLAB_IOC_RWSEM_LOCK, PROXYLAB_IOC_RWSEM_UNLOCK, PROXYLAB_IOC_RWSEM_HELD,
	NULL, "rwsem-",	/* its state file has readers: labcheck_rwsem.c reads it */
};

/* ioctl result as 0 or an errno. */
int kind_lock_err(const struct lab_kind *k, int fd, uint32_t idx, uint32_t flags,
		  uint64_t *wait_ns)
{
	struct proxylab_lock arg = { .idx = idx, .flags = flags };

	if (ioctl(fd, k->lock, &arg))
		return errno;
	if (wait_ns)
		*wait_ns = arg.wait_ns;
	return 0;
}

int kind_unlock_err(const struct lab_kind *k, int fd, uint32_t idx)
{
	return ioctl(fd, k->unlock, &idx) ? errno : 0;
}

int u64_err(int fd, unsigned long req, uint64_t v)
{
	return ioctl(fd, req, &v) ? errno : 0;
}

/* HELD or RWSEM_HELD; all bits set when the ioctl fails. */
uint64_t kind_held(const struct lab_kind *k, int fd)
{
	uint64_t mask = UINT64_MAX;

	if (ioctl(fd, k->held, &mask))
		return UINT64_MAX;
	return mask;
}

const char *ename(int err)
{
	static char buf[64];

	switch (err) {
	case 0:		return "success";
	case EINVAL:	return "EINVAL";
	case EPERM:	return "EPERM";
	case EDEADLK:	return "EDEADLK";
	case EINTR:	return "EINTR";
	case ENOTTY:	return "ENOTTY";
	case EBUSY:	return "EBUSY";
	case ESRCH:	return "ESRCH";
	default:
		snprintf(buf, sizeof(buf), "errno %d (%s)", err, strerror(err));
		return buf;
	}
}

void check_errno(const char *name, int got, int want)
{
	check(name, got == want, "got %s, want %s", ename(got), ename(want));
}

int kind_state_holder(const struct lab_kind *k, int idx)
{
	FILE *f = k->state_path ? fopen(k->state_path, "re") : NULL;
	char line[128];
	int i, pid, ret = -1;
	long long acq;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%d %d %lld", &i, &pid, &acq) == 3 && i == idx)
			ret = pid;
	fclose(f);
	return ret;
}

static int state_holder(int idx)
{
	return kind_state_holder(&lab_mutex, idx);
}

const char *kname(const struct lab_kind *k, const char *name)
{
	static char n[96];

	snprintf(n, sizeof(n), "%s%s", k->prefix, name);
	return n;
}

/*
 * Another process can lock (an rwsem: for writing) and unlock @idx within
 * a second: it is free.
 */
static bool kind_is_free(const struct lab_kind *k, int idx)
{
	pid_t pid = fork();

	if (!pid) {
		int fd = px_lab_open_or_exit(1);

		_exit(kind_lock_err(k, fd, idx, 0, NULL) || kind_unlock_err(k, fd, idx) ? 1 : 0);
	}
	return pid > 0 && px_reap(pid, 1000) == 0;
}

void check_kind_free(const struct lab_kind *k, const char *name, int idx)
{
	char n[96];

	snprintf(n, sizeof(n), "%s-then-free", name);
	check(n, kind_is_free(k, idx), "%s %d still held afterwards", k->name, idx);
}

static void test_einval(int fd)
{
	check_errno("lock-index-16-einval", lock_err(fd, PROXYLAB_NR_MUTEXES, 0, NULL), EINVAL);
	check_errno("lock-index-huge-einval", lock_err(fd, UINT32_MAX, 0, NULL), EINVAL);
	check_errno("lock-flags-einval", lock_err(fd, base, 1u << 31, NULL), EINVAL);
	check_free("lock-flags-einval", base);
	check_errno("unlock-index-16-einval", unlock_err(fd, PROXYLAB_NR_MUTEXES), EINVAL);
	check_errno("burn-over-cap-einval",
		    u64_err(fd, PROXYLAB_IOC_BURN, PROXYLAB_MAX_USECS + 1), EINVAL);
	check_errno("burn-negative-einval", u64_err(fd, PROXYLAB_IOC_BURN, (uint64_t)-1), EINVAL);
	check_errno("sleep-over-cap-einval",
		    u64_err(fd, PROXYLAB_IOC_SLEEP, PROXYLAB_MAX_USECS + 1), EINVAL);
	check_errno("sleep-negative-einval", u64_err(fd, PROXYLAB_IOC_SLEEP, (uint64_t)-1), EINVAL);
	check_errno("unknown-ioctl-enotty", ioctl(fd, _IO('x', 99)) ? errno : 0, ENOTTY);
}

static void test_eperm(int fd)
{
	int fd2 = px_lab_open_or_exit(1), m = base + 1, status;
	pid_t pid;

	check_errno("unlock-not-held-eperm", unlock_err(fd, m), EPERM);
	check_free("unlock-not-held-eperm", m);

	/* Held through fd, unlocked through another file of the same task. */
	check_errno("lock-for-eperm", lock_err(fd, m, 0, NULL), 0);
	check_errno("unlock-other-file-eperm", unlock_err(fd2, m), EPERM);
	check("held-after-eperm", held_mask(fd) == 1ULL << m, "HELD %#" PRIx64, held_mask(fd));
	check_errno("unlock-after-eperm", unlock_err(fd, m), 0);
	check_free("unlock-other-file-eperm", m);

	/* Held by this process, unlocked by a child that shares the file. */
	check_errno("lock-for-child-eperm", lock_err(fd, m, 0, NULL), 0);
	pid = fork();
	if (!pid)
		_exit(unlock_err(fd, m) == EPERM ? 0 : 1);
	status = px_reap(pid, 2000);
	check("unlock-other-task-eperm", status == 0, "child's UNLOCK did not fail with EPERM");
	check_errno("unlock-after-child-eperm", unlock_err(fd, m), 0);
	check_free("unlock-other-task-eperm", m);
	close(fd2);
}

static void test_edeadlk(int fd)
{
	int m = base + 2;

	check_errno("lock-for-edeadlk", lock_err(fd, m, 0, NULL), 0);
	check_errno("relock-edeadlk", lock_err(fd, m, 0, NULL), EDEADLK);
	check("held-after-edeadlk", held_mask(fd) == 1ULL << m, "HELD %#" PRIx64, held_mask(fd));
	check_errno("unlock-after-edeadlk", unlock_err(fd, m), 0);
	check("held-empty", held_mask(fd) == 0, "HELD %#" PRIx64, held_mask(fd));
	check_free("relock-edeadlk", m);
}

/* Nested locks build chains: both held, HELD shows both, both free after. */
static void test_nesting(int fd)
{
	int a = base + 3, b = base + 4;
	uint64_t want = 1ULL << a | 1ULL << b;
	uint64_t wait_ns = UINT64_MAX;

	check_errno("nest-lock-outer", lock_err(fd, a, 0, &wait_ns), 0);
	check("uncontended-wait-small", wait_ns < 1000000000ULL, "wait_ns %" PRIu64, wait_ns);
	check_errno("nest-lock-inner", lock_err(fd, b, 0, NULL), 0);
	check("nest-held", held_mask(fd) == want, "HELD %#" PRIx64 ", want %#" PRIx64,
	      held_mask(fd), want);
	check_errno("nest-unlock-outer-first", unlock_err(fd, a), 0);
	check_errno("nest-unlock-inner", unlock_err(fd, b), 0);
	check_free("nest-a", a);
	check_free("nest-b", b);
}

/* A waiter killed while blocked in LOCK dies without the lock. */
void test_kind_killed_waiter(const struct lab_kind *k, int fd, int m)
{
	int status, holder;
	pid_t pid;

	check_errno(kname(k, "lock-for-kill"), kind_lock_err(k, fd, m, 0, NULL), 0);
	pid = fork();
	if (!pid) {
		int cfd = px_lab_open_or_exit(1);

		kind_lock_err(k, cfd, m, 0, NULL);
		_exit(0);	/* never reached while the parent holds m */
	}
	check(kname(k, "waiter-blocks-killable"), px_wait_task_state(pid, 'D', 3000, NULL),
	      "waiter state %c, want D", px_task_state(pid));
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	check(kname(k, "waiter-killed"), WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
	      "status %#x", status);
	holder = kind_state_holder(k, m);
	check(kname(k, "killed-waiter-not-holder"), holder == -1 || holder == getpid(),
	      "debugfs holder of %s %d is %d, want %d", k->name, m, holder, getpid());
	check_errno(kname(k, "unlock-after-kill"), kind_unlock_err(k, fd, m), 0);
	holder = kind_state_holder(k, m);
	check(kname(k, "killed-waiter-nothing-held"), holder == -1 || holder == 0,
	      "debugfs holder of %s %d is %d", k->name, m, holder);
	check_kind_free(k, kname(k, "killed-waiter"), m);
}

void on_usr1(int sig)
{
	(void)sig;
}

/* SLEEP is interruptible: a caught signal ends it with EINTR. */
static void test_sleep_eintr(void)
{
	struct sigaction sa = { .sa_handler = on_usr1 };	/* no SA_RESTART */
	int status;
	pid_t pid;

	pid = fork();
	if (!pid) {
		int cfd = px_lab_open_or_exit(1);

		sigaction(SIGUSR1, &sa, NULL);
		_exit(u64_err(cfd, PROXYLAB_IOC_SLEEP, 5000000) == EINTR ? 0 : 1);
	}
	px_wait_task_state(pid, 'S', 3000, NULL);
	px_sleep_ns(50ULL * 1000000);
	kill(pid, SIGUSR1);
	status = px_reap(pid, 3000);
	check("sleep-signal-eintr", status == 0, "SLEEP did not return EINTR on a signal");
}

#ifndef PROXYLAB_LOCK_INTERRUPTIBLE
#define PROXYLAB_LOCK_INTERRUPTIBLE	0x1
#endif
#ifndef PROXYLAB_LOCK_UNINTERRUPTIBLE
#define PROXYLAB_LOCK_UNINTERRUPTIBLE	0x2
#endif
#ifndef PROXYLAB_IOC_BLOCKED_ON
#define PROXYLAB_IOC_BLOCKED_ON		_IOR('x', 6, __u32)
#endif

/* 0: blocked_on clear, 1: stale, -1: no proxy execution (ENOTTY), -2: error. */
int blocked_on(int fd)
{
	uint32_t v = 0;

	if (ioctl(fd, PROXYLAB_IOC_BLOCKED_ON, &v))
		return errno == ENOTTY ? -1 : -2;
	return v ? 1 : 0;
}

static void check_blocked_on(const char *name, int fd)
{
	int b = blocked_on(fd);

	check(name, b == 0 || b == -1, "BLOCKED_ON says %s",
	      b == 1 ? "a stale blocked_on is left" : "error");
}

/*
 * An interruptible LOCK ends with EINTR on any caught signal, holds
 * nothing afterwards and leaves no blocked_on behind.  Child exit codes:
 * 0 ok, 1 not EINTR, 2 something held, 3 stale blocked_on, 4 flag refused.
 */
void test_kind_interruptible(const struct lab_kind *k, int fd, int m)
{
	struct sigaction sa = { .sa_handler = on_usr1 };	/* no SA_RESTART */
	int status;
	pid_t pid;

	check_errno(kname(k, "lock-for-interruptible"), kind_lock_err(k, fd, m, 0, NULL), 0);
	pid = fork();
	if (!pid) {
		int cfd = px_lab_open_or_exit(1), err;

		sigaction(SIGUSR1, &sa, NULL);
		err = kind_lock_err(k, cfd, m, PROXYLAB_LOCK_INTERRUPTIBLE, NULL);
		if (err == EINVAL)
			_exit(4);
		if (err != EINTR)
			_exit(1);
		if (kind_held(k, cfd))
			_exit(2);
		_exit(blocked_on(cfd) == 1 ? 3 : 0);
	}
	px_wait_task_state(pid, 'S', 3000, NULL);
	px_sleep_ns(50ULL * 1000000);
	kill(pid, SIGUSR1);
	status = px_reap(pid, 3000);
	if (status == 4)
		printf("ok lab/%s # SKIP kernel without PROXYLAB_LOCK_INTERRUPTIBLE\n",
		       kname(k, "lock-interruptible-eintr"));
	else
		check(kname(k, "lock-interruptible-eintr"), status == 0, "child status %d (%s)",
		      status, status == 1 ? "LOCK did not return EINTR" :
		      status == 2 ? "lock held" : status == 3 ? "stale blocked_on" :
		      "hung or killed");
	check_errno(kname(k, "unlock-after-interruptible"), kind_unlock_err(k, fd, m), 0);
	check_kind_free(k, kname(k, "lock-interruptible"), m);
}

static void test_lock_interruptible(int fd)
{
	test_kind_interruptible(&lab_mutex, fd, base + 5);
}

/*
 * An uninterruptible LOCK waits through SIGKILL until the unlock, then
 * the kill takes effect.
 */
void test_kind_uninterruptible(const struct lab_kind *k, int fd, int m)
{
	int status;
	pid_t pid;

	check_errno(kname(k, "lock-for-uninterruptible"), kind_lock_err(k, fd, m, 0, NULL), 0);
	pid = fork();
	if (!pid) {
		int cfd = px_lab_open_or_exit(1);

		_exit(kind_lock_err(k, cfd, m, PROXYLAB_LOCK_UNINTERRUPTIBLE, NULL) ? 1 : 0);
	}
	check(kname(k, "uninterruptible-blocks"), px_wait_task_state(pid, 'D', 3000, NULL),
	      "waiter state %c, want D", px_task_state(pid));
	kill(pid, SIGKILL);
	/*
	 * Still waiting 200 ms later: in D again, not exited.  Not one
	 * sample: this process, the owner, sleeps meanwhile, so proxy
	 * execution parks a mutex waiter on it, and the owner's wakeup wakes
	 * the waiter to donate again: it is R until it blocks again, which
	 * a starved vCPU can stretch to well past this read.
	 */
	px_sleep_ns(200ULL * 1000000);
	check(kname(k, "uninterruptible-survives-kill"), px_wait_task_state(pid, 'D', 3000, NULL),
	      "waiter state %c 200 ms after SIGKILL and for 3 s after, want D (still waiting)",
	      px_task_state(pid));
	check_errno(kname(k, "unlock-for-uninterruptible"), kind_unlock_err(k, fd, m), 0);
	waitpid(pid, &status, 0);
	check(kname(k, "uninterruptible-killed-after-unlock"),
	      WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "status %#x", status);
	check_kind_free(k, kname(k, "lock-uninterruptible"), m);
}

/* The two wait flags together are refused; then the uninterruptible wait. */
static void test_lock_uninterruptible(int fd)
{
	int m = base + 7;

	check_errno("lock-flags-both-einval",
		    lock_err(fd, m, PROXYLAB_LOCK_INTERRUPTIBLE | PROXYLAB_LOCK_UNINTERRUPTIBLE,
			     NULL), EINVAL);
	check_free("lock-flags-both-einval", m);
	test_kind_uninterruptible(&lab_mutex, fd, m);
}

/* Exit and close release what is held. */
static void test_release(void)
{
	int a = base + 6, b = base + 7, c = base + 8, fd, holder;
	pid_t pid;

	pid = fork();
	if (!pid) {
		int cfd = px_lab_open_or_exit(1);

		if (lock_err(cfd, a, 0, NULL) || lock_err(cfd, b, 0, NULL))
			_exit(1);
		_exit(0);	/* exits holding a and b, file not closed */
	}
	check("exit-holding-status", px_reap(pid, 3000) == 0, "child could not lock");
	check_free("exit-releases-a", a);
	check_free("exit-releases-b", b);
	holder = state_holder(a);
	check("exit-debugfs-clear", holder == -1 || holder == 0, "debugfs holder of %d is %d",
	      a, holder);

	/* Killed while holding. */
	pid = fork();
	if (!pid) {
		int cfd = px_lab_open_or_exit(1);

		if (lock_err(cfd, c, 0, NULL))
			_exit(1);
		pause();
		_exit(0);
	}
	px_sleep_ns(100ULL * 1000000);
	holder = state_holder(c);
	check("killed-holder-seen", holder == -1 || holder == pid,
	      "debugfs holder of %d is %d, want %d", c, holder, pid);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	check_free("killed-holder-releases", c);

	fd = px_lab_open_or_exit(1);
	check_errno("lock-before-close", lock_err(fd, a, 0, NULL), 0);
	close(fd);
	check_free("close-releases", a);
}

/*
 * A mutex never outlives its holder.  The holder exits without closing
 * its file while a fork child still has the file open: the exit's
 * implicit close unlocks, not the child's last close much later.
 */
static void test_exit_with_child(void)
{
	int a = base + 6, holder, pipefd[2];
	pid_t pid, gc = -1;

	if (pipe(pipefd))
		px_fatal(1, "pipe");
	pid = fork();
	if (!pid) {
		int cfd = px_lab_open_or_exit(1);

		if (lock_err(cfd, a, 0, NULL))
			_exit(1);
		gc = fork();	/* inherits cfd and keeps it open */
		if (!gc) {
			pause();
			_exit(0);
		}
		if (gc < 0 || write(pipefd[1], &gc, sizeof(gc)) != sizeof(gc))
			_exit(1);
		_exit(0);	/* exits holding a; gc has the file */
	}
	if (read(pipefd[0], &gc, sizeof(gc)) != sizeof(gc))
		gc = -1;
	close(pipefd[0]);
	close(pipefd[1]);
	check("exit-with-child-status", px_reap(pid, 3000) == 0 && gc > 0,
	      "holder could not lock or fork");
	holder = state_holder(a);
	check("exit-with-child-debugfs-clear", holder == -1 || holder == 0,
	      "debugfs holder of %d is %d after its holder %d exited", a, holder, pid);
	check_free("exit-with-child-releases", a);
	if (gc > 0)
		kill(gc, SIGKILL);	/* not our child: init reaps it */
}

struct thread_lock {
	int fd, idx, err;
};

static void *thread_lock_fn(void *arg)
{
	struct thread_lock *t = arg;

	t->err = lock_err(t->fd, t->idx, 0, NULL);
	return NULL;
}

/* A task whose file table is shared could exit without closing: refused. */
static void test_threads_refused(int fd)
{
	struct thread_lock t = { .fd = fd, .idx = base + 7, .err = -1 };
	pthread_t th;

	if (pthread_create(&th, NULL, thread_lock_fn, &t)) {
		check("thread-lock-refused", false, "pthread_create failed");
		return;
	}
	pthread_join(th, NULL);
	check_errno("thread-lock-refused", t.err, EBUSY);
	if (!t.err)
		unlock_err(fd, t.idx);
	check_free("thread-lock-refused", t.idx);
}

/* PROXYLAB_IOC_WAKE's error paths. */
static void test_wake(int fd)
{
	int32_t pid = 0;
	pid_t child;

	check_errno("wake-pid-0", ioctl(fd, PROXYLAB_IOC_WAKE, &pid) ? errno : 0, EINVAL);
	child = fork();
	if (!child)
		_exit(0);
	waitpid(child, NULL, 0);
	pid = child;	/* reaped: no such task now */
	check_errno("wake-no-such-pid", ioctl(fd, PROXYLAB_IOC_WAKE, &pid) ? errno : 0, ESRCH);
	pid = getpid();	/* running: not woken */
	check("wake-running-is-0", ioctl(fd, PROXYLAB_IOC_WAKE, &pid) == 0,
	      "WAKE of the running caller returned %s", ename(errno));
}

/*
 * A contended LOCK reports the time the owner held the mutex.  The owner
 * starts its 50-ms sleep only once the waiter is blocked (D: the killable
 * wait), so the wait spans the whole sleep however late either task runs:
 * a lower bound that a stalled vCPU cannot break.  Exit status 2: the
 * waiter never blocked.
 */
static void test_wait_ns(int fd)
{
	int m = base + 9, status;
	uint64_t wait_ns = 0;
	pid_t pid, waiter = getpid();
	int pipefd[2];
	char c;

	if (pipe(pipefd))
		px_fatal(1, "pipe");
	pid = fork();
	if (!pid) {
		int cfd = px_lab_open_or_exit(1);

		if (lock_err(cfd, m, 0, NULL))
			_exit(1);
		if (write(pipefd[1], "x", 1) != 1)
			_exit(1);
		if (!px_wait_task_state(waiter, 'D', 10000, NULL)) {
			unlock_err(cfd, m);
			_exit(2);
		}
		u64_err(cfd, PROXYLAB_IOC_SLEEP, 50000);
		_exit(unlock_err(cfd, m) ? 1 : 0);
	}
	if (read(pipefd[0], &c, 1) != 1)
		c = 0;
	check_errno("contended-lock", lock_err(fd, m, 0, &wait_ns), 0);
	check("contended-wait-ns", wait_ns >= 50000000ULL && wait_ns < 10000000000ULL,
	      "wait_ns %" PRIu64 ", want >= 50 ms (the owner slept 50 ms after the waiter blocked)",
	      wait_ns);
	unlock_err(fd, m);
	status = px_reap(pid, 3000);
	check("contended-owner-status", status == 0, "owner exited %d%s", status,
	      status == 2 ? " (the waiter did not show D within 10 s)" : "");
	close(pipefd[0]);
	close(pipefd[1]);
}

static void test_burn(int fd)
{
	struct timespec a, b;
	uint64_t ns;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	check_errno("burn-10ms", u64_err(fd, PROXYLAB_IOC_BURN, 10000), 0);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	ns = (uint64_t)(b.tv_sec - a.tv_sec) * 1000000000ULL + b.tv_nsec - a.tv_nsec;
	check("burn-uses-cpu", ns >= 9000000ULL, "thread CPU time grew %" PRIu64 " ns", ns);
	check_errno("burn-zero", u64_err(fd, PROXYLAB_IOC_BURN, 0), 0);
	check_errno("sleep-cap-ok", u64_err(fd, PROXYLAB_IOC_SLEEP, 1), 0);
}

static const char doc[] =
"Check the error paths and release rules of /dev/proxylab.\n"
"\n"
"USAGE: labcheck [-m IDX] [--only errors|blocking]\n"
"\n"
"Prints ok/not ok lines, exits 1 if any check failed (lab/open: no lab),\n"
"64 on bad arguments.  Uses 11 lab mutexes,\n"
"6 lab rwsems and 6 lab rt_mutexes (a lab without rwsems or rt_mutexes:\n"
"a skip line for each).\n"
"The checks come in two kinds: errors (bad arguments, permissions,\n"
"nesting, what exit and close release, the sleep and burn ioctls: no task\n"
"ever waits on a mutex, so proxy execution plays no part) and blocking\n"
"(tasks that wait on a held mutex and are killed, interrupted, woken or\n"
"timed: the waits proxy execution changes).  --only runs one kind.\n"
"\n"
"EXAMPLES:\n"
"    labcheck\n"
"    labcheck --first-mutex 6\n"
"    labcheck --only blocking\n";

enum { OPT_ONLY = 0x100 };

static const struct argp_option opts[] = {
	{ "first-mutex", 'm', "IDX", 0, "lowest lab mutex to use (default 0)", 0 },
	{ "only", OPT_ONLY, "KIND", 0, "only the checks of KIND: errors or blocking", 0 },
	{},
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'm':
		base = px_arg_long(state, "mutex index", arg, 0, PROXYLAB_NR_MUTEXES - NR_USED);
		if (base > PROXYLAB_NR_RWSEMS - NR_RW_USED)
			argp_error(state, "--first-mutex %d leaves too few of the %d lab rwsems",
				   base, PROXYLAB_NR_RWSEMS);
		if (base > PROXYLAB_NR_RTMUTEXES - NR_RT_USED)
			argp_error(state, "--first-mutex %d leaves too few of the %d lab rt_mutexes",
				   base, PROXYLAB_NR_RTMUTEXES);
		break;
	case OPT_ONLY:
		if (!strcmp(arg, "errors")) {
			run_blocking = false;
		} else if (!strcmp(arg, "blocking")) {
			run_errors = false;
		} else {
			argp_error(state, "--only: '%s' is neither errors nor blocking", arg);
		}
		break;
	case ARGP_KEY_ARG:
		fprintf(stderr, "unexpected argument: %s\n", arg);
		argp_usage(state);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct argp argp = { opts, parse_arg, NULL, doc, NULL, NULL, NULL };
	int fd;

	if (px_argp_parse(&argp, argc, argv, NULL))
		return PX_EXIT_USAGE;
	fd = px_lab_open();
	if (fd < 0) {
		printf("not ok lab/open - %s\n", errno == ENOENT ?
		       "no " PX_LAB_DEV ": kernel without CONFIG_PROXYLAB" : strerror(errno));
		return 1;
	}
	printf("ok lab/open\n");
	if (state_holder(0) < 0)
		printf("# no %s: debugfs checks skipped\n", STATE_PATH);
	if (run_errors) {
		test_einval(fd);
		test_eperm(fd);
		test_edeadlk(fd);
		test_nesting(fd);
		test_sleep_eintr();
		test_release();
		test_exit_with_child();
		test_threads_refused(fd);
		test_burn(fd);
	}
	if (run_blocking) {
		test_kind_killed_waiter(&lab_mutex, fd, base + 5);
		test_lock_interruptible(fd);
		test_lock_uninterruptible(fd);
		test_wake(fd);
		test_wait_ns(fd);
		test_dead_holder_shared_files(base + 10);
	}
	if (have_rwsems(fd)) {
		if (run_errors)
			test_rwsem_errors(fd);
		if (run_blocking) {
			test_rwsem_blocking(fd);
			test_shared_file_reads(fd);
		}
		check("rwsem-nothing-held-at-end", rw_held_mask(fd) == 0,
		      "RWSEM_HELD %#" PRIx64, rw_held_mask(fd));
	}
	if (have_rtmutexes(fd)) {
		if (run_errors)
			test_rtmutex_errors(fd);
		if (run_blocking)
			test_rtmutex_blocking(fd);
		check("rtmutex-nothing-held-at-end", kind_held(&lab_rtmutex, fd) == 0,
		      "RTMUTEX_HELD %#" PRIx64, kind_held(&lab_rtmutex, fd));
	}
	check("nothing-held-at-end", held_mask(fd) == 0, "HELD %#" PRIx64, held_mask(fd));
	check_blocked_on("blocked-on-clear-at-end", fd);
	close(fd);
	return failed;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * labcheck's checks of the lab's rt_mutexes (kernel/pending/0044): the
 * mutexes' error paths and release rules, plus what is the rt_mutex's own:
 * its waiter boosts the holder (priority inheritance), a wait that would
 * close a cycle of rt_mutex waits is EDEADLK, and only the holder ever
 * unlocks one (a file released by another task leaves it to the holder's
 * exit).  Uses lab rt_mutexes base..base+5; labcheck.c runs them after the
 * rwsems'.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/proxylab.h>

#include "labcompat.h"
#include "pxutil.h"
#include "labcheck.h"

#define PI_WAITER_PRIO	50	/* SCHED_FIFO priority of the boosting waiter */

const struct lab_kind lab_rtmutex = {
	"rtmutex", PROXYLAB_IOC_RTMUTEX_LOCK, PROXYLAB_IOC_RTMUTEX_UNLOCK,
	PROXYLAB_IOC_RTMUTEX_HELD, RTMUTEX_STATE_PATH, "rtmutex-",
};

static int rt_lock_err(int fd, uint32_t idx, uint32_t flags, uint64_t *wait_ns)
{
	return kind_lock_err(&lab_rtmutex, fd, idx, flags, wait_ns);
}

static int rt_unlock_err(int fd, uint32_t idx)
{
	return kind_unlock_err(&lab_rtmutex, fd, idx);
}

static uint64_t rt_held_mask(int fd)
{
	return kind_held(&lab_rtmutex, fd);
}

static void check_rt_free(const char *name, int idx)
{
	check_kind_free(&lab_rtmutex, name, idx);
}

static int rt_state_holder(int idx)
{
	return kind_state_holder(&lab_rtmutex, idx);
}

/*
 * The priority field of /proc/PID/stat (p->prio - 100: 0..39 for nice
 * -20..19, -2..-100 for SCHED_FIFO 1..99, boosted or not); INT32_MIN if
 * unreadable.
 */
static int stat_priority(pid_t pid)
{
	char path[64], buf[512], *p;
	int field, prio;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (px_read_line(path, buf, sizeof(buf)))
		return INT32_MIN;
	p = strrchr(buf, ')');
	/* Field 3 (state) follows the comm; to the space before field 18. */
	for (field = 3; p && field <= 18; field++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p + 1, "%d", &prio) != 1)
		return INT32_MIN;
	return prio;
}

struct rt_thread_lock {
	int fd, idx, err;
};

static void *rt_thread_lock_fn(void *arg)
{
	struct rt_thread_lock *t = arg;

	t->err = rt_lock_err(t->fd, t->idx, 0, NULL);
	return NULL;
}

/*
 * The mutexes' error paths and release rules, with no task waiting: as
 * LOCK's, and PROXYLAB_LOCK_READ refused.
 */
void test_rtmutex_errors(int fd)
{
	int a = base, b = base + 1, c = base + 2, fd2, holder, status;
	struct rt_thread_lock t = { .fd = fd, .idx = c, .err = -1 };
	uint64_t wait_ns = UINT64_MAX;
	pthread_t th;
	pid_t pid;

	check_errno("rtmutex-index-16-einval", rt_lock_err(fd, PROXYLAB_NR_RTMUTEXES, 0, NULL),
		    EINVAL);
	check_errno("rtmutex-index-huge-einval", rt_lock_err(fd, UINT32_MAX, 0, NULL), EINVAL);
	check_errno("rtmutex-unlock-index-16-einval", rt_unlock_err(fd, PROXYLAB_NR_RTMUTEXES),
		    EINVAL);
	check_errno("rtmutex-flags-einval", rt_lock_err(fd, a, 1u << 31, NULL), EINVAL);
	check_errno("rtmutex-read-einval", rt_lock_err(fd, a, PROXYLAB_LOCK_READ, NULL), EINVAL);
	check_errno("rtmutex-both-waits-einval",
		    rt_lock_err(fd, a, PROXYLAB_LOCK_INTERRUPTIBLE | PROXYLAB_LOCK_UNINTERRUPTIBLE,
				NULL), EINVAL);
	check_rt_free("rtmutex-flags-einval", a);
	check_errno("rtmutex-unlock-not-held-eperm", rt_unlock_err(fd, a), EPERM);

	/* Held: its own HELD bit, EDEADLK again through any file, EPERM elsewhere. */
	check_errno("rtmutex-lock", rt_lock_err(fd, a, 0, &wait_ns), 0);
	check("rtmutex-uncontended-wait-small", wait_ns < 1000000000ULL, "wait_ns %" PRIu64,
	      wait_ns);
	check("rtmutex-held", rt_held_mask(fd) == 1ULL << a, "RTMUTEX_HELD %#" PRIx64 ", want %#llx",
	      rt_held_mask(fd), 1ULL << a);
	check("rtmutex-mutex-held-apart", held_mask(fd) == 0, "HELD %#" PRIx64, held_mask(fd));
	check_errno("rtmutex-relock-edeadlk", rt_lock_err(fd, a, 0, NULL), EDEADLK);
	fd2 = px_lab_open_or_exit(1);
	check_errno("rtmutex-relock-other-file-edeadlk", rt_lock_err(fd2, a, 0, NULL), EDEADLK);
	check_errno("rtmutex-unlock-other-file-eperm", rt_unlock_err(fd2, a), EPERM);
	close(fd2);
	holder = rt_state_holder(a);
	if (holder >= 0)
		check("rtmutex-debugfs-holder", holder == getpid(), "debugfs holder of %d is %d, want %d",
		      a, holder, getpid());
	pid = fork();
	if (!pid)
		_exit(rt_unlock_err(fd, a) == EPERM ? 0 : 1);
	status = px_reap(pid, 2000);
	check("rtmutex-unlock-other-task-eperm", status == 0,
	      "child's RTMUTEX_UNLOCK did not fail with EPERM");

	/* Nested: both held, both free after. */
	check_errno("rtmutex-nest-inner", rt_lock_err(fd, b, 0, NULL), 0);
	check("rtmutex-nest-held", rt_held_mask(fd) == (1ULL << a | 1ULL << b),
	      "RTMUTEX_HELD %#" PRIx64, rt_held_mask(fd));
	check_errno("rtmutex-unlock-outer-first", rt_unlock_err(fd, a), 0);
	check_errno("rtmutex-unlock-inner", rt_unlock_err(fd, b), 0);
	check("rtmutex-held-empty", rt_held_mask(fd) == 0, "RTMUTEX_HELD %#" PRIx64,
	      rt_held_mask(fd));
	check_rt_free("rtmutex-unlock-a", a);
	check_rt_free("rtmutex-unlock-b", b);
	holder = rt_state_holder(a);
	check("rtmutex-debugfs-clear", holder <= 0, "debugfs holder of %d is %d", a, holder);

	/* Exit releases; so does close. */
	pid = fork();
	if (!pid) {
		int cfd = px_lab_open_or_exit(1);

		_exit(rt_lock_err(cfd, a, 0, NULL) || rt_lock_err(cfd, b, 0, NULL) ? 1 : 0);
	}
	check("rtmutex-exit-holding-status", px_reap(pid, 3000) == 0, "child could not lock");
	check_rt_free("rtmutex-exit-releases-a", a);
	check_rt_free("rtmutex-exit-releases-b", b);
	{
		int cfd = px_lab_open_or_exit(1);

		check_errno("rtmutex-lock-before-close", rt_lock_err(cfd, c, 0, NULL), 0);
		close(cfd);
		check_rt_free("rtmutex-close-releases", c);
	}

	/* A thread (a shared file table) is refused. */
	if (pthread_create(&th, NULL, rt_thread_lock_fn, &t)) {
		check("rtmutex-thread-lock-refused", false, "pthread_create failed");
		return;
	}
	pthread_join(th, NULL);
	check_errno("rtmutex-thread-lock-refused", t.err, EBUSY);
	if (!t.err)
		rt_unlock_err(fd, t.idx);
	check_rt_free("rtmutex-thread-lock-refused", t.idx);
}

/* Killed, interrupted and uninterruptible waiters of rt_mutex @m. */
static void test_rt_waits(int fd, int m)
{
	test_kind_killed_waiter(&lab_rtmutex, fd, m);
	test_kind_interruptible(&lab_rtmutex, fd, m);
	test_kind_uninterruptible(&lab_rtmutex, fd, m);
}

/*
 * A waiter gets the rt_mutex once the holder leaves, having waited; while
 * it waits as SCHED_FIFO PI_WAITER_PRIO, the holder (this process) runs at
 * that priority, and at its own again after the unlock.  Waiter exit codes:
 * 0 ok, 1 lock failed, 2 wait_ns under 40 ms, 3 stale blocked_on, 4 not
 * SCHED_FIFO (no CAP_SYS_NICE: the boost is skipped, the wait still checked).
 */
static void test_rt_boost(int fd, int m)
{
	int base_prio = stat_priority(getpid()), boosted = INT32_MIN, after, status;
	int want = -1 - PI_WAITER_PRIO;
	pid_t pid;

	check_errno("rtmutex-lock-for-waiter", rt_lock_err(fd, m, 0, NULL), 0);
	pid = fork();
	if (!pid) {
		struct sched_param sp = { .sched_priority = PI_WAITER_PRIO };
		int cfd = px_lab_open_or_exit(1), fifo;
		uint64_t ns = 0;

		fifo = !sched_setscheduler(0, SCHED_FIFO, &sp);
		if (rt_lock_err(cfd, m, 0, &ns))
			_exit(1);
		if (blocked_on(cfd) == 1)
			_exit(3);
		if (ns < 40000000ULL || rt_unlock_err(cfd, m))
			_exit(2);
		_exit(fifo ? 0 : 4);
	}
	px_wait_task_state(pid, 'D', 3000, NULL);
	/* The waiter boosts before it sleeps: D means boosted. */
	if (sched_getscheduler(pid) == SCHED_FIFO)
		boosted = stat_priority(getpid());
	px_sleep_ns(50ULL * 1000000);
	check_errno("rtmutex-unlock-for-waiter", rt_unlock_err(fd, m), 0);
	after = stat_priority(getpid());
	status = px_reap(pid, 3000);
	check("rtmutex-waiter-after-holder", status == 0 || status == 4,
	      "waiter status %d (%s)", status,
	      status == 1 ? "RTMUTEX_LOCK failed" : status == 2 ? "wait_ns under 40 ms" :
	      status == 3 ? "stale blocked_on" : "hung");
	if (status == 4 || base_prio == INT32_MIN || base_prio <= want)
		printf("skip lab/rtmutex-pi-boost - %s\n", status == 4 ?
		       "the waiter could not be SCHED_FIFO" :
		       "this process's priority is unreadable or not below the waiter's");
	else
		check("rtmutex-pi-boost", boosted == want && after == base_prio,
		      "holder's priority %d, boosted %d, after the unlock %d; want %d, %d, %d",
		      base_prio, boosted, after, base_prio, want, base_prio);
	check_rt_free("rtmutex-waiter-after-holder", m);
}

/*
 * Tasks A (this process) and B hold a and b; B waits for a; A's wait for
 * b would close the cycle: EDEADLK at once (rt_mutex_lock() would warn
 * and never return), A still holds a, and B gets it once A leaves.
 */
static void test_rt_cycle(int fd, int a, int b)
{
	int pipefd[2], status;
	char c = 0;
	pid_t pid;

	if (pipe(pipefd))
		px_fatal(1, "pipe");
	check_errno("rtmutex-lock-for-cycle", rt_lock_err(fd, a, 0, NULL), 0);
	pid = fork();
	if (!pid) {
		int cfd = px_lab_open_or_exit(1);

		close(pipefd[0]);
		if (rt_lock_err(cfd, b, 0, NULL) || write(pipefd[1], "b", 1) != 1)
			_exit(1);
		if (rt_lock_err(cfd, a, 0, NULL))
			_exit(2);
		_exit(rt_unlock_err(cfd, a) || rt_unlock_err(cfd, b) ? 3 : 0);
	}
	close(pipefd[1]);
	if (read(pipefd[0], &c, 1) != 1)
		c = 0;
	close(pipefd[0]);
	check("rtmutex-cycle-other-waits", c == 'b' && px_wait_task_state(pid, 'D', 3000, NULL),
	      "setup: the other task %s, state %c", c == 'b' ? "holds b" : "could not lock b",
	      px_task_state(pid));
	check_errno("rtmutex-cycle-edeadlk", rt_lock_err(fd, b, 0, NULL), EDEADLK);
	check("rtmutex-cycle-held", rt_held_mask(fd) == 1ULL << a, "RTMUTEX_HELD %#" PRIx64,
	      rt_held_mask(fd));
	check_errno("rtmutex-unlock-after-cycle", rt_unlock_err(fd, a), 0);
	status = px_reap(pid, 3000);
	check("rtmutex-cycle-other-gets-it", status == 0, "other task status %d (%s)", status,
	      status == 1 ? "could not lock b" : status == 2 ? "could not lock a" :
	      status == 3 ? "could not unlock" : "hung");
	check_rt_free("rtmutex-cycle-a", a);
	check_rt_free("rtmutex-cycle-b", b);
}

/*
 * The holder takes @m, then shares its file table with a new task
 * (clone(CLONE_FILES)).  If @close_shared, that task closes the file: the
 * last close, not by the holder, which must leave @m held (only the holder
 * may unlock an rt_mutex) until the holder exits; else the holder exits
 * with the table still shared.  Either way a waiter behind the holder
 * gets @m within 1 s of the holder's exit.
 */
static void test_rt_shared_holder(int m, bool close_shared)
{
	const char *n = close_shared ? "rtmutex-orphan" : "rtmutex-dead-holder";
	int pipefd[2], status, holder_pid;
	pid_t holder, waiter, keeper = -1;
	char name[64];

	if (pipe(pipefd))
		px_fatal(1, "pipe");
	holder = fork();
	if (!holder) {
		int hfd = px_lab_open_or_exit(1);

		if (rt_lock_err(hfd, m, 0, NULL))
			_exit(1);
		keeper = syscall(SYS_clone, CLONE_FILES | SIGCHLD, NULL, NULL, NULL, NULL);
		if (!keeper) {
			if (close_shared) {
				close(hfd);	/* the file's last close: not the holder's */
				_exit(0);
			}
			pause();	/* keeps the shared table, and hfd, open */
			_exit(0);
		}
		if (keeper > 0 && close_shared && waitpid(keeper, NULL, 0) != keeper)
			keeper = -1;
		if (keeper < 0 || write(pipefd[1], &keeper, sizeof(keeper)) != sizeof(keeper))
			_exit(1);
		pause();	/* until the parent kills it */
		_exit(0);
	}
	if (read(pipefd[0], &keeper, sizeof(keeper)) != sizeof(keeper))
		keeper = -1;
	close(pipefd[0]);
	close(pipefd[1]);
	if (close_shared) {
		holder_pid = rt_state_holder(m);
		snprintf(name, sizeof(name), "%s-still-held", n);
		check(name, keeper > 0 && (holder_pid == -1 || holder_pid == holder),
		      "setup: keeper %d; debugfs holder of %d is %d, want %d", keeper, m,
		      holder_pid, holder);
	}
	waiter = fork();
	if (!waiter) {
		int wfd = px_lab_open_or_exit(1);

		_exit(rt_lock_err(wfd, m, 0, NULL) || rt_unlock_err(wfd, m) ? 1 : 0);
	}
	snprintf(name, sizeof(name), "%s-waiter-waits", n);
	check(name, keeper > 0 && px_wait_task_state(waiter, 'D', 3000, NULL),
	      "setup: keeper %d, waiter state %c", keeper, px_task_state(waiter));
	kill(holder, SIGKILL);
	waitpid(holder, &status, 0);
	status = px_reap(waiter, 1000);
	snprintf(name, sizeof(name), "%s-releases", n);
	check(name, status == 0, "the waiter did not get rt_mutex %d within 1 s of its holder's exit (%s)",
	      m, status == -1 ? "still waiting: killed" : "lock failed");
	if (keeper > 0 && !close_shared)
		kill(keeper, SIGKILL);	/* not our child: init reaps it */
	check_rt_free(n, m);
}

/* The checks with waiters: the waits, the boost, the cycle, dead holders. */
void test_rtmutex_blocking(int fd)
{
	test_rt_waits(fd, base + 3);
	test_rt_boost(fd, base + 4);
	test_rt_cycle(fd, base + 4, base + 5);
	test_rt_shared_holder(base + 3, false);
	test_rt_shared_holder(base + 2, true);
}

/* 1 if the lab has rt_mutexes, else a skip line. */
bool have_rtmutexes(int fd)
{
	uint64_t mask;

	if (!ioctl(fd, PROXYLAB_IOC_RTMUTEX_HELD, &mask))
		return true;
	printf("skip lab/rtmutex - RTMUTEX_HELD: %s (this kernel's lab has no rt_mutexes)\n",
	       ename(errno));
	return false;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * labcheck's checks of the lab's rw_semaphores (kernel patch 0040): their
 * error paths and release rules, and readers waiting behind a writer.
 * Uses lab rwsems base..base+5; labcheck.c runs them after the mutexes'.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/proxylab.h>

#include "pxutil.h"
#include "labcheck.h"

#define RWSEM_STATE_PATH "/sys/kernel/debug/proxylab_rwsem_state"

/* debugfs writer pid and readers of rwsem @idx; false if not there. */
static bool rw_state(int idx, int *writer, int *readers)
{
	FILE *f = fopen(RWSEM_STATE_PATH, "re");
	char line[128];
	int i, w, r;
	long long acq;
	bool found = false;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%d %d %d %lld", &i, &w, &r, &acq) == 4 && i == idx) {
			*writer = w;
			*readers = r;
			found = true;
		}
	fclose(f);
	return found;
}

/*
 * The rwsems' error paths and release rules: as the mutexes', plus the
 * modes (one HELD bit per mode, no interruptible writer, no second hold
 * of one rwsem through one file) and shared holds by two readers.
 */
void test_rwsem_errors(int fd)
{
	int a = base, b = base + 1, c = base + 2, w = 0, r = 0, status;
	pid_t pid;

	check_errno("rwsem-index-16-einval", rw_lock_err(fd, PROXYLAB_NR_RWSEMS, 0, NULL), EINVAL);
	check_errno("rwsem-unlock-index-16-einval", rw_unlock_err(fd, PROXYLAB_NR_RWSEMS), EINVAL);
	check_errno("rwsem-flags-einval", rw_lock_err(fd, a, 1u << 31, NULL), EINVAL);
	check_errno("rwsem-interruptible-writer-einval",
		    rw_lock_err(fd, a, PROXYLAB_LOCK_INTERRUPTIBLE, NULL), EINVAL);
	check_errno("rwsem-both-waits-einval",
		    rw_lock_err(fd, a, PROXYLAB_LOCK_READ | PROXYLAB_LOCK_INTERRUPTIBLE |
				PROXYLAB_LOCK_UNINTERRUPTIBLE, NULL), EINVAL);
	check_rw_free("rwsem-flags-einval", a);
	check_errno("rwsem-unlock-not-held-eperm", rw_unlock_err(fd, a), EPERM);

	/* One bit per mode; a second hold of either mode is EDEADLK. */
	check_errno("rwsem-write", rw_lock_err(fd, a, 0, NULL), 0);
	check_errno("rwsem-read", rw_lock_err(fd, b, PROXYLAB_LOCK_READ, NULL), 0);
	check("rwsem-held", rw_held_mask(fd) == (1ULL << a | 1ULL << (32 + b)),
	      "RWSEM_HELD %#" PRIx64 ", want %#llx", rw_held_mask(fd),
	      1ULL << a | 1ULL << (32 + b));
	check("rwsem-mutex-held-apart", held_mask(fd) == 0, "HELD %#" PRIx64, held_mask(fd));
	check_errno("rwsem-rewrite-edeadlk", rw_lock_err(fd, a, PROXYLAB_LOCK_READ, NULL), EDEADLK);
	check_errno("rwsem-reread-edeadlk", rw_lock_err(fd, b, PROXYLAB_LOCK_READ, NULL), EDEADLK);
	check_errno("rwsem-read-then-write-edeadlk", rw_lock_err(fd, b, 0, NULL), EDEADLK);
	if (rw_state(a, &w, &r))
		check("rwsem-debugfs-writer", w == getpid() && r == 0,
		      "debugfs: writer %d readers %d, want %d and 0", w, r, getpid());
	if (rw_state(b, &w, &r))
		check("rwsem-debugfs-reader", w == 0 && r == 1,
		      "debugfs: writer %d readers %d, want 0 and 1", w, r);

	/* A second reader shares b at once; a child may not unlock a. */
	pid = fork();
	if (!pid) {
		int cfd = px_lab_open_or_exit(1);

		if (rw_unlock_err(fd, a) != EPERM)
			_exit(2);
		_exit(rw_lock_err(cfd, b, PROXYLAB_LOCK_READ, NULL) || rw_unlock_err(cfd, b) ? 1 : 0);
	}
	status = px_reap(pid, 2000);
	check("rwsem-shared-read", status == 0, "child status %d (%s)", status,
	      status == 1 ? "second reader could not lock" :
	      status == 2 ? "foreign UNLOCK did not fail with EPERM" : "hung");
	check_errno("rwsem-unlock-write", rw_unlock_err(fd, a), 0);
	check_errno("rwsem-unlock-read", rw_unlock_err(fd, b), 0);
	check("rwsem-held-empty", rw_held_mask(fd) == 0, "RWSEM_HELD %#" PRIx64, rw_held_mask(fd));
	check_rw_free("rwsem-write", a);
	check_rw_free("rwsem-read", b);

	/* Exit releases both modes; so does close. */
	pid = fork();
	if (!pid) {
		int cfd = px_lab_open_or_exit(1);

		_exit(rw_lock_err(cfd, a, 0, NULL) ||
		      rw_lock_err(cfd, b, PROXYLAB_LOCK_READ, NULL) ? 1 : 0);
	}
	check("rwsem-exit-holding-status", px_reap(pid, 3000) == 0, "child could not lock");
	check_rw_free("rwsem-exit-releases-write", a);
	check_rw_free("rwsem-exit-releases-read", b);
	{
		int cfd = px_lab_open_or_exit(1);

		check_errno("rwsem-lock-before-close", rw_lock_err(cfd, c, PROXYLAB_LOCK_READ, NULL), 0);
		close(cfd);
		check_rw_free("rwsem-close-releases", c);
	}
}

/*
 * A reader waits behind a writer, killably or interruptibly, and gets the
 * rwsem once the writer leaves: the wait proxy execution changes.
 */
void test_rwsem_blocking(int fd)
{
	struct sigaction sa = { .sa_handler = on_usr1 };	/* no SA_RESTART */
	int a = base + 3, b = base + 4, status;
	pid_t pid;

	/* Killed while waiting for read: nothing held, rwsem still the parent's. */
	check_errno("rwsem-write-for-kill", rw_lock_err(fd, a, 0, NULL), 0);
	pid = fork();
	if (!pid) {
		int cfd = px_lab_open_or_exit(1);

		rw_lock_err(cfd, a, PROXYLAB_LOCK_READ, NULL);
		_exit(0);	/* never reached while the parent holds a */
	}
	check("rwsem-reader-blocks-killable", px_wait_task_state(pid, 'D', 3000, NULL),
	      "reader state %c, want D", px_task_state(pid));
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	check("rwsem-reader-killed", WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
	      "status %#x", status);
	check_errno("rwsem-unlock-after-kill", rw_unlock_err(fd, a), 0);
	check_rw_free("rwsem-killed-reader", a);

	/* Interrupted while waiting for read, with PROXYLAB_LOCK_INTERRUPTIBLE. */
	check_errno("rwsem-write-for-interruptible", rw_lock_err(fd, a, 0, NULL), 0);
	pid = fork();
	if (!pid) {
		int cfd = px_lab_open_or_exit(1);

		sigaction(SIGUSR1, &sa, NULL);
		if (rw_lock_err(cfd, a, PROXYLAB_LOCK_READ | PROXYLAB_LOCK_INTERRUPTIBLE,
				NULL) != EINTR)
			_exit(1);
		if (rw_held_mask(cfd))
			_exit(2);
		_exit(blocked_on(cfd) == 1 ? 3 : 0);
	}
	px_wait_task_state(pid, 'S', 3000, NULL);
	px_sleep_ns(50ULL * 1000000);
	kill(pid, SIGUSR1);
	status = px_reap(pid, 3000);
	check("rwsem-read-interruptible-eintr", status == 0, "child status %d (%s)", status,
	      status == 1 ? "RWSEM_LOCK did not return EINTR" : status == 2 ? "rwsem held" :
	      status == 3 ? "stale blocked_on" : "hung or killed");
	check_errno("rwsem-unlock-after-interruptible", rw_unlock_err(fd, a), 0);

	/* A reader gets the rwsem when the writer leaves, having waited. */
	check_errno("rwsem-write-for-wait", rw_lock_err(fd, b, 0, NULL), 0);
	pid = fork();
	if (!pid) {
		int cfd = px_lab_open_or_exit(1);
		uint64_t ns = 0;

		if (rw_lock_err(cfd, b, PROXYLAB_LOCK_READ, &ns))
			_exit(1);
		if (blocked_on(cfd) == 1)
			_exit(3);
		_exit(ns >= 40000000ULL && !rw_unlock_err(cfd, b) ? 0 : 2);
	}
	px_wait_task_state(pid, 'D', 3000, NULL);
	px_sleep_ns(50ULL * 1000000);
	check_errno("rwsem-unlock-for-reader", rw_unlock_err(fd, b), 0);
	status = px_reap(pid, 3000);
	check("rwsem-reader-after-writer", status == 0, "reader status %d (%s)", status,
	      status == 1 ? "RWSEM_LOCK failed" : status == 2 ? "wait_ns under 40 ms" :
	      status == 3 ? "stale blocked_on" : "hung");
	check_rw_free("rwsem-reader-after-writer", b);
}

/* 1 if the lab has rwsems, else a skip line for each kind asked for. */
bool have_rwsems(int fd)
{
	uint64_t mask;

	if (!ioctl(fd, PROXYLAB_IOC_RWSEM_HELD, &mask))
		return true;
	printf("skip lab/rwsem - RWSEM_HELD: %s (a lab without rwsems)\n", ename(errno));
	return false;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * labcheck: what sharing does to lab locks.  Tasks that share one lab
 * file (fork() after open()) must not both wait for one read hold of an
 * rwsem through it (the file tracks one reader per rwsem: the second
 * hold would leak, and writers would wait for good); and a holder that
 * shares its file table with another task (clone() with CLONE_FILES
 * after the lock) releases what it holds when it exits, although its
 * exit closes nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/proxylab.h>

#include "labcheck.h"

/*
 * The child's lab call through @fd: 0 got it, held it 200 ms (long enough
 * for two readers to hold it at once, were both let in) and released it;
 * 10 EBUSY, 1 else.
 */
static int read_once(int fd, int idx)
{
	int err = rw_lock_err(fd, idx, PROXYLAB_LOCK_READ, NULL);

	if (err)
		return err == EBUSY ? 10 : 1;
	px_sleep_ns(200ULL * 1000000);
	return rw_unlock_err(fd, idx) ? 1 : 0;
}

/* @pid's exit code within @ms; -1 if it still runs (left running), -2 if killed. */
static int reap_within(pid_t pid, long ms)
{
	int st;

	for (; ms > 0; ms -= 5) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : -2;
		px_sleep_ns(5ULL * 1000000);
	}
	return -1;
}

void test_shared_file_reads(int fd)
{
	int w = base + 5, shared, status_a, status_b;
	pid_t a, b, c;

	shared = px_lab_open_or_exit(1);
	check_errno("share-write-held", rw_lock_err(fd, w, 0, NULL), 0);
	a = fork();
	if (!a)
		_exit(read_once(shared, w));
	check("share-first-reader-waits", px_wait_task_state(a, 'D', 3000, NULL),
	      "first reader state %c, want D", px_task_state(a));
	b = fork();
	if (!b)
		_exit(read_once(shared, w));
	/*
	 * The second read hold through the same file is refused at once.  One
	 * that waits is left waiting: once the writer leaves, both readers
	 * would hold the rwsem through one file, and what that leaks is for
	 * share-writer-after-readers to find.
	 */
	status_b = reap_within(b, 1000);
	check("share-second-reader-ebusy", status_b == 10,
	      "second reader through the same file: %s", status_b == 0 ? "got a read hold too" :
	      status_b == -1 ? "waited (still waiting after 1 s)" : "failed otherwise");
	check_errno("share-write-unlock", rw_unlock_err(fd, w), 0);
	if (status_b == -1)
		px_reap(b, 3000);
	status_a = px_reap(a, 3000);
	check("share-first-reader-reads", status_a == 0, "first reader status %d", status_a);
	/* Nothing leaked: a writer gets the rwsem at once. */
	c = fork();
	if (!c) {
		int cfd = px_lab_open_or_exit(1);

		_exit(rw_lock_err(cfd, w, 0, NULL) || rw_unlock_err(cfd, w) ? 1 : 0);
	}
	check("share-writer-after-readers", px_reap(c, 1000) == 0,
	      "a writer did not get rwsem %d within 1 s of the readers' exit", w);
	close(shared);
}

/*
 * The holder takes a mutex, then shares its file table with a new task
 * (clone(CLONE_FILES), which keeps the file open), then exits.  A waiter
 * behind it must get the mutex within 1 s of that exit.
 */
void test_dead_holder_shared_files(int m)
{
	int pipefd[2], status;
	pid_t holder, waiter, keeper = -1;

	if (pipe(pipefd))
		px_fatal(1, "pipe");
	holder = fork();
	if (!holder) {
		int hfd = px_lab_open_or_exit(1);

		if (lock_err(hfd, m, 0, NULL))
			_exit(1);
		keeper = syscall(SYS_clone, CLONE_FILES | SIGCHLD, NULL, NULL, NULL, NULL);
		if (!keeper) {
			pause();	/* keeps the shared table, and hfd, open */
			_exit(0);
		}
		if (keeper < 0 || write(pipefd[1], &keeper, sizeof(keeper)) != sizeof(keeper))
			_exit(1);
		pause();	/* until the parent kills it: a dead holder */
		_exit(0);
	}
	if (read(pipefd[0], &keeper, sizeof(keeper)) != sizeof(keeper))
		keeper = -1;
	close(pipefd[0]);
	close(pipefd[1]);
	waiter = fork();
	if (!waiter) {
		int wfd = px_lab_open_or_exit(1);

		_exit(lock_err(wfd, m, 0, NULL) || unlock_err(wfd, m) ? 1 : 0);
	}
	check("dead-holder-waiter-waits", keeper > 0 && px_wait_task_state(waiter, 'D', 3000, NULL),
	      "setup: keeper %d, waiter state %c", keeper, px_task_state(waiter));
	kill(holder, SIGKILL);
	waitpid(holder, &status, 0);
	status = px_reap(waiter, 1000);
	check("dead-holder-releases", status == 0,
	      "the waiter did not get mutex %d within 1 s of its holder's exit (%s)", m,
	      status == -1 ? "still waiting: killed" : "lock failed");
	if (keeper > 0)
		kill(keeper, SIGKILL);	/* not our child: init reaps it */
	check_free("dead-holder", m);
}

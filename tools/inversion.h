/* SPDX-License-Identifier: GPL-2.0 */
/*
 * inversion: shared state of the priority-inversion workloads.
 *
 * Every role (waiter, chain holders, hogs, football teams) is a forked
 * process, so that a holder can live in its own cgroup v2 group; they meet
 * in one MAP_SHARED mapping holding process-shared semaphores, counters
 * and the waiter's samples.  The parent only sets up, watches and reports.
 *
 * One iteration of a lock scenario (depth D holders H0..H(D-1), mutex
 * m(k) = first + k; the waiter wants m(0)):
 *
 *	waiter				holder k
 *	post start[k]	  ------->	LOCK m(k)
 *	wait held[k]	  <-------	post held[k]
 *	post chain_go[k<D-1] ---->	LOCK m(k+1)  (blocks: chain link)
 *	poll /proc: H(k<D-1) in D
 *	post hog_go[h]	  ------->	hogs spin until iter_done or the cap
 *	LOCK m(0) -> wait_ns		tail spins until the waiter is in D,
 *					then SLEEP, BURN
 *					... UNLOCK m(k+1), UNLOCK m(k)
 *	iter_done = 1, UNLOCK m(0)
 *	wait fin[k], hog_fin  <---	post fin[k]
 *
 * So the waiter requests m(0) only once every holder really holds its
 * mutex and every link of the chain is really blocked, and the tail's
 * critical section starts only once the waiter really waits (so no
 * fair-server slot can let it finish early).
 */
#ifndef PX_INVERSION_H
#define PX_INVERSION_H

#include <semaphore.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/proxylab.h>

#define INV_MAX_DEPTH		PROXYLAB_NR_MUTEXES
#define INV_MAX_HOGS		64
#define INV_MAX_TEAM		64	/* football: owners = defense = offense */
#define INV_MAX_SAMPLES		(1u << 20)
#define INV_ERRLEN		256

enum inv_scenario {
	SC_CFS,
	SC_RT,
	SC_DL,
	SC_CHAIN,
	SC_XCPU,
	SC_SLEEP_OWNER,
	SC_FOOTBALL,
};

/* Exit statuses, documented in tools/README.md. */
enum {
	EXIT_OK		= 0,
	EXIT_FAIL	= 1,	/* setup error, kernel error, inconsistency */
	EXIT_USAGE	= 2,
	EXIT_VIOLATION	= 3,	/* football: the ball moved */
	EXIT_BREAK	= 4,	/* --break: an acquire waited too long */
};

struct inv_shared {
	volatile int	stop;		/* everyone: leave at the next check */
	volatile int	iter_done;	/* waiter owns m(0): hogs stop */
	volatile int	kickoff;	/* football: offense may count */
	int		failed;		/* first error wins errmsg */
	char		errmsg[INV_ERRLEN];

	sem_t		ready;		/* each child posts once set up */
	sem_t		go;		/* parent -> waiter/teams: start */
	sem_t		start[INV_MAX_DEPTH];
	sem_t		held[INV_MAX_DEPTH];
	sem_t		chain_go[INV_MAX_DEPTH];
	sem_t		fin[INV_MAX_DEPTH];
	sem_t		hog_go[INV_MAX_HOGS];
	sem_t		hog_fin;

	pid_t		waiter_pid;
	pid_t		holder_pid[INV_MAX_DEPTH];
	uint64_t	holder_acq[INV_MAX_DEPTH];	/* m(k) by holder k */
	uint64_t	chain_acq[INV_MAX_DEPTH];	/* m(k+1) by holder k */
	uint64_t	waiter_acq;
	uint64_t	iterations;			/* completed */
	uint64_t	hog_bursts, hog_capped;
	uint64_t	mlock_failed;			/* children without mlockall() */

	/* football */
	uint64_t	ball;
	uint64_t	owner_acq[INV_MAX_TEAM];
	uint64_t	defense_acq[INV_MAX_TEAM];
	uint64_t	dropped;			/* samples over capacity */

	/* --break: the first acquire over the threshold (broke != 0) */
	int		broke;
	pid_t		break_pid;
	int		break_mutex;
	uint64_t	break_wait_ns;

	uint64_t	nsamples;
	uint64_t	samples[];			/* wait_ns, INV_MAX_SAMPLES */
};

#endif /* PX_INVERSION_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * inversion, football: what the parts of the two lab workloads share.
 *
 * The parts, one file each (flat, like pxpostmortem_*.c):
 *   inversion.c          main and the options of inversion (football too, as
 *                        the `inversion football` compatibility path)
 *   football.c           main and the options of football
 *   inversion_env.c      the run's settings (struct inv_env): defaults, the
 *                        options both programs share, the CPU list checks
 *   inversion_lab.c      /dev/proxylab: open, LOCK/UNLOCK/BURN/SLEEP, the
 *                        debugfs state, --break's trace marker
 *   inversion_roles.c    the lock scenarios' roles: waiter, holders, hogs
 *   inversion_contend.c  the contend scenario: workers hammering a set of
 *                        lab locks (throughput, not an inversion)
 *   football_game.c      football's roles (owners, defense, offense), the
 *                        referee and its part of the verdict
 *   inversion_super.c    the supervisor: shared mapping, children, timeouts,
 *                        RT throttling and the cgroup, the run from setup to
 *                        cleanup
 *   inversion_report.c   the verdict and the output: text, JSON, histogram
 *
 * Every role (waiter, chain holders, hogs, football teams) is a forked
 * process, so that a holder can live in its own cgroup v2 group; they meet
 * in one MAP_SHARED mapping holding process-shared semaphores, counters
 * and the waiter's samples.  The parent only sets up, watches and reports.
 *
 * One iteration of a lock scenario (depth D holders H0..H(D-1), lab lock
 * m(k) = first + k, a mutex or, with --locks, an rwsem that holder k
 * write-holds and the one below it waits for as a writer or a reader, or
 * an rt_mutex; the waiter wants m(0)):
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

#include <argp.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <linux/proxylab.h>

#include "labcompat.h"
#include "pxutil.h"

#define INV_MAX_DEPTH		PROXYLAB_NR_MUTEXES
/* m(k) may be a mutex, an rwsem or an rt_mutex of the same index (--locks). */
_Static_assert(PROXYLAB_NR_RWSEMS >= PROXYLAB_NR_MUTEXES, "fewer lab rwsems than mutexes");
_Static_assert(PROXYLAB_NR_RTMUTEXES >= PROXYLAB_NR_MUTEXES, "fewer lab rt_mutexes than mutexes");
#define INV_MAX_HOGS		64
#define INV_MAX_TEAM		64	/* football: owners = defense = offense */
#define INV_MAX_SAMPLES		(1u << 20)
#define INV_MAX_SHARES		(1u << 16)	/* owner CPU shares kept */
#define INV_MAX_WORKERS		64		/* contend */
#define INV_ERRLEN		256

/* --locks: the type of lab lock m(k), and how the task below waits for it. */
enum inv_lock {
	LK_MUTEX,
	LK_WRITE,	/* an rwsem, waited for as a writer */
	LK_READ,	/* an rwsem, waited for as a reader (held for writing) */
	LK_RTMUTEX,	/* an rt_mutex: priority inheritance, not proxied */
};

enum inv_scenario {
	SC_CFS,
	SC_RT,
	SC_DL,
	SC_CHAIN,
	SC_XCPU,
	SC_SLEEP_OWNER,
	SC_CGWEIGHT,	/* cfs, the waiter in a group of large cpu.weight */
	SC_MIXED,	/* FIFO waiter -> nice-0 owner -> nice-19 tail */
	SC_CONTEND,	/* throughput: workers on a set of locks */
	SC_FOOTBALL,
};

/* Exit statuses, documented in tools/README.md. */
enum {
	EXIT_OK		= 0,
	EXIT_FAIL	= 1,	/* setup error, kernel error, inconsistency */
	EXIT_USAGE	= PX_EXIT_USAGE,	/* 64, tools/README.md "Conventions" */
	EXIT_VIOLATION	= 3,	/* football: the ball moved */
	EXIT_BREAK	= 4,	/* --break: an acquire waited too long */
};

struct inv_shared {
	volatile int	stop;		/* everyone: leave at the next check */
	volatile int	waiter_gone;	/* no more iterations: roles leave */
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

	/*
	 * The owner's CPU share while the waiter waits: the waiter samples
	 * the tail's CPU time (/proc/PID/schedstat) and the clock just
	 * before LOCK, the tail its own just before UNLOCK; share[] holds
	 * (cpu1 - cpu0) / (t1 - t0) in parts per million per iteration.
	 */
	uint64_t	share_t0, share_cpu0;
	bool		share_valid;
	uint64_t	nshares;
	uint32_t	share[INV_MAX_SHARES];

	/* contend */
	uint64_t	worker_ops[INV_MAX_WORKERS];
	uint64_t	contend_ns;			/* first start to last stop */
	uint64_t	claimed;			/* operations claimed (past the limit too) */
	volatile int	workers_in;			/* at the start line */

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

#define STATE_PATH	"/sys/kernel/debug/proxylab_state"
#define RWSEM_STATE_PATH "/sys/kernel/debug/proxylab_rwsem_state"
#define TRACE_MARKER	"/sys/kernel/tracing/trace_marker"
#define TRACING_ON	"/sys/kernel/tracing/tracing_on"
#define NSEC_PER_USEC	1000ULL
#define NSEC_PER_SEC	1000000000ULL

#define FOOTBALL_HELP	"RT invariant: high-priority lock waiters keep their CPUs"

struct scenario_desc {
	const char		*name;
	enum inv_scenario	id;
	const char		*help;
};

/* The run's settings: the options, then the scenario defaults. */
struct inv_env {
	const char	*tool;		/* "inversion" or "football": output, JSON */
	const struct scenario_desc *sc;
	uint64_t	iterations;
	uint64_t	duration_ns;	/* 0: run iterations */
	uint64_t	burn_us, sleep_us, hog_cap_us;
	bool		burn_set, sleep_set, hogs_set, iter_set, cpus_set, depth_set;
	cpu_set_t	cpus;
	int		cpu[2];		/* waiter's, owner's */
	int		hogs, depth, first_mutex;
	enum inv_lock	lock[INV_MAX_DEPTH];	/* m(k)'s type, --locks */
	int		nlocks;			/* entries given, 0: all mutexes */
	bool		any_rwsem, any_rtmutex;
	int		waiter_prio, hog_prio, defense_prio, offense_prio;
	const char	*cgroup;
	int		weight;
	const char	*waiter_cgroup;	/* cgweight */
	int		waiter_weight;
	int		tail_nice;	/* mixed: the last owner's nice */
	int		spinners;	/* mixed: SCHED_OTHER spinners beside the hogs */
	int		workers, set;	/* contend: processes, lab locks */
	const char	*cpu_max;
	uint64_t	dl_runtime_us, dl_deadline_us, dl_period_us;
	bool		keep_throttle, quiet, verbose, fb_float, spread, pinned;
	const char	*json_path, *hist_path;
	uint64_t	timeout_s;
	uint64_t	grace_s;	/* --grace: start-up and exit waits */
	uint64_t	break_ns;	/* --break: 0 = off */
};

extern struct inv_env env;
extern struct inv_shared *sh;
extern FILE *out;		/* human output: stderr when the JSON goes to stdout */
extern volatile sig_atomic_t exiting;

/* Option keys without a short option, of both programs. */
enum option_values {
	OPT_BREAK = 1000,
	OPT_CGROUP,
	OPT_CPU_MAX,
	OPT_DEFENSE_PRIO,
	OPT_DL_DEADLINE,
	OPT_DL_PERIOD,
	OPT_DL_RUNTIME,
	OPT_FIRST_MUTEX,
	OPT_SPREAD,
	OPT_PINNED,
	OPT_FLOAT,
	OPT_GRACE,
	OPT_HIST,
	OPT_HOG_CAP,
	OPT_HOG_PRIO,
	OPT_KEEP_THROTTLE,
	OPT_LOCKS,
	OPT_OFFENSE_PRIO,
	OPT_SET,
	OPT_SPINNERS,
	OPT_TAIL_NICE,
	OPT_THROTTLE,
	OPT_WAITER_CGROUP,
	OPT_WAITER_PRIO,
	OPT_WAITER_WEIGHT,
	OPT_WEIGHT,
};

/* inversion_env.c */
extern const struct argp inv_common_argp;	/* options of both programs */
/* -b, -c, -d for a program's parser (each has its own help text for them). */
error_t inv_parse_run_opt(int key, char *arg, struct argp_state *state);
/* Fills env.cpu[] (the first two CPUs of --cpus) and returns how many CPUs
 * --cpus has; sets *error after an error line for each offline one. */
int inv_check_cpus(int *error);
/* 1 after an error line if mutexes first_mutex.. + @used are not all there. */
int inv_check_mutexes(int used);

/* inversion_lab.c: lab calls fail the calling child (child_fail()). */
/* Also, with --locks rtmutex, that the lab has rt_mutexes. */
void lab_check_device(void);
int lab_open(const char *who);
/* Wait for m(k) as its type says (LK_MUTEX: a lab mutex, as football). */
uint64_t lab_lock(int fd, int idx, enum inv_lock type, const char *who);
/* Hold m(k) exclusively: its holder. */
uint64_t lab_hold(int fd, int idx, enum inv_lock type, const char *who);
void lab_unlock(int fd, int idx, enum inv_lock type, const char *who);
/* m(@idx)'s type, its --locks entry (mutex when beyond the chain). */
enum inv_lock lab_type(int idx);
const char *lab_type_name(enum inv_lock type);
void lab_usecs(int fd, unsigned long req, uint64_t us, const char *who);
bool lab_read_state(uint64_t acquired[], int holder[]);
void lab_open_break_files(void);
void lab_close_break_files(void);
void lab_check_break(int idx, uint64_t ns);

/* inversion_super.c: child side */
void child_fail(const char *fmt, ...)
	__attribute__((noreturn, format(printf, 1, 2)));
void child_exit(void) __attribute__((noreturn));
bool wait_sem(sem_t *s);
bool wait_next(sem_t *s);
bool wait_step(sem_t *s);
void post(sem_t *s);
void pin_or_fail(int cpu, const char *who);
void fifo_or_fail(int prio, const char *who);
void other_or_fail(const char *who);

/* inversion_super.c: parent side */
struct child {
	pid_t	pid;
	char	role[24];
	int	status;
	bool	reaped;
};

extern struct child children[1 + INV_MAX_DEPTH + 2 * INV_MAX_HOGS + 3 * INV_MAX_TEAM];
extern int nchildren;

bool is_rt_family(void);
/* cfs and cgweight: the owner in its own group, spinners, no RT. */
bool is_fair_scenario(void);
void spawn(const char *role, int idx, void (*fn)(int));
bool wait_ready(int n);
bool supervise(uint64_t deadline);
void sleep_ns(uint64_t ns);
void parent_priority(void);
bool rt_throttle_was_set(void);
/* The whole run of @game (run_lock_scenario or run_football), from the
 * device check to the report; @res is initialised (before argp).  Exit status. */
int inv_run(struct px_result *res, bool (*game)(void));

/* inversion_roles.c */
int nth_cpu(int n);		/* the n-th CPU of --cpus, wrapping around */
int owner_cpu(void);
bool burst_hogs(void);
bool run_lock_scenario(void);
/* The owner's CPU share samples (ppm), sorted: p50, min, max, mean. */
void owner_share_summary(double *p50, double *min, double *max, double *mean);

/* inversion_contend.c */
struct verdict;
bool run_contend(void);
bool contend_judge(const struct verdict *v);
void contend_consistency(void);
void contend_json_checks(struct px_json *j);
uint64_t contend_ops(void);

/* football_game.c */
extern const struct argp football_argp;		/* --float, --*-prio */
extern const struct scenario_desc football_scenario;
bool run_football(void);
void football_defaults(void);
/* 1 after an error line if the team of @team CPUs or the priorities are
 * wrong (@team 0: only the priorities, which inversion's scenarios check too). */
int football_check(int team);
uint64_t football_ball(void);

/* inversion_report.c */
struct verdict {
	bool		consistent;
	bool		have_state;
	uint64_t	delta[PROXYLAB_NR_MUTEXES];
	int		left_held;
	uint64_t	want;
};

void json_u64_array(struct px_json *j, const char *key, const uint64_t *v, int n);
void print_header(void);
int inv_report(struct px_result *res, const uint64_t before[], bool have_before,
	       bool supervised, bool kids);

/* football_game.c: its part of the report */
void football_header(void);
bool football_judge(const struct verdict *v);
void football_json_params(struct px_json *j);
void football_json_checks(struct px_json *j);
void football_consistency(void);
void football_result(void);

#endif /* PX_INVERSION_H */

// SPDX-License-Identifier: GPL-2.0
/*
 * inversion, football: the supervisor.  The parent sets the system up (the
 * shared mapping, the cfs owners' cgroup, RT throttling off), forks the
 * roles, watches them (timeout, signals, SIGUSR1 status, a grace time
 * before SIGKILL), puts the system back and hands over to the report.
 * The first half is what every role (child) uses to wait, post and fail.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <semaphore.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "inversion.h"

#define RT_RUNTIME	"/proc/sys/kernel/sched_rt_runtime_us"

struct inv_shared *sh;
FILE *out;
volatile sig_atomic_t exiting;
static volatile sig_atomic_t dump_status;
static size_t sh_size;

struct child children[1 + INV_MAX_DEPTH + 2 * INV_MAX_HOGS + 3 * INV_MAX_TEAM];
int nchildren;

/* sched_rt_runtime_us: -1 for the RT scenarios unless --keep-throttle. */
static char rt_runtime_saved[32];
static bool rt_runtime_changed;		/* for the result file, after the restore */
static bool cgroup_made, waiter_cgroup_made;

bool is_fair_scenario(void)
{
	return env.sc->id == SC_CFS || env.sc->id == SC_CGWEIGHT;
}

/* Scenarios with a SCHED_FIFO (or DEADLINE) task: RT throttling off. */
bool is_rt_family(void)
{
	return !is_fair_scenario() && env.sc->id != SC_CONTEND;
}

/* ------------------------------------------------------------ children */

/* Record the first error for the parent, stop everyone, leave. */
void child_fail(const char *fmt, ...)
{
	va_list ap;

	if (!__atomic_exchange_n(&sh->failed, 1, __ATOMIC_SEQ_CST)) {
		va_start(ap, fmt);
		vsnprintf(sh->errmsg, sizeof(sh->errmsg), fmt, ap);
		va_end(ap);
	}
	sh->stop = 1;
	_exit(EXIT_FAIL);
}

/*
 * A stop takes effect between iterations only: once the waiter started
 * one, every role finishes it, so all counts add up after a Ctrl-C too.
 * wait_sem() returns false on a stop: for the start of the run.
 * wait_next() is for the roles' waits between iterations and returns
 * false once the waiter is gone, not on the stop itself: the waiter may
 * have decided on one more iteration just before the stop and post its
 * start just after, and a role that had left on the stop would leave the
 * waiter waiting for it (seen: a hog gone, the waiter in its last
 * iteration until killed 30 s later).  wait_step() is for the waits
 * inside an iteration and returns false only when a child failed (the
 * parent's timeout kills what never finishes).
 */
static bool wait_slices(sem_t *s, volatile int *leave)
{
	struct timespec ts;

	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += 50 * 1000 * 1000;
		if (ts.tv_nsec >= (long)NSEC_PER_SEC) {
			ts.tv_sec++;
			ts.tv_nsec -= NSEC_PER_SEC;
		}
		/* A post means an iteration started: finish it, stop or not. */
		if (!sem_clockwait(s, CLOCK_MONOTONIC, &ts))
			return true;
		if (errno != ETIMEDOUT && errno != EINTR)
			child_fail("sem_clockwait: %s", strerror(errno));
		if ((leave && *leave) || sh->failed)
			return false;
	}
}

bool wait_sem(sem_t *s)
{
	return wait_slices(s, &sh->stop);
}

bool wait_next(sem_t *s)
{
	return wait_slices(s, &sh->waiter_gone);
}

bool wait_step(sem_t *s)
{
	return wait_slices(s, NULL);
}

void post(sem_t *s)
{
	sem_post(s);
}

void pin_or_fail(int cpu, const char *who)
{
	if (cpu >= 0 && px_pin_self(cpu))
		child_fail("%s: cannot pin to CPU %d: %s", who, cpu, strerror(errno));
}

void fifo_or_fail(int prio, const char *who)
{
	if (px_set_fifo(prio))
		child_fail("%s: cannot set SCHED_FIFO priority %d: %s%s", who, prio,
			   strerror(errno), errno == EPERM ? " (needs root or CAP_SYS_NICE)" : "");
}

void other_or_fail(const char *who)
{
	if (px_set_other(0))
		child_fail("%s: cannot set SCHED_OTHER: %s", who, strerror(errno));
}

void child_exit(void)
{
	_exit(sh->failed ? EXIT_FAIL : EXIT_OK);
}

/* -------------------------------------------------------------- system */

static void rt_throttle_off(void)
{
	char cur[32];

	if (env.keep_throttle || !is_rt_family() ||
	    px_read_line(RT_RUNTIME, cur, sizeof(cur)) || !strcmp(cur, "-1"))
		return;
	if (px_write_str(RT_RUNTIME, "-1")) {
		px_warn("cannot write -1 to %s (RT throttling stays on)", RT_RUNTIME);
		return;
	}
	snprintf(rt_runtime_saved, sizeof(rt_runtime_saved), "%s", cur);
	rt_runtime_changed = true;
}

static void rt_throttle_restore(void)
{
	if (rt_runtime_saved[0] && px_write_str(RT_RUNTIME, rt_runtime_saved))
		px_warn("cannot restore %s to %s", RT_RUNTIME, rt_runtime_saved);
	rt_runtime_saved[0] = '\0';
}

/* Once stopping, let the owners' group run freely so that they can exit. */
static void release_cgroup(void)
{
	if (cgroup_made && (px_cgroup_set(env.cgroup, "cpu.max", "max") ||
			    px_cgroup_set(env.cgroup, "cpu.weight", "100")))
		px_warn("cannot lift the limits of cgroup %s", env.cgroup);
}

/* The owner's group (cfs, cgweight) and the waiter's (cgweight). */
static void cgroup_setup(void)
{
	if (!is_fair_scenario())
		return;
	px_cgroup_setup_or_die(env.sc->name, env.cgroup, env.weight, env.cpu_max);
	cgroup_made = true;
	if (env.sc->id != SC_CGWEIGHT)
		return;
	px_cgroup_setup_or_die(env.sc->name, env.waiter_cgroup, env.waiter_weight, NULL);
	waiter_cgroup_made = true;
}

static void cleanup_system(void)
{
	rt_throttle_restore();
	if (cgroup_made && px_cgroup_destroy(env.cgroup))
		px_warn("cannot remove cgroup %s", env.cgroup);
	if (waiter_cgroup_made && px_cgroup_destroy(env.waiter_cgroup))
		px_warn("cannot remove cgroup %s", env.waiter_cgroup);
	cgroup_made = waiter_cgroup_made = false;
}

static void *map_shared(void)
{
	void *p;

	sh_size = sizeof(*sh) + INV_MAX_SAMPLES * sizeof(uint64_t);
	p = mmap(NULL, sh_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		px_fatal(EXIT_FAIL, "mmap %zu bytes", sh_size);
	return p;
}

static void init_sems(void)
{
	int i;

	sem_init(&sh->ready, 1, 0);
	sem_init(&sh->go, 1, 0);
	sem_init(&sh->hog_fin, 1, 0);
	for (i = 0; i < INV_MAX_DEPTH; i++) {
		sem_init(&sh->start[i], 1, 0);
		sem_init(&sh->held[i], 1, 0);
		sem_init(&sh->chain_go[i], 1, 0);
		sem_init(&sh->fin[i], 1, 0);
	}
	for (i = 0; i < INV_MAX_HOGS; i++)
		sem_init(&sh->hog_go[i], 1, 0);
}


/* -------------------------------------------------------------- parent */

void spawn(const char *role, int idx, void (*fn)(int))
{
	struct child *c = &children[nchildren];
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		sh->stop = 1;
		px_fatal(EXIT_FAIL, "fork");
	}
	if (!pid) {
		signal(SIGINT, SIG_IGN);	/* the parent decides */
		signal(SIGUSR1, SIG_IGN);
		/*
		 * Fault in and lock everything now: a first touch of a page
		 * of the shared mapping is a shmem fault that may sleep on
		 * the folio lock, and a defense task sleeping there lets the
		 * offense run (football) or adds to a latency.
		 */
		if (mlockall(MCL_CURRENT | MCL_FUTURE))
			__atomic_fetch_add(&sh->mlock_failed, 1, __ATOMIC_RELAXED);
		signal(SIGTERM, SIG_DFL);
		fn(idx);
		child_exit();
	}
	c->pid = pid;
	snprintf(c->role, sizeof(c->role), idx >= 0 ? "%s %d" : "%s", role, idx);
	nchildren++;
}

/*
 * Reap what exited; true once all have.  A failed child stops the rest.
 * One killed by a signal (SIGKILL from outside) never finishes the
 * iteration its peers wait in: fail the run, so that their steps give up
 * now rather than at the end of the grace time.
 */
static bool reap(void)
{
	int i, status, left = 0;

	for (i = 0; i < nchildren; i++) {
		struct child *c = &children[i];

		if (c->reaped)
			continue;
		if (waitpid(c->pid, &status, WNOHANG) == c->pid) {
			c->reaped = true;
			c->status = status;
			if (WIFSIGNALED(status) &&
			    !__atomic_exchange_n(&sh->failed, 1, __ATOMIC_SEQ_CST))
				snprintf(sh->errmsg, sizeof(sh->errmsg), "%s (pid %d) killed by signal %d",
					 c->role, c->pid, WTERMSIG(status));
			if (!WIFEXITED(status) || WEXITSTATUS(status))
				sh->stop = 1;
			continue;
		}
		left++;
	}
	return !left;
}

static void kill_children(void)
{
	int i;

	for (i = 0; i < nchildren; i++)
		if (!children[i].reaped)
			kill(children[i].pid, SIGKILL);
}

/*
 * Say what each child still alive is doing (run state, where it sleeps in
 * the kernel): a child stuck on a lab mutex is a finding, one still
 * exiting on a starved vCPU is not.
 */
static void report_children(void)
{
	char path[64], line[256], wchan[64], cpu[32];
	uint64_t ran;
	int i;

	for (i = 0; i < nchildren; i++) {
		struct child *c = &children[i];
		FILE *f;

		if (c->reaped)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/wchan", c->pid);
		if (px_read_line(path, wchan, sizeof(wchan)))
			wchan[0] = '\0';
		/*
		 * Starved or stuck?  A runnable task that got little CPU is
		 * the first; one asleep in the kernel, the second.
		 */
		snprintf(path, sizeof(path), "/proc/%d/sched", c->pid);
		if (px_proc_sched_ns(path, "se.sum_exec_runtime", &ran))
			snprintf(cpu, sizeof(cpu), "?");
		else
			snprintf(cpu, sizeof(cpu), "%.1f ms", ran / 1e6);
		px_warnx("  %s (pid %d): state %c, wchan %s, CPU time %s, on CPU %d", c->role,
			 c->pid, px_task_state(c->pid), wchan[0] ? wchan : "-", cpu,
			 px_task_cpu(c->pid));
		/* Its kernel stack (root only): in a lab call, or in user space? */
		snprintf(path, sizeof(path), "/proc/%d/stack", c->pid);
		f = fopen(path, "re");
		if (f) {
			int n = 0;

			while (n++ < 8 && fgets(line, sizeof(line), f))
				px_warnx("    %s", strtok(line, "\n") ?: "");
			fclose(f);
		}
	}
}

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		dump_status = 1;
	else if (sig != SIGCHLD)	/* that one only ends supervise_nap() */
		exiting = 1;
}

/* SIGUSR1: one progress line on stderr, as cyclictest does. */
static void print_status(uint64_t start)
{
	px_warnx("status: %.1f s, iterations %" PRIu64 ", samples %" PRIu64
		 ", hog bursts %" PRIu64 " (capped %" PRIu64 "), ball %" PRIu64 "%s",
		 (double)(px_now_ns() - start) / NSEC_PER_SEC, sh->iterations,
		 sh->nsamples, sh->hog_bursts, sh->hog_capped, sh->ball,
		 sh->stop ? ", stopping" : "");
}

void sleep_ns(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / NSEC_PER_SEC), (long)(ns % NSEC_PER_SEC) };

	while (nanosleep(&ts, &ts) && errno == EINTR && !exiting)
		;
}

/*
 * The supervisor's wait between two checks: until @until (ns, px_now_ns())
 * but at most SUPERVISE_NAP_NS, or until a child exits or a signal comes.
 * It runs at SCHED_FIFO 90, above everything in the run: a periodic
 * wakeup preempts a waiter or an owner wherever it lands, so it wakes for
 * events, not to poll.  The signals are blocked between two waits and let
 * in only inside ppoll(), so none is lost between a check and the wait.
 */
#define SUPERVISE_NAP_NS	(250 * 1000 * 1000ULL)

static void supervise_nap(uint64_t until, const sigset_t *waiting)
{
	uint64_t now = px_now_ns(), ns = SUPERVISE_NAP_NS;
	struct timespec ts;

	if (until > now && until - now < ns)
		ns = until - now;
	else if (until <= now)
		ns = 0;
	ts.tv_sec = (time_t)(ns / NSEC_PER_SEC);
	ts.tv_nsec = (long)(ns % NSEC_PER_SEC);
	ppoll(NULL, 0, &ts, waiting);
}

bool supervise(uint64_t deadline)
{
	uint64_t grace = 0, stopped = 0, start = px_now_ns();
	sigset_t events, waiting;
	bool ok = true;

	sigemptyset(&events);
	sigaddset(&events, SIGCHLD);
	sigaddset(&events, SIGUSR1);
	sigaddset(&events, SIGINT);
	sigaddset(&events, SIGTERM);
	sigprocmask(SIG_BLOCK, &events, &waiting);
	while (!reap()) {
		if (dump_status) {
			dump_status = 0;
			print_status(start);
		}
		if ((exiting || px_now_ns() > deadline) && !sh->stop) {
			if (!exiting) {
				px_warnx("timeout after %" PRIu64 " s: stopping", env.timeout_s);
				ok = false;
			}
			sh->stop = 1;
		}
		/*
		 * The grace time is for a hang, not for a slow exit: on a
		 * debug kernel with 16 vCPUs on two host cores, children that
		 * saw the stop have been seen still exiting after 10 s.
		 */
		if (sh->stop && !grace) {
			release_cgroup();
			stopped = px_now_ns();
			grace = stopped + env.grace_s * NSEC_PER_SEC +
				4 * (env.burn_us + env.sleep_us + env.hog_cap_us) * NSEC_PER_USEC;
		}
		if (grace && px_now_ns() > grace && !reap()) {
			px_warnx("children still running %" PRIu64 " s after the stop: killing them",
				 (uint64_t)((px_now_ns() - stopped) / NSEC_PER_SEC));
			report_children();
			kill_children();
			ok = false;
			grace = UINT64_MAX;
		}
		/* (sh->stop, set by a child, is seen at its exit at the latest.) */
		supervise_nap(grace ? grace : deadline, &waiting);
	}
	sigprocmask(SIG_SETMASK, &waiting, NULL);
	return ok;
}

/* Wait until all @n children posted ready (or one failed). */
bool wait_ready(int n)
{
	uint64_t end = px_now_ns() + env.grace_s * NSEC_PER_SEC;
	struct timespec ts = { 0, 0 };

	while (n > 0) {
		if (!sem_trywait(&sh->ready)) {
			n--;
			continue;
		}
		if (sh->stop || exiting || reap())
			return false;
		if (px_now_ns() > end) {
			if (!__atomic_exchange_n(&sh->failed, 1, __ATOMIC_SEQ_CST))
				snprintf(sh->errmsg, sizeof(sh->errmsg),
					 "%d task(s) not ready after %" PRIu64 " s (CPUs overloaded? --grace)",
					 n, env.grace_s);
			px_warnx("%d task(s) not ready after %" PRIu64 " s; the children:", n,
				 env.grace_s);
			report_children();
			return false;
		}
		ts.tv_nsec = 1000000;
		nanosleep(&ts, NULL);
	}
	return true;
}

static bool children_ok(void)
{
	bool ok = true;
	int i;

	for (i = 0; i < nchildren; i++) {
		int s = children[i].status;

		if (WIFEXITED(s) && !WEXITSTATUS(s))
			continue;
		ok = false;
		if (WIFSIGNALED(s))
			px_warnx("%s (pid %d) killed by signal %d", children[i].role,
				 children[i].pid, WTERMSIG(s));
		else if (!sh->failed)
			px_warnx("%s (pid %d) exited with status %d", children[i].role,
				 children[i].pid, WEXITSTATUS(s));
	}
	return ok;
}

/*
 * The parent referees: above everything it starts, if it may, and off the
 * scenario's CPUs when there is another one online.  Its wakeups
 * (supervise_nap()) would otherwise preempt the waiter or the owner
 * inside the measured window, and a preempted FIFO waiter that may run
 * on the owner's CPU too (xcpu, chain --spread) is pushed there by the RT
 * balancer before it blocks: a cross-CPU iteration that is a same-CPU
 * one.  Football's referee stays on the pitch: it plays on every CPU by
 * design.
 */
void parent_priority(void)
{
	cpu_set_t online, away;

	if (is_rt_family() && px_set_fifo(90) && env.sc->id == SC_FOOTBALL)
		px_fatal(EXIT_FAIL, "football: the referee needs SCHED_FIFO 90");
	if (env.sc->id == SC_FOOTBALL || px_online_cpus(&online))
		return;
	CPU_XOR(&away, &online, &env.cpus);
	CPU_AND(&away, &away, &online);
	/* (Refused, e.g. outside a cpuset: it referees from where it is.) */
	if (CPU_COUNT(&away))
		px_pin_self_set(&away);
}

bool rt_throttle_was_set(void)
{
	return rt_runtime_changed;
}

/* ----------------------------------------------------------------- run */

int inv_run(struct px_result *res, bool (*game)(void))
{
	uint64_t before[PROXYLAB_NR_MUTEXES] = { 0 };
	int before_holder[PROXYLAB_NR_MUTEXES];
	struct sigaction sa = { 0 };
	bool have_before, supervised, kids;
	int err;

	out = env.json_path && !strcmp(env.json_path, "-") ? stderr : stdout;
	lab_check_device();
	lab_open_break_files();

	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	/* A child's exit wakes the supervisor; other calls restart. */
	sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
	sigaction(SIGCHLD, &sa, NULL);
	sh = map_shared();
	init_sems();
	have_before = lab_read_state(before, before_holder);
	cgroup_setup();
	rt_throttle_off();
	print_header();

	supervised = game();
	kids = children_ok();
	if (sh->mlock_failed)
		px_warnx("%" PRIu64 " processes could not mlockall(): page faults may add sleeps",
			 sh->mlock_failed);
	cleanup_system();
	if (sh->failed)
		px_warnx("%s", sh->errmsg);

	err = inv_report(res, before, have_before, supervised, kids);
	px_result_free(res);
	munmap(sh, sh_size);
	lab_close_break_files();
	return err;
}

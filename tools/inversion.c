// SPDX-License-Identifier: GPL-2.0
/*
 * inversion - priority-inversion workloads on the proxylab kernel mutexes.
 *
 * Each subcommand builds one kind of inversion around /dev/proxylab and
 * records every acquire latency of the waiter (the kernel's wait_ns,
 * request -> owned).  See inversion.h for the roles and the per-iteration
 * handshake, tools/README.md for the result file.
 */
#include <argp.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "inversion.h"
#include "pxutil.h"

#define DEV_PATH	"/dev/proxylab"
#define STATE_PATH	"/sys/kernel/debug/proxylab_state"
#define RT_RUNTIME	"/proc/sys/kernel/sched_rt_runtime_us"
#define TRACE_MARKER	"/sys/kernel/tracing/trace_marker"
#define TRACING_ON	"/sys/kernel/tracing/tracing_on"
#define NSEC_PER_USEC	1000ULL
#define NSEC_PER_SEC	1000000000ULL

static const struct scenario_desc {
	const char		*name;
	enum inv_scenario	id;
	const char		*help;
} scenarios[] = {
	{ "cfs",	 SC_CFS,	 "owner in a cgroup with tiny cpu.weight, spinners at normal weight" },
	{ "rt",		 SC_RT,		 "SCHED_FIFO waiter, SCHED_OTHER owner, SCHED_FIFO mid-priority hogs" },
	{ "dl",		 SC_DL,		 "SCHED_DEADLINE waiter, SCHED_OTHER owner, SCHED_FIFO hogs" },
	{ "chain",	 SC_CHAIN,	 "like rt, through a blocked_on chain of --depth owners" },
	{ "xcpu",	 SC_XCPU,	 "like rt, owner and hogs on another CPU than the waiter (which may run on both)" },
	{ "sleep-owner", SC_SLEEP_OWNER, "like rt, the owner sleeps (then burns) while holding" },
	{ "football",	 SC_FOOTBALL,	 "RT invariant: high-priority lock waiters keep their CPUs" },
};

static struct env {
	const struct scenario_desc *sc;
	uint64_t	iterations;
	uint64_t	duration_ns;	/* 0: run iterations */
	uint64_t	burn_us, sleep_us, hog_cap_us;
	bool		burn_set, sleep_set, hogs_set, iter_set, cpus_set;
	cpu_set_t	cpus;
	int		cpu[2];		/* waiter's, owner's */
	int		hogs, depth, first_mutex;
	int		waiter_prio, hog_prio, defense_prio, offense_prio;
	const char	*cgroup;
	int		weight;
	const char	*cpu_max;
	uint64_t	dl_runtime_us, dl_deadline_us, dl_period_us;
	bool		keep_throttle, quiet, verbose, fb_float, spread, pinned;
	const char	*json_path, *hist_path;
	uint64_t	timeout_s;
	uint64_t	break_ns;	/* --break: 0 = off */
} env = {
	.iterations	= 100,
	.hog_cap_us	= 100000,
	.depth		= 3,
	.waiter_prio	= 80,
	.hog_prio	= 50,
	.defense_prio	= 60,
	.offense_prio	= 40,
	.cgroup		= "pxinv-bg",
	.weight		= 1,
	.dl_runtime_us	= 5000,
	.dl_deadline_us	= 20000,
	.dl_period_us	= 20000,
	.timeout_s	= 120,
};

static struct inv_shared *sh;
static FILE *out;		/* human output: stderr when the JSON goes to stdout */
static size_t sh_size;
static volatile sig_atomic_t exiting, dump_status;
static int marker_fd = -1, tracing_on_fd = -1;	/* --break, opened by the parent */

const char *argp_program_version = "inversion 1";
static const char doc[] =
"Priority-inversion workloads on /dev/proxylab (CONFIG_PROXYLAB).\n"
"\n"
"USAGE: inversion SCENARIO [OPTIONS]\n"
"\n"
"Scenarios:\n"
"  cfs          owner in a cgroup of tiny cpu.weight, spinners at normal weight\n"
"  rt           SCHED_FIFO waiter, SCHED_OTHER owner, mid-priority FIFO hogs\n"
"  dl           SCHED_DEADLINE waiter, SCHED_OTHER owner, SCHED_FIFO hogs\n"
"  chain        like rt, through a blocked_on chain of --depth owners\n"
"  xcpu         like rt, owner and hogs on another CPU than the waiter,\n"
"               which starts on the first CPU but may run on both\n"
"  sleep-owner  like rt, the owner sleeps (then burns) while holding\n"
"  football     RT invariant: high-priority lock waiters keep their CPUs\n"
"\n"
"Prints the waiter's acquire latency (min p50 p90 p99 p99.9 max count) and a\n"
"consistency line; -o writes the JSON result, --hist the gnuplot histogram\n"
"(format: tools/README.md).  Exit: 0 ok, 1 error or inconsistency, 2 usage,\n"
"3 football invariant violated, 4 --break tripped.\n"
"\n"
"--break USEC: the first acquire that waited longer than USEC writes the trace\n"
"marker \"inversion break: pid=PID mutex=IDX wait_ns=NS break_ns=NS\" to\n"
TRACE_MARKER ", writes 0 to tracing_on and ends the\n"
"run after that iteration (results still written; exit 4).  For a postmortem:\n"
"    trace-cmd record -e sched_proxy -e sched:sched_switch\n"
"        -e sched:sched_wakeup -e sched:sched_migrate_task\n"
"        inversion sleep-owner --break 20000\n"
"then pxpostmortem trace.dat (it needs all of these events).\n"
"\n"
"EXAMPLES:\n"
"    inversion rt                      # 100 iterations, 1 ms burn, 1 hog\n"
"    inversion cfs -n 20 --throttle    # owner group also under cpu.max\n"
"    inversion chain -D 4 -o c.json    # chain of 4 owners, JSON result\n"
"    inversion chain -D 3 -c 0-3 --spread  # owner k on CPU k+1\n"
"    inversion xcpu -c 0,1 --hist h.txt\n"
"    inversion football -d 3s          # exit 3 if the ball moved\n"
"    inversion rt --break 5000         # stop the trace at a wait > 5 ms\n"
"\n"
"Options:";

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
	OPT_HIST,
	OPT_HOG_CAP,
	OPT_HOG_PRIO,
	OPT_KEEP_THROTTLE,
	OPT_OFFENSE_PRIO,
	OPT_THROTTLE,
	OPT_WAITER_PRIO,
	OPT_WEIGHT,
};

static const struct argp_option opts[] = {
	{ "break", OPT_BREAK, "USEC", 0, "stop at the first acquire that waited longer than USEC: trace marker, tracing off, exit 4", 0 },
	{ "burn", 'b', "USEC", 0, "CPU time the (last) owner burns while holding (default 1000)", 0 },
	{ "cgroup", OPT_CGROUP, "NAME", 0, "cfs: cgroup of the owner (default pxinv-bg)", 0 },
	{ "cpu-max", OPT_CPU_MAX, "\"QUOTA PERIOD\"", 0, "cfs: cpu.max of the owner's group (implies --throttle)", 0 },
	{ "cpus", 'c', "LIST", 0, "CPUs: the first for waiter, owner and hogs; xcpu puts owner and hogs on the second (default 0, xcpu 0,1, football all)", 0 },
	{ "defense-prio", OPT_DEFENSE_PRIO, "PRIO", 0, "football: defense priority (default 60)", 0 },
	{ "depth", 'D', "N", 0, "chain: owners in the chain, 1..16 (default 3)", 0 },
	{ "dl-deadline", OPT_DL_DEADLINE, "USEC", 0, "dl: waiter's relative deadline (default 20000)", 0 },
	{ "dl-period", OPT_DL_PERIOD, "USEC", 0, "dl: waiter's period (default 20000)", 0 },
	{ "dl-runtime", OPT_DL_RUNTIME, "USEC", 0, "dl: waiter's runtime (default 5000)", 0 },
	{ "duration", 'd', "TIME", 0, "run this long instead of -n (e.g. 5s, 500ms; default unit s); football: game length (default 3s)", 0 },
	{ "float", OPT_FLOAT, NULL, 0, "football: let every task run on any of the CPUs (default: team k on the k-th CPU)", 0 },
	{ "spread", OPT_SPREAD, NULL, 0, "chain: owner k starts on the (k+1)-th CPU of --cpus (wrapping), hogs with the last (pinned) owner; the waiter and the blocked owners may run on all of them", 0 },
	{ "pinned", OPT_PINNED, NULL, 0, "xcpu, chain --spread: the waiter and every owner stay pinned to their own CPU (blocked tasks only lend their scheduling context, so proxy execution may still move them)", 0 },
	{ "first-mutex", OPT_FIRST_MUTEX, "IDX", 0, "lowest lab mutex to use (default 0)", 0 },
	{ "hist", OPT_HIST, "FILE", 0, "write the gnuplot latency histogram to FILE", 0 },
	{ "hog-cap", OPT_HOG_CAP, "USEC", 0, "longest hog burst per iteration (default 100000)", 0 },
	{ "hog-prio", OPT_HOG_PRIO, "PRIO", 0, "SCHED_FIFO priority of the hogs (default 50)", 0 },
	{ "hogs", 'H', "N", 0, "hogs/spinners (default 2 for cfs, else 1)", 0 },
	{ "iterations", 'n', "N", 0, "acquisitions to measure (default 100, cfs 20)", 0 },
	{ "keep-throttle", OPT_KEEP_THROTTLE, NULL, 0, "leave sched_rt_runtime_us alone (default: -1 during RT runs)", 0 },
	{ "offense-prio", OPT_OFFENSE_PRIO, "PRIO", 0, "football: offense priority (default 40)", 0 },
	{ "output", 'o', "FILE", 0, "write the JSON result to FILE (- for stdout)", 0 },
	{ "quiet", 'q', NULL, 0, "print only the summary table and the consistency line", 0 },
	{ "sleep", 's', "USEC", 0, "sleep-owner: time the owner sleeps while holding (default 1000)", 0 },
	{ "throttle", OPT_THROTTLE, NULL, 0, "cfs: put the owner's group under cpu.max \"1000 100000\"", 0 },
	{ "timeout", 't', "SEC", 0, "give up after SEC seconds (default 120)", 0 },
	{ "verbose", 'v', NULL, 0, "print each iteration's latency", 0 },
	{ "waiter-prio", OPT_WAITER_PRIO, "PRIO", 0, "SCHED_FIFO priority of the waiter (default 80)", 0 },
	{ "weight", OPT_WEIGHT, "W", 0, "cfs: cpu.weight of the owner's group, 1..10000 (default 1)", 0 },
	{ NULL, 'h', NULL, OPTION_HIDDEN, "Show the full help", 0 },
	{},
};

static void check_env(struct argp_state *state);

static const struct scenario_desc *find_scenario(const char *name)
{
	size_t i;

	for (i = 0; i < PX_ARRAY_SIZE(scenarios); i++)
		if (!strcmp(scenarios[i].name, name))
			return &scenarios[i];
	return NULL;
}

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	const uint64_t max_us = PROXYLAB_MAX_USECS;

	switch (key) {
	case 'b':
		env.burn_us = px_arg_u64(state, "burn time", arg, 0, max_us);
		env.burn_set = true;
		break;
	case 'c':
		if (px_parse_cpulist(arg, &env.cpus)) {
			fprintf(stderr, "invalid CPU list: %s\n", arg);
			argp_usage(state);
		}
		env.cpus_set = true;
		break;
	case 'd':
		env.duration_ns = px_arg_duration_ns(state, "duration", arg, NSEC_PER_SEC,
						     1, 3600 * NSEC_PER_SEC);
		break;
	case 'D':
		env.depth = px_arg_long(state, "depth", arg, 1, INV_MAX_DEPTH);
		break;
	case 'H':
		env.hogs = px_arg_long(state, "number of hogs", arg, 0, INV_MAX_HOGS);
		env.hogs_set = true;
		break;
	case 'n':
		env.iterations = px_arg_u64(state, "iterations", arg, 1, INV_MAX_SAMPLES);
		env.iter_set = true;
		break;
	case 'o':
		env.json_path = arg;
		break;
	case 'q':
		env.quiet = true;
		break;
	case 's':
		env.sleep_us = px_arg_u64(state, "sleep time", arg, 0, max_us);
		env.sleep_set = true;
		break;
	case 't':
		env.timeout_s = px_arg_u64(state, "timeout", arg, 1, 86400);
		break;
	case 'v':
		env.verbose = true;
		break;
	case OPT_BREAK:
		env.break_ns = px_arg_u64(state, "break threshold", arg, 1,
					  3600 * 1000000ULL) * NSEC_PER_USEC;
		break;
	case OPT_CGROUP:
		env.cgroup = arg;
		break;
	case OPT_CPU_MAX:
		env.cpu_max = arg;
		break;
	case OPT_DEFENSE_PRIO:
		env.defense_prio = px_arg_long(state, "defense priority", arg, 1, 98);
		break;
	case OPT_DL_DEADLINE:
		env.dl_deadline_us = px_arg_u64(state, "deadline", arg, 100, max_us);
		break;
	case OPT_DL_PERIOD:
		env.dl_period_us = px_arg_u64(state, "period", arg, 100, max_us);
		break;
	case OPT_DL_RUNTIME:
		env.dl_runtime_us = px_arg_u64(state, "runtime", arg, 100, max_us);
		break;
	case OPT_FIRST_MUTEX:
		env.first_mutex = px_arg_long(state, "mutex index", arg, 0,
					      PROXYLAB_NR_MUTEXES - 1);
		break;
	case OPT_FLOAT:
		env.fb_float = true;
		break;
	case OPT_SPREAD:
		env.spread = true;
		break;
	case OPT_PINNED:
		env.pinned = true;
		break;
	case OPT_HIST:
		env.hist_path = arg;
		break;
	case OPT_HOG_CAP:
		env.hog_cap_us = px_arg_u64(state, "hog cap", arg, 1, max_us);
		break;
	case OPT_HOG_PRIO:
		env.hog_prio = px_arg_long(state, "hog priority", arg, 1, 98);
		break;
	case OPT_KEEP_THROTTLE:
		env.keep_throttle = true;
		break;
	case OPT_OFFENSE_PRIO:
		env.offense_prio = px_arg_long(state, "offense priority", arg, 1, 98);
		break;
	case OPT_THROTTLE:
		if (!env.cpu_max)
			env.cpu_max = "1000 100000";
		break;
	case OPT_WAITER_PRIO:
		env.waiter_prio = px_arg_long(state, "waiter priority", arg, 2, 98);
		break;
	case OPT_WEIGHT:
		env.weight = px_arg_long(state, "cpu.weight", arg, 1, 10000);
		break;
	case 'h':
		argp_state_help(state, stderr, ARGP_HELP_STD_HELP);
		break;
	case ARGP_KEY_ARG:
		if (state->arg_num > 0) {
			fprintf(stderr, "unexpected argument: %s\n", arg);
			argp_usage(state);
		}
		env.sc = find_scenario(arg);
		if (!env.sc) {
			fprintf(stderr, "invalid scenario: %s\n", arg);
			argp_usage(state);
		}
		break;
	case ARGP_KEY_END:
		if (!env.sc) {
			fprintf(stderr, "missing scenario\n");
			argp_usage(state);
		}
		check_env(state);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static bool is_rt_family(void)
{
	return env.sc->id != SC_CFS;
}

/*
 * Scenario defaults for what the user did not set, then the checks that
 * need all options: one error line and the usage, once.
 */
static void check_env(struct argp_state *state)
{
	enum inv_scenario id = env.sc->id;
	cpu_set_t online;
	int cpu, n = 0, error = 0;

	if (!env.burn_set)
		env.burn_us = id == SC_SLEEP_OWNER ? 200 : id == SC_FOOTBALL ? 500 : 1000;
	if (!env.sleep_set)
		env.sleep_us = id == SC_SLEEP_OWNER ? 1000 : 0;
	if (!env.hogs_set)
		env.hogs = id == SC_CFS ? 2 : 1;
	if (!env.iter_set && id == SC_CFS)
		env.iterations = 20;
	if (id == SC_FOOTBALL && !env.duration_ns)
		env.duration_ns = 3 * NSEC_PER_SEC;
	if (id != SC_CHAIN)
		env.depth = 1;
	if (!env.cpus_set) {
		CPU_ZERO(&env.cpus);
		if (id == SC_FOOTBALL && !px_online_cpus(&online))
			env.cpus = online;
		CPU_SET(0, &env.cpus);
		if (id == SC_XCPU)
			CPU_SET(1, &env.cpus);
	}
	if (px_online_cpus(&online))
		CPU_ZERO(&online);
	env.cpu[0] = env.cpu[1] = -1;
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &env.cpus))
			continue;
		if (CPU_COUNT(&online) && !CPU_ISSET(cpu, &online)) {
			fprintf(stderr, "CPU %d is not online\n", cpu);
			error = 1;
		}
		if (n < 2)
			env.cpu[n] = cpu;
		n++;
	}
	if (env.spread && (id != SC_CHAIN || n < 2)) {
		fprintf(stderr, "--spread is for chain, with at least two CPUs in --cpus\n");
		error = 1;
	}
	if (env.pinned && id != SC_XCPU && !env.spread) {
		fprintf(stderr, "--pinned is for xcpu and chain --spread\n");
		error = 1;
	}
	if (id == SC_XCPU && n < 2) {
		fprintf(stderr, "xcpu needs two CPUs in --cpus\n");
		error = 1;
	}
	if (id == SC_FOOTBALL && n > INV_MAX_TEAM) {
		fprintf(stderr, "football: at most %d CPUs\n", INV_MAX_TEAM);
		error = 1;
	}
	if (env.first_mutex + (id == SC_FOOTBALL ? n : env.depth) > PROXYLAB_NR_MUTEXES) {
		fprintf(stderr, "--first-mutex %d leaves too few of the %d lab mutexes\n",
			env.first_mutex, PROXYLAB_NR_MUTEXES);
		error = 1;
	}
	if (env.cpu_max && id != SC_CFS)
		px_warnx("--cpu-max/--throttle only apply to cfs; ignored");
	if (id == SC_DL && (env.dl_runtime_us > env.dl_deadline_us ||
			    env.dl_deadline_us > env.dl_period_us)) {
		fprintf(stderr, "dl: need runtime <= deadline <= period\n");
		error = 1;
	}
	if (env.hog_prio >= env.waiter_prio) {
		fprintf(stderr, "--hog-prio must be below --waiter-prio\n");
		error = 1;
	}
	if (env.offense_prio >= env.defense_prio) {
		fprintf(stderr, "--offense-prio must be below --defense-prio\n");
		error = 1;
	}
	if (error)
		argp_usage(state);
}

/* ------------------------------------------------------------ children */

/* Record the first error for the parent, stop everyone, leave. */
static void __attribute__((noreturn, format(printf, 1, 2))) child_fail(const char *fmt, ...)
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
 * wait_sem() is for the waits between iterations and returns false on a
 * stop; wait_step() is for those inside one and returns false only when
 * a child failed (the parent's timeout kills what never finishes).
 */
static bool wait_slices(sem_t *s, bool stoppable)
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
		if ((stoppable && sh->stop) || sh->failed)
			return false;
	}
}

static bool wait_sem(sem_t *s)
{
	return wait_slices(s, true);
}

static bool wait_step(sem_t *s)
{
	return wait_slices(s, false);
}

static void post(sem_t *s)
{
	sem_post(s);
}

static int lab_open(const char *who)
{
	int fd = open(DEV_PATH, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		child_fail("%s: cannot open %s: %s", who, DEV_PATH, strerror(errno));
	return fd;
}

static uint64_t lab_lock(int fd, int idx, const char *who)
{
	struct proxylab_lock arg = { .idx = (uint32_t)idx };

	if (ioctl(fd, PROXYLAB_IOC_LOCK, &arg))
		child_fail("%s: LOCK %d: %s", who, idx, strerror(errno));
	return arg.wait_ns;
}

static void lab_unlock(int fd, int idx, const char *who)
{
	uint32_t i = (uint32_t)idx;

	if (ioctl(fd, PROXYLAB_IOC_UNLOCK, &i))
		child_fail("%s: UNLOCK %d: %s", who, idx, strerror(errno));
}

/*
 * --break: the first acquire of mutex @idx that waited longer than the
 * threshold marks the trace, stops it (so the trace ends at the sample)
 * and stops the run after the current iteration.  Called right after the
 * acquire, before the unlock, by the task that waited.
 */
static void check_break(int idx, uint64_t ns)
{
	char buf[128];
	int len;

	if (!env.break_ns || ns <= env.break_ns ||
	    __atomic_exchange_n(&sh->broke, 1, __ATOMIC_SEQ_CST))
		return;
	len = snprintf(buf, sizeof(buf),
		       "inversion break: pid=%d mutex=%d wait_ns=%" PRIu64 " break_ns=%" PRIu64 "\n",
		       (int)getpid(), idx, ns, env.break_ns);
	if (marker_fd >= 0 && write(marker_fd, buf, len) != len)
		px_warn("write %s", TRACE_MARKER);
	if (tracing_on_fd >= 0 && write(tracing_on_fd, "0", 1) != 1)
		px_warn("write %s", TRACING_ON);
	sh->break_pid = getpid();
	sh->break_mutex = idx;
	sh->break_wait_ns = ns;
	sh->stop = 1;
}

static void lab_usecs(int fd, unsigned long req, uint64_t us, const char *who)
{
	if (us && ioctl(fd, req, &us))
		child_fail("%s: %s %" PRIu64 " us: %s", who,
			   req == PROXYLAB_IOC_BURN ? "BURN" : "SLEEP", us, strerror(errno));
}

static void pin_or_fail(int cpu, const char *who)
{
	if (cpu >= 0 && px_pin_self(cpu))
		child_fail("%s: cannot pin to CPU %d: %s", who, cpu, strerror(errno));
}

static void fifo_or_fail(int prio, const char *who)
{
	if (px_set_fifo(prio))
		child_fail("%s: cannot set SCHED_FIFO priority %d: %s%s", who, prio,
			   strerror(errno), errno == EPERM ? " (needs root or CAP_SYS_NICE)" : "");
}

static void other_or_fail(const char *who)
{
	if (px_set_other(0))
		child_fail("%s: cannot set SCHED_OTHER: %s", who, strerror(errno));
}

static void __attribute__((noreturn)) child_exit(void)
{
	_exit(sh->failed ? EXIT_FAIL : EXIT_OK);
}

/* Until @pid sleeps in LOCK (TASK_KILLABLE shows as D); a step. */
static bool wait_blocked(pid_t pid)
{
	const struct timespec nap = { 0, 20000 };

	while (px_task_state(pid) != 'D') {
		if (sh->failed)
			return false;
		nanosleep(&nap, NULL);
	}
	return true;
}

/*
 * px_pin_self(), waiting up to 2 s while @cpu is offline (EINVAL): CPU
 * hotplug tests take the CPUs of a running scenario away and back.
 */
static int pin_self_wait_online(int cpu)
{
	int i, ret = 0;

	for (i = 0; i < 2000; i++) {
		ret = px_pin_self(cpu);
		if (!ret || errno != EINVAL)
			break;
		usleep(1000);
	}
	return ret;
}

/*
 * xcpu: a waiter that got the mutex handed to it on the owner's CPU stays
 * there (nothing pushes a running FIFO task away), and every later
 * iteration would then be a same-CPU one.  Send it home to the first CPU,
 * outside the measured window, so that each iteration starts cross-CPU.
 */
static void rehome_waiter(void)
{
	cpu_set_t allowed;

	if (env.pinned)
		return;		/* pinned by set_waiter_policy(), stays there */
	if (env.sc->id == SC_XCPU) {
		CPU_ZERO(&allowed);
		CPU_SET(env.cpu[0], &allowed);
		CPU_SET(env.cpu[1], &allowed);
	} else if (env.spread) {
		allowed = env.cpus;
	} else {
		return;
	}
	if (pin_self_wait_online(env.cpu[0]) || px_pin_self_set(&allowed))
		child_fail("waiter: cannot move back to CPU %d: %s", env.cpu[0], strerror(errno));
}

static void set_waiter_policy(void)
{
	int ret;

	switch (env.sc->id) {
	case SC_CFS:
		pin_or_fail(env.cpu[0], "waiter");
		other_or_fail("waiter");
		break;
	case SC_DL:
		/* DEADLINE tasks must be allowed on their whole root domain. */
		ret = px_set_deadline(env.dl_runtime_us * NSEC_PER_USEC,
				      env.dl_deadline_us * NSEC_PER_USEC,
				      env.dl_period_us * NSEC_PER_USEC);
		if (ret)
			child_fail("waiter: SCHED_DEADLINE refused: %s%s", strerror(-ret),
				   ret == -EBUSY ? " (admission control: not enough bandwidth)" :
				   ret == -EPERM ? " (needs root, and affinity to the whole root domain)" : "");
		break;
	default:
		pin_or_fail(env.cpu[0], "waiter");
		fifo_or_fail(env.waiter_prio, "waiter");
		/*
		 * xcpu, chain --spread: allow the owners' CPUs too, as a real
		 * waiter would be, unless --pinned.  (Proxy execution moves a
		 * blocked waiter to its owner's CPU regardless of affinity,
		 * since it does not run there; --pinned shows that.)
		 */
		rehome_waiter();
		break;
	}
}

/* The n-th CPU of --cpus, wrapping around. */
static int nth_cpu(int n)
{
	int cpu, i = 0;

	n %= CPU_COUNT(&env.cpus);
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &env.cpus) && i++ == n)
			return cpu;
	return env.cpu[0];
}

/* Owner k's CPU; the (last) owner's for owner_cpu(), where hogs run. */
static int holder_cpu(int k)
{
	if (env.spread)
		return nth_cpu(k + 1);
	return env.sc->id == SC_XCPU ? env.cpu[1] : env.cpu[0];
}

static int owner_cpu(void)
{
	return holder_cpu(env.depth - 1);
}

static bool burst_hogs(void)
{
	return env.sc->id != SC_CFS;
}

static bool iteration_wanted(uint64_t it, uint64_t end)
{
	if (sh->stop)
		return false;
	if (env.duration_ns)
		return px_now_ns() < end && it < INV_MAX_SAMPLES;
	return it < env.iterations;
}

static void run_waiter(void)
{
	int fd, k, h, m0 = env.first_mutex;
	uint64_t it, ns, end;

	set_waiter_policy();
	fd = lab_open("waiter");
	sh->waiter_pid = getpid();
	post(&sh->ready);
	if (!wait_sem(&sh->go))
		child_exit();
	end = px_now_ns() + env.duration_ns;
	for (it = 0; iteration_wanted(it, end); it++) {
		rehome_waiter();
		for (k = 0; k < env.depth; k++)
			post(&sh->start[k]);
		for (k = 0; k < env.depth; k++)
			if (!wait_step(&sh->held[k]))
				goto out;
		for (k = 0; k + 1 < env.depth; k++)
			post(&sh->chain_go[k]);
		for (k = 0; k + 1 < env.depth; k++)
			if (!wait_blocked(sh->holder_pid[k]))
				goto out;
		sh->iter_done = 0;
		for (h = 0; burst_hogs() && h < env.hogs; h++)
			post(&sh->hog_go[h]);
		ns = lab_lock(fd, m0, "waiter");
		check_break(m0, ns);
		sh->iter_done = 1;
		lab_unlock(fd, m0, "waiter");
		sh->samples[sh->nsamples++] = ns;
		sh->waiter_acq++;
		if (env.verbose) {
			fprintf(out, "iteration %" PRIu64 ": wait %" PRIu64 " ns\n", it, ns);
			fflush(out);
		}
		for (k = 0; k < env.depth; k++)
			if (!wait_step(&sh->fin[k]))
				goto out;
		for (h = 0; burst_hogs() && h < env.hogs; h++)
			if (!wait_step(&sh->hog_fin))
				goto out;
		sh->iterations++;
	}
out:
	sh->stop = 1;
	close(fd);
	child_exit();
}

/*
 * The tail starts its critical section only once the waiter sleeps in
 * LOCK, spinning (not sleeping) until then: an owner that slept here
 * would turn every scenario into a sleeping-owner one.  It polls from
 * user space, so it needs the CPU to notice: that is the inversion.
 *
 * The owners of the chain before it must sleep meanwhile.  A task that
 * blocks on a mutex whose owner is itself a waiter does not spin on it
 * (the kernel's mutex_spin_on_owner()), so the owners of the chain sleep
 * and nothing keeps the waiter from blocking.
 */
static bool wait_waiter_blocked(void)
{
	while (px_task_state(sh->waiter_pid) != 'D') {
		if (sh->failed)
			return false;
	}
	return true;
}

/*
 * chain --spread: the blocked owners start each iteration on their own CPU
 * but, like the waiter, may run on every CPU of --cpus (unless --pinned),
 * as real tasks would; proxy execution gathers the chain on the last
 * owner's CPU either way.  The last owner stays pinned.
 */
static void rehome_holder(int k, const char *who)
{
	if (!env.spread || env.pinned || k == env.depth - 1)
		return;
	if (pin_self_wait_online(holder_cpu(k)) || px_pin_self_set(&env.cpus))
		child_fail("%s: cannot move back to CPU %d: %s", who, holder_cpu(k), strerror(errno));
}

static void run_holder(int k)
{
	char who[32];
	int fd, m = env.first_mutex + k;
	bool tail = k == env.depth - 1;

	snprintf(who, sizeof(who), "owner %d", k);
	pin_or_fail(holder_cpu(k), who);
	other_or_fail(who);
	fd = lab_open(who);
	sh->holder_pid[k] = getpid();
	post(&sh->ready);
	/*
	 * Join the starved group only once ready: at cpu.weight 1 on a busy
	 * CPU, getting here could take longer than the parent waits.
	 */
	if (env.sc->id == SC_CFS && px_cgroup_attach_pid(env.cgroup, getpid()))
		child_fail("%s: cannot join cgroup %s: %s", who, env.cgroup, strerror(errno));
	while (wait_sem(&sh->start[k])) {
		rehome_holder(k, who);
		lab_lock(fd, m, who);
		__atomic_fetch_add(&sh->holder_acq[k], 1, __ATOMIC_RELAXED);
		post(&sh->held[k]);
		if (!tail) {
			if (!wait_step(&sh->chain_go[k]))
				break;
			lab_lock(fd, m + 1, who);
			__atomic_fetch_add(&sh->chain_acq[k], 1, __ATOMIC_RELAXED);
			lab_unlock(fd, m + 1, who);
		} else {
			if (!wait_waiter_blocked())
				break;
			lab_usecs(fd, PROXYLAB_IOC_SLEEP, env.sleep_us, who);
			lab_usecs(fd, PROXYLAB_IOC_BURN, env.burn_us, who);
		}
		lab_unlock(fd, m, who);
		post(&sh->fin[k]);
	}
	close(fd);
	child_exit();
}

/* Spin until the waiter got its mutex, the cap, or a stop. */
static void hog_burst(uint64_t cap_ns)
{
	uint64_t start = px_now_ns(), now = start;

	while (!sh->iter_done && !sh->stop && now - start < cap_ns)
		now = px_now_ns();
	__atomic_fetch_add(&sh->hog_bursts, 1, __ATOMIC_RELAXED);
	if (now - start >= cap_ns)
		__atomic_fetch_add(&sh->hog_capped, 1, __ATOMIC_RELAXED);
}

static void run_hog(int h)
{
	char who[32];

	snprintf(who, sizeof(who), "hog %d", h);
	pin_or_fail(owner_cpu(), who);
	if (burst_hogs())
		fifo_or_fail(env.hog_prio, who);
	else
		other_or_fail(who);
	post(&sh->ready);
	if (!burst_hogs()) {
		/* cfs spinners: load the CPU for the whole run. */
		while (!sh->stop)
			;
		child_exit();
	}
	while (wait_sem(&sh->hog_go[h])) {
		hog_burst(env.hog_cap_us * NSEC_PER_USEC);
		post(&sh->hog_fin);
	}
	child_exit();
}

/* ------------------------------------------------------------ football */

/* The k-th CPU of --cpus, or all of them with --float. */
static void pin_team_or_fail(int k, const char *who)
{
	int cpu, n = 0;

	if (env.fb_float) {
		if (px_pin_self_set(&env.cpus))
			child_fail("%s: cannot set affinity: %s", who, strerror(errno));
		return;
	}
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &env.cpus) && n++ == k)
			break;
	pin_or_fail(cpu, who);
}

/*
 * An owner holds its mutex from the start and only lets go between two
 * burns, so a defense task always finds it held: it either gets the CPU
 * to the owner (proxy) or sleeps and leaves the CPU to the offense.
 */
static void run_fb_owner(int k)
{
	char who[32];
	int fd, m = env.first_mutex + k;

	snprintf(who, sizeof(who), "owner %d", k);
	pin_team_or_fail(k, who);
	other_or_fail(who);
	fd = lab_open(who);
	lab_lock(fd, m, who);
	__atomic_fetch_add(&sh->owner_acq[k], 1, __ATOMIC_RELAXED);
	post(&sh->ready);
	for (;;) {
		lab_usecs(fd, PROXYLAB_IOC_BURN, env.burn_us, who);
		lab_unlock(fd, m, who);
		if (sh->stop)
			break;
		lab_lock(fd, m, who);
		__atomic_fetch_add(&sh->owner_acq[k], 1, __ATOMIC_RELAXED);
	}
	close(fd);
	child_exit();
}

static void run_fb_defense(int k)
{
	char who[32];
	int fd, m = env.first_mutex + k;
	uint64_t ns, i;

	snprintf(who, sizeof(who), "defense %d", k);
	pin_team_or_fail(k, who);
	fifo_or_fail(env.defense_prio, who);
	fd = lab_open(who);
	post(&sh->ready);
	if (!wait_sem(&sh->go))
		child_exit();
	while (!sh->stop) {
		ns = lab_lock(fd, m, who);
		if (sh->kickoff)
			check_break(m, ns);
		lab_usecs(fd, PROXYLAB_IOC_BURN, 20, who);
		lab_unlock(fd, m, who);
		__atomic_fetch_add(&sh->defense_acq[k], 1, __ATOMIC_RELAXED);
		if (!sh->kickoff)
			continue;
		i = __atomic_fetch_add(&sh->nsamples, 1, __ATOMIC_RELAXED);
		if (i < INV_MAX_SAMPLES)
			sh->samples[i] = ns;
		else
			__atomic_fetch_add(&sh->dropped, 1, __ATOMIC_RELAXED);
	}
	close(fd);
	child_exit();
}

static void run_fb_offense(int k)
{
	char who[32];

	snprintf(who, sizeof(who), "offense %d", k);
	pin_team_or_fail(k, who);
	fifo_or_fail(env.offense_prio, who);
	post(&sh->ready);
	if (!wait_sem(&sh->go))
		child_exit();
	while (!sh->stop)
		if (sh->kickoff)
			__atomic_fetch_add(&sh->ball, 1, __ATOMIC_RELAXED);
	child_exit();
}

/* -------------------------------------------------------------- parent */

struct child {
	pid_t	pid;
	char	role[24];
	int	status;
	bool	reaped;
};

static struct child children[1 + INV_MAX_DEPTH + INV_MAX_HOGS + 3 * INV_MAX_TEAM];
static int nchildren;

static void spawn(const char *role, int idx, void (*fn)(int))
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

static void waiter_entry(int unused)
{
	(void)unused;
	run_waiter();
}

/* Reap what exited; true once all have.  A failed child stops the rest. */
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
	char path[64], stat[256], wchan[64];
	int i;

	for (i = 0; i < nchildren; i++) {
		struct child *c = &children[i];
		char *state;
		FILE *f;

		if (c->reaped)
			continue;
		stat[0] = wchan[0] = '\0';
		snprintf(path, sizeof(path), "/proc/%d/stat", c->pid);
		f = fopen(path, "re");
		if (f) {
			if (!fgets(stat, sizeof(stat), f))
				stat[0] = '\0';
			fclose(f);
		}
		snprintf(path, sizeof(path), "/proc/%d/wchan", c->pid);
		f = fopen(path, "re");
		if (f) {
			if (!fgets(wchan, sizeof(wchan), f))
				wchan[0] = '\0';
			fclose(f);
		}
		/* The state follows "pid (comm) ". */
		state = strrchr(stat, ')');
		px_warnx("  %s (pid %d): state %c, wchan %s", c->role, c->pid,
			 state && state[1] ? state[2] : '?', wchan[0] ? wchan : "-");
		/* Its kernel stack (root only): in a lab call, or in user space? */
		snprintf(path, sizeof(path), "/proc/%d/stack", c->pid);
		f = fopen(path, "re");
		if (f) {
			int n = 0;

			while (n++ < 8 && fgets(stat, sizeof(stat), f))
				px_warnx("    %s", strtok(stat, "\n") ?: "");
			fclose(f);
		}
	}
}

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		dump_status = 1;
	else
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

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / NSEC_PER_SEC), (long)(ns % NSEC_PER_SEC) };

	while (nanosleep(&ts, &ts) && errno == EINTR && !exiting)
		;
}

/*
 * Wait for all children: stop them on a signal or at the timeout; kill
 * what has not left after a grace time (a burn or sleep may be running).
 * Returns false on timeout or kill.
 */
static void release_cgroup(void);

static bool supervise(uint64_t deadline)
{
	uint64_t grace = 0, stopped = 0, start = px_now_ns();
	bool ok = true;

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
			grace = stopped + 30 * NSEC_PER_SEC +
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
		sleep_ns(10 * 1000 * 1000);
	}
	return ok;
}

/* Wait until all @n children posted ready (or one failed). */
static bool wait_ready(int n)
{
	uint64_t end = px_now_ns() + 30 * NSEC_PER_SEC;
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
					 "%d task(s) not ready after 30 s (CPUs overloaded?)", n);
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

/* Per-mutex acquisition counters and holders from debugfs; false if absent. */
static bool read_lab_state(uint64_t acquired[], int holder[])
{
	FILE *f = fopen(STATE_PATH, "re");
	char line[128];
	long long acq;
	int idx, pid;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%d %d %lld", &idx, &pid, &acq) == 3 &&
		    idx >= 0 && idx < PROXYLAB_NR_MUTEXES) {
			acquired[idx] = (uint64_t)acq;
			holder[idx] = pid;
		}
	}
	fclose(f);
	return true;
}

/* sched_rt_runtime_us: -1 for the RT scenarios unless --keep-throttle. */
static char rt_runtime_saved[32];

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
}

static void rt_throttle_restore(void)
{
	if (rt_runtime_saved[0] && px_write_str(RT_RUNTIME, rt_runtime_saved))
		px_warn("cannot restore %s to %s", RT_RUNTIME, rt_runtime_saved);
	rt_runtime_saved[0] = '\0';
}

static bool cgroup_made;

/* Once stopping, let the owners' group run freely so that they can exit. */
static void release_cgroup(void)
{
	if (cgroup_made && (px_cgroup_set(env.cgroup, "cpu.max", "max") ||
			    px_cgroup_set(env.cgroup, "cpu.weight", "100")))
		px_warn("cannot lift the limits of cgroup %s", env.cgroup);
}

static void cgroup_setup(void)
{
	if (env.sc->id != SC_CFS)
		return;
	px_cgroup_setup_or_die("cfs", env.cgroup, env.weight, env.cpu_max);
	cgroup_made = true;
}

static void cleanup_system(void)
{
	rt_throttle_restore();
	if (cgroup_made && px_cgroup_destroy(env.cgroup))
		px_warn("cannot remove cgroup %s", env.cgroup);
	cgroup_made = false;
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

/* The parent referees: above everything it starts, if it may. */
static void parent_priority(void)
{
	if (is_rt_family() && px_set_fifo(90) && env.sc->id == SC_FOOTBALL)
		px_fatal(EXIT_FAIL, "football: the referee needs SCHED_FIFO 90");
}

/* Holders, hogs and the waiter; returns the supervision result. */
static bool run_lock_scenario(void)
{
	int k, n = 0;

	for (k = 0; k < env.depth; k++, n++)
		spawn("owner", k, run_holder);
	for (k = 0; k < env.hogs; k++, n++)
		spawn("hog", k, run_hog);
	spawn("waiter", -1, waiter_entry);
	n++;
	parent_priority();
	if (wait_ready(n))
		post(&sh->go);
	else
		sh->stop = 1;
	return supervise(px_now_ns() + env.timeout_s * NSEC_PER_SEC);
}

static uint64_t football_ball;

static bool run_football(void)
{
	int k, n = 0, team = CPU_COUNT(&env.cpus);
	uint64_t deadline = px_now_ns() + env.timeout_s * NSEC_PER_SEC, end;

	parent_priority();
	for (k = 0; k < team; k++, n++)
		spawn("owner", k, run_fb_owner);
	for (k = 0; k < team; k++, n++)
		spawn("defense", k, run_fb_defense);
	for (k = 0; k < team; k++, n++)
		spawn("offense", k, run_fb_offense);
	if (!wait_ready(n)) {
		sh->stop = 1;
		return supervise(deadline);
	}
	/* Warm up, then count the ball only from the kickoff on. */
	for (k = 0; k < 2 * team; k++)
		post(&sh->go);
	sleep_ns(200 * 1000 * 1000);
	__atomic_store_n(&sh->ball, 0, __ATOMIC_SEQ_CST);
	sh->kickoff = 1;
	/* The game's length, or until a --break stops it. */
	end = px_now_ns() + env.duration_ns;
	if (!env.break_ns)
		sleep_ns(env.duration_ns);
	while (env.break_ns && !sh->stop && !exiting && px_now_ns() < end)
		sleep_ns(10 * 1000 * 1000);
	football_ball = __atomic_load_n(&sh->ball, __ATOMIC_SEQ_CST);
	sh->kickoff = 0;
	sh->stop = 1;
	return supervise(deadline);
}

static void json_params(struct px_json *j)
{
	char buf[256];

	px_json_u64(j, "iterations", env.duration_ns ? 0 : env.iterations);
	px_json_u64(j, "duration_ns", env.duration_ns);
	px_json_u64(j, "burn_ns", env.burn_us * NSEC_PER_USEC);
	px_json_u64(j, "sleep_ns", env.sleep_us * NSEC_PER_USEC);
	px_json_u64(j, "depth", env.depth);
	px_json_u64(j, "hogs", env.sc->id == SC_FOOTBALL ? 0 : env.hogs);
	px_json_u64(j, "hog_cap_ns", env.hog_cap_us * NSEC_PER_USEC);
	px_json_string(j, "cpus", px_cpulist_str(&env.cpus, buf, sizeof(buf)));
	px_json_i64(j, "waiter_cpu", env.sc->id == SC_DL ? -1 : env.cpu[0]);
	px_json_i64(j, "owner_cpu", owner_cpu());
	px_json_i64(j, "first_mutex", env.first_mutex);
	switch (env.sc->id) {
	case SC_CFS:
		px_json_string(j, "waiter_policy", "SCHED_OTHER");
		px_json_string(j, "hog_policy", "SCHED_OTHER");
		px_json_string(j, "cgroup", env.cgroup);
		px_json_i64(j, "cpu_weight", env.weight);
		px_json_string(j, "cpu_max", env.cpu_max ? env.cpu_max : "max");
		break;
	case SC_DL:
		px_json_string(j, "waiter_policy", "SCHED_DEADLINE");
		px_json_u64(j, "dl_runtime_ns", env.dl_runtime_us * NSEC_PER_USEC);
		px_json_u64(j, "dl_deadline_ns", env.dl_deadline_us * NSEC_PER_USEC);
		px_json_u64(j, "dl_period_ns", env.dl_period_us * NSEC_PER_USEC);
		px_json_string(j, "hog_policy", "SCHED_FIFO");
		px_json_i64(j, "hog_prio", env.hog_prio);
		break;
	case SC_FOOTBALL:
		px_json_i64(j, "defense_prio", env.defense_prio);
		px_json_i64(j, "offense_prio", env.offense_prio);
		px_json_bool(j, "float", env.fb_float);
		break;
	default:
		px_json_string(j, "waiter_policy", "SCHED_FIFO");
		px_json_i64(j, "waiter_prio", env.waiter_prio);
		px_json_bool(j, "spread", env.spread);
		px_json_bool(j, "pinned", env.pinned);
		px_json_string(j, "hog_policy", "SCHED_FIFO");
		px_json_i64(j, "hog_prio", env.hog_prio);
		break;
	}
	px_json_string(j, "owner_policy", "SCHED_OTHER");
	px_json_string(j, "sched_rt_runtime_us_set",
		       rt_runtime_saved[0] ? "-1" : NULL);
	px_json_u64(j, "break_ns", env.break_ns);
}

static void json_u64_array(struct px_json *j, const char *key, const uint64_t *v, int n)
{
	int i;

	px_json_array_begin(j, key);
	for (i = 0; i < n; i++)
		px_json_u64(j, NULL, v[i]);
	px_json_array_end(j);
}

struct verdict {
	bool		consistent;
	bool		have_state;
	uint64_t	delta[PROXYLAB_NR_MUTEXES];
	int		left_held;
	uint64_t	want;
};

static void json_checks(struct px_json *j, const struct verdict *v)
{
	int team = CPU_COUNT(&env.cpus), used, k;

	px_json_bool(j, "consistent", v->consistent);
	if (env.sc->id == SC_FOOTBALL) {
		px_json_u64(j, "ball", football_ball);
		px_json_bool(j, "violation", football_ball != 0);
		json_u64_array(j, "owner_acquired", sh->owner_acq, team);
		json_u64_array(j, "defense_acquired", sh->defense_acq, team);
		px_json_u64(j, "samples_dropped", sh->dropped);
		used = team;
	} else {
		px_json_u64(j, "iterations_done", sh->iterations);
		px_json_u64(j, "waiter_acquired", sh->waiter_acq);
		json_u64_array(j, "holder_acquired", sh->holder_acq, env.depth);
		json_u64_array(j, "chain_acquired", sh->chain_acq, env.depth - 1);
		px_json_u64(j, "hog_bursts", sh->hog_bursts);
		px_json_u64(j, "hog_capped", sh->hog_capped);
		used = env.depth;
	}
	if (v->have_state)
		json_u64_array(j, "kernel_acquired_delta", v->delta + env.first_mutex, used);
	else
		px_json_null(j, "kernel_acquired_delta");
	px_json_i64(j, "locks_left_held", v->have_state ? v->left_held : -1);
	px_json_i64(j, "waiter_pid", sh->waiter_pid);
	px_json_array_begin(j, "holder_pids");
	for (k = 0; env.sc->id != SC_FOOTBALL && k < env.depth; k++)
		px_json_i64(j, NULL, sh->holder_pid[k]);
	px_json_array_end(j);
	px_json_array_begin(j, "hog_pids");
	for (k = 0; k < nchildren; k++)
		if (!strncmp(children[k].role, "hog ", 4))
			px_json_i64(j, NULL, children[k].pid);
	px_json_array_end(j);
	px_json_bool(j, "break_tripped", sh->broke);
	if (sh->broke) {
		px_json_i64(j, "break_pid", sh->break_pid);
		px_json_i64(j, "break_mutex", sh->break_mutex);
		px_json_u64(j, "break_wait_ns", sh->break_wait_ns);
	}
}

/*
 * Every count must add up: iterations done = requested (iteration mode),
 * waiter acquisitions = samples = each holder's acquisitions = each chain
 * link's; with debugfs, each used mutex was acquired exactly twice per
 * iteration (holder + waiter or upper link) and none is left held.
 */
static void judge(struct verdict *v, const uint64_t before[], bool have_before)
{
	uint64_t after[PROXYLAB_NR_MUTEXES] = { 0 }, n = sh->iterations;
	int holder[PROXYLAB_NR_MUTEXES] = { 0 }, k, used;
	bool ok = true;

	used = env.sc->id == SC_FOOTBALL ? CPU_COUNT(&env.cpus) : env.depth;
	v->have_state = have_before && read_lab_state(after, holder);
	for (k = 0; v->have_state && k < PROXYLAB_NR_MUTEXES; k++) {
		v->delta[k] = after[k] - before[k];
		if (k >= env.first_mutex && k < env.first_mutex + used && holder[k])
			v->left_held++;
	}
	if (env.sc->id == SC_FOOTBALL) {
		uint64_t total = 0;

		for (k = 0; k < used; k++) {
			total += sh->defense_acq[k];
			if (v->have_state &&
			    v->delta[env.first_mutex + k] != sh->defense_acq[k] + sh->owner_acq[k])
				ok = false;
			if (!sh->owner_acq[k])
				ok = false;
		}
		if (sh->nsamples > total)
			ok = false;
	} else {
		if (!env.duration_ns && n != env.iterations && !sh->broke)
			ok = false;
		if (sh->waiter_acq != n || sh->nsamples != n)
			ok = false;
		for (k = 0; k < env.depth; k++) {
			if (sh->holder_acq[k] != n)
				ok = false;
			if (k + 1 < env.depth && sh->chain_acq[k] != n)
				ok = false;
			if (v->have_state && v->delta[env.first_mutex + k] != 2 * n)
				ok = false;
		}
		if (burst_hogs() && sh->hog_bursts != n * (uint64_t)env.hogs)
			ok = false;
	}
	if (v->left_held)
		ok = false;
	v->want = env.duration_ns || sh->broke ? n : env.iterations;
	v->consistent = ok;
}

static void print_consistency(const struct verdict *v, bool children, bool supervised)
{
	int k;

	if (env.sc->id == SC_FOOTBALL) {
		fprintf(out, "consistency: cpus=%d samples=%" PRIu64 " dropped=%" PRIu64, CPU_COUNT(&env.cpus),
		       sh->nsamples, sh->dropped);
	} else {
		fprintf(out, "consistency: iterations=%" PRIu64 "/%" PRIu64 " waiter=%" PRIu64
		       " samples=%" PRIu64 " holders=", sh->iterations, v->want,
		       sh->waiter_acq, sh->nsamples);
		for (k = 0; k < env.depth; k++)
			fprintf(out, "%s%" PRIu64, k ? "," : "", sh->holder_acq[k]);
		if (env.depth > 1) {
			fprintf(out, " links=");
			for (k = 0; k + 1 < env.depth; k++)
				fprintf(out, "%s%" PRIu64, k ? "," : "", sh->chain_acq[k]);
		}
		if (burst_hogs())
			fprintf(out, " hog_bursts=%" PRIu64 " capped=%" PRIu64, sh->hog_bursts,
			       sh->hog_capped);
	}
	if (v->have_state) {
		fprintf(out, " kernel=");
		for (k = 0; k < (env.sc->id == SC_FOOTBALL ? CPU_COUNT(&env.cpus) : env.depth); k++)
			fprintf(out, "%s%" PRIu64, k ? "," : "", v->delta[env.first_mutex + k]);
		fprintf(out, " left_held=%d", v->left_held);
	} else {
		fprintf(out, " kernel=n/a");
	}
	fprintf(out, " children=%s -> %s\n", children ? "ok" : "FAILED",
	       v->consistent && children && supervised ? "OK" : "INCONSISTENT");
}

static void print_header(void)
{
	char buf[256];

	if (env.quiet)
		return;
	fprintf(out, "inversion %s: %s\n", env.sc->name, env.sc->help);
	if (env.sc->id == SC_FOOTBALL)
		fprintf(out, "  game %" PRIu64 " ms on CPUs %s (%s), owners burn %" PRIu64 " us\n",
		       env.duration_ns / 1000000, px_cpulist_str(&env.cpus, buf, sizeof(buf)),
		       env.fb_float ? "floating" : "team k on the k-th CPU", env.burn_us);
	else
		fprintf(out, "  %s%" PRIu64 " %s, depth %d, burn %" PRIu64 " us, sleep %" PRIu64
		       " us, %d hog(s)%s, waiter CPU %d, owner CPU %d\n",
		       env.duration_ns ? "for " : "",
		       env.duration_ns ? env.duration_ns / 1000000 : env.iterations,
		       env.duration_ns ? "ms" : "iterations", env.depth, env.burn_us,
		       env.sleep_us, env.hogs, burst_hogs() ? " (bursts)" : " (spinning)",
		       env.sc->id == SC_DL ? -1 : env.cpu[0], owner_cpu());
	fflush(out);
}

/* --break: open the marker and tracing_on now, so a child only writes. */
static void open_break_files(void)
{
	if (!env.break_ns)
		return;
	marker_fd = open(TRACE_MARKER, O_WRONLY | O_CLOEXEC);
	if (marker_fd < 0)
		px_warn("--break: cannot open %s (no marker will be written)", TRACE_MARKER);
	tracing_on_fd = open(TRACING_ON, O_WRONLY | O_CLOEXEC);
	if (tracing_on_fd < 0)
		px_warn("--break: cannot open %s (tracing will not stop)", TRACING_ON);
}

static void print_break(void)
{
	if (!env.break_ns)
		return;
	if (sh->broke)
		fprintf(out, "break: pid %d waited %" PRIu64 " ns for mutex %d (> %" PRIu64
			" ns): trace marker written, tracing off\n", sh->break_pid,
			sh->break_wait_ns, sh->break_mutex, env.break_ns);
	else
		fprintf(out, "break: no acquire waited longer than %" PRIu64 " ns\n",
			env.break_ns);
}

/* Nothing can run without the lab: say so before forking anything. */
static void check_device(void)
{
	int fd = open(DEV_PATH, O_RDWR | O_CLOEXEC);

	if (fd >= 0) {
		close(fd);
		return;
	}
	if (errno == ENOENT || errno == ENODEV || errno == ENXIO)
		px_fatalx(EXIT_FAIL, "no %s: kernel without CONFIG_PROXYLAB", DEV_PATH);
	px_fatal(EXIT_FAIL, "cannot open %s%s", DEV_PATH,
		 errno == EACCES ? " (run as root)" : "");
}

int main(int argc, char **argv)
{
	static const struct argp argp = { opts, parse_arg, NULL, doc, NULL, NULL, NULL };
	uint64_t before[PROXYLAB_NR_MUTEXES] = { 0 };
	int before_holder[PROXYLAB_NR_MUTEXES];
	struct px_result res;
	struct verdict v = { 0 };
	struct sigaction sa = { 0 };
	bool have_before, supervised, kids, ok;
	struct px_json *j;
	int err = EXIT_FAIL;
	uint64_t i;

	if (px_result_init(&res, "inversion", "lock_wait", argc, argv))
		px_fatal(EXIT_FAIL, "out of memory");
	argp_err_exit_status = EXIT_USAGE;
	if (argp_parse(&argp, argc, argv, 0, NULL, NULL))
		return EXIT_USAGE;
	out = env.json_path && !strcmp(env.json_path, "-") ? stderr : stdout;
	check_device();
	open_break_files();

	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	sh = map_shared();
	init_sems();
	have_before = read_lab_state(before, before_holder);
	cgroup_setup();
	rt_throttle_off();
	print_header();

	if (env.sc->id == SC_FOOTBALL)
		supervised = run_football();
	else
		supervised = run_lock_scenario();
	kids = children_ok();
	if (sh->mlock_failed)
		px_warnx("%" PRIu64 " processes could not mlockall(): page faults may add sleeps",
			 sh->mlock_failed);
	cleanup_system();
	if (sh->failed)
		px_warnx("%s", sh->errmsg);

	for (i = 0; i < sh->nsamples && i < INV_MAX_SAMPLES; i++)
		if (px_result_add(&res, sh->samples[i]))
			px_fatal(EXIT_FAIL, "out of memory");
	judge(&v, before, have_before);
	ok = v.consistent && kids && supervised && !sh->failed;

	px_result_print(&res, out, env.sc->id == SC_FOOTBALL ? "defense" : "waiter",
			!env.quiet);
	print_consistency(&v, kids, supervised);
	print_break();
	if (env.sc->id == SC_FOOTBALL)
		fprintf(out, "football: ball moved %" PRIu64 " times in %" PRIu64 " ms -> %s\n",
		       football_ball, env.duration_ns / 1000000,
		       football_ball ? "FAIL (offense ran while defense waited)" : "PASS");

	if (env.json_path) {
		j = px_result_json_begin(&res, env.json_path, env.sc->name);
		if (!j) {
			px_warn("cannot write %s", env.json_path);
			ok = false;
		} else {
			json_params(j);
			px_result_json_checks(&res, j);
			json_checks(j, &v);
			if (px_result_json_end(&res, j, ok)) {
				px_warnx("error writing %s", env.json_path);
				ok = false;
			}
		}
	}
	if (env.hist_path) {
		char title[128];

		snprintf(title, sizeof(title), "inversion %s lock_wait", env.sc->name);
		if (px_result_write_hist(&res, env.hist_path, title)) {
			px_warn("cannot write %s", env.hist_path);
			ok = false;
		}
	}
	if (!ok)
		err = EXIT_FAIL;
	else if (env.sc->id == SC_FOOTBALL && football_ball)
		err = EXIT_VIOLATION;
	else if (sh->broke)
		err = EXIT_BREAK;
	else
		err = EXIT_OK;
	px_result_free(&res);
	munmap(sh, sh_size);
	if (marker_fd >= 0)
		close(marker_fd);
	if (tracing_on_fd >= 0)
		close(tracing_on_fd);
	return err;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * taskchange: change the scheduling of running tasks in a loop -- their
 * affinity, policy (SCHED_OTHER, BATCH, IDLE, FIFO, DEADLINE), nice value
 * and cgroup -- undoing each change right after, so that the tasks' own
 * work goes on.  For testing what the kernel does when such a change hits
 * a task blocked on a mutex, which proxy execution keeps queued as a donor
 * (tests/guest/63-change-blocked.sh), or the owner a donor runs.
 *
 * Each round goes through the kinds in order, and through the tasks for
 * each: read the task's state, apply, pause, undo, pause.  A change applied
 * while the task was in D counts as "blocked".  It stops at the end of
 * the round in which the duration ran out, every task went or the watched
 * process exited.  With -b N, a duration that ran out before N changes were
 * blocked and every kind was applied is extended until they were (up to
 * ten times the duration): a count of events, where a duration alone is as
 * many of them as the host's speed allows.
 *
 * Output, one line per kind and a total:
 *   change KIND applied=N blocked=N refused=N undo_failed=N [error=...]
 *   total changes=N blocked=N undo_failed=N rounds=N
 * Exit: 0; 1 a task was not there at the start or a change could not be
 * undone; 64 usage.
 */
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "pxutil.h"

#define MAX_TASKS	64
#define NSEC_PER_USEC	1000ULL

enum kind {
	K_AFF_ALL, K_AFF_AWAY, K_NICE, K_OTHER, K_BATCH, K_IDLE, K_FIFO, K_DEADLINE,
	K_CGROUP, NR_KINDS
};

static const char *const kind_name[NR_KINDS] = {
	"affinity-all", "affinity-away", "nice", "other", "batch", "idle", "fifo",
	"deadline", "cgroup",
};

struct task {
	int			pid;
	bool			gone;
	struct px_sched_attr	attr;	/* its own, to return to */
	cpu_set_t		mask;
	int			nice;
	char			cgroup[PATH_MAX];	/* under the cgroup2 root */
};

struct count {
	unsigned long	applied, blocked, refused, undo_failed;
	int		last_errno;
};

static struct {
	uint64_t	duration_ns, interval_ns;
	unsigned long	min_blocked;	/* -b: go on until this many blocked */
	const char	*cgroup;
	int		watch;
	bool		only;		/* -k: only the kinds in want[] */
	bool		want[NR_KINDS];
	struct task	task[MAX_TASKS];
	int		ntasks;
} env = {
	.duration_ns = 4000000000ULL,
	.interval_ns = 200000ULL,
};

static struct count counts[NR_KINDS];
static cpu_set_t online;

static const char doc[] =
"Change the scheduling of running tasks (affinity, policy, nice, cgroup) in a\n"
"loop, undoing each change right after.\n"
"\n"
"USAGE: taskchange [-d DURATION] [-b N] [-i INTERVAL] [-g CGROUP] [-k KINDS] [-w PID] PID...\n"
"\n"
"EXAMPLES:\n"
"  taskchange -d 4s -w $inv $(pgrep -P $inv)   # the tasks of a running inversion\n"
"  taskchange -g slow 1234     # also into /sys/fs/cgroup/slow (cpu.max) and back\n"
"  taskchange -b 10 -d 3s -w $inv $(pgrep -P $inv)   # and on until 10 hit a task in D\n"
"\n"
"Prints one line per kind of change (applied, blocked = applied while the task\n"
"was in D, refused, undo_failed) and a total.  Exit: 0; 1 a task was not there\n"
"or a change could not be undone; 64 usage.";

static const struct argp_option options[] = {
	{ "duration", 'd', "DURATION", 0, "how long (default 4s; unit ns/us/ms/s, default s)", 0 },
	{ "min-blocked", 'b', "N", 0, "after the duration, go on until N changes hit a task in D and every kind was applied (up to 10 times the duration)", 0 },
	{ "interval", 'i', "INTERVAL", 0, "pause after each change and undo (default 200us; default unit us)", 0 },
	{ "cgroup", 'g', "NAME", 0, "cgroup (under the cgroup2 root) to move the tasks into and back", 0 },
	{ "watch", 'w', "PID", 0, "stop when this process exits", 0 },
	{ "kinds", 'k', "LIST", 0, "only these kinds of change (comma list: affinity-all, affinity-away, nice, other, batch, idle, fifo, deadline, cgroup)", 0 },
	{},
};

static void parse_kinds(struct argp_state *state, char *arg)
{
	char *tok, *save = NULL;
	int k;

	env.only = true;
	for (tok = strtok_r(arg, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (k = 0; k < NR_KINDS && strcmp(tok, kind_name[k]); k++)
			;
		if (k == NR_KINDS)
			argp_error(state, "unknown kind of change '%s'", tok);
		env.want[k] = true;
	}
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'd':
		env.duration_ns = px_arg_duration_ns(state, "duration", arg, 1000000000ULL,
						     1000000ULL, 3600000000000ULL);
		break;
	case 'b':
		env.min_blocked = px_arg_long(state, "number of blocked changes", arg, 1, INT_MAX);
		break;
	case 'i':
		env.interval_ns = px_arg_duration_ns(state, "interval", arg, NSEC_PER_USEC,
						     0, 1000000000ULL);
		break;
	case 'g':
		env.cgroup = arg;
		break;
	case 'w':
		env.watch = px_arg_long(state, "PID", arg, 1, INT_MAX);
		break;
	case 'k':
		parse_kinds(state, arg);
		break;
	case ARGP_KEY_ARG:
		if (env.ntasks == MAX_TASKS)
			argp_error(state, "at most %d tasks", MAX_TASKS);
		env.task[env.ntasks++].pid = px_arg_long(state, "PID", arg, 1, INT_MAX);
		break;
	case ARGP_KEY_END:
		if (!env.ntasks)
			argp_error(state, "no PID given");
		if (env.only && env.want[K_CGROUP] && !env.cgroup)
			argp_error(state, "-k cgroup needs -g CGROUP");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* @pid's cgroup under the cgroup2 root ("0::/path" in /proc/PID/cgroup). */
static int task_cgroup(int pid, char *buf, size_t len)
{
	char path[64], line[PATH_MAX];
	int ret;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", pid);
	ret = px_read_line(path, line, sizeof(line));
	if (ret)
		return ret;
	if (strncmp(line, "0::", 3))
		return -EINVAL;
	snprintf(buf, len, "%s", line + 3);
	return 0;
}

static int set_affinity(int pid, const cpu_set_t *set)
{
	return sched_setaffinity(pid, sizeof(*set), set) ? -errno : 0;
}

static int set_nice(int pid, int nice)
{
	return setpriority(PRIO_PROCESS, pid, nice) ? -errno : 0;
}

static int set_policy(int pid, int policy, int prio)
{
	struct px_sched_attr a = { .sched_policy = policy, .sched_priority = prio };

	return px_sched_setattr(pid, &a);
}

/* One CPU online but outside @t's own mask (or its last one). */
static void away_mask(const struct task *t, cpu_set_t *set)
{
	int cpu, pick = -1;

	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &online))
			continue;
		if (!CPU_ISSET(cpu, &t->mask) || pick < 0 || CPU_ISSET(pick, &t->mask))
			pick = cpu;
	}
	CPU_ZERO(set);
	CPU_SET(pick, set);
}

static int apply(struct task *t, enum kind k)
{
	struct px_sched_attr dl = {
		.sched_policy	= SCHED_DEADLINE,
		.sched_runtime	= 1000000,
		.sched_deadline	= 10000000,
		.sched_period	= 10000000,
	};
	cpu_set_t set;
	int ret;

	switch (k) {
	case K_AFF_ALL:
		return set_affinity(t->pid, &online);
	case K_AFF_AWAY:
		away_mask(t, &set);
		return set_affinity(t->pid, &set);
	case K_NICE:
		return set_nice(t->pid, 10);
	case K_OTHER:
		return set_policy(t->pid, SCHED_OTHER, 0);
	case K_BATCH:
		return set_policy(t->pid, SCHED_BATCH, 0);
	case K_IDLE:
		return set_policy(t->pid, SCHED_IDLE, 0);
	case K_FIFO:
		return set_policy(t->pid, SCHED_FIFO, 70);
	case K_DEADLINE:
		/* DEADLINE wants affinity to the whole root domain. */
		ret = set_affinity(t->pid, &online);
		return ret ? ret : px_sched_setattr(t->pid, &dl);
	case K_CGROUP:
		return px_cgroup_attach_pid(env.cgroup, t->pid);
	default:
		return -EINVAL;
	}
}

static bool kind_used(int k)
{
	if (env.only)
		return env.want[k];
	return k != K_CGROUP || env.cgroup;
}

/* Back to the task's own settings; the policy before the affinity (a
 * DEADLINE task may not narrow its affinity). */
static int undo(struct task *t, enum kind k)
{
	int ret;

	switch (k) {
	case K_AFF_ALL:
	case K_AFF_AWAY:
		return set_affinity(t->pid, &t->mask);
	case K_NICE:
		return set_nice(t->pid, t->nice);
	case K_CGROUP:
		return px_cgroup_attach_pid(t->cgroup, t->pid);
	default:
		ret = px_sched_setattr(t->pid, &t->attr);
		return ret ? ret : set_affinity(t->pid, &t->mask);
	}
}

/* -b: enough changes hit a task in D, and every kind was applied. */
static bool enough_blocked(void)
{
	unsigned long blocked = 0;
	int k;

	if (!env.min_blocked)
		return true;
	for (k = 0; k < NR_KINDS; k++) {
		if (!kind_used(k))
			continue;
		if (!counts[k].applied)
			return false;
		blocked += counts[k].blocked;
	}
	return blocked >= env.min_blocked;
}

static bool watched_gone(void)
{
	return env.watch && kill(env.watch, 0) && errno == ESRCH;
}

static void one_change(struct task *t, enum kind k)
{
	struct count *c = &counts[k];
	char st = px_task_state(t->pid);
	int ret;

	if (st == '?') {
		t->gone = true;
		return;
	}
	ret = apply(t, k);
	if (ret == -ESRCH) {
		t->gone = true;
		return;
	}
	if (ret) {
		c->refused++;
		c->last_errno = -ret;
		return;
	}
	c->applied++;
	if (st == 'D')
		c->blocked++;
	px_sleep_ns(env.interval_ns);
	ret = undo(t, k);
	if (ret == -ESRCH) {
		t->gone = true;
	} else if (ret) {
		c->undo_failed++;
		c->last_errno = -ret;
	}
	px_sleep_ns(env.interval_ns);
}

static int save_task(struct task *t)
{
	int ret;

	errno = 0;
	t->nice = getpriority(PRIO_PROCESS, t->pid);
	if (errno)
		return -errno;
	if (sched_getaffinity(t->pid, sizeof(t->mask), &t->mask))
		return -errno;
	if (env.cgroup) {
		ret = task_cgroup(t->pid, t->cgroup, sizeof(t->cgroup));
		if (ret)
			return ret;
	}
	return px_sched_getattr(t->pid, &t->attr);
}

int main(int argc, char **argv)
{
	static const struct argp argp = { options, parse_opt, "PID...", doc, NULL, NULL, NULL };
	unsigned long total = 0, blocked = 0, undo_failed = 0, rounds = 0;
	uint64_t start, end, cap, now;
	int i, k, left, ret;

	if (px_argp_parse(&argp, argc, argv, NULL))
		return PX_EXIT_USAGE;
	if (px_online_cpus(&online))
		px_fatal(1, "cannot read the online CPUs");
	for (i = 0; i < env.ntasks; i++) {
		ret = save_task(&env.task[i]);
		if (ret)
			px_fatalx(1, "task %d: %s", env.task[i].pid, strerror(-ret));
	}

	start = px_now_ns();
	end = start + env.duration_ns;
	cap = start + 10 * env.duration_ns;
	do {
		left = 0;
		for (k = 0; k < NR_KINDS; k++) {
			if (!kind_used(k))
				continue;
			for (i = 0; i < env.ntasks; i++)
				if (!env.task[i].gone)
					one_change(&env.task[i], k);
		}
		for (i = 0; i < env.ntasks; i++)
			left += !env.task[i].gone;
		rounds++;
		now = px_now_ns();
	} while (left && !watched_gone() && (now < end || (now < cap && !enough_blocked())));

	for (k = 0; k < NR_KINDS; k++) {
		struct count *c = &counts[k];

		if (!kind_used(k))
			continue;
		printf("change %s applied=%lu blocked=%lu refused=%lu undo_failed=%lu", kind_name[k],
		       c->applied, c->blocked, c->refused, c->undo_failed);
		if (c->last_errno)
			printf(" error=%s", strerror(c->last_errno));
		putchar('\n');
		total += c->applied;
		blocked += c->blocked;
		undo_failed += c->undo_failed;
	}
	printf("total changes=%lu blocked=%lu undo_failed=%lu rounds=%lu\n", total, blocked,
	       undo_failed, rounds);
	return undo_failed ? 1 : 0;
}

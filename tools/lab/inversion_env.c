// SPDX-License-Identifier: GPL-2.0
/*
 * inversion, football: the run's settings (struct inv_env), their
 * defaults, the options both programs take and the checks both need.
 */
#include <argp.h>
#include <sched.h>
#include <stdio.h>

#include "inversion.h"

struct inv_env env = {
	.tool		= "inversion",
	.iterations	= 100,
	.hog_cap_us	= 100000,
	.depth		= 3,
	.waiter_prio	= 80,
	.hog_prio	= 50,
	.defense_prio	= 60,
	.offense_prio	= 40,
	.cgroup		= "pxinv-bg",
	.weight		= 1,
	.waiter_cgroup	= "pxinv-fg",
	.waiter_weight	= 10000,
	.tail_nice	= 19,
	.spinners	= -1,		/* mixed: 1, else 0 */
	.workers	= 4,
	.set		= 2,
	.dl_runtime_us	= 5000,
	.dl_deadline_us	= 20000,
	.dl_period_us	= 20000,
	.timeout_s	= 120,
	.grace_s	= 30,
};

static const struct argp_option common_opts[] = {
	{ "break", OPT_BREAK, "USEC", 0, "stop at the first acquire that waited longer than USEC: trace marker, tracing off, exit 4", 0 },
	{ "first-mutex", OPT_FIRST_MUTEX, "IDX", 0, "lowest lab mutex to use (default 0)", 0 },
	{ "grace", OPT_GRACE, "SEC", 0, "how long the children may take to start, and to exit after the stop, before it is a failure (default 30; more on slow, overcommitted guests)", 0 },
	{ "hist", OPT_HIST, "FILE", 0, "write the gnuplot latency histogram to FILE", 0 },
	{ "keep-throttle", OPT_KEEP_THROTTLE, NULL, 0, "leave sched_rt_runtime_us alone (default: -1 during RT runs)", 0 },
	{ "output", 'o', "FILE", 0, "write the JSON result to FILE (- for stdout)", 0 },
	{ "quiet", 'q', NULL, 0, "print only the summary table and the consistency line", 0 },
	{ "timeout", 't', "SEC", 0, "give up after SEC seconds (default 120)", 0 },
	{},
};

static error_t parse_common(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'o':
		env.json_path = arg;
		break;
	case 'q':
		env.quiet = true;
		break;
	case 't':
		env.timeout_s = px_arg_u64(state, "timeout in s", arg, 1, 86400);
		break;
	case OPT_BREAK:
		env.break_ns = px_arg_u64(state, "break threshold in us", arg, 1,
					  3600 * 1000000ULL) * NSEC_PER_USEC;
		break;
	case OPT_FIRST_MUTEX:
		env.first_mutex = px_arg_long(state, "mutex index", arg, 0,
					      PROXYLAB_NR_MUTEXES - 1);
		break;
	case OPT_GRACE:
		env.grace_s = px_arg_u64(state, "grace in s", arg, 1, 3600);
		break;
	case OPT_HIST:
		env.hist_path = arg;
		break;
	case OPT_KEEP_THROTTLE:
		env.keep_throttle = true;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

const struct argp inv_common_argp = { common_opts, parse_common, NULL, NULL, NULL, NULL, NULL };

error_t inv_parse_run_opt(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'b':
		env.burn_us = px_arg_u64(state, "burn time in us", arg, 0, PROXYLAB_MAX_USECS);
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
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

int inv_check_cpus(int *error)
{
	cpu_set_t online;
	int cpu, n = 0;

	if (px_online_cpus(&online))
		CPU_ZERO(&online);
	env.cpu[0] = env.cpu[1] = -1;
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &env.cpus))
			continue;
		if (CPU_COUNT(&online) && !CPU_ISSET(cpu, &online)) {
			fprintf(stderr, "CPU %d is not online\n", cpu);
			*error = 1;
		}
		if (n < 2)
			env.cpu[n] = cpu;
		n++;
	}
	return n;
}

int inv_check_mutexes(int used)
{
	if (env.first_mutex + used <= PROXYLAB_NR_MUTEXES)
		return 0;
	fprintf(stderr, "--first-mutex %d leaves too few of the %d lab mutexes\n",
		env.first_mutex, PROXYLAB_NR_MUTEXES);
	return 1;
}

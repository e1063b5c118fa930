// SPDX-License-Identifier: GPL-2.0
/*
 * inversion - priority-inversion workloads on the proxylab kernel mutexes.
 *
 * Each subcommand builds one kind of inversion around /dev/proxylab and
 * records every acquire latency of the waiter (the kernel's wait_ns,
 * request -> owned).  This file is main and the options; inversion.h
 * lists the other parts and the per-iteration handshake, tools/README.md
 * the result file.  `inversion football` plays the game of the program
 * football (football_game.c), with this program's options as before.
 */
#include <argp.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "inversion.h"

static const struct scenario_desc scenarios[] = {
	{ "cfs",	 SC_CFS,	 "owner in a cgroup with tiny cpu.weight, spinners at normal weight" },
	{ "rt",		 SC_RT,		 "SCHED_FIFO waiter, SCHED_OTHER owner, SCHED_FIFO mid-priority hogs" },
	{ "dl",		 SC_DL,		 "SCHED_DEADLINE waiter, SCHED_OTHER owner, SCHED_FIFO hogs" },
	{ "chain",	 SC_CHAIN,	 "like rt, through a blocked_on chain of --depth owners" },
	{ "xcpu",	 SC_XCPU,	 "like rt, owner and hogs on another CPU than the waiter (which may run on both)" },
	{ "sleep-owner", SC_SLEEP_OWNER, "like rt, the owner sleeps (then burns) while holding" },
	{ "cgweight",	 SC_CGWEIGHT,	 "cfs between groups: the waiter's cpu.weight 10000, the owner's 1, both nice 0" },
	{ "mixed",	 SC_MIXED,	 "FIFO waiter -> nice-0 owner -> nice-19 owner, FIFO hogs and a nice-0 spinner" },
	{ "contend",	 SC_CONTEND,	 "throughput: workers lock, burn and unlock a small set of lab locks" },
	{ "football",	 SC_FOOTBALL,	 FOOTBALL_HELP },
};

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
"  cgweight     like cfs, but the waiter sits in a group of its own with\n"
"               cpu.weight 10000 (--waiter-weight), the owner's group has 1;\n"
"               both nice 0, so priority inheritance has nothing to boost\n"
"  mixed        a mixed-class chain: SCHED_FIFO waiter -> SCHED_OTHER owner\n"
"               (nice 0) blocked on a lock held by a nice-19 owner\n"
"               (--tail-nice); FIFO hog bursts and a nice-0 spinner\n"
"  contend      not an inversion, the cost side: --workers processes\n"
"               (nice 0 and 10 in turn) lock, burn -b USEC (default 10)\n"
"               and unlock the --set lab locks in turn; each wait is a\n"
"               sample, the count in -d TIME is the throughput\n"
"  football     RT invariant: high-priority lock waiters keep their CPUs; the\n"
"               same game as the program football (see football --help)\n"
"\n"
"Prints the waiter's acquire latency (min p50 p90 p99 p99.9 max count), the\n"
"owner's CPU share while the waiter waited, and a consistency line; -o writes\n"
"the JSON result, --hist the gnuplot histogram (format: tools/README.md).\n"
"Exit: 0 ok, 1 error or inconsistency, 3 football invariant violated,\n"
"4 --break tripped, 64 usage.\n"
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
"    inversion chain -D 3 --locks mutex,read,write  # rwsems in the chain\n"
"    inversion rt --locks rtmutex      # priority inheritance instead\n"
"    inversion cgweight -d 2s --locks rtmutex  # what PI does between groups\n"
"    inversion mixed -d 2s             # FIFO -> nice 0 -> nice 19\n"
"    inversion contend -d 2s --workers 4 --set 2 --locks rtmutex\n"
"    inversion xcpu -c 0,1 --hist h.txt\n"
"    inversion football -d 3s          # exit 3 if the ball moved\n"
"    inversion rt --break 5000         # stop the trace at a wait > 5 ms\n"
"\n"
"Options:";

static const struct argp_option opts[] = {
	{ "burn", 'b', "USEC", 0, "CPU time the (last) owner burns while holding (default 1000)", 0 },
	{ "cgroup", OPT_CGROUP, "NAME", 0, "cfs: cgroup of the owner (default pxinv-bg)", 0 },
	{ "cpu-max", OPT_CPU_MAX, "\"QUOTA PERIOD\"", 0, "cfs: cpu.max of the owner's group (implies --throttle)", 0 },
	{ "cpus", 'c', "LIST", 0, "CPUs: the first for waiter, owner and hogs; xcpu puts owner and hogs on the second (default 0, xcpu 0,1, football all)", 0 },
	{ "depth", 'D', "N", 0, "chain: owners in the chain, 1..16 (default 3; mixed: 2)", 0 },
	{ "dl-deadline", OPT_DL_DEADLINE, "USEC", 0, "dl: waiter's relative deadline (default 20000)", 0 },
	{ "dl-period", OPT_DL_PERIOD, "USEC", 0, "dl: waiter's period (default 20000)", 0 },
	{ "dl-runtime", OPT_DL_RUNTIME, "USEC", 0, "dl: waiter's runtime (default 5000)", 0 },
	{ "duration", 'd', "TIME", 0, "run this long instead of -n (e.g. 5s, 500ms; default unit s); football: game length (default 3s)", 0 },
	{ "spread", OPT_SPREAD, NULL, 0, "chain: owner k starts on the (k+1)-th CPU of --cpus (wrapping), hogs with the last (pinned) owner; the waiter and the blocked owners may run on all of them", 0 },
	{ "pinned", OPT_PINNED, NULL, 0, "xcpu, chain --spread: the waiter and every owner stay pinned to their own CPU (blocked tasks only lend their scheduling context, so proxy execution may still move them)", 0 },
	{ "hog-cap", OPT_HOG_CAP, "USEC", 0, "longest hog burst per iteration (default 100000)", 0 },
	{ "hog-prio", OPT_HOG_PRIO, "PRIO", 0, "SCHED_FIFO priority of the hogs (default 50)", 0 },
	{ "hogs", 'H', "N", 0, "hogs/spinners (default 2 for cfs, else 1)", 0 },
	{ "iterations", 'n', "N", 0, "acquisitions to measure (default 100, cfs and cgweight 20, contend 10000); with -d, at most this many", 0 },
	{ "locks", OPT_LOCKS, "LIST", 0, "the lab lock of each link, the waiter's first: mutex, write (an rwsem its owner holds for writing, waited for as a writer), read (the same, waited for as a reader) or rtmutex (an rt_mutex: priority inheritance instead of proxy execution); one entry for every link or one per link (default mutex)", 0 },
	{ "set", OPT_SET, "N", 0, "contend: lab locks the workers share, 1..16 (default 2)", 0 },
	{ "sleep", 's', "USEC", 0, "sleep-owner: time the owner sleeps while holding (default 1000)", 0 },
	{ "spinners", OPT_SPINNERS, "N", 0, "mixed: SCHED_OTHER nice-0 spinners on the owners' CPU for the whole run (default 1)", 0 },
	{ "tail-nice", OPT_TAIL_NICE, "NICE", 0, "mixed: nice of the last owner, -20..19 (default 19)", 0 },
	{ "throttle", OPT_THROTTLE, NULL, 0, "cfs: put the owner's group under cpu.max \"1000 100000\"", 0 },
	{ "verbose", 'v', NULL, 0, "print each iteration's latency", 0 },
	{ "waiter-cgroup", OPT_WAITER_CGROUP, "NAME", 0, "cgweight: cgroup of the waiter (default pxinv-fg)", 0 },
	{ "waiter-prio", OPT_WAITER_PRIO, "PRIO", 0, "SCHED_FIFO priority of the waiter (default 80)", 0 },
	{ "waiter-weight", OPT_WAITER_WEIGHT, "W", 0, "cgweight: cpu.weight of the waiter's group, 1..10000 (default 10000)", 0 },
	{ "weight", OPT_WEIGHT, "W", 0, "cfs, cgweight: cpu.weight of the owner's group, 1..10000 (default 1)", 0 },
	{ "workers", 'w', "N", 0, "contend: worker processes, 1..64 (default 4)", 0 },
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

/* --locks LIST: env.lock[], env.nlocks. */
static void parse_locks(struct argp_state *state, char *arg)
{
	char *save = NULL, *t;

	env.nlocks = 0;
	for (t = strtok_r(arg, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		enum inv_lock l = LK_MUTEX;

		if (!strcmp(t, "mutex") || !strcmp(t, "m"))
			l = LK_MUTEX;
		else if (!strcmp(t, "write") || !strcmp(t, "w"))
			l = LK_WRITE;
		else if (!strcmp(t, "read") || !strcmp(t, "r"))
			l = LK_READ;
		else if (!strcmp(t, "rtmutex") || !strcmp(t, "rt"))
			l = LK_RTMUTEX;
		else
			argp_error(state, "--locks: '%s' is not mutex, write, read or rtmutex", t);
		if (env.nlocks == INV_MAX_DEPTH)
			argp_error(state, "--locks: more than %d entries", INV_MAX_DEPTH);
		env.lock[env.nlocks++] = l;
	}
	if (!env.nlocks)
		argp_error(state, "--locks: no entry");
}

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	const uint64_t max_us = PROXYLAB_MAX_USECS;

	switch (key) {
	case 'D':
		env.depth = px_arg_long(state, "depth", arg, 1, INV_MAX_DEPTH);
		env.depth_set = true;
		break;
	case 'H':
		env.hogs = px_arg_long(state, "number of hogs", arg, 0, INV_MAX_HOGS);
		env.hogs_set = true;
		break;
	case 'n':
		env.iterations = px_arg_u64(state, "iterations", arg, 1, INV_MAX_SAMPLES);
		env.iter_set = true;
		break;
	case 's':
		env.sleep_us = px_arg_u64(state, "sleep time in us", arg, 0, max_us);
		env.sleep_set = true;
		break;
	case 'v':
		env.verbose = true;
		break;
	case 'w':
		env.workers = px_arg_long(state, "number of workers", arg, 1, INV_MAX_WORKERS);
		break;
	case OPT_CGROUP:
		env.cgroup = arg;
		break;
	case OPT_WAITER_CGROUP:
		env.waiter_cgroup = arg;
		break;
	case OPT_WAITER_WEIGHT:
		env.waiter_weight = px_arg_long(state, "cpu.weight", arg, 1, 10000);
		break;
	case OPT_TAIL_NICE:
		env.tail_nice = px_arg_long(state, "nice", arg, -20, 19);
		break;
	case OPT_SPINNERS:
		env.spinners = px_arg_long(state, "number of spinners", arg, 0, INV_MAX_HOGS);
		break;
	case OPT_SET:
		env.set = px_arg_long(state, "number of lab locks", arg, 1, INV_MAX_DEPTH);
		break;
	case OPT_LOCKS:
		parse_locks(state, arg);
		break;
	case OPT_CPU_MAX:
		env.cpu_max = arg;
		break;
	case OPT_DL_DEADLINE:
		env.dl_deadline_us = px_arg_u64(state, "deadline in us", arg, 100, max_us);
		break;
	case OPT_DL_PERIOD:
		env.dl_period_us = px_arg_u64(state, "period in us", arg, 100, max_us);
		break;
	case OPT_DL_RUNTIME:
		env.dl_runtime_us = px_arg_u64(state, "runtime in us", arg, 100, max_us);
		break;
	case OPT_SPREAD:
		env.spread = true;
		break;
	case OPT_PINNED:
		env.pinned = true;
		break;
	case OPT_HOG_CAP:
		env.hog_cap_us = px_arg_u64(state, "hog cap in us", arg, 1, max_us);
		break;
	case OPT_HOG_PRIO:
		env.hog_prio = px_arg_long(state, "hog priority", arg, 1, 98);
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
		return inv_parse_run_opt(key, arg, state);
	}
	return 0;
}

/*
 * Scenario defaults for what the user did not set, then the checks that
 * need all options: one error line and the usage, once.
 */
static void check_env(struct argp_state *state)
{
	enum inv_scenario id = env.sc->id;
	int k, n, error = 0;

	if (id == SC_FOOTBALL) {
		football_defaults();
	} else {
		if (!env.burn_set)
			env.burn_us = id == SC_SLEEP_OWNER ? 200 : id == SC_CONTEND ? 10 : 1000;
		if (!env.sleep_set)
			env.sleep_us = id == SC_SLEEP_OWNER ? 1000 : 0;
		if (!env.hogs_set)
			env.hogs = is_fair_scenario() ? 2 : id == SC_CONTEND ? 0 : 1;
		if (!env.iter_set && is_fair_scenario())
			env.iterations = 20;
		if (!env.iter_set && id == SC_CONTEND)
			env.iterations = 10000;
		if (id == SC_MIXED && env.depth_set && env.depth < 2) {
			fprintf(stderr, "mixed needs a chain: --depth 2 or more\n");
			error = 1;
		}
		if (id == SC_MIXED && !env.depth_set)
			env.depth = 2;
		else if (id == SC_CONTEND)
			env.depth = env.set;
		else if (id != SC_CHAIN && id != SC_MIXED)
			env.depth = 1;
		if (!env.cpus_set) {
			CPU_ZERO(&env.cpus);
			CPU_SET(0, &env.cpus);
			if (id == SC_XCPU)
				CPU_SET(1, &env.cpus);
			if (id == SC_CONTEND && px_online_cpus(&env.cpus))
				CPU_SET(0, &env.cpus);
		}
	}
	n = inv_check_cpus(&error);
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
	if (env.nlocks && id == SC_FOOTBALL) {
		fprintf(stderr, "--locks is for the lock scenarios, not football\n");
		error = 1;
	} else if (env.nlocks == 1) {
		for (k = 1; k < env.depth; k++)
			env.lock[k] = env.lock[0];
	} else if (env.nlocks && env.nlocks != env.depth) {
		fprintf(stderr, "--locks: %d entries for %d link(s): give one, or one per link\n",
			env.nlocks, env.depth);
		error = 1;
	}
	for (k = 0; id != SC_FOOTBALL && k < env.depth; k++) {
		env.any_rwsem |= env.lock[k] == LK_WRITE || env.lock[k] == LK_READ;
		env.any_rtmutex |= env.lock[k] == LK_RTMUTEX;
	}
	error |= football_check(id == SC_FOOTBALL ? n : 0);
	error |= inv_check_mutexes(id == SC_FOOTBALL ? n : env.depth);
	if (env.cpu_max && !is_fair_scenario())
		px_warnx("--cpu-max/--throttle only apply to cfs and cgweight; ignored");
	if (id == SC_CONTEND && env.hogs) {
		fprintf(stderr, "contend has no hogs (-H 0)\n");
		error = 1;
	}
	if (id == SC_CONTEND && env.sleep_us) {
		fprintf(stderr, "contend: no --sleep\n");
		error = 1;
	}
	if (env.spinners > 0 && id != SC_MIXED) {
		fprintf(stderr, "--spinners is for mixed\n");
		error = 1;
	}
	if (env.spinners < 0)
		env.spinners = id == SC_MIXED ? 1 : 0;
	if (id == SC_DL && (env.dl_runtime_us > env.dl_deadline_us ||
			    env.dl_deadline_us > env.dl_period_us)) {
		fprintf(stderr, "dl: need runtime <= deadline <= period\n");
		error = 1;
	}
	if (env.hog_prio >= env.waiter_prio) {
		fprintf(stderr, "--hog-prio must be below --waiter-prio\n");
		error = 1;
	}
	if (error)
		argp_usage(state);
}

int main(int argc, char **argv)
{
	static const struct argp_child children[] = {
		{ &inv_common_argp, 0, NULL, 0 },
		{ &football_argp, 0, "football:", 0 },
		{},
	};
	static const struct argp argp = { opts, parse_arg, NULL, doc, children, NULL, NULL };
	struct px_result res;

	if (px_result_init(&res, "inversion", "lock_wait", argc, argv))
		px_fatal(EXIT_FAIL, "out of memory");
	if (px_argp_parse(&argp, argc, argv, NULL))
		return PX_EXIT_USAGE;
	return inv_run(&res, env.sc->id == SC_FOOTBALL ? run_football :
			     env.sc->id == SC_CONTEND ? run_contend : run_lock_scenario);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * football: the game both `football` and `inversion football` play, after
 * LTP's sched_football and the kernel's ksched_football, on lab mutexes.
 *
 * Per CPU of --cpus (team k on the k-th CPU, or all on all with --float):
 * an owner (SCHED_OTHER) holds mutex first+k except between two burns, a
 * defense task (SCHED_FIFO 60) keeps locking it, an offense task
 * (SCHED_FIFO 40) counts the ball.  The referee (the parent, SCHED_FIFO
 * 90) zeroes the ball after a warm-up and reads it at the end: a defense
 * task keeps its CPU only if its owner runs on its behalf (proxy
 * execution); otherwise the offense runs and the ball moves (exit 3).
 *
 * Here: the options only football has, its defaults and checks, the
 * roles, the referee, and football's part of the verdict and the output.
 */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "inversion.h"

const struct scenario_desc football_scenario = { "football", SC_FOOTBALL, FOOTBALL_HELP };

static uint64_t ball;	/* the referee's count at the final whistle */

static const struct argp_option fb_opts[] = {
	{ "defense-prio", OPT_DEFENSE_PRIO, "PRIO", 0, "defense priority (default 60)", 0 },
	{ "float", OPT_FLOAT, NULL, 0, "let every task run on any of the CPUs (default: team k on the k-th CPU)", 0 },
	{ "offense-prio", OPT_OFFENSE_PRIO, "PRIO", 0, "offense priority (default 40)", 0 },
	{},
};

static error_t parse_fb(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case OPT_DEFENSE_PRIO:
		env.defense_prio = px_arg_long(state, "defense priority", arg, 1, 98);
		break;
	case OPT_FLOAT:
		env.fb_float = true;
		break;
	case OPT_OFFENSE_PRIO:
		env.offense_prio = px_arg_long(state, "offense priority", arg, 1, 98);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

const struct argp football_argp = { fb_opts, parse_fb, NULL, NULL, NULL, NULL, NULL };

/* What the user did not set: owners burn 500 us, 3 s game, every CPU. */
void football_defaults(void)
{
	cpu_set_t online;

	if (!env.burn_set)
		env.burn_us = 500;
	if (!env.duration_ns)
		env.duration_ns = 3 * NSEC_PER_SEC;
	env.depth = 1;
	if (!env.cpus_set) {
		CPU_ZERO(&env.cpus);
		if (!px_online_cpus(&online))
			env.cpus = online;
		CPU_SET(0, &env.cpus);
	}
}

int football_check(int team)
{
	int error = 0;

	if (team > INV_MAX_TEAM) {
		fprintf(stderr, "football: at most %d CPUs\n", INV_MAX_TEAM);
		error = 1;
	}
	if (env.offense_prio >= env.defense_prio) {
		fprintf(stderr, "--offense-prio must be below --defense-prio\n");
		error = 1;
	}
	return error;
}

uint64_t football_ball(void)
{
	return ball;
}

/* ---------------------------------------------------------------- roles */

/* The k-th CPU of --cpus, or all of them with --float. */
static void pin_team_or_fail(int k, const char *who)
{
	if (env.fb_float) {
		if (px_pin_self_set(&env.cpus))
			child_fail("%s: cannot set affinity: %s", who, strerror(errno));
		return;
	}
	pin_or_fail(nth_cpu(k), who);
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
	lab_lock(fd, m, LK_MUTEX, who);
	__atomic_fetch_add(&sh->owner_acq[k], 1, __ATOMIC_RELAXED);
	post(&sh->ready);
	for (;;) {
		lab_usecs(fd, PROXYLAB_IOC_BURN, env.burn_us, who);
		lab_unlock(fd, m, LK_MUTEX, who);
		if (sh->stop)
			break;
		lab_lock(fd, m, LK_MUTEX, who);
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
		ns = lab_lock(fd, m, LK_MUTEX, who);
		if (sh->kickoff)
			lab_check_break(m, ns);
		lab_usecs(fd, PROXYLAB_IOC_BURN, 20, who);
		lab_unlock(fd, m, LK_MUTEX, who);
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

/* -------------------------------------------------------------- referee */

bool run_football(void)
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
	ball = __atomic_load_n(&sh->ball, __ATOMIC_SEQ_CST);
	sh->kickoff = 0;
	sh->stop = 1;
	return supervise(deadline);
}

/* ---------------------------------------------------------------- report */

void football_header(void)
{
	char buf[256];

	fprintf(out, "  game %" PRIu64 " ms on CPUs %s (%s), owners burn %" PRIu64 " us\n",
		env.duration_ns / 1000000, px_cpulist_str(&env.cpus, buf, sizeof(buf)),
		env.fb_float ? "floating" : "team k on the k-th CPU", env.burn_us);
}

/*
 * Every owner got its mutex at least once, every sample is a defense
 * acquire, and with debugfs each mutex was acquired exactly as often as
 * its owner and its defense task say.
 */
bool football_judge(const struct verdict *v)
{
	int k, team = CPU_COUNT(&env.cpus);
	uint64_t total = 0;
	bool ok = true;

	for (k = 0; k < team; k++) {
		total += sh->defense_acq[k];
		if (v->have_state &&
		    v->delta[env.first_mutex + k] != sh->defense_acq[k] + sh->owner_acq[k])
			ok = false;
		if (!sh->owner_acq[k])
			ok = false;
	}
	if (sh->nsamples > total)
		ok = false;
	return ok;
}

void football_json_params(struct px_json *j)
{
	px_json_i64(j, "defense_prio", env.defense_prio);
	px_json_i64(j, "offense_prio", env.offense_prio);
	px_json_bool(j, "float", env.fb_float);
}

void football_json_checks(struct px_json *j)
{
	int team = CPU_COUNT(&env.cpus);

	px_json_u64(j, "ball", ball);
	px_json_bool(j, "violation", ball != 0);
	json_u64_array(j, "owner_acquired", sh->owner_acq, team);
	json_u64_array(j, "defense_acquired", sh->defense_acq, team);
	px_json_u64(j, "samples_dropped", sh->dropped);
}

void football_consistency(void)
{
	fprintf(out, "consistency: cpus=%d samples=%" PRIu64 " dropped=%" PRIu64,
		CPU_COUNT(&env.cpus), sh->nsamples, sh->dropped);
}

void football_result(void)
{
	fprintf(out, "football: ball moved %" PRIu64 " times in %" PRIu64 " ms -> %s\n",
		ball, env.duration_ns / 1000000,
		ball ? "FAIL (offense ran while defense waited)" : "PASS");
}

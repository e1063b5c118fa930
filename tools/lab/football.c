// SPDX-License-Identifier: GPL-2.0
/*
 * football - the RT invariant of LTP's sched_football and the kernel's
 * ksched_football, on the proxylab kernel mutexes: high-priority tasks
 * blocked on a mutex keep their CPUs while its low-priority owner runs on
 * their behalf, so the offense never gets to move the ball.
 *
 * This file is main and the options; the game is football_game.c, the
 * supervisor, lab access and report are inversion's (inversion.h), and
 * `inversion football` plays the same game.
 */
#include <argp.h>
#include <stdio.h>

#include "inversion.h"

static const char doc[] =
"The RT invariant of LTP's sched_football on /dev/proxylab (CONFIG_PROXYLAB).\n"
"\n"
"USAGE: football [OPTIONS]\n"
"\n"
"Per CPU of --cpus: an owner (SCHED_OTHER) that holds its lab mutex except\n"
"between two burns, a defense task (SCHED_FIFO 60) that keeps locking it and\n"
"an offense task (SCHED_FIFO 40) that counts the ball.  The referee\n"
"(SCHED_FIFO 90) zeroes the ball after a 200 ms warm-up and reads it after\n"
"the game: the defense keeps its CPUs only if the owners run on its behalf\n"
"(proxy execution).\n"
"\n"
"Prints the defense's acquire latency, a consistency line and \"football: ball\n"
"moved N times in T ms -> PASS\" (or FAIL); -o writes the JSON result, --hist\n"
"the gnuplot histogram (format: tools/README.md).  Exit: 0 the ball stayed\n"
"still, 1 error or inconsistency, 3 the ball moved, 4 --break tripped, 64 usage.\n"
"\n"
"EXAMPLES:\n"
"    football                      # 3 s game on every CPU\n"
"    football -d 10s -c 0-3 -o f.json\n"
"    football --float -d 1s        # any task may run on any CPU of the game\n"
"\n"
"Options:";

static const struct argp_option opts[] = {
	{ "burn", 'b', "USEC", 0, "CPU time the owners burn while holding (default 500)", 0 },
	{ "cpus", 'c', "LIST", 0, "CPUs of the game, one team each (default all)", 0 },
	{ "duration", 'd', "TIME", 0, "game length (e.g. 5s, 500ms; default unit s; default 3s)", 0 },
	{},
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	int n, error = 0;

	switch (key) {
	case ARGP_KEY_ARG:
		fprintf(stderr, "unexpected argument: %s\n", arg);
		argp_usage(state);
		break;
	case ARGP_KEY_END:
		football_defaults();
		n = inv_check_cpus(&error);
		error |= football_check(n);
		error |= inv_check_mutexes(n);
		if (error)
			argp_usage(state);
		break;
	default:
		return inv_parse_run_opt(key, arg, state);
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct argp_child children[] = {
		{ &football_argp, 0, NULL, 0 },
		{ &inv_common_argp, 0, NULL, 0 },
		{},
	};
	static const struct argp argp = { opts, parse_arg, NULL, doc, children, NULL, NULL };
	struct px_result res;

	env.tool = "football";
	env.sc = &football_scenario;
	if (px_result_init(&res, env.tool, "lock_wait", argc, argv))
		px_fatal(EXIT_FAIL, "out of memory");
	if (px_argp_parse(&argp, argc, argv, NULL))
		return PX_EXIT_USAGE;
	return inv_run(&res, run_football);
}

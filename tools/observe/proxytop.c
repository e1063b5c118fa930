// SPDX-License-Identifier: GPL-2.0
/*
 * proxytop: live view of proxy execution, like top.  A header of
 * system-wide rates, then rows per owner, per donor or per cgroup.  This
 * file samples the maps and renders text; on a terminal proxytop_tui.c
 * (ncurses) shows it and reads the keys, otherwise (-b, -C, stdout not a
 * terminal) the text goes to stdout as it is.
 *
 * Usage: proxytop [-h] [-b] [-n N] [-d SECS] [-O|-D|-G] [-s SORT] [-r ROWS] [-C]
 *                 [-p PID] [-c CGROUP] [-T] [-j] [-v] [interval] [count]
 */
#define _GNU_SOURCE
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "proxytop_render.h"
#include "proxytop.skel.h"
#include "proxytop_tui.h"
#include "pxbpf_user.h"
#include "pxutil.h"

const char *const view_names[VIEW_NR] = { "owners", "donors", "cgroups" };
const char *const sort_names[SORT_NR] = {
	"time", "picks", "donors", "depth", "migrations",
};

struct proxytop_env env = { .c = { .interval = 1, .count = PXBPF_FOREVER }, .rows = 20,
	  .max_pairs = PX_MAX_PAIRS };

#define NSEC_PER_SEC	1000000000ULL
#define DELAY_MIN_NS	(NSEC_PER_SEC / 10)
#define DELAY_MAX_NS	(3600 * NSEC_PER_SEC)

enum { OPT_MAX_PAIRS = 1000 };

static const char doc[] =
"Live view of proxy execution: who runs on whose behalf, how much, how deep.\n"
"\n"
"USAGE: proxytop [-h] [-b] [-n N] [-d SECS] [-O|-D|-G] [-s SORT] [-r ROWS] [-C]\n"
"                [--max-pairs N] [-p PID] [-c CGROUP] [-T] [-j] [-v] [interval] [count]\n"
"\n"
"Header: system-wide proxy picks, donor migrations, returns and\n"
"sleeping-owner enqueues per second, and the share of all CPU time that\n"
"owners ran on donors' behalf.  Rows (-p/-c filter them): DON_ms/s is\n"
"donor runtime per second, DONORS/OWNERS distinct counterparts, MAXD the\n"
"deepest chain seen, MIGR donor migrations, TOP the main counterpart.\n"
"On a terminal at least 80 columns wide, LOCK tells which locks the picks\n"
"went through since the pairs were first seen: mutex, rwsem, both, or -\n"
"(none yet); -j gives it as lock_type.\n"
"\n"
"-T: the header's time carries the date too.\n"
"\n"
"On a terminal the view fits the window (ncurses; keys below); -b, -C or\n"
"stdout not a terminal print plain text, one refresh after the other.\n"
"Keys: o owners, d donors, g cgroups, TAB next view, s next sort key,\n"
"R reverse the sort, + / - refresh interval, Ctrl-L redraw, h or ? help,\n"
"q quit.  SORT: time picks donors depth migrations.\n"
"\n"
"EXAMPLES:\n"
"    proxytop                 # refresh every second until q or Ctrl-C\n"
"    proxytop -D -s depth     # rows per donor, deepest chains first\n"
"    proxytop -G -d 2         # rows per cgroup, every 2 seconds\n"
"    proxytop -d 0.5 -T       # twice a second, the date in the header\n"
"    proxytop -b -n 3         # batch mode: 3 plain-text refreshes\n"
"    proxytop -j -n 5         # 5 JSON lines\n"
"    proxytop -c /lab -r 5    # cgroup /lab only, top 5 rows\n";

static const struct argp_option opts[] = {
	{ "batch", 'b', NULL, 0, "Batch mode: plain output, no keys (default when stdout is not a terminal)", 0 },
	{ "iterations", 'n', "N", 0, "Stop after N refreshes", 0 },
	{ "delay", 'd', "SECS", 0, "Refresh interval in seconds, 0.1 to 3600, fractions allowed (default 1)", 0 },
	{ "owners", 'O', NULL, 0, "Rows per owner (default)", 0 },
	{ "donors", 'D', NULL, 0, "Rows per donor", 0 },
	{ "cgroups", 'G', NULL, 0, "Rows per cgroup", 0 },
	{ "sort", 's', "SORT", 0, "Sort by time (default), picks, donors, depth or migrations", 0 },
	{ "rows", 'r', "ROWS", 0, "At most ROWS rows (default 20)", 0 },
	{ "noclear", 'C', NULL, 0, "Plain text on a terminal too, one refresh after the other (no screen, no keys)", 0 },
	{ "max-pairs", OPT_MAX_PAIRS, "N", 0,
	  "Donor/owner pairs kept (default 10240); when full, the least recently active go", 0 },
	{},
};

/* -d: seconds with a fraction ("0.5") or a unit ("500ms"); the same as [interval]. */
static double parse_delay(struct argp_state *state, const char *arg)
{
	return (double)px_arg_duration_ns(state, "interval", arg, NSEC_PER_SEC,
					  DELAY_MIN_NS, DELAY_MAX_NS) / 1e9;
}

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	int i;

	switch (key) {
	case 'b':
		env.batch = true;
		break;
	case 'n':
		env.c.count = px_arg_long(state, "count", arg, 1, INT_MAX);
		env.count_set = true;
		break;
	case 'd':
		env.delay = parse_delay(state, arg);
		break;
	case 'O':
		env.view = VIEW_OWNER;
		break;
	case 'D':
		env.view = VIEW_DONOR;
		break;
	case 'G':
		env.view = VIEW_CGROUP;
		break;
	case 's':
		for (i = 0; i < SORT_NR; i++)
			if (!strcmp(arg, sort_names[i]))
				break;
		if (i == SORT_NR)
			argp_error(state, "invalid SORT: %s (time, picks, donors, depth, migrations)", arg);
		env.sort = i;
		break;
	case 'r':
		env.rows = px_arg_long(state, "ROWS", arg, 1, 10000);
		break;
	case 'C':
		env.noclear = true;
		break;
	case OPT_MAX_PAIRS:
		env.max_pairs = px_arg_long(state, "max-pairs", arg, PXBPF_MAX_PAIRS_MIN,
					    PXBPF_MAX_PAIRS_MAX);
		break;
	case ARGP_KEY_END:
		if (env.delay && env.c.nargs)
			argp_error(state, "the interval twice: -d and the interval argument");
		if (env.count_set && env.c.nargs > 1)
			argp_error(state, "the count twice: -n and the count argument");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static int sample(struct proxytop_bpf *obj, struct frame *fr)
{
	int err;

	pxbpf_pairs_free(&fr->prev);
	fr->prev = fr->cur;
	fr->cur.v = NULL;
	fr->cur.n = 0;
	fr->prev_cnt = fr->cnt;
	if (fr->evicted > fr->prev_evicted)
		fr->prev_evicted = fr->evicted;
	err = pxbpf_counters_read(obj->maps.counters, &fr->cnt);
	if (!err)
		err = pxbpf_pairs_snapshot(obj->maps.pairs, obj->maps.stretch, &fr->cur);
	if (!err)
		fr->evicted = pxbpf_pairs_evicted(&fr->cnt, &fr->cur);
	if (!err)
		err = pxbpf_pairs_delta(&fr->cur, &fr->prev, &fr->delta);
	return err;
}

/* Plain output (-b, -C, -j, stdout not a terminal): one refresh. */
static void render_plain(const struct frame *fr)
{
	const struct layout lo = { .max_rows = env.rows };
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	f = open_memstream(&buf, &len);
	if (!f)
		return;
	if (env.c.json) {
		render_json(f, fr);
	} else {
		render_text(f, fr, &lo);
		if (env.batch)
			fputc('\n', f);
	}
	fclose(f);
	fwrite(buf, 1, len, stdout);
	fflush(stdout);
	free(buf);
}

/* Totals since start, printed when interrupted. */
static void summary(const struct frame *fr, __u64 start_ts)
{
	const struct layout lo = { .max_rows = env.rows };
	struct frame all = *fr;

	all.prev = (struct pxbpf_pairs){ .ts = start_ts };
	memset(&all.prev_cnt, 0, sizeof(all.prev_cnt));
	all.prev_evicted = 0;
	all.delta = fr->cur;
	printf("\nproxytop: totals since start\n");
	render_text(stdout, &all, &lo);
	fflush(stdout);
}

static const char help_text[] =
"proxytop - keys\n"
"\n"
"  o        rows per owner (tasks that ran on a donor's behalf)\n"
"  d        rows per donor (blocked tasks whose scheduling context ran them)\n"
"  g        rows per cgroup\n"
"  TAB      next view\n"
"  s        next sort key: time picks donors depth migrations\n"
"  R        reverse the sort (smallest first)\n"
"  + -      longer / shorter refresh interval (0.1 s to 1 h)\n"
"  Ctrl-L   redraw the screen\n"
"  h ?      this help; any key leaves it\n"
"  q        quit and print the totals since start\n"
"\n"
"Ctrl-C quits like q, Ctrl-Z suspends (fg resumes).  A new window size\n"
"redraws at once.  The view fits the window: rows that do not fit are\n"
"left out (-r caps them too), the TOP-* column is cut first.\n"
"\n"
"Header: system-wide proxy picks, donor migrations, returns, sleeping-owner\n"
"enqueues, aborts, activations and handoffs per second, and the share of\n"
"all CPU time that owners ran on donors' behalf.  DON_ms/s: donor runtime\n"
"per second; MAXD the deepest chain seen; MIGR donor migrations; LOCK the\n"
"locks its picks went through so far: mutex, rwsem, both, or - (none).\n";

/* Draw the window: the help or the current frame. */
static void draw(const struct frame *fr, bool help)
{
	struct layout lo = { .cols = tui_cols(), .lines = tui_lines(),
			     .max_rows = env.rows, .secs = env.delay };
	char *buf = NULL;
	size_t len = 0;
	int title;
	FILE *f;

	if (help) {
		tui_draw(help_text, -1);
		return;
	}
	f = open_memstream(&buf, &len);
	if (!f)
		return;
	title = render_text(f, fr, &lo);
	fclose(f);
	tui_draw(buf, title);
	free(buf);
}

/* + and -: whole seconds from 1 s up, 0.5 0.2 0.1 below. */
static double delay_step(double d, bool up)
{
	static const double sub[] = { 0.1, 0.2, 0.5, 1.0 };
	int i;

	if (up) {
		if (d >= 1)
			return d + 1 > DELAY_MAX_NS / 1e9 ? DELAY_MAX_NS / 1e9 : (long)(d + 1);
		for (i = 0; sub[i] <= d + 1e-9; i++)
			;
		return sub[i];
	}
	if (d >= 2)
		return d - 1 > (long)(d - 1) ? (long)d : (long)(d - 1);
	for (i = 3; i > 0 && sub[i] >= d - 1e-9; i--)
		;
	return sub[i];
}

static __u64 delay_ns(void)
{
	return (__u64)(env.delay * 1e9 + 0.5);
}

/*
 * The interactive loop: refresh every interval, act on keys and on what
 * tui_wait() reports.  0 or a negative errno from sampling.
 */
static int run_tui(struct proxytop_bpf *obj, struct frame *fr, bool *quit)
{
	__u64 next = fr->cur.ts + delay_ns();
	bool help = false;
	int ev, err;

	draw(fr, help);
	for (;;) {
		ev = tui_wait(next, pxbpf_cgroup_learn);
		switch (ev) {
		case TUI_EXIT:
			*quit = true;
			return 0;
		case TUI_TIMEOUT:
			err = sample(obj, fr);
			if (err)
				return err;
			next = fr->cur.ts + delay_ns();
			draw(fr, help);
			if (--env.c.count == 0)
				return 0;
			continue;
		case TUI_REDRAW:
			draw(fr, help);
			continue;
		case 'q':
			*quit = true;
			return 0;
		}
		if (help) {		/* any other key leaves the help */
			help = false;
			draw(fr, help);
			continue;
		}
		switch (ev) {
		case 'h':
		case '?':
			help = true;
			break;
		case 'o':
			env.view = VIEW_OWNER;
			break;
		case 'd':
			env.view = VIEW_DONOR;
			break;
		case 'g':
			env.view = VIEW_CGROUP;
			break;
		case '\t':
			env.view = (env.view + 1) % VIEW_NR;
			break;
		case 's':
			env.sort = (env.sort + 1) % SORT_NR;
			break;
		case 'R':
			env.reverse = !env.reverse;
			break;
		case '+':
		case '-':
			env.delay = delay_step(env.delay, ev == '+');
			next = fr->cur.ts + delay_ns();
			break;
		default:
			continue;	/* not a key of ours: no redraw */
		}
		draw(fr, help);
	}
}

/* The plain loop: sleep, sample, print, until count or a signal. */
static int run_plain(struct proxytop_bpf *obj, struct frame *fr)
{
	int err;

	for (;;) {
		__u64 deadline = px_now_ns() + delay_ns(), learnt = px_now_ns(), now;

		/* In slices, so a signal just before nanosleep() is not missed. */
		while (!pxbpf_exiting && (now = px_now_ns()) < deadline) {
			__u64 left = deadline - now;
			struct timespec ts = { 0, left > 200000000ULL ? 200000000ULL : left };

			nanosleep(&ts, NULL);
			if (px_now_ns() - learnt >= 1000000000ULL) {
				pxbpf_cgroup_learn();
				learnt = px_now_ns();
			}
		}
		err = sample(obj, fr);
		if (err)
			return err;
		render_plain(fr);
		if (pxbpf_exiting || --env.c.count == 0)
			return 0;
	}
}

int main(int argc, char **argv)
{
	static const struct argp argp = {
		.options = opts,
		.parser = parse_arg,
		.doc = doc,
	};
	bool interactive, quit = false;
	struct proxytop_bpf *obj = NULL;
	struct frame fr = {};
	char why[256];
	__u64 start_ts;
	int err, sig = 0;

	/* [interval] as -d: fractions, 0.1 s to 1 h */
	env.c.interval_min_ns = DELAY_MIN_NS;
	env.c.interval_max_ns = DELAY_MAX_NS;
	err = pxbpf_init(&argp, argc, argv, &env.c);
	if (err)
		return err;
	if (!env.delay)
		env.delay = env.c.interval_ns ? (double)env.c.interval_ns / 1e9 : 1.0;
	if (!isatty(STDOUT_FILENO))
		env.batch = true;
	interactive = !env.batch && !env.noclear && !env.c.json && isatty(STDIN_FILENO);
	if (interactive && tui_probe(why, sizeof(why))) {
		px_warnx("%s: plain output as with -b (set TERM, or TERMINFO to a terminfo directory)",
			 why);
		interactive = false;
		env.batch = true;
	}
	fr.ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (fr.ncpus < 1)
		fr.ncpus = 1;

	obj = proxytop_bpf__open();
	if (!obj) {
		px_warnx("failed to open BPF object");
		return 1;
	}
	PXBPF_SET_FILTERS(obj->rodata, &env.c);
	err = pxbpf_set_max_pairs(obj->maps.pairs, env.max_pairs);
	if (!err)
		err = pxbpf_load_attach(obj->skeleton);
	if (err)
		goto cleanup;
	pxbpf_handle_signals();
	pxbpf_learn_cgroups();
	err = sample(obj, &fr);
	if (err)
		goto read_error;
	start_ts = fr.cur.ts;

	if (interactive && tui_start(&pxbpf_exiting)) {
		px_warnx("cannot set up the terminal: plain output as with -b");
		interactive = false;
		env.batch = true;
	}
	if (interactive) {
		err = run_tui(obj, &fr, &quit);
		sig = tui_end_signal();
		tui_end();
	} else {
		err = run_plain(obj, &fr);
	}
	if (err)
		goto read_error;
	/* SIGHUP, SIGQUIT: no terminal left, or no time wanted for totals. */
	if (!sig && !env.c.json && (pxbpf_exiting || quit))
		summary(&fr, start_ts);
	goto cleanup;

read_error:
	px_warnx("failed to read maps: %s", strerror(-err));
cleanup:
	pxbpf_pairs_free(&fr.cur);
	pxbpf_pairs_free(&fr.prev);
	pxbpf_pairs_free(&fr.delta);
	proxytop_bpf__destroy(obj);
	if (sig) {
		/* Die of it as the sender meant, the terminal and the kernel clean. */
		signal(sig, SIG_DFL);
		raise(sig);
	}
	return err != 0;
}

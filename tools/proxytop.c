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
#include "proxytop.h"
#include "proxytop.skel.h"
#include "proxytop_tui.h"
#include "pxbpf_user.h"
#include "pxutil.h"

enum view { VIEW_OWNER, VIEW_DONOR, VIEW_CGROUP, VIEW_NR };
enum sort { SORT_TIME, SORT_PICKS, SORT_DONORS, SORT_DEPTH, SORT_MIGRATIONS, SORT_NR };

static const char *const view_names[VIEW_NR] = { "owners", "donors", "cgroups" };
static const char *const sort_names[SORT_NR] = {
	"time", "picks", "donors", "depth", "migrations",
};

static struct env {
	struct pxbpf_env c;
	bool batch;
	bool noclear;
	enum view view;
	enum sort sort;
	bool reverse;		/* key R: smallest first */
	long rows;
	long max_pairs;
	double delay;		/* seconds: -d, else the interval argument */
} env = { .c = { .interval = 1, .count = PXBPF_FOREVER }, .rows = 20,
	  .max_pairs = PX_MAX_PAIRS };

#define DELAY_MIN	0.1
#define DELAY_MAX	3600.0

enum { OPT_MAX_PAIRS = 1000 };

const char *argp_program_version = "proxytop 0.1";
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

/* -d: seconds with a fraction ("0.5") or a duration with a unit ("500ms"). */
static double parse_delay(struct argp_state *state, const char *arg)
{
	uint64_t ns;
	char *end;
	double v;

	if (!px_parse_duration_ns(arg, 1000000000ULL, 0, UINT64_MAX, &ns)) {
		v = ns / 1e9;
	} else {
		errno = 0;
		v = strtod(arg, &end);
		if (errno || end == arg || *end || !isfinite(v) || !strchr("0123456789.", *arg)) {
			fprintf(stderr, "%s: invalid interval: %s\n", program_invocation_short_name, arg);
			argp_usage(state);
		}
	}
	if (v < DELAY_MIN || v > DELAY_MAX) {
		fprintf(stderr, "%s: invalid interval: %s (allowed: 0.1..3600 seconds)\n",
			program_invocation_short_name, arg);
		argp_usage(state);
	}
	return v;
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
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* One row: an owner, a donor or a cgroup, over the last interval. */
struct row {
	__u64 id;		/* pid or cgroup id */
	__u64 start;		/* the task's start time: a recycled pid is another row */
	const char *comm;
	__u64 cgid;
	__u64 ns;		/* donor runtime given (donor, cgroup) or received (owner) */
	__u64 recv_ns;		/* cgroup view: received by owners in it */
	__u64 picks, migrations;
	__u32 max_depth;
	__u32 nother;		/* distinct counterparts; cgroup view: donors */
	__u32 nowners;		/* cgroup view: distinct owners */
	__u64 top_ns;
	__u32 top_pid;
	const char *top_comm;
};

static struct row *row_get(struct row *rows, size_t *n, __u64 id, __u64 start)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (rows[i].id == id && rows[i].start == start)
			return &rows[i];
	memset(&rows[*n], 0, sizeof(rows[*n]));
	rows[*n].id = id;
	rows[*n].start = start;
	return &rows[(*n)++];
}

static void row_add(struct row *r, const struct px_pair *v, __u32 other_pid,
		    const char *other_comm)
{
	r->ns += v->ns;
	r->picks += v->picks;
	r->migrations += v->migrations;
	if (v->max_depth > r->max_depth)
		r->max_depth = v->max_depth;
	r->nother++;
	if (!r->top_comm || v->ns > r->top_ns) {
		r->top_ns = v->ns;
		r->top_pid = other_pid;
		r->top_comm = other_comm;
	}
}

/* Is @pid already counted on @side (0 donor, 1 owner) of cgroup @cgid in d[0..i)? */
static bool seen_before(const struct pxbpf_pairs *d, size_t i, int side, __u64 cgid)
{
	const struct pxbpf_pair *p = &d->v[i];
	size_t k;

	for (k = 0; k < i; k++) {
		const struct pxbpf_pair *q = &d->v[k];

		if (side == 0 && q->key.donor_pid == p->key.donor_pid &&
		    q->val.donor_cgid == cgid)
			return true;
		if (side == 1 && q->key.owner_pid == p->key.owner_pid &&
		    q->val.owner_cgid == cgid)
			return true;
	}
	return false;
}

static __u64 sort_value(const struct row *r)
{
	switch (env.sort) {
	case SORT_PICKS:	return r->picks;
	case SORT_DONORS:	return r->nother;
	case SORT_DEPTH:	return r->max_depth;
	case SORT_MIGRATIONS:	return r->migrations;
	default:		return r->ns + r->recv_ns;
	}
}

static int row_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	__u64 vx = sort_value(x), vy = sort_value(y);

	if (vx != vy)
		return (vx > vy ? -1 : 1) * (env.reverse ? -1 : 1);
	if (x->ns + x->recv_ns != y->ns + y->recv_ns)
		return x->ns + x->recv_ns > y->ns + y->recv_ns ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Rows of the current view out of the interval's pair deltas @d. */
static struct row *build_rows(const struct pxbpf_pairs *d, size_t *n)
{
	struct row *rows = calloc(2 * d->n + 1, sizeof(*rows)), *r;
	size_t i;

	*n = 0;
	if (!rows)
		return NULL;
	for (i = 0; i < d->n; i++) {
		const struct px_pair_key *k = &d->v[i].key;
		const struct px_pair *v = &d->v[i].val;

		switch (env.view) {
		case VIEW_OWNER:
			r = row_get(rows, n, k->owner_pid, k->owner_start);
			r->comm = v->owner_comm;
			r->cgid = v->owner_cgid;
			row_add(r, v, k->donor_pid, v->donor_comm);
			break;
		case VIEW_DONOR:
			r = row_get(rows, n, k->donor_pid, k->donor_start);
			r->comm = v->donor_comm;
			r->cgid = v->donor_cgid;
			row_add(r, v, k->owner_pid, v->owner_comm);
			break;
		default:
			r = row_get(rows, n, v->donor_cgid, 0);
			r->cgid = v->donor_cgid;
			row_add(r, v, k->owner_pid, v->owner_comm);
			r->nother -= seen_before(d, i, 0, v->donor_cgid);
			r = row_get(rows, n, v->owner_cgid, 0);
			r->cgid = v->owner_cgid;
			r->recv_ns += v->ns;
			r->nowners += !seen_before(d, i, 1, v->owner_cgid);
			break;
		}
	}
	qsort(rows, *n, sizeof(*rows), row_cmp);
	return rows;
}

struct frame {
	struct px_counters cnt, prev_cnt;
	struct pxbpf_pairs cur, prev, delta;
	__u64 evicted, prev_evicted;	/* pxbpf_pairs_evicted() of cur, prev */
	int ncpus;
};

static double per_sec(__u64 now, __u64 then, double secs)
{
	return now > then && secs > 0 ? (now - then) / secs : 0;
}

/*
 * How render_text() lays out: plain (-b and friends: the historic format,
 * byte for byte) or for a window of @cols x @lines (the header's figures
 * wrapped at the width, the CGROUP column narrowed, rows cut to fit).
 */
struct layout {
	bool clear;		/* plain: ANSI clear first */
	int cols, lines;	/* window; 0: plain */
	int max_rows;
	double secs;		/* window: the interval before the first one ends */
};

/*
 * Append @item to the line of width @cols being written to @f, after two
 * spaces or, when it would not fit, on a new line (returns 1 then).
 */
static int flow(FILE *f, int cols, int *col, const char *item)
{
	int len = strlen(item), wrapped = 0;

	if (*col && *col + 2 + len > cols) {
		fputc('\n', f);
		*col = 0;
		wrapped = 1;
	}
	*col += fprintf(f, "%s%s", *col ? "  " : "", item);
	return wrapped;
}

/*
 * The header and rows of @fr as text; returns the index of the column
 * title line (how many lines come before it).
 */
static int render_text(FILE *f, const struct frame *fr, const struct layout *lo)
{
	const struct px_counters *c = &fr->cnt, *p = &fr->prev_cnt;
	bool first = !fr->prev.ts;
	double secs = first ? lo->secs : (fr->cur.ts - fr->prev.ts) / 1e9;
	__u64 don_now = c->donated_ns + fr->cur.open_ns;
	__u64 don_then = p->donated_ns + fr->prev.open_ns;
	double pct = per_sec(don_now, don_then, secs) / 1e9 / fr->ncpus * 100;
	bool win = lo->cols > 0;
	int cgw = 20, cgw_cg = 28, prec = INT_MAX, title = 0, max_rows = lo->max_rows;
	char item[8][96];
	struct row *rows;
	size_t n = 0, i;
	int k, col = 0;
	char tm[32];
	time_t t = time(NULL);

	strftime(tm, sizeof(tm), env.c.timestamp ? "%Y-%m-%d %H:%M:%S" : "%H:%M:%S",
		 localtime(&t));
	if (lo->clear)
		fputs("\033[H\033[2J", f);
	if (win) {
		snprintf(item[0], sizeof(item[0]), "proxytop - %s", tm);
		snprintf(item[1], sizeof(item[1]), "interval %.1fs", secs);
		snprintf(item[2], sizeof(item[2]), "view: %s", view_names[env.view]);
		snprintf(item[3], sizeof(item[3]), "sort: %s%s", sort_names[env.sort],
			 env.reverse ? " (reversed)" : "");
		snprintf(item[4], sizeof(item[4]), "(filtered rows)");
		for (k = 0; k < 4 + !!(env.c.pid || env.c.cgid); k++)
			title += flow(f, lo->cols, &col, item[k]);
		col = 0;
	} else {
		fprintf(f, "proxytop - %s  interval %.1fs  view: %s  sort: %s%s%s", tm, secs,
			view_names[env.view], sort_names[env.sort],
			env.reverse ? " (reversed)" : "",
			env.c.pid || env.c.cgid ? "  (filtered rows)" : "");
	}
	fputc('\n', f);
	title++;
	if (first) {
		/* Window only: nothing to show before the first interval ends. */
		fprintf(f, "(first figures after one interval; h for help)\n");
		return -1;
	}
	snprintf(item[0], sizeof(item[0]), "proxy picks/s: %.1f", per_sec(c->picks, p->picks, secs));
	snprintf(item[1], sizeof(item[1]), "migrations/s: %.1f",
		 per_sec(c->migrations, p->migrations, secs));
	snprintf(item[2], sizeof(item[2]), "returns/s: %.1f", per_sec(c->returns, p->returns, secs));
	snprintf(item[3], sizeof(item[3]), "sleeping-owner enqueues/s: %.1f",
		 per_sec(c->enqueue_sleeping, p->enqueue_sleeping, secs));
	snprintf(item[4], sizeof(item[4]), "donated CPU: %.1f%%", pct);
	snprintf(item[5], sizeof(item[5]), "aborts/s: %.1f", per_sec(c->aborts, p->aborts, secs));
	snprintf(item[6], sizeof(item[6]), "activations/s: %.1f",
		 per_sec(c->activations, p->activations, secs));
	snprintf(item[7], sizeof(item[7]), "handoffs/s: %.1f to donor, %.1f to top waiter",
		 per_sec(c->handoffs_donor, p->handoffs_donor, secs),
		 per_sec(c->handoffs_top, p->handoffs_top, secs));
	for (k = 0; k < 8; k++) {
		if (win) {
			/* The window puts donated CPU next to the picks. */
			static const int order[8] = { 0, 4, 1, 2, 3, 5, 6, 7 };

			title += flow(f, lo->cols, &col, item[order[k]]);
			continue;
		}
		fprintf(f, "%s%s", k == 0 || k == 5 ? "" : "  ", item[k]);
		if (k == 4 || k == 7) {
			fputc('\n', f);
			title++;
		}
	}
	if (win) {
		fputc('\n', f);
		title++;
	}
	if (c->lost > p->lost) {
		fprintf(f, "(%llu pairs did not fit the map)\n",
			(unsigned long long)(c->lost - p->lost));
		title++;
	}
	if (fr->evicted > fr->prev_evicted) {
		fprintf(f, "(%llu idle pairs evicted from the full map, %llu since start)\n",
			(unsigned long long)(fr->evicted - fr->prev_evicted),
			(unsigned long long)fr->evicted);
		title++;
	}
	fputc('\n', f);
	title++;
	if (win) {
		/* The last column (TOP-*) may be cut, never the header. */
		cgw = lo->cols - 88 < 0 ? 0 : lo->cols - 88 > 20 ? 20 : lo->cols - 88;
		cgw = cgw < 8 ? 0 : cgw;
		cgw_cg = lo->cols - 57 < 12 ? 12 : lo->cols - 57 > 28 ? 28 : lo->cols - 57;
		if (lo->lines - title - 1 < max_rows)
			max_rows = lo->lines - title - 1;
	}

	rows = build_rows(&fr->delta, &n);
	if (env.view == VIEW_CGROUP)
		fprintf(f, "%-*s %10s %10s %6s %6s %8s %4s %6s\n", cgw_cg, "CGROUP", "DON_ms/s",
			"RECV_ms/s", "DONORS", "OWNERS", "PICKS/s", "MAXD", "MIGR");
	else
		fprintf(f, "%7s %-16s %-*s%s%10s %6s %8s %4s %6s  %s\n", "PID", "COMM",
			cgw, cgw ? "CGROUP" : "", cgw ? " " : "", "DON_ms/s",
			env.view == VIEW_OWNER ? "DONORS" : "OWNERS",
			"PICKS/s", "MAXD", "MIGR",
			env.view == VIEW_OWNER ? "TOP-DONOR" : "TOP-OWNER");
	if (win)
		prec = env.view == VIEW_CGROUP ? cgw_cg : cgw;
	for (i = 0; rows && i < n && (int)i < max_rows; i++) {
		const struct row *r = &rows[i];

		if (env.view == VIEW_CGROUP) {
			fprintf(f, "%-*.*s %10.2f %10.2f %6u %6u %8.1f %4u %6llu\n",
				cgw_cg, prec, pxbpf_cgroup_path(r->cgid), r->ns / 1e6 / secs,
				r->recv_ns / 1e6 / secs, r->nother, r->nowners,
				r->picks / secs, r->max_depth,
				(unsigned long long)r->migrations);
			continue;
		}
		fprintf(f, "%7llu %-16s %-*.*s%s%10.2f %6u %8.1f %4u %6llu  %u %s\n",
			(unsigned long long)r->id, r->comm, cgw, cgw ? prec : 0,
			pxbpf_cgroup_path(r->cgid), cgw ? " " : "",
			r->ns / 1e6 / secs, r->nother, r->picks / secs, r->max_depth,
			(unsigned long long)r->migrations, r->top_pid, r->top_comm);
	}
	if (!n)
		fprintf(f, "(no proxy activity in this interval)\n");
	free(rows);
	return title;
}

static void render_json(FILE *f, const struct frame *fr)
{
	const struct px_counters *c = &fr->cnt, *p = &fr->prev_cnt;
	double secs = (fr->cur.ts - fr->prev.ts) / 1e9;
	__u64 don_now = c->donated_ns + fr->cur.open_ns;
	__u64 don_then = p->donated_ns + fr->prev.open_ns;
	struct px_json j;
	struct row *rows;
	size_t n, i;

	px_json_init(&j, f, PX_JSON_LINES);
	px_json_object_begin(&j, NULL);
	px_json_i64(&j, "time", time(NULL));
	px_json_double(&j, "interval_s", secs);
	px_json_string(&j, "view", view_names[env.view]);
	px_json_string(&j, "sort", sort_names[env.sort]);
	px_json_bool(&j, "filtered", env.c.pid || env.c.cgid);
	px_json_double(&j, "picks_per_s", per_sec(c->picks, p->picks, secs));
	px_json_double(&j, "migrations_per_s", per_sec(c->migrations, p->migrations, secs));
	px_json_double(&j, "returns_per_s", per_sec(c->returns, p->returns, secs));
	px_json_double(&j, "enqueue_sleeping_per_s",
		       per_sec(c->enqueue_sleeping, p->enqueue_sleeping, secs));
	px_json_double(&j, "aborts_per_s", per_sec(c->aborts, p->aborts, secs));
	px_json_double(&j, "activations_per_s", per_sec(c->activations, p->activations, secs));
	px_json_double(&j, "handoffs_to_donor_per_s",
		       per_sec(c->handoffs_donor, p->handoffs_donor, secs));
	px_json_double(&j, "handoffs_to_top_waiter_per_s",
		       per_sec(c->handoffs_top, p->handoffs_top, secs));
	px_json_double(&j, "donated_cpu_pct",
		       per_sec(don_now, don_then, secs) / 1e9 / fr->ncpus * 100);
	px_json_u64(&j, "lost_pairs", c->lost > p->lost ? c->lost - p->lost : 0);
	px_json_u64(&j, "evicted_pairs",
		    fr->evicted > fr->prev_evicted ? fr->evicted - fr->prev_evicted : 0);
	px_json_u64(&j, "evicted_pairs_total", fr->evicted);
	rows = build_rows(&fr->delta, &n);
	px_json_array_begin(&j, "rows");
	for (i = 0; rows && i < n && (long)i < env.rows; i++) {
		const struct row *r = &rows[i];

		px_json_object_begin(&j, NULL);
		if (env.view != VIEW_CGROUP) {
			px_json_u64(&j, "pid", r->id);
			px_json_string(&j, "comm", r->comm);
		}
		px_json_string(&j, "cgroup", pxbpf_cgroup_path(r->cgid));
		px_json_u64(&j, "donated_ns", r->ns);
		if (env.view == VIEW_CGROUP) {
			px_json_u64(&j, "received_ns", r->recv_ns);
			px_json_u64(&j, "donors", r->nother);
			px_json_u64(&j, "owners", r->nowners);
		} else {
			px_json_u64(&j, env.view == VIEW_OWNER ? "donors" : "owners", r->nother);
			px_json_u64(&j, "top_pid", r->top_pid);
			px_json_string(&j, "top_comm", r->top_comm);
		}
		px_json_u64(&j, "picks", r->picks);
		px_json_u64(&j, "max_depth", r->max_depth);
		px_json_u64(&j, "migrations", r->migrations);
		px_json_object_end(&j);
	}
	px_json_array_end(&j);
	px_json_object_end(&j);
	px_json_finish(&j);
	free(rows);
}


/* Take a new snapshot; the previous one becomes fr->prev.  0 or -errno. */
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
"per second; MAXD the deepest chain seen; MIGR donor migrations.\n";

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
			return d + 1 > DELAY_MAX ? DELAY_MAX : (long)(d + 1);
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

	err = pxbpf_init(&argp, argc, argv, &env.c);
	if (err)
		return err;
	if (!env.delay)
		env.delay = env.c.interval;
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

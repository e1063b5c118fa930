// SPDX-License-Identifier: GPL-2.0
/*
 * proxytop: live view of proxy execution, like top, on a plain terminal
 * or serial console (ANSI escapes, no curses).  A header of system-wide
 * rates, then rows per owner, per donor or per cgroup.
 *
 * Usage: proxytop [-h] [-b] [-n N] [-d SECS] [-O|-D|-G] [-s SORT] [-r ROWS] [-C]
 *                 [-p PID] [-c CGROUP] [-T] [-j] [-v] [interval] [count]
 */
#define _GNU_SOURCE
#include <argp.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "proxytop.h"
#include "proxytop.skel.h"
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
	long rows;
	long max_pairs;
} env = { .c = { .interval = 1, .count = PXBPF_FOREVER }, .rows = 20,
	  .max_pairs = PX_MAX_PAIRS };

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
"The header line carries the time, so -T changes nothing here.\n"
"\n"
"Keys: o owners, d donors, g cgroups, TAB next view, s next sort key,\n"
"+/- refresh interval, q quit.  SORT: time picks donors depth migrations.\n"
"\n"
"EXAMPLES:\n"
"    proxytop                 # refresh every second until q or Ctrl-C\n"
"    proxytop -D -s depth     # rows per donor, deepest chains first\n"
"    proxytop -G -d 2         # rows per cgroup, every 2 seconds\n"
"    proxytop -b -n 3         # batch mode: 3 plain-text refreshes\n"
"    proxytop -j -n 5         # 5 JSON lines\n"
"    proxytop -c /lab -r 5    # cgroup /lab only, top 5 rows\n";

static const struct argp_option opts[] = {
	{ "batch", 'b', NULL, 0, "Batch mode: plain output, no keys (default when stdout is not a terminal)", 0 },
	{ "iterations", 'n', "N", 0, "Stop after N refreshes", 0 },
	{ "delay", 'd', "SECS", 0, "Refresh interval in seconds (default 1)", 0 },
	{ "owners", 'O', NULL, 0, "Rows per owner (default)", 0 },
	{ "donors", 'D', NULL, 0, "Rows per donor", 0 },
	{ "cgroups", 'G', NULL, 0, "Rows per cgroup", 0 },
	{ "sort", 's', "SORT", 0, "Sort by time (default), picks, donors, depth or migrations", 0 },
	{ "rows", 'r', "ROWS", 0, "At most ROWS rows (default 20)", 0 },
	{ "noclear", 'C', NULL, 0, "Do not clear the screen between refreshes", 0 },
	{ "max-pairs", OPT_MAX_PAIRS, "N", 0,
	  "Donor/owner pairs kept (default 10240); when full, the least recently active go", 0 },
	{},
};

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
		env.c.interval = px_arg_long(state, "interval", arg, 1, 3600);
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
		return vx > vy ? -1 : 1;
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

static void render_text(FILE *f, const struct frame *fr, bool clear, int max_rows)
{
	const struct px_counters *c = &fr->cnt, *p = &fr->prev_cnt;
	double secs = (fr->cur.ts - fr->prev.ts) / 1e9;
	__u64 don_now = c->donated_ns + fr->cur.open_ns;
	__u64 don_then = p->donated_ns + fr->prev.open_ns;
	double pct = per_sec(don_now, don_then, secs) / 1e9 / fr->ncpus * 100;
	struct row *rows;
	size_t n, i;
	char tm[16];
	time_t t = time(NULL);

	strftime(tm, sizeof(tm), "%H:%M:%S", localtime(&t));
	if (clear)
		fputs("\033[H\033[2J", f);
	fprintf(f, "proxytop - %s  interval %.1fs  view: %s  sort: %s%s\n", tm, secs,
		view_names[env.view], sort_names[env.sort],
		env.c.pid || env.c.cgid ? "  (filtered rows)" : "");
	fprintf(f, "proxy picks/s: %.1f  migrations/s: %.1f  returns/s: %.1f  "
		"sleeping-owner enqueues/s: %.1f  donated CPU: %.1f%%\n",
		per_sec(c->picks, p->picks, secs), per_sec(c->migrations, p->migrations, secs),
		per_sec(c->returns, p->returns, secs),
		per_sec(c->enqueue_sleeping, p->enqueue_sleeping, secs), pct);
	fprintf(f, "aborts/s: %.1f  activations/s: %.1f  handoffs/s: %.1f to donor, %.1f to top waiter\n",
		per_sec(c->aborts, p->aborts, secs), per_sec(c->activations, p->activations, secs),
		per_sec(c->handoffs_donor, p->handoffs_donor, secs),
		per_sec(c->handoffs_top, p->handoffs_top, secs));
	if (c->lost > p->lost)
		fprintf(f, "(%llu pairs did not fit the map)\n",
			(unsigned long long)(c->lost - p->lost));
	if (fr->evicted > fr->prev_evicted)
		fprintf(f, "(%llu idle pairs evicted from the full map, %llu since start)\n",
			(unsigned long long)(fr->evicted - fr->prev_evicted),
			(unsigned long long)fr->evicted);
	fputc('\n', f);

	rows = build_rows(&fr->delta, &n);
	if (env.view == VIEW_CGROUP)
		fprintf(f, "%-28s %10s %10s %6s %6s %8s %4s %6s\n", "CGROUP", "DON_ms/s",
			"RECV_ms/s", "DONORS", "OWNERS", "PICKS/s", "MAXD", "MIGR");
	else
		fprintf(f, "%7s %-16s %-20s %10s %6s %8s %4s %6s  %s\n", "PID", "COMM",
			"CGROUP", "DON_ms/s", env.view == VIEW_OWNER ? "DONORS" : "OWNERS",
			"PICKS/s", "MAXD", "MIGR",
			env.view == VIEW_OWNER ? "TOP-DONOR" : "TOP-OWNER");
	for (i = 0; rows && i < n && (int)i < max_rows; i++) {
		const struct row *r = &rows[i];

		if (env.view == VIEW_CGROUP) {
			fprintf(f, "%-28s %10.2f %10.2f %6u %6u %8.1f %4u %6llu\n",
				pxbpf_cgroup_path(r->cgid), r->ns / 1e6 / secs,
				r->recv_ns / 1e6 / secs, r->nother, r->nowners,
				r->picks / secs, r->max_depth,
				(unsigned long long)r->migrations);
			continue;
		}
		fprintf(f, "%7llu %-16s %-20s %10.2f %6u %8.1f %4u %6llu  %u %s\n",
			(unsigned long long)r->id, r->comm, pxbpf_cgroup_path(r->cgid),
			r->ns / 1e6 / secs, r->nother, r->picks / secs, r->max_depth,
			(unsigned long long)r->migrations, r->top_pid, r->top_comm);
	}
	if (!n)
		fprintf(f, "(no proxy activity in this interval)\n");
	free(rows);
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
	px_json_double(&j, "picks_per_s", per_sec(c->picks, p->picks, secs));
	px_json_double(&j, "migrations_per_s", per_sec(c->migrations, p->migrations, secs));
	px_json_double(&j, "returns_per_s", per_sec(c->returns, p->returns, secs));
	px_json_double(&j, "enqueue_sleeping_per_s",
		       per_sec(c->enqueue_sleeping, p->enqueue_sleeping, secs));
	px_json_double(&j, "aborts_per_s", per_sec(c->aborts, p->aborts, secs));
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

/* Take a new snapshot; the previous one becomes fr->prev. */
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
	if (err)
		px_warnx("failed to read maps: %s", strerror(-err));
	return err;
}

static void render(const struct frame *fr, bool interactive)
{
	char *buf = NULL;
	size_t len = 0;
	int max_rows = env.rows;
	struct winsize ws;
	FILE *f;

	f = open_memstream(&buf, &len);
	if (!f)
		return;
	if (env.c.json) {
		render_json(f, fr);
	} else {
		if (interactive && !ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) &&
		    ws.ws_row > 6 && ws.ws_row - 6 < max_rows)
			max_rows = ws.ws_row - 6;
		render_text(f, fr, interactive && !env.noclear, max_rows);
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
	struct frame all = *fr;

	all.prev = (struct pxbpf_pairs){ .ts = start_ts };
	memset(&all.prev_cnt, 0, sizeof(all.prev_cnt));
	all.prev_evicted = 0;
	all.delta = fr->cur;
	printf("\nproxytop: totals since start\n");
	render_text(stdout, &all, false, env.rows);
	fflush(stdout);
}

/* Wait out the interval, handling keys.  Returns true to redraw now. */
static bool wait_keys(bool interactive, bool *quit)
{
	__u64 deadline = px_now_ns() + env.c.interval * 1000000000ULL;
	struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
	char ch;

	if (!interactive) {
		pxbpf_sleep(env.c.interval);
		return false;
	}
	while (!pxbpf_exiting) {
		__u64 now = px_now_ns();

		if (now >= deadline)
			return false;
		if (poll(&pfd, 1, (deadline - now) / 1000000 + 1) <= 0)
			continue;
		if (read(STDIN_FILENO, &ch, 1) != 1)
			return false;
		switch (ch) {
		case 'q':
			*quit = true;
			return false;
		case 'o':
			env.view = VIEW_OWNER;
			return true;
		case 'd':
			env.view = VIEW_DONOR;
			return true;
		case 'g':
			env.view = VIEW_CGROUP;
			return true;
		case '\t':
			env.view = (env.view + 1) % VIEW_NR;
			return true;
		case 's':
			env.sort = (env.sort + 1) % SORT_NR;
			return true;
		case '+':
			if (env.c.interval < 3600)
				env.c.interval++;
			return true;
		case '-':
			if (env.c.interval > 1)
				env.c.interval--;
			return true;
		}
	}
	return false;
}

int main(int argc, char **argv)
{
	static const struct argp argp = {
		.options = opts,
		.parser = parse_arg,
		.doc = doc,
	};
	struct termios saved, raw;
	bool interactive, restore = false, quit = false;
	struct proxytop_bpf *obj = NULL;
	struct frame fr = {};
	__u64 start_ts;
	int err;

	err = pxbpf_init(&argp, argc, argv, &env.c);
	if (err)
		return err;
	if (!isatty(STDOUT_FILENO))
		env.batch = true;
	interactive = !env.batch && !env.c.json && isatty(STDIN_FILENO);
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
		goto cleanup;
	start_ts = fr.cur.ts;
	if (interactive && !tcgetattr(STDIN_FILENO, &saved)) {
		raw = saved;
		raw.c_lflag &= ~(ICANON | ECHO);
		raw.c_cc[VMIN] = 1;
		raw.c_cc[VTIME] = 0;
		restore = !tcsetattr(STDIN_FILENO, TCSANOW, &raw);
	}

	while (1) {
		bool now = wait_keys(interactive, &quit);

		if (quit)
			break;
		err = sample(obj, &fr);
		if (err)
			break;
		render(&fr, interactive);
		if (pxbpf_exiting || (!now && --env.c.count == 0))
			break;
	}
	if (restore)
		tcsetattr(STDIN_FILENO, TCSANOW, &saved);
	if (!err && (pxbpf_exiting || quit) && !env.c.json)
		summary(&fr, start_ts);

cleanup:
	pxbpf_pairs_free(&fr.cur);
	pxbpf_pairs_free(&fr.prev);
	pxbpf_pairs_free(&fr.delta);
	proxytop_bpf__destroy(obj);
	return err != 0;
}

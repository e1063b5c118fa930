// SPDX-License-Identifier: GPL-2.0
/*
 * proxytop's rendering: the interval's pair deltas folded into rows of the
 * current view (owners, donors, cgroups), sorted, and written as the text
 * header and table (plain or fitted to a window) or as one JSON line.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "proxytop_render.h"
#include "pxutil.h"

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
	__u32 lock_types;	/* PX_LOCK_* of its pairs, since they entered the map */
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
	r->lock_types |= v->lock_types;
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


static double per_sec(__u64 now, __u64 then, double secs)
{
	return now > then && secs > 0 ? (now - then) / secs : 0;
}

/*
 * The LOCK column and JSON lock_type: the kinds of lock (PX_LOCK_*) a
 * row's picks went through, as pxchain names them; NULL when none.
 */
static const char *lock_type_name(__u32 types)
{
	static const char *const names[] = { NULL, "mutex", "rwsem", "both" };

	return names[types & (PX_LOCK_MUTEX | PX_LOCK_RWSEM)];
}


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
int render_text(FILE *f, const struct frame *fr, const struct layout *lo)
{
	const struct px_counters *c = &fr->cnt, *p = &fr->prev_cnt;
	bool first = !fr->prev.ts;
	double secs = first ? lo->secs : (fr->cur.ts - fr->prev.ts) / 1e9;
	__u64 don_now = c->donated_ns + fr->cur.open_ns;
	__u64 don_then = p->donated_ns + fr->prev.open_ns;
	double pct = per_sec(don_now, don_then, secs) / 1e9 / fr->ncpus * 100;
	bool win = lo->cols > 0, lock;
	int cgw = 20, cgw_cg = 28, prec = INT_MAX, title = 0, max_rows = lo->max_rows;
	char item[8][96], lk[8] = "";
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
	/*
	 * The window only (-b keeps its format): LOCK before TOP-* in the
	 * owner and donor views once their title fits, at 80 columns.
	 */
	lock = win && env.view != VIEW_CGROUP && lo->cols >= 80;
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
		fprintf(f, "%7s %-16s %-*s%s%10s %6s %8s %4s %6s%s  %s\n", "PID", "COMM",
			cgw, cgw ? "CGROUP" : "", cgw ? " " : "", "DON_ms/s",
			env.view == VIEW_OWNER ? "DONORS" : "OWNERS",
			"PICKS/s", "MAXD", "MIGR", lock ? " LOCK " : "",
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
		if (lock)
			snprintf(lk, sizeof(lk), " %-5s", lock_type_name(r->lock_types) ?: "-");
		fprintf(f, "%7llu %-16s %-*.*s%s%10.2f %6u %8.1f %4u %6llu%s  %u %s\n",
			(unsigned long long)r->id, r->comm, cgw, cgw ? prec : 0,
			pxbpf_cgroup_path(r->cgid), cgw ? " " : "",
			r->ns / 1e6 / secs, r->nother, r->picks / secs, r->max_depth,
			(unsigned long long)r->migrations, lk, r->top_pid, r->top_comm);
	}
	if (!n)
		fprintf(f, "(no proxy activity in this interval)\n");
	free(rows);
	return title;
}

void render_json(FILE *f, const struct frame *fr)
{
	const struct px_counters *c = &fr->cnt, *p = &fr->prev_cnt;
	double secs = (fr->cur.ts - fr->prev.ts) / 1e9;
	__u64 don_now = c->donated_ns + fr->cur.open_ns;
	__u64 don_then = p->donated_ns + fr->prev.open_ns;
	const char *lt;
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
	px_json_double(&j, "rwsem_picks_per_s", per_sec(c->picks_rwsem, p->picks_rwsem, secs));
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
		lt = lock_type_name(r->lock_types);
		if (lt)
			px_json_string(&j, "lock_type", lt);
		else
			px_json_null(&j, "lock_type");
		px_json_object_end(&j);
	}
	px_json_array_end(&j);
	px_json_object_end(&j);
	px_json_finish(&j);
	free(rows);
}


/* Take a new snapshot; the previous one becomes fr->prev.  0 or -errno. */

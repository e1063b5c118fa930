// SPDX-License-Identifier: GPL-2.0
/*
 * pxdonor: donor runtime, the time an owner ran on a donor's behalf under
 * proxy execution, summed per donor/owner pair, per process pair and per
 * cgroup pair, with a log2 histogram of single proxy stretches.
 *
 * Usage: pxdonor [-h] [-m] [-P] [-G] [--max-pairs N] [-p PID] [-c CGROUP] [-T] [-j] [-v]
 *                [interval] [count]
 */
#define _GNU_SOURCE
#include <argp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "pxdonor.skel.h"
#include "pxbpf_user.h"
#include "pxutil.h"

static struct env {
	struct pxbpf_env c;
	bool ms;
	bool per_process;
	bool per_cgroup;
	long max_pairs;
} env = { .c = PXBPF_ENV_INIT, .max_pairs = PX_MAX_PAIRS };

enum { OPT_MAX_PAIRS = 1000 };

static const char doc[] =
"Summarize donor runtime: time owners ran on their donors' behalf.\n"
"\n"
"USAGE: pxdonor [-h] [-m] [-P] [-G] [--max-pairs N] [-p PID] [-c CGROUP]\n"
"              [-T] [-j] [-v] [interval] [count]\n"
"\n"
"A proxy stretch runs from a context switch where the execution context\n"
"(owner) differs from the scheduling context (donor) to the next proxy\n"
"context switch on that CPU.  Times are summed per donor/owner thread\n"
"pair; -P adds process pairs, -G cgroup pairs (donor's -> owner's).\n"
"A pair is two tasks, not two pids: a recycled pid starts a new pair.\n"
"When the pair map is full the least recently active pair makes room:\n"
"those evicted pairs (their totals are gone) are counted and shown.\n"
"\n"
"EXAMPLES:\n"
"    pxdonor             # donor runtime per pair until Ctrl-C\n"
"    pxdonor 1 10        # 1 second summaries, 10 times\n"
"    pxdonor -P -G 5     # also per process and per cgroup, every 5 s\n"
"    pxdonor -m          # stretch histogram in milliseconds\n"
"    pxdonor -p 185      # only pairs where process 185 donates or owns\n"
"    pxdonor -c /lab     # only pairs touching cgroup /lab or below\n"
"    pxdonor -j 1 5      # JSON lines\n";

static const struct argp_option opts[] = {
	{ "milliseconds", 'm', NULL, 0, "Stretch histogram in milliseconds", 0 },
	{ "process", 'P', NULL, 0, "Also sum per process pair", 0 },
	{ "cgroups", 'G', NULL, 0, "Also sum per cgroup pair", 0 },
	{ "max-pairs", OPT_MAX_PAIRS, "N", 0,
	  "Pairs kept (default 10240); when full, the least recently active go", 0 },
	{},
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'm':
		env.ms = true;
		break;
	case 'P':
		env.per_process = true;
		break;
	case 'G':
		env.per_cgroup = true;
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

/* A row of a table: a pair of things (threads, processes, cgroups). */
struct agg {
	__u64 a, b;			/* donor side, owner side */
	__u64 a_start, b_start;		/* threads: their start times (a pid
					 * recycled is another row) */
	const char *a_name, *b_name;	/* comm or cgroup path */
	__u64 ns, stretches, max_ns;
};

enum by { BY_THREAD, BY_PROCESS, BY_CGROUP };

static const char *const by_name[] = { "pairs", "processes", "cgroups" };

static int agg_cmp(const void *x, const void *y)
{
	const struct agg *p = x, *q = y;

	if (p->ns != q->ns)
		return p->ns > q->ns ? -1 : 1;
	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	return p->b < q->b ? -1 : p->b > q->b;
}

/* Sum @d into rows per @by, sorted by donated time.  Caller frees. */
static struct agg *aggregate(const struct pxbpf_pairs *d, enum by by, size_t *n)
{
	struct agg *rows = calloc(d->n ? d->n : 1, sizeof(*rows));
	size_t i, k;

	*n = 0;
	if (!rows)
		return NULL;
	for (i = 0; i < d->n; i++) {
		const struct px_pair *v = &d->v[i].val;
		struct agg r = {
			.ns = v->ns, .stretches = v->stretches, .max_ns = v->max_ns,
			.a_name = v->donor_comm, .b_name = v->owner_comm,
		};

		switch (by) {
		case BY_THREAD:
			r.a = d->v[i].key.donor_pid;
			r.b = d->v[i].key.owner_pid;
			r.a_start = d->v[i].key.donor_start;
			r.b_start = d->v[i].key.owner_start;
			break;
		case BY_PROCESS:
			r.a = v->donor_tgid;
			r.b = v->owner_tgid;
			break;
		case BY_CGROUP:
			r.a = v->donor_cgid;
			r.b = v->owner_cgid;
			r.a_name = r.b_name = NULL;	/* resolved when printed */
			break;
		}
		for (k = 0; k < *n; k++)
			if (rows[k].a == r.a && rows[k].b == r.b &&
			    rows[k].a_start == r.a_start && rows[k].b_start == r.b_start)
				break;
		if (k == *n) {
			rows[(*n)++] = r;
			continue;
		}
		rows[k].ns += r.ns;
		rows[k].stretches += r.stretches;
		if (r.max_ns > rows[k].max_ns)
			rows[k].max_ns = r.max_ns;
	}
	qsort(rows, *n, sizeof(*rows), agg_cmp);
	return rows;
}

static void print_table(const struct pxbpf_pairs *d, enum by by)
{
	static const char *const head[][2] = {
		[BY_THREAD]	= { "DONOR", "OWNER" },
		[BY_PROCESS]	= { "DONOR-PROC", "OWNER-PROC" },
		[BY_CGROUP]	= { "DONOR-CGROUP", "OWNER-CGROUP" },
	};
	struct agg *rows;
	size_t n, i;

	rows = aggregate(d, by, &n);
	if (!rows)
		return;
	if (by == BY_CGROUP)
		printf("%-24s %-24s %12s %10s %12s\n", head[by][0], head[by][1],
		       "DONATED_ms", "STRETCHES", "MAX_us");
	else
		printf("%-16s %7s  %-16s %7s %12s %10s %12s\n", head[by][0], "PID",
		       head[by][1], "PID", "DONATED_ms", "STRETCHES", "MAX_us");
	for (i = 0; i < n; i++) {
		if (by == BY_CGROUP) {
			char a[64];

			snprintf(a, sizeof(a), "%s", pxbpf_cgroup_path(rows[i].a));
			printf("%-24s %-24s", a, pxbpf_cgroup_path(rows[i].b));
		} else {
			printf("%-16s %7llu  %-16s %7llu", rows[i].a_name,
			       (unsigned long long)rows[i].a, rows[i].b_name,
			       (unsigned long long)rows[i].b);
		}
		printf(" %12.3f %10llu %12llu\n", rows[i].ns / 1e6,
		       (unsigned long long)rows[i].stretches,
		       (unsigned long long)(rows[i].max_ns / 1000));
	}
	if (!n)
		printf("(no proxy stretches)\n");
	free(rows);
}

static void json_table(struct px_json *j, const struct pxbpf_pairs *d, enum by by)
{
	static const char *const side[][2] = {
		[BY_THREAD]	= { "donor_pid", "owner_pid" },
		[BY_PROCESS]	= { "donor_tgid", "owner_tgid" },
		[BY_CGROUP]	= { "donor_cgid", "owner_cgid" },
	};
	struct agg *rows;
	size_t n, i;

	rows = aggregate(d, by, &n);
	if (!rows)
		return;
	px_json_array_begin(j, by_name[by]);
	for (i = 0; i < n; i++) {
		px_json_object_begin(j, NULL);
		px_json_u64(j, side[by][0], rows[i].a);
		px_json_u64(j, side[by][1], rows[i].b);
		if (by == BY_CGROUP) {
			px_json_string(j, "donor_cgroup", pxbpf_cgroup_path(rows[i].a));
			px_json_string(j, "owner_cgroup", pxbpf_cgroup_path(rows[i].b));
		} else {
			px_json_string(j, "donor_comm", rows[i].a_name);
			px_json_string(j, "owner_comm", rows[i].b_name);
		}
		px_json_u64(j, "donated_ns", rows[i].ns);
		px_json_u64(j, "stretches", rows[i].stretches);
		px_json_u64(j, "max_ns", rows[i].max_ns);
		px_json_object_end(j);
	}
	px_json_array_end(j);
	free(rows);
}

/* What one interval is compared with. */
struct state {
	struct pxdonor_bpf *obj;
	struct pxbpf_pairs prev;
	struct px_counters prev_cnt;
	__u64 prev_evicted;
};

static int print_interval(void *ctx)
{
	struct state *st = ctx;
	struct pxdonor_bpf *obj = st->obj;
	struct pxbpf_pairs *prev = &st->prev;
	struct px_counters *prev_cnt = &st->prev_cnt;
	struct pxbpf_pairs cur = {}, d = {};
	struct px_counters cnt;
	struct px_hist hist = {};
	const char *unit = env.ms ? "msecs" : "usecs";
	__u64 evicted = 0, new_evicted = 0;
	int err;

	/* Counters first: a pair entered after them is not an eviction. */
	err = pxbpf_counters_read(obj->maps.counters, &cnt);
	if (!err)
		err = pxbpf_pairs_snapshot(obj->maps.pairs, obj->maps.stretch, &cur);
	if (!err)
		err = pxbpf_pairs_delta(&cur, prev, &d);
	if (!err)
		err = pxbpf_percpu_sum(obj->maps.hist, 0, &hist, sizeof(hist),
				       sizeof(hist.slots[0]), true);
	if (err) {
		px_warnx("failed to read maps: %s", strerror(-err));
		goto out;
	}
	evicted = pxbpf_pairs_evicted(&cnt, &cur);
	new_evicted = evicted > st->prev_evicted ? evicted - st->prev_evicted : 0;

	if (env.c.json) {
		struct px_json j;

		px_json_init(&j, stdout, PX_JSON_LINES);
		px_json_object_begin(&j, NULL);
		px_json_i64(&j, "time", time(NULL));
		json_table(&j, &d, BY_THREAD);
		if (env.per_process)
			json_table(&j, &d, BY_PROCESS);
		if (env.per_cgroup)
			json_table(&j, &d, BY_CGROUP);
		px_json_string(&j, "stretch_unit", unit);
		px_json_log2_hist(&j, "stretch_hist", hist.slots, PX_MAX_SLOTS);
		px_json_u64(&j, "all_donated_ns", cnt.donated_ns - prev_cnt->donated_ns);
		px_json_u64(&j, "lost", cnt.lost - prev_cnt->lost);
		px_json_u64(&j, "evicted", new_evicted);
		px_json_u64(&j, "evicted_total", evicted);
		px_json_object_end(&j);
		px_json_finish(&j);
	} else {
		printf("\n");
		if (env.c.timestamp) {
			px_print_time(stdout);
			printf("\n");
		}
		printf("donor runtime (all pairs, completed stretches): %.3f ms\n",
		       (cnt.donated_ns - prev_cnt->donated_ns) / 1e6);
		print_table(&d, BY_THREAD);
		if (env.per_process) {
			printf("\n");
			print_table(&d, BY_PROCESS);
		}
		if (env.per_cgroup) {
			printf("\n");
			print_table(&d, BY_CGROUP);
		}
		printf("\nproxy stretch length\n");
		px_print_log2_hist(stdout, hist.slots, PX_MAX_SLOTS, unit);
		if (cnt.lost > prev_cnt->lost)
			printf("(%llu pairs did not fit the map)\n",
			       (unsigned long long)(cnt.lost - prev_cnt->lost));
		if (new_evicted)
			printf("(%llu idle pairs evicted from the full map, %llu since start: "
			       "their totals are gone; --max-pairs)\n",
			       (unsigned long long)new_evicted,
			       (unsigned long long)evicted);
	}
	fflush(stdout);
	pxbpf_pairs_free(prev);
	*prev = cur;
	cur.v = NULL;
	*prev_cnt = cnt;
	if (evicted > st->prev_evicted)
		st->prev_evicted = evicted;
out:
	pxbpf_pairs_free(&cur);
	pxbpf_pairs_free(&d);
	return err;
}

int main(int argc, char **argv)
{
	static const struct argp argp = {
		.options = opts,
		.parser = parse_arg,
		.doc = doc,
	};
	struct state st = {};
	struct pxdonor_bpf *obj = NULL;
	int err;

	err = pxbpf_init(&argp, argc, argv, &env.c);
	if (err)
		return err;

	obj = pxdonor_bpf__open();
	if (!obj) {
		px_warnx("failed to open BPF object");
		return 1;
	}
	PXBPF_SET_FILTERS(obj->rodata, &env.c);
	obj->rodata->targ_ms = env.ms;
	err = pxbpf_set_max_pairs(obj->maps.pairs, env.max_pairs);
	if (!err)
		err = pxbpf_load_attach(obj->skeleton);
	if (err)
		goto cleanup;
	st.obj = obj;
	if (env.per_cgroup)
		pxbpf_learn_cgroups();
	err = pxbpf_loop(&env.c, "donor runtime", print_interval, &st);

cleanup:
	pxbpf_pairs_free(&st.prev);
	pxdonor_bpf__destroy(obj);
	return err != 0;
}

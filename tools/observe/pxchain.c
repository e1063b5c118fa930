// SPDX-License-Identifier: GPL-2.0
/*
 * pxchain: histogram of the blocked_on chain depth at each proxy
 * resolution (sched_proxy_pick), system-wide or per donor / per owner,
 * and the reasons find_proxy_task() gave up (sched_proxy_abort).
 *
 * Usage: pxchain [-h] [-D|-O] [--max-tasks N] [-p PID] [-c CGROUP] [-T] [-j] [-v]
 *                [interval] [count]
 *
 * Per donor/owner, an interval's histograms live in a plain hash of
 * --max-tasks entries: a pick that finds it full is counted in the
 * per-CPU "lost" map and said (text line, JSON lost_picks).
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
#include "pxchain.h"
#include "pxchain.skel.h"
#include "pxbpf_user.h"
#include "pxutil.h"

static struct env {
	struct pxbpf_env c;
	bool per_donor;
	bool per_owner;
	long max_tasks;		/* --max-tasks: entries of the hists map */
	__u64 lost_total;	/* picks not counted, since start */
} env = { .c = PXBPF_ENV_INIT, .max_tasks = PX_MAX_TASKS };

enum { OPT_MAX_TASKS = 0x100 };

/*
 * Abort reason names by the kernel's value, from its BTF (enum
 * proxy_abort_reason): the series dropped reasons, so the numbering
 * differs between kernels.  A value the enum lacks prints as reason_N;
 * the last slot counts values past the table.
 */
static char abort_names[PX_ABORT_SLOTS][PXBPF_ENUM_NAME_LEN];

static const char *abort_name(int v, char *buf, size_t len)
{
	if (v == PX_ABORT_SLOTS - 1)
		return "unknown";
	if (abort_names[v][0])
		return abort_names[v];
	snprintf(buf, len, "reason_%d", v);
	return buf;
}

static const char doc[] =
"Summarize the blocked_on chain depth at each proxy resolution.\n"
"\n"
"USAGE: pxchain [-h] [-D|-O] [--max-tasks N] [-p PID] [-c CGROUP] [-T] [-j]\n"
"               [-v] [interval] [count]\n"
"\n"
"Depth is the number of mutexes walked from the picked donor to the owner\n"
"that ran (1: the donor waits directly on the owner's mutex).  With -D/-O\n"
"the histograms of an interval live in a map of --max-tasks tasks: picks\n"
"of tasks past that are not counted, and the count of them is printed\n"
"(JSON lost_picks).\n"
"\n"
"EXAMPLES:\n"
"    pxchain             # system-wide depth histogram until Ctrl-C\n"
"    pxchain 1 10        # print 1 second summaries, 10 times\n"
"    pxchain -D          # one histogram per donor\n"
"    pxchain -O -T 5     # per owner, every 5 s, with timestamps\n"
"    pxchain -p 185      # only chains where process 185 donates or owns\n"
"    pxchain -c /lab     # only chains touching cgroup /lab or below\n"
"    pxchain -j 1 3      # JSON lines\n";

static const struct argp_option opts[] = {
	{ "donor", 'D', NULL, 0, "Print a histogram per donor", 0 },
	{ "owner", 'O', NULL, 0, "Print a histogram per owner", 0 },
	{ "max-tasks", OPT_MAX_TASKS, "N", 0,
	  "Donors or owners with a histogram per interval (default 10240); picks of others are counted as lost", 0 },
	{},
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'D':
		env.per_donor = true;
		break;
	case 'O':
		env.per_owner = true;
		break;
	case OPT_MAX_TASKS:
		env.max_tasks = px_arg_long(state, "max-tasks", arg, 1, PXBPF_MAX_PAIRS_MAX);
		break;
	case ARGP_KEY_END:
		if (env.per_donor && env.per_owner)
			argp_error(state, "-D and -O are mutually exclusive");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

struct row {
	__u32 pid;
	struct pxchain_hist h;
};

static int row_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static void print_depth_hist(const struct pxchain_hist *h)
{
	__u64 max = 0, total = 0;
	int i, last = -1, stars;

	for (i = 0; i <= PX_MAX_DEPTH; i++) {
		if (h->slots[i] > max)
			max = h->slots[i];
		if (h->slots[i])
			last = i;
		total += h->slots[i];
	}
	printf("%10s : %-10s distribution\n", "depth", "count");
	for (i = 1; i <= last || (i == 1 && last < 1); i++) {
		char label[16];

		if (i == PX_MAX_DEPTH)
			snprintf(label, sizeof(label), ">=%d", i);
		else
			snprintf(label, sizeof(label), "%d", i);
		stars = max ? (int)(h->slots[i] * 40 / max) : 0;
		printf("%10s : %-10llu |%-40.*s|\n", label,
		       (unsigned long long)h->slots[i], stars,
		       "****************************************");
	}
	if (h->slots[0])
		printf("%10s : %-10llu (depth 0: invalid)\n", "0",
		       (unsigned long long)h->slots[0]);

	printf("%10s : %llu\n", "total", (unsigned long long)total);
}

/* Read every histogram (sorted by pid) and clear the map. */
static int read_hists(struct pxchain_bpf *obj, struct row **rows, size_t *n)
{
	struct bpf_map *map = obj->maps.hists;
	__u32 key, next, *prev = NULL;
	size_t cap = 0;
	struct row *r;

	*n = 0;
	*rows = NULL;
	while (!bpf_map__get_next_key(map, prev, &next, sizeof(next))) {
		key = next;
		prev = &key;
		if (*n == cap) {
			cap = cap ? 2 * cap : 16;
			r = realloc(*rows, cap * sizeof(*r));
			if (!r)
				return -ENOMEM;
			*rows = r;
		}
		r = &(*rows)[*n];
		if (bpf_map__lookup_elem(map, &key, sizeof(key), &r->h,
					 sizeof(r->h), 0))
			continue;
		r->pid = key;
		(*n)++;
	}
	for (size_t i = 0; i < *n; i++) {
		key = (*rows)[i].pid;
		bpf_map__delete_elem(map, &key, sizeof(key), 0);
	}
	if (*n)
		qsort(*rows, *n, sizeof(**rows), row_cmp);
	return 0;
}

/* Read and clear the @n per-CPU counts of @map. */
static int read_counts(struct bpf_map *map, __u64 *counts, __u32 n)
{
	__u32 i;
	int err;

	for (i = 0; i < n; i++) {
		err = pxbpf_percpu_sum(map, i, &counts[i],
				       sizeof(counts[i]), sizeof(counts[i]), true);
		if (err)
			return err;
	}
	return 0;
}

static const char *const lock_type_names[] = { "mutex", "rwsem" };

static void print_json(const struct row *rows, size_t n, const __u64 *aborts,
		       const __u64 *types, __u64 lost)
{
	const char *by = env.per_donor ? "donor" : env.per_owner ? "owner" : "all";
	char buf[32];
	struct px_json j;
	size_t i;
	int d;

	px_json_init(&j, stdout, PX_JSON_LINES);
	px_json_object_begin(&j, NULL);
	px_json_i64(&j, "time", time(NULL));
	px_json_string(&j, "by", by);
	px_json_array_begin(&j, "hists");
	for (i = 0; i < n; i++) {
		px_json_object_begin(&j, NULL);
		if (rows[i].pid) {
			px_json_u64(&j, "pid", rows[i].pid);
			px_json_u64(&j, "tgid", rows[i].h.tgid);
			px_json_string(&j, "comm", rows[i].h.comm);
		}
		px_json_array_begin(&j, "depth");	/* [depth, count] pairs */
		for (d = 0; d <= PX_MAX_DEPTH; d++) {
			if (!rows[i].h.slots[d])
				continue;
			px_json_array_begin(&j, NULL);
			px_json_u64(&j, NULL, d);
			px_json_u64(&j, NULL, rows[i].h.slots[d]);
			px_json_array_end(&j);
		}
		px_json_array_end(&j);
		px_json_object_end(&j);
	}
	px_json_array_end(&j);
	/* Every reason the kernel has, then any other value seen. */
	px_json_object_begin(&j, "aborts");
	for (d = 0; d < PX_ABORT_SLOTS; d++)
		if (abort_names[d][0] || aborts[d] || d == PX_ABORT_SLOTS - 1)
			px_json_u64(&j, abort_name(d, buf, sizeof(buf)), aborts[d]);
	px_json_object_end(&j);
	/* {"mutex": {"picks": N, "aborts": N}, "rwsem": {...}} */
	px_json_object_begin(&j, "lock_types");
	for (d = 0; d < 2; d++) {
		px_json_object_begin(&j, lock_type_names[d]);
		px_json_u64(&j, "picks", types[PXCHAIN_PICK_MUTEX + d]);
		px_json_u64(&j, "aborts", types[PXCHAIN_ABORT_MUTEX + d]);
		px_json_object_end(&j);
	}
	px_json_object_end(&j);
	/* picks of tasks the full hists map had no room for */
	px_json_u64(&j, "lost_picks", lost);
	px_json_u64(&j, "lost_picks_total", env.lost_total);
	px_json_object_end(&j);
	px_json_finish(&j);
}

static void print_text(const struct row *rows, size_t n, const __u64 *aborts,
		       const __u64 *types, __u64 lost)
{
	char buf[32];
	__u64 total = 0;
	size_t i;
	int d;

	if (env.c.timestamp)
		px_print_time(stdout);
	printf("\n");
	if (!n) {
		static const struct pxchain_hist none;

		if (env.per_donor || env.per_owner)
			printf("no proxy picks\n");
		else
			print_depth_hist(&none);
	}
	for (i = 0; i < n; i++) {
		if (rows[i].pid)
			printf("%s = %u [%s] tgid %u\n", env.per_donor ? "donor" : "owner",
			       rows[i].pid, rows[i].h.comm, rows[i].h.tgid);
		print_depth_hist(&rows[i].h);
		if (i + 1 < n)
			printf("\n");
	}
	for (d = 0; d < PX_ABORT_SLOTS; d++)
		total += aborts[d];
	printf("aborts: %llu", (unsigned long long)total);
	for (d = 0; d < PX_ABORT_SLOTS; d++)
		if (aborts[d])
			printf(" %s=%llu", abort_name(d, buf, sizeof(buf)),
			       (unsigned long long)aborts[d]);
	printf("\n");
	printf("by lock type: mutex %llu picks, %llu aborts; rwsem %llu picks, %llu aborts\n",
	       (unsigned long long)types[PXCHAIN_PICK_MUTEX],
	       (unsigned long long)types[PXCHAIN_ABORT_MUTEX],
	       (unsigned long long)types[PXCHAIN_PICK_RWSEM],
	       (unsigned long long)types[PXCHAIN_ABORT_RWSEM]);
	pxbpf_print_lost(stdout, lost, env.lost_total, "picks", env.max_tasks,
			 env.per_owner ? "owners per interval" : "donors per interval",
			 "--max-tasks");
}

static int print_interval(void *ctx)
{
	struct pxchain_bpf *obj = ctx;
	__u64 aborts[PX_ABORT_SLOTS] = {}, types[PXCHAIN_LOCK_SLOTS] = {}, lost = 0;
	struct row *rows;
	size_t n;
	int err;

	err = read_hists(obj, &rows, &n);
	if (!err)
		err = read_counts(obj->maps.aborts, aborts, PX_ABORT_SLOTS);
	if (!err)
		err = read_counts(obj->maps.lock_types, types, PXCHAIN_LOCK_SLOTS);
	if (!err)
		err = read_counts(obj->maps.lost, &lost, 1);
	if (err) {
		free(rows);
		px_warnx("failed to read maps: %s", strerror(-err));
		return err;
	}
	env.lost_total += lost;
	if (env.c.json)
		print_json(rows, n, aborts, types, lost);
	else
		print_text(rows, n, aborts, types, lost);
	fflush(stdout);
	free(rows);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct argp argp = {
		.options = opts,
		.parser = parse_arg,
		.doc = doc,
	};
	struct pxchain_bpf *obj = NULL;
	int err;

	err = pxbpf_init(&argp, argc, argv, &env.c);
	if (err)
		return err;

	/* Without the enum (a BTF file standing in for the kernel) the
	 * reasons print as numbers. */
	pxbpf_enum_names("proxy_abort_reason", "PROXY_ABORT_", abort_names,
			 PX_ABORT_SLOTS - 1);
	obj = pxchain_bpf__open();
	if (!obj) {
		px_warnx("failed to open BPF object");
		return 1;
	}
	PXBPF_SET_FILTERS(obj->rodata, &env.c);
	obj->rodata->targ_per_donor = env.per_donor;
	obj->rodata->targ_per_owner = env.per_owner;
	err = bpf_map__set_max_entries(obj->maps.hists, env.max_tasks);
	if (err) {
		px_warnx("cannot size the hists map to %ld: %s", env.max_tasks, strerror(-err));
		goto cleanup;
	}
	err = pxbpf_load_attach(obj->skeleton);
	if (err)
		goto cleanup;
	err = pxbpf_loop(&env.c, "proxy chain depth", print_interval, obj);

cleanup:
	pxchain_bpf__destroy(obj);
	return err != 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * pxbpf_user: user-space helpers shared by the libbpf tools; see
 * pxbpf_user.h.  Generic helpers (errors, parsing, histograms, JSON,
 * cgroup root) come from libpxutil.
 */
#define _GNU_SOURCE
#include <argp.h>
#include <ctype.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "pxbpf_user.h"
#include "pxutil.h"

#define PX_CGROUP2_MAGIC	0x63677270
#define NSEC_PER_SEC		1000000000ULL

/* ---------------------------------------------------------- common argp */

static const struct argp_option common_options[] = {
	{ "pid", 'p', "PID", 0, "Only proxy activity involving process PID", 0 },
	{ "cgroup", 'c', "CGROUP", 0,
	  "Only tasks in cgroup v2 CGROUP or below (path, absolute or relative to the cgroup2 mount)", 0 },
	{ "timestamp", 'T', NULL, 0, "Include a timestamp in each output", 0 },
	{ "json", 'j', NULL, 0, "Print JSON lines instead of tables", 0 },
	{ "verbose", 'v', NULL, 0, "Verbose debug output (libbpf)", 0 },
	{},
};

/*
 * [interval]: seconds, whole ones unless the tool allows fractions
 * (@env->interval_min_ns below a second: proxytop), with the parser of
 * every duration (decimal, a unit may follow: "2", "500ms"; never "0x10"
 * or "1e2").
 */
static void parse_interval(struct argp_state *state, struct pxbpf_env *env, const char *arg)
{
	uint64_t min = env->interval_min_ns ? env->interval_min_ns : NSEC_PER_SEC;
	uint64_t max = env->interval_max_ns ? env->interval_max_ns : INT_MAX * NSEC_PER_SEC;
	uint64_t ns = px_arg_duration_ns(state, "interval", arg, NSEC_PER_SEC, min, max);

	if (min >= NSEC_PER_SEC && ns % NSEC_PER_SEC)
		argp_error(state, "invalid interval: %s (whole seconds)", arg);
	env->interval = (long)(ns / NSEC_PER_SEC);
	env->interval_ns = ns;
}

static error_t common_parse(int key, char *arg, struct argp_state *state)
{
	struct pxbpf_env *env = state->input;
	int err;

	switch (key) {
	case 'p':
		env->pid = px_arg_long(state, "PID", arg, 1, INT_MAX);
		break;
	case 'c':
		env->cgroup = arg;
		err = pxbpf_cgroup_target(arg, &env->cgid, &env->cglevel);
		if (err)
			argp_error(state, "invalid CGROUP: %s: %s", arg, strerror(-err));
		break;
	case 'T':
		env->timestamp = true;
		break;
	case 'j':
		env->json = true;
		break;
	case 'v':
		env->verbose = true;
		break;
	case ARGP_KEY_ARG:
		if (env->nargs == 0)
			parse_interval(state, env, arg);
		else if (env->nargs == 1)
			env->count = px_arg_long(state, "count", arg, 1, INT_MAX);
		else
			argp_error(state, "unrecognized positional argument: %s", arg);
		env->nargs++;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

int pxbpf_init(const struct argp *argp, int argc, char **argv,
	       struct pxbpf_env *env)
{
	/* The common options on top, the tool's own as the child. */
	struct argp tool = *argp;
	const struct argp_child children[] = {
		{ &tool, 0, NULL, 0 },
		{},
	};
	struct argp full = {
		.options = common_options,
		.parser = common_parse,
		.doc = argp->doc,
		.children = children,
	};

	tool.doc = NULL;
	if (px_argp_parse(&full, argc, argv, env))
		return PX_EXIT_USAGE;
	if (pxbpf_preflight(!env->proxy_optional))
		return 1;
	env->have_proxy = pxbpf_have_proxy_events();
	pxbpf_set_verbose(env->verbose);
	return 0;
}

int pxbpf_loop(struct pxbpf_env *env, const char *what,
	       int (*print)(void *ctx), void *ctx)
{
	int err;

	pxbpf_handle_signals();
	/* With -j stdout carries JSON only: announce on stderr. */
	fprintf(env->json ? stderr : stdout,
		"Tracing %s... Hit Ctrl-C to end.\n", what);
	fflush(stdout);
	while (1) {
		pxbpf_sleep(env->interval);
		err = print(ctx);
		if (err || pxbpf_exiting || --env->count == 0)
			return err;
	}
}

volatile sig_atomic_t pxbpf_exiting;

static void sig_handler(int sig)
{
	pxbpf_exiting = 1;
}

void pxbpf_handle_signals(void)
{
	struct sigaction sa = { .sa_handler = sig_handler };

	/* No SA_RESTART: the sleep in the main loop returns at once. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

static bool learn_cgroups;

void pxbpf_learn_cgroups(void)
{
	learn_cgroups = true;
	pxbpf_cgroup_learn();
}

void pxbpf_sleep(long seconds)
{
	__u64 deadline = px_now_ns() + seconds * 1000000000ULL, now;
	__u64 learnt = px_now_ns();
	struct timespec ts;

	/* In slices, so a signal just before nanosleep() is not missed. */
	while (!pxbpf_exiting && (now = px_now_ns()) < deadline) {
		__u64 left = deadline - now;

		if (left > 200000000ULL)
			left = 200000000ULL;
		ts.tv_sec = 0;
		ts.tv_nsec = left;
		nanosleep(&ts, NULL);
		if (learn_cgroups && px_now_ns() - learnt >= 1000000000ULL) {
			pxbpf_cgroup_learn();
			learnt = px_now_ns();
		}
	}
}

struct ring_buffer *pxbpf_rb_new(struct bpf_map *events,
				 int (*print)(void *ctx, void *data, size_t size))
{
	struct ring_buffer *rb = ring_buffer__new(bpf_map__fd(events), print, NULL, NULL);
	int err = errno;

	if (!rb) {
		px_warnx("failed to create the ring buffer: %s", strerror(err));
		errno = err;	/* px_warnx() clears it */
	}
	return rb;
}

int pxbpf_rb_loop(struct ring_buffer *rb, bool json, const char *what, __u64 duration_ns,
		  bool (*done)(void))
{
	__u64 deadline;
	int err = 0;

	pxbpf_handle_signals();
	fprintf(json ? stderr : stdout, "Tracing %s... Hit Ctrl-C to end.\n", what);
	fflush(stdout);
	deadline = duration_ns ? px_now_ns() + duration_ns : 0;
	while (!pxbpf_exiting) {
		err = ring_buffer__poll(rb, 100);
		if (err == -EINTR) {
			err = 0;
			continue;
		}
		if (err < 0) {
			px_warnx("ring buffer: %s", strerror(-err));
			break;
		}
		err = 0;
		if (done && done())
			break;
		if (deadline && px_now_ns() >= deadline)
			break;
	}
	return err;
}

void pxbpf_json_task(struct px_json *j, const char *key, __u32 pid, __u32 tgid,
		     const char *comm, int prio)
{
	px_json_object_begin(j, key);
	px_json_u64(j, "pid", pid);
	px_json_u64(j, "tgid", tgid);
	px_json_string_len(j, "comm", comm, strnlen(comm, PX_COMM_LEN));
	px_json_i64(j, "prio", prio);
	px_json_object_end(j);
}

/* ------------------------------------------------------------ preflight */

/*
 * The kernel's BTF, or the file named by $PXBPF_VMLINUX_BTF, which the
 * tests use to stand for a kernel without BTF or without the events.
 */
static const char *vmlinux_btf_path(void)
{
	const char *path = getenv("PXBPF_VMLINUX_BTF");

	return path && *path ? path : "/sys/kernel/btf/vmlinux";
}

/* tp_btf needs the events' btf_trace_* typedefs in the kernel's BTF. */
bool pxbpf_have_proxy_events(void)
{
	struct btf *btf = btf__parse(vmlinux_btf_path(), NULL);
	bool found;

	if (!btf)
		return false;
	found = btf__find_by_name_kind(btf, "btf_trace_sched_proxy_pick",
				       BTF_KIND_TYPEDEF) > 0;
	btf__free(btf);
	return found;
}

int pxbpf_preflight(bool need_proxy)
{
	uint64_t caps = 0;

	if (access(vmlinux_btf_path(), R_OK)) {
		px_warnx("kernel has no BTF (%s missing): boot a kernel built "
			 "with CONFIG_DEBUG_INFO_BTF=y, such as the proxyexec "
			 "lean kernel", vmlinux_btf_path());
		return -ENOENT;
	}
	if (need_proxy && !pxbpf_have_proxy_events()) {
		px_warnx("kernel has no sched_proxy trace events (not a proxy "
			 "execution kernel): boot the proxyexec kernel built "
			 "with CONFIG_PROXY_EXEC=y");
		return -ENOENT;
	}
	if (px_read_cap_eff(NULL, &caps) || !px_caps_allow_bpf(caps)) {
		px_warnx("needs CAP_BPF and CAP_PERFMON (or root) to load BPF: "
			 "run it with sudo");
		return -EPERM;
	}
	return 0;
}

int pxbpf_enum_names(const char *type, const char *prefix,
		     char (*names)[PXBPF_ENUM_NAME_LEN], int max)
{
	struct btf *btf = btf__parse(vmlinux_btf_path(), NULL);
	size_t plen = strlen(prefix);
	const struct btf_enum *e;
	const struct btf_type *t;
	int id, i, found = 0;
	char *c;

	for (i = 0; i < max; i++)
		names[i][0] = '\0';
	if (!btf)
		return -errno;
	id = btf__find_by_name_kind(btf, type, BTF_KIND_ENUM);
	if (id <= 0) {
		btf__free(btf);
		return -ENOENT;
	}
	t = btf__type_by_id(btf, id);
	e = btf_enum(t);
	for (i = 0; i < btf_vlen(t); i++, e++) {
		const char *n = btf__name_by_offset(btf, e->name_off);

		if (e->val < 0 || e->val >= max || !n)
			continue;
		if (!strncmp(n, prefix, plen))
			n += plen;
		snprintf(names[e->val], PXBPF_ENUM_NAME_LEN, "%s", n);
		for (c = names[e->val]; *c; c++)
			*c = tolower((unsigned char)*c);
		found++;
	}
	btf__free(btf);
	return found;
}

/* ------------------------------------------------------------- libbpf */

static bool verbose;

/* libbpf's lines start "libbpf: "; ours with the tool's name before that. */
static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list args)
{
	if (level == LIBBPF_DEBUG && !verbose)
		return 0;
	fprintf(stderr, "%s: ", program_invocation_short_name);
	return vfprintf(stderr, fmt, args);
}

void pxbpf_set_verbose(bool v)
{
	verbose = v;
	libbpf_set_print(libbpf_print);
}

/* Can BPF_PROG_TYPE_TRACING attach to @tp as tp_btf?  (libbpf-tools) */
static bool probe_tp_btf(const char *tp)
{
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = BPF_TRACE_RAW_TP);
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int fd, id;

	id = libbpf_find_vmlinux_btf_id(tp, BPF_TRACE_RAW_TP);
	if (id <= 0)
		return false;
	opts.attach_btf_id = id;
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, NULL, "GPL", insns,
			   PX_ARRAY_SIZE(insns), &opts);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

int pxbpf_load_attach(struct bpf_object_skeleton *skel)
{
	int err;

	/* Every handler is tp_btf (bpf/pxbpf.h says why there is no raw_tp). */
	if (!probe_tp_btf("sched_switch")) {
		px_warnx("kernel cannot attach BPF tracing programs (tp_btf): boot "
			 "a kernel built with CONFIG_BPF_SYSCALL=y and "
			 "CONFIG_BPF_EVENTS=y, such as the proxyexec lean kernel");
		return -EOPNOTSUPP;
	}
	err = bpf_object__load_skeleton(skel);
	if (err) {
		px_warnx("failed to load BPF programs: %s (-v for details)",
			 strerror(-err));
		return err;
	}
	err = bpf_object__attach_skeleton(skel);
	if (err)
		px_warnx("failed to attach BPF programs: %s", strerror(-err));
	return err;
}

int pxbpf_percpu_sum(struct bpf_map *map, __u32 key, void *sum, size_t size,
		     size_t word, bool clear)
{
	int ncpus = libbpf_num_possible_cpus();
	size_t stride = (size + 7) / 8 * 8;	/* per-CPU values are 8-aligned */
	size_t f, nwords = size / word;
	unsigned char *v;
	int i, err;

	memset(sum, 0, size);
	if (ncpus <= 0)
		return ncpus ? ncpus : -EINVAL;
	if ((word != 4 && word != 8) || size % word)
		return -EINVAL;
	v = calloc(ncpus, stride);
	if (!v)
		return -ENOMEM;
	err = bpf_map__lookup_elem(map, &key, sizeof(key), v, ncpus * stride, 0);
	for (i = 0; !err && i < ncpus; i++) {
		const unsigned char *cpu = v + i * stride;

		for (f = 0; f < nwords; f++) {
			if (word == 8)
				((__u64 *)sum)[f] += ((const __u64 *)cpu)[f];
			else
				((__u32 *)sum)[f] += ((const __u32 *)cpu)[f];
		}
	}
	if (!err && clear) {
		memset(v, 0, ncpus * stride);
		err = bpf_map__update_elem(map, &key, sizeof(key), v, ncpus * stride, 0);
	}
	free(v);
	return err;
}

/* -------------------------------------------------------------- cgroups */

int pxbpf_cgroup_target(const char *path, __u64 *id, __u32 *level)
{
	const char *root = px_cgroup_root();
	char buf[PATH_MAX], real[PATH_MAX], rroot[PATH_MAX];
	struct statfs sfs;
	const char *rel;
	uint64_t cgid;
	size_t rlen;
	__u32 lvl = 0;
	int ret;

	if (!root)
		return -ENOENT;
	if (!realpath(root, rroot))
		return -errno;
	/* Absolute inside the mount, else relative to it. */
	if (path[0] == '/' && !strncmp(path, rroot, strlen(rroot)))
		snprintf(buf, sizeof(buf), "%s", path);
	else
		snprintf(buf, sizeof(buf), "%s/%s", rroot, path);
	if (!realpath(buf, real))
		return -errno;
	if (statfs(real, &sfs))
		return -errno;
	if (sfs.f_type != PX_CGROUP2_MAGIC)
		return -ENOTDIR;
	rlen = strlen(rroot);
	if (strncmp(real, rroot, rlen) || (real[rlen] && real[rlen] != '/'))
		return -EXDEV;
	for (rel = real + rlen; *rel; rel++)
		if (*rel == '/' && rel[1])
			lvl++;
	ret = px_cgroup_id(real, &cgid);
	if (ret)
		return ret;
	*id = cgid;
	*level = lvl;
	return 0;
}

struct cg_ent {
	__u64 id;
	char *path;
};

static struct cg_ent *cg_ents;
static size_t cg_n, cg_cap;
static size_t cg_root_len;

static int cg_walk(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	struct cg_ent *n;

	if (type != FTW_D)
		return 0;
	if (cg_n == cg_cap) {
		cg_cap = cg_cap ? cg_cap * 2 : 64;
		n = realloc(cg_ents, cg_cap * sizeof(*n));
		if (!n)
			return -1;
		cg_ents = n;
	}
	cg_ents[cg_n].id = st->st_ino;
	cg_ents[cg_n].path = strdup(path[cg_root_len] ? path + cg_root_len : "/");
	if (!cg_ents[cg_n].path)
		return -1;
	cg_n++;
	return 0;
}

/*
 * Add the cgroups that exist now; keep the ones seen before, so a cgroup
 * removed after it was seen keeps its path.
 */
static int cg_walk_merge(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	size_t i;

	if (type != FTW_D)
		return 0;
	for (i = 0; i < cg_n; i++)
		if (cg_ents[i].id == st->st_ino)
			return 0;
	return cg_walk(path, st, type, ftw);
}

static void cg_rescan(void)
{
	const char *root = px_cgroup_root();

	if (!root)
		return;
	cg_root_len = strlen(root);
	nftw(root, cg_walk_merge, 16, FTW_PHYS | FTW_MOUNT);
}

void pxbpf_cgroup_learn(void)
{
	cg_rescan();
}

const char *pxbpf_cgroup_path(__u64 id)
{
	static char unknown[32];
	static __u64 last_scan;
	size_t i;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < cg_n; i++)
			if (cg_ents[i].id == id)
				return cg_ents[i].path;
		/* New cgroups appear: rescan, at most every 100 ms. */
		if (pass || px_now_ns() - last_scan < 100000000ULL)
			break;
		last_scan = px_now_ns();
		cg_rescan();
	}
	snprintf(unknown, sizeof(unknown), "cgid:%llu", (unsigned long long)id);
	return unknown;
}

/* ---------------------------------------------------------------- pairs */

static int key_cmp(const struct px_pair_key *a, const struct px_pair_key *b)
{
	if (a->donor_pid != b->donor_pid)
		return a->donor_pid < b->donor_pid ? -1 : 1;
	if (a->owner_pid != b->owner_pid)
		return a->owner_pid < b->owner_pid ? -1 : 1;
	if (a->donor_start != b->donor_start)
		return a->donor_start < b->donor_start ? -1 : 1;
	if (a->owner_start != b->owner_start)
		return a->owner_start < b->owner_start ? -1 : 1;
	return 0;
}

static int pair_cmp(const void *a, const void *b)
{
	return key_cmp(&((const struct pxbpf_pair *)a)->key,
		       &((const struct pxbpf_pair *)b)->key);
}

const struct pxbpf_pair *pxbpf_pairs_find(const struct pxbpf_pairs *s,
					  const struct px_pair_key *key)
{
	struct pxbpf_pair k = { .key = *key };

	if (!s->n)
		return NULL;
	return bsearch(&k, s->v, s->n, sizeof(k), pair_cmp);
}

void pxbpf_pairs_free(struct pxbpf_pairs *s)
{
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

static int pairs_push(struct pxbpf_pairs *s, size_t *cap, const struct pxbpf_pair *p)
{
	struct pxbpf_pair *n;

	if (s->n == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		n = realloc(s->v, *cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		s->v = n;
	}
	s->v[s->n++] = *p;
	return 0;
}

int pxbpf_pairs_snapshot(struct bpf_map *pairs, struct bpf_map *stretch,
			 struct pxbpf_pairs *s)
{
	int ncpus = libbpf_num_possible_cpus();
	struct px_pair_key key, next, *prev = NULL;
	struct pxbpf_pair p, *hit;
	struct px_stretch *st;
	size_t cap = 0;
	__u32 zero = 0;
	int i, err;

	pxbpf_pairs_free(s);
	if (ncpus <= 0)
		return ncpus ? ncpus : -EINVAL;
	/* Pairs first: a stretch closing meanwhile is missed, never doubled. */
	while (!bpf_map__get_next_key(pairs, prev, &next, sizeof(next))) {
		key = next;
		prev = &key;
		if (bpf_map__lookup_elem(pairs, &key, sizeof(key), &p.val,
					 sizeof(p.val), 0))
			continue;	/* deleted meanwhile */
		p.key = key;
		err = pairs_push(s, &cap, &p);
		if (err)
			return err;
	}
	if (s->n) {
		size_t i, k;

		qsort(s->v, s->n, sizeof(*s->v), pair_cmp);
		/* A walk racing with an eviction may restart: drop repeats. */
		for (i = 1, k = 1; i < s->n; i++)
			if (key_cmp(&s->v[i].key, &s->v[k - 1].key))
				s->v[k++] = s->v[i];
		s->n = k;
	}
	st = calloc(ncpus, sizeof(*st));
	if (!st)
		return -ENOMEM;
	err = bpf_map__lookup_elem(stretch, &zero, sizeof(zero), st,
				   ncpus * sizeof(*st), 0);
	s->ts = px_now_ns();
	s->open_ns = 0;
	for (i = 0; !err && i < ncpus; i++) {
		key = st[i].key;
		if (!st[i].ts || st[i].ts > s->ts)
			continue;
		s->open_ns += s->ts - st[i].ts;
		if (!st[i].tracked)
			continue;
		hit = (struct pxbpf_pair *)pxbpf_pairs_find(s, &key);
		if (hit)
			hit->val.ns += s->ts - st[i].ts;
	}
	free(st);
	return err;
}

static __u64 sub(__u64 a, __u64 b)
{
	return a > b ? a - b : 0;
}

int pxbpf_pairs_delta(const struct pxbpf_pairs *cur, const struct pxbpf_pairs *prev,
		      struct pxbpf_pairs *out)
{
	const struct pxbpf_pair *was;
	struct pxbpf_pair d;
	size_t i, cap = 0;
	int err;

	pxbpf_pairs_free(out);
	out->ts = cur->ts;
	for (i = 0; i < cur->n; i++) {
		d = cur->v[i];
		was = pxbpf_pairs_find(prev, &d.key);
		if (was) {
			d.val.ns = sub(d.val.ns, was->val.ns);
			d.val.stretches = sub(d.val.stretches, was->val.stretches);
			d.val.picks = sub(d.val.picks, was->val.picks);
			d.val.migrations = sub(d.val.migrations, was->val.migrations);
		}
		if (!d.val.ns && !d.val.stretches && !d.val.picks && !d.val.migrations)
			continue;
		err = pairs_push(out, &cap, &d);
		if (err)
			return err;
	}
	return 0;
}

int pxbpf_counters_read(struct bpf_map *counters, struct px_counters *sum)
{
	return pxbpf_percpu_sum(counters, 0, sum, sizeof(*sum), sizeof(__u64), false);
}

__u64 pxbpf_pairs_evicted(const struct px_counters *c, const struct pxbpf_pairs *s)
{
	return c->pairs_new > s->n ? c->pairs_new - s->n : 0;
}

void pxbpf_print_lost(FILE *f, __u64 lost, __u64 total, const char *what,
		      long max, const char *keys, const char *option)
{
	if (!lost)
		return;
	fprintf(f, "(%llu %s lost, %llu since start: the map holds %ld %s; raise %s)\n",
		(unsigned long long)lost, what, (unsigned long long)total, max, keys, option);
}

int pxbpf_set_max_pairs(struct bpf_map *pairs, long n)
{
	int err = bpf_map__set_max_entries(pairs, n);

	if (err)
		px_warnx("cannot size the pairs map to %ld: %s", n, strerror(-err));
	return err;
}

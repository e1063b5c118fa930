// SPDX-License-Identifier: GPL-2.0
/*
 * pxlockwait: one line (or JSON object) per kernel mutex wait longer than
 * --min: the waiter, the owner and the blocked_on chain beyond it when
 * the wait blocked, the mutex and its symbol, the wait and the donor time
 * (owners running on the waiter's scheduling context), and the kernel
 * stacks of the waiter and the owner, symbolized from /proc/kallsyms.
 *
 * Usage: pxlockwait [-h] [--min USEC] [-p PID] [-c CGROUP] [--comm COMM] [-j]
 *                   [-d DURATION] [--max-events N] [--no-stacks] [-v]
 */
#define _GNU_SOURCE
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "pxlockwait.h"
#include "pxlockwait.skel.h"
#include "pxbpf_user.h"
#include "pxutil.h"

static struct env {
	uint64_t min_ns;
	long pid;
	const char *cgroup;	/* -c: as given */
	__u64 cgid;
	__u32 cglevel;
	const char *comm;
	bool json;
	bool verbose;
	bool stacks;
	uint64_t duration_ns;	/* 0: until Ctrl-C */
	long max_events;	/* 0: unlimited */
	bool have_proxy;
} env = {
	.min_ns = 1000000,
	.stacks = true,
};

enum {
	OPT_MIN = 1000,
	OPT_MAX_EVENTS,
	OPT_NO_STACKS,
	OPT_COMM,
};

static const char doc[] =
"Kernel mutex waits longer than --min: who waited, for which mutex, on whom,\n"
"for how long, how much of it an owner ran on the waiter's behalf, and where.\n"
"\n"
"USAGE: pxlockwait [-h] [--min USEC] [-p PID] [-c CGROUP] [--comm COMM] [-j]\n"
"                  [-d DURATION] [--max-events N] [--no-stacks] [-v]\n"
"\n"
"A wait is lock:contention_begin -> contention_end of a mutex.  When the\n"
"waiter blocks, the owner (mutex->owner) and the blocked_on chain beyond\n"
"it (the mutex the owner waits on, its owner, ... at most 5 links) are\n"
"read, with the kernel stacks of the waiter and the owner.  The mutex is\n"
"named from /proc/kallsyms when it is a static one (lab+0x40), and\n"
"super_block's s_vfs_rename_mutex is recognised ([tmpfs]: the s_id).\n"
"Donor time: the sched_proxy_switch stretches in which an owner ran on the\n"
"waiter's scheduling context.  On a kernel without the sched_proxy events\n"
"(CONFIG_PROXY_EXEC=n) it runs without them, says so, and has no donor time.\n"
"-p, -c and --comm match the waiter or the owner.\n"
"\n"
"EXAMPLES:\n"
"    pxlockwait                  # waits over 1 ms until Ctrl-C\n"
"    pxlockwait --min 100        # waits over 100 us (also 100us, 2ms, 1s)\n"
"    pxlockwait -p 185           # waits of process 185, or on it\n"
"    pxlockwait --comm renamedemo  # waits of or on tasks named renamedemo\n"
"    pxlockwait -c /lab          # waits of or on tasks of cgroup /lab\n"
"    pxlockwait -j -d 10s        # JSON, one object per wait, for 10 s\n"
"    pxlockwait --max-events 5 --no-stacks\n";

static const struct argp_option opts[] = {
	{ "min", OPT_MIN, "USEC", 0,
	  "Only waits at least this long (default 1000 us; suffixes ns us ms s)", 0 },
	{ "pid", 'p', "PID", 0, "Only waits of process PID or on a mutex it owns", 0 },
	{ "cgroup", 'c', "CGROUP", 0,
	  "Only waits of tasks in cgroup v2 CGROUP or below, or on a mutex they own "
	  "(path, absolute or relative to the cgroup2 mount)", 0 },
	{ "comm", OPT_COMM, "COMM", 0, "Only waits of tasks named COMM or on a mutex they own", 0 },
	{ "json", 'j', NULL, 0, "One JSON object per wait (JSON lines)", 0 },
	{ "duration", 'd', "DURATION", 0, "Stop after DURATION (seconds; suffixes ms s)", 0 },
	{ "max-events", OPT_MAX_EVENTS, "N", 0, "Stop after N waits", 0 },
	{ "no-stacks", OPT_NO_STACKS, NULL, 0, "Do not collect kernel stacks", 0 },
	{ "verbose", 'v', NULL, 0, "Verbose debug output (libbpf)", 0 },
	{},
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	int err;

	switch (key) {
	case OPT_MIN:
		env.min_ns = px_arg_duration_ns(state, "min", arg, 1000, 0, 3600ULL * 1000000000);
		break;
	case 'p':
		env.pid = px_arg_long(state, "PID", arg, 1, INT_MAX);
		break;
	case 'c':
		env.cgroup = arg;
		err = pxbpf_cgroup_target(arg, &env.cgid, &env.cglevel);
		if (err)
			argp_error(state, "invalid CGROUP: %s: %s", arg, strerror(-err));
		break;
	case OPT_COMM:
		if (!*arg || strlen(arg) >= PX_COMM_LEN)
			argp_error(state, "invalid COMM: '%s' (1 to %d characters)",
				   arg, PX_COMM_LEN - 1);
		env.comm = arg;
		break;
	case 'j':
		env.json = true;
		break;
	case 'd':
		env.duration_ns = px_arg_duration_ns(state, "duration", arg, 1000000000,
						     1000000, 86400ULL * 1000000000);
		break;
	case OPT_MAX_EVENTS:
		env.max_events = px_arg_long(state, "max-events", arg, 1, INT_MAX);
		break;
	case OPT_NO_STACKS:
		env.stacks = false;
		break;
	case 'v':
		env.verbose = true;
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unrecognized argument: %s", arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* The mutex's name: a symbol, a recognised embedded mutex, or "". */
static const char *lock_name(const struct pxlw_link *l, char *buf, size_t len)
{
	if (l->kind == PXLW_LOCK_SB_RENAME) {
		snprintf(buf, len, "s_vfs_rename_mutex");
		return buf;
	}
	return px_ksym_name(l->lock, buf, len);
}

/* --------------------------------------------------------------- output */

static void json_lock(struct px_json *j, const struct pxlw_link *l)
{
	char buf[160];

	snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)l->lock);
	px_json_string(j, "lock", buf);
	lock_name(l, buf, sizeof(buf));
	if (*buf)
		px_json_string(j, "lock_sym", buf);
	else
		px_json_null(j, "lock_sym");
	if (l->kind == PXLW_LOCK_SB_RENAME)
		px_json_string_len(j, "lock_sb", l->where, strnlen(l->where, PXLW_WHERE_LEN));
}

static void print_json(const struct pxlw_event *e)
{
	const struct pxlw_link *l0 = &e->links[0];
	struct px_json j;
	__u32 i;

	px_json_init(&j, stdout, PX_JSON_LINES);
	px_json_object_begin(&j, NULL);
	px_json_i64(&j, "time", time(NULL));
	pxbpf_json_task(&j, "waiter", e->pid, e->tgid, e->comm, e->prio);
	json_lock(&j, l0);
	px_json_u64(&j, "wait_ns", e->wait_ns);
	if (e->flags & PXLW_F_NO_DONOR)
		px_json_null(&j, "donor_ns");
	else
		px_json_u64(&j, "donor_ns", e->donor_ns);
	px_json_u64(&j, "stretches", e->stretches);
	px_json_bool(&j, "blocked", e->flags & PXLW_F_BLOCKED);
	px_json_i64(&j, "ret", e->ret);
	if (l0->owner_pid) {
		pxbpf_json_task(&j, "owner", l0->owner_pid, l0->owner_tgid, l0->owner_comm,
				l0->owner_prio);
		px_json_bool(&j, "owner_on_cpu", e->flags & PXLW_F_OWNER_ON_CPU);
		px_json_u64(&j, "owner_cpu", e->owner_cpu);
	} else {
		px_json_null(&j, "owner");
	}
	/* What link 0's owner waits on, and so on. */
	px_json_array_begin(&j, "chain");
	for (i = 1; i < e->nlinks && i < PXLW_MAX_LINKS; i++) {
		const struct pxlw_link *l = &e->links[i];

		px_json_object_begin(&j, NULL);
		json_lock(&j, l);
		if (l->owner_pid)
			pxbpf_json_task(&j, "owner", l->owner_pid, l->owner_tgid,
					l->owner_comm, l->owner_prio);
		else
			px_json_null(&j, "owner");
		px_json_object_end(&j);
	}
	px_json_array_end(&j);
	px_json_bool(&j, "chain_more", e->flags & PXLW_F_CHAIN_MORE);
	px_json_stack(&j, "waiter_stack", e->waiter_stack, e->waiter_stack_sz);
	px_json_stack(&j, "owner_stack", e->owner_stack, e->owner_stack_sz);
	px_json_object_end(&j);
	if (px_json_finish(&j))
		px_warnx("JSON output failed");
}

static const char *lock_text(const struct pxlw_link *l, char *buf, size_t len)
{
	char sym[160];

	lock_name(l, sym, sizeof(sym));
	if (l->kind == PXLW_LOCK_SB_RENAME)
		snprintf(buf, len, "%s [%.*s] 0x%llx", sym, PXLW_WHERE_LEN, l->where,
			 (unsigned long long)l->lock);
	else if (*sym)
		snprintf(buf, len, "%s 0x%llx", sym, (unsigned long long)l->lock);
	else
		snprintf(buf, len, "0x%llx", (unsigned long long)l->lock);
	return buf;
}

static void print_text(const struct pxlw_event *e)
{
	const struct pxlw_link *l0 = &e->links[0];
	char buf[256];
	__u32 i;

	px_print_time(stdout);
	printf("%.*s %u [prio %d] waited %.3f ms for %s", PX_COMM_LEN, e->comm, e->pid,
	       e->prio, e->wait_ns / 1e6, lock_text(l0, buf, sizeof(buf)));
	if (!(e->flags & PXLW_F_NO_DONOR))
		printf(", donor %.3f ms (%u stretches)", e->donor_ns / 1e6, e->stretches);
	if (!(e->flags & PXLW_F_BLOCKED))
		printf(", spinning only");
	if (e->ret)
		printf(", failed: %s", strerror(-e->ret));
	printf("\n");
	if (l0->owner_pid)
		printf("    owner: %.*s %u [prio %d]%s cpu %u\n", PX_COMM_LEN, l0->owner_comm,
		       l0->owner_pid, l0->owner_prio,
		       e->flags & PXLW_F_OWNER_ON_CPU ? " running on" : " last on", e->owner_cpu);
	else
		printf("    owner: none (released as the wait began)\n");
	for (i = 1; i < e->nlinks && i < PXLW_MAX_LINKS; i++) {
		const struct pxlw_link *l = &e->links[i];

		printf("    %*s-> blocked on %s", (int)(i - 1) * 2, "", lock_text(l, buf, sizeof(buf)));
		if (l->owner_pid)
			printf(" owned by %.*s %u [prio %d]\n", PX_COMM_LEN, l->owner_comm,
			       l->owner_pid, l->owner_prio);
		else
			printf(" (no owner)\n");
	}
	if (e->flags & PXLW_F_CHAIN_MORE)
		printf("    %*s-> ... (chain longer than %d links)\n",
		       (PXLW_MAX_LINKS - 1) * 2, "", PXLW_MAX_LINKS);
	if (env.stacks) {
		px_print_stack(stdout, "waiter stack", e->waiter_stack, e->waiter_stack_sz);
		px_print_stack(stdout, e->flags & PXLW_F_OWNER_ON_CPU ?
			       "owner stack (it was running: stack of its last switch)" :
			       "owner stack", e->owner_stack, e->owner_stack_sz);
	}
}

static long nevents;

static bool max_events_done(void)
{
	return env.max_events && nevents >= env.max_events;
}

static int handle_event(void *ctx, void *data, size_t size)
{
	const struct pxlw_event *e = data;

	/* A poll hands over every record ready: the ones past N are dropped. */
	if (size < sizeof(*e) || (env.max_events && nevents >= env.max_events))
		return 0;
	if (env.json)
		print_json(e);
	else
		print_text(e);
	fflush(stdout);
	nevents++;
	return 0;
}

static void print_summary(struct pxlockwait_bpf *obj)
{
	FILE *f = env.json ? stderr : stdout;
	struct pxlw_stats s;

	if (pxbpf_percpu_sum(obj->maps.stats, 0, &s, sizeof(s), sizeof(__u64), false)) {
		px_warnx("failed to read the counters");
		return;
	}
	fprintf(f, "%llu mutex waits, %llu of at least %.3f ms reported",
		(unsigned long long)s.waits, (unsigned long long)s.events, env.min_ns / 1e6);
	if (s.lost_rb || s.lost_map)
		fprintf(f, "; lost: %llu (ring buffer full), %llu (over %d waits at once)",
			(unsigned long long)s.lost_rb, (unsigned long long)s.lost_map,
			PXLW_MAX_WAITS);
	fprintf(f, "\n");
}

int main(int argc, char **argv)
{
	static const struct argp argp = {
		.options = opts,
		.parser = parse_arg,
		.doc = doc,
	};
	struct pxlockwait_bpf *obj = NULL;
	struct ring_buffer *rb = NULL;
	char what[64];
	int err;

	if (px_argp_parse(&argp, argc, argv, NULL))
		return PX_EXIT_USAGE;
	if (pxbpf_preflight(false))
		return 1;
	env.have_proxy = pxbpf_have_proxy_events();
	pxbpf_set_verbose(env.verbose);
	err = px_ksyms_load(NULL);
	if (err) {
		px_warnx("cannot read /proc/kallsyms: %s", strerror(-err));
		return 1;
	}

	obj = pxlockwait_bpf__open();
	if (!obj) {
		px_warnx("failed to open BPF object");
		return 1;
	}
	obj->rodata->targ_tgid = env.pid;
	obj->rodata->targ_cgid = env.cgid;
	obj->rodata->targ_cglevel = env.cglevel;
	if (env.comm) {
		obj->rodata->targ_comm_set = true;
		strncpy((char *)obj->rodata->targ_comm, env.comm, PX_COMM_LEN - 1);
	}
	obj->rodata->targ_min_ns = env.min_ns;
	obj->rodata->targ_stacks = env.stacks;
	obj->rodata->targ_donor = env.have_proxy;
	if (!env.have_proxy) {
		bpf_program__set_autoload(obj->progs.proxy_switch_btf, false);
		px_warnx("kernel has no sched_proxy trace events (CONFIG_PROXY_EXEC=n): "
			 "running without them, no donor time");
	}
	err = pxbpf_load_attach(obj->skeleton);
	if (err)
		goto cleanup;
	rb = pxbpf_rb_new(obj->maps.events, handle_event);
	if (!rb) {
		err = -errno;
		goto cleanup;
	}
	snprintf(what, sizeof(what), "mutex waits of at least %.3f ms", env.min_ns / 1e6);
	err = pxbpf_rb_loop(rb, env.json, what, env.duration_ns, max_events_done);
	print_summary(obj);

cleanup:
	ring_buffer__free(rb);
	pxlockwait_bpf__destroy(obj);
	return err != 0;
}

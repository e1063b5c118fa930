/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pxbpf_user: user-space side shared by the libbpf tools (pxchain,
 * pxdonor, pxwakelat, proxytop), on top of libpxutil: preflight checks
 * with one clear error line, libbpf logging, load and attach, per-CPU
 * map sums, -c CGROUP resolution and cgroup id -> path, and donor/owner
 * pair snapshots that include the proxy stretches still open.
 */
#ifndef __PXBPF_USER_H
#define __PXBPF_USER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include "pxtypes.h"

#include <signal.h>
#include <stdio.h>
#include <sys/types.h>

struct argp;
struct bpf_object;
struct bpf_object_skeleton;
struct bpf_map;
struct ring_buffer;
struct px_json;

/*
 * Options every tool takes (pxbpf_init() parses them): -p PID, -c CGROUP,
 * -T, -j, -v, -h and the positional [interval] [count].
 */
struct pxbpf_env {
	pid_t pid;		/* -p: tgid, 0 = all */
	const char *cgroup;	/* -c: as given */
	__u64 cgid;		/* resolved -c, 0 = all */
	__u32 cglevel;
	bool timestamp;		/* -T */
	bool json;		/* -j */
	bool verbose;		/* -v */
	long interval;		/* seconds; PXBPF_FOREVER: until Ctrl-C */
	__u64 interval_ns;	/* the same in ns, 0 if not given */
	__u64 interval_min_ns;	/* set before pxbpf_init(): the range of */
	__u64 interval_max_ns;	/* [interval], 0: 1 s and INT_MAX s, whole s */
	long count;		/* outputs; PXBPF_FOREVER: unlimited */
	int nargs;
	bool proxy_optional;	/* set before pxbpf_init(): the tool runs
				 * without the sched_proxy events too */
	bool have_proxy;	/* set by pxbpf_init(): the kernel has them */
};

/* Copy the -p/-c filters into a skeleton's rodata knobs (bpf/pxbpf.h). */
#define PXBPF_SET_FILTERS(rodata, env) do {		\
	(rodata)->targ_tgid = (env)->pid;		\
	(rodata)->targ_cgid = (env)->cgid;		\
	(rodata)->targ_cglevel = (env)->cglevel;	\
} while (0)

#define PXBPF_FOREVER		99999999L
#define PXBPF_ENV_INIT		{ .interval = PXBPF_FOREVER, .count = PXBPF_FOREVER }

/*
 * Parse the command line: the common options into @env, the tool's own
 * with @argp (its doc heads --help; its parser runs as an argp child),
 * then run pxbpf_preflight(!@env->proxy_optional), note in
 * @env->have_proxy whether the kernel has the sched_proxy events, and set
 * up libbpf logging.  Returns 0, or the exit status after the reason was
 * printed.
 */
int pxbpf_init(const struct argp *argp, int argc, char **argv,
	       struct pxbpf_env *env);

/*
 * The libbpf-tools main loop: announce "Tracing @what..." (on stderr
 * with -j),
 * then every interval call @print(@ctx) until count runs out, @print fails
 * or SIGINT/SIGTERM arrives (the last interval is printed then too).
 */
int pxbpf_loop(struct pxbpf_env *env, const char *what,
	       int (*print)(void *ctx), void *ctx);

/* Set by SIGINT/SIGTERM once pxbpf_handle_signals() ran. */
extern volatile sig_atomic_t pxbpf_exiting;
void pxbpf_handle_signals(void);

/* From now on pxbpf_sleep() learns cgroup paths every second, so that
 * cgroups removed before the output still print as paths. */
void pxbpf_learn_cgroups(void);

/* Sleep @seconds unless a signal comes first. */
void pxbpf_sleep(long seconds);

/*
 * The tools that print one event at a time (pxlockwait, pxwakelat --min):
 * pxbpf_rb_new() opens the ring buffer map @events with @print called
 * per record (NULL, errno set, after saying why); pxbpf_rb_loop()
 * announces "Tracing @what..." (on stderr with @json), then polls @rb
 * until SIGINT/SIGTERM, @duration_ns has passed (0: no limit) or @done
 * (may be NULL) returns true after a poll: 0, or the ring buffer's
 * -errno after saying so.
 */
struct ring_buffer *pxbpf_rb_new(struct bpf_map *events,
				 int (*print)(void *ctx, void *data, size_t size));
int pxbpf_rb_loop(struct ring_buffer *rb, bool json, const char *what, __u64 duration_ns,
		  bool (*done)(void));

/* A task as a JSON object @key: {"pid", "tgid", "comm", "prio"}. */
void pxbpf_json_task(struct px_json *j, const char *key, __u32 pid, __u32 tgid,
		     const char *comm, int prio);

/*
 * Check, in this order, that the kernel has BTF, carries the sched_proxy
 * events (if @need_proxy) and that we may load tracing BPF (CAP_BPF and
 * CAP_PERFMON, or CAP_SYS_ADMIN: px_caps_allow_bpf()).  On failure print
 * one line saying which and what to do, and return a negative errno.
 * $PXBPF_VMLINUX_BTF names a BTF file to check instead of the kernel's
 * (tests use it to stand for kernels without BTF or the events).
 */
int pxbpf_preflight(bool need_proxy);

/* Does the kernel's BTF (or $PXBPF_VMLINUX_BTF) have the sched_proxy events? */
bool pxbpf_have_proxy_events(void);

/*
 * The enumerators of the kernel's enum @type (from its BTF, or
 * $PXBPF_VMLINUX_BTF), lower-cased without @prefix, by value: @names[v]
 * for 0 <= v < @max ("" for a value the enum does not have), as the
 * kernel's own __print_symbolic() prints them (PROXY_ABORT_OWNER_CPU with
 * prefix "PROXY_ABORT_": "owner_cpu").  Returns how many were found, or a
 * negative errno (-ENOENT: no such enum).
 */
#define PXBPF_ENUM_NAME_LEN	32
int pxbpf_enum_names(const char *type, const char *prefix,
		     char (*names)[PXBPF_ENUM_NAME_LEN], int max);

/* libbpf messages: debug ones only with @verbose (-v). */
void pxbpf_set_verbose(bool verbose);

/*
 * Load and attach a skeleton's programs, all tp_btf (PX_TP in
 * bpf/pxbpf.h); one error line on failure, also when the kernel cannot
 * attach tp_btf programs at all.  0 or a negative errno.
 */
int pxbpf_load_attach(struct bpf_object_skeleton *skel);

/*
 * Entry @key of the per-CPU map @map (PERCPU_ARRAY, or PERCPU_HASH with a
 * __u32 key), whose value is @size bytes of unsigned counters @word bytes
 * wide (4 or 8), summed over all possible CPUs into @sum; zeroed in the
 * map afterwards if @clear (read-and-clear per interval).  The BPF side
 * counts with plain increments in its own CPU's copy: no shared cache
 * line, no atomics.  0 or a negative errno.
 */
int pxbpf_percpu_sum(struct bpf_map *map, __u32 key, void *sum, size_t size,
		     size_t word, bool clear);

/*
 * -c CGROUP: @path is a cgroup v2 directory, absolute or relative to the
 * cgroup2 mount.  Fills its id and depth below the root (0 for the root).
 */
int pxbpf_cgroup_target(const char *path, __u64 *id, __u32 *level);

/* Remember the paths of all cgroups that exist now (removed ones keep
 * theirs in pxbpf_cgroup_path()). */
void pxbpf_cgroup_learn(void);

/* Path of cgroup @id relative to the cgroup2 mount ("/" for the root),
 * or "cgid:N" when it cannot be found.  Static buffer per call site. */
const char *pxbpf_cgroup_path(__u64 id);

/* One entry of the pairs map with open stretches included. */
struct pxbpf_pair {
	struct px_pair_key key;
	struct px_pair val;
};

struct pxbpf_pairs {
	struct pxbpf_pair *v;	/* sorted by key */
	size_t n;
	__u64 ts;		/* px_now_ns() when taken */
	__u64 open_ns;		/* stretches open on all CPUs, tracked or not */
};

/*
 * Snapshot the cumulative @pairs map (LRU_HASH px_pair_key -> px_pair) and add
 * to each pair the time of the proxy stretch open on any CPU in @stretch
 * (PERCPU_ARRAY of struct px_stretch).  @s is reset first.
 */
int pxbpf_pairs_snapshot(struct bpf_map *pairs, struct bpf_map *stretch,
			 struct pxbpf_pairs *s);
/* Entry for @key in @s or NULL. */
const struct pxbpf_pair *pxbpf_pairs_find(const struct pxbpf_pairs *s,
					  const struct px_pair_key *key);
/*
 * @out = @cur - @prev per pair (counters; max fields and identities taken
 * from @cur), dropping pairs with nothing new.  Negative differences (a
 * stretch closed while the snapshot was read) clamp to 0.
 */
int pxbpf_pairs_delta(const struct pxbpf_pairs *cur, const struct pxbpf_pairs *prev,
		      struct pxbpf_pairs *out);
void pxbpf_pairs_free(struct pxbpf_pairs *s);

/* Sum a PERCPU_ARRAY of struct px_counters over all CPUs (pxbpf_percpu_sum()). */
int pxbpf_counters_read(struct bpf_map *counters, struct px_counters *sum);

/*
 * Pairs the LRU map evicted since the tool started (their totals are
 * gone): pairs entered into the map (@c, read before @s was taken) minus
 * those in snapshot @s.
 */
__u64 pxbpf_pairs_evicted(const struct px_counters *c, const struct pxbpf_pairs *s);

/* --max-pairs N of the pair tools: resize the pairs map before load. */
#define PXBPF_MAX_PAIRS_MIN	2
#define PXBPF_MAX_PAIRS_MAX	(1 << 20)
int pxbpf_set_max_pairs(struct bpf_map *pairs, long n);

/*
 * What a plain hash map dropped, said in one line on @f when @lost > 0:
 * "(N WHAT lost, T since start: the map holds MAX KEYS; OPTION)", e.g.
 * "(3 picks lost, 7 since start: the map holds 4 tasks per interval;
 * raise --max-tasks)".  Nothing when @lost is 0.
 */
void pxbpf_print_lost(FILE *f, __u64 lost, __u64 total, const char *what,
		      long max, const char *keys, const char *option);

#endif /* __PXBPF_USER_H */

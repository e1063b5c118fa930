/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pxutil: the shared helper library of every proxyexec user-space tool
 * (the lab workloads in tools/ and the libbpf tools built from bpf/).
 * Link build/tools/libpxutil.a; include "pxutil.h" (-I tools/lib).
 *
 * Contents, one section each below:
 *   errors     px_fatal()/px_fatalx(), px_warn()/px_warnx()
 *   cli        px_argp_parse(): --help, --version, usage errors, exit 64
 *   parsing    strict numbers for argp: px_parse_*(), px_arg_*()
 *   samples    exact percentiles: struct px_samples, struct px_summary
 *   log2 hist  px_log2_slot(), px_print_log2_hist() (libbpf-tools layout)
 *   llhist     fine log-linear latency histogram, gnuplot text file
 *   json       tiny streaming writer, pretty or JSON-lines
 *   ksyms      kernel symbols from /proc/kallsyms, kernel stacks of BPF tools
 *   system     CPU lists, scheduling policies, cgroup v2, small files
 *   lab        opening the lab device, /dev/proxylab
 *   result     the workload latency result file (tools/README.md)
 *
 * Conventions: functions that can fail return 0 or a negative errno and
 * set errno too; nothing prints unless its name says so (print/fatal/
 * warn) or it takes a FILE *.  Times are nanoseconds in uint64_t unless
 * a name ends in _us.  Not thread-safe per object: use one px_samples or
 * px_llhist per thread and merge them.
 */
#ifndef PXUTIL_H
#define PXUTIL_H

#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <sys/types.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PX_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* ---------------------------------------------------------------- errors
 *
 * One line on stderr, "prog: message", then exit(status) for the fatal
 * ones.  The *x variants print the message only; the others append
 * ": strerror(errno)" as err(3) does.  px_warn*() clear errno afterwards
 * (trace-cmd's warning()), so a later px_warn() does not repeat it.
 * The program name is program_invocation_short_name.
 */
void px_fatal(int status, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 2, 3)));
void px_fatalx(int status, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 2, 3)));
void px_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void px_warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ------------------------------------------------------------------- cli
 *
 * The command-line conventions of every tool (tools/README.md,
 * "Conventions"), as GNU and libbpf-tools have them:
 *   -h, --help     the help on stdout, exit 0;
 *   -V, --version  "prog (proxyexec) X.Y" (tools/VERSION), exit 0;
 *   a usage error  "prog: message" and "Try 'prog --help' for more
 *                  information." on stderr, exit PX_EXIT_USAGE (64,
 *                  EX_USAGE, argp's default);
 *   a runtime error  "prog: message" (px_fatal*()), exit 1.
 * px_argp_parse() is argp_parse() with those: @argp's options, doc and
 * parser (with @input as state->input) under the standard ones, and
 * argp_error()/argp_usage() and getopt's own complaints in the two-line
 * shape.  px_usage_error() is a usage error found after parsing.
 */
#define PX_EXIT_USAGE	64

struct argp;
extern const char px_version[];
int px_argp_parse(const struct argp *argp, int argc, char **argv, void *input);
/* The same with argp_parse()'s @flags (ARGP_IN_ORDER for a command runner). */
int px_argp_parse_flags(const struct argp *argp, int argc, char **argv,
			unsigned int flags, void *input);
void px_usage_error(const char *fmt, ...)
	__attribute__((noreturn, format(printf, 1, 2)));
void px_print_version(FILE *f);

/* --------------------------------------------------------------- parsing
 *
 * Strict: the whole string must be a number in base 10 (or hex after an
 * explicit 0x; a leading 0 is never octal: "010" is 10), no trailing
 * junk, no empty string, inside [min, max].  px_parse_u64()
 * refuses a leading '-' (strtoull would wrap it).  Return 0, -EINVAL
 * (not a number) or -ERANGE (outside the range).
 *
 * px_parse_duration_ns(): a number with an optional unit suffix ns, us,
 * ms or s; without a suffix @default_unit_ns multiplies it (1000 for a
 * value in microseconds).
 *
 * The px_arg_*() versions are for argp parsers: on error they print
 * "prog: invalid WHAT: ARG" (plus the allowed range when that was the problem)
 * and call argp_usage(), which exits with argp_err_exit_status (64 under
 * px_argp_parse()).
 * Example, in a parse_opt() case:  env.pid = px_arg_long(state, "PID", arg, 1, INT_MAX);
 */
int px_parse_long(const char *s, long min, long max, long *out);
int px_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
int px_parse_duration_ns(const char *s, uint64_t default_unit_ns,
			 uint64_t min, uint64_t max, uint64_t *out);

struct argp_state;
long px_arg_long(struct argp_state *state, const char *what, const char *arg,
		 long min, long max);
uint64_t px_arg_u64(struct argp_state *state, const char *what, const char *arg,
		    uint64_t min, uint64_t max);
uint64_t px_arg_duration_ns(struct argp_state *state, const char *what,
			    const char *arg, uint64_t default_unit_ns,
			    uint64_t min, uint64_t max);

/* --------------------------------------------------------------- samples
 *
 * Keeps every value; percentiles are exact, nearest-rank: pXX is the
 * smallest sample such that at least XX% of the samples are <= it, i.e.
 * the sorted sample at index ceil(XX/100 * n) - 1 (index 0 when that is
 * negative).  n = 0 gives an all-zero summary with count 0; n = 1 gives
 * that sample for every percentile.
 */
struct px_samples {
	uint64_t	*v;
	size_t		n, cap;
	bool		sorted;
};

struct px_summary {
	uint64_t	count;
	uint64_t	min, p50, p90, p99, p999, max;
	uint64_t	sum;		/* saturates at UINT64_MAX */
	double		mean;		/* 0 when count is 0 */
};

#define PX_SAMPLES_INIT		{ NULL, 0, 0, true }

/* The nearest rank, 1..n, of percentile @p among @n values (0 if n = 0). */
uint64_t px_nearest_rank(uint64_t n, double p);
int px_samples_add(struct px_samples *s, uint64_t v);	/* 0 or -ENOMEM */
int px_samples_merge(struct px_samples *dst, const struct px_samples *src);
/* @p in [0, 100]; sorts @s on first use after an add. */
uint64_t px_samples_percentile(struct px_samples *s, double p);
void px_samples_summary(struct px_samples *s, struct px_summary *sum);
void px_samples_free(struct px_samples *s);

/* Header and one row of the text table: min p50 p90 p99 p99.9 max count,
 * values divided by @div (1000 for microseconds), @unit names them. */
void px_print_summary_header(FILE *f, const char *label_title, const char *unit);
void px_print_summary_row(FILE *f, const char *label, const struct px_summary *s,
			  uint64_t div);

/* ------------------------------------------------------------- log2 hist
 *
 * Slot k counts values v with 2^k <= v < 2^(k+1); slot 0 also counts 0
 * (the libbpf-tools convention: slot = log2(v), v = 0 -> 0).  BPF
 * programs compute their slot themselves and clamp it to MAX_SLOTS - 1.
 * px_print_log2_hist() prints the same table as libbpf-tools'
 * print_log2_hist() (and takes the same arguments), trimmed to the last
 * non-empty slot; px_print_log2_hist64() does it for 64-bit counts.
 */
unsigned int px_log2_slot(uint64_t v);
void px_print_log2_hist(FILE *f, const unsigned int *vals, int vals_size,
			const char *val_type);
void px_print_log2_hist64(FILE *f, const uint64_t *vals, int vals_size,
			  const char *val_type);

/* ----------------------------------------------------------------- llhist
 *
 * Log-linear histogram of uint64_t values (ns), HDR-style: values below
 * 2^PX_LLHIST_SUB_BITS get one bucket each; above, every power of two
 * [2^e, 2^(e+1)) is split into 2^PX_LLHIST_SUB_BITS equal buckets, so a
 * bucket is at most 1/32 (3.1%) of its lower bound wide.  Fixed size,
 * no allocation: fine for a per-thread instance or a BPF map value copy.
 *
 * px_llhist_write() writes a gnuplot-ready text file:
 *   # pxutil llhist v1
 *   # title: ...            (optional)
 *   # unit: ns
 *   # count: N  min: ..  max: ..  (exact, as added)
 *   # columns: lower_ns upper_ns count cum_fraction
 *   <one line per bucket from the first to the last non-empty one>
 * where a bucket holds lower <= v < upper.  Plot e.g. with
 *   plot 'f' using 1:3 with steps   or   using 2:4 for the CDF.
 */
#define PX_LLHIST_SUB_BITS	5
#define PX_LLHIST_SUB		(1u << PX_LLHIST_SUB_BITS)
#define PX_LLHIST_BUCKETS	((64 - PX_LLHIST_SUB_BITS + 1) * PX_LLHIST_SUB)

struct px_llhist {
	uint64_t	count, min, max;
	uint64_t	bucket[PX_LLHIST_BUCKETS];
};

void px_llhist_init(struct px_llhist *h);
unsigned int px_llhist_index(uint64_t v);
uint64_t px_llhist_lower(unsigned int idx);
/* Exclusive upper bound; UINT64_MAX for the last bucket. */
uint64_t px_llhist_upper(unsigned int idx);
void px_llhist_add(struct px_llhist *h, uint64_t v);
void px_llhist_merge(struct px_llhist *dst, const struct px_llhist *src);
/* Lower bound of the bucket holding the nearest-rank pXX (approximate). */
uint64_t px_llhist_percentile(const struct px_llhist *h, double p);
int px_llhist_write(FILE *f, const struct px_llhist *h, const char *title);
/* Same, to a path; "-" is stdout.  0 or -errno. */
int px_llhist_write_file(const char *path, const struct px_llhist *h,
			 const char *title);

/* ------------------------------------------------------------------ json
 *
 * Streaming writer.  @key is the member name inside an object and must be
 * NULL inside an array or at top level.  Strings are escaped (quote,
 * backslash, control characters as \n \t ... or \u00XX); bytes that are
 * not valid UTF-8 become U+FFFD, so comm names never break the output.
 * NaN and infinities are written as null.
 *
 * Flags: PX_JSON_PRETTY indents by two spaces; PX_JSON_LINES writes
 * compact JSON and ends every top-level value with '\n' (JSON lines, for
 * `-j` interval output).  Misuse (closing the wrong container, a key
 * where none belongs, nesting over PX_JSON_MAX_DEPTH) sets j->error and
 * is ignored; px_json_finish() returns -EINVAL then, or -EIO if the
 * stream had an error.
 *
 *	struct px_json j;
 *	px_json_init(&j, stdout, PX_JSON_LINES);
 *	px_json_object_begin(&j, NULL);
 *	px_json_u64(&j, "count", n);
 *	px_json_array_begin(&j, "slots");
 *	px_json_u64(&j, NULL, 3);
 *	px_json_array_end(&j);
 *	px_json_object_end(&j);	-> {"count":7,"slots":[3]}\n
 */
#define PX_JSON_PRETTY		0x1
#define PX_JSON_LINES		0x2
#define PX_JSON_MAX_DEPTH	32

struct px_json {
	FILE		*f;
	unsigned int	flags;
	int		depth;
	bool		error;
	bool		first[PX_JSON_MAX_DEPTH + 1];	/* no member yet */
	bool		is_obj[PX_JSON_MAX_DEPTH + 1];
};

void px_json_init(struct px_json *j, FILE *f, unsigned int flags);
void px_json_object_begin(struct px_json *j, const char *key);
void px_json_object_end(struct px_json *j);
void px_json_array_begin(struct px_json *j, const char *key);
void px_json_array_end(struct px_json *j);
void px_json_string(struct px_json *j, const char *key, const char *val);
/* The first @len bytes of @val (may contain NUL, which is escaped). */
void px_json_string_len(struct px_json *j, const char *key, const char *val,
			size_t len);
void px_json_i64(struct px_json *j, const char *key, int64_t val);
void px_json_u64(struct px_json *j, const char *key, uint64_t val);
void px_json_double(struct px_json *j, const char *key, double val);
void px_json_bool(struct px_json *j, const char *key, bool val);
void px_json_null(struct px_json *j, const char *key);
/* Convenience: {"count","min","p50","p90","p99","p99_9","max","sum","mean"}. */
void px_json_summary(struct px_json *j, const char *key, const struct px_summary *s);
/* Convenience: [{"lo":..,"hi":..,"count":..},...] for non-empty log2 slots. */
void px_json_log2_hist(struct px_json *j, const char *key,
		       const unsigned int *vals, int vals_size);
/* 0 when all went well (all containers closed), else -EINVAL or -EIO. */
int px_json_finish(struct px_json *j);

/* ---------------------------------------------------------------- system
 *
 * CPU lists: "0-3,6" (also the kernel's "0-1\n"); px_parse_cpulist()
 * fills @set and returns 0, -EINVAL or -ERANGE (CPU >= CPU_SETSIZE).
 * px_cpulist_str() formats one back into @buf.
 */
int px_parse_cpulist(const char *s, cpu_set_t *set);
char *px_cpulist_str(const cpu_set_t *set, char *buf, size_t len);
int px_online_cpus(cpu_set_t *set);		/* /sys/devices/system/cpu/online */
int px_pin_self(int cpu);			/* calling thread to one CPU */
int px_pin_self_set(const cpu_set_t *set);

/* Calling thread's policy; @prio is the RT priority or the nice value. */
int px_set_fifo(int prio);
int px_set_other(int nice);
/* SCHED_DEADLINE via sched_setattr(2); times in ns.  Fails with EPERM when
 * the thread's affinity is narrower than its root domain, EBUSY when
 * admission control refuses the bandwidth. */
int px_set_deadline(uint64_t runtime, uint64_t deadline, uint64_t period);
const char *px_policy_name(int policy);
/* The uapi struct sched_attr (linux/sched/types.h clashes with glibc's
 * sched.h) and sched_getattr(2)/sched_setattr(2) of task @pid (0: the
 * calling thread); px_sched_setattr() fills in .size. */
struct px_sched_attr {
	uint32_t	size;
	uint32_t	sched_policy;
	uint64_t	sched_flags;
	int32_t		sched_nice;
	uint32_t	sched_priority;
	uint64_t	sched_runtime;
	uint64_t	sched_deadline;
	uint64_t	sched_period;
};
int px_sched_getattr(int pid, struct px_sched_attr *attr);
int px_sched_setattr(int pid, const struct px_sched_attr *attr);

/* Small files (sysfs, procfs, cgroupfs): read the first line without its
 * newline / write a string.  0 or -errno. */
int px_read_line(const char *path, char *buf, size_t len);
int px_write_str(const char *path, const char *val);
int px_read_u64(const char *path, uint64_t *val);

/* cgroup v2.  px_cgroup_root() returns the cgroup2 mount point
 * (normally /sys/fs/cgroup) or NULL with errno = ENOENT.
 * px_cgroup_create() makes root/@name after enabling "+cpu" in the root's
 * cgroup.subtree_control (-ENOTSUP: no cpu controller); an existing group
 * is reused.  px_cgroup_set() writes root/@name/@file.
 * px_cgroup_attach_pid() moves a whole process (cgroup.procs).
 * px_cgroup_destroy() moves its processes back to the root and rmdirs it.
 * px_cgroup_id() is the cgroup's inode number, which BPF's
 * bpf_get_current_cgroup_id() returns. */
const char *px_cgroup_root(void);
int px_cgroup_create(const char *name);
int px_cgroup_set(const char *name, const char *file, const char *val);
int px_cgroup_attach_pid(const char *name, int pid);
int px_cgroup_destroy(const char *name);
int px_cgroup_id(const char *path, uint64_t *id);
/* Create @name with cpu.weight @weight and cpu.max @cpu_max (NULL: "max"),
 * or exit through px_fatal*() saying which step failed and why; @who
 * prefixes the message. */
void px_cgroup_setup_or_die(const char *who, const char *name, int weight,
			    const char *cpu_max);

/* Capabilities.  px_read_cap_eff() reads the CapEff mask of a
 * /proc/PID/status file (NULL: /proc/self/status).  px_caps_allow_bpf():
 * may a task with effective capabilities @caps load and attach tracing
 * BPF programs: CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN (which the
 * kernel accepts for both), whatever its uid. */
int px_read_cap_eff(const char *status_path, uint64_t *caps);
bool px_caps_allow_bpf(uint64_t caps);

/* State letter of task @pid from /proc/PID/stat (R, S, D, ...), '?' if
 * unreadable.  A task blocked in a killable mutex wait shows D. */
char px_task_state(int pid);
/* The CPU task @pid last ran on (/proc/PID/stat's processor), -1 if
 * unreadable. */
int px_task_cpu(int pid);
/* Until task @pid is in @state (px_task_state()), polled every millisecond
 * for up to @ms; the last letter read goes to *@last unless it is NULL. */
bool px_wait_task_state(int pid, char state, long ms, char *last);

/* A field of a /proc/PID/sched file (NULL: /proc/self/sched) in ns: the
 * kernel prints times as milliseconds with six decimals
 * (se.sum_exec_runtime), counters as integers (proxy_received_ns).
 * 0, -ENOENT if there is no such field (or file), -EINVAL if its value is
 * not a number, or -errno. */
int px_proc_sched_ns(const char *sched_path, const char *field, uint64_t *ns);

/* Fork; the child runs @fn, which must _exit().  px_fatal(2) if fork fails. */
pid_t px_fork_run(void (*fn)(void));
/* Wait up to @ms for child @pid, SIGKILL (and reap) it after that.
 * Its exit status, or -1 if it was killed or died by a signal. */
int px_reap(pid_t pid, long ms);

/* Test lines (tests/guest protocol): "ok PREFIX/NAME", or "not ok
 * PREFIX/NAME - why" with the printf-style reason.  Returns @cond. */
bool px_check(const char *prefix, const char *name, bool cond, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* CLOCK_MONOTONIC in ns; px_sleep_ns() sleeps on it (signals may end it early). */
uint64_t px_now_ns(void);
void px_sleep_ns(uint64_t ns);
/* "HH:MM:SS " local time into @f, the libbpf-tools -T timestamp. */
void px_print_time(FILE *f);

/* ----------------------------------------------------------------- ksyms
 *
 * Kernel addresses by name, from /proc/kallsyms (data symbols too with
 * CONFIG_KALLSYMS_ALL), for the BPF tools' mutex addresses and stacks.
 * px_ksyms_load() reads @path (NULL: /proc/kallsyms) into one table,
 * replacing what an earlier call read; 0 or -errno.
 *
 * px_ksym_name(): "sym" or "sym+0xoff" for @addr into @buf, "" when no
 * symbol covers it: inside the kernel image (_text.._end), or a module
 * symbol followed by another within 1 MB, so a heap object gets none.
 * Among symbols at one address the real one wins over compiler-made
 * ones ("lab" over "__key.2").
 *
 * Stacks as bpf_get_stack()/bpf_get_stackid() give them: @ips[0..@sz
 * bytes) (__u64, unsigned long long, in the tools' map values), @sz < 0
 * an -errno.  px_stack_first() is the first frame below
 * the tracing machinery (the BPF program, bpf_trace_run*(), trace_*())
 * when that is on top, else 0.  px_print_stack() prints "    TITLE:"
 * and one frame a line ("[unknown]" without a symbol; a failed stack as
 * "unavailable (why)", none when @sz is 0); px_json_stack() writes an
 * array of "sym+0xoff" (or "0x..." hex) strings, null when @sz <= 0.
 */
int px_ksyms_load(const char *path);
void px_ksyms_free(void);
const char *px_ksym_name(uint64_t addr, char *buf, size_t len);
int px_stack_first(const unsigned long long *ips, int n);
void px_print_stack(FILE *f, const char *title, const unsigned long long *ips,
		    int32_t sz);
void px_json_stack(struct px_json *j, const char *key, const unsigned long long *ips,
		   int32_t sz);

/* ---------------------------------------------------------------- result
 *
 * The one latency result of the lab workloads, read by the bench and the
 * plots; the format ("proxyexec-latency" version 1) is documented in
 * tools/README.md.  Keeps every sample (exact percentiles) and a llhist.
 *
 *	px_result_init(&r, "inversion", "lock_wait", argc, argv);  (before argp)
 *	px_result_add(&r, ns);  ...
 *	px_result_print(&r, stdout, "waiter");
 *	j = px_result_json_begin(&r, path, scenario);   -> open document
 *	... px_json_*(j, ...) into the "params" object, then:
 *	px_result_json_checks(&r, j);                    -> "checks" object
 *	... px_json_*(j, ...) consistency members, then:
 *	px_result_json_end(&r, j, ok);                   -> latency, hist, samples
 */
#define PX_RESULT_FORMAT	"proxyexec-latency"
#define PX_RESULT_VERSION	1

struct px_result {
	const char		*tool;
	const char		*metric;	/* "lock_wait", "rename" */
	char			cmdline[1024];
	uint64_t		start_unix;	/* seconds */
	struct px_samples	samples;	/* sorted by summaries */
	struct px_samples	order;		/* as taken */
	struct px_llhist	*hist;
	struct px_json		json;
	FILE			*json_file;
};

int px_result_init(struct px_result *r, const char *tool, const char *metric,
		   int argc, char **argv);
int px_result_add(struct px_result *r, uint64_t ns);
void px_result_summary(struct px_result *r, struct px_summary *s);
/* Log2 histogram in usecs, then the summary table in usecs. */
void px_result_print(struct px_result *r, FILE *f, const char *label, bool hist);
/* Opens @path ("-" = stdout), writes the header and opens "params". */
struct px_json *px_result_json_begin(struct px_result *r, const char *path,
				     const char *scenario);
/* Closes "params", opens "checks". */
void px_result_json_checks(struct px_result *r, struct px_json *j);
/* Closes "checks", writes "ok", "latency", "hist", "samples", closes the file. */
int px_result_json_end(struct px_result *r, struct px_json *j, bool ok);
int px_result_write_hist(struct px_result *r, const char *path, const char *title);
void px_result_free(struct px_result *r);

/* ------------------------------------------------------------------- lab
 *
 * The lab device (CONFIG_PROXYLAB): kernel mutexes user space can lock
 * (its ioctls are in <linux/proxylab.h>, from the kernel tree).
 * px_lab_open() returns the fd or -1 with errno set (for children that
 * report failure through their exit status); px_lab_open_or_exit() says
 * why it cannot ("no /dev/proxylab: kernel without CONFIG_PROXYLAB",
 * "... (run as root)") and exits with @status.
 */
#define PX_LAB_DEV	"/dev/proxylab"
int px_lab_open(void);
int px_lab_open_or_exit(int status);

#endif /* PXUTIL_H */

// SPDX-License-Identifier: GPL-2.0
/*
 * renamedemo - a priority inversion nobody here invented: the rename lock.
 *
 * A rename() across directories takes the filesystem's per-superblock
 * s_vfs_rename_mutex (lock_rename() in fs/namei.c), a kernel mutex.  A
 * background process with little CPU (nice 19 and/or a cgroup v2 group of
 * tiny cpu.weight, optionally under cpu.max) renames its file back and
 * forth between two directories in a loop, while spinners load the CPU.
 * The foreground renames its own file between two other directories of
 * the same tmpfs and times every rename(): when the background is
 * preempted inside the rename, the foreground waits on the mutex until
 * the background gets CPU again -- unless proxy execution lends it the
 * foreground's.  Each pair of tasks uses its own directories, so the only
 * lock they share is the rename mutex.
 */
#include <argp.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/magic.h>

#include "pxutil.h"

#define NSEC_PER_SEC	1000000000ULL
#define MAX_HOGS	64

static struct env {
	uint64_t	iterations;
	uint64_t	duration_ns;
	int		hogs;
	int		cpu;
	int		bg_nice, fg_nice;
	const char	*cgroup;	/* NULL: nice only */
	int		weight;
	const char	*cpu_max;
	const char	*dir;
	bool		quiet;
	const char	*json_path, *hist_path;
	uint64_t	grace_s;	/* the background's first rename, at most */
} env = {
	.iterations	= 2000,
	.hogs		= 2,
	.cpu		= 0,
	.bg_nice	= 19,
	.fg_nice	= -10,
	.cgroup		= "pxrename-bg",
	.weight		= 20,
	.grace_s	= 30,
};

struct shared {
	volatile int	stop;
	uint64_t	bg_renames;
	int		bg_errno;
	int		ready;
};

static struct shared *sh;
static FILE *out;		/* human output: stderr when the JSON goes to stdout */
static volatile sig_atomic_t exiting;

static const char doc[] =
"Time cross-directory rename() while a starved background task renames too.\n"
"\n"
"USAGE: renamedemo [OPTIONS]\n"
"\n"
"Both tasks rename files between two directories of one tmpfs, so both take\n"
"the superblock's s_vfs_rename_mutex.  The background runs at nice 19 in a\n"
"cgroup of cpu.weight 20 (--no-cgroup: nice only), the foreground at nice -10,\n"
"the spinners loading their CPU at nice 0.\n"
"Prints the foreground's rename latency; -o/--hist as inversion(1).  The\n"
"clearest contrast comes with --throttle: the background is then often\n"
"throttled while it holds the rename mutex.\n"
"\n"
"EXAMPLES:\n"
"    renamedemo                         # 2000 renames on CPU 0, 2 spinners\n"
"    renamedemo -d 5s --throttle --weight 100 -o r.json\n"
"    renamedemo --no-cgroup --dir /dev/shm\n"
"\n"
"Options:";

enum option_values {
	OPT_CGROUP = 1000,
	OPT_CPU_MAX,
	OPT_DIR,
	OPT_FG_NICE,
	OPT_GRACE,
	OPT_HIST,
	OPT_NICE,
	OPT_NO_CGROUP,
	OPT_THROTTLE,
	OPT_WEIGHT,
};

static const struct argp_option opts[] = {
	{ "cgroup", OPT_CGROUP, "NAME", 0, "background's cgroup (default pxrename-bg)", 0 },
	{ "cpu", 'c', "CPU", 0, "CPU of all tasks (default 0)", 0 },
	{ "cpu-max", OPT_CPU_MAX, "\"QUOTA PERIOD\"", 0, "cpu.max of the background's group", 0 },
	{ "dir", OPT_DIR, "DIR", 0, "work directory on a tmpfs (default: a new one in /tmp)", 0 },
	{ "fg-nice", OPT_FG_NICE, "NICE", 0, "foreground's nice value (default -10)", 0 },
	{ "duration", 'd', "TIME", 0, "run this long instead of -n (default unit s)", 0 },
	{ "grace", OPT_GRACE, "SEC", 0, "how long the background may take to rename once before timing starts (default 30; more on slow, overcommitted guests)", 0 },
	{ "hist", OPT_HIST, "FILE", 0, "write the gnuplot latency histogram to FILE", 0 },
	{ "hogs", 'H', "N", 0, "spinners at normal weight (default 2)", 0 },
	{ "iterations", 'n', "N", 0, "foreground renames to time (default 2000)", 0 },
	{ "nice", OPT_NICE, "NICE", 0, "background's nice value (default 19)", 0 },
	{ "no-cgroup", OPT_NO_CGROUP, NULL, 0, "leave the background in this cgroup", 0 },
	{ "output", 'o', "FILE", 0, "write the JSON result to FILE (- for stdout)", 0 },
	{ "quiet", 'q', NULL, 0, "print only the summary table and the consistency line", 0 },
	{ "throttle", OPT_THROTTLE, NULL, 0, "cpu.max \"1000 100000\" for the background's group", 0 },
	{ "weight", OPT_WEIGHT, "W", 0, "cpu.weight of the background's group (default 20)", 0 },
	{},
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'c':
		env.cpu = px_arg_long(state, "CPU", arg, 0, CPU_SETSIZE - 1);
		break;
	case 'd':
		env.duration_ns = px_arg_duration_ns(state, "duration", arg, NSEC_PER_SEC,
						     1, 3600 * NSEC_PER_SEC);
		break;
	case 'H':
		env.hogs = px_arg_long(state, "number of hogs", arg, 0, MAX_HOGS);
		break;
	case 'n':
		env.iterations = px_arg_u64(state, "iterations", arg, 1, 100000000);
		break;
	case 'o':
		env.json_path = arg;
		break;
	case 'q':
		env.quiet = true;
		break;
	case OPT_CGROUP:
		env.cgroup = arg;
		break;
	case OPT_CPU_MAX:
		env.cpu_max = arg;
		break;
	case OPT_DIR:
		env.dir = arg;
		break;
	case OPT_HIST:
		env.hist_path = arg;
		break;
	case OPT_FG_NICE:
		env.fg_nice = px_arg_long(state, "nice value", arg, -20, 19);
		break;
	case OPT_GRACE:
		env.grace_s = px_arg_u64(state, "grace in s", arg, 1, 3600);
		break;
	case OPT_NICE:
		env.bg_nice = px_arg_long(state, "nice value", arg, -20, 19);
		break;
	case OPT_NO_CGROUP:
		env.cgroup = NULL;
		break;
	case OPT_THROTTLE:
		if (!env.cpu_max)
			env.cpu_max = "1000 100000";
		break;
	case OPT_WEIGHT:
		env.weight = px_arg_long(state, "cpu.weight", arg, 1, 10000);
		break;
	case ARGP_KEY_ARG:
		fprintf(stderr, "unexpected argument: %s\n", arg);
		argp_usage(state);
		break;
	case ARGP_KEY_END:
		if (env.cpu_max && !env.cgroup) {
			fprintf(stderr, "--throttle/--cpu-max need a cgroup (drop --no-cgroup)\n");
			argp_usage(state);
		}
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static char workdir[PATH_MAX];
static bool workdir_made, cgroup_made;

static void path_of(char *buf, size_t len, const char *who, char side)
{
	snprintf(buf, len, "%s/%s-%c", workdir, who, side);
}

/* Directories fg-a, fg-b, bg-a, bg-b with one file in each *-a. */
static void setup_dirs(void)
{
	static const char *const who[] = { "fg", "bg" };
	char p[PATH_MAX + 16], f[PATH_MAX + 32];
	struct statfs sfs;
	FILE *file;
	size_t i;

	if (env.dir) {
		snprintf(workdir, sizeof(workdir), "%s/renamedemo.%d", env.dir, getpid());
		if (mkdir(workdir, 0700))
			px_fatal(1, "cannot create %s", workdir);
	} else {
		snprintf(workdir, sizeof(workdir), "/tmp/renamedemo.XXXXXX");
		if (!mkdtemp(workdir))
			px_fatal(1, "cannot create a directory in /tmp");
	}
	workdir_made = true;
	if (!statfs(workdir, &sfs) && sfs.f_type != TMPFS_MAGIC)
		px_warnx("%s is not on tmpfs: the rename cost includes the filesystem's own", workdir);
	for (i = 0; i < PX_ARRAY_SIZE(who); i++) {
		path_of(p, sizeof(p), who[i], 'a');
		if (mkdir(p, 0700))
			px_fatal(1, "mkdir %s", p);
		snprintf(f, sizeof(f), "%s/file", p);
		file = fopen(f, "w");
		if (!file)
			px_fatal(1, "create %s", f);
		fclose(file);
		path_of(p, sizeof(p), who[i], 'b');
		if (mkdir(p, 0700))
			px_fatal(1, "mkdir %s", p);
	}
}

static void remove_dirs(void)
{
	static const char *const names[] = {
		"fg-a/file", "fg-b/file", "bg-a/file", "bg-b/file",
		"fg-a", "fg-b", "bg-a", "bg-b", "",
	};
	char p[PATH_MAX + 16];
	size_t i;

	if (!workdir_made)
		return;
	for (i = 0; i < PX_ARRAY_SIZE(names); i++) {
		snprintf(p, sizeof(p), "%s/%s", workdir, names[i]);
		if (remove(p) && errno != ENOENT)
			px_warn("cannot remove %s", p);
	}
	workdir_made = false;
}

/* One cross-directory rename of @who's file; flips *where. */
static int rename_once(const char *who, int *where)
{
	char from[PATH_MAX + 32], to[PATH_MAX + 32], d[PATH_MAX + 16];

	path_of(d, sizeof(d), who, *where ? 'b' : 'a');
	snprintf(from, sizeof(from), "%s/file", d);
	path_of(d, sizeof(d), who, *where ? 'a' : 'b');
	snprintf(to, sizeof(to), "%s/file", d);
	if (rename(from, to))
		return -errno;
	*where = !*where;
	return 0;
}

static void __attribute__((noreturn)) run_background(void)
{
	int where = 0, ret;

	signal(SIGINT, SIG_IGN);
	if (px_pin_self(env.cpu) || px_set_other(env.bg_nice)) {
		sh->bg_errno = errno;
		_exit(1);
	}
	if (env.cgroup && px_cgroup_attach_pid(env.cgroup, getpid())) {
		sh->bg_errno = errno;
		_exit(1);
	}
	while (!sh->stop) {
		ret = rename_once("bg", &where);
		if (ret) {
			sh->bg_errno = -ret;
			_exit(1);
		}
		/*
		 * Ready only once a rename went through: a background that
		 * was preempted between saying "ready" and its first rename
		 * could sit behind the spinners for a whole short run.
		 */
		if (!__atomic_fetch_add(&sh->bg_renames, 1, __ATOMIC_SEQ_CST))
			__atomic_store_n(&sh->ready, 1, __ATOMIC_SEQ_CST);
	}
	_exit(0);
}

static void __attribute__((noreturn)) run_hog(void)
{
	signal(SIGINT, SIG_IGN);
	if (px_pin_self(env.cpu) || px_set_other(0))
		_exit(1);
	while (!sh->stop)
		;
	_exit(0);
}

static void on_signal(int sig)
{
	(void)sig;
	exiting = 1;
}

static void cgroup_setup(void)
{
	if (!env.cgroup)
		return;
	px_cgroup_setup_or_die("renamedemo (or use --no-cgroup)", env.cgroup,
			       env.weight, env.cpu_max);
	cgroup_made = true;
}

static void cleanup(void)
{
	if (cgroup_made && px_cgroup_destroy(env.cgroup))
		px_warn("cannot remove cgroup %s", env.cgroup);
	cgroup_made = false;
	remove_dirs();
}

int main(int argc, char **argv)
{
	static const struct argp argp = { opts, parse_arg, NULL, doc, NULL, NULL, NULL };
	pid_t pids[1 + MAX_HOGS];
	int npids = 0, i, where = 0, status, ret, err = 1;
	bool children_ok = true, ok;
	uint64_t n = 0, t0, t1, end, want;
	struct sigaction sa = { 0 };
	struct px_result res;
	struct px_json *j;

	if (px_result_init(&res, "renamedemo", "rename", argc, argv))
		px_fatal(1, "out of memory");
	if (px_argp_parse(&argp, argc, argv, NULL))
		return PX_EXIT_USAGE;
	out = env.json_path && !strcmp(env.json_path, "-") ? stderr : stdout;
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		px_fatal(1, "mmap");
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (px_pin_self(env.cpu))
		px_fatal(1, "cannot pin to CPU %d", env.cpu);
	if (px_set_other(env.fg_nice))
		px_fatal(1, "cannot set SCHED_OTHER nice %d%s", env.fg_nice,
			 env.fg_nice < 0 ? " (needs root or CAP_SYS_NICE; or --fg-nice 0)" : "");
	cgroup_setup();
	setup_dirs();

	fflush(NULL);
	pids[npids] = fork();
	if (!pids[npids])
		run_background();
	npids++;
	/*
	 * The background must have renamed once (it is in its loop) before
	 * timing starts, and before the spinners start: at nice 19 behind
	 * them on an overloaded CPU it could take longer than we wait.
	 */
	end = px_now_ns() + env.grace_s * NSEC_PER_SEC;
	while (!__atomic_load_n(&sh->ready, __ATOMIC_SEQ_CST) && px_now_ns() < end &&
	       waitpid(pids[0], &status, WNOHANG) == 0)
		usleep(1000);
	if (!__atomic_load_n(&sh->ready, __ATOMIC_SEQ_CST))
		px_warnx("the background renamer did not rename within %" PRIu64 " s (--grace)",
			 env.grace_s);
	for (i = 0; i < env.hogs; i++) {
		pids[npids] = fork();
		if (!pids[npids])
			run_hog();
		npids++;
	}

	if (!env.quiet)
		fprintf(out, "renamedemo: %s%" PRIu64 " %s on CPU %d, foreground nice %d, background nice %d%s%s%s%s, %d spinner(s), in %s\n",
		       env.duration_ns ? "for " : "",
		       env.duration_ns ? env.duration_ns / 1000000 : env.iterations,
		       env.duration_ns ? "ms" : "renames", env.cpu, env.fg_nice, env.bg_nice,
		       env.cgroup ? " in cgroup " : "", env.cgroup ? env.cgroup : "",
		       env.cpu_max ? " cpu.max " : "", env.cpu_max ? env.cpu_max : "",
		       env.hogs, workdir);
	end = px_now_ns() + env.duration_ns;
	while (!exiting && sh->ready && !sh->stop &&
	       (env.duration_ns ? px_now_ns() < end : n < env.iterations)) {
		t0 = px_now_ns();
		ret = rename_once("fg", &where);
		t1 = px_now_ns();
		if (ret) {
			errno = -ret;
			px_warn("foreground rename");
			break;
		}
		if (px_result_add(&res, t1 - t0))
			px_fatal(1, "out of memory");
		n++;
	}
	sh->stop = 1;
	for (i = 0; i < npids; i++) {
		if (waitpid(pids[i], &status, 0) != pids[i] ||
		    !WIFEXITED(status) || WEXITSTATUS(status)) {
			children_ok = false;
			if (i == 0)
				px_warnx("background failed: %s", sh->bg_errno ?
					 strerror(sh->bg_errno) : "did not start");
		}
	}
	if (children_ok && !sh->bg_renames)
		px_warnx("the background never renamed: no contention was measured");
	cleanup();

	/* No rename at all: timing never started (see --grace). */
	want = env.duration_ns ? n : env.iterations;
	ok = children_ok && n > 0 && n == want && res.samples.n == n && sh->bg_renames > 0;
	px_result_print(&res, out, "foreground", !env.quiet);
	fprintf(out, "consistency: renames=%" PRIu64 "/%" PRIu64 " samples=%zu background=%" PRIu64
	       " children=%s -> %s\n", n, want, res.samples.n, sh->bg_renames,
	       children_ok ? "ok" : "FAILED", ok ? "OK" : "INCONSISTENT");

	if (env.json_path) {
		j = px_result_json_begin(&res, env.json_path, "rename");
		if (!j) {
			px_warn("cannot write %s", env.json_path);
			ok = false;
		} else {
			px_json_u64(j, "iterations", env.duration_ns ? 0 : env.iterations);
			px_json_u64(j, "duration_ns", env.duration_ns);
			px_json_u64(j, "hogs", env.hogs);
			px_json_i64(j, "cpu", env.cpu);
			px_json_i64(j, "fg_nice", env.fg_nice);
			px_json_i64(j, "bg_nice", env.bg_nice);
			px_json_string(j, "cgroup", env.cgroup);
			px_json_i64(j, "cpu_weight", env.cgroup ? env.weight : 100);
			px_json_string(j, "cpu_max", env.cpu_max ? env.cpu_max : "max");
			px_json_string(j, "dir", workdir);
			px_result_json_checks(&res, j);
			px_json_bool(j, "consistent", ok);
			px_json_u64(j, "renames", n);
			px_json_u64(j, "background_renames", sh->bg_renames);
			if (px_result_json_end(&res, j, ok)) {
				px_warnx("error writing %s", env.json_path);
				ok = false;
			}
		}
	}
	if (env.hist_path && px_result_write_hist(&res, env.hist_path, "renamedemo rename")) {
		px_warn("cannot write %s", env.hist_path);
		ok = false;
	}
	err = ok ? 0 : 1;
	px_result_free(&res);
	return err;
}

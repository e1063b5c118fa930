// SPDX-License-Identifier: GPL-2.0
/*
 * mmapdemo - a priority inversion on mmap_lock, a kernel rw_semaphore.
 *
 * Two threads of one process share its mm and so its mmap_lock.  A
 * background thread at nice 19 changes the protection of a large,
 * populated mapping back and forth in a loop: each mprotect() holds
 * mmap_lock for writing while it rewrites every page table entry.  Spinners
 * at nice 0 load the same CPU.  The foreground thread (nice -10) times
 * reads of /proc/self/maps, which take mmap_lock for reading: when the
 * background is preempted inside mprotect(), the foreground waits until
 * the background gets CPU again -- unless proxy execution runs the
 * background on the foreground's scheduling context.
 *
 * --throttle puts the background thread alone in a threaded cgroup with
 * cpu.max "1000 100000": it then holds mmap_lock across the periods it is
 * throttled in (an mprotect() of milliseconds spans several), which a
 * waiter sits out without proxy execution and not with it (its context
 * is not throttled) -- the clearest contrast, as renamedemo's --throttle.
 *
 * --bg-read turns it around: the background reads /proc/self/smaps, which
 * holds mmap_lock for reading while it walks the large mapping's page
 * tables, and the foreground times mprotect() of a small mapping of its
 * own (mmap_lock for writing).  Readers own the rwsem then, and proxy
 * execution does not follow readers: this inversion is expected to stay.
 *
 * --inode moves the same contest to another kernel rw_semaphore, a file's
 * i_rwsem: the background write()s the whole populated mapping to a file
 * in $TMPDIR (tmpfs or ramfs in the guest: generic_file_write_iter()
 * holds i_rwsem for writing across the whole copy), the foreground times
 * 1-byte pwrite()s to the same file, which need it for writing too.
 */
#include <argp.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "pxutil.h"

#define NSEC_PER_SEC	1000000000ULL
#define MAX_HOGS	64
/* --throttle: the background's cpu.max, 1 ms every 100 ms. */
#define BG_CPU_MAX	"1000 100000"

static struct env {
	uint64_t	iterations;
	uint64_t	duration_ns;
	int		hogs;
	int		cpu;
	int		bg_nice, fg_nice;
	uint64_t	size_mb;
	bool		bg_read;
	bool		inode;
	bool		throttle;
	const char	*cgroup;
	bool		quiet;
	const char	*json_path, *hist_path;
	uint64_t	grace_s;
} env = {
	.iterations	= 500,
	.hogs		= 2,
	.cpu		= 0,
	.bg_nice	= 19,
	.fg_nice	= -10,
	.size_mb	= 64,
	.grace_s	= 30,
	.cgroup		= "pxmmap",
};

/* Written by the background thread, read by main once it is joined. */
static struct {
	volatile int	stop;
	uint64_t	ops;		/* critical sections completed */
	uint64_t	cpu_ns;		/* their CPU time, summed */
	int		err;		/* errno of a failed operation */
	int		ready;
	pid_t		tid;		/* set before it starts its loop */
	int		placed;		/* main moved it into the cgroup */
} bg;

static char *region;		/* the large mapping */
static size_t region_len;
static int file_fd = -1;	/* --inode: the file whose i_rwsem is contended */
static FILE *out;
static volatile sig_atomic_t exiting;

static const char doc[] =
"Time mmap_lock (or a file's i_rwsem) while a starved background thread\n"
"holds it.\n"
"\n"
"USAGE: mmapdemo [OPTIONS]\n"
"\n"
"The background thread (nice 19) mprotect()s a populated mapping of --size\n"
"MB back and forth, holding mmap_lock for writing; the foreground (nice -10)\n"
"times reads of /proc/self/maps (mmap_lock for reading); the spinners load\n"
"their CPU at nice 0.  --bg-read: the background reads /proc/self/smaps\n"
"(mmap_lock for reading) and the foreground times mprotect() (for writing).\n"
"--inode: the background write()s the mapping to a file in $TMPDIR (its\n"
"i_rwsem for writing), the foreground times 1-byte pwrite()s to it.\n"
"Prints the foreground's wait and the background's critical section (its CPU\n"
"time per operation); -o/--hist as inversion(1).\n"
"\n"
"EXAMPLES:\n"
"    mmapdemo                      # 500 reads on CPU 0, 2 spinners\n"
"    mmapdemo -d 5s -o r.json      # as long as 5 s lasts\n"
"    mmapdemo --throttle -d 2s     # the writer throttled by cpu.max\n"
"    mmapdemo --bg-read -n 100     # a reader-owned rwsem\n"
"    mmapdemo --inode --throttle   # i_rwsem instead of mmap_lock\n"
"\n"
"Options:";

enum option_values {
	OPT_BG_READ = 1000,
	OPT_CGROUP,
	OPT_THROTTLE,
	OPT_FG_NICE,
	OPT_GRACE,
	OPT_HIST,
	OPT_INODE,
	OPT_NICE,
	OPT_SIZE,
};

static const struct argp_option opts[] = {
	{ "bg-read", OPT_BG_READ, NULL, 0, "background holds mmap_lock for reading (smaps), foreground writes (mprotect)", 0 },
	{ "cgroup", OPT_CGROUP, "NAME", 0, "the threaded cgroup of --throttle (default pxmmap)", 0 },
	{ "throttle", OPT_THROTTLE, NULL, 0, "cpu.max \"1000 100000\" for the background thread (a threaded cgroup)", 0 },
	{ "cpu", 'c', "CPU", 0, "CPU of all threads (default 0)", 0 },
	{ "duration", 'd', "TIME", 0, "run this long instead of -n (default unit s)", 0 },
	{ "fg-nice", OPT_FG_NICE, "NICE", 0, "foreground's nice value (default -10)", 0 },
	{ "grace", OPT_GRACE, "SEC", 0, "how long the background may take to complete one operation before timing starts (default 30)", 0 },
	{ "hist", OPT_HIST, "FILE", 0, "write the gnuplot latency histogram to FILE", 0 },
	{ "hogs", 'H', "N", 0, "spinners at nice 0 (default 2)", 0 },
	{ "inode", OPT_INODE, NULL, 0, "contend on a file's i_rwsem instead: the background write()s the mapping to a file in $TMPDIR, the foreground times 1-byte pwrite()s to it", 0 },
	{ "iterations", 'n', "N", 0, "foreground operations to time (default 500)", 0 },
	{ "nice", OPT_NICE, "NICE", 0, "background's nice value (default 19)", 0 },
	{ "output", 'o', "FILE", 0, "write the JSON result to FILE (- for stdout)", 0 },
	{ "quiet", 'q', NULL, 0, "print only the summary table and the consistency line", 0 },
	{ "size", OPT_SIZE, "MB", 0, "the background's mapping (default 64)", 0 },
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
	case OPT_BG_READ:
		env.bg_read = true;
		break;
	case OPT_CGROUP:
		env.cgroup = arg;
		break;
	case OPT_THROTTLE:
		env.throttle = true;
		break;
	case OPT_FG_NICE:
		env.fg_nice = px_arg_long(state, "nice value", arg, -20, 19);
		break;
	case OPT_GRACE:
		env.grace_s = px_arg_u64(state, "grace in s", arg, 1, 3600);
		break;
	case OPT_HIST:
		env.hist_path = arg;
		break;
	case OPT_INODE:
		env.inode = true;
		break;
	case OPT_NICE:
		env.bg_nice = px_arg_long(state, "nice value", arg, -20, 19);
		break;
	case OPT_SIZE:
		env.size_mb = px_arg_u64(state, "size in MB", arg, 1, 4096);
		break;
	case ARGP_KEY_ARG:
		fprintf(stderr, "unexpected argument: %s\n", arg);
		argp_usage(state);
		break;
	case ARGP_KEY_END:
		if (env.inode && env.bg_read)
			argp_error(state, "--inode and --bg-read: the background writes the file");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/* Read @fd from the start until EOF; 0 or -errno. */
static int read_all(int fd)
{
	static char buf[65536];
	ssize_t n;
	off_t off = 0;

	do {
		n = pread(fd, buf, sizeof(buf), off);
		off += n;
	} while (n > 0);
	return n < 0 ? -errno : 0;
}

/*
 * One background critical section: both mprotect()s (each holds
 * mmap_lock for writing over the whole mapping), one read of smaps (for
 * reading, walking the mapping's page tables), or --inode one write() of
 * the mapping to the file (its i_rwsem for writing, the whole copy).
 */
static int bg_op(int smaps_fd)
{
	ssize_t n;

	if (env.inode) {
		n = pwrite(file_fd, region, region_len, 0);
		return n < 0 ? -errno : (size_t)n != region_len ? -EIO : 0;
	}
	if (env.bg_read)
		return read_all(smaps_fd);
	if (mprotect(region, region_len, PROT_READ) ||
	    mprotect(region, region_len, PROT_READ | PROT_WRITE))
		return -errno;
	return 0;
}

static void *run_background(void *arg)
{
	int smaps_fd = -1, ret;
	uint64_t c0;

	(void)arg;
	if (px_pin_self(env.cpu) || px_set_other(env.bg_nice)) {
		bg.err = errno;
		return NULL;
	}
	__atomic_store_n(&bg.tid, (pid_t)syscall(SYS_gettid), __ATOMIC_SEQ_CST);
	if (env.bg_read) {
		smaps_fd = open("/proc/self/smaps", O_RDONLY);
		if (smaps_fd < 0) {
			bg.err = errno;
			return NULL;
		}
	}
	while (!bg.stop) {
		c0 = thread_cpu_ns();
		ret = bg_op(smaps_fd);
		if (ret) {
			bg.err = -ret;
			break;
		}
		__atomic_add_fetch(&bg.cpu_ns, thread_cpu_ns() - c0, __ATOMIC_RELAXED);
		/*
		 * Ready once an operation went through, as renamedemo's.  That
		 * first one runs outside --throttle's cgroup: at 1 ms of CPU
		 * per 100 ms, a first write() that took 370 ms of CPU on a
		 * slow guest would have outlasted --grace.  Main moves this
		 * thread into the cgroup before timing starts.
		 */
		if (!__atomic_fetch_add(&bg.ops, 1, __ATOMIC_SEQ_CST)) {
			__atomic_store_n(&bg.ready, 1, __ATOMIC_SEQ_CST);
			while (env.throttle && !__atomic_load_n(&bg.placed, __ATOMIC_SEQ_CST) &&
			       !bg.stop)
				usleep(1000);
		}
	}
	if (smaps_fd >= 0)
		close(smaps_fd);
	return NULL;
}

/* A spinner: a thread, so that it sees bg.stop; it never takes mmap_lock. */
static void *run_hog(void *arg)
{
	(void)arg;
	if (px_pin_self(env.cpu) || px_set_other(0))
		return (void *)1;
	while (!bg.stop)
		;
	return NULL;
}

/*
 * --throttle: NAME (a domain that becomes the root of a threaded subtree)
 * holds the process, NAME/bg (threaded, cpu.max) the background thread
 * alone: cgroup v2 moves threads only within a threaded subtree.
 */
static char bg_cgroup[PATH_MAX];
static bool cgroup_made;

static void cgroup_cleanup(void);

static void cgroup_setup(void)
{
	if (!env.throttle)
		return;
	px_cgroup_setup_or_die("mmapdemo --throttle", env.cgroup, 100, NULL);
	cgroup_made = true;
	atexit(cgroup_cleanup);
	if (px_cgroup_set(env.cgroup, "cgroup.subtree_control", "+cpu"))
		px_fatal(1, "cannot enable the cpu controller below cgroup %s", env.cgroup);
	snprintf(bg_cgroup, sizeof(bg_cgroup), "%s/bg", env.cgroup);
	if (px_cgroup_create(bg_cgroup) ||
	    px_cgroup_set(bg_cgroup, "cgroup.type", "threaded") ||
	    px_cgroup_set(bg_cgroup, "cpu.max", BG_CPU_MAX))
		px_fatal(1, "cannot set up threaded cgroup %s with cpu.max", bg_cgroup);
	if (px_cgroup_attach_pid(env.cgroup, getpid()))
		px_fatal(1, "cannot move this process into cgroup %s", env.cgroup);
}

/* Move the background thread into NAME/bg; false if it failed to start. */
static bool cgroup_place_bg(void)
{
	char tid[32];
	pid_t t;

	if (!env.throttle)
		return true;
	while (!(t = __atomic_load_n(&bg.tid, __ATOMIC_SEQ_CST)) && !bg.err)
		usleep(1000);
	if (bg.err)
		return false;
	snprintf(tid, sizeof(tid), "%d", t);
	if (px_cgroup_set(bg_cgroup, "cgroup.threads", tid))
		px_fatal(1, "cannot move the background thread into cgroup %s", bg_cgroup);
	__atomic_store_n(&bg.placed, 1, __ATOMIC_SEQ_CST);
	return true;
}

/* Remove @name, waiting up to 1 s for exited threads to leave it. */
static void cgroup_remove(const char *name)
{
	int i, ret;

	for (i = 0; i < 100; i++) {
		ret = px_cgroup_destroy(name);
		if (ret != -EBUSY)
			break;
		usleep(10000);
	}
	if (ret) {
		errno = -ret;
		px_warn("cannot remove cgroup %s", name);
	}
}

static void cgroup_cleanup(void)
{
	char pid[32], path[PATH_MAX];

	if (!cgroup_made)
		return;
	cgroup_made = false;
	/* The whole process out of the threaded subtree, then the groups. */
	snprintf(pid, sizeof(pid), "%d", getpid());
	snprintf(path, sizeof(path), "%s/cgroup.procs", px_cgroup_root());
	if (px_write_str(path, pid))
		px_warn("cannot move this process back to the root cgroup");
	cgroup_remove(bg_cgroup);
	cgroup_remove(env.cgroup);
}

/*
 * --inode: an unlinked file in $TMPDIR (default /tmp), filled once, so
 * that each background write() overwrites pages the file already has.
 */
static int open_file(void)
{
	const char *dir = getenv("TMPDIR");
	char path[PATH_MAX];
	int f;

	snprintf(path, sizeof(path), "%s/mmapdemo.XXXXXX", dir && *dir ? dir : "/tmp");
	f = mkstemp(path);
	if (f < 0)
		px_fatal(1, "--inode: cannot create a file in %s", dir && *dir ? dir : "/tmp");
	unlink(path);
	if (pwrite(f, region, region_len, 0) != (ssize_t)region_len)
		px_fatal(1, "--inode: cannot write %" PRIu64 " MB to %s", env.size_mb, path);
	return f;
}

static void on_signal(int sig)
{
	(void)sig;
	exiting = 1;
}

int main(int argc, char **argv)
{
	static const struct argp argp = { opts, parse_arg, NULL, doc, NULL, NULL, NULL };
	pthread_t hogs[MAX_HOGS];
	int nhogs = 0, i, fd, err = 1;
	void *hog_ret;
	bool children_ok = true, ok;
	uint64_t n = 0, t0, t1, end, want, bg_ops;
	struct sigaction sa = { 0 };
	struct px_result res;
	struct px_json *j;
	pthread_t bg_thread;
	char *small;
	long page = sysconf(_SC_PAGESIZE);

	if (px_argp_parse(&argp, argc, argv, NULL))
		return PX_EXIT_USAGE;
	if (px_result_init(&res, "mmapdemo", env.inode ? "i_rwsem_wait" : "mmap_lock_wait",
			   argc, argv))
		px_fatal(1, "out of memory");
	out = env.json_path && !strcmp(env.json_path, "-") ? stderr : stdout;
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (px_pin_self(env.cpu))
		px_fatal(1, "cannot pin to CPU %d", env.cpu);
	if (px_set_other(env.fg_nice))
		px_fatal(1, "cannot set SCHED_OTHER nice %d%s", env.fg_nice,
			 env.fg_nice < 0 ? " (needs root or CAP_SYS_NICE; or --fg-nice 0)" : "");

	/* Populated, so that every operation walks all its page tables. */
	region_len = env.size_mb << 20;
	region = mmap(NULL, region_len, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (region == MAP_FAILED)
		px_fatal(1, "cannot map %" PRIu64 " MB", env.size_mb);
	small = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (small == MAP_FAILED)
		px_fatal(1, "mmap");
	fd = open("/proc/self/maps", O_RDONLY);
	if (fd < 0)
		px_fatal(1, "cannot open /proc/self/maps");
	if (env.inode)
		file_fd = open_file();

	cgroup_setup();
	fflush(NULL);
	if (pthread_create(&bg_thread, NULL, run_background, NULL))
		px_fatal(1, "cannot start the background thread");
	end = px_now_ns() + env.grace_s * NSEC_PER_SEC;
	while (!__atomic_load_n(&bg.ready, __ATOMIC_SEQ_CST) && !bg.err && px_now_ns() < end)
		usleep(1000);
	if (!__atomic_load_n(&bg.ready, __ATOMIC_SEQ_CST))
		px_warnx("the background did not complete an operation within %" PRIu64 " s (--grace)",
			 env.grace_s);
	else
		cgroup_place_bg();
	for (i = 0; i < env.hogs; i++) {
		if (pthread_create(&hogs[nhogs], NULL, run_hog, NULL)) {
			px_warnx("cannot start spinner %d", i);
			children_ok = false;
			break;
		}
		nhogs++;
	}

	if (!env.quiet)
		fprintf(out, "mmapdemo: %s%" PRIu64 " %s on CPU %d, foreground nice %d %s, background nice %d %s over %" PRIu64 " MB, %d spinner(s)\n",
			env.duration_ns ? "for " : "",
			env.duration_ns ? env.duration_ns / 1000000 : env.iterations,
			env.duration_ns ? "ms" : "operations", env.cpu, env.fg_nice,
			env.inode ? "pwrite()s 1 byte (i_rwsem, write)" :
			env.bg_read ? "mprotect()s (write)" : "reads maps (read)",
			env.bg_nice, env.inode ? "write()s the file (i_rwsem, write)" :
			env.bg_read ? "reads smaps (read)" : "mprotect()s (write)",
			env.size_mb, env.hogs);
	end = px_now_ns() + env.duration_ns;
	while (!exiting && bg.ready && !bg.err &&
	       (env.duration_ns ? px_now_ns() < end : n < env.iterations)) {
		int ret = 0;

		t0 = px_now_ns();
		if (env.inode) {
			if (pwrite(file_fd, small, 1, 0) != 1)
				ret = -errno;
		} else if (env.bg_read) {
			if (mprotect(small, page, (n & 1) ? PROT_READ | PROT_WRITE : PROT_READ))
				ret = -errno;
		} else {
			ret = read_all(fd);
		}
		t1 = px_now_ns();
		if (ret) {
			errno = -ret;
			px_warn("foreground operation");
			break;
		}
		if (px_result_add(&res, t1 - t0))
			px_fatal(1, "out of memory");
		n++;
	}
	bg.stop = 1;
	pthread_join(bg_thread, NULL);
	for (i = 0; i < nhogs; i++) {
		if (pthread_join(hogs[i], &hog_ret) || hog_ret) {
			px_warnx("spinner %d could not pin or set its policy", i);
			children_ok = false;
		}
	}
	if (bg.err) {
		px_warnx("background failed: %s", strerror(bg.err));
		children_ok = false;
	}
	cgroup_cleanup();
	bg_ops = __atomic_load_n(&bg.ops, __ATOMIC_SEQ_CST);
	if (children_ok && !bg_ops)
		px_warnx("the background never completed an operation: no contention was measured");
	close(fd);
	if (file_fd >= 0)
		close(file_fd);

	/* No operation at all: timing never started (see --grace). */
	want = env.duration_ns ? n : env.iterations;
	ok = children_ok && n > 0 && n == want && res.samples.n == n && bg_ops > 0;
	px_result_print(&res, out, "foreground", !env.quiet);
	fprintf(out, "background: %" PRIu64 " operations, %" PRIu64 " us of CPU each on average\n",
		bg_ops, bg_ops ? bg.cpu_ns / bg_ops / 1000 : 0);
	fprintf(out, "consistency: operations=%" PRIu64 "/%" PRIu64 " samples=%zu background=%" PRIu64
		" children=%s -> %s\n", n, want, res.samples.n, bg_ops,
		children_ok ? "ok" : "FAILED", ok ? "OK" : "INCONSISTENT");

	if (env.json_path) {
		j = px_result_json_begin(&res, env.json_path, env.inode ? "inode" :
					 env.bg_read ? "mmap-bg-read" : "mmap");
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
			px_json_u64(j, "size_mb", env.size_mb);
			px_json_string(j, "lock", env.inode ? "i_rwsem" : "mmap_lock");
			px_json_string(j, "bg_holds", env.bg_read ? "read" : "write");
			px_json_string(j, "cpu_max", env.throttle ? BG_CPU_MAX : "max");
			px_result_json_checks(&res, j);
			px_json_bool(j, "consistent", ok);
			px_json_u64(j, "operations", n);
			px_json_u64(j, "background_operations", bg_ops);
			px_json_u64(j, "background_cpu_ns_avg", bg_ops ? bg.cpu_ns / bg_ops : 0);
			if (px_result_json_end(&res, j, ok)) {
				px_warnx("error writing %s", env.json_path);
				ok = false;
			}
		}
	}
	if (env.hist_path && px_result_write_hist(&res, env.hist_path, env.inode ?
						  "mmapdemo i_rwsem wait" : "mmapdemo mmap_lock wait")) {
		px_warn("cannot write %s", env.hist_path);
		ok = false;
	}
	err = ok ? 0 : 1;
	px_result_free(&res);
	return err;
}

// SPDX-License-Identifier: GPL-2.0
/* CPUs, scheduling policies, small files, cgroup v2, clocks; see pxutil.h. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <mntent.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pxutil.h"

static int fail(int err)
{
	errno = err;
	return -err;
}

int px_parse_cpulist(const char *s, cpu_set_t *set)
{
	long lo, hi;
	char *end;

	CPU_ZERO(set);
	if (!s || !*s)
		return fail(EINVAL);
	for (;;) {
		if (!isdigit((unsigned char)*s))
			return fail(EINVAL);
		errno = 0;
		lo = hi = strtol(s, &end, 10);
		if (errno)
			return fail(ERANGE);
		if (*end == '-') {
			s = end + 1;
			if (!isdigit((unsigned char)*s))
				return fail(EINVAL);
			hi = strtol(s, &end, 10);
			if (errno)
				return fail(ERANGE);
			if (hi < lo)
				return fail(EINVAL);
		}
		if (hi >= CPU_SETSIZE)
			return fail(ERANGE);
		for (; lo <= hi; lo++)
			CPU_SET(lo, set);
		s = end;
		if (*s == ',') {
			s++;
			continue;
		}
		if (*s == '\n' && !s[1])
			return 0;
		return *s ? fail(EINVAL) : 0;
	}
}

char *px_cpulist_str(const cpu_set_t *set, char *buf, size_t len)
{
	size_t used = 0;
	int cpu, start;

	if (len)
		buf[0] = '\0';
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, set))
			continue;
		start = cpu;
		while (cpu + 1 < CPU_SETSIZE && CPU_ISSET(cpu + 1, set))
			cpu++;
		if (used < len)
			used += snprintf(buf + used, len - used,
					 start == cpu ? "%s%d" : "%s%d-%d",
					 used ? "," : "", start, cpu);
	}
	return buf;
}

int px_online_cpus(cpu_set_t *set)
{
	char line[4096];
	int ret;

	ret = px_read_line("/sys/devices/system/cpu/online", line, sizeof(line));
	if (ret)
		return ret;
	return px_parse_cpulist(line, set);
}

int px_pin_self_set(const cpu_set_t *set)
{
	int ret = pthread_setaffinity_np(pthread_self(), sizeof(*set), set);

	return ret ? fail(ret) : 0;
}

int px_pin_self(int cpu)
{
	cpu_set_t set;

	if (cpu < 0 || cpu >= CPU_SETSIZE)
		return fail(EINVAL);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return px_pin_self_set(&set);
}

int px_set_fifo(int prio)
{
	struct sched_param sp = { .sched_priority = prio };
	int ret = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);

	return ret ? fail(ret) : 0;
}

int px_set_other(int nice)
{
	struct sched_param sp = { .sched_priority = 0 };
	int ret = pthread_setschedparam(pthread_self(), SCHED_OTHER, &sp);

	if (ret)
		return fail(ret);
	/* setpriority(PRIO_PROCESS, tid) applies to one thread on Linux. */
	if (setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), nice))
		return -errno;
	return 0;
}

int px_sched_getattr(int pid, struct px_sched_attr *attr)
{
	if (syscall(SYS_sched_getattr, pid, attr, sizeof(*attr), 0))
		return -errno;
	return 0;
}

int px_sched_setattr(int pid, const struct px_sched_attr *attr)
{
	struct px_sched_attr a = *attr;

	a.size = sizeof(a);
	if (syscall(SYS_sched_setattr, pid, &a, 0))
		return -errno;
	return 0;
}

int px_set_deadline(uint64_t runtime, uint64_t deadline, uint64_t period)
{
	struct px_sched_attr attr = {
		.sched_policy	= SCHED_DEADLINE,
		.sched_runtime	= runtime,
		.sched_deadline	= deadline,
		.sched_period	= period,
	};

	return px_sched_setattr(0, &attr);
}

const char *px_policy_name(int policy)
{
	switch (policy) {
	case SCHED_OTHER:	return "SCHED_OTHER";
	case SCHED_FIFO:	return "SCHED_FIFO";
	case SCHED_RR:		return "SCHED_RR";
	case SCHED_BATCH:	return "SCHED_BATCH";
	case SCHED_IDLE:	return "SCHED_IDLE";
	case SCHED_DEADLINE:	return "SCHED_DEADLINE";
	default:		return "unknown";
	}
}

int px_read_line(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	if (!len)
		return fail(EINVAL);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0) {
		n = -errno;
		close(fd);
		return fail((int)-n);
	}
	close(fd);
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

int px_write_str(const char *path, const char *val)
{
	size_t len = strlen(val);
	ssize_t n;
	int fd, err = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, val, len);
	if (n < 0)
		err = errno;
	else if ((size_t)n != len)
		err = EIO;
	if (close(fd) && !err)
		err = errno;
	return err ? fail(err) : 0;
}

int px_read_u64(const char *path, uint64_t *val)
{
	char buf[64];
	int ret;

	ret = px_read_line(path, buf, sizeof(buf));
	if (ret)
		return ret;
	return px_parse_u64(buf, 0, UINT64_MAX, val);
}

/* ---------------------------------------------------------------- cgroup */

const char *px_cgroup_root(void)
{
	static char root[PATH_MAX];
	struct mntent *m;
	FILE *f;

	if (root[0])
		return root;
	f = setmntent("/proc/self/mounts", "r");
	if (!f)
		return NULL;
	while ((m = getmntent(f))) {
		if (!strcmp(m->mnt_type, "cgroup2")) {
			snprintf(root, sizeof(root), "%s", m->mnt_dir);
			break;
		}
	}
	endmntent(f);
	if (!root[0]) {
		errno = ENOENT;
		return NULL;
	}
	return root;
}

static int cgroup_path(char *buf, size_t len, const char *name, const char *file)
{
	const char *root = px_cgroup_root();
	int n;

	if (!root)
		return -ENOENT;
	if (!name || !*name || strstr(name, ".."))
		return fail(EINVAL);
	n = snprintf(buf, len, "%s/%s%s%s", root, name, file ? "/" : "",
		     file ? file : "");
	return n < 0 || (size_t)n >= len ? fail(ENAMETOOLONG) : 0;
}

/* Is @word one of the space-separated words of @list? */
static bool has_word(const char *list, const char *word)
{
	size_t len = strlen(word);
	const char *p = list;

	while ((p = strstr(p, word))) {
		if ((p == list || p[-1] == ' ') && (p[len] == ' ' || !p[len]))
			return true;
		p += len;
	}
	return false;
}

int px_cgroup_create(const char *name)
{
	char path[PATH_MAX], line[512];
	const char *root = px_cgroup_root();
	int ret;

	if (!root)
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/cgroup.controllers", root);
	ret = px_read_line(path, line, sizeof(line));
	if (ret)
		return ret;
	if (!has_word(line, "cpu"))
		return fail(ENOTSUP);
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", root);
	ret = px_write_str(path, "+cpu");
	if (ret)
		return ret;
	ret = cgroup_path(path, sizeof(path), name, NULL);
	if (ret)
		return ret;
	if (mkdir(path, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

int px_cgroup_set(const char *name, const char *file, const char *val)
{
	char path[PATH_MAX];
	int ret = cgroup_path(path, sizeof(path), name, file);

	return ret ? ret : px_write_str(path, val);
}

int px_cgroup_attach_pid(const char *name, int pid)
{
	char val[32];

	snprintf(val, sizeof(val), "%d", pid);
	return px_cgroup_set(name, "cgroup.procs", val);
}

int px_cgroup_destroy(const char *name)
{
	char path[PATH_MAX], root_procs[PATH_MAX], pid[32];
	FILE *f;
	int ret;

	ret = cgroup_path(path, sizeof(path), name, "cgroup.procs");
	if (ret)
		return ret;
	snprintf(root_procs, sizeof(root_procs), "%s/cgroup.procs", px_cgroup_root());
	f = fopen(path, "re");
	if (f) {
		while (fgets(pid, sizeof(pid), f))
			px_write_str(root_procs, pid);	/* best effort */
		fclose(f);
	}
	cgroup_path(path, sizeof(path), name, NULL);
	if (rmdir(path) && errno != ENOENT)
		return -errno;
	return 0;
}

int px_cgroup_id(const char *path, uint64_t *id)
{
	struct stat st;

	if (stat(path, &st))
		return -errno;
	*id = st.st_ino;
	return 0;
}

void px_cgroup_setup_or_die(const char *who, const char *name, int weight,
			    const char *cpu_max)
{
	char w[16];
	int ret;

	if (!px_cgroup_root())
		px_fatalx(1, "%s: no cgroup v2 hierarchy mounted (mount -t cgroup2 none /sys/fs/cgroup)",
			  who);
	ret = px_cgroup_create(name);
	if (ret == -ENOTSUP)
		px_fatalx(1, "%s: no cgroup v2 cpu controller (CONFIG_CGROUP_SCHED, or cpu bound to cgroup v1)",
			  who);
	if (ret)
		px_fatal(1, "%s: cannot create cgroup %s/%s", who, px_cgroup_root(), name);
	snprintf(w, sizeof(w), "%d", weight);
	if (px_cgroup_set(name, "cpu.weight", w))
		px_fatal(1, "%s: cannot set cpu.weight %s of %s", who, w, name);
	if (px_cgroup_set(name, "cpu.max", cpu_max ? cpu_max : "max"))
		px_fatal(1, "%s: cannot set cpu.max \"%s\" of %s", who,
			 cpu_max ? cpu_max : "max", name);
}

int px_read_cap_eff(const char *status_path, uint64_t *caps)
{
	char line[256], *end;
	int ret = -ENOENT;
	FILE *f;

	f = fopen(status_path ? status_path : "/proc/self/status", "r");
	if (!f)
		return fail(errno);
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "CapEff:", 7))
			continue;
		errno = 0;
		*caps = strtoull(line + 7, &end, 16);
		ret = errno || end == line + 7 || (*end && *end != '\n') ? -EINVAL : 0;
		break;
	}
	fclose(f);
	return ret ? fail(-ret) : 0;
}

#define PX_CAP_SYS_ADMIN	21
#define PX_CAP_PERFMON		38
#define PX_CAP_BPF		39

bool px_caps_allow_bpf(uint64_t caps)
{
	uint64_t need = 1ULL << PX_CAP_BPF | 1ULL << PX_CAP_PERFMON;

	return (caps & 1ULL << PX_CAP_SYS_ADMIN) || (caps & need) == need;
}

char px_task_state(int pid)
{
	char path[64], buf[512], *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (px_read_line(path, buf, sizeof(buf)))
		return '?';
	/* comm may contain ')' and spaces: the state follows the last ')'. */
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : '?';
}

int px_task_cpu(int pid)
{
	char path[64], buf[1024], *p, *save;
	int i;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (px_read_line(path, buf, sizeof(buf)))
		return -1;
	p = strrchr(buf, ')');
	if (!p)
		return -1;
	/* After the comm: field 3 (the state) ... field 39 (the CPU). */
	p = strtok_r(p + 1, " ", &save);
	for (i = 3; p && i < 39; i++)
		p = strtok_r(NULL, " ", &save);
	return p ? atoi(p) : -1;
}

bool px_wait_task_state(int pid, char state, long ms, char *last)
{
	char c = '?';

	for (; ms > 0; ms--) {
		c = px_task_state(pid);
		if (c == state)
			break;
		px_sleep_ns(1000000);
	}
	if (last)
		*last = c;
	return c == state;
}

int px_proc_sched_ns(const char *sched_path, const char *field, uint64_t *ns)
{
	size_t n = strlen(field);
	int ret = -ENOENT;
	char line[256];
	FILE *f;

	f = fopen(sched_path ? sched_path : "/proc/self/sched", "re");
	if (!f)
		return -errno;
	while (ret == -ENOENT && fgets(line, sizeof(line), f)) {
		unsigned long long whole, frac = 0;
		char *v = line + n, *dot;

		if (strncmp(line, field, n) || (*v != ' ' && *v != ':'))
			continue;
		v = strchr(v, ':');
		if (!v || sscanf(v + 1, "%llu", &whole) != 1) {
			ret = -EINVAL;
			break;
		}
		dot = strchr(v, '.');
		if (dot && sscanf(dot + 1, "%6llu", &frac) == 1) {
			for (size_t d = strspn(dot + 1, "0123456789"); d < 6; d++)
				frac *= 10;
			*ns = whole * 1000000ULL + frac;
		} else {
			*ns = whole;
		}
		ret = 0;
	}
	fclose(f);
	return ret;
}

/* ------------------------------------------------------------- processes */

pid_t px_fork_run(void (*fn)(void))
{
	pid_t pid = fork();

	if (pid < 0)
		px_fatal(2, "fork");
	if (!pid) {
		fn();
		_exit(0);
	}
	return pid;
}

int px_reap(pid_t pid, long ms)
{
	int status;

	for (; ms > 0; ms -= 10) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
		px_sleep_ns(10000000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return -1;
}

bool px_check(const char *prefix, const char *name, bool cond, const char *fmt, ...)
{
	va_list ap;

	if (cond) {
		printf("ok %s/%s\n", prefix, name);
	} else {
		printf("not ok %s/%s - ", prefix, name);
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		putchar('\n');
	}
	fflush(stdout);
	return cond;
}

/* ----------------------------------------------------------------- clock */

uint64_t px_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

void px_sleep_ns(uint64_t ns)
{
	struct timespec ts = { ns / 1000000000ULL, ns % 1000000000ULL };

	nanosleep(&ts, NULL);
}

void px_print_time(FILE *f)
{
	char buf[16];
	time_t t = time(NULL);
	struct tm tm;

	strftime(buf, sizeof(buf), "%H:%M:%S", localtime_r(&t, &tm));
	fprintf(f, "%-8s ", buf);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * inversion, football: access to the lab, /dev/proxylab (CONFIG_PROXYLAB):
 * the ioctls of a role (a failure ends the calling child, child_fail()),
 * the per-lock counters in debugfs, and --break's trace marker.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "inversion.h"

static int marker_fd = -1, tracing_on_fd = -1;	/* --break, opened by the parent */

/*
 * A lab without rt_mutexes (a kernel before kernel/pending/0044) has no
 * ioctl for them: ENOTTY.
 */
static void lab_rtmutex_fail(const char *who, const char *what, int idx, int err)
{
	if (err == ENOTTY)
		child_fail("%s: %s rtmutex %d: this kernel's lab has no rt_mutexes", who, what, idx);
	child_fail("%s: %s rtmutex %d: %s", who, what, idx, strerror(err));
}

/* Nothing can run without the lab: say so before forking anything. */
void lab_check_device(void)
{
	int fd = px_lab_open_or_exit(EXIT_FAIL);
	uint64_t held;

	if (env.any_rtmutex && ioctl(fd, PROXYLAB_IOC_RTMUTEX_HELD, &held)) {
		if (errno == ENOTTY)
			px_fatalx(EXIT_FAIL, "--locks rtmutex: this kernel's lab has no rt_mutexes");
		px_fatal(EXIT_FAIL, "%s: RTMUTEX_HELD", PX_LAB_DEV);
	}
	close(fd);
}

int lab_open(const char *who)
{
	int fd = px_lab_open();

	if (fd < 0)
		child_fail("%s: cannot open %s: %s", who, PX_LAB_DEV, strerror(errno));
	return fd;
}

enum inv_lock lab_type(int idx)
{
	int k = idx - env.first_mutex;

	return k >= 0 && k < env.depth ? env.lock[k] : LK_MUTEX;
}

const char *lab_type_name(enum inv_lock type)
{
	return type == LK_WRITE ? "write" : type == LK_READ ? "read" :
	       type == LK_RTMUTEX ? "rtmutex" : "mutex";
}

uint64_t lab_lock(int fd, int idx, enum inv_lock type, const char *who)
{
	struct proxylab_lock arg = { .idx = (uint32_t)idx };
	unsigned long req = PROXYLAB_IOC_LOCK;

	if (type == LK_RTMUTEX) {
		if (ioctl(fd, PROXYLAB_IOC_RTMUTEX_LOCK, &arg))
			lab_rtmutex_fail(who, "LOCK", idx, errno);
		return arg.wait_ns;
	}
	if (type != LK_MUTEX) {
		req = PROXYLAB_IOC_RWSEM_LOCK;
		arg.flags = type == LK_READ ? PROXYLAB_LOCK_READ : 0;
	}
	if (ioctl(fd, req, &arg))
		child_fail("%s: LOCK %s %d: %s", who, lab_type_name(type), idx, strerror(errno));
	return arg.wait_ns;
}

uint64_t lab_hold(int fd, int idx, enum inv_lock type, const char *who)
{
	return lab_lock(fd, idx, type == LK_READ ? LK_WRITE : type, who);
}

void lab_unlock(int fd, int idx, enum inv_lock type, const char *who)
{
	uint32_t i = (uint32_t)idx;

	if (type == LK_RTMUTEX) {
		if (ioctl(fd, PROXYLAB_IOC_RTMUTEX_UNLOCK, &i))
			lab_rtmutex_fail(who, "UNLOCK", idx, errno);
		return;
	}
	if (ioctl(fd, type == LK_MUTEX ? PROXYLAB_IOC_UNLOCK : PROXYLAB_IOC_RWSEM_UNLOCK, &i))
		child_fail("%s: UNLOCK %s %d: %s", who, lab_type_name(type), idx, strerror(errno));
}

void lab_usecs(int fd, unsigned long req, uint64_t us, const char *who)
{
	if (us && ioctl(fd, req, &us))
		child_fail("%s: %s %" PRIu64 " us: %s", who,
			   req == PROXYLAB_IOC_BURN ? "BURN" : "SLEEP", us, strerror(errno));
}

/*
 * "idx holder_pid acquired" lines of @path (the mutexes' or the
 * rt_mutexes' file) into the entries of type @type; false if it is absent.
 */
static bool lab_read_holders(const char *path, enum inv_lock type,
			     uint64_t acquired[], int holder[])
{
	FILE *f = fopen(path, "re");
	char line[128];
	long long acq;
	int idx, pid;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%d %d %lld", &idx, &pid, &acq) == 3 &&
		    idx >= 0 && idx < PROXYLAB_NR_MUTEXES && lab_type(idx) == type) {
			acquired[idx] = (uint64_t)acq;
			holder[idx] = pid;
		}
	}
	fclose(f);
	return true;
}

/*
 * Acquisition counters and holders of the lab locks m(k) from debugfs, by
 * index, each from its own type's file (an rwsem's holder: its writer, or
 * -1 while only read-held); false if a file the run needs is absent.
 */
bool lab_read_state(uint64_t acquired[], int holder[])
{
	FILE *f;
	char line[128];
	long long acq;
	int idx, pid, readers;

	if (!lab_read_holders(STATE_PATH, LK_MUTEX, acquired, holder))
		return false;
	if (env.any_rtmutex &&
	    !lab_read_holders(RTMUTEX_STATE_PATH, LK_RTMUTEX, acquired, holder))
		return false;
	if (!env.any_rwsem)
		return true;
	f = fopen(RWSEM_STATE_PATH, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%d %d %d %lld", &idx, &pid, &readers, &acq) == 4 &&
		    idx >= 0 && idx < PROXYLAB_NR_MUTEXES &&
		    (lab_type(idx) == LK_WRITE || lab_type(idx) == LK_READ)) {
			acquired[idx] = (uint64_t)acq;
			holder[idx] = pid ? pid : readers ? -1 : 0;
		}
	}
	fclose(f);
	return true;
}

/* --break: open the marker and tracing_on now, so a child only writes. */
void lab_open_break_files(void)
{
	if (!env.break_ns)
		return;
	marker_fd = open(TRACE_MARKER, O_WRONLY | O_CLOEXEC);
	if (marker_fd < 0)
		px_warn("--break: cannot open %s (no marker will be written)", TRACE_MARKER);
	tracing_on_fd = open(TRACING_ON, O_WRONLY | O_CLOEXEC);
	if (tracing_on_fd < 0)
		px_warn("--break: cannot open %s (tracing will not stop)", TRACING_ON);
}

void lab_close_break_files(void)
{
	if (marker_fd >= 0)
		close(marker_fd);
	if (tracing_on_fd >= 0)
		close(tracing_on_fd);
	marker_fd = tracing_on_fd = -1;
}

/*
 * --break: the first acquire of mutex @idx that waited longer than the
 * threshold marks the trace, stops it (so the trace ends at the sample)
 * and stops the run after the current iteration.  Called right after the
 * acquire, before the unlock, by the task that waited.
 */
void lab_check_break(int idx, uint64_t ns)
{
	char buf[128];
	int len;

	if (!env.break_ns || ns <= env.break_ns ||
	    __atomic_exchange_n(&sh->broke, 1, __ATOMIC_SEQ_CST))
		return;
	len = snprintf(buf, sizeof(buf),
		       "inversion break: pid=%d mutex=%d wait_ns=%" PRIu64 " break_ns=%" PRIu64 "\n",
		       (int)getpid(), idx, ns, env.break_ns);
	if (marker_fd >= 0 && write(marker_fd, buf, len) != len)
		px_warn("write %s", TRACE_MARKER);
	if (tracing_on_fd >= 0 && write(tracing_on_fd, "0", 1) != 1)
		px_warn("write %s", TRACING_ON);
	sh->break_pid = getpid();
	sh->break_mutex = idx;
	sh->break_wait_ns = ns;
	sh->stop = 1;
}

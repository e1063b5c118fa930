// SPDX-License-Identifier: GPL-2.0
/*
 * inversion, football: access to the lab, /dev/proxylab (CONFIG_PROXYLAB):
 * the ioctls of a role (a failure ends the calling child, child_fail()),
 * the per-mutex counters in debugfs, and --break's trace marker.
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

/* Nothing can run without the lab: say so before forking anything. */
void lab_check_device(void)
{
	close(px_lab_open_or_exit(EXIT_FAIL));
}

int lab_open(const char *who)
{
	int fd = px_lab_open();

	if (fd < 0)
		child_fail("%s: cannot open %s: %s", who, PX_LAB_DEV, strerror(errno));
	return fd;
}

uint64_t lab_lock(int fd, int idx, const char *who)
{
	struct proxylab_lock arg = { .idx = (uint32_t)idx };

	if (ioctl(fd, PROXYLAB_IOC_LOCK, &arg))
		child_fail("%s: LOCK %d: %s", who, idx, strerror(errno));
	return arg.wait_ns;
}

void lab_unlock(int fd, int idx, const char *who)
{
	uint32_t i = (uint32_t)idx;

	if (ioctl(fd, PROXYLAB_IOC_UNLOCK, &i))
		child_fail("%s: UNLOCK %d: %s", who, idx, strerror(errno));
}

void lab_usecs(int fd, unsigned long req, uint64_t us, const char *who)
{
	if (us && ioctl(fd, req, &us))
		child_fail("%s: %s %" PRIu64 " us: %s", who,
			   req == PROXYLAB_IOC_BURN ? "BURN" : "SLEEP", us, strerror(errno));
}

/* Per-mutex acquisition counters and holders from debugfs; false if absent. */
bool lab_read_state(uint64_t acquired[], int holder[])
{
	FILE *f = fopen(STATE_PATH, "re");
	char line[128];
	long long acq;
	int idx, pid;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%d %d %lld", &idx, &pid, &acq) == 3 &&
		    idx >= 0 && idx < PROXYLAB_NR_MUTEXES) {
			acquired[idx] = (uint64_t)acq;
			holder[idx] = pid;
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

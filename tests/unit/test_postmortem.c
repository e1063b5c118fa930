// SPDX-License-Identifier: GPL-2.0
/*
 * pxpostmortem on hand-written `trace-cmd report` text of known shape: the
 * break-marker story (waiter, mutex, owner, the time split to the
 * microsecond), the longest wait without a marker, a cyclictest latency,
 * and the errors (missing file, empty trace, no sched_proxy events, usage).
 * Runs build/tools/bin/pxpostmortem, found next to this binary's folder.
 */
#include <limits.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unit.h"

static char tool[PATH_MAX + 64], dir[] = "/tmp/pxpm-unit.XXXXXX";
static char out[65536];

/* A sleep-owner wait: W=100 waits 12 ms on lab mutex 3 held by O=200. */
static const char *const lock_trace[] = {
	"cpus=2",
	"     kworker/1:1-55    [001]     0.990000: sched_switch:         prev_comm=kworker/1:1 prev_pid=55 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120",
	"           owner-200   [000]     1.000000: sched_switch:         prev_comm=owner prev_pid=200 prev_prio=120 prev_state=R+ ==> next_comm=waiter next_pid=100 next_prio=19",
	"          waiter-100   [000]     1.000100: sched_wakeup:         comm=hog pid=300 prio=49 target_cpu=000",
	"          waiter-100   [000]     1.001000: sched_proxy_pick:     donor_comm=waiter donor_pid=100 owner_comm=owner owner_pid=200 lock=0xffff888001234500 depth=1 cpu=0",
	"          waiter-100   [000]     1.001000: sched_proxy_switch:   prev_pid=100 prev_donor_pid=100 next_comm=owner next_pid=200 next_donor_comm=waiter next_donor_pid=100 next_donor_prio=19",
	"          waiter-100   [000]     1.001000: sched_switch:         prev_comm=waiter prev_pid=100 prev_prio=19 prev_state=D ==> next_comm=owner next_pid=200 next_prio=120",
	"    a b-c-77   [001]     1.002000: sched_switch:         prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=a next_pid=77 next_prio=120",
	"           owner-200   [000]     1.003000: sched_proxy_abort:    donor_comm=waiter donor_pid=100 owner_pid=200 owner_cpu=0 lock=0xffff888001234500 depth=1 cpu=0 reason=owner_sleeping",
	"           owner-200   [000]     1.003000: sched_proxy_switch:   prev_pid=200 prev_donor_pid=100 next_comm=hog next_pid=300 next_donor_comm=hog next_donor_pid=300 next_donor_prio=49",
	"           owner-200   [000]     1.003000: sched_switch:         prev_comm=owner prev_pid=200 prev_prio=120 prev_state=S ==> next_comm=hog next_pid=300 next_prio=49",
	"             hog-300   [000]     1.004000: sched_wakeup:         comm=owner pid=200 prio=120 target_cpu=000",
	"             hog-300   [000]     1.010000: sched_switch:         prev_comm=hog prev_pid=300 prev_prio=49 prev_state=S ==> next_comm=owner next_pid=200 next_prio=120",
	"           owner-200   [000]     1.011000: sched_proxy_handoff:  lock=0xffff888001234500 owner_pid=200 to_comm=waiter to_pid=100 kind=top_waiter",
	"           owner-200   [000]     1.011000: sched_wakeup:         comm=waiter pid=100 prio=19 target_cpu=000",
	"           owner-200   [000]     1.011500: sched_switch:         prev_comm=owner prev_pid=200 prev_prio=120 prev_state=R+ ==> next_comm=waiter next_pid=100 next_prio=19",
	NULL,
};

/*
 * A parked donor (part 2): W=100 blocks, O=200 sleeps, W is parked, O wakes
 * and activates W, which is woken 0.5 ms later, runs 0.5 ms after that (its
 * retry finds the mutex held) and blocks again, then gets the mutex handed.
 * One wait of 6.1 ms.
 */
static const char *const retry_trace[] = {
	"          waiter-100   [000]     3.001000: sched_proxy_pick:     donor_comm=waiter donor_pid=100 owner_comm=owner owner_pid=200 lock=0xffff888001234500 depth=1 cpu=0",
	"          waiter-100   [000]     3.001000: sched_proxy_switch:   prev_pid=100 prev_donor_pid=100 next_comm=owner next_pid=200 next_donor_comm=waiter next_donor_pid=100 next_donor_prio=19",
	"          waiter-100   [000]     3.001000: sched_switch:         prev_comm=waiter prev_pid=100 prev_prio=19 prev_state=D ==> next_comm=owner next_pid=200 next_prio=120",
	"           owner-200   [000]     3.002000: sched_proxy_enqueue_sleeping: donor_comm=waiter donor_pid=100 owner_comm=owner owner_pid=200 cpu=0",
	"           owner-200   [000]     3.002000: sched_proxy_switch:   prev_pid=200 prev_donor_pid=100 next_comm=swapper/0 next_pid=0 next_donor_comm=swapper/0 next_donor_pid=0 next_donor_prio=120",
	"           owner-200   [000]     3.002000: sched_switch:         prev_comm=owner prev_pid=200 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120",
	"          <idle>-0     [000]     3.005000: sched_wakeup:         comm=owner pid=200 prio=120 target_cpu=000",
	"          <idle>-0     [000]     3.005000: sched_proxy_activate: donor_comm=waiter donor_pid=100 owner_comm=owner owner_pid=200 cpu=0",
	"          <idle>-0     [000]     3.005500: sched_wakeup:         comm=waiter pid=100 prio=19 target_cpu=000",
	"          <idle>-0     [000]     3.006000: sched_switch:         prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=waiter next_pid=100 next_prio=19",
	"          waiter-100   [000]     3.006100: sched_proxy_pick:     donor_comm=waiter donor_pid=100 owner_comm=owner owner_pid=200 lock=0xffff888001234500 depth=1 cpu=0",
	"          waiter-100   [000]     3.006100: sched_proxy_switch:   prev_pid=100 prev_donor_pid=100 next_comm=owner next_pid=200 next_donor_comm=waiter next_donor_pid=100 next_donor_prio=19",
	"          waiter-100   [000]     3.006100: sched_switch:         prev_comm=waiter prev_pid=100 prev_prio=19 prev_state=D ==> next_comm=owner next_pid=200 next_prio=120",
	"           owner-200   [000]     3.007000: sched_proxy_handoff:  lock=0xffff888001234500 owner_pid=200 to_comm=waiter to_pid=100 kind=donor",
	"           owner-200   [000]     3.007100: sched_proxy_switch:   prev_pid=200 prev_donor_pid=100 next_comm=waiter next_pid=100 next_donor_comm=waiter next_donor_pid=100 next_donor_prio=19",
	"          waiter-100   [000]     3.050000: sched_switch:         prev_comm=waiter prev_pid=100 prev_prio=19 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120",
	NULL,
};

static const char marker[] =
	"          waiter-100   [000]     1.012000: print:                tracing_mark_write: inversion break: pid=100 mutex=3 wait_ns=12000000 break_ns=5000000";

/* cyclictest-500 on CPU 1 is 300 us late while 200 runs as 100's proxy. */
static const char *const latency_trace[] = {
	"     cyclictest-500   [001]     1.999000: sched_switch:         prev_comm=cyclictest prev_pid=500 prev_prio=4 prev_state=S ==> next_comm=owner next_pid=200 next_prio=120",
	"           owner-200   [001]     1.999500: sched_proxy_switch:   prev_pid=200 prev_donor_pid=200 next_comm=owner next_pid=200 next_donor_comm=waiter next_donor_pid=100 next_donor_prio=19",
	"           owner-200   [001]     2.000000: sched_switch:         prev_comm=owner prev_pid=200 prev_prio=120 prev_state=R+ ==> next_comm=cyclictest next_pid=500 next_prio=4",
	"     cyclictest-500   [001]     2.000100: print:                tracing_mark_write: hit latency threshold (300 > 200)",
	NULL,
};

static void write_file(const char *name, const char *const lines[], const char *extra)
{
	char path[PATH_MAX];
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(1);
	}
	for (i = 0; lines && lines[i]; i++)
		fprintf(f, "%s\n", lines[i]);
	if (extra)
		fprintf(f, "%s\n", extra);
	fclose(f);
}

/* Run pxpostmortem ARGS (in @dir), stdout+stderr into out; exit status. */
static int run(const char *args)
{
	char cmd[PATH_MAX * 2];
	size_t n;
	FILE *p;
	int st;

	snprintf(cmd, sizeof(cmd), "cd %s && %s < /dev/null %s 2>&1", dir, tool, args);
	p = popen(cmd, "r");
	if (!p) {
		perror("popen");
		exit(1);
	}
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = '\0';
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

#define HAS(name, needle) CHECK(name, strstr(out, needle), "no '%s' in:\n%s", needle, out)

static void test_marker(void)
{
	int rc;

	write_file("lock.txt", lock_trace, marker);
	rc = run("-j lock.txt");
	CHECK("pm-marker-exit", rc == 0, "exit %d: %s", rc, out);
	HAS("pm-marker-kind", "\"kind\": \"lock_wait\"");
	HAS("pm-marker-pid", "\"pid\": 100,");
	HAS("pm-marker-mutex", "\"mutex\": \"0xffff888001234500\"");
	HAS("pm-marker-mutex-index", "\"mutex_index\": 3,");
	HAS("pm-marker-owner", "\"owner\": 200,");
	HAS("pm-marker-released-by", "\"released_by\": 200,");
	HAS("pm-marker-window", "\"window_ns\": 12000000,");
	HAS("pm-marker-blocked", "\"blocked_ns\": 10500000,");
	/* 0.5 ms before any state, 1 ms waiter, 2 ms proxy, 1 ms asleep,
	 * 6 ms preempted by the hog, 1 ms owner running, then 0.5 ms the
	 * handed-to waiter is runnable while the owner still runs: 12 ms. */
	HAS("pm-marker-unknown", "\"unknown_ns\": 500000,");
	HAS("pm-marker-waiter-running", "\"waiter_running_ns\": 1000000,");
	HAS("pm-marker-proxy", "\"proxy_ns\": 2000000,");
	HAS("pm-marker-sleeping", "\"owner_sleeping_ns\": 1000000,");
	HAS("pm-marker-preempted", "\"owner_preempted_ns\": 6000000,");
	HAS("pm-marker-owner-running", "\"owner_running_ns\": 1000000,");
	HAS("pm-marker-handed-runnable", "\"waiter_runnable_ns\": 500000,");
	HAS("pm-marker-total", "\"total_ns\": 12000000");
	HAS("pm-marker-preempted-by", "\"preempted_by\": [\n    {\n      \"pid\": 300,");
	HAS("pm-marker-abort", "\"owner_sleeping\": 1");
	rc = run("lock.txt");
	HAS("pm-text-chain", "chain     waiter-100 -> [0xffff888001234500] -> owner owner-200 (depth 1)");
	HAS("pm-text-preempted-by", "preempted by hog-300 on CPU 0 6.000 ms");
	HAS("pm-text-marker", "marker    1.012000 CPU0 waiter-100: inversion break: pid=100 mutex=3");
	rc = run("< lock.txt -j -");
	HAS("pm-stdin", "\"total_ns\": 12000000");
}

static void test_longest(void)
{
	int rc;

	write_file("nomark.txt", lock_trace, NULL);
	rc = run("-j nomark.txt");
	CHECK("pm-longest-exit", rc == 0, "exit %d: %s", rc, out);
	HAS("pm-longest-marker", "\"marker\": null");
	/* From the first sched_proxy event (the waiter still curr) on. */
	HAS("pm-longest-window", "\"window_ns\": 10500000,");
	HAS("pm-longest-total", "\"total_ns\": 10500000");
	HAS("pm-longest-mutex-index", "\"mutex_index\": null");
	rc = run("-p 999 nomark.txt");
	CHECK("pm-pid-never-waited", rc == 1 && strstr(out, "pid 999 never waited"),
	      "exit %d: %s", rc, out);
}

static void test_retry(void)
{
	int rc;

	write_file("retry.txt", retry_trace, NULL);
	rc = run("-j retry.txt");
	CHECK("pm-retry-exit", rc == 0, "exit %d: %s", rc, out);
	HAS("pm-retry-window", "\"window_ns\": 6100000,");
	HAS("pm-retry-proxy", "\"proxy_ns\": 1900000,");
	HAS("pm-retry-parked", "\"owner_sleeping_ns\": 3000000,");
	HAS("pm-retry-woken", "\"owner_preempted_ns\": 500000,");
	/* 0.5 ms woken, not picked; 0.1 ms handed the mutex, not yet running */
	HAS("pm-retry-waiter-runnable", "\"waiter_runnable_ns\": 600000,");
	HAS("pm-retry-waiter", "\"waiter_running_ns\": 100000,");
	HAS("pm-retry-handoff", "\"released_by\": 200,");
}

static void test_latency(void)
{
	int rc;

	write_file("lat.txt", latency_trace, NULL);
	rc = run("-j lat.txt");
	CHECK("pm-latency-exit", rc == 0, "exit %d: %s", rc, out);
	HAS("pm-latency-kind", "\"kind\": \"wakeup_latency\"");
	HAS("pm-latency-pid", "\"pid\": 500,");
	HAS("pm-latency-window", "\"window_ns\": 300000,");
	HAS("pm-latency-proxy", "\"pid\": 200,\n      \"comm\": \"owner\",\n      \"donor\": 100,\n      \"ns\": 300000");
}

static void test_errors(void)
{
	static const char *const no_proxy[] = {
		"cpus=1",
		"          <idle>-0     [000]     1.000000: sched_switch:         prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=a next_pid=7 next_prio=120",
		NULL,
	};
	int rc;

	rc = run("missing.txt");
	CHECK("pm-missing-file", rc == 1 && strstr(out, "cannot open missing.txt"), "exit %d: %s", rc, out);
	write_file("empty.txt", NULL, "cpus=4");
	rc = run("empty.txt");
	CHECK("pm-empty-trace", rc == 1 && strstr(out, "empty trace"), "exit %d: %s", rc, out);
	write_file("noproxy.txt", no_proxy, NULL);
	rc = run("noproxy.txt");
	CHECK("pm-no-sched-proxy", rc == 1 && strstr(out, "no sched_proxy events") &&
	      strstr(out, "proxy_exec=disable"), "exit %d: %s", rc, out);
	rc = run("--bogus lock.txt");
	CHECK("pm-usage-option", rc == 2, "exit %d: %s", rc, out);
	rc = run("a.txt b.txt");
	CHECK("pm-usage-two-files", rc == 2, "exit %d: %s", rc, out);
	rc = run("-p x lock.txt");
	CHECK("pm-usage-bad-pid", rc == 2 && strstr(out, "invalid PID"), "exit %d: %s", rc, out);
}

int main(void)
{
	char self[PATH_MAX], cmd[PATH_MAX + 16];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n < 0) {
		perror("readlink");
		return 1;
	}
	self[n] = '\0';
	*strrchr(self, '/') = '\0';	/* build/tests/unit */
	snprintf(tool, sizeof(tool), "%s/../../tools/bin/pxpostmortem", self);
	if (access(tool, X_OK)) {
		printf("not ok pm-tool - no %s: make -C tools\n", tool);
		return 1;
	}
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_marker();
	test_longest();
	test_retry();
	test_latency();
	test_errors();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		printf("# could not remove %s\n", dir);
	return unit_exit();
}

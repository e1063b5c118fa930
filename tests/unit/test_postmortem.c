// SPDX-License-Identifier: GPL-2.0
/*
 * pxpostmortem on trace.dat files of known shape, written by pmdat.h from
 * hand-written lines in the shape of `trace-cmd report`: the break-marker
 * story (waiter, mutex, owner, the time split exactly), the longest wait
 * without a marker, a cyclictest latency, nanosecond timestamps, 3000 pids,
 * stdin, and the errors (missing file, a text report, events not recorded,
 * empty trace, no sched_proxy events, usage), the record command in
 * `inversion --help` is the one the refusal names, and traces cut short at
 * every offset of a small one and 700 of a 5-MB one (test_cut()).  The host has the
 * libtraceevent plugins that reformat sched_switch: the stories must not
 * depend on them.  Runs build/tools/bin/pxpostmortem, found next to this
 * binary's folder.
 *
 * test_postmortem --no-cut leaves the cut traces out (2 minutes under
 * load: every offset of one trace).
 *
 * test_postmortem --bench EVENTS PIDS [OLD_TOOL] writes a synthetic trace of
 * EVENTS events among PIDS tasks (and its report text) and times the tool
 * on it (OLD_TOOL: a pxpostmortem that reads the text, to compare).
 */
#include <limits.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pmdat.h"
#include "unit.h"

static char tool[PATH_MAX + 64], inv[PATH_MAX + 64], dir[] = "/tmp/pxpm-unit.XXXXXX";
static char out[65536], recipe[512];

static int bench(long events, int pids, const char *old);

#define PX_NS_LINES	20	/* at least the lines of lock_trace */

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

/* @lines (and @extra) as a trace.dat, leaving out the events of @leave_out. */
static void write_dat(const char *name, const char *const lines[], const char *extra,
		      unsigned int leave_out)
{
	struct pmdat *w = pmdat_new(leave_out);
	char path[PATH_MAX];
	int i;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	for (i = 0; lines && lines[i]; i++)
		pmdat_line(w, lines[i]);
	if (extra)
		pmdat_line(w, extra);
	if (pmdat_write(w, path)) {
		perror(path);
		exit(1);
	}
	pmdat_free(w);
}

static void write_text(const char *name, const char *const lines[])
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
	for (i = 0; lines[i]; i++)
		fprintf(f, "%s\n", lines[i]);
	fclose(f);
}

/* Run @sh in @dir ($PM is the tool), stdout+stderr into out; exit status. */
static int runsh(const char *sh)
{
	char cmd[PATH_MAX * 2];

	snprintf(cmd, sizeof(cmd), "cd %s && { %s; } 2>&1", dir, sh);
	return unit_popen_read(cmd, out, sizeof(out));
}

/* Run pxpostmortem ARGS (in @dir, stdin /dev/null unless ARGS say). */
static int run(const char *args)
{
	char sh[PATH_MAX];

	snprintf(sh, sizeof(sh), "\"$PM\" < /dev/null %s", args);
	return runsh(sh);
}

#define HAS(name, needle) CHECK(name, strstr(out, needle), "no '%s' in:\n%s", needle, out)

static void test_marker(void)
{
	int rc;

	write_dat("lock.dat", lock_trace, marker, PMDAT_ALL);
	rc = run("-j lock.dat");
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
	rc = run("lock.dat");
	HAS("pm-text-chain", "chain     waiter-100 -> [0xffff888001234500] -> owner owner-200 (depth 1)");
	HAS("pm-text-preempted-by", "preempted by hog-300 on CPU 0 6.000 ms");
	HAS("pm-text-marker", "marker    1.012000 CPU0 waiter-100: inversion break: pid=100 mutex=3");
	rc = run("< lock.dat -j -");
	HAS("pm-stdin", "\"total_ns\": 12000000");
}

static void test_longest(void)
{
	int rc;

	write_dat("nomark.dat", lock_trace, NULL, PMDAT_ALL);
	rc = run("-j nomark.dat");
	CHECK("pm-longest-exit", rc == 0, "exit %d: %s", rc, out);
	HAS("pm-longest-marker", "\"marker\": null");
	/* From the first sched_proxy event (the waiter still curr) on. */
	HAS("pm-longest-window", "\"window_ns\": 10500000,");
	HAS("pm-longest-total", "\"total_ns\": 10500000");
	HAS("pm-longest-mutex-index", "\"mutex_index\": null");
	rc = run("-p 999 nomark.dat");
	CHECK("pm-pid-never-waited", rc == 1 && strstr(out, "pid 999 never waited"),
	      "exit %d: %s", rc, out);
}

static void test_retry(void)
{
	int rc;

	write_dat("retry.dat", retry_trace, NULL, PMDAT_ALL);
	rc = run("-j retry.dat");
	CHECK("pm-retry-exit", rc == 0, "exit %d: %s", rc, out);
	HAS("pm-retry-window", "\"window_ns\": 6100000,");
	HAS("pm-retry-proxy", "\"proxy_ns\": 1900000,");
	HAS("pm-retry-parked", "\"owner_sleeping_ns\": 3000000,");
	/* woken onto CPU 0 while it runs <idle>: a wakeup delay, not preemption */
	HAS("pm-retry-woken", "\"owner_wakeup_ns\": 500000,");
	HAS("pm-retry-not-preempted", "\"owner_preempted_ns\": 0,");
	HAS("pm-retry-no-idle-preempter", "\"preempted_by\": [],");
	HAS("pm-retry-no-idle-instead", "\"instead_of_waiter\": [],");
	/* 0.5 ms woken, not picked; 0.1 ms handed the mutex, not yet running */
	HAS("pm-retry-waiter-runnable", "\"waiter_runnable_ns\": 600000,");
	HAS("pm-retry-waiter", "\"waiter_running_ns\": 100000,");
	HAS("pm-retry-handoff", "\"released_by\": 200,");
}

static void test_latency(void)
{
	int rc;

	write_dat("lat.dat", latency_trace, NULL, PMDAT_ALL);
	rc = run("-j lat.dat");
	CHECK("pm-latency-exit", rc == 0, "exit %d: %s", rc, out);
	HAS("pm-latency-kind", "\"kind\": \"wakeup_latency\"");
	HAS("pm-latency-pid", "\"pid\": 500,");
	HAS("pm-latency-window", "\"window_ns\": 300000,");
	HAS("pm-latency-proxy", "\"pid\": 200,\n      \"comm\": \"owner\",\n      \"donor\": 100,\n      \"ns\": 300000");
}

/*
 * Nanosecond timestamps: the pick 123 ns after the microsecond, the waiter
 * back 456 ns after it; `trace-cmd report` prints microseconds.
 */
static void test_ns(void)
{
	static char buf[4][512];
	const char *lines[PX_NS_LINES + 1];
	int i, rc;

	for (i = 0; lock_trace[i]; i++) {
		char *p;

		lines[i] = lock_trace[i];
		if (i != 4 && i != 5 && i != 6 && i != 15)
			continue;
		/* "1.001000:" -> "1.001000123:", "1.011500:" -> "1.011500456:" */
		p = buf[i == 15 ? 3 : i - 4];
		snprintf(p, 512, "%s", lock_trace[i]);
		p = strstr(p, "1.0");
		memmove(p + 11, p + 8, strlen(p + 8) + 1);
		memcpy(p + 8, i == 15 ? "456" : "123", 3);
		lines[i] = buf[i == 15 ? 3 : i - 4];
	}
	lines[i] = NULL;
	write_dat("ns.dat", lines, NULL, PMDAT_ALL);
	rc = run("-j ns.dat");
	CHECK("pm-ns-exit", rc == 0, "exit %d: %s", rc, out);
	/* from the pick (1.001000123) to the waiter's switch-in (1.011500456) */
	HAS("pm-ns-window", "\"window_ns\": 10500333,");
	HAS("pm-ns-start", "\"start_ns\": 1001000123,");
	HAS("pm-ns-total", "\"total_ns\": 10500333");
}

/*
 * 3000 other tasks switch on CPU 1 before the wait: the pid index grows
 * (and rehashes) and the story still names its tasks.
 */
static void test_many_pids(void)
{
	static char buf[3000][200];
	const char *lines[3000 + PX_NS_LINES + 1];
	int i, n = 0, rc;

	for (i = 0; i < 3000; i++) {
		snprintf(buf[i], sizeof(buf[i]), "t-%d [001] 0.%06d: sched_switch: prev_comm=t "
			 "prev_pid=%d prev_prio=120 prev_state=S ==> next_comm=t next_pid=%d "
			 "next_prio=120", 1000 + i, 100000 + i * 100, 1000 + i, 1001 + i);
		lines[n++] = buf[i];
	}
	for (i = 0; lock_trace[i]; i++)
		lines[n++] = lock_trace[i];
	lines[n] = NULL;
	write_dat("pids.dat", lines, marker, PMDAT_ALL);
	rc = run("pids.dat");
	CHECK("pm-pids-exit", rc == 0, "exit %d: %s", rc, out);
	HAS("pm-pids-chain", "chain     waiter-100 -> [0xffff888001234500] -> owner owner-200 (depth 1)");
	HAS("pm-pids-preempted-by", "preempted by hog-300 on CPU 0 6.000 ms");
}

/*
 * The story names things the same way everywhere: every task comm-pid
 * (no bare pid in the timeline), a comm's control bytes escaped (\xNN,
 * never raw to the terminal), the lock by its kernel symbol when the
 * trace's kallsyms has one ("lab+0x40", JSON mutex_sym), a heap lock
 * by its address only.
 */
static void test_names(void)
{
	static char buf[PX_NS_LINES][512];
	const char *lines[PX_NS_LINES + 1];
	struct pmdat *w = pmdat_new(PMDAT_ALL);
	char path[PATH_MAX], *p;
	int i, rc;

	for (i = 0; lock_trace[i]; i++) {
		snprintf(buf[i], sizeof(buf[i]), "%s", lock_trace[i]);
		/* the lab's static mutex; the owner named with an escape sequence */
		while ((p = strstr(buf[i], "0xffff888001234500")))
			memcpy(p, "0xffffffff820be840", 18);
		while ((p = strstr(buf[i], "comm=owner "))) {
			memmove(p + 5 + 8, p + 5 + 5, strlen(p + 5 + 5) + 1);
			memcpy(p + 5, "o\x1b[2Jwnr", 8);
		}
		if ((p = strstr(buf[i], " owner-200 "))) {
			memmove(p + 1 + 8, p + 1 + 5, strlen(p + 1 + 5) + 1);
			memcpy(p + 1, "o\x1b[2Jwnr", 8);
		}
		lines[i] = buf[i];
	}
	lines[i] = NULL;
	w->kallsyms = "ffffffff81000000 T _text\nffffffff820be800 d lab\t[proxylab]\n"
		      "ffffffff820bec00 d lab_rwsems\nffffffff83000000 B _end\n";
	for (i = 0; lines[i]; i++)
		pmdat_line(w, lines[i]);
	snprintf(path, sizeof(path), "%s/names.dat", dir);
	if (pmdat_write(w, path))
		exit(1);
	pmdat_free(w);
	rc = run("names.dat");
	CHECK("pm-names-exit", rc == 0, "exit %d: %s", rc, out);
	HAS("pm-names-lock-symbol", "mutex     lab+0x40 0xffffffff820be840 (from");
	HAS("pm-names-chain", "chain     waiter-100 -> [lab+0x40 0xffffffff820be840] -> owner o\\x1b[2Jwnr-200");
	HAS("pm-names-handoff", "handoff: o\\x1b[2Jwnr-200 hands lab+0x40 0xffffffff820be840 to waiter-100");
	HAS("pm-names-abort", "abort: donor waiter-100, owner o\\x1b[2Jwnr-200 on CPU 0");
	HAS("pm-names-pswitch", "(was o\\x1b[2Jwnr-200 on waiter-100's)");
	CHECK("pm-names-no-raw-escape", !strchr(out, '\x1b'), "a raw ESC in:\n%s", out);
	rc = run("-j names.dat");
	HAS("pm-names-json-sym", "\"mutex_sym\": \"lab+0x40\",");
	HAS("pm-names-json-comm", "\"comm\": \"o\\u001b[2Jwnr\"");
	rc = run("-j lock.dat");
	HAS("pm-names-heap-no-sym", "\"mutex_sym\": null,");
}

static void test_stdin(void)
{
	int rc;

	rc = runsh("cat lock.dat | \"$PM\" -j -");
	CHECK("pm-stdin-pipe", rc == 0 && strstr(out, "\"total_ns\": 12000000"), "exit %d: %s", rc, out);
	/* ./trace.dat by default and -i FILE, as trace-cmd report */
	rc = runsh("mkdir -p cwd && cp lock.dat cwd/trace.dat && cd cwd && \"$PM\" -j < /dev/null");
	CHECK("pm-default-trace-dat", rc == 0 && strstr(out, "\"total_ns\": 12000000"),
	      "exit %d: %s", rc, out);
	rc = run("-j -i lock.dat");
	CHECK("pm-input-option", rc == 0 && strstr(out, "\"total_ns\": 12000000"), "exit %d: %s", rc, out);
	rc = run("");
	CHECK("pm-no-trace-dat", rc == 1 && strstr(out, "cannot open trace.dat"), "exit %d: %s", rc, out);
}

static void test_errors(void)
{
	static const char *const no_proxy[] = {
		"          <idle>-0     [000]     1.000000: sched_switch:         prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=a next_pid=7 next_prio=120",
		NULL,
	};
	/* what `trace-cmd report` prints with the sched_switch plugin loaded */
	static const char *const plugin_text[] = {
		"           owner-200   [000]     1.000000: sched_switch:         owner:200 [120] R ==> waiter:100 [19]",
		"          waiter-100   [000]     1.001000: sched_proxy_pick:     donor_comm=waiter donor_pid=100 owner_comm=owner owner_pid=200 lock=0xffff888001234500 depth=1 cpu=0",
		NULL,
	};
	const char *p, *e;
	int rc;

	rc = run("missing.dat");
	CHECK("pm-missing-file", rc == 1 && strstr(out, "cannot open missing.dat"), "exit %d: %s", rc, out);
	write_text("report.txt", plugin_text);
	rc = run("report.txt");
	CHECK("pm-text-refused", rc == 1 && strstr(out, "pxpostmortem: report.txt: not a trace.dat"),
	      "exit %d: %s", rc, out);
	write_dat("empty.dat", NULL, NULL, PMDAT_ALL);
	rc = run("empty.dat");
	CHECK("pm-empty-trace", rc == 1 && strstr(out, "empty trace"), "exit %d: %s", rc, out);
	write_dat("noproxy.dat", no_proxy, NULL, PMDAT_ALL);
	rc = run("noproxy.dat");
	CHECK("pm-no-sched-proxy", rc == 1 && strstr(out, "no sched_proxy events") &&
	      strstr(out, "proxy_exec=disable"), "exit %d: %s", rc, out);
	write_dat("noswitch.dat", lock_trace, marker, PMDAT_NO_SWITCH);
	rc = run("noswitch.dat");
	CHECK("pm-needs-sched-switch", rc == 1 &&
	      strstr(out, "pxpostmortem: noswitch.dat: recorded without sched:sched_switch,") &&
	      strstr(out, "trace-cmd record -e sched_proxy -e sched:sched_switch -e sched:sched_wakeup "
		     "-e sched:sched_migrate_task CMD"), "exit %d: %s", rc, out);
	/* The record command as the refusal names it, for test_recipe(). */
	p = strstr(out, "trace-cmd record ");
	e = p ? strstr(p, " CMD") : NULL;
	if (e && e - p < (long)sizeof(recipe))
		snprintf(recipe, sizeof(recipe), "%.*s", (int)(e - p), p);
	write_dat("nowake.dat", lock_trace, marker, PMDAT_NO_WAKEUP | PMDAT_NO_MIGRATE);
	rc = run("nowake.dat");
	CHECK("pm-needs-wakeup-migrate", rc == 1 &&
	      strstr(out, "without sched:sched_wakeup, sched:sched_migrate_task,"), "exit %d: %s", rc, out);
	write_dat("noproxyev.dat", lock_trace, marker, PMDAT_NO_PROXY);
	rc = run("noproxyev.dat");
	CHECK("pm-needs-sched-proxy", rc == 1 && strstr(out, "without sched_proxy:*") &&
	      strstr(out, "CONFIG_PROXY_EXEC"), "exit %d: %s", rc, out);
	rc = run("--bogus lock.dat");
	CHECK("pm-usage-option", rc == 64, "exit %d: %s", rc, out);
	rc = run("a.dat b.dat");
	CHECK("pm-usage-two-files", rc == 64, "exit %d: %s", rc, out);
	rc = run("-p x lock.dat");
	CHECK("pm-usage-bad-pid", rc == 64 && strstr(out, "invalid TID"), "exit %d: %s", rc, out);
}

/* ------------------------------------------------------- cut-short traces */

struct cut_run {
	pid_t	pid;
	size_t	len;
	int	slot;
};

struct cut_result {
	int	bad, told, refused;	/* bad: a signal, a hang or another status */
	char	first_bad[5][600];
	int	nbad_shown;
	size_t	told_min;		/* the shortest cut that still told a story */
};

/* The whole file @path into a buffer (@len). */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET))
		exit(1);
	buf = malloc((size_t)n + 1);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n)
		exit(1);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static void cut_path(char *buf, size_t len, int slot, const char *what)
{
	snprintf(buf, len, "%s/cut%d.%s", dir, slot, what);
}

/* pxpostmortem -j on the first @len bytes of @data, in the background. */
static pid_t cut_start(const char *data, size_t len, int slot)
{
	char dat[PATH_MAX], o[PATH_MAX], e[PATH_MAX];
	FILE *f;
	pid_t pid;

	cut_path(dat, sizeof(dat), slot, "dat");
	cut_path(o, sizeof(o), slot, "out");
	cut_path(e, sizeof(e), slot, "err");
	f = fopen(dat, "w");
	if (!f || fwrite(data, 1, len, f) != len || fclose(f))
		exit(1);
	fflush(stdout);		/* else the child's freopen() writes it again */
	pid = fork();
	if (pid < 0)
		exit(1);
	if (!pid) {
		if (!freopen("/dev/null", "r", stdin) || !freopen(o, "w", stdout) ||
		    !freopen(e, "w", stderr))
			_exit(127);
		alarm(20);		/* a hang ends in SIGALRM: a failure */
		execl(tool, "pxpostmortem", "-j", dat, (char *)NULL);
		_exit(127);
	}
	return pid;
}

/*
 * The verdict on one cut: exit 0 with a story on stdout and the cut-short
 * warning, or exit 1 with one clear message on stderr, nothing on stdout;
 * never a signal, another status or a line of libtracecmd's own.
 */
static void cut_check(struct cut_result *r, const struct cut_run *c, int st, size_t full)
{
	char o[PATH_MAX], e[PATH_MAX], why[128] = "";
	size_t olen, elen;
	char *out_s, *err_s;

	cut_path(o, sizeof(o), c->slot, "out");
	cut_path(e, sizeof(e), c->slot, "err");
	out_s = slurp(o, &olen);
	err_s = slurp(e, &elen);
	out_s[olen] = err_s[elen] = '\0';
	if (WIFSIGNALED(st))
		snprintf(why, sizeof(why), "killed by signal %d", WTERMSIG(st));
	else if (WEXITSTATUS(st) == 0 && !strstr(out_s, "\"total_ns\""))
		snprintf(why, sizeof(why), "exit 0 without a story");
	else if (WEXITSTATUS(st) == 0 && c->len < full && !strstr(err_s, "is cut short"))
		snprintf(why, sizeof(why), "exit 0 without the cut-short warning");
	else if (WEXITSTATUS(st) == 1 && (olen || strncmp(err_s, "pxpostmortem: ", 14) ||
					  (!strstr(err_s, "cut0.dat") && !strstr(err_s, "cut1.dat"))))
		snprintf(why, sizeof(why), "exit 1 without one clear message naming the file");
	else if (WEXITSTATUS(st) != 0 && WEXITSTATUS(st) != 1)
		snprintf(why, sizeof(why), "exit status %d", WEXITSTATUS(st));
	if (why[0]) {
		if (r->nbad_shown < 5)
			snprintf(r->first_bad[r->nbad_shown++], sizeof(r->first_bad[0]),
				 "cut at %zu: %s: %.400s%.100s", c->len, why, err_s, out_s);
		r->bad++;
	} else if (WEXITSTATUS(st) == 0) {
		r->told++;
		if (!r->told_min || c->len < r->told_min)
			r->told_min = c->len;
	} else {
		r->refused++;
	}
	free(out_s);
	free(err_s);
}

/* The tool on @data cut at each of @lens[0..@n), two at a time. */
static void cut_sweep(struct cut_result *r, const char *data, size_t full,
		      const size_t *lens, size_t n)
{
	struct cut_run run[2] = { { 0, 0, 0 }, { 0, 0, 1 } };
	size_t next = 0;
	int busy = 0, st, k;

	memset(r, 0, sizeof(*r));
	while (next < n || busy) {
		for (k = 0; k < 2 && next < n; k++)
			if (!run[k].pid) {
				run[k].len = lens[next++];
				run[k].pid = cut_start(data, run[k].len, k);
				busy++;
			}
		pid_t pid = wait(&st);

		for (k = 0; k < 2; k++)
			if (run[k].pid == pid) {
				cut_check(r, &run[k], st, full);
				run[k].pid = 0;
				busy--;
			}
	}
}

static void cut_report(const char *name, const struct cut_result *r, size_t n)
{
	CHECK(name, !r->bad, "%d of %zu cuts wrong, e.g.\n  %s\n  %s\n  %s", r->bad, n,
	      r->first_bad[0], r->nbad_shown > 1 ? r->first_bad[1] : "",
	      r->nbad_shown > 2 ? r->first_bad[2] : "");
	printf("# %s: %zu cuts: %d told the story of what they hold, %d refused\n", name, n,
	       r->told, r->refused);
}

/*
 * A trace.dat cut short at every offset (the 20480 bytes of lock.dat: its
 * headers, then one page of events per CPU), and at sampled offsets of a
 * 5 MB one: no crash, no hang, a clear message and exit 1, or the story
 * of the whole pages before the cut with a warning and exit 0.  Every cut
 * that keeps all of CPU 0's page (16384 on) tells lock.dat's story.
 */
static void test_cut(void)
{
	struct cut_result r;
	size_t len, i, n = 0, *lens;
	char path[PATH_MAX], *data;
	unsigned int seed = 7;
	int rc;

	snprintf(path, sizeof(path), "%s/lock.dat", dir);
	data = slurp(path, &len);
	lens = calloc(len + 1024, sizeof(*lens));
	if (!lens)
		exit(1);
	for (i = 0; i < len; i++)
		lens[i] = i;
	cut_sweep(&r, data, len, lens, len);
	cut_report("pm-cut-every-offset", &r, len);
	CHECK("pm-cut-whole-pages-tell", r.told_min && r.told_min <= 16384 && r.told >= 4096,
	      "the shortest cut telling a story: %zu bytes, %d in all", r.told_min, r.told);
	write_dat("cut.dat", lock_trace, marker, PMDAT_ALL);
	/* the same story as uncut, from the pages before the cut */
	rc = runsh("head -c 18000 cut.dat > cut-text.dat && \"$PM\" cut-text.dat");
	CHECK("pm-cut-story", rc == 0 && strstr(out, "is cut short (18000 bytes") &&
	      strstr(out, "chain     waiter-100 -> [0xffff888001234500] -> owner owner-200"),
	      "exit %d: %s", rc, out);
	rc = runsh("head -c 18000 cut.dat | \"$PM\" -j - | grep '\"truncated\": true'");
	CHECK("pm-cut-stdin-json", rc == 0, "exit %d: %s", rc, out);
	free(data);

	/* 5 MB: 100000 events on 4 CPUs; cuts at random and around pages */
	if (bench(100000, 500, NULL))
		exit(1);
	snprintf(path, sizeof(path), "%s/bench.dat", dir);
	data = slurp(path, &len);
	for (i = 0; i < 400; i++)
		lens[n++] = (size_t)rand_r(&seed) % len;
	for (i = 1; i <= 100; i++) {
		size_t pg = (size_t)rand_r(&seed) % (len / 4096) * 4096;

		lens[n++] = pg;
		lens[n++] = pg + 1;
		lens[n++] = pg ? pg - 1 : 0;
	}
	cut_sweep(&r, data, len, lens, n);
	cut_report("pm-cut-large-sampled", &r, n);
	free(data);
	free(lens);
}

/*
 * `inversion --help` tells how to record a trace for pxpostmortem: the
 * record command there (lines joined) must have every event the refusal
 * asks for, in the refusal's words.
 */
static void test_recipe(void)
{
	char sh[sizeof(inv) + 32];
	int rc;

	if (access(inv, X_OK)) {
		printf("skip pm-recipe-inversion-help - no %s: make -C tools\n", inv);
		return;
	}
	snprintf(sh, sizeof(sh), "\"%s\" --help | tr -s ' \\n' '  '", inv);
	rc = runsh(sh);
	CHECK("pm-recipe-inversion-help", rc == 0 && recipe[0] && strstr(out, recipe),
	      "exit %d, no '%s' in inversion --help:\n%s", rc, recipe, out);
}

/*
 * The benchmark: EVENTS events among PIDS tasks on 4 CPUs, switches and
 * wakeups with a proxy wait every 50 (pick, proxy switch, handoff), as
 * bench.dat and bench.txt (its report text) in @dir; the time of the tool
 * on bench.dat and, when given, of @old on bench.txt.
 */
static int bench(long events, int pids, const char *old)
{
	struct pmdat *w = pmdat_new(PMDAT_ALL);
	char line[512], path[PATH_MAX];
	unsigned int seed = 1;
	FILE *txt;
	long i = 0;
	int cur[4] = { 1000, 1001, 1002, 1003 };

	snprintf(path, sizeof(path), "%s/bench.txt", dir);
	txt = fopen(path, "w");
	if (!txt)
		return 1;
#define EMIT(...) do {								\
		snprintf(line, sizeof(line), __VA_ARGS__);			\
		pmdat_line(w, line);						\
		fprintf(txt, "%s\n", line);					\
		i++;								\
	} while (0)
	while (i < events) {
		uint64_t ts = 1000000000ULL + (uint64_t)i * 1000;
		int c = (int)(i % 4), a = 1000 + (int)(rand_r(&seed) % (unsigned int)pids), b = cur[c];
		unsigned int sec = (unsigned int)(ts / 1000000000ULL), us = (unsigned int)(ts % 1000000000ULL / 1000);

		if (a == b)
			a = a + 1 < 1000 + pids ? a + 1 : 1000;
		if (i % 50 == 0) {
			EMIT("t%d-%d [%03d] %u.%06u: sched_proxy_pick: donor_comm=t%d donor_pid=%d "
			     "owner_comm=t%d owner_pid=%d lock=0xffff888001234500 depth=1 cpu=%d",
			     b, b, c, sec, us, b, b, a, a, c);
			EMIT("t%d-%d [%03d] %u.%06u: sched_proxy_switch: prev_pid=%d prev_donor_pid=%d "
			     "next_comm=t%d next_pid=%d next_donor_comm=t%d next_donor_pid=%d "
			     "next_donor_prio=120", b, b, c, sec, us, b, b, a, a, b, b);
			EMIT("t%d-%d [%03d] %u.%06u: sched_switch: prev_comm=t%d prev_pid=%d prev_prio=120 "
			     "prev_state=D ==> next_comm=t%d next_pid=%d next_prio=120",
			     b, b, c, sec, us, b, b, a, a);
			EMIT("t%d-%d [%03d] %u.%06u: sched_proxy_handoff: lock=0xffff888001234500 "
			     "owner_pid=%d to_comm=t%d to_pid=%d kind=top_waiter",
			     a, a, c, sec, us + 1, a, b, b);
		}
		EMIT("t%d-%d [%03d] %u.%06u: sched_wakeup: comm=t%d pid=%d prio=120 target_cpu=%03d",
		     cur[c], cur[c], c, sec, us + 2, a, a, c);
		EMIT("t%d-%d [%03d] %u.%06u: sched_switch: prev_comm=t%d prev_pid=%d prev_prio=120 "
		     "prev_state=R+ ==> next_comm=t%d next_pid=%d next_prio=120",
		     cur[c], cur[c], c, sec, us + 3, cur[c], cur[c], b, b);
		cur[c] = b;
	}
#undef EMIT
	fclose(txt);
	snprintf(path, sizeof(path), "%s/bench.dat", dir);
	if (pmdat_write(w, path))
		return 1;
	pmdat_free(w);
	printf("# %ld events, %d pids: %s/bench.dat, bench.txt\n", i, pids, dir);
	for (int k = 0; k < (old ? 2 : 1); k++) {
		struct timespec t0, t1;
		char cmd[PATH_MAX * 3];

		snprintf(cmd, sizeof(cmd), "cd %s && %s -e 0 %s > /dev/null", dir,
			 k ? old : tool, k ? "bench.txt" : "bench.dat");
		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (system(cmd))
			printf("# %s failed\n", cmd);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		printf("%s: %.2f s\n", k ? "old (report text)" : "pxpostmortem (trace.dat)",
		       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (unit_tool_path(tool, sizeof(tool), "pxpostmortem") ||
	    unit_tool_path(inv, sizeof(inv), "inversion")) {
		perror("readlink");
		return 1;
	}
	if (access(tool, X_OK)) {
		printf("not ok pm-tool - no %s: make -C tools\n", tool);
		return 1;
	}
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	setenv("PM", tool, 1);
	if (argc >= 4 && !strcmp(argv[1], "--bench"))
		return bench(atol(argv[2]), atoi(argv[3]), argc > 4 ? argv[4] : NULL);
	test_marker();
	test_longest();
	test_retry();
	test_latency();
	test_ns();
	test_many_pids();
	test_stdin();
	test_names();
	test_errors();
	test_recipe();
	if (argc < 2 || strcmp(argv[1], "--no-cut"))
		test_cut();
	unit_rm_rf(dir);
	return unit_exit();
}

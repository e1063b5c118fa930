// SPDX-License-Identifier: GPL-2.0
/*
 * inversion: the roles of the lock scenarios, each a forked process (see
 * inversion.h for the handshake): the waiter measures, holder k holds
 * m(k) (and waits for m(k+1) unless it is the tail, which sleeps and
 * burns), the hogs take the owner's CPU for one burst per iteration (cfs:
 * spin for the whole run).  run_lock_scenario() forks them all.
 */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "inversion.h"

/* Until @pid sleeps in LOCK (TASK_KILLABLE shows as D); a step. */
static bool wait_blocked(pid_t pid)
{
	const struct timespec nap = { 0, 20000 };

	while (px_task_state(pid) != 'D') {
		if (sh->failed)
			return false;
		nanosleep(&nap, NULL);
	}
	return true;
}

/*
 * px_pin_self(), waiting up to 2 s while @cpu is offline (EINVAL): CPU
 * hotplug tests take the CPUs of a running scenario away and back.
 */
static int pin_self_wait_online(int cpu)
{
	int i, ret = 0;

	for (i = 0; i < 2000; i++) {
		ret = px_pin_self(cpu);
		if (!ret || errno != EINVAL)
			break;
		usleep(1000);
	}
	return ret;
}

/*
 * Pin to @cpu, then allow @allowed: the start position of an iteration.
 * A task made SCHED_DEADLINE from outside (a test changes the policy of a
 * running scenario's tasks) may not narrow its affinity below its root
 * domain (EBUSY): it then starts where it is.
 */
static void rehome(int cpu, const cpu_set_t *allowed, const char *who)
{
	if (!pin_self_wait_online(cpu) && !px_pin_self_set(allowed))
		return;
	if (errno != EBUSY)
		child_fail("%s: cannot move back to CPU %d: %s", who, cpu, strerror(errno));
}

/*
 * xcpu: a waiter that got the mutex handed to it on the owner's CPU stays
 * there (nothing pushes a running FIFO task away), and every later
 * iteration would then be a same-CPU one.  Send it home to the first CPU,
 * outside the measured window, so that each iteration starts cross-CPU.
 * It is called after the waiter's last sleep before it takes the lock:
 * a wakeup may place it on either allowed CPU (on the owner's, when a
 * higher-priority task runs on the first), and so may the RT balancer
 * push it there while it waits to run.
 */
static void rehome_waiter(void)
{
	cpu_set_t allowed;

	if (env.pinned)
		return;		/* pinned by set_waiter_policy(), stays there */
	if (env.sc->id == SC_XCPU) {
		CPU_ZERO(&allowed);
		CPU_SET(env.cpu[0], &allowed);
		CPU_SET(env.cpu[1], &allowed);
	} else if (env.spread) {
		allowed = env.cpus;
	} else {
		return;
	}
	rehome(env.cpu[0], &allowed, "waiter");
}

static void set_waiter_policy(void)
{
	int ret;

	switch (env.sc->id) {
	case SC_CFS:
		pin_or_fail(env.cpu[0], "waiter");
		other_or_fail("waiter");
		break;
	case SC_CGWEIGHT:
		pin_or_fail(env.cpu[0], "waiter");
		other_or_fail("waiter");
		if (px_cgroup_attach_pid(env.waiter_cgroup, getpid()))
			child_fail("waiter: cannot join cgroup %s: %s", env.waiter_cgroup,
				   strerror(errno));
		break;
	case SC_DL:
		/* DEADLINE tasks must be allowed on their whole root domain. */
		ret = px_set_deadline(env.dl_runtime_us * NSEC_PER_USEC,
				      env.dl_deadline_us * NSEC_PER_USEC,
				      env.dl_period_us * NSEC_PER_USEC);
		if (ret)
			child_fail("waiter: SCHED_DEADLINE refused: %s%s", strerror(-ret),
				   ret == -EBUSY ? " (admission control: not enough bandwidth)" :
				   ret == -EPERM ? " (needs root, and affinity to the whole root domain)" : "");
		break;
	default:
		pin_or_fail(env.cpu[0], "waiter");
		fifo_or_fail(env.waiter_prio, "waiter");
		/*
		 * xcpu, chain --spread: allow the owners' CPUs too, as a real
		 * waiter would be, unless --pinned.  (Proxy execution moves a
		 * blocked waiter to its owner's CPU regardless of affinity,
		 * since it does not run there; --pinned shows that.)
		 */
		rehome_waiter();
		break;
	}
}

/* The n-th CPU of --cpus, wrapping around. */
int nth_cpu(int n)
{
	int cpu, i = 0;

	n %= CPU_COUNT(&env.cpus);
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &env.cpus) && i++ == n)
			return cpu;
	return env.cpu[0];
}

/* Owner k's CPU; the (last) owner's for owner_cpu(), where hogs run. */
static int holder_cpu(int k)
{
	if (env.spread)
		return nth_cpu(k + 1);
	return env.sc->id == SC_XCPU ? env.cpu[1] : env.cpu[0];
}

int owner_cpu(void)
{
	return holder_cpu(env.depth - 1);
}

bool burst_hogs(void)
{
	return !is_fair_scenario();
}

/*
 * The owner's CPU share while the waiter waits.  The waiter reads the
 * tail's CPU clock (its process's: one thread) and the time just before
 * LOCK; the tail reads its own just before UNLOCK.  Both clocks include
 * the time the owner ran as a proxy on a donor's behalf (the series
 * charges it to the running task), and a boost lets it run as itself.
 */
static clockid_t tail_clock;
static bool tail_clock_ok;

static void share_begin(void)
{
	struct timespec ts;

	sh->share_valid = false;
	if (!tail_clock_ok || clock_gettime(tail_clock, &ts))
		return;
	sh->share_cpu0 = (uint64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
	sh->share_t0 = px_now_ns();
	sh->share_valid = true;
}

static void share_end(void)
{
	uint64_t cpu, t = px_now_ns();
	struct timespec ts;

	if (!sh->share_valid || sh->nshares >= INV_MAX_SHARES ||
	    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts))
		return;
	cpu = (uint64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
	if (t <= sh->share_t0 || cpu < sh->share_cpu0)
		return;
	cpu -= sh->share_cpu0;
	t -= sh->share_t0;
	/* Clock granularity can put cpu a hair over t: a share is at most 1. */
	sh->share[sh->nshares++] = cpu >= t ? 1000000 : (uint32_t)(cpu * 1000000 / t);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

void owner_share_summary(double *p50, double *min, double *max, double *mean)
{
	uint64_t i, n = sh->nshares, sum = 0;

	*p50 = *min = *max = *mean = 0;
	if (!n)
		return;
	qsort(sh->share, n, sizeof(sh->share[0]), cmp_u32);
	for (i = 0; i < n; i++)
		sum += sh->share[i];
	*p50 = sh->share[px_nearest_rank(n, 50) - 1] / 1e6;	/* p in percent */
	*min = sh->share[0] / 1e6;
	*max = sh->share[n - 1] / 1e6;
	*mean = (double)sum / n / 1e6;
}

static bool iteration_wanted(uint64_t it, uint64_t end)
{
	if (sh->stop)
		return false;
	/* -d with -n: whichever comes first (short runs of fast scenarios). */
	if (env.duration_ns)
		return px_now_ns() < end && it < (env.iter_set ? env.iterations : INV_MAX_SAMPLES);
	return it < env.iterations;
}

static void run_waiter(void)
{
	int fd, k, h, m0 = env.first_mutex;
	uint64_t it, ns, end;

	set_waiter_policy();
	fd = lab_open("waiter");
	tail_clock_ok = !clock_getcpuclockid(sh->holder_pid[env.depth - 1], &tail_clock);
	sh->waiter_pid = getpid();
	post(&sh->ready);
	if (!wait_sem(&sh->go))
		goto out;
	end = px_now_ns() + env.duration_ns;
	for (it = 0; iteration_wanted(it, end); it++) {
		for (k = 0; k < env.depth; k++)
			post(&sh->start[k]);
		for (k = 0; k < env.depth; k++)
			if (!wait_step(&sh->held[k]))
				goto out;
		for (k = 0; k + 1 < env.depth; k++)
			post(&sh->chain_go[k]);
		for (k = 0; k + 1 < env.depth; k++)
			if (!wait_blocked(sh->holder_pid[k]))
				goto out;
		/* After the last sleep before the lock: see rehome_waiter(). */
		rehome_waiter();
		sh->iter_done = 0;
		for (h = 0; burst_hogs() && h < env.hogs; h++)
			post(&sh->hog_go[h]);
		share_begin();
		ns = lab_lock(fd, m0, lab_type(m0), "waiter");
		lab_check_break(m0, ns);
		sh->iter_done = 1;
		lab_unlock(fd, m0, lab_type(m0), "waiter");
		sh->samples[sh->nsamples++] = ns;
		sh->waiter_acq++;
		if (env.verbose) {
			fprintf(out, "iteration %" PRIu64 ": wait %" PRIu64 " ns\n", it, ns);
			fflush(out);
		}
		for (k = 0; k < env.depth; k++)
			if (!wait_step(&sh->fin[k]))
				goto out;
		for (h = 0; burst_hogs() && h < env.hogs; h++)
			if (!wait_step(&sh->hog_fin))
				goto out;
		sh->iterations++;
	}
out:
	sh->stop = 1;
	sh->waiter_gone = 1;
	close(fd);
	child_exit();
}

/*
 * The tail starts its critical section only once the waiter sleeps in
 * LOCK, spinning (not sleeping) until then: an owner that slept here
 * would turn every scenario into a sleeping-owner one.  It polls from
 * user space, so it needs the CPU to notice: that is the inversion.
 *
 * The owners of the chain before it must sleep meanwhile.  A task that
 * blocks on a mutex whose owner is itself a waiter does not spin on it
 * (the kernel's mutex_spin_on_owner()), so the owners of the chain sleep
 * and nothing keeps the waiter from blocking.
 */
static bool wait_waiter_blocked(bool boosted)
{
	while (px_task_state(sh->waiter_pid) != 'D') {
		if (sh->failed)
			return false;
		/*
		 * An rt_mutex owner is boosted to the waiter's priority as
		 * soon as the waiter is queued on the lock, before it
		 * sleeps: if the waiter is then preempted or woken (its
		 * wait loop allows spurious wakeups), it is runnable behind
		 * this loop at its own priority, and a SCHED_FIFO task does
		 * not preempt one of equal priority: both would wait for
		 * good.  Let it run and go to sleep.
		 */
		if (boosted)
			sched_yield();
	}
	return true;
}

/*
 * chain --spread: the blocked owners start each iteration on their own CPU
 * but, like the waiter, may run on every CPU of --cpus (unless --pinned),
 * as real tasks would; proxy execution gathers the chain on the last
 * owner's CPU either way.  The last owner stays pinned.
 */
static void rehome_holder(int k, const char *who)
{
	if (!env.spread || env.pinned || k == env.depth - 1)
		return;
	rehome(holder_cpu(k), &env.cpus, who);
}

static void run_holder(int k)
{
	char who[32];
	int fd, m = env.first_mutex + k;
	bool tail = k == env.depth - 1;

	snprintf(who, sizeof(who), "owner %d", k);
	pin_or_fail(holder_cpu(k), who);
	if (env.sc->id == SC_MIXED && tail) {
		if (px_set_other(env.tail_nice))
			child_fail("%s: cannot set SCHED_OTHER nice %d: %s", who, env.tail_nice,
				   strerror(errno));
	} else {
		other_or_fail(who);
	}
	fd = lab_open(who);
	sh->holder_pid[k] = getpid();
	post(&sh->ready);
	/*
	 * Join the starved group only once ready: at cpu.weight 1 on a busy
	 * CPU, getting here could take longer than the parent waits.
	 */
	if (is_fair_scenario() && px_cgroup_attach_pid(env.cgroup, getpid()))
		child_fail("%s: cannot join cgroup %s: %s", who, env.cgroup, strerror(errno));
	while (wait_next(&sh->start[k])) {
		rehome_holder(k, who);
		lab_hold(fd, m, lab_type(m), who);
		__atomic_fetch_add(&sh->holder_acq[k], 1, __ATOMIC_RELAXED);
		post(&sh->held[k]);
		if (!tail) {
			if (!wait_step(&sh->chain_go[k]))
				break;
			lab_lock(fd, m + 1, lab_type(m + 1), who);
			__atomic_fetch_add(&sh->chain_acq[k], 1, __ATOMIC_RELAXED);
			lab_unlock(fd, m + 1, lab_type(m + 1), who);
		} else {
			if (!wait_waiter_blocked(lab_type(m) == LK_RTMUTEX))
				break;
			lab_usecs(fd, PROXYLAB_IOC_SLEEP, env.sleep_us, who);
			lab_usecs(fd, PROXYLAB_IOC_BURN, env.burn_us, who);
			share_end();
		}
		lab_unlock(fd, m, lab_type(m), who);
		post(&sh->fin[k]);
	}
	close(fd);
	child_exit();
}

/* Spin until the waiter got its mutex, the cap, or a stop. */
static void hog_burst(uint64_t cap_ns)
{
	uint64_t start = px_now_ns(), now = start;

	while (!sh->iter_done && !sh->stop && now - start < cap_ns)
		now = px_now_ns();
	__atomic_fetch_add(&sh->hog_bursts, 1, __ATOMIC_RELAXED);
	if (now - start >= cap_ns)
		__atomic_fetch_add(&sh->hog_capped, 1, __ATOMIC_RELAXED);
}

static void run_hog(int h)
{
	char who[32];

	snprintf(who, sizeof(who), "hog %d", h);
	pin_or_fail(owner_cpu(), who);
	if (burst_hogs())
		fifo_or_fail(env.hog_prio, who);
	else
		other_or_fail(who);
	post(&sh->ready);
	if (!burst_hogs()) {
		/* cfs spinners: load the CPU for the whole run. */
		while (!sh->stop)
			;
		child_exit();
	}
	while (wait_next(&sh->hog_go[h])) {
		hog_burst(env.hog_cap_us * NSEC_PER_USEC);
		post(&sh->hog_fin);
	}
	child_exit();
}

/* mixed: a SCHED_OTHER nice-0 spinner on the owners' CPU, all run long. */
static void run_spinner(int i)
{
	char who[32];

	snprintf(who, sizeof(who), "spinner %d", i);
	pin_or_fail(owner_cpu(), who);
	other_or_fail(who);
	post(&sh->ready);
	while (!sh->stop)
		;
	child_exit();
}

static void waiter_entry(int unused)
{
	(void)unused;
	run_waiter();
}

/*
 * Holders, hogs and the waiter; returns the supervision result.  The
 * owners open the lab one after the other, the waiter after them: open()
 * runs under misc_open()'s misc_mtx, and two children opening at once
 * would add a mutex wait of their own to those an observer counts.
 */
bool run_lock_scenario(void)
{
	int k, n = 0;
	bool ready = true;

	for (k = 0; k < env.depth && ready; k++) {
		spawn("owner", k, run_holder);
		ready = wait_ready(1);
	}
	for (k = 0; k < env.hogs && ready; k++, n++)
		spawn("hog", k, run_hog);
	for (k = 0; k < env.spinners && ready; k++, n++)
		spawn("spinner", k, run_spinner);
	if (ready) {
		spawn("waiter", -1, waiter_entry);
		n++;
	}
	parent_priority();
	if (ready && wait_ready(n)) {
		post(&sh->go);
	} else {
		sh->stop = 1;
		sh->waiter_gone = 1;	/* it will not start an iteration */
	}
	return supervise(px_now_ns() + env.timeout_s * NSEC_PER_SEC);
}

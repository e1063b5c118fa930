// SPDX-License-Identifier: GPL-2.0
/*
 * inversion contend: the cost side.  Not an inversion: --workers
 * processes lock, burn -b USEC and unlock the --set lab locks in turn
 * (worker i starts at lock i % set), as fast as they can, for -d TIME or
 * until -n operations are done.  Each operation's wait (the kernel's
 * wait_ns) is a sample, so the sample count in -d TIME is the throughput
 * and the percentiles are what a contended acquire costs.  The lock type
 * is --locks' (mutex: proxy execution when it is on; rtmutex: priority
 * inheritance's chain walk on every contended acquire).
 *
 * Workers are SCHED_OTHER, nice 0 and 10 in turn (so that an rt_mutex
 * waiter has an owner of lower priority to boost half the time), and may
 * run on every CPU of --cpus (default: all online).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "inversion.h"

static uint64_t op_limit(void)
{
	return env.duration_ns && !env.iter_set ? INV_MAX_SAMPLES : env.iterations;
}

static void contend_worker(int i)
{
	int fd, nice = (i % 2) * 10;
	uint64_t end, op, ns, n = 0, now;
	char who[32];

	snprintf(who, sizeof(who), "worker %d", i);
	if (px_pin_self_set(&env.cpus))
		child_fail("%s: cannot set affinity: %s", who, strerror(errno));
	if (px_set_other(nice))
		child_fail("%s: cannot set SCHED_OTHER nice %d: %s", who, nice, strerror(errno));
	fd = lab_open(who);
	post(&sh->ready);
	if (!wait_sem(&sh->go))
		child_exit();
	end = px_now_ns() + env.duration_ns;
	while (!sh->stop) {
		int idx = env.first_mutex + (int)((i + n) % env.set);

		if (env.duration_ns && px_now_ns() >= end)
			break;
		op = __atomic_fetch_add(&sh->claimed, 1, __ATOMIC_RELAXED);
		if (op >= op_limit())
			break;
		/* A claimed operation always completes: the counts add up. */
		ns = lab_lock(fd, idx, lab_type(idx), who);
		lab_usecs(fd, PROXYLAB_IOC_BURN, env.burn_us, who);
		lab_unlock(fd, idx, lab_type(idx), who);
		sh->samples[op] = ns;
		n++;
	}
	sh->worker_ops[i] = n;
	now = px_now_ns();
	/* The last worker to stop ends the measured time. */
	for (op = __atomic_load_n(&sh->contend_ns, __ATOMIC_RELAXED); op < now;)
		if (__atomic_compare_exchange_n(&sh->contend_ns, &op, now, false,
						__ATOMIC_RELAXED, __ATOMIC_RELAXED))
			break;
	close(fd);
	child_exit();
}

/* Workers open the lab one after the other (misc_mtx, as the owners). */
bool run_contend(void)
{
	uint64_t t0, limit = op_limit();
	bool ready = true, ok;
	int i;

	for (i = 0; i < env.workers && ready; i++) {
		spawn("worker", i, contend_worker);
		ready = wait_ready(1);
	}
	t0 = px_now_ns();
	if (ready)
		for (i = 0; i < env.workers; i++)
			post(&sh->go);
	else
		sh->stop = 1;
	ok = supervise(px_now_ns() + env.timeout_s * NSEC_PER_SEC);
	/* Claims past the limit were not performed. */
	sh->nsamples = sh->claimed < limit ? sh->claimed : limit;
	sh->contend_ns = sh->contend_ns > t0 ? sh->contend_ns - t0 : 0;
	return ok;
}

uint64_t contend_ops(void)
{
	uint64_t sum = 0;
	int i;

	for (i = 0; i < env.workers; i++)
		sum += sh->worker_ops[i];
	return sum;
}

/*
 * The workers' operations add up to the samples, -n mode did them all,
 * and each lab lock of the set was acquired once per operation on it.
 */
bool contend_judge(const struct verdict *v)
{
	uint64_t kernel = 0;
	int k;

	if (contend_ops() != sh->nsamples || !sh->nsamples)
		return false;
	if (!env.duration_ns && sh->nsamples != env.iterations)
		return false;
	for (k = 0; v->have_state && k < env.set; k++)
		kernel += v->delta[env.first_mutex + k];
	return !v->have_state || kernel == sh->nsamples;
}

void contend_consistency(void)
{
	int i;

	fprintf(out, "consistency: operations=%" PRIu64 " samples=%" PRIu64 " workers=",
		contend_ops(), sh->nsamples);
	for (i = 0; i < env.workers; i++)
		fprintf(out, "%s%" PRIu64, i ? "," : "", sh->worker_ops[i]);
}

void contend_json_checks(struct px_json *j)
{
	px_json_u64(j, "operations", contend_ops());
	json_u64_array(j, "worker_operations", sh->worker_ops, env.workers);
	px_json_u64(j, "elapsed_ns", sh->contend_ns);
	px_json_double(j, "operations_per_s",
		       sh->contend_ns ? contend_ops() * 1e9 / sh->contend_ns : 0.0);
}

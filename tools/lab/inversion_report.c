// SPDX-License-Identifier: GPL-2.0
/*
 * inversion, football: the verdict (do all counts add up?) and the output:
 * the header, the latency table, the consistency line, the JSON result
 * file and the histogram (formats: tools/README.md), the exit status.
 * Football's own lines and members come from football_game.c.
 */
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "inversion.h"

static bool is_football(void)
{
	return env.sc->id == SC_FOOTBALL;
}

static bool is_contend(void)
{
	return env.sc->id == SC_CONTEND;
}

/* Lab mutexes of the run: first_mutex.. + this many. */
static int mutexes_used(void)
{
	return is_football() ? CPU_COUNT(&env.cpus) : env.depth;
}

/* "inversion rt", or "football" for the program of that name. */
static const char *title(char *buf, size_t len)
{
	if (!strcmp(env.tool, env.sc->name))
		snprintf(buf, len, "%s", env.tool);
	else
		snprintf(buf, len, "%s %s", env.tool, env.sc->name);
	return buf;
}

void print_header(void)
{
	char buf[256];

	if (env.quiet)
		return;
	fprintf(out, "%s: %s\n", title(buf, sizeof(buf)), env.sc->help);
	if (is_football())
		football_header();
	else if (is_contend())
		fprintf(out, "  %s%" PRIu64 " %s, %d workers on %d lab lock(s), burn %" PRIu64
			" us, CPUs %s\n", env.duration_ns ? "for " : "",
			env.duration_ns ? env.duration_ns / 1000000 : env.iterations,
			env.duration_ns ? "ms" : "operations", env.workers, env.set, env.burn_us,
			px_cpulist_str(&env.cpus, buf, sizeof(buf)));
	else
		fprintf(out, "  %s%" PRIu64 " %s, depth %d, burn %" PRIu64 " us, sleep %" PRIu64
		       " us, %d hog(s)%s, waiter CPU %d, owner CPU %d\n",
		       env.duration_ns ? "for " : "",
		       env.duration_ns ? env.duration_ns / 1000000 : env.iterations,
		       env.duration_ns ? "ms" : "iterations", env.depth, env.burn_us,
		       env.sleep_us, env.hogs, burst_hogs() ? " (bursts)" : " (spinning)",
		       env.sc->id == SC_DL ? -1 : env.cpu[0], owner_cpu());
	if (env.any_rwsem || env.any_rtmutex) {
		int k;

		fprintf(out, "  locks:");
		for (k = 0; k < env.depth; k++)
			fprintf(out, " %s", lab_type_name(env.lock[k]));
		fprintf(out, " (waiter first)\n");
	}
	fflush(out);
}

static void json_params(struct px_json *j)
{
	char buf[256];
	int k;

	px_json_u64(j, "iterations", env.duration_ns ? 0 : env.iterations);
	px_json_u64(j, "duration_ns", env.duration_ns);
	px_json_u64(j, "burn_ns", env.burn_us * NSEC_PER_USEC);
	px_json_u64(j, "sleep_ns", env.sleep_us * NSEC_PER_USEC);
	px_json_u64(j, "depth", env.depth);
	px_json_u64(j, "hogs", is_football() ? 0 : env.hogs);
	px_json_u64(j, "hog_cap_ns", env.hog_cap_us * NSEC_PER_USEC);
	px_json_string(j, "cpus", px_cpulist_str(&env.cpus, buf, sizeof(buf)));
	px_json_i64(j, "waiter_cpu", env.sc->id == SC_DL ? -1 : env.cpu[0]);
	px_json_i64(j, "owner_cpu", owner_cpu());
	px_json_i64(j, "first_mutex", env.first_mutex);
	px_json_array_begin(j, "locks");
	for (k = 0; k < mutexes_used(); k++)
		px_json_string(j, NULL, lab_type_name(is_football() ? LK_MUTEX : env.lock[k]));
	px_json_array_end(j);
	switch (env.sc->id) {
	case SC_CFS:
	case SC_CGWEIGHT:
		px_json_string(j, "waiter_policy", "SCHED_OTHER");
		px_json_string(j, "hog_policy", "SCHED_OTHER");
		px_json_string(j, "cgroup", env.cgroup);
		px_json_i64(j, "cpu_weight", env.weight);
		px_json_string(j, "cpu_max", env.cpu_max ? env.cpu_max : "max");
		if (env.sc->id == SC_CGWEIGHT) {
			px_json_string(j, "waiter_cgroup", env.waiter_cgroup);
			px_json_i64(j, "waiter_cpu_weight", env.waiter_weight);
		}
		break;
	case SC_CONTEND:
		px_json_string(j, "worker_policy", "SCHED_OTHER");
		px_json_u64(j, "workers", env.workers);
		px_json_u64(j, "set", env.set);
		px_json_string(j, "worker_nice", "0 and 10 in turn");
		break;
	case SC_DL:
		px_json_string(j, "waiter_policy", "SCHED_DEADLINE");
		px_json_u64(j, "dl_runtime_ns", env.dl_runtime_us * NSEC_PER_USEC);
		px_json_u64(j, "dl_deadline_ns", env.dl_deadline_us * NSEC_PER_USEC);
		px_json_u64(j, "dl_period_ns", env.dl_period_us * NSEC_PER_USEC);
		px_json_string(j, "hog_policy", "SCHED_FIFO");
		px_json_i64(j, "hog_prio", env.hog_prio);
		break;
	case SC_FOOTBALL:
		football_json_params(j);
		break;
	default:
		px_json_string(j, "waiter_policy", "SCHED_FIFO");
		px_json_i64(j, "waiter_prio", env.waiter_prio);
		px_json_bool(j, "spread", env.spread);
		px_json_bool(j, "pinned", env.pinned);
		px_json_string(j, "hog_policy", "SCHED_FIFO");
		px_json_i64(j, "hog_prio", env.hog_prio);
		if (env.sc->id == SC_MIXED) {
			px_json_i64(j, "tail_nice", env.tail_nice);
			px_json_u64(j, "spinners", env.spinners);
		}
		break;
	}
	px_json_string(j, "owner_policy", "SCHED_OTHER");
	px_json_string(j, "sched_rt_runtime_us_set", rt_throttle_was_set() ? "-1" : NULL);
	px_json_u64(j, "break_ns", env.break_ns);
}

void json_u64_array(struct px_json *j, const char *key, const uint64_t *v, int n)
{
	int i;

	px_json_array_begin(j, key);
	for (i = 0; i < n; i++)
		px_json_u64(j, NULL, v[i]);
	px_json_array_end(j);
}

static void json_checks(struct px_json *j, const struct verdict *v)
{
	int k;

	px_json_bool(j, "consistent", v->consistent);
	if (is_football()) {
		football_json_checks(j);
	} else if (is_contend()) {
		contend_json_checks(j);
	} else {
		double p50, min, max, mean;

		owner_share_summary(&p50, &min, &max, &mean);
		px_json_object_begin(j, "owner_cpu_share");
		px_json_u64(j, "count", sh->nshares);
		px_json_double(j, "p50", p50);
		px_json_double(j, "min", min);
		px_json_double(j, "max", max);
		px_json_double(j, "mean", mean);
		px_json_object_end(j);
		px_json_u64(j, "iterations_done", sh->iterations);
		px_json_u64(j, "waiter_acquired", sh->waiter_acq);
		json_u64_array(j, "holder_acquired", sh->holder_acq, env.depth);
		json_u64_array(j, "chain_acquired", sh->chain_acq, env.depth - 1);
		px_json_u64(j, "hog_bursts", sh->hog_bursts);
		px_json_u64(j, "hog_capped", sh->hog_capped);
	}
	if (v->have_state)
		json_u64_array(j, "kernel_acquired_delta", v->delta + env.first_mutex,
			       mutexes_used());
	else
		px_json_null(j, "kernel_acquired_delta");
	px_json_i64(j, "locks_left_held", v->have_state ? v->left_held : -1);
	px_json_i64(j, "waiter_pid", sh->waiter_pid);
	px_json_array_begin(j, "holder_pids");
	for (k = 0; !is_football() && k < env.depth; k++)
		px_json_i64(j, NULL, sh->holder_pid[k]);
	px_json_array_end(j);
	px_json_array_begin(j, "hog_pids");
	for (k = 0; k < nchildren; k++)
		if (!strncmp(children[k].role, "hog ", 4))
			px_json_i64(j, NULL, children[k].pid);
	px_json_array_end(j);
	px_json_bool(j, "break_tripped", sh->broke);
	if (sh->broke) {
		px_json_i64(j, "break_pid", sh->break_pid);
		px_json_i64(j, "break_mutex", sh->break_mutex);
		px_json_u64(j, "break_wait_ns", sh->break_wait_ns);
	}
}

/*
 * Every count must add up: iterations done = requested (iteration mode),
 * waiter acquisitions = samples = each holder's acquisitions = each chain
 * link's; with debugfs, each used mutex was acquired exactly twice per
 * iteration (holder + waiter or upper link) and none is left held.
 */
static bool judge_locks(const struct verdict *v)
{
	uint64_t n = sh->iterations;
	bool ok = true;
	int k;

	if (!env.duration_ns && n != env.iterations && !sh->broke)
		ok = false;
	if (sh->waiter_acq != n || sh->nsamples != n)
		ok = false;
	for (k = 0; k < env.depth; k++) {
		if (sh->holder_acq[k] != n)
			ok = false;
		if (k + 1 < env.depth && sh->chain_acq[k] != n)
			ok = false;
		if (v->have_state && v->delta[env.first_mutex + k] != 2 * n)
			ok = false;
	}
	if (burst_hogs() && sh->hog_bursts != n * (uint64_t)env.hogs)
		ok = false;
	return ok;
}

static void judge(struct verdict *v, const uint64_t before[], bool have_before)
{
	uint64_t after[PROXYLAB_NR_MUTEXES] = { 0 }, n = sh->iterations;
	int holder[PROXYLAB_NR_MUTEXES] = { 0 }, k, used = mutexes_used();
	bool ok;

	v->have_state = have_before && lab_read_state(after, holder);
	for (k = 0; v->have_state && k < PROXYLAB_NR_MUTEXES; k++) {
		v->delta[k] = after[k] - before[k];
		if (k >= env.first_mutex && k < env.first_mutex + used && holder[k])
			v->left_held++;
	}
	ok = is_football() ? football_judge(v) : is_contend() ? contend_judge(v) : judge_locks(v);
	if (v->left_held)
		ok = false;
	v->want = env.duration_ns || sh->broke ? n : env.iterations;
	v->consistent = ok;
}

static void print_consistency(const struct verdict *v, bool children, bool supervised)
{
	int k;

	if (is_football()) {
		football_consistency();
	} else if (is_contend()) {
		contend_consistency();
	} else {
		fprintf(out, "consistency: iterations=%" PRIu64 "/%" PRIu64 " waiter=%" PRIu64
		       " samples=%" PRIu64 " holders=", sh->iterations, v->want,
		       sh->waiter_acq, sh->nsamples);
		for (k = 0; k < env.depth; k++)
			fprintf(out, "%s%" PRIu64, k ? "," : "", sh->holder_acq[k]);
		if (env.depth > 1) {
			fprintf(out, " links=");
			for (k = 0; k + 1 < env.depth; k++)
				fprintf(out, "%s%" PRIu64, k ? "," : "", sh->chain_acq[k]);
		}
		if (burst_hogs())
			fprintf(out, " hog_bursts=%" PRIu64 " capped=%" PRIu64, sh->hog_bursts,
			       sh->hog_capped);
	}
	if (v->have_state) {
		fprintf(out, " kernel=");
		for (k = 0; k < mutexes_used(); k++)
			fprintf(out, "%s%" PRIu64, k ? "," : "", v->delta[env.first_mutex + k]);
		fprintf(out, " left_held=%d", v->left_held);
	} else {
		fprintf(out, " kernel=n/a");
	}
	fprintf(out, " children=%s -> %s\n", children ? "ok" : "FAILED",
	       v->consistent && children && supervised ? "OK" : "INCONSISTENT");
}

static void print_break(void)
{
	if (!env.break_ns)
		return;
	if (sh->broke)
		fprintf(out, "break: pid %d waited %" PRIu64 " ns for mutex %d (> %" PRIu64
			" ns): trace marker written, tracing off\n", sh->break_pid,
			sh->break_wait_ns, sh->break_mutex, env.break_ns);
	else
		fprintf(out, "break: no acquire waited longer than %" PRIu64 " ns\n",
			env.break_ns);
}

/* The JSON result file (-o); false if it could not be written. */
static bool write_json(struct px_result *res, const struct verdict *v, bool ok)
{
	struct px_json *j = px_result_json_begin(res, env.json_path, env.sc->name);

	if (!j) {
		px_warn("cannot write %s", env.json_path);
		return false;
	}
	json_params(j);
	px_result_json_checks(res, j);
	json_checks(j, v);
	if (px_result_json_end(res, j, ok)) {
		px_warnx("error writing %s", env.json_path);
		return false;
	}
	return true;
}

int inv_report(struct px_result *res, const uint64_t before[], bool have_before,
	       bool supervised, bool kids)
{
	struct verdict v = { 0 };
	char buf[128];
	bool ok;
	uint64_t i;

	for (i = 0; i < sh->nsamples && i < INV_MAX_SAMPLES; i++)
		if (px_result_add(res, sh->samples[i]))
			px_fatal(EXIT_FAIL, "out of memory");
	judge(&v, before, have_before);
	ok = v.consistent && kids && supervised && !sh->failed;

	px_result_print(res, out, is_football() ? "defense" : is_contend() ? "worker" : "waiter",
			!env.quiet);
	if (!is_football() && !is_contend() && !env.quiet) {
		double p50, min, max, mean;

		owner_share_summary(&p50, &min, &max, &mean);
		fprintf(out, "owner CPU share while the waiter waited: p50 %.3f min %.3f max %.3f"
			" mean %.3f (%" PRIu64 " iterations)\n", p50, min, max, mean, sh->nshares);
	}
	if (is_contend())
		fprintf(out, "throughput: %" PRIu64 " operations in %.3f s, %.0f per second\n",
			contend_ops(), sh->contend_ns / 1e9,
			sh->contend_ns ? contend_ops() * 1e9 / sh->contend_ns : 0.0);
	print_consistency(&v, kids, supervised);
	print_break();
	if (is_football())
		football_result();

	if (env.json_path && !write_json(res, &v, ok))
		ok = false;
	if (env.hist_path) {
		char hist_title[160];

		snprintf(hist_title, sizeof(hist_title), "%s lock_wait", title(buf, sizeof(buf)));
		if (px_result_write_hist(res, env.hist_path, hist_title)) {
			px_warn("cannot write %s", env.hist_path);
			ok = false;
		}
	}
	if (!ok)
		return EXIT_FAIL;
	if (is_football() && football_ball())
		return EXIT_VIOLATION;
	if (sh->broke)
		return EXIT_BREAK;
	return EXIT_OK;
}

// SPDX-License-Identifier: GPL-2.0
/* The workload latency result: table, JSON document, histogram file. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "pxutil.h"

int px_result_init(struct px_result *r, const char *tool, const char *metric,
		   int argc, char **argv)
{
	size_t used = 0;
	int i;

	memset(r, 0, sizeof(*r));
	r->tool = tool;
	r->metric = metric;
	r->samples = r->order = (struct px_samples)PX_SAMPLES_INIT;
	r->start_unix = (uint64_t)time(NULL);
	/* Saved before argp permutes argv (cyclictest does the same). */
	for (i = 0; i < argc && used < sizeof(r->cmdline); i++)
		used += snprintf(r->cmdline + used, sizeof(r->cmdline) - used,
				 "%s%s", i ? " " : "", argv[i]);
	r->hist = malloc(sizeof(*r->hist));
	if (!r->hist)
		return errno = ENOMEM, -ENOMEM;
	px_llhist_init(r->hist);
	return 0;
}

int px_result_add(struct px_result *r, uint64_t ns)
{
	px_llhist_add(r->hist, ns);
	if (px_samples_add(&r->order, ns))
		return -ENOMEM;
	return px_samples_add(&r->samples, ns);
}

void px_result_summary(struct px_result *r, struct px_summary *s)
{
	px_samples_summary(&r->samples, s);
}

void px_result_print(struct px_result *r, FILE *f, const char *label, bool hist)
{
	unsigned int slots[64] = { 0 };
	struct px_summary s;
	size_t i;

	if (hist && r->samples.n) {
		for (i = 0; i < r->samples.n; i++)
			slots[px_log2_slot(r->samples.v[i] / 1000)]++;
		px_print_log2_hist(f, slots, 64, "usecs");
		fputc('\n', f);
	}
	px_result_summary(r, &s);
	px_print_summary_header(f, r->metric, "us");
	px_print_summary_row(f, label, &s, 1000);
}

/* First line of a file, or NULL (the JSON then gets null). */
static const char *file_line(const char *path, char *buf, size_t len)
{
	return px_read_line(path, buf, len) ? NULL : buf;
}

struct px_json *px_result_json_begin(struct px_result *r, const char *path,
				     const char *scenario)
{
	char buf[4096], date[32];
	struct utsname u;
	struct tm tm;
	time_t t = (time_t)r->start_unix;
	struct px_json *j = &r->json;

	if (!strcmp(path, "-")) {
		r->json_file = stdout;
	} else {
		r->json_file = fopen(path, "w");
		if (!r->json_file)
			return NULL;
	}
	px_json_init(j, r->json_file, PX_JSON_PRETTY);
	px_json_object_begin(j, NULL);
	px_json_string(j, "format", PX_RESULT_FORMAT);
	px_json_u64(j, "version", PX_RESULT_VERSION);
	px_json_string(j, "tool", r->tool);
	px_json_string(j, "scenario", scenario);
	px_json_string(j, "metric", r->metric);
	px_json_string(j, "unit", "ns");
	px_json_string(j, "cmdline", r->cmdline);
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
	px_json_string(j, "start_time", date);
	px_json_object_begin(j, "system");
	if (!uname(&u)) {
		px_json_string(j, "release", u.release);
		px_json_string(j, "version", u.version);
		px_json_string(j, "machine", u.machine);
	}
	px_json_string(j, "kernel_cmdline", file_line("/proc/cmdline", buf, sizeof(buf)));
	px_json_i64(j, "online_cpus", sysconf(_SC_NPROCESSORS_ONLN));
	px_json_string(j, "sched_rt_runtime_us",
		       file_line("/proc/sys/kernel/sched_rt_runtime_us", buf, sizeof(buf)));
	px_json_string(j, "fair_server_runtime_ns",
		       file_line("/sys/kernel/debug/sched/fair_server/cpu0/runtime",
				 buf, sizeof(buf)));
	px_json_bool(j, "sched_proxy_events",
		     !access("/sys/kernel/tracing/events/sched_proxy", F_OK) ||
		     !access("/sys/kernel/debug/tracing/events/sched_proxy", F_OK));
	px_json_object_end(j);
	px_json_object_begin(j, "params");
	return j;
}

void px_result_json_checks(struct px_result *r, struct px_json *j)
{
	(void)r;
	px_json_object_end(j);
	px_json_object_begin(j, "checks");
}

int px_result_json_end(struct px_result *r, struct px_json *j, bool ok)
{
	struct px_summary s;
	unsigned int i;
	size_t k;
	int ret;

	px_json_object_end(j);
	px_json_bool(j, "ok", ok);
	px_result_summary(r, &s);
	px_json_summary(j, "latency", &s);
	px_json_array_begin(j, "hist");
	for (i = 0; i < PX_LLHIST_BUCKETS; i++) {
		if (!r->hist->bucket[i])
			continue;
		px_json_object_begin(j, NULL);
		px_json_u64(j, "lo", px_llhist_lower(i));
		px_json_u64(j, "hi", px_llhist_upper(i));
		px_json_u64(j, "count", r->hist->bucket[i]);
		px_json_object_end(j);
	}
	px_json_array_end(j);
	px_json_array_begin(j, "samples");
	for (k = 0; k < r->order.n; k++)
		px_json_u64(j, NULL, r->order.v[k]);
	px_json_array_end(j);
	px_json_object_end(j);
	ret = px_json_finish(j);
	if (r->json_file != stdout && fclose(r->json_file) && !ret)
		ret = -errno;
	r->json_file = NULL;
	return ret;
}

int px_result_write_hist(struct px_result *r, const char *path, const char *title)
{
	return px_llhist_write_file(path, r->hist, title);
}

void px_result_free(struct px_result *r)
{
	px_samples_free(&r->samples);
	px_samples_free(&r->order);
	free(r->hist);
	r->hist = NULL;
}

// SPDX-License-Identifier: GPL-2.0
/* log2 slots and the log-linear histogram: bucket boundaries and counts. */
#include <stdlib.h>

#include "pxutil.h"
#include "unit.h"

static void test_log2(void)
{
	unsigned int vals[8] = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	CHECK_U64("log2-slot-0", px_log2_slot(0), 0);
	CHECK_U64("log2-slot-1", px_log2_slot(1), 0);
	CHECK_U64("log2-slot-2", px_log2_slot(2), 1);
	CHECK_U64("log2-slot-3", px_log2_slot(3), 1);
	CHECK_U64("log2-slot-4", px_log2_slot(4), 2);
	CHECK_U64("log2-slot-1023", px_log2_slot(1023), 9);
	CHECK_U64("log2-slot-1024", px_log2_slot(1024), 10);
	CHECK_U64("log2-slot-max", px_log2_slot(UINT64_MAX), 63);

	vals[0] = 1;
	vals[2] = 4;
	f = open_memstream(&buf, &len);
	px_print_log2_hist(f, vals, 8, "usecs");
	fclose(f);
	CHECK_STR("log2-print", buf,
		  "     usecs               : count    distribution\n"
		  "         0 -> 1          : 1        |**********                              |\n"
		  "         2 -> 3          : 0        |                                        |\n"
		  "         4 -> 7          : 4        |****************************************|\n");
	free(buf);

	vals[0] = vals[2] = 0;
	buf = NULL;
	f = open_memstream(&buf, &len);
	px_print_log2_hist(f, vals, 8, "usecs");
	fclose(f);
	CHECK("log2-print-empty", len == 0, "printed %zu bytes", len);
	free(buf);
}

static void test_llhist_bounds(void)
{
	static const uint64_t probe[] = {
		0, 1, 31, 32, 33, 63, 64, 65, 66, 127, 128, 1000, 1023, 1024,
		999999, 1000000, (1ULL << 40) + 12345, UINT64_MAX - 1, UINT64_MAX,
	};
	unsigned int i, idx, bad = 0;

	CHECK_U64("llhist-index-31", px_llhist_index(31), 31);
	CHECK_U64("llhist-index-32", px_llhist_index(32), 32);
	CHECK_U64("llhist-index-63", px_llhist_index(63), 63);
	CHECK_U64("llhist-index-64", px_llhist_index(64), 64);
	CHECK_U64("llhist-index-65", px_llhist_index(65), 64);
	CHECK_U64("llhist-index-66", px_llhist_index(66), 65);
	CHECK_U64("llhist-lower-65", px_llhist_lower(65), 66);
	CHECK_U64("llhist-upper-64", px_llhist_upper(64), 66);
	CHECK_U64("llhist-index-max", px_llhist_index(UINT64_MAX), PX_LLHIST_BUCKETS - 1);
	CHECK_U64("llhist-upper-last", px_llhist_upper(PX_LLHIST_BUCKETS - 1), UINT64_MAX);

	for (i = 0; i < PX_ARRAY_SIZE(probe); i++) {
		idx = px_llhist_index(probe[i]);
		if (px_llhist_lower(idx) > probe[i] ||
		    (idx + 1 < PX_LLHIST_BUCKETS && px_llhist_upper(idx) <= probe[i]))
			bad++;
	}
	CHECK_U64("llhist-probe-in-bucket", bad, 0);

	/* Buckets tile the range: each upper bound is the next lower bound,
	 * the index of a lower bound is the bucket itself, and widths stay
	 * within 1/32 of the lower bound. */
	bad = 0;
	for (i = 0; i + 1 < PX_LLHIST_BUCKETS; i++) {
		uint64_t lo = px_llhist_lower(i), hi = px_llhist_upper(i);

		if (hi <= lo || px_llhist_index(lo) != i || px_llhist_index(hi - 1) != i ||
		    (lo >= PX_LLHIST_SUB && (hi - lo) * PX_LLHIST_SUB > lo))
			bad++;
	}
	CHECK_U64("llhist-tiling", bad, 0);
}

static void test_llhist_counts(void)
{
	struct px_llhist *h = malloc(sizeof(*h)), *g = malloc(sizeof(*g));
	char *buf = NULL, *line;
	uint64_t v, total = 0;
	size_t len = 0;
	unsigned int rows = 0;
	FILE *f;

	px_llhist_init(h);
	px_llhist_init(g);
	CHECK_U64("llhist-empty-p50", px_llhist_percentile(h, 50), 0);
	for (v = 1; v <= 1000; v++)
		px_llhist_add(v < 500 ? h : g, v * 1000);
	px_llhist_merge(h, g);
	CHECK_U64("llhist-count", h->count, 1000);
	CHECK_U64("llhist-min", h->min, 1000);
	CHECK_U64("llhist-max", h->max, 1000000);
	v = px_llhist_percentile(h, 50);
	CHECK("llhist-p50-approx", v <= 500000 && v * 33 / 32 >= 500000,
	      "p50 %" PRIu64, v);

	f = open_memstream(&buf, &len);
	px_llhist_write(f, h, "unit test");
	fclose(f);
	CHECK("llhist-write-header", !strncmp(buf, "# pxutil llhist v1\n# title: unit test\n# unit: ns\n"
					      "# count: 1000  min: 1000  max: 1000000\n", 86),
	      "header: %.90s", buf);
	for (line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		unsigned long long lo, hi, n;
		double cum;

		if (line[0] == '#')
			continue;
		if (sscanf(line, "%llu %llu %llu %lf", &lo, &hi, &n, &cum) == 4) {
			total += n;
			rows++;
		}
	}
	CHECK_U64("llhist-write-total", total, 1000);
	CHECK("llhist-write-rows", rows > 32, "%u rows", rows);
	free(buf);
	free(h);
	free(g);
}

int main(void)
{
	test_log2();
	test_llhist_bounds();
	test_llhist_counts();
	return unit_exit();
}

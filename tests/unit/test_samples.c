// SPDX-License-Identifier: GPL-2.0
/* Exact percentiles of px_samples on known data, including n = 0 and 1. */
#include <stdlib.h>

#include "pxutil.h"
#include "unit.h"

static void test_empty(void)
{
	struct px_samples s = PX_SAMPLES_INIT;
	struct px_summary sum;

	px_samples_summary(&s, &sum);
	CHECK_U64("samples-empty-count", sum.count, 0);
	CHECK_U64("samples-empty-max", sum.max, 0);
	CHECK_U64("samples-empty-p99", px_samples_percentile(&s, 99), 0);
	CHECK("samples-empty-mean", sum.mean == 0, "mean %g", sum.mean);
}

static void test_one(void)
{
	struct px_samples s = PX_SAMPLES_INIT;
	struct px_summary sum;

	px_samples_add(&s, 42);
	px_samples_summary(&s, &sum);
	CHECK_U64("samples-one-count", sum.count, 1);
	CHECK("samples-one-all", sum.min == 42 && sum.p50 == 42 && sum.p90 == 42 &&
	      sum.p99 == 42 && sum.p999 == 42 && sum.max == 42,
	      "min %" PRIu64 " p50 %" PRIu64 " p999 %" PRIu64 " max %" PRIu64,
	      sum.min, sum.p50, sum.p999, sum.max);
	CHECK_U64("samples-one-p0", px_samples_percentile(&s, 0), 42);
	px_samples_free(&s);
}

/* 1..1000 shuffled: nearest rank gives p50 = 500, p99.9 = 999. */
static void test_thousand(void)
{
	struct px_samples s = PX_SAMPLES_INIT;
	struct px_summary sum;
	uint64_t v[1000];
	int i;

	for (i = 0; i < 1000; i++)
		v[i] = i + 1;
	srand(1);
	for (i = 999; i > 0; i--) {
		int k = rand() % (i + 1);
		uint64_t t = v[i];

		v[i] = v[k];
		v[k] = t;
	}
	for (i = 0; i < 1000; i++)
		px_samples_add(&s, v[i]);
	px_samples_summary(&s, &sum);
	CHECK_U64("samples-1000-count", sum.count, 1000);
	CHECK_U64("samples-1000-min", sum.min, 1);
	CHECK_U64("samples-1000-p50", sum.p50, 500);
	CHECK_U64("samples-1000-p90", sum.p90, 900);
	CHECK_U64("samples-1000-p99", sum.p99, 990);
	CHECK_U64("samples-1000-p99.9", sum.p999, 999);
	CHECK_U64("samples-1000-max", sum.max, 1000);
	CHECK_U64("samples-1000-sum", sum.sum, 500500);
	CHECK("samples-1000-mean", sum.mean == 500.5, "mean %g", sum.mean);
	CHECK_U64("samples-1000-p100", px_samples_percentile(&s, 100), 1000);
	/* Adding after a summary re-sorts. */
	px_samples_add(&s, 0);
	CHECK_U64("samples-resort-min", px_samples_percentile(&s, 0), 0);
	px_samples_free(&s);
}

/* Ten samples: p50 is the 5th, p90 the 9th, p99 and p99.9 the 10th. */
static void test_ten(void)
{
	struct px_samples s = PX_SAMPLES_INIT, t = PX_SAMPLES_INIT;
	struct px_summary sum;
	int i;

	for (i = 10; i >= 6; i--)
		px_samples_add(&s, i * 100);
	for (i = 5; i >= 1; i--)
		px_samples_add(&t, i * 100);
	CHECK("samples-merge", !px_samples_merge(&s, &t), "merge failed");
	px_samples_summary(&s, &sum);
	CHECK_U64("samples-10-p50", sum.p50, 500);
	CHECK_U64("samples-10-p90", sum.p90, 900);
	CHECK_U64("samples-10-p99", sum.p99, 1000);
	CHECK_U64("samples-10-p99.9", sum.p999, 1000);
	px_samples_free(&s);
	px_samples_free(&t);
}

static void test_saturation(void)
{
	struct px_samples s = PX_SAMPLES_INIT;
	struct px_summary sum;

	px_samples_add(&s, UINT64_MAX);
	px_samples_add(&s, UINT64_MAX);
	px_samples_summary(&s, &sum);
	CHECK_U64("samples-sum-saturates", sum.sum, UINT64_MAX);
	CHECK_U64("samples-max-u64", sum.max, UINT64_MAX);
	px_samples_free(&s);
}

int main(void)
{
	test_empty();
	test_one();
	test_thousand();
	test_ten();
	test_saturation();
	return unit_exit();
}

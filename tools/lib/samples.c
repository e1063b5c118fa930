// SPDX-License-Identifier: GPL-2.0
/* Sample sets with exact nearest-rank percentiles; see pxutil.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "pxutil.h"

int px_samples_add(struct px_samples *s, uint64_t v)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 1024;
		uint64_t *nv = realloc(s->v, cap * sizeof(*nv));

		if (!nv)
			return errno = ENOMEM, -ENOMEM;
		s->v = nv;
		s->cap = cap;
	}
	if (s->n && v < s->v[s->n - 1])
		s->sorted = false;
	s->v[s->n++] = v;
	return 0;
}

int px_samples_merge(struct px_samples *dst, const struct px_samples *src)
{
	size_t i;

	for (i = 0; i < src->n; i++)
		if (px_samples_add(dst, src->v[i]))
			return -ENOMEM;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void sort_samples(struct px_samples *s)
{
	if (!s->sorted) {
		qsort(s->v, s->n, sizeof(*s->v), cmp_u64);
		s->sorted = true;
	}
}

uint64_t px_nearest_rank(uint64_t n, double p)
{
	double x;
	uint64_t r;

	if (!n)
		return 0;
	/* Minus a little: 99.9% of 1000 must be 999, not 1000 by binary error. */
	x = p * (double)n / 100.0 - 1e-9;
	if (!(x > 0))
		return 1;
	if (x >= (double)n)
		return n;
	r = (uint64_t)x;
	if ((double)r < x)
		r++;
	return r < 1 ? 1 : r > n ? n : r;
}

uint64_t px_samples_percentile(struct px_samples *s, double p)
{
	if (!s->n)
		return 0;
	sort_samples(s);
	return s->v[px_nearest_rank(s->n, p) - 1];
}

void px_samples_summary(struct px_samples *s, struct px_summary *sum)
{
	long double acc = 0;
	size_t i;

	memset(sum, 0, sizeof(*sum));
	if (!s->n)
		return;
	sort_samples(s);
	sum->count = s->n;
	sum->min = s->v[0];
	sum->max = s->v[s->n - 1];
	sum->p50 = px_samples_percentile(s, 50);
	sum->p90 = px_samples_percentile(s, 90);
	sum->p99 = px_samples_percentile(s, 99);
	sum->p999 = px_samples_percentile(s, 99.9);
	for (i = 0; i < s->n; i++) {
		acc += s->v[i];
		sum->sum = sum->sum > UINT64_MAX - s->v[i] ? UINT64_MAX
							    : sum->sum + s->v[i];
	}
	/* From a long double, not from the possibly saturated sum. */
	sum->mean = (double)(acc / s->n);
}

void px_samples_free(struct px_samples *s)
{
	free(s->v);
	s->v = NULL;
	s->n = s->cap = 0;
	s->sorted = true;
}

void px_print_summary_header(FILE *f, const char *label_title, const char *unit)
{
	fprintf(f, "%-16s %10s %10s %10s %10s %10s %10s %8s\n", label_title,
		"min", "p50", "p90", "p99", "p99.9", "max", "count");
	fprintf(f, "%-16s %10s %10s %10s %10s %10s %10s %8s\n", "",
		unit, unit, unit, unit, unit, unit, "");
}

void px_print_summary_row(FILE *f, const char *label, const struct px_summary *s,
			  uint64_t div)
{
	if (!div)
		div = 1;
	fprintf(f, "%-16s %10" PRIu64 " %10" PRIu64 " %10" PRIu64 " %10" PRIu64
		" %10" PRIu64 " %10" PRIu64 " %8" PRIu64 "\n", label,
		s->min / div, s->p50 / div, s->p90 / div, s->p99 / div,
		s->p999 / div, s->max / div, s->count);
}

// SPDX-License-Identifier: GPL-2.0
/* log2 and log-linear histograms; see pxutil.h. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "pxutil.h"

unsigned int px_log2_slot(uint64_t v)
{
	return v ? 63 - __builtin_clzll(v) : 0;
}

static void print_stars(FILE *f, uint64_t val, uint64_t val_max, int width)
{
	int stars = val_max ? (int)((long double)val * width / val_max) : 0;
	int i;

	for (i = 0; i < width; i++)
		fputc(i < stars ? '*' : ' ', f);
}

void px_print_log2_hist64(FILE *f, const uint64_t *vals, int vals_size,
			  const char *val_type)
{
	int i, idx_max = -1, stars, width;
	uint64_t val_max = 0, low, high;

	for (i = 0; i < vals_size && i < 64; i++) {
		if (vals[i])
			idx_max = i;
		if (vals[i] > val_max)
			val_max = vals[i];
	}
	if (idx_max < 0)
		return;
	/* Wide values need wide columns and get fewer stars. */
	width = idx_max <= 32 ? 10 : 20;
	stars = idx_max <= 32 ? 40 : 20;
	fprintf(f, "%*s%-*s : count    distribution\n", width - 5, "",
		width + 9, val_type);
	for (i = 0; i <= idx_max; i++) {
		low = i ? 1ULL << i : 0;
		high = i == 63 ? UINT64_MAX : (1ULL << (i + 1)) - 1;
		fprintf(f, "%*" PRIu64 " -> %-*" PRIu64 " : %-8" PRIu64 " |",
			width, low, width, high, vals[i]);
		print_stars(f, vals[i], val_max, stars);
		fputs("|\n", f);
	}
}

void px_print_log2_hist(FILE *f, const unsigned int *vals, int vals_size,
			const char *val_type)
{
	uint64_t wide[64];
	int i;

	if (vals_size > 64)
		vals_size = 64;
	for (i = 0; i < vals_size; i++)
		wide[i] = vals[i];
	px_print_log2_hist64(f, wide, vals_size, val_type);
}

/* ---------------------------------------------------------------- llhist */

void px_llhist_init(struct px_llhist *h)
{
	memset(h, 0, sizeof(*h));
}

/*
 * Below SUB: bucket v.  Otherwise with e = floor(log2 v) >= SUB_BITS the
 * power-of-two range e is group g = e - SUB_BITS + 1, and the bucket is
 * g * SUB + (the SUB_BITS bits after the leading one).
 */
unsigned int px_llhist_index(uint64_t v)
{
	unsigned int e, g;

	if (v < PX_LLHIST_SUB)
		return (unsigned int)v;
	e = px_log2_slot(v);
	g = e - PX_LLHIST_SUB_BITS + 1;
	return g * PX_LLHIST_SUB +
	       (unsigned int)((v >> (e - PX_LLHIST_SUB_BITS)) - PX_LLHIST_SUB);
}

uint64_t px_llhist_lower(unsigned int idx)
{
	unsigned int g = idx / PX_LLHIST_SUB, sub = idx % PX_LLHIST_SUB;

	if (!g)
		return sub;
	return (uint64_t)(PX_LLHIST_SUB + sub) << (g - 1);
}

uint64_t px_llhist_upper(unsigned int idx)
{
	if (idx + 1 >= PX_LLHIST_BUCKETS)
		return UINT64_MAX;
	return px_llhist_lower(idx + 1);
}

void px_llhist_add(struct px_llhist *h, uint64_t v)
{
	if (!h->count || v < h->min)
		h->min = v;
	if (!h->count || v > h->max)
		h->max = v;
	h->count++;
	h->bucket[px_llhist_index(v)]++;
}

void px_llhist_merge(struct px_llhist *dst, const struct px_llhist *src)
{
	unsigned int i;

	if (!src->count)
		return;
	if (!dst->count || src->min < dst->min)
		dst->min = src->min;
	if (!dst->count || src->max > dst->max)
		dst->max = src->max;
	dst->count += src->count;
	for (i = 0; i < PX_LLHIST_BUCKETS; i++)
		dst->bucket[i] += src->bucket[i];
}

uint64_t px_llhist_percentile(const struct px_llhist *h, double p)
{
	uint64_t rank, seen = 0;
	unsigned int i;

	if (!h->count)
		return 0;
	rank = px_nearest_rank(h->count, p);
	for (i = 0; i < PX_LLHIST_BUCKETS; i++) {
		seen += h->bucket[i];
		if (seen >= rank)
			return px_llhist_lower(i);
	}
	return h->max;
}

int px_llhist_write(FILE *f, const struct px_llhist *h, const char *title)
{
	unsigned int i, first = 0, last = 0;
	uint64_t cum = 0;

	for (i = 0; i < PX_LLHIST_BUCKETS; i++) {
		if (!h->bucket[i])
			continue;
		if (!cum++)
			first = i;
		last = i;
	}
	cum = 0;
	fprintf(f, "# pxutil llhist v1\n");
	if (title)
		fprintf(f, "# title: %s\n", title);
	fprintf(f, "# unit: ns\n");
	fprintf(f, "# count: %" PRIu64 "  min: %" PRIu64 "  max: %" PRIu64 "\n",
		h->count, h->min, h->max);
	fprintf(f, "# columns: lower_ns upper_ns count cum_fraction\n");
	for (i = first; h->count && i <= last; i++) {
		cum += h->bucket[i];
		fprintf(f, "%" PRIu64 " %" PRIu64 " %" PRIu64 " %.6f\n",
			px_llhist_lower(i), px_llhist_upper(i), h->bucket[i],
			(double)cum / (double)h->count);
	}
	return ferror(f) ? -EIO : 0;
}

int px_llhist_write_file(const char *path, const struct px_llhist *h,
			 const char *title)
{
	FILE *f;
	int ret;

	if (!strcmp(path, "-"))
		return px_llhist_write(stdout, h, title);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	ret = px_llhist_write(f, h, title);
	if (fclose(f) && !ret)
		ret = -errno;
	return ret;
}

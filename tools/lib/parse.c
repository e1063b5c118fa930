// SPDX-License-Identifier: GPL-2.0
/* Strict number parsing for command lines; see pxutil.h. */
#include <argp.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "pxutil.h"

/*
 * Base 10, or 16 after an explicit 0x: never octal, so a zero-padded
 * "010" is ten, as a user typing a pid or a count means it.
 */
static int num_base(const char *s)
{
	if (*s == '-' || *s == '+')
		s++;
	return s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ? 16 : 10;
}

int px_parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	if (!s || !*s || isspace((unsigned char)*s))
		return errno = EINVAL, -EINVAL;
	errno = 0;
	v = strtol(s, &end, num_base(s));
	if (*end)
		return errno = EINVAL, -EINVAL;
	if (errno == ERANGE || v < min || v > max)
		return errno = ERANGE, -ERANGE;
	*out = v;
	return 0;
}

/* strtoull() without its sign handling; @end gets the first unused char. */
static int parse_u64_prefix(const char *s, uint64_t *v, char **end)
{
	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, end, num_base(s));
	if (errno == ERANGE)
		return -ERANGE;
	return 0;
}

int px_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t v;
	char *end;
	int ret;

	ret = parse_u64_prefix(s, &v, &end);
	if (!ret && *end)
		ret = -EINVAL;
	if (!ret && (v < min || v > max))
		ret = -ERANGE;
	if (ret)
		return errno = -ret, ret;
	*out = v;
	return 0;
}

static const struct {
	const char	*suffix;
	uint64_t	mult;
} duration_units[] = {
	{ "ns", 1 },
	{ "us", 1000 },
	{ "ms", 1000000 },
	{ "s", 1000000000 },
};

/*
 * Decimal only, with an optional fraction: "0.5s", "1.25" (in the default
 * unit), never hex ("0x10") or an exponent ("1e2"), which strtod() and a
 * 0x-aware integer parser would take.  The fraction is exact to the ns
 * (digits below it are dropped).
 */
int px_parse_duration_ns(const char *s, uint64_t default_unit_ns,
			 uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t whole = 0, frac = 0, scale = 1, mult = default_unit_ns, v;
	const char *p = s;
	bool digits = false;
	size_t i;
	int ret = 0;

	for (; p && isdigit((unsigned char)*p); p++, digits = true) {
		if (whole > (UINT64_MAX - 9) / 10)
			ret = -ERANGE;
		whole = whole * 10 + (uint64_t)(*p - '0');
	}
	if (p && *p == '.') {
		for (p++; isdigit((unsigned char)*p); p++, digits = true)
			if (scale < 1000000000ULL) {
				frac = frac * 10 + (uint64_t)(*p - '0');
				scale *= 10;
			}
	}
	if (!digits)
		return errno = EINVAL, -EINVAL;
	if (*p) {
		for (i = 0; i < PX_ARRAY_SIZE(duration_units); i++)
			if (!strcmp(p, duration_units[i].suffix))
				break;
		if (i == PX_ARRAY_SIZE(duration_units))
			return errno = EINVAL, -EINVAL;
		mult = duration_units[i].mult;
	}
	if (!ret && mult && whole > UINT64_MAX / mult)
		ret = -ERANGE;
	v = whole * mult;
	if (!ret && v > UINT64_MAX - frac * mult / scale)
		ret = -ERANGE;
	v += frac * mult / scale;	/* frac < scale <= 1e9, mult <= 1e9: no overflow */
	if (!ret && (v < min || v > max))
		ret = -ERANGE;
	if (ret)
		return errno = -ret, ret;
	*out = v;
	return 0;
}

/*
 * @ns with the largest unit that divides it, as a user may type it back:
 * "1us", "3600s", "1500000ns".  (An option in us whose range was given in
 * ns said "allowed: 1000ns..3600000000000ns".)
 */
static const char *fmt_duration(uint64_t ns, char *buf, size_t len)
{
	size_t i = PX_ARRAY_SIZE(duration_units);

	while (--i && ns % duration_units[i].mult)
		;
	snprintf(buf, len, "%" PRIu64 "%s", ns / duration_units[i].mult,
		 duration_units[i].suffix);
	return buf;
}

/* argp_error(): "prog: invalid WHAT: ARG", then the usage error's exit. */
static void arg_error(struct argp_state *state, const char *what,
		      const char *arg, int ret, const char *range)
{
	if (ret == -ERANGE)
		argp_error(state, "invalid %s: %s (allowed: %s)", what, arg, range);
	else
		argp_error(state, "invalid %s: %s", what, arg);
}

long px_arg_long(struct argp_state *state, const char *what, const char *arg,
		 long min, long max)
{
	char range[64];
	long v = 0;
	int ret;

	ret = px_parse_long(arg, min, max, &v);
	if (ret) {
		snprintf(range, sizeof(range), "%ld..%ld", min, max);
		arg_error(state, what, arg, ret, range);
	}
	return v;
}

uint64_t px_arg_u64(struct argp_state *state, const char *what, const char *arg,
		    uint64_t min, uint64_t max)
{
	char range[64];
	uint64_t v = 0;
	int ret;

	ret = px_parse_u64(arg, min, max, &v);
	if (ret) {
		snprintf(range, sizeof(range), "%" PRIu64 "..%" PRIu64, min, max);
		arg_error(state, what, arg, ret, range);
	}
	return v;
}

uint64_t px_arg_duration_ns(struct argp_state *state, const char *what,
			    const char *arg, uint64_t default_unit_ns,
			    uint64_t min, uint64_t max)
{
	char range[80], lo[32], hi[32];
	uint64_t v = 0;
	int ret;

	ret = px_parse_duration_ns(arg, default_unit_ns, min, max, &v);
	if (ret) {
		snprintf(range, sizeof(range), "%s..%s",
			 fmt_duration(min, lo, sizeof(lo)), fmt_duration(max, hi, sizeof(hi)));
		arg_error(state, what, arg, ret, range);
	}
	return v;
}

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

int px_parse_duration_ns(const char *s, uint64_t default_unit_ns,
			 uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t v, mult = default_unit_ns;
	char *end;
	size_t i;
	int ret;

	ret = parse_u64_prefix(s, &v, &end);
	if (!ret && *end) {
		ret = -EINVAL;
		for (i = 0; i < PX_ARRAY_SIZE(duration_units); i++) {
			if (!strcmp(end, duration_units[i].suffix)) {
				mult = duration_units[i].mult;
				ret = 0;
				break;
			}
		}
	}
	if (!ret && mult && v > UINT64_MAX / mult)
		ret = -ERANGE;
	if (!ret && (v * mult < min || v * mult > max))
		ret = -ERANGE;
	if (ret)
		return errno = -ret, ret;
	*out = v * mult;
	return 0;
}

static void arg_error(struct argp_state *state, const char *what,
		      const char *arg, int ret, const char *range)
{
	const char *prog = program_invocation_short_name;

	if (ret == -ERANGE)
		fprintf(stderr, "%s: invalid %s: %s (allowed: %s)\n", prog, what, arg, range);
	else
		fprintf(stderr, "%s: invalid %s: %s\n", prog, what, arg);
	argp_usage(state);
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
	char range[80];
	uint64_t v = 0;
	int ret;

	ret = px_parse_duration_ns(arg, default_unit_ns, min, max, &v);
	if (ret) {
		snprintf(range, sizeof(range), "%" PRIu64 "ns..%" PRIu64 "ns",
			 min, max);
		arg_error(state, what, arg, ret, range);
	}
	return v;
}

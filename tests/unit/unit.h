/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal test protocol of build/tests/unit/: every check prints
 * "ok NAME" or "not ok NAME - why"; unit_exit() returns 1 if any failed.
 */
#ifndef PX_UNIT_H
#define PX_UNIT_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int unit_failed;

#define CHECK(name, cond, ...) do {					\
	if (cond) {							\
		printf("ok %s\n", name);				\
	} else {							\
		unit_failed = 1;					\
		printf("not ok %s - ", name);				\
		printf(__VA_ARGS__);					\
		printf("\n");						\
	}								\
} while (0)

#define CHECK_U64(name, got, want)					\
	CHECK(name, (uint64_t)(got) == (uint64_t)(want),		\
	      "got %" PRIu64 ", want %" PRIu64, (uint64_t)(got), (uint64_t)(want))

#define CHECK_STR(name, got, want)					\
	CHECK(name, !strcmp((got), (want)), "got '%s', want '%s'", (got), (want))

static inline int unit_exit(void)
{
	fflush(stdout);
	return unit_failed;
}

#endif /* PX_UNIT_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal test protocol of build/tests/unit/: every check prints
 * "ok NAME" or "not ok NAME - why"; unit_exit() returns 1 if any failed.
 */
#ifndef PX_UNIT_H
#define PX_UNIT_H

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

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

/*
 * The path of tool NAME in build/tools/bin into BUF, found from this test
 * binary's place (build/tests/unit/): 0, or -1 if /proc/self/exe cannot
 * be read (errno set).
 */
static inline int unit_tool_path(char *buf, size_t len, const char *name)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n < 0)
		return -1;
	self[n] = '\0';
	*strrchr(self, '/') = '\0';	/* build/tests/unit */
	snprintf(buf, len, "%s/../../tools/bin/%s", self, name);
	return 0;
}

/*
 * A new file under /tmp holding BODY, its path in PATH (a "...XXXXXX"
 * template for mkstemp(), rewritten); "/nonexistent" if it cannot be made.
 */
static inline const char *unit_tmpfile(char *path, const char *body)
{
	int fd = mkstemp(path);
	FILE *f;

	if (fd < 0)
		return "/nonexistent";
	f = fdopen(fd, "w");
	fputs(body, f);
	fclose(f);
	return path;
}

/* Run the shell command CMD, its stdout into BUF; its exit status (-1: killed). */
static inline int unit_popen_read(const char *cmd, char *buf, size_t len)
{
	FILE *p = popen(cmd, "r");
	size_t n;
	int st;

	if (!p) {
		perror("popen");
		exit(1);
	}
	n = fread(buf, 1, len - 1, p);
	buf[n] = '\0';
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Remove a test's scratch folder DIR, saying so if that fails. */
static inline void unit_rm_rf(const char *dir)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		printf("# could not remove %s\n", dir);
}

static inline int unit_exit(void)
{
	fflush(stdout);
	return unit_failed;
}

#endif /* PX_UNIT_H */

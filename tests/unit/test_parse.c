// SPDX-License-Identifier: GPL-2.0
/* Strict number, duration and CPU-list parsing: accepted and refused input. */
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pxutil.h"
#include "unit.h"

static void test_long(void)
{
	long v = -7;

	CHECK("parse-long-ok", !px_parse_long("42", 0, 100, &v) && v == 42, "v %ld", v);
	CHECK("parse-long-neg", !px_parse_long("-5", -10, 10, &v) && v == -5, "v %ld", v);
	CHECK("parse-long-hex", !px_parse_long("0x10", 0, 100, &v) && v == 16, "v %ld", v);
	CHECK("parse-long-empty", px_parse_long("", 0, 100, &v) == -EINVAL, "accepted");
	CHECK("parse-long-null", px_parse_long(NULL, 0, 100, &v) == -EINVAL, "accepted");
	CHECK("parse-long-junk", px_parse_long("12abc", 0, 100, &v) == -EINVAL, "accepted");
	CHECK("parse-long-space", px_parse_long(" 12", 0, 100, &v) == -EINVAL, "accepted");
	CHECK("parse-long-trailing-space", px_parse_long("12 ", 0, 100, &v) == -EINVAL, "accepted");
	CHECK("parse-long-range-hi", px_parse_long("101", 0, 100, &v) == -ERANGE, "accepted");
	CHECK("parse-long-range-lo", px_parse_long("-1", 0, 100, &v) == -ERANGE, "accepted");
	CHECK("parse-long-overflow", px_parse_long("99999999999999999999", LONG_MIN, LONG_MAX, &v) == -ERANGE,
	      "accepted");
	CHECK("parse-long-errno", px_parse_long("x", 0, 1, &v) && errno == EINVAL, "errno %d", errno);
	CHECK("parse-long-untouched", v == 16, "v %ld changed on error", v);
	/* A leading zero is not octal: -p 010 is pid 10. */
	CHECK("parse-long-leading-zero", !px_parse_long("010", 0, 100, &v) && v == 10, "v %ld", v);
	CHECK("parse-long-leading-zero-neg", !px_parse_long("-010", -100, 100, &v) && v == -10,
	      "v %ld", v);
	CHECK("parse-long-not-octal", !px_parse_long("08", 0, 100, &v) && v == 8, "v %ld", v);
	CHECK("parse-long-hex-upper", !px_parse_long("0X1f", 0, 100, &v) && v == 31, "v %ld", v);
}

static void test_u64(void)
{
	uint64_t v = 0;

	CHECK("parse-u64-max", !px_parse_u64("18446744073709551615", 0, UINT64_MAX, &v) &&
	      v == UINT64_MAX, "v %" PRIu64, v);
	CHECK("parse-u64-minus", px_parse_u64("-1", 0, UINT64_MAX, &v) == -EINVAL, "accepted -1");
	CHECK("parse-u64-plus", px_parse_u64("+1", 0, UINT64_MAX, &v) == -EINVAL, "accepted +1");
	CHECK("parse-u64-overflow", px_parse_u64("18446744073709551616", 0, UINT64_MAX, &v) == -ERANGE,
	      "accepted");
	CHECK("parse-u64-range", px_parse_u64("5", 6, 10, &v) == -ERANGE, "accepted");
	CHECK("parse-u64-leading-zero", !px_parse_u64("0100", 0, UINT64_MAX, &v) && v == 100,
	      "v %" PRIu64, v);
	CHECK("parse-u64-not-octal", !px_parse_u64("09", 0, UINT64_MAX, &v) && v == 9,
	      "v %" PRIu64, v);
}

static void test_duration(void)
{
	uint64_t v = 0;

	CHECK("parse-dur-default", !px_parse_duration_ns("250", 1000, 0, UINT64_MAX, &v) &&
	      v == 250000, "v %" PRIu64, v);
	CHECK("parse-dur-ms", !px_parse_duration_ns("3ms", 1000, 0, UINT64_MAX, &v) &&
	      v == 3000000, "v %" PRIu64, v);
	CHECK("parse-dur-s", !px_parse_duration_ns("2s", 1000, 0, UINT64_MAX, &v) &&
	      v == 2000000000, "v %" PRIu64, v);
	CHECK("parse-dur-ns", !px_parse_duration_ns("7ns", 1000, 0, UINT64_MAX, &v) &&
	      v == 7, "v %" PRIu64, v);
	CHECK("parse-dur-leading-zero", !px_parse_duration_ns("010ms", 1000, 0, UINT64_MAX, &v) &&
	      v == 10000000, "v %" PRIu64, v);
	CHECK("parse-dur-bad-unit", px_parse_duration_ns("3h", 1000, 0, UINT64_MAX, &v) == -EINVAL,
	      "accepted");
	CHECK("parse-dur-neg", px_parse_duration_ns("-3ms", 1000, 0, UINT64_MAX, &v) == -EINVAL,
	      "accepted");
	CHECK("parse-dur-cap", px_parse_duration_ns("11s", 1000, 0, 10000000000ULL, &v) == -ERANGE,
	      "accepted");
	CHECK("parse-dur-overflow", px_parse_duration_ns("18446744073709551s", 1000, 0, UINT64_MAX, &v)
	      == -ERANGE, "accepted");
}

static void test_cpulist(void)
{
	char buf[64];
	cpu_set_t set;

	CHECK("cpulist-range", !px_parse_cpulist("0-3,6\n", &set) && CPU_COUNT(&set) == 5 &&
	      CPU_ISSET(6, &set) && !CPU_ISSET(4, &set), "count %d", CPU_COUNT(&set));
	CHECK_STR("cpulist-format", px_cpulist_str(&set, buf, sizeof(buf)), "0-3,6");
	CHECK("cpulist-single", !px_parse_cpulist("1", &set) && CPU_COUNT(&set) == 1, "bad");
	CHECK("cpulist-empty", px_parse_cpulist("", &set) == -EINVAL, "accepted");
	CHECK("cpulist-backwards", px_parse_cpulist("3-1", &set) == -EINVAL, "accepted");
	CHECK("cpulist-junk", px_parse_cpulist("1,a", &set) == -EINVAL, "accepted");
	CHECK("cpulist-trailing-comma", px_parse_cpulist("1,", &set) == -EINVAL, "accepted");
	CHECK("cpulist-huge", px_parse_cpulist("99999", &set) == -ERANGE, "accepted");
}

static long arg_pid;

static error_t parse_pid(int key, char *arg, struct argp_state *state)
{
	if (key != 'p')
		return ARGP_ERR_UNKNOWN;
	arg_pid = px_arg_long(state, "PID", arg, 1, INT_MAX);
	return 0;
}

/*
 * px_arg_long() in a real argp parser: "-p ARG" in a child with stderr on
 * a pipe; returns the exit status (-1 if killed) and the first line.
 */
static int run_argp(const char *arg, char *line, size_t len)
{
	static const struct argp_option opts[] = { { "pid", 'p', "PID", 0, "", 0 }, {} };
	static const struct argp argp = { opts, parse_pid, NULL, NULL, NULL, NULL, NULL };
	int fd[2], status;
	ssize_t n;
	pid_t pid;

	if (pipe(fd))
		return -1;
	fflush(stdout);
	pid = fork();
	if (!pid) {
		char *argv[] = { "prog", "-p", (char *)arg, NULL };

		dup2(fd[1], 2);
		argp_err_exit_status = 2;
		argp_parse(&argp, 3, argv, 0, NULL, NULL);
		exit(arg_pid == 42 ? 0 : 1);
	}
	close(fd[1]);
	n = read(fd[0], line, len - 1);
	line[n > 0 ? n : 0] = '\0';
	line[strcspn(line, "\n")] = '\0';
	close(fd[0]);
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void test_argp(void)
{
	char line[256];
	int rc;

	/* Every error line starts with the program's name. */
	rc = run_argp("x12", line, sizeof(line));
	CHECK("arg-invalid-exit", rc == 2, "exit %d", rc);
	CHECK_STR("arg-invalid-message", line, "test_parse: invalid PID: x12");
	rc = run_argp("0", line, sizeof(line));
	CHECK("arg-range-exit", rc == 2, "exit %d", rc);
	CHECK_STR("arg-range-message", line,
		  "test_parse: invalid PID: 0 (allowed: 1..2147483647)");
	rc = run_argp("42", line, sizeof(line));
	CHECK("arg-valid-exit", rc == 0, "exit %d, stderr '%s'", rc, line);
	rc = run_argp("042", line, sizeof(line));
	CHECK("arg-leading-zero-decimal", rc == 0, "042 was not 42: exit %d, stderr '%s'",
	      rc, line);
}

int main(void)
{
	test_long();
	test_u64();
	test_duration();
	test_cpulist();
	test_argp();
	return unit_exit();
}

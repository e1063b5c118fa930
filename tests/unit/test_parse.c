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
	/* fractions, decimal only: proxytop -d 0.5 and its interval agree */
	CHECK("parse-dur-fraction", !px_parse_duration_ns("0.5", 1000000000, 0, UINT64_MAX, &v) &&
	      v == 500000000, "v %" PRIu64, v);
	CHECK("parse-dur-fraction-unit", !px_parse_duration_ns("1.25ms", 1000, 0, UINT64_MAX, &v) &&
	      v == 1250000, "v %" PRIu64, v);
	CHECK("parse-dur-fraction-ns", !px_parse_duration_ns(".000000001s", 1000, 0, UINT64_MAX, &v) &&
	      v == 1, "v %" PRIu64, v);
	CHECK("parse-dur-hex", px_parse_duration_ns("0x10", 1000000000, 0, UINT64_MAX, &v) == -EINVAL,
	      "accepted as %" PRIu64, v);
	CHECK("parse-dur-exponent", px_parse_duration_ns("1e2", 1000000000, 0, UINT64_MAX, &v) == -EINVAL,
	      "accepted as %" PRIu64, v);
	CHECK("parse-dur-dot-only", px_parse_duration_ns(".", 1000, 0, UINT64_MAX, &v) == -EINVAL,
	      "accepted as %" PRIu64, v);
	CHECK("parse-dur-inf", px_parse_duration_ns("inf", 1000, 0, UINT64_MAX, &v) == -EINVAL,
	      "accepted as %" PRIu64, v);
	CHECK("parse-dur-space", px_parse_duration_ns(" 5", 1000, 0, UINT64_MAX, &v) == -EINVAL,
	      "accepted as %" PRIu64, v);
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
static uint64_t arg_min;

static error_t parse_pid(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'p':
		arg_pid = px_arg_long(state, "PID", arg, 1, INT_MAX);
		break;
	case 'm':
		arg_min = px_arg_duration_ns(state, "min", arg, 1000, 1000, 3600000000000ULL);
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument: %s", arg);
		break;
	case ARGP_KEY_END:
		if (arg_pid == 13)
			argp_usage(state);	/* after a message of its own */
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/*
 * The conventions (px_argp_parse()) in a real argp parser: "prog ARGS..."
 * in a child with stdout and stderr on pipes; returns the exit status (-1
 * if killed), its stdout in @o and its stderr in @e.
 */
static int run_argp(const char *const args[], char *o, char *e, size_t len)
{
	static const struct argp_option opts[] = {
		{ "pid", 'p', "PID", 0, "a process", 0 },
		{ "min", 'm', "USEC", 0, "a time in us", 0 },
		{},
	};
	static const struct argp argp = { opts, parse_pid, NULL, "USAGE: prog [-p PID]\v",
					  NULL, NULL, NULL };
	int fo[2], fe[2], status, n = 0;
	ssize_t k;
	pid_t pid;

	if (pipe(fo) || pipe(fe))
		return -1;
	fflush(stdout);
	pid = fork();
	if (!pid) {
		char *argv[8] = { "prog" };

		while (args[n] && n < 6) {
			argv[n + 1] = (char *)args[n];
			n++;
		}
		dup2(fo[1], 1);
		dup2(fe[1], 2);
		fprintf(stderr, "%s", "");
		px_argp_parse(&argp, n + 1, argv, NULL);
		fprintf(stderr, "after parsing\n");
		exit(arg_pid == 42 ? 0 : 1);
	}
	close(fo[1]);
	close(fe[1]);
	k = read(fo[0], o, len - 1);
	o[k > 0 ? k : 0] = '\0';
	k = read(fe[0], e, len - 1);
	e[k > 0 ? k : 0] = '\0';
	close(fo[0]);
	close(fe[0]);
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

#define TRY	"Try 'test_parse --help' for more information.\n"

static void test_argp(void)
{
	char o[4096], e[4096];
	int rc;

	/* A usage error: one line naming the program, the Try line, 64. */
	rc = run_argp((const char *[]){ "-p", "x12", NULL }, o, e, sizeof(o));
	CHECK("arg-invalid-exit", rc == 64, "exit %d", rc);
	CHECK_STR("arg-invalid-message", e, "test_parse: invalid PID: x12\n" TRY);
	rc = run_argp((const char *[]){ "-p", "0", NULL }, o, e, sizeof(o));
	CHECK("arg-range-exit", rc == 64, "exit %d", rc);
	CHECK_STR("arg-range-message", e,
		  "test_parse: invalid PID: 0 (allowed: 1..2147483647)\n" TRY);
	rc = run_argp((const char *[]){ "-p", "42", NULL }, o, e, sizeof(o));
	CHECK("arg-valid-exit", rc == 0, "exit %d, stderr '%s'", rc, e);
	rc = run_argp((const char *[]){ "-p", "042", NULL }, o, e, sizeof(o));
	CHECK("arg-leading-zero-decimal", rc == 0, "042 was not 42: exit %d, stderr '%s'",
	      rc, e);
	/* The range of a duration in the option's own unit (us), not in ns. */
	rc = run_argp((const char *[]){ "-m", "0", NULL }, o, e, sizeof(o));
	CHECK_STR("arg-duration-unit", e, "test_parse: invalid min: 0 (allowed: 1us..3600s)\n" TRY);
	CHECK("arg-duration-exit", rc == 64, "exit %d", rc);
	/* getopt's own complaints, argp_error() and argp_usage() alike */
	rc = run_argp((const char *[]){ "--bogus", NULL }, o, e, sizeof(o));
	CHECK("arg-unknown-option", rc == 64 &&
	      !strcmp(e, "test_parse: unrecognized option '--bogus'\n" TRY), "exit %d: '%s'", rc, e);
	rc = run_argp((const char *[]){ "-p", NULL }, o, e, sizeof(o));
	CHECK("arg-missing-value", rc == 64 &&
	      !strcmp(e, "test_parse: option requires an argument -- 'p'\n" TRY), "exit %d: '%s'",
	      rc, e);
	rc = run_argp((const char *[]){ "stray", NULL }, o, e, sizeof(o));
	CHECK("arg-error", rc == 64 &&
	      !strcmp(e, "test_parse: unexpected argument: stray\n" TRY), "exit %d: '%s'", rc, e);
	rc = run_argp((const char *[]){ "-p", "13", NULL }, o, e, sizeof(o));
	CHECK("arg-usage-no-usage-lines", rc == 64 && !strcmp(e, TRY), "exit %d: '%s'", rc, e);
	/* --help and -h: stdout, exit 0, nothing on stderr; the options listed */
	rc = run_argp((const char *[]){ "--help", NULL }, o, e, sizeof(o));
	CHECK("arg-help", rc == 0 && !e[0] && strstr(o, "USAGE: prog [-p PID]") &&
	      strstr(o, "-h, --help") && strstr(o, "-V, --version") && !strstr(o, "-?"),
	      "exit %d, stdout '%s', stderr '%s'", rc, o, e);
	rc = run_argp((const char *[]){ "-h", NULL }, o, e, sizeof(o));
	CHECK("arg-help-short", rc == 0 && !e[0] && strstr(o, "-p, --pid=PID"),
	      "exit %d, stderr '%s'", rc, e);
	/* -V, --version: one line, the shared version */
	rc = run_argp((const char *[]){ "-V", NULL }, o, e, sizeof(o));
	snprintf(e + strlen(e), sizeof(e) - strlen(e), "test_parse (proxyexec) %s\n", px_version);
	CHECK("arg-version", rc == 0 && !strcmp(o, e), "exit %d, '%s'", rc, o);
	rc = run_argp((const char *[]){ "--version", NULL }, o, e, sizeof(o));
	CHECK("arg-version-long", rc == 0 && !strncmp(o, "test_parse (proxyexec) ", 23),
	      "exit %d, '%s'", rc, o);
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

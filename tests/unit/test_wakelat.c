// SPDX-License-Identifier: GPL-2.0
/*
 * What pxwakelat --min (and pxlockwait) print with, on the host: the
 * kernel symbols of libpxutil (px_ksyms_load() from a kallsyms file
 * written here, px_ksym_name(), the tracing frames px_stack_first()
 * skips, px_print_stack(), px_json_stack()) and --min's units and
 * bounds (px_parse_duration_ns() with pxwakelat's 1 us .. 1 h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "pxutil.h"
#include "unit.h"

/*
 * A kernel image from _text to _end with a function, the lab array and
 * an empty lock_class_key at its address (kallsyms has no sizes), the
 * tracing frames a BPF program's stack starts with, and a module.
 */
static const char kallsyms[] =
	"ffffffff81000000 T _text\n"
	"ffffffff81000100 T try_to_wake_up\n"
	"ffffffff81000200 T bpf_trace_run1\n"
	"ffffffff81000300 T __traceiter_sched_waking\n"
	"ffffffff81000400 T __bpf_trace_sched_wakeup_template\n"
	"ffffffff81000500 T wake_up_q\n"
	"ffffffff82000000 d __key.2\n"
	"ffffffff82000000 D lab\n"
	"ffffffff82000400 D __key.3\n"
	"ffffffff82001000 B _end\n"
	"ffffffffc0000000 t modfn\t[somemod]\n"
	"ffffffffc0000100 t modfn2\t[somemod]\n";

/* --min as pxwakelat parses it: microseconds by default, 1 us .. 1 h. */
static int parse_min(const char *s, uint64_t *ns)
{
	return px_parse_duration_ns(s, 1000, 1000, 3600ULL * 1000000000, ns);
}

static void check_min(void)
{
	uint64_t ns = 0;

	CHECK("min-default-us", !parse_min("100", &ns) && ns == 100000, "%" PRIu64, ns);
	CHECK("min-us", !parse_min("100us", &ns) && ns == 100000, "%" PRIu64, ns);
	CHECK("min-ms", !parse_min("2ms", &ns) && ns == 2000000, "%" PRIu64, ns);
	CHECK("min-s", !parse_min("1s", &ns) && ns == 1000000000, "%" PRIu64, ns);
	CHECK("min-base10", !parse_min("010", &ns) && ns == 10000, "%" PRIu64, ns);
	CHECK("min-zero", parse_min("0", &ns) == -ERANGE, "0 accepted");
	CHECK("min-below-1us", parse_min("999ns", &ns) == -ERANGE, "999ns accepted");
	CHECK("min-negative", parse_min("-5", &ns) == -EINVAL, "-5 accepted");
	CHECK("min-junk", parse_min("abc", &ns) == -EINVAL, "abc accepted");
	CHECK("min-unit", parse_min("2m", &ns) == -EINVAL, "2m accepted");
	CHECK("min-empty", parse_min("", &ns) == -EINVAL, "empty accepted");
	CHECK("min-overflow", parse_min("99999999999999999999", &ns) == -ERANGE,
	      "a value over 2^64 accepted");
	CHECK("min-overflow-unit", parse_min("18446744073709551s", &ns) == -ERANGE,
	      "s x 1e9 over 2^64 accepted");
	CHECK("min-over-1h", parse_min("3601s", &ns) == -ERANGE, "3601s accepted");
}

static void check_names(void)
{
	char buf[128];

	CHECK_STR("ksym-func", px_ksym_name(0xffffffff81000100ULL, buf, sizeof(buf)),
		  "try_to_wake_up");
	CHECK_STR("ksym-offset", px_ksym_name(0xffffffff81000142ULL, buf, sizeof(buf)),
		  "try_to_wake_up+0x42");
	/* lab, not the empty lock_class_key sharing its address */
	CHECK_STR("ksym-real-over-key", px_ksym_name(0xffffffff82000000ULL, buf, sizeof(buf)),
		  "lab");
	CHECK_STR("ksym-lab-mutex", px_ksym_name(0xffffffff82000040ULL, buf, sizeof(buf)),
		  "lab+0x40");
	CHECK_STR("ksym-before-text", px_ksym_name(0xffffffff80000000ULL, buf, sizeof(buf)), "");
	CHECK_STR("ksym-heap", px_ksym_name(0xffff888012345678ULL, buf, sizeof(buf)), "");
	CHECK_STR("ksym-past-end", px_ksym_name(0xffffffff82001008ULL, buf, sizeof(buf)), "");
	CHECK_STR("ksym-module", px_ksym_name(0xffffffffc0000010ULL, buf, sizeof(buf)),
		  "modfn+0x10");
	/* the last module symbol: nothing after it bounds it */
	CHECK_STR("ksym-module-last", px_ksym_name(0xffffffffc0000110ULL, buf, sizeof(buf)), "");
}

static void check_stacks(const char *dir)
{
	/* As bpf_get_stackid() gives a waker's: the program's frame first. */
	const unsigned long long bpf[] = {
		0xffffffffa0001234ULL, 0xffffffff81000210ULL, 0xffffffff81000310ULL,
		0xffffffff81000410ULL, 0xffffffff81000120ULL, 0xffffffff81000510ULL,
	};
	const unsigned long long plain[] = { 0xffffffff81000120ULL, 0xffffffff81000510ULL };
	char path[PATH_MAX], out[1024];
	struct px_json j;
	FILE *f;

	CHECK_U64("stack-first-tracing", px_stack_first(bpf, 6), 4);
	CHECK_U64("stack-first-plain", px_stack_first(plain, 2), 0);
	/* All tracing frames: show them all rather than nothing. */
	CHECK_U64("stack-first-only-tracing", px_stack_first(bpf, 4), 0);

	snprintf(path, sizeof(path), "%s/out", dir);
	f = fopen(path, "w+");
	if (!f) {
		CHECK("stack-out", 0, "cannot create %s", path);
		return;
	}
	px_print_stack(f, "waker stack", bpf, sizeof(bpf));
	px_print_stack(f, "failed", bpf, -EEXIST);
	px_print_stack(f, "none", bpf, 0);
	px_json_init(&j, f, PX_JSON_LINES);
	px_json_object_begin(&j, NULL);
	px_json_stack(&j, "waker_stack", bpf, sizeof(bpf));
	px_json_stack(&j, "none", bpf, 0);
	px_json_stack(&j, "failed", bpf, -EFAULT);
	px_json_object_end(&j);
	CHECK("stack-json-finish", !px_json_finish(&j), "JSON writer error");
	rewind(f);
	out[fread(out, 1, sizeof(out) - 1, f)] = '\0';
	fclose(f);
	CHECK_STR("stack-print", out,
		  "    waker stack:\n"
		  "        try_to_wake_up+0x20\n"
		  "        wake_up_q+0x10\n"
		  "    failed: unavailable (File exists)\n"
		  "{\"waker_stack\":[\"try_to_wake_up+0x20\",\"wake_up_q+0x10\"],"
		  "\"none\":null,\"failed\":null}\n");
}

int main(void)
{
	char dir[] = "/tmp/test_wakelat.XXXXXX", path[PATH_MAX], buf[64];
	FILE *f;

	check_min();
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(path, sizeof(path), "%s/kallsyms", dir);
	f = fopen(path, "w");
	if (!f || fputs(kallsyms, f) < 0 || fclose(f)) {
		perror(path);
		return 1;
	}
	CHECK("ksyms-load-missing", px_ksyms_load("/nonexistent/kallsyms") == -ENOENT,
	      "a missing file loaded");
	CHECK("ksyms-load", !px_ksyms_load(path), "cannot load %s", path);
	check_names();
	check_stacks(dir);
	/* A second load replaces the table. */
	f = fopen(path, "w");
	if (f) {
		fputs("ffffffff81000000 T _text\nffffffff81000100 T other\n"
		      "ffffffff82000000 B _end\n", f);
		fclose(f);
	}
	CHECK("ksyms-reload", !px_ksyms_load(path), "cannot reload %s", path);
	CHECK_STR("ksym-reloaded", px_ksym_name(0xffffffff81000108ULL, buf, sizeof(buf)),
		  "other+0x8");
	px_ksyms_free();
	CHECK_STR("ksym-freed", px_ksym_name(0xffffffff81000108ULL, buf, sizeof(buf)), "");
	unit_rm_rf(dir);
	return unit_exit();
}

// SPDX-License-Identifier: GPL-2.0
/*
 * px_proc_sched_ns(): a field of a /proc/PID/sched file in ns, whether the
 * kernel printed it as milliseconds with six decimals or as an integer;
 * px_task_cpu(): the CPU in /proc/PID/stat.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "pxutil.h"
#include "unit.h"

/* A sched file with the lines of @body. */
static const char *sched_file(const char *body)
{
	static char path[32];

	strcpy(path, "/tmp/test_procsched.XXXXXX");
	return unit_tmpfile(path, body);
}

int main(void)
{
	const char *p;
	uint64_t ns = 0;

	p = sched_file("prioladder (71, #threads: 1)\n"
		       "-------------------------------------------------------------------\n"
		       "se.exec_start                                :          1139.817210\n"
		       "se.sum_exec_runtime                          :            19.653335\n"
		       "se.sum_exec_runtime_x                        :             7.000000\n"
		       "proxy_donated_ns                             :                    0\n"
		       "proxy_received_ns                            :             19512788\n"
		       "short                                        :                 3.5\n"
		       "junk                                         :                 abc\n");
	CHECK("schedfield-ms-six-decimals", !px_proc_sched_ns(p, "se.sum_exec_runtime", &ns) && ns == 19653335,
	      "got %" PRIu64, ns);
	CHECK("schedfield-integer", !px_proc_sched_ns(p, "proxy_received_ns", &ns) && ns == 19512788,
	      "got %" PRIu64, ns);
	CHECK("schedfield-zero", !px_proc_sched_ns(p, "proxy_donated_ns", &ns) && ns == 0, "got %" PRIu64, ns);
	CHECK("schedfield-ms-short-decimals", !px_proc_sched_ns(p, "short", &ns) && ns == 3500000,
	      "got %" PRIu64, ns);
	CHECK("schedfield-prefix-is-not-a-field", px_proc_sched_ns(p, "se.sum_exec", &ns) == -ENOENT,
	      "accepted");
	CHECK("schedfield-missing-field", px_proc_sched_ns(p, "proxy_lent_ns", &ns) == -ENOENT, "accepted");
	CHECK("schedfield-junk-value", px_proc_sched_ns(p, "junk", &ns) == -EINVAL, "accepted");
	unlink(p);
	CHECK("schedfield-no-file", px_proc_sched_ns("/nonexistent/sched", "se.sum_exec_runtime", &ns) == -ENOENT,
	      "accepted");
	if (access("/proc/self/sched", R_OK))
		printf("ok schedfield-self # SKIP no /proc/self/sched (a kernel without SCHED_DEBUG)\n");
	else
		CHECK("schedfield-self", !px_proc_sched_ns(NULL, "se.sum_exec_runtime", &ns),
		      "no se.sum_exec_runtime in /proc/self/sched");
	/*
	 * px_task_cpu(): /proc/PID/stat's field 39.  Pinned to CPU 1 the
	 * answer is 1, which neither field 38 (the exit signal, 17) nor 40
	 * (the RT priority, 0) gives.
	 */
	if (px_pin_self(1))
		printf("ok taskcpu-self # SKIP cannot run on CPU 1 (one CPU?)\n");
	else
		CHECK("taskcpu-self", px_task_cpu(getpid()) == 1, "got %d, pinned to 1", px_task_cpu(getpid()));
	CHECK("taskcpu-no-task", px_task_cpu(INT_MAX) == -1, "got %d", px_task_cpu(INT_MAX));
	return unit_failed;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The capability check of the BPF tools: CapEff from a /proc/PID/status
 * file, and which masks may load tracing BPF (CAP_BPF + CAP_PERFMON, or
 * CAP_SYS_ADMIN), whatever the uid.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "pxutil.h"
#include "unit.h"

#define CAP(n)	(1ULL << (n))
#define SYS_ADMIN	21
#define PERFMON		38
#define BPF		39

/* A status file with @capeff as its CapEff line (NULL: none). */
static const char *status_file(const char *capeff)
{
	static char path[32];
	char body[256];

	snprintf(body, sizeof(body),
		 "Name:\tpxchain\nUid:\t1000\t1000\t1000\t1000\n"
		 "CapInh:\t0000000000000000\nCapPrm:\t%s\n%s%s%sCapBnd:\t000001ffffffffff\n",
		 capeff ? capeff : "0", capeff ? "CapEff:\t" : "", capeff ? capeff : "",
		 capeff ? "\n" : "");
	strcpy(path, "/tmp/test_caps.XXXXXX");
	return unit_tmpfile(path, body);
}

int main(void)
{
	uint64_t caps = 0;
	const char *p;

	p = status_file("000000c000000000");
	CHECK("capeff-read", !px_read_cap_eff(p, &caps) && caps == (CAP(BPF) | CAP(PERFMON)),
	      "caps %#" PRIx64, caps);
	unlink(p);
	p = status_file("000001ffffffffff");
	CHECK("capeff-root", !px_read_cap_eff(p, &caps) && caps == 0x1ffffffffffULL,
	      "caps %#" PRIx64, caps);
	unlink(p);
	p = status_file(NULL);
	CHECK("capeff-missing", px_read_cap_eff(p, &caps) == -ENOENT, "accepted");
	unlink(p);
	p = status_file("zz");
	CHECK("capeff-junk", px_read_cap_eff(p, &caps) == -EINVAL, "accepted");
	unlink(p);
	CHECK("capeff-nofile", px_read_cap_eff("/nonexistent/status", &caps) == -ENOENT,
	      "accepted");
	CHECK("capeff-self", !px_read_cap_eff(NULL, &caps), "cannot read /proc/self/status");

	CHECK("caps-bpf-perfmon", px_caps_allow_bpf(CAP(BPF) | CAP(PERFMON)), "refused");
	CHECK("caps-sys-admin", px_caps_allow_bpf(CAP(SYS_ADMIN)), "refused");
	CHECK("caps-root-all", px_caps_allow_bpf(0x1ffffffffffULL), "refused");
	CHECK("caps-bpf-only", !px_caps_allow_bpf(CAP(BPF)), "accepted without CAP_PERFMON");
	CHECK("caps-perfmon-only", !px_caps_allow_bpf(CAP(PERFMON)), "accepted without CAP_BPF");
	CHECK("caps-none", !px_caps_allow_bpf(0), "accepted");
	return unit_exit();
}

// SPDX-License-Identifier: GPL-2.0
/*
 * capexec: run a command as a non-root user that keeps a chosen set of
 * capabilities (and no other), e.g. a BPF tool as uid 60600 with CAP_BPF
 * and CAP_PERFMON only.  busybox setpriv cannot: a change of uid away
 * from 0 clears every capability unless keep-caps is set, and an exec
 * then drops what is not in the ambient set.
 *
 * Usage: capexec [-u UID] [-g GID] [-c CAPS] [--] COMMAND [ARG...]
 *   -u UID   user id to run as (default 65534); -g GID group id (default UID)
 *   -c CAPS  comma-separated capability names without CAP_ (bpf,perfmon,
 *            sys_admin, ... case-insensitive) or numbers; "" or none: none
 *
 * Order: PR_SET_KEEPCAPS, setgroups(none), setresgid, setresuid (the
 * permitted set survives, the effective set is emptied), capset (permitted
 * = effective = inheritable = CAPS), PR_CAP_AMBIENT_RAISE for each of CAPS
 * (an ambient capability must be permitted and inheritable), exec: the
 * command, not setuid and without file capabilities, starts with CapEff
 * = CapPrm = CAPS.  Needs root.  Exit status: the command's; 64 on a
 * usage error, 125 on a set-up error (as env(1)), 127 if the command
 * cannot be run.
 */
#include <argp.h>
#include <ctype.h>
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>

#include "pxutil.h"

/* The names a test asks for; any other capability by number. */
static const struct { const char *name; int cap; } cap_names[] = {
	{ "dac_override",	CAP_DAC_OVERRIDE },
	{ "setuid",		CAP_SETUID },
	{ "sys_ptrace",		CAP_SYS_PTRACE },
	{ "sys_admin",		CAP_SYS_ADMIN },
	{ "sys_nice",		CAP_SYS_NICE },
	{ "sys_resource",	CAP_SYS_RESOURCE },
	{ "ipc_lock",		CAP_IPC_LOCK },
	{ "perfmon",		38 },	/* CAP_PERFMON */
	{ "bpf",		39 },	/* CAP_BPF */
};

static struct env {
	long		uid, gid;
	uint64_t	caps;
	char		**cmd;
} env = {
	.uid = 65534,
	.gid = -1,
};

static const char doc[] =
"Run COMMAND as a non-root user holding only the capabilities CAPS.\n"
"\n"
"USAGE: capexec [-h] [-V] [-u UID] [-g GID] [-c CAPS] [--] COMMAND [ARG...]\n"
"\n"
"CAPS: comma-separated names without CAP_ (bpf,perfmon,sys_admin,...) or\n"
"numbers; \"\" or none for no capability.  Needs root.  Exit: the command's;\n"
"64 usage, 125 set-up error, 127 the command cannot be run.\n"
"\n"
"EXAMPLES:\n"
"    capexec -u 60600 -c bpf,perfmon -- pxchain 1 1\n"
"    capexec -u 60600 -c bpf -- grep Cap /proc/self/status\n"
"\n"
"Options:";

static const struct argp_option opts[] = {
	{ "caps", 'c', "CAPS", 0, "The capabilities to keep (default none)", 0 },
	{ "gid", 'g', "GID", 0, "Group id to run as (default UID)", 0 },
	{ "uid", 'u', "UID", 0, "User id to run as, not 0 (default 65534)", 0 },
	{},
};

static uint64_t parse_caps(struct argp_state *state, char *s);

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'c':
		env.caps = parse_caps(state, arg);
		break;
	case 'g':
		env.gid = px_arg_long(state, "GID", arg, 0, INT_MAX);
		break;
	case 'u':
		env.uid = px_arg_long(state, "UID (not 0: that is root)", arg, 1, INT_MAX);
		break;
	case ARGP_KEY_ARG:
		/* the command: the rest is its own */
		env.cmd = state->argv + state->next - 1;
		state->next = state->argc;
		break;
	case ARGP_KEY_NO_ARGS:
		argp_error(state, "no command given");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static uint64_t parse_caps(struct argp_state *state, char *s)
{
	uint64_t mask = 0;
	char *tok, *save = NULL;
	long n;

	if (!strcasecmp(s, "none"))
		return 0;
	for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		size_t i;

		if (!strncasecmp(tok, "cap_", 4))
			tok += 4;
		if (isdigit((unsigned char)*tok)) {
			if (px_parse_long(tok, 0, 63, &n))
				argp_error(state, "invalid capability number: %s", tok);
			mask |= 1ULL << n;
			continue;
		}
		for (i = 0; i < PX_ARRAY_SIZE(cap_names); i++)
			if (!strcasecmp(tok, cap_names[i].name))
				break;
		if (i == PX_ARRAY_SIZE(cap_names))
			argp_error(state, "unknown capability: %s (give its number)", tok);
		mask |= 1ULL << cap_names[i].cap;
	}
	return mask;
}

int main(int argc, char **argv)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2];
	static const struct argp argp = { opts, parse_arg, NULL, doc, NULL, NULL, NULL };
	long uid, gid;
	uint64_t caps;
	int i;

	/* Options up to the command only: its own are its own. */
	if (px_argp_parse_flags(&argp, argc, argv, ARGP_IN_ORDER, NULL))
		return PX_EXIT_USAGE;
	uid = env.uid;
	gid = env.gid < 0 ? uid : env.gid;
	caps = env.caps;

	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0))
		px_fatal(125, "PR_SET_KEEPCAPS");
	if (setgroups(0, NULL))
		px_fatal(125, "setgroups");
	if (setresgid(gid, gid, gid))
		px_fatal(125, "setresgid %ld", gid);
	if (setresuid(uid, uid, uid))
		px_fatal(125, "setresuid %ld", uid);

	for (i = 0; i < 2; i++) {
		data[i].effective = data[i].permitted = data[i].inheritable =
			(uint32_t)(caps >> (32 * i));
	}
	if (syscall(SYS_capset, &hdr, data))
		px_fatal(125, "capset 0x%llx", (unsigned long long)caps);
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0))
		px_fatal(125, "PR_CAP_AMBIENT_CLEAR_ALL");
	for (i = 0; i < 64; i++) {
		if ((caps & 1ULL << i) &&
		    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, i, 0, 0))
			px_fatal(125, "PR_CAP_AMBIENT_RAISE %d", i);
	}

	execvp(env.cmd[0], env.cmd);
	px_fatal(127, "%s", env.cmd[0]);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * ptydrive - run a command on a pseudo-terminal and type keys at it.
 *
 * For testing interactive tools (proxytop) where no one sits at a
 * terminal: the command gets a pty as stdin, stdout and stderr (so
 * isatty() is true and it may switch the terminal to raw mode), ptydrive
 * waits until the command has printed --wait-for (if given), then --delay,
 * then sends each key of --keys with --interval between them, and copies
 * everything the command writes to its own stdout.
 *
 * Afterwards it prints one line on stderr:
 *   ptydrive: exit STATUS, terminal restored|NOT restored
 * ("restored": the command left the pty in canonical mode with echo, as it
 * found it).  Exit status: the command's (128+N for signal N), 124 when
 * --timeout killed it, 125 when the terminal was not restored, 2 for bad
 * arguments, 1 when the pty or the command could not be set up.
 */
#include <argp.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "pxutil.h"

#define MAX_KEYS	64

static struct {
	char keys[MAX_KEYS];
	size_t nkeys;
	uint64_t delay_ns, interval_ns, timeout_ns;
	char **cmd;
	const char *wait_for;
} env = {
	.delay_ns = 1000000000ULL,
	.interval_ns = 1000000000ULL,
	.timeout_ns = 60000000000ULL,
};

static const char doc[] =
"Run COMMAND on a pseudo-terminal, type KEYS at it, copy its output.\n"
"\n"
"USAGE: ptydrive [-k KEYS] [-w TEXT] [-D DELAY] [-i INTERVAL] [-t TIMEOUT]\n"
"                -- COMMAND [ARG...]\n"
"\n"
"KEYS may use \\t (TAB), \\n, \\e (ESC) and \\\\.  Times take ns, us, ms or s\n"
"(default unit ms).  Example: ptydrive -k 'dgq' -i 1500 -- proxytop -d 1\n";

static const struct argp_option opts[] = {
	{ "keys", 'k', "KEYS", 0, "Keys to send, one per interval", 0 },
	{ "wait-for", 'w', "TEXT", 0, "Start the delay once the output contains TEXT", 0 },
	{ "delay", 'D', "TIME", 0, "Wait before the first key (default 1s)", 0 },
	{ "interval", 'i', "TIME", 0, "Wait between keys (default 1s)", 0 },
	{ "timeout", 't', "TIME", 0, "Kill the command after this (default 60s)", 0 },
	{},
};

/* Decode @s's escapes into env.keys; -EINVAL on a bad escape or too many. */
static int set_keys(const char *s)
{
	size_t n = 0;

	for (; *s; s++) {
		char c = *s;

		if (c == '\\') {
			switch (*++s) {
			case 't': c = '\t'; break;
			case 'n': c = '\n'; break;
			case 'e': c = 27; break;
			case '\\': c = '\\'; break;
			default: return -EINVAL;
			}
		}
		if (n == MAX_KEYS)
			return -EINVAL;
		env.keys[n++] = c;
	}
	env.nkeys = n;
	return 0;
}

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	const uint64_t max = 3600ULL * 1000000000ULL;

	switch (key) {
	case 'k':
		if (set_keys(arg)) {
			px_warnx("invalid keys '%s' (escapes \\t \\n \\e \\\\, at most %d keys)",
				 arg, MAX_KEYS);
			argp_usage(state);
		}
		break;
	case 'w':
		if (!*arg || strlen(arg) > 256) {
			px_warnx("--wait-for takes 1 to 256 characters");
			argp_usage(state);
		}
		env.wait_for = arg;
		break;
	case 'D':
		env.delay_ns = px_arg_duration_ns(state, "delay", arg, 1000000, 0, max);
		break;
	case 'i':
		env.interval_ns = px_arg_duration_ns(state, "interval", arg, 1000000, 0, max);
		break;
	case 't':
		env.timeout_ns = px_arg_duration_ns(state, "timeout", arg, 1000000, 1, max);
		break;
	case ARGP_KEY_ARGS:
		env.cmd = state->argv + state->next;
		return 0;
	case ARGP_KEY_NO_ARGS:
		px_warnx("no command given");
		argp_usage(state);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* Child: the pty's slave end becomes the controlling terminal and stdio. */
static void __attribute__((noreturn)) run_child(const char *slave, char **argv)
{
	int fd;

	if (setsid() < 0)
		_exit(127);
	fd = open(slave, O_RDWR);
	if (fd < 0 || ioctl(fd, TIOCSCTTY, 0) < 0 ||
	    dup2(fd, 0) < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
		_exit(127);
	if (fd > 2)
		close(fd);
	execvp(argv[0], argv);
	fprintf(stderr, "ptydrive: cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

/*
 * --wait-for: the output's tail, long enough to hold the text across two
 * reads.  @seen is set once it has appeared.
 */
static char tail[2 * 4096 + 512];
static size_t tail_len;
static bool seen;

static void look_for(const char *buf, size_t n)
{
	size_t keep = strlen(env.wait_for) - 1;

	if (seen)
		return;
	if (tail_len > keep) {
		memmove(tail, tail + tail_len - keep, keep);
		tail_len = keep;
	}
	memcpy(tail + tail_len, buf, n);
	tail_len += n;
	tail[tail_len] = '\0';
	/* The pty output is text; a NUL in it only hides what precedes it. */
	seen = strstr(tail, env.wait_for) != NULL;
}

/* Copy what is readable on @master to stdout; false at EOF or error. */
static bool pump(int master)
{
	char buf[4096];
	ssize_t n = read(master, buf, sizeof(buf));

	if (n <= 0)
		return false;	/* EIO once the slave side is closed */
	if (env.wait_for)
		look_for(buf, n);
	return fwrite(buf, 1, n, stdout) == (size_t)n;
}

int main(int argc, char **argv)
{
	static const struct argp argp = { opts, parse_arg, "-- COMMAND [ARG...]", doc,
					  NULL, NULL, NULL };
	uint64_t start, next_key, deadline;
	struct termios tio;
	bool restored, timed_out = false, started = false;
	int master, slave_fd, status, rc;
	size_t sent = 0;
	char *slave;
	pid_t pid;

	argp_err_exit_status = 2;
	if (argp_parse(&argp, argc, argv, 0, NULL, NULL))
		return 2;
	if (!env.cmd || !env.cmd[0]) {
		px_warnx("no command given (ptydrive [OPTION...] -- COMMAND [ARG...])");
		return 2;
	}

	master = posix_openpt(O_RDWR | O_NOCTTY);
	if (master < 0 || grantpt(master) || unlockpt(master) || !(slave = ptsname(master)))
		px_fatal(1, "cannot set up a pseudo-terminal");
	/* Keep a slave fd: the final termios check reads the pty's state. */
	slave_fd = open(slave, O_RDWR | O_NOCTTY);
	if (slave_fd < 0)
		px_fatal(1, "open %s", slave);

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		px_fatal(1, "fork");
	if (pid == 0)
		run_child(slave, env.cmd);

	start = px_now_ns();
	seen = !env.wait_for;
	deadline = start + env.timeout_ns;
	for (;;) {
		struct pollfd pfd = { .fd = master, .events = POLLIN };
		uint64_t now = px_now_ns(), wake = deadline;
		int ms;

		if (now >= deadline) {
			timed_out = true;
			kill(pid, SIGKILL);
			break;
		}
		if (!started && seen) {
			started = true;
			next_key = now + env.delay_ns;
		}
		if (started && sent < env.nkeys && now >= next_key) {
			if (write(master, &env.keys[sent], 1) != 1)
				px_warn("cannot type key %zu", sent);
			sent++;
			next_key = now + env.interval_ns;
		}
		if (started && sent < env.nkeys && next_key < wake)
			wake = next_key;
		/* At most 100 ms: the child's exit does not wake poll(). */
		ms = (int)((wake - now) / 1000000) + 1;
		if (ms > 100)
			ms = 100;
		rc = poll(&pfd, 1, ms);
		if (rc < 0 && errno != EINTR)
			px_fatal(1, "poll");
		/*
		 * The child's exit closes its slave fds, but ours keeps the
		 * pty open: read until the child is gone and nothing is left.
		 */
		if (rc > 0 && (pfd.revents & POLLIN)) {
			if (!pump(master))
				break;
			continue;
		}
		if (waitpid(pid, &status, WNOHANG) == pid) {
			pid = 0;
			break;
		}
	}
	if (pid && waitpid(pid, &status, 0) != pid)
		px_fatal(1, "waitpid");
	/* Whatever the command wrote last. */
	while (!timed_out) {
		struct pollfd pfd = { .fd = master, .events = POLLIN };

		if (poll(&pfd, 1, 0) <= 0 || !(pfd.revents & POLLIN) || !pump(master))
			break;
	}
	fflush(stdout);

	restored = !tcgetattr(slave_fd, &tio) && (tio.c_lflag & ICANON) && (tio.c_lflag & ECHO);
	if (timed_out)
		rc = 124;
	else if (WIFSIGNALED(status))
		rc = 128 + WTERMSIG(status);
	else
		rc = WEXITSTATUS(status);
	fprintf(stderr, "ptydrive: %s %d, %d of %zu keys sent, terminal %s%s%s%s\n",
		timed_out ? "timed out, killed; status" : "exit", rc, (int)sent, env.nkeys,
		restored ? "restored" : "NOT restored",
		seen ? "" : ", never saw '", seen ? "" : env.wait_for, seen ? "" : "'");
	if (rc == 0 && !restored)
		rc = 125;
	return rc;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * ptydrive - run a command on a pseudo-terminal and type keys at it.
 *
 * For testing interactive tools (proxytop) where no one sits at a
 * terminal: the command gets a pty as stdin, stdout and stderr (so
 * isatty() is true and it may switch the terminal to raw mode), ptydrive
 * waits until the command has printed --wait-for (if given), then --delay,
 * then sends each key of --keys with --interval between them, and copies
 * everything the command writes to its own stdout.  A key may also be an
 * action: a new window size, a signal, fg after a Ctrl-Z, a snapshot of
 * the screen (see doc[] below).
 *
 * ptydrive acts as a job control shell would: the command runs in its
 * own process group, the terminal's foreground one, in a session whose
 * leader is a ptydrive process (so Ctrl-Z really stops it: the group is
 * not orphaned).  When the command stops, ptydrive takes the terminal
 * back, notes whether the command left it restored, and puts back the
 * modes it started with, as a shell does before its prompt; \[fg] hands
 * the terminal back and continues the command.
 *
 * Every byte the command writes also goes through a screen model
 * (ptydrive_screen.c): --screen FILE gets a dump of it at each \[snap]
 * and at the end.
 *
 * Afterwards it prints on stderr:
 *   ptydrive: exit STATUS, K of N keys sent, terminal restored|NOT restored
 *   ptydrive: screen COLSxROWS, W wrapped lines, alternate screen ..., cursor ...
 * ("restored": the command left the pty in canonical mode with echo, the
 * screen model off the alternate screen, the cursor visible).  Exit status:
 * the command's (128+N for signal N), 124 when --timeout killed it, 125
 * when the terminal was not restored, 64 for bad arguments, 1 when the pty
 * or the command could not be set up.
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

#include "ptydrive.h"
#include "pxutil.h"

#define MAX_KEYS	64

/* One step of --keys: a byte to type, or an action. */
enum act { A_KEY, A_SIZE, A_SIG, A_FG, A_SNAP };
struct step {
	enum act act;
	int arg, cols, rows;	/* A_KEY: the byte, A_SIG: the signal; A_SIZE */
};

static struct {
	struct step keys[MAX_KEYS];
	size_t nkeys;
	uint64_t delay_ns, interval_ns, timeout_ns;
	int cols, rows;
	char **cmd;
	const char *wait_for;
	const char *screen_file;
} env = {
	.delay_ns = 1000000000ULL,
	.interval_ns = 1000000000ULL,
	.timeout_ns = 60000000000ULL,
	.cols = 80,
	.rows = 24,
};

static const char doc[] =
"Run COMMAND on a pseudo-terminal, type KEYS at it, copy its output.\n"
"\n"
"USAGE: ptydrive [-k KEYS] [-w TEXT] [-D DELAY] [-i INTERVAL] [-t TIMEOUT]\n"
"                [-s COLSxROWS] [-S FILE] -- COMMAND [ARG...]\n"
"\n"
"KEYS may use \\t (TAB), \\n, \\e (ESC), \\\\ and \\cX (Ctrl-X: \\cC interrupts,\n"
"\\cZ suspends, \\c\\\\ quits), and these actions, each one step:\n"
"  \\[size=COLSxROWS]  new window size (the kernel sends SIGWINCH)\n"
"  \\[sig=NAME]        send signal NAME (HUP, TERM, WINCH, CONT, ...) to the command\n"
"  \\[fg]              after a Ctrl-Z: give the command the terminal, SIGCONT\n"
"  \\[snap]            append the screen as shown now to --screen FILE\n"
"Times take ns, us, ms or s (default unit ms).\n"
"Examples: ptydrive -k 'dgq' -i 1500 -- proxytop -d 1\n"
"          ptydrive -s 100x30 -S scr -k '\\[size=80x24]\\[snap]\\cZ\\[fg]q' -- proxytop\n";

enum { OPT_SIZE = 's', OPT_SCREEN = 'S' };

static const struct argp_option opts[] = {
	{ "keys", 'k', "KEYS", 0, "Keys and actions to send, one per interval", 0 },
	{ "wait-for", 'w', "TEXT", 0, "Start the delay once the output contains TEXT", 0 },
	{ "delay", 'D', "TIME", 0, "Wait before the first key (default 1s)", 0 },
	{ "interval", 'i', "TIME", 0, "Wait between keys (default 1s)", 0 },
	{ "timeout", 't', "TIME", 0, "Kill the command after this (default 60s)", 0 },
	{ "size", OPT_SIZE, "COLSxROWS", 0, "Window size (default 80x24)", 0 },
	{ "screen", OPT_SCREEN, "FILE", 0, "Write screen snapshots (\\[snap], the end) to FILE", 0 },
	{},
};

static const struct { const char *name; int sig; } signames[] = {
	{ "HUP", SIGHUP }, { "INT", SIGINT }, { "QUIT", SIGQUIT }, { "KILL", SIGKILL },
	{ "TERM", SIGTERM }, { "STOP", SIGSTOP }, { "TSTP", SIGTSTP }, { "CONT", SIGCONT },
	{ "WINCH", SIGWINCH }, { "USR1", SIGUSR1 }, { "USR2", SIGUSR2 },
};

static int parse_size(const char *s, int *cols, int *rows)
{
	char extra;

	if (sscanf(s, "%dx%d%c", cols, rows, &extra) != 2 ||
	    *cols < 1 || *cols > 1000 || *rows < 1 || *rows > 1000)
		return -EINVAL;
	return 0;
}

/* An action \[...] at @s (after "\["); its length up to ']', or -EINVAL. */
static int parse_action(const char *s, struct step *st)
{
	const char *end = strchr(s, ']');
	char word[32];
	size_t len, i;

	if (!end || (len = end - s) >= sizeof(word))
		return -EINVAL;
	memcpy(word, s, len);
	word[len] = '\0';
	if (!strcmp(word, "fg")) {
		st->act = A_FG;
	} else if (!strcmp(word, "snap")) {
		st->act = A_SNAP;
	} else if (!strncmp(word, "size=", 5)) {
		st->act = A_SIZE;
		if (parse_size(word + 5, &st->cols, &st->rows))
			return -EINVAL;
	} else if (!strncmp(word, "sig=", 4)) {
		st->act = A_SIG;
		for (i = 0; i < PX_ARRAY_SIZE(signames); i++)
			if (!strcmp(word + 4, signames[i].name) ||
			    (!strncmp(word + 4, "SIG", 3) && !strcmp(word + 7, signames[i].name)))
				break;
		if (i == PX_ARRAY_SIZE(signames))
			return -EINVAL;
		st->arg = signames[i].sig;
	} else {
		return -EINVAL;
	}
	return len + 1;
}

/* Decode @s's escapes and actions into env.keys; -EINVAL on a bad one or too many. */
static int set_keys(const char *s)
{
	size_t n = 0;
	int len;

	for (; *s; s++) {
		struct step st = { .act = A_KEY, .arg = (unsigned char)*s };

		if (*s == '\\') {
			switch (*++s) {
			case 't': st.arg = '\t'; break;
			case 'n': st.arg = '\n'; break;
			case 'e': st.arg = 27; break;
			case '\\': st.arg = '\\'; break;
			case 'c':
				if (!s[1] || (unsigned char)s[1] < '?')
					return -EINVAL;
				st.arg = *++s == '?' ? 0x7f : (*s & 0x1f);
				if (s[0] == '\\' && s[1] == '\\')
					s++;	/* \c\\: Ctrl-\ */
				break;
			case '[':
				len = parse_action(s + 1, &st);
				if (len < 0)
					return len;
				s += len;
				break;
			default: return -EINVAL;
			}
		}
		if (n == MAX_KEYS)
			return -EINVAL;
		env.keys[n++] = st;
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
			px_warnx("invalid keys '%s' (escapes \\t \\n \\e \\\\ \\cX, actions \\[size=CxR] "
				 "\\[sig=NAME] \\[fg] \\[snap], at most %d steps)", arg, MAX_KEYS);
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
	case OPT_SIZE:
		if (parse_size(arg, &env.cols, &env.rows)) {
			px_warnx("invalid size '%s' (COLSxROWS, 1 to 1000 each)", arg);
			argp_usage(state);
		}
		break;
	case OPT_SCREEN:
		env.screen_file = arg;
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

/*
 * --wait-for: the output's tail, long enough to hold the text across two
 * reads.  @seen is set once it has appeared.
 */
static char tail[2 * 4096 + 512];
static size_t tail_len;
static bool seen;
static struct screen *scr;
static FILE *screen_out;
static int nsnaps;
static uint64_t start;

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
	screen_feed(scr, buf, n);
	return fwrite(buf, 1, n, stdout) == (size_t)n;
}

static void snapshot(const char *what)
{
	struct screen_state st;

	if (!screen_out)
		return;
	screen_state(scr, &st);
	fprintf(screen_out, "--- screen %d (%s) %dx%d at %.3f s: wraps %lu, alternate screen %s, "
		"cursor %s ---\n", ++nsnaps, what, st.cols, st.rows, (px_now_ns() - start) / 1e9,
		st.wraps, st.alt ? "on" : "off", st.cursor_hidden ? "hidden" : "visible");
	screen_dump(scr, screen_out);
	fflush(screen_out);
}

static bool tty_restored(int fd)
{
	struct termios tio;

	return !tcgetattr(fd, &tio) && (tio.c_lflag & ICANON) && (tio.c_lflag & ECHO);
}

/*
 * Child: its own process group, the terminal's foreground one, then exec.
 * The terminal's signals get their default actions, as a shell gives a
 * foreground job: ptydrive started in the background by a non-interactive
 * shell inherits SIGINT and SIGQUIT ignored, and a Ctrl-C it types would
 * then do nothing.
 */
static void __attribute__((noreturn)) run_child(int master, int slave_fd, char **argv)
{
	close(master);
	setpgid(0, 0);
	tcsetpgrp(slave_fd, getpid());
	signal(SIGTTOU, SIG_DFL);
	signal(SIGTTIN, SIG_DFL);
	signal(SIGTSTP, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGQUIT, SIG_DFL);
	if (dup2(slave_fd, 0) < 0 || dup2(slave_fd, 1) < 0 || dup2(slave_fd, 2) < 0)
		_exit(127);
	if (slave_fd > 2)
		close(slave_fd);
	execvp(argv[0], argv);
	fprintf(stderr, "ptydrive: cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

/* The session leader: runs the command and drives it.  Returns the exit status. */
static int drive(int master, const char *slave)
{
	uint64_t next_key = 0, deadline;
	struct termios initial;
	struct screen_state st;
	bool restored, timed_out = false, started = false, stopped = false;
	int slave_fd, status = 0, rc;
	size_t sent = 0;
	pid_t pid;

	if (setsid() < 0)
		px_fatal(1, "setsid");
	/* Keep a slave fd: the final termios check reads the pty's state. */
	slave_fd = open(slave, O_RDWR);
	if (slave_fd < 0 || ioctl(slave_fd, TIOCSCTTY, 0) < 0)
		px_fatal(1, "open %s as the controlling terminal", slave);
	tcgetattr(slave_fd, &initial);
	/* As a shell: take the terminal back from the background. */
	signal(SIGTTOU, SIG_IGN);
	signal(SIGTTIN, SIG_IGN);
	signal(SIGTSTP, SIG_IGN);

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		px_fatal(1, "fork");
	if (pid == 0)
		run_child(master, slave_fd, env.cmd);
	setpgid(pid, pid);
	tcsetpgrp(slave_fd, pid);

	start = px_now_ns();
	seen = !env.wait_for;
	deadline = start + env.timeout_ns;
	for (;;) {
		struct pollfd pfd = { .fd = master, .events = POLLIN };
		uint64_t now = px_now_ns(), wake = deadline;
		int ms;

		if (now >= deadline) {
			timed_out = true;
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			break;
		}
		if (!started && seen) {
			started = true;
			next_key = now + env.delay_ns;
		}
		if (started && sent < env.nkeys && now >= next_key) {
			const struct step *k = &env.keys[sent];
			struct winsize ws = { 0 };
			char ch = k->arg;

			switch (k->act) {
			case A_KEY:
				if (write(master, &ch, 1) != 1)
					px_warn("cannot type key %zu", sent);
				break;
			case A_SIZE:
				/* Drain first: the screen takes the new size from here on. */
				while (poll(&pfd, 1, 0) > 0 && (pfd.revents & POLLIN) && pump(master))
					;
				ws.ws_col = k->cols;
				ws.ws_row = k->rows;
				screen_resize(scr, k->cols, k->rows);
				if (ioctl(master, TIOCSWINSZ, &ws))
					px_warn("cannot set the window size");
				break;
			case A_SIG:
				if (kill(pid, k->arg))
					px_warn("cannot send signal %d", k->arg);
				break;
			case A_FG:
				fprintf(stderr, "ptydrive: fg\n");
				tcsetpgrp(slave_fd, pid);
				kill(-pid, SIGCONT);
				stopped = false;
				break;
			case A_SNAP:
				while (poll(&pfd, 1, 0) > 0 && (pfd.revents & POLLIN) && pump(master))
					;
				snapshot("snap");
				break;
			}
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
		rc = waitpid(pid, &status, WNOHANG | WUNTRACED);
		if (rc == pid && WIFSTOPPED(status) && !stopped) {
			/* A shell: the terminal back, what the command left noted, our modes back. */
			stopped = true;
			while (poll(&pfd, 1, 0) > 0 && (pfd.revents & POLLIN) && pump(master))
				;
			tcsetpgrp(slave_fd, getpgrp());
			restored = tty_restored(slave_fd);
			screen_state(scr, &st);
			restored = restored && !st.alt && !st.cursor_hidden;
			fprintf(stderr, "ptydrive: stopped by signal %d, terminal %s\n",
				WSTOPSIG(status), restored ? "restored" : "NOT restored");
			snapshot("stopped");
			tcsetattr(slave_fd, TCSADRAIN, &initial);
		} else if (rc == pid && !WIFSTOPPED(status)) {
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
	snapshot("end");

	screen_state(scr, &st);
	restored = tty_restored(slave_fd) && !st.alt && !st.cursor_hidden;
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
	fprintf(stderr, "ptydrive: screen %dx%d, %lu wrapped lines, alternate screen %s, cursor %s\n",
		st.cols, st.rows, st.wraps,
		st.alt ? "still on" : st.alt_used ? "used and left" : "never used",
		st.cursor_hidden ? "hidden" : "visible");
	if (rc == 0 && !restored)
		rc = 125;
	return rc;
}

int main(int argc, char **argv)
{
	static const struct argp argp = { opts, parse_arg, "-- COMMAND [ARG...]", doc,
					  NULL, NULL, NULL };
	struct winsize ws = { 0 };
	int master, status;
	char *slave;
	pid_t pid;

	if (px_argp_parse(&argp, argc, argv, NULL))
		return PX_EXIT_USAGE;
	if (!env.cmd || !env.cmd[0])
		px_usage_error("no command given (ptydrive [OPTION...] -- COMMAND [ARG...])");
	if (env.screen_file && !(screen_out = fopen(env.screen_file, "w")))
		px_fatal(1, "%s", env.screen_file);

	master = posix_openpt(O_RDWR | O_NOCTTY);
	if (master < 0 || grantpt(master) || unlockpt(master) || !(slave = ptsname(master)))
		px_fatal(1, "cannot set up a pseudo-terminal");
	ws.ws_col = env.cols;
	ws.ws_row = env.rows;
	if (ioctl(master, TIOCSWINSZ, &ws))
		px_fatal(1, "cannot set the window size");
	scr = screen_new(env.cols, env.rows);

	/*
	 * The session leader is a child: we may lead a process group
	 * ourselves (run by an interactive shell), and then setsid() fails.
	 */
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		px_fatal(1, "fork");
	if (pid == 0)
		exit(drive(master, slave));
	close(master);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			px_fatal(1, "waitpid");
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

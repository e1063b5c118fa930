// SPDX-License-Identifier: GPL-2.0
/*
 * ptydrive, the instrument of tests/guest/61-proxytop-tty.sh, on commands
 * of known behaviour: the window size the command sees (at the start and
 * after \[size=]), the wrapped lines its screen model counts (a line of
 * 100 columns at 80 wraps once, one of exactly 80 does not), what a
 * snapshot shows after a clear, and each way a command can leave the
 * terminal: raw mode, the alternate screen, a hidden cursor (NOT restored,
 * exit 125), and the good ways (restored); Ctrl-Z stops the command and
 * \[fg] continues it, a signal's exit status is 128+N.  Each "not
 * restored" is a command broken on purpose: were the model blind to it,
 * 61's checks would pass whatever proxytop does.  Runs
 * build/tools/bin/ptydrive, found next to this binary's folder (a skip
 * when it is not built: make -C tools).
 */
#include <limits.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unit.h"

static char tool[PATH_MAX + 64], dir[] = "/tmp/pxptyd-unit.XXXXXX";
static char out[16384], scr[16384];

/*
 * ptydrive ARGS -- sh -c SCRIPT, stdout+stderr into out, the screen file
 * (-S) into scr; exit status.  ARGS and SCRIPT are shell words as typed.
 */
static int drive(const char *args, const char *script)
{
	char cmd[PATH_MAX * 2 + 2048], path[PATH_MAX + 16];
	size_t n;
	FILE *p;
	int rc;

	snprintf(path, sizeof(path), "%s/scr", dir);
	unlink(path);
	snprintf(cmd, sizeof(cmd), "cd %s && \"$PTYD\" -S scr -D 200ms -i 300ms -t 20s %s -- "
		 "sh -c '%s' 2>&1 < /dev/null", dir, args, script);
	rc = unit_popen_read(cmd, out, sizeof(out));
	scr[0] = '\0';
	p = fopen(path, "r");
	if (p) {
		n = fread(scr, 1, sizeof(scr) - 1, p);
		scr[n] = '\0';
		fclose(p);
	}
	return rc;
}

#define HAS(name, buf, needle) \
	CHECK(name, strstr(buf, needle), "no '%s' in:\n%s", needle, buf)

static void test_size(void)
{
	int rc;

	/* The size at the start, then a new one: SIGWINCH, the new size. */
	rc = drive("-s 120x40 -w ready -k '\\[size=80x24]'",
		   "trap \"stty size; exit 0\" WINCH; stty size; echo ready; "
		   "while :; do sleep 0.1; done");
	CHECK("ptyd-size-exit", rc == 0, "exit %d: %s", rc, out);
	HAS("ptyd-size-start", out, "40 120\r\n");
	HAS("ptyd-size-winch", out, "24 80\r\n");
	rc = drive("-s 80x24 -k x", "stty size; sleep 0.5");
	HAS("ptyd-size-80x24", out, "24 80\r\n");
}

static void test_screen(void)
{
	int rc;

	rc = drive("-s 80x24 -w 0000 -k '\\[snap]'", "printf \"%0100d\\n\" 0; sleep 1");
	CHECK("ptyd-wrap-exit", rc == 0, "exit %d: %s", rc, out);
	HAS("ptyd-wrap-counted", out, ", 1 wrapped lines,");
	HAS("ptyd-wrap-snap", scr, "--- screen 1 (snap) 80x24 at ");
	HAS("ptyd-wrap-snap-count", scr, ": wraps 1, alternate screen off, cursor visible ---");
	/* Exactly the width: the cursor waits at the last column, no wrap. */
	drive("-s 80x24 -k x", "printf \"%080d\\n\" 0; sleep 0.5");
	HAS("ptyd-width-no-wrap", out, ", 0 wrapped lines,");
	/* A clear starts the screen over: the snapshot shows what follows. */
	drive("-s 80x24 -w c-end -k '\\[snap]'", "printf \"a\\n\\033[H\\033[2Jb\\nc-end\\n\"; sleep 1");
	HAS("ptyd-snap-after-clear", scr, "cursor visible ---\nb\nc-end\n");
}

static void test_restore(void)
{
	int rc;

	rc = drive("-k x", "sleep 0.5");
	CHECK("ptyd-restored", rc == 0 && strstr(out, "terminal restored\n"), "exit %d: %s", rc, out);
	rc = drive("-k x", "stty raw -echo; sleep 0.5");
	CHECK("ptyd-raw-not-restored", rc == 125 && strstr(out, "terminal NOT restored\n"),
	      "exit %d: %s", rc, out);
	rc = drive("-k x", "stty -echo; sleep 0.5");
	CHECK("ptyd-noecho-not-restored", rc == 125, "exit %d: %s", rc, out);
	rc = drive("-k x", "printf \"\\033[?1049h\"; sleep 0.5");
	CHECK("ptyd-alt-not-left", rc == 125 && strstr(out, "alternate screen still on"),
	      "exit %d: %s", rc, out);
	rc = drive("-k x", "printf \"\\033[?1049h\\033[?1049l\"; sleep 0.5");
	CHECK("ptyd-alt-left", rc == 0 && strstr(out, "alternate screen used and left"),
	      "exit %d: %s", rc, out);
	rc = drive("-k x", "printf \"\\033[?25l\"; sleep 0.5");
	CHECK("ptyd-cursor-hidden", rc == 125 && strstr(out, "cursor hidden"), "exit %d: %s", rc, out);
	rc = drive("-k x", "printf \"\\033[?25l\\033[?25h\"; sleep 0.5");
	CHECK("ptyd-cursor-shown", rc == 0 && strstr(out, "cursor visible"), "exit %d: %s", rc, out);
}

static void test_jobs(void)
{
	int rc;

	/*
	 * Ctrl-Z stops the command; the modes it left are seen while stopped.
	 * Typed keys wait for "ready", the command running: on a loaded host
	 * a Ctrl-Z typed 200 ms after the start was once lost (the child
	 * still had ptydrive's dispositions).
	 */
	rc = drive("-w ready -k '\\cZ\\[fg]'", "stty -icanon -echo; echo ready; sleep 1.5");
	HAS("ptyd-ctrl-z-raw", out, "ptydrive: stopped by signal 20, terminal NOT restored\n");
	rc = drive("-w ready -k '\\cZ\\[fg]'", "echo ready; sleep 1.5");
	HAS("ptyd-ctrl-z", out, "ptydrive: stopped by signal 20, terminal restored\nptydrive: fg\n");
	CHECK("ptyd-fg-exit", rc == 0 && strstr(out, "2 of 2 keys sent"), "exit %d: %s", rc, out);
	rc = drive("-k '\\[sig=HUP]'", "sleep 5");
	CHECK("ptyd-sighup", rc == 129, "exit %d: %s", rc, out);
	rc = drive("-w ready -k '\\cC'", "echo ready; sleep 5");
	CHECK("ptyd-ctrl-c", rc == 130, "exit %d: %s", rc, out);
	rc = drive("-t 1s -k x", "sleep 5");
	CHECK("ptyd-timeout", rc == 124, "exit %d: %s", rc, out);
}

int main(void)
{
	if (unit_tool_path(tool, sizeof(tool), "ptydrive")) {
		perror("readlink");
		return 1;
	}
	if (access(tool, X_OK)) {
		printf("skip ptydrive - no %s: make -C tools\n", tool);
		return 0;
	}
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	setenv("PTYD", tool, 1);
	test_size();
	test_screen();
	test_restore();
	test_jobs();
	unit_rm_rf(dir);
	return unit_exit();
}

// SPDX-License-Identifier: GPL-2.0
/*
 * proxytop_tui: the interactive screen of proxytop, on ncurses (see
 * proxytop_tui.h).
 *
 * Signals are flags: the handlers only note them, tui_wait() acts on
 * them between keys with every one of them blocked except inside ppoll(),
 * so none is lost between the check and the wait.  Our handlers are in
 * place before newterm(), so ncurses installs none of its own (it only
 * catches signals still at SIG_DFL) and never draws from a handler.
 */
#include <curses.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <term.h>
#include <time.h>
#include <unistd.h>
#include "proxytop_tui.h"
#include "pxutil.h"

static SCREEN *screen;
static const volatile sig_atomic_t *exiting;
static volatile sig_atomic_t got_winch, got_tstp, got_cont, got_end;
static bool atexit_done;

/* Every signal tui_wait() handles, blocked outside ppoll(). */
static const int tui_sigs[] = { SIGWINCH, SIGTSTP, SIGCONT, SIGHUP, SIGQUIT, SIGINT, SIGTERM };

static void on_signal(int sig)
{
	switch (sig) {
	case SIGWINCH:
		got_winch = 1;
		break;
	case SIGTSTP:
		got_tstp = 1;
		break;
	case SIGCONT:
		got_cont = 1;
		break;
	default:		/* SIGHUP, SIGQUIT */
		got_end = sig;
		break;
	}
}

static void catch(int sig, void (*fn)(int))
{
	struct sigaction sa = { .sa_handler = fn };

	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

int tui_probe(char *why, size_t len)
{
	const char *term = getenv("TERM");
	int errret = 0;

	if (!term || !*term) {
		snprintf(why, len, "TERM is not set");
		return -1;
	}
	if (setupterm(NULL, STDOUT_FILENO, &errret) != OK) {
		if (errret == 0)
			snprintf(why, len, "TERM '%s' is a hardcopy or generic terminal", term);
		else
			snprintf(why, len, "no terminfo entry for TERM '%s' (searched $TERMINFO, "
				 "~/.terminfo, /etc/terminfo, /lib/terminfo, /usr/share/terminfo)",
				 term);
		return -1;
	}
	if (!tigetstr("cup") || tigetstr("cup") == (char *)-1) {
		snprintf(why, len, "TERM '%s' cannot address the cursor", term);
		del_curterm(cur_term);
		return -1;
	}
	del_curterm(cur_term);
	return 0;
}

static void atexit_end(void)
{
	tui_end();
}

int tui_start(const volatile sig_atomic_t *stop)
{
	size_t i;

	exiting = stop;
	for (i = 0; i < PX_ARRAY_SIZE(tui_sigs); i++)
		if (tui_sigs[i] != SIGINT && tui_sigs[i] != SIGTERM)
			catch(tui_sigs[i], on_signal);
	screen = newterm(NULL, stdout, stdin);
	if (!screen)
		return -1;
	if (!atexit_done) {
		atexit(atexit_end);
		atexit_done = true;
	}
	cbreak();		/* keys at once; Ctrl-C and Ctrl-Z still signal */
	noecho();
	nonl();
	intrflush(stdscr, FALSE);
	leaveok(stdscr, TRUE);
	curs_set(0);
	erase();
	refresh();
	return 0;
}

void tui_end(void)
{
	size_t i;

	if (!screen)
		return;
	curs_set(1);
	endwin();
	delscreen(screen);
	screen = NULL;
	for (i = 0; i < PX_ARRAY_SIZE(tui_sigs); i++)
		if (tui_sigs[i] != SIGINT && tui_sigs[i] != SIGTERM)
			catch(tui_sigs[i], SIG_DFL);
}

int tui_cols(void)
{
	return COLS;
}

int tui_lines(void)
{
	return LINES;
}

int tui_end_signal(void)
{
	return got_end;
}

void tui_draw(const char *text, int title)
{
	const char *p = text, *nl;
	char line[1024];
	int y, x, n;

	erase();
	for (y = 0; *p && y < LINES; y++, p = nl + !!*nl) {
		nl = strchrnul(p, '\n');
		n = nl - p;
		if (n > COLS)
			n = COLS;
		if (n > (int)sizeof(line))
			n = sizeof(line);
		/* Comms are any bytes: what is not printable takes one cell as '?'. */
		for (x = 0; x < n; x++)
			line[x] = p[x] >= 0x20 && p[x] < 0x7f ? p[x] : '?';
		if (y == title) {
			attron(A_REVERSE);
			mvhline(y, 0, ' ', COLS);
		}
		mvaddnstr(y, 0, line, n);
		if (y == title)
			attroff(A_REVERSE);
	}
	/*
	 * Send the first line whole every time, not only the cells that
	 * changed: a log of the terminal (ptydrive, script(1)) then shows
	 * every header as it was drawn.
	 */
	wredrawln(stdscr, 0, 1);
	refresh();
}

/* The window's size from the terminal; tell ncurses. */
static void resize(void)
{
	struct winsize ws;

	if (!ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_row && ws.ws_col)
		resizeterm(ws.ws_row, ws.ws_col);
	clearok(curscr, TRUE);
}

/*
 * Ctrl-Z: give the terminal back, stop as the job control signal asks
 * (default action, now unblocked), and on SIGCONT take it again.
 */
static void suspend(const sigset_t *blocked_all)
{
	sigset_t only_tstp;

	endwin();
	fflush(stdout);
	catch(SIGTSTP, SIG_DFL);
	sigemptyset(&only_tstp);
	sigaddset(&only_tstp, SIGTSTP);
	raise(SIGTSTP);		/* pending: blocked */
	sigprocmask(SIG_UNBLOCK, &only_tstp, NULL);
	/* ... stopped here until fg (SIGCONT) ... */
	sigprocmask(SIG_SETMASK, blocked_all, NULL);
	catch(SIGTSTP, on_signal);
	got_cont = 0;
	resize();		/* the window may have changed meanwhile */
}

int tui_wait(uint64_t deadline_ns, void (*tick)(void))
{
	struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
	uint64_t learnt = px_now_ns();
	sigset_t all, old;
	int ret = TUI_TIMEOUT;
	size_t i;

	sigemptyset(&all);
	for (i = 0; i < PX_ARRAY_SIZE(tui_sigs); i++)
		sigaddset(&all, tui_sigs[i]);
	sigprocmask(SIG_BLOCK, &all, &old);
	sigprocmask(SIG_BLOCK, NULL, &all);
	for (;;) {
		uint64_t now = px_now_ns(), left;
		struct timespec ts;
		unsigned char ch;
		ssize_t n;
		int rc;

		if ((exiting && *exiting) || got_end) {
			ret = TUI_EXIT;
			break;
		}
		if (got_tstp) {
			got_tstp = 0;
			suspend(&all);
			ret = TUI_REDRAW;
			break;
		}
		if (got_cont || got_winch) {
			/* SIGCONT alone (kill -STOP, kill -CONT): the modes may have changed. */
			if (got_cont)
				reset_prog_mode();
			got_cont = got_winch = 0;
			resize();
			ret = TUI_REDRAW;
			break;
		}
		if (tick && now - learnt >= 1000000000ULL) {
			tick();
			learnt = now;
		}
		if (now >= deadline_ns) {
			ret = TUI_TIMEOUT;
			break;
		}
		left = deadline_ns - now;
		if (tick && left > 1000000000ULL)
			left = 1000000000ULL;
		ts.tv_sec = left / 1000000000ULL;
		ts.tv_nsec = left % 1000000000ULL;
		rc = ppoll(&pfd, 1, &ts, &old);
		if (rc <= 0)
			continue;	/* a signal, or a tick */
		n = read(STDIN_FILENO, &ch, 1);
		if (n == 1 && ch == ('L' & 0x1f)) {
			clearok(curscr, TRUE);	/* Ctrl-L: repaint it all */
			ret = TUI_REDRAW;
			break;
		}
		if (n == 1) {
			ret = ch;
			break;
		}
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		/* EOF or EIO: the terminal is gone (hangup). */
		ret = TUI_EXIT;
		break;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return ret;
}

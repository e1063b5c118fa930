/* SPDX-License-Identifier: GPL-2.0 */
/*
 * proxytop_tui: proxytop's interactive screen, on ncurses.  proxytop.c
 * renders text; this part owns the terminal: it fits the text to the
 * window, reads keys, and handles the signals that concern the terminal
 * (SIGWINCH redraws at once, SIGTSTP leaves the screen and stops, SIGCONT
 * comes back, SIGHUP/SIGQUIT end like q).  Every exit path leaves the
 * terminal as it was found: tui_end() runs from atexit() too.
 */
#ifndef __PROXYTOP_TUI_H
#define __PROXYTOP_TUI_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

/* tui_wait() results besides a key (0..255). */
enum {
	TUI_TIMEOUT = -1,	/* the deadline passed */
	TUI_REDRAW = -2,	/* resized or resumed: draw again (same data) */
	TUI_EXIT = -3,		/* SIGINT/SIGTERM (pxbpf_exiting), SIGHUP, SIGQUIT, input gone */
};

/*
 * Can the terminal on stdout be driven (terminfo for $TERM)?  0, or -1
 * with the reason in @why.  Touches nothing on the screen.
 */
int tui_probe(char *why, size_t len);

/*
 * Take the terminal (newterm, cbreak, noecho, hidden cursor).  tui_wait()
 * returns TUI_EXIT once *@stop is set (by SIGINT/SIGTERM).  0 or -1.
 */
int tui_start(const volatile sig_atomic_t *stop);

/* Give the terminal back as it was found (idempotent). */
void tui_end(void);

/* Window size, valid after tui_start(). */
int tui_cols(void);
int tui_lines(void);

/*
 * Draw @text ('\n'-separated lines) from the top: each line cut to the
 * width, lines past the bottom dropped, the rest of the screen cleared.
 * Line @title (-1: none) is drawn in reverse video across the width.
 */
void tui_draw(const char *text, int title);

/*
 * Wait until a key comes (returned, 0..255), until @deadline_ns
 * (px_now_ns() clock; TUI_TIMEOUT), or a signal needs a redraw or an
 * exit.  @tick is called about every second meanwhile (NULL: none).
 */
int tui_wait(uint64_t deadline_ns, void (*tick)(void));

/* The signal (SIGHUP, SIGQUIT) that ended the view, else 0. */
int tui_end_signal(void);

#endif /* __PROXYTOP_TUI_H */

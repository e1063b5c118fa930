/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ptydrive's screen model (ptydrive_screen.c): what a VT100/xterm/Linux
 * console would show of the bytes the command writes, so tests can look
 * at the screen rather than at escape sequences.  It knows the sequences
 * ncurses sends for TERM=linux, vt100 and xterm (cursor addressing and
 * motion, erase, insert/delete of lines and characters, scroll regions,
 * insert mode, the alternate screen, cursor visibility, autowrap); other
 * sequences are parsed and ignored, attributes and colours dropped.
 *
 * A printable character written while the cursor sits past the last column
 * wraps to the next line: each such wrap is counted (a line of output
 * longer than the width).  A resize clears the screen, so whatever shows
 * afterwards was drawn after it.
 */
#ifndef __PTYDRIVE_H
#define __PTYDRIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct screen;

struct screen *screen_new(int cols, int rows);
void screen_free(struct screen *s);
/* Feed output bytes. */
void screen_feed(struct screen *s, const char *buf, size_t n);
/* New size: the screen is cleared, the cursor goes home. */
void screen_resize(struct screen *s, int cols, int rows);

struct screen_state {
	int cols, rows;
	unsigned long wraps;	/* lines longer than the width, since the start */
	bool alt;		/* on the alternate screen */
	bool alt_used;		/* it was entered at least once */
	bool cursor_hidden;
};
void screen_state(const struct screen *s, struct screen_state *st);

/* The rows as text, trailing blanks dropped, one '\n' each. */
void screen_dump(const struct screen *s, FILE *f);

#endif /* __PTYDRIVE_H */

// SPDX-License-Identifier: GPL-2.0
/*
 * ptydrive_screen: a small terminal emulator for ptydrive (see ptydrive.h).
 * One character cell per byte; enough of ECMA-48/VT100/xterm and the Linux
 * console to follow ncurses and plain ANSI output.
 */
#include <stdlib.h>
#include <string.h>
#include "ptydrive.h"

#define MAX_PARAMS	16

enum state { ST_GROUND, ST_ESC, ST_CSI, ST_OSC, ST_OSC_ESC, ST_SKIP1, ST_LINUX_P };

struct screen {
	int cols, rows;
	char *main, *alt, *cells;	/* cells: the buffer shown */
	int x, y;
	bool wrap_pending;		/* at the last column, the next char wraps */
	int top, bot;			/* scroll region, rows top..bot */
	bool insert, autowrap, alt_on, alt_used, cursor_hidden;
	int saved_x, saved_y;
	unsigned long wraps;
	/* parser */
	enum state st;
	char priv;			/* CSI private marker: ? > = < or 0 */
	int params[MAX_PARAMS], nparams;
	int skip;			/* ST_LINUX_P: hex digits left */
};

static char *cell(struct screen *s, int y, int x)
{
	return &s->cells[y * s->cols + x];
}

static void blank(struct screen *s, int y, int x0, int x1)	/* [x0, x1) */
{
	if (x0 < x1)
		memset(cell(s, y, x0), ' ', x1 - x0);
}

static void alloc_cells(struct screen *s)
{
	size_t n = (size_t)s->cols * s->rows;

	free(s->main);
	free(s->alt);
	s->main = malloc(n);
	s->alt = malloc(n);
	if (!s->main || !s->alt)
		abort();
	memset(s->main, ' ', n);
	memset(s->alt, ' ', n);
	s->cells = s->alt_on ? s->alt : s->main;
}

struct screen *screen_new(int cols, int rows)
{
	struct screen *s = calloc(1, sizeof(*s));

	if (!s)
		abort();
	s->autowrap = true;
	screen_resize(s, cols, rows);
	return s;
}

void screen_free(struct screen *s)
{
	if (!s)
		return;
	free(s->main);
	free(s->alt);
	free(s);
}

void screen_resize(struct screen *s, int cols, int rows)
{
	s->cols = cols < 1 ? 1 : cols;
	s->rows = rows < 1 ? 1 : rows;
	alloc_cells(s);
	s->x = s->y = 0;
	s->top = 0;
	s->bot = s->rows - 1;
	s->wrap_pending = false;
}

/* Scroll rows top..bot up (n > 0) or down (n < 0) by |n|. */
static void scroll_region(struct screen *s, int top, int bot, int n)
{
	int h = bot - top + 1, i;

	if (n > h)
		n = h;
	if (n < -h)
		n = -h;
	if (n > 0) {
		memmove(cell(s, top, 0), cell(s, top + n, 0), (size_t)(h - n) * s->cols);
		for (i = bot - n + 1; i <= bot; i++)
			blank(s, i, 0, s->cols);
	} else if (n < 0) {
		n = -n;
		memmove(cell(s, top + n, 0), cell(s, top, 0), (size_t)(h - n) * s->cols);
		for (i = top; i < top + n; i++)
			blank(s, i, 0, s->cols);
	}
}

static void linefeed(struct screen *s)
{
	if (s->y == s->bot)
		scroll_region(s, s->top, s->bot, 1);
	else if (s->y < s->rows - 1)
		s->y++;
}

static void reverse_index(struct screen *s)
{
	if (s->y == s->top)
		scroll_region(s, s->top, s->bot, -1);
	else if (s->y > 0)
		s->y--;
}

static void put(struct screen *s, char c)
{
	if (s->wrap_pending) {
		s->wrap_pending = false;
		s->wraps++;
		s->x = 0;
		linefeed(s);
	}
	if (s->insert)
		memmove(cell(s, s->y, s->x + 1), cell(s, s->y, s->x), s->cols - s->x - 1);
	*cell(s, s->y, s->x) = c;
	if (s->x == s->cols - 1)
		s->wrap_pending = s->autowrap;
	else
		s->x++;
}

static int clamp(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

static void move_to(struct screen *s, int y, int x)
{
	s->y = clamp(y, 0, s->rows - 1);
	s->x = clamp(x, 0, s->cols - 1);
	s->wrap_pending = false;
}

static void set_alt(struct screen *s, bool on, bool save_cursor)
{
	if (on == s->alt_on)
		return;
	if (on && save_cursor) {
		s->saved_x = s->x;
		s->saved_y = s->y;
	}
	s->alt_on = on;
	s->cells = on ? s->alt : s->main;
	if (on) {
		s->alt_used = true;
		memset(s->alt, ' ', (size_t)s->cols * s->rows);
	} else if (save_cursor) {
		move_to(s, s->saved_y, s->saved_x);
	}
}

static void private_mode(struct screen *s, int mode, bool on)
{
	switch (mode) {
	case 7:
		s->autowrap = on;
		break;
	case 25:
		s->cursor_hidden = !on;
		break;
	case 47:
	case 1047:
		set_alt(s, on, false);
		break;
	case 1049:
		set_alt(s, on, true);
		break;
	}
}

static void erase_display(struct screen *s, int how)
{
	int i;

	if (how == 0) {
		blank(s, s->y, s->x, s->cols);
		for (i = s->y + 1; i < s->rows; i++)
			blank(s, i, 0, s->cols);
	} else if (how == 1) {
		blank(s, s->y, 0, s->x + 1);
		for (i = 0; i < s->y; i++)
			blank(s, i, 0, s->cols);
	} else {
		for (i = 0; i < s->rows; i++)
			blank(s, i, 0, s->cols);
	}
}

static void csi(struct screen *s, char final)
{
	int p0 = s->nparams ? s->params[0] : 0, n = p0 ? p0 : 1, i, k;

	if (s->priv == '?') {
		if (final == 'h' || final == 'l')
			for (i = 0; i < s->nparams; i++)
				private_mode(s, s->params[i], final == 'h');
		return;
	}
	if (s->priv)
		return;		/* > = <: device attributes and the like */
	switch (final) {
	case 'A':
		move_to(s, s->y - n, s->x);
		break;
	case 'B':
	case 'e':
		move_to(s, s->y + n, s->x);
		break;
	case 'C':
	case 'a':
		move_to(s, s->y, s->x + n);
		break;
	case 'D':
		move_to(s, s->y, s->x - n);
		break;
	case 'E':
		move_to(s, s->y + n, 0);
		break;
	case 'F':
		move_to(s, s->y - n, 0);
		break;
	case 'G':
	case '`':
		move_to(s, s->y, n - 1);
		break;
	case 'd':
		move_to(s, n - 1, s->x);
		break;
	case 'H':
	case 'f':
		move_to(s, n - 1, s->nparams > 1 && s->params[1] ? s->params[1] - 1 : 0);
		break;
	case 'J':
		erase_display(s, p0);
		break;
	case 'K':
		if (p0 == 0)
			blank(s, s->y, s->x, s->cols);
		else if (p0 == 1)
			blank(s, s->y, 0, s->x + 1);
		else
			blank(s, s->y, 0, s->cols);
		break;
	case 'L':
	case 'M':
		if (s->y >= s->top && s->y <= s->bot)
			scroll_region(s, s->y, s->bot, final == 'L' ? -n : n);
		s->x = 0;
		s->wrap_pending = false;
		break;
	case 'S':
		scroll_region(s, s->top, s->bot, n);
		break;
	case 'T':
		scroll_region(s, s->top, s->bot, -n);
		break;
	case 'P':
		k = clamp(n, 0, s->cols - s->x);
		memmove(cell(s, s->y, s->x), cell(s, s->y, s->x + k), s->cols - s->x - k);
		blank(s, s->y, s->cols - k, s->cols);
		s->wrap_pending = false;
		break;
	case '@':
		k = clamp(n, 0, s->cols - s->x);
		memmove(cell(s, s->y, s->x + k), cell(s, s->y, s->x), s->cols - s->x - k);
		blank(s, s->y, s->x, s->x + k);
		s->wrap_pending = false;
		break;
	case 'X':
		blank(s, s->y, s->x, clamp(s->x + n, 0, s->cols));
		s->wrap_pending = false;
		break;
	case 'r':
		s->top = clamp(p0 ? p0 - 1 : 0, 0, s->rows - 1);
		s->bot = clamp(s->nparams > 1 && s->params[1] ? s->params[1] - 1 : s->rows - 1,
			       s->top, s->rows - 1);
		move_to(s, 0, 0);
		break;
	case 'h':
	case 'l':
		for (i = 0; i < s->nparams; i++)
			if (s->params[i] == 4)
				s->insert = final == 'h';
		break;
	case 's':
		s->saved_x = s->x;
		s->saved_y = s->y;
		break;
	case 'u':
		move_to(s, s->saved_y, s->saved_x);
		break;
	}
}

static void reset(struct screen *s)
{
	s->alt_on = false;
	s->cells = s->main;
	s->insert = false;
	s->autowrap = true;
	s->cursor_hidden = false;
	s->top = 0;
	s->bot = s->rows - 1;
	erase_display(s, 2);
	move_to(s, 0, 0);
}

static void feed1(struct screen *s, unsigned char c)
{
	switch (s->st) {
	case ST_ESC:
		s->st = ST_GROUND;
		switch (c) {
		case '[':
			s->st = ST_CSI;
			s->priv = 0;
			s->nparams = 0;
			memset(s->params, 0, sizeof(s->params));
			break;
		case ']':
			s->st = ST_OSC;
			s->skip = -1;
			break;
		case '(': case ')': case '*': case '+': case '#': case '%':
			s->st = ST_SKIP1;
			break;
		case '7':
			s->saved_x = s->x;
			s->saved_y = s->y;
			break;
		case '8':
			move_to(s, s->saved_y, s->saved_x);
			break;
		case 'D':
			linefeed(s);
			break;
		case 'E':
			s->x = 0;
			linefeed(s);
			break;
		case 'M':
			reverse_index(s);
			break;
		case 'c':
			reset(s);
			break;
		}
		return;
	case ST_SKIP1:
		s->st = ST_GROUND;
		return;
	case ST_CSI:
		if (c >= '0' && c <= '9') {
			if (!s->nparams)
				s->nparams = 1;
			if (s->params[s->nparams - 1] < 100000)
				s->params[s->nparams - 1] = s->params[s->nparams - 1] * 10 + c - '0';
		} else if (c == ';' || c == ':') {
			if (!s->nparams)
				s->nparams = 1;
			if (s->nparams < MAX_PARAMS)
				s->nparams++;
		} else if (c >= '<' && c <= '?' && !s->nparams) {
			s->priv = c;
		} else if (c >= 0x40 && c <= 0x7e) {
			s->st = ST_GROUND;
			csi(s, c);
		} else if (c == 0x1b) {
			s->st = ST_ESC;
		} else if (c < 0x20 || c > 0x7e) {
			s->st = ST_GROUND;	/* broken sequence */
		}
		return;
	case ST_OSC:
		/* Linux console: ESC ] R (palette reset), ESC ] P nrrggbb. */
		if (s->skip == -1 && (c == 'R' || c == 'P')) {
			s->st = c == 'R' ? ST_GROUND : ST_LINUX_P;
			s->skip = 7;
			return;
		}
		s->skip = 0;
		if (c == 7)
			s->st = ST_GROUND;
		else if (c == 0x1b)
			s->st = ST_OSC_ESC;
		return;
	case ST_OSC_ESC:
		s->st = c == '\\' ? ST_GROUND : ST_OSC;
		return;
	case ST_LINUX_P:
		if (--s->skip <= 0)
			s->st = ST_GROUND;
		return;
	case ST_GROUND:
		break;
	}
	switch (c) {
	case 0x1b:
		s->st = ST_ESC;
		break;
	case '\r':
		s->x = 0;
		s->wrap_pending = false;
		break;
	case '\n': case '\v': case '\f':
		linefeed(s);
		s->wrap_pending = false;
		break;
	case '\b':
		if (s->x > 0)
			s->x--;
		s->wrap_pending = false;
		break;
	case '\t':
		move_to(s, s->y, (s->x / 8 + 1) * 8);
		break;
	default:
		if (c >= 0x20 && c != 0x7f)
			put(s, c >= 0x80 ? '?' : c);
		break;		/* BEL, SO, SI, other controls: nothing to show */
	}
}

void screen_feed(struct screen *s, const char *buf, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		feed1(s, buf[i]);
}

void screen_state(const struct screen *s, struct screen_state *st)
{
	st->cols = s->cols;
	st->rows = s->rows;
	st->wraps = s->wraps;
	st->alt = s->alt_on;
	st->alt_used = s->alt_used;
	st->cursor_hidden = s->cursor_hidden;
}

void screen_dump(const struct screen *s, FILE *f)
{
	int y, n;

	for (y = 0; y < s->rows; y++) {
		const char *row = &s->cells[y * s->cols];

		for (n = s->cols; n > 0 && row[n - 1] == ' '; n--)
			;
		fprintf(f, "%.*s\n", n, row);
	}
}

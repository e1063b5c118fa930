/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PROXYTOP_RENDER_H
#define __PROXYTOP_RENDER_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>
#include "pxbpf_user.h"

/* The user side's state shared by proxytop.c and proxytop_render.c. */
enum view { VIEW_OWNER, VIEW_DONOR, VIEW_CGROUP, VIEW_NR };
enum sort { SORT_TIME, SORT_PICKS, SORT_DONORS, SORT_DEPTH, SORT_MIGRATIONS, SORT_NR };

extern const char *const view_names[VIEW_NR];
extern const char *const sort_names[SORT_NR];

struct proxytop_env {
	struct pxbpf_env c;
	bool batch;
	bool noclear;
	enum view view;
	enum sort sort;
	bool reverse;		/* key R: smallest first */
	long rows;
	long max_pairs;
	double delay;		/* seconds: -d, else the interval argument */
	bool count_set;		/* -n given */
};
extern struct proxytop_env env;

/* Two snapshots of the BPF maps; an interval is their difference. */
struct frame {
	struct px_counters cnt, prev_cnt;
	struct pxbpf_pairs cur, prev, delta;
	__u64 evicted, prev_evicted;	/* pxbpf_pairs_evicted() of cur, prev */
	int ncpus;
};

/*
 * How render_text() lays out: plain (-b and friends: the historic format,
 * byte for byte) or for a window of @cols x @lines (the header's figures
 * wrapped at the width, the CGROUP column narrowed, rows cut to fit).
 */
struct layout {
	bool clear;		/* plain: ANSI clear first */
	int cols, lines;	/* window; 0: plain */
	int max_rows;
	double secs;		/* window: the interval before the first one ends */
};

/* proxytop_render.c: the header and rows of a frame, as text or JSON. */
int render_text(FILE *f, const struct frame *fr, const struct layout *lo);
void render_json(FILE *f, const struct frame *fr);

#endif /* __PROXYTOP_RENDER_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Debian 12's libtracecmd-dev ships trace-cmd.h, which includes "tracefs.h",
 * without depending on libtracefs-dev.  pxpostmortem uses no libtracefs API:
 * this stands in for the header only when libtracefs-dev is missing (the
 * tools' Makefile puts this folder after the system ones, -idirafter), and
 * gives what trace-cmd.h takes from it: cpu_set_t and libtraceevent.
 */
#ifndef PX_COMPAT_TRACEFS_H
#define PX_COMPAT_TRACEFS_H

#include <sched.h>
#include <event-parse.h>

#endif /* PX_COMPAT_TRACEFS_H */

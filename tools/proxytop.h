/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PROXYTOP_H
#define __PROXYTOP_H

#include "pxtypes.h"

/*
 * proxytop reads, never clears: the cumulative pairs map (struct px_pair,
 * filtered by -p/-c), the per-CPU open stretch (struct px_stretch) and the
 * per-CPU system-wide struct px_counters; rates are differences between
 * two snapshots.
 */

#endif /* __PROXYTOP_H */

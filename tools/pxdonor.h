/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PXDONOR_H
#define __PXDONOR_H

#include "pxtypes.h"

/*
 * pxdonor keeps the cumulative pairs map (struct px_pair), the per-CPU
 * open stretch (struct px_stretch), per-CPU struct px_counters and one
 * struct px_hist of completed stretch lengths, cleared each interval.
 */

#endif /* __PXDONOR_H */

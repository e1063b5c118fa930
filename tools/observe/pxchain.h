/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PXCHAIN_H
#define __PXCHAIN_H

#include "pxtypes.h"

/* Key of the hists map: a donor or owner pid with -D/-O, else 0. */
struct pxchain_hist {
	__u64 slots[PX_MAX_DEPTH + 1];	/* linear: slot d = depth d, last = more */
	__u32 tgid;
	char comm[PX_COMM_LEN];
};

#endif /* __PXCHAIN_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The lab's uapi additions that the kernel tree the tools build against
 * (build/linux/include/uapi/linux/proxylab.h, copied to build/include)
 * may not have yet: the rt_mutexes of kernel/pending/0044, not yet in
 * kernel/series.  Each definition is the patch's own, used only when the
 * header lacks it, so the tools build against either header; on a kernel
 * without the patch the ioctls fail with ENOTTY, and the tools say so.
 * Drop a block once the series' header has it.
 */
#ifndef PX_LABCOMPAT_H
#define PX_LABCOMPAT_H

#include <linux/proxylab.h>

#ifndef PROXYLAB_IOC_RTMUTEX_LOCK
#define PROXYLAB_NR_RTMUTEXES		16
#define PROXYLAB_IOC_RTMUTEX_LOCK	_IOWR('x', 11, struct proxylab_lock)
#define PROXYLAB_IOC_RTMUTEX_UNLOCK	_IOW('x', 12, __u32)
#define PROXYLAB_IOC_RTMUTEX_HELD	_IOR('x', 13, __u64)
#endif

#define RTMUTEX_STATE_PATH	"/sys/kernel/debug/proxylab_rtmutex_state"

#endif /* PX_LABCOMPAT_H */

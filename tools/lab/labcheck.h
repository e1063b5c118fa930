/* SPDX-License-Identifier: GPL-2.0 */
/*
 * labcheck: what its parts share -- the check macro, the lab calls as
 * errno results, the state helpers (labcheck.c), the rwsem checks
 * (labcheck_rwsem.c), the sharing checks (labcheck_share.c) and the
 * rt_mutex checks (labcheck_rtmutex.c).
 */
#ifndef PX_LABCHECK_H
#define PX_LABCHECK_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "pxutil.h"

#define NR_RW_USED	6	/* lab rwsems base.. used by labcheck_rwsem.c, _share.c */
#define NR_RT_USED	6	/* lab rt_mutexes base.. used by labcheck_rtmutex.c */

extern int failed, base;

#define check(name, cond, ...) (failed |= !px_check("lab", name, cond, __VA_ARGS__))

/*
 * The lab's lock types: their LOCK, UNLOCK and HELD ioctls, the debugfs
 * state file, and the prefix of their check names ("" for the mutexes).
 */
struct lab_kind {
	const char *name;		/* "mutex", "rwsem", "rtmutex" */
	unsigned long lock, unlock, held;
	const char *state_path;		/* "index holder acquisitions" lines */
	const char *prefix;
};
extern const struct lab_kind lab_mutex, lab_rwsem;
extern const struct lab_kind lab_rtmutex;	/* labcheck_rtmutex.c */

/* labcheck.c: ioctl results as 0 or an errno, and the state helpers. */
int kind_lock_err(const struct lab_kind *k, int fd, uint32_t idx, uint32_t flags,
		  uint64_t *wait_ns);
int kind_unlock_err(const struct lab_kind *k, int fd, uint32_t idx);
uint64_t kind_held(const struct lab_kind *k, int fd);
/* "NAME-then-free": another process can lock and unlock @idx at once. */
void check_kind_free(const struct lab_kind *k, const char *name, int idx);
/* debugfs holder pid of lock @idx of a mutex-like kind, -1 if not there. */
int kind_state_holder(const struct lab_kind *k, int idx);
/* The check name @name of kind @k: its prefix and @name (a static buffer). */
const char *kname(const struct lab_kind *k, const char *name);
/* The waits every exclusive kind shares, on its lock @m (labcheck.c). */
void test_kind_killed_waiter(const struct lab_kind *k, int fd, int m);
void test_kind_interruptible(const struct lab_kind *k, int fd, int m);
void test_kind_uninterruptible(const struct lab_kind *k, int fd, int m);
int u64_err(int fd, unsigned long req, uint64_t v);
const char *ename(int err);
void check_errno(const char *name, int got, int want);
int blocked_on(int fd);
void on_usr1(int sig);

static inline int lock_err(int fd, uint32_t idx, uint32_t flags, uint64_t *wait_ns)
{
	return kind_lock_err(&lab_mutex, fd, idx, flags, wait_ns);
}

static inline int unlock_err(int fd, uint32_t idx)
{
	return kind_unlock_err(&lab_mutex, fd, idx);
}

static inline uint64_t held_mask(int fd)
{
	return kind_held(&lab_mutex, fd);
}

static inline void check_free(const char *name, int idx)
{
	check_kind_free(&lab_mutex, name, idx);
}

static inline int rw_lock_err(int fd, uint32_t idx, uint32_t flags, uint64_t *wait_ns)
{
	return kind_lock_err(&lab_rwsem, fd, idx, flags, wait_ns);
}

static inline int rw_unlock_err(int fd, uint32_t idx)
{
	return kind_unlock_err(&lab_rwsem, fd, idx);
}

static inline uint64_t rw_held_mask(int fd)
{
	return kind_held(&lab_rwsem, fd);
}

static inline void check_rw_free(const char *name, int idx)
{
	check_kind_free(&lab_rwsem, name, idx);
}

/* labcheck_rwsem.c */
bool have_rwsems(int fd);
void test_rwsem_errors(int fd);
void test_rwsem_blocking(int fd);

/* labcheck_rtmutex.c: skip lines when the lab has none (kernel/pending/0044) */
bool have_rtmutexes(int fd);
void test_rtmutex_errors(int fd);
void test_rtmutex_blocking(int fd);

/* labcheck_share.c: one file shared by readers; a dead holder's mutex @m */
void test_shared_file_reads(int fd);
void test_dead_holder_shared_files(int m);

#endif /* PX_LABCHECK_H */

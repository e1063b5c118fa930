/* SPDX-License-Identifier: GPL-2.0 */
/*
 * labcheck: what its two parts share -- the check macro, the lab calls as
 * errno results, the state helpers (labcheck.c), and the rwsem checks
 * (labcheck_rwsem.c).
 */
#ifndef PX_LABCHECK_H
#define PX_LABCHECK_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "pxutil.h"

#define NR_RW_USED	6	/* lab rwsems base.. used by labcheck_rwsem.c */

extern int failed, base;

#define check(name, cond, ...) (failed |= !px_check("lab", name, cond, __VA_ARGS__))

/* labcheck.c: ioctl results as 0 or an errno, and the state helpers. */
int lock_err(int fd, uint32_t idx, uint32_t flags, uint64_t *wait_ns);
int unlock_err(int fd, uint32_t idx);
int u64_err(int fd, unsigned long req, uint64_t v);
uint64_t held_mask(int fd);
const char *ename(int err);
void check_errno(const char *name, int got, int want);
bool wait_state(pid_t pid, char state, long ms);
int blocked_on(int fd);
void on_usr1(int sig);

/* labcheck_rwsem.c */
uint64_t rw_held_mask(int fd);
bool have_rwsems(int fd);
void test_rwsem_errors(int fd);
void test_rwsem_blocking(int fd);

#endif /* PX_LABCHECK_H */

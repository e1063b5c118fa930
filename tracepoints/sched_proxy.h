/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sched_proxy: what Proxy Execution decided and why.
 *
 * Every event takes task_struct pointers in TP_PROTO so that BPF programs
 * attached as tp_btf/raw_tp see typed arguments; the trace event records
 * only pids, comms, CPUs and the mutex address (never dereferenced later).
 *
 * Reference pages: tracepoints/events/<event>.md.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM sched_proxy

#if !defined(_TRACE_SCHED_PROXY_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_SCHED_PROXY_H

#include <linux/sched.h>
#include <linux/tracepoint.h>

#ifdef CONFIG_PROXY_EXEC

/* Why find_proxy_task() could not run an owner on the donor's behalf. */
#define PROXY_ABORT_REASONS					\
	EM(PROXY_ABORT_OWNER_CPU,	"owner_cpu")		\
	EM(PROXY_ABORT_OWNER_MIGRATING,	"owner_migrating")	\
	EM(PROXY_ABORT_CHAIN_CHANGED,	"chain_changed")	\
	EM(PROXY_ABORT_DEACTIVATED,	"deactivated")		\
	EM(PROXY_ABORT_OWNER_WAKING,	"owner_waking")		\
	EM(PROXY_ABORT_OWNER_PI_LOCKED,	"owner_pi_locked")	\
	EM(PROXY_ABORT_OWNER_READERS,	"owner_readers")		\
	EMe(PROXY_ABORT_RUNNING_UNMARKED, "running_unmarked")

#define PROXY_RETURN_STRATEGIES					\
	EM(PROXY_RETURN_SCHEDULE,	"schedule")		\
	EMe(PROXY_RETURN_TTWU,		"ttwu")

#define PROXY_HANDOFF_KINDS					\
	EM(PROXY_HANDOFF_DONOR,		"donor")		\
	EMe(PROXY_HANDOFF_TOP_WAITER,	"top_waiter")

/* The type of lock a donor's chain went through (task_struct::blocked_on). */
#define PROXY_LOCK_TYPES					\
	EM(PROXY_LOCK_MUTEX,		"mutex")		\
	EMe(PROXY_LOCK_RWSEM,		"rwsem")

#ifndef __SCHED_PROXY_ENUMS_ONCE
#define __SCHED_PROXY_ENUMS_ONCE
#undef EM
#undef EMe
#define EM(a, b)	a,
#define EMe(a, b)	a
enum proxy_abort_reason { PROXY_ABORT_REASONS };
enum proxy_return_strategy { PROXY_RETURN_STRATEGIES };
enum proxy_handoff_kind { PROXY_HANDOFF_KINDS };
enum proxy_lock_type { PROXY_LOCK_TYPES };

static inline enum proxy_lock_type proxy_lock_type(void *blocked_on)
{
	return blocked_on_to_rwsem(blocked_on) ? PROXY_LOCK_RWSEM : PROXY_LOCK_MUTEX;
}
#endif

#undef EM
#undef EMe
#define EM(a, b)	TRACE_DEFINE_ENUM(a);
#define EMe(a, b)	TRACE_DEFINE_ENUM(a);
PROXY_ABORT_REASONS
PROXY_RETURN_STRATEGIES
PROXY_HANDOFF_KINDS
PROXY_LOCK_TYPES

#undef EM
#undef EMe
#define EM(a, b)	{ a, b },
#define EMe(a, b)	{ a, b }

/*
 * find_proxy_task() resolved the picked donor to a runnable owner on this
 * runqueue: @owner runs with @donor's scheduling context.  @depth is the
 * number of locks walked (1: donor waits directly on owner's lock);
 * @blocked_on is the last one, as task_struct::blocked_on encodes it.
 */
TRACE_EVENT(sched_proxy_pick,

	TP_PROTO(struct task_struct *donor, struct task_struct *owner,
		 void *blocked_on, int depth),

	TP_ARGS(donor, owner, blocked_on, depth),

	TP_STRUCT__entry(
		__array(char, donor_comm, TASK_COMM_LEN)
		__field(pid_t, donor_pid)
		__array(char, owner_comm, TASK_COMM_LEN)
		__field(pid_t, owner_pid)
		__field(void *, lock)
		__field(int, depth)
		__field(int, cpu)
		__field(int, lock_type)
	),

	TP_fast_assign(
		memcpy(__entry->donor_comm, donor->comm, TASK_COMM_LEN);
		__entry->donor_pid	= donor->pid;
		memcpy(__entry->owner_comm, owner->comm, TASK_COMM_LEN);
		__entry->owner_pid	= owner->pid;
		__entry->lock		= blocked_on_lock(blocked_on);
		__entry->depth		= depth;
		__entry->cpu		= task_cpu(owner);
		__entry->lock_type	= proxy_lock_type(blocked_on);
	),

	TP_printk("donor_comm=%s donor_pid=%d owner_comm=%s owner_pid=%d lock=%p depth=%d cpu=%d lock_type=%s",
		  __entry->donor_comm, __entry->donor_pid,
		  __entry->owner_comm, __entry->owner_pid,
		  __entry->lock, __entry->depth, __entry->cpu,
		  __print_symbolic(__entry->lock_type, PROXY_LOCK_TYPES))
);

/*
 * find_proxy_task() gave up on @donor.  @owner is the last task reached on
 * the chain (NULL when the chain changed under us: owner_pid=-1),
 * @blocked_on the lock it was reached through, @depth how far the walk got.
 */
TRACE_EVENT(sched_proxy_abort,

	TP_PROTO(struct task_struct *donor, struct task_struct *owner,
		 void *blocked_on, int depth, enum proxy_abort_reason reason),

	TP_ARGS(donor, owner, blocked_on, depth, reason),

	TP_STRUCT__entry(
		__array(char, donor_comm, TASK_COMM_LEN)
		__field(pid_t, donor_pid)
		__field(pid_t, owner_pid)
		__field(int, owner_cpu)
		__field(void *, lock)
		__field(int, depth)
		__field(int, cpu)
		__field(int, reason)
		__field(int, lock_type)
	),

	TP_fast_assign(
		memcpy(__entry->donor_comm, donor->comm, TASK_COMM_LEN);
		__entry->donor_pid	= donor->pid;
		__entry->owner_pid	= owner ? owner->pid : -1;
		__entry->owner_cpu	= owner ? task_cpu(owner) : -1;
		__entry->lock		= blocked_on_lock(blocked_on);
		__entry->depth		= depth;
		__entry->cpu		= task_cpu(donor);
		__entry->reason		= reason;
		__entry->lock_type	= proxy_lock_type(blocked_on);
	),

	TP_printk("donor_comm=%s donor_pid=%d owner_pid=%d owner_cpu=%d lock=%p depth=%d cpu=%d reason=%s lock_type=%s",
		  __entry->donor_comm, __entry->donor_pid, __entry->owner_pid,
		  __entry->owner_cpu, __entry->lock, __entry->depth,
		  __entry->cpu,
		  __print_symbolic(__entry->reason, PROXY_ABORT_REASONS),
		  __print_symbolic(__entry->lock_type, PROXY_LOCK_TYPES))
);

/*
 * The context pair on this CPU changed and either side is split
 * (execution context != scheduling context).  A proxy stretch starts when
 * next_pid != next_donor_pid and ends at the next sched_proxy_switch on the
 * same CPU, which always fires when leaving a split pair.
 */
TRACE_EVENT(sched_proxy_switch,

	TP_PROTO(struct task_struct *prev, struct task_struct *prev_donor,
		 struct task_struct *next, struct task_struct *next_donor),

	TP_ARGS(prev, prev_donor, next, next_donor),

	TP_STRUCT__entry(
		__field(pid_t, prev_pid)
		__field(pid_t, prev_donor_pid)
		__array(char, next_comm, TASK_COMM_LEN)
		__field(pid_t, next_pid)
		__array(char, next_donor_comm, TASK_COMM_LEN)
		__field(pid_t, next_donor_pid)
		__field(int, next_donor_prio)
	),

	TP_fast_assign(
		__entry->prev_pid	= prev->pid;
		__entry->prev_donor_pid	= prev_donor->pid;
		memcpy(__entry->next_comm, next->comm, TASK_COMM_LEN);
		__entry->next_pid	= next->pid;
		memcpy(__entry->next_donor_comm, next_donor->comm, TASK_COMM_LEN);
		__entry->next_donor_pid	= next_donor->pid;
		__entry->next_donor_prio = next_donor->prio;
	),

	TP_printk("prev_pid=%d prev_donor_pid=%d next_comm=%s next_pid=%d next_donor_comm=%s next_donor_pid=%d next_donor_prio=%d",
		  __entry->prev_pid, __entry->prev_donor_pid,
		  __entry->next_comm, __entry->next_pid,
		  __entry->next_donor_comm, __entry->next_donor_pid,
		  __entry->next_donor_prio)
);

/* @donor was migrated from @src_cpu to @owner's CPU @dst_cpu. */
TRACE_EVENT(sched_proxy_migrate,

	TP_PROTO(struct task_struct *donor, struct task_struct *owner,
		 int src_cpu, int dst_cpu),

	TP_ARGS(donor, owner, src_cpu, dst_cpu),

	TP_STRUCT__entry(
		__array(char, donor_comm, TASK_COMM_LEN)
		__field(pid_t, donor_pid)
		__field(pid_t, owner_pid)
		__field(int, src_cpu)
		__field(int, dst_cpu)
	),

	TP_fast_assign(
		memcpy(__entry->donor_comm, donor->comm, TASK_COMM_LEN);
		__entry->donor_pid	= donor->pid;
		__entry->owner_pid	= owner ? owner->pid : -1;
		__entry->src_cpu	= src_cpu;
		__entry->dst_cpu	= dst_cpu;
	),

	TP_printk("donor_comm=%s donor_pid=%d owner_pid=%d src_cpu=%d dst_cpu=%d",
		  __entry->donor_comm, __entry->donor_pid, __entry->owner_pid,
		  __entry->src_cpu, __entry->dst_cpu)
);

/* A migrated donor went back to a CPU it may run on. */
TRACE_EVENT(sched_proxy_return,

	TP_PROTO(struct task_struct *p, int src_cpu, int dst_cpu,
		 enum proxy_return_strategy strategy),

	TP_ARGS(p, src_cpu, dst_cpu, strategy),

	TP_STRUCT__entry(
		__array(char, comm, TASK_COMM_LEN)
		__field(pid_t, pid)
		__field(int, src_cpu)
		__field(int, dst_cpu)
		__field(int, strategy)
	),

	TP_fast_assign(
		memcpy(__entry->comm, p->comm, TASK_COMM_LEN);
		__entry->pid		= p->pid;
		__entry->src_cpu	= src_cpu;
		__entry->dst_cpu	= dst_cpu;
		__entry->strategy	= strategy;
	),

	TP_printk("comm=%s pid=%d src_cpu=%d dst_cpu=%d strategy=%s",
		  __entry->comm, __entry->pid, __entry->src_cpu,
		  __entry->dst_cpu,
		  __print_symbolic(__entry->strategy, PROXY_RETURN_STRATEGIES))
);

DECLARE_EVENT_CLASS(sched_proxy_sleeping_owner_template,

	TP_PROTO(struct task_struct *donor, struct task_struct *owner),

	TP_ARGS(donor, owner),

	TP_STRUCT__entry(
		__array(char, donor_comm, TASK_COMM_LEN)
		__field(pid_t, donor_pid)
		__array(char, owner_comm, TASK_COMM_LEN)
		__field(pid_t, owner_pid)
		__field(int, cpu)
	),

	TP_fast_assign(
		memcpy(__entry->donor_comm, donor->comm, TASK_COMM_LEN);
		__entry->donor_pid	= donor->pid;
		memcpy(__entry->owner_comm, owner->comm, TASK_COMM_LEN);
		__entry->owner_pid	= owner->pid;
		__entry->cpu		= task_cpu(owner);
	),

	TP_printk("donor_comm=%s donor_pid=%d owner_comm=%s owner_pid=%d cpu=%d",
		  __entry->donor_comm, __entry->donor_pid,
		  __entry->owner_comm, __entry->owner_pid, __entry->cpu)
);

/* @donor was parked on sleeping @owner's donor list and deactivated. */
DEFINE_EVENT(sched_proxy_sleeping_owner_template, sched_proxy_enqueue_sleeping,
	TP_PROTO(struct task_struct *donor, struct task_struct *owner),
	TP_ARGS(donor, owner));

/* @owner woke up and activated parked @donor on its CPU. */
DEFINE_EVENT(sched_proxy_sleeping_owner_template, sched_proxy_activate,
	TP_PROTO(struct task_struct *donor, struct task_struct *owner),
	TP_ARGS(donor, owner));

/*
 * mutex_unlock() by @owner handed @lock to @to: the donor that was running
 * @owner (kind=donor) or the first waiter (kind=top_waiter).
 */
TRACE_EVENT(sched_proxy_handoff,

	TP_PROTO(struct mutex *lock, struct task_struct *owner,
		 struct task_struct *to, enum proxy_handoff_kind kind),

	TP_ARGS(lock, owner, to, kind),

	TP_STRUCT__entry(
		__field(void *, lock)
		__field(pid_t, owner_pid)
		__array(char, to_comm, TASK_COMM_LEN)
		__field(pid_t, to_pid)
		__field(int, kind)
	),

	TP_fast_assign(
		__entry->lock		= lock;
		__entry->owner_pid	= owner->pid;
		memcpy(__entry->to_comm, to->comm, TASK_COMM_LEN);
		__entry->to_pid		= to->pid;
		__entry->kind		= kind;
	),

	TP_printk("lock=%p owner_pid=%d to_comm=%s to_pid=%d kind=%s",
		  __entry->lock, __entry->owner_pid, __entry->to_comm,
		  __entry->to_pid,
		  __print_symbolic(__entry->kind, PROXY_HANDOFF_KINDS))
);

#endif /* CONFIG_PROXY_EXEC */

#endif /* _TRACE_SCHED_PROXY_H */

/* This part must be outside protection */
#include <trace/define_trace.h>

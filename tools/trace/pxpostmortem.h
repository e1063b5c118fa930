/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pxpostmortem: the events of a trace.dat as the story reads them
 * (pxpostmortem_dat.c fills them in), the story (pxpostmortem.c tells it,
 * pxpostmortem_print.c prints it).
 */
#ifndef PXPOSTMORTEM_H
#define PXPOSTMORTEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define COMM_LEN	16

enum {
	EXIT_OK		= 0,
	EXIT_FAIL	= 1,	/* unreadable, empty or unusable trace */
};

enum ev_type {
	EV_OTHER,
	EV_SWITCH,		/* sched:sched_switch */
	EV_WAKEUP,		/* sched:sched_wakeup */
	EV_MIGRATE_TASK,	/* sched:sched_migrate_task */
	EV_PICK,
	EV_ABORT,
	EV_PSWITCH,		/* sched_proxy_switch */
	EV_HANDOFF,
	EV_PMIGRATE,		/* sched_proxy_migrate */
	EV_RETURN,
	EV_ENQ_SLEEPING,
	EV_ACTIVATE,
	EV_MARK,		/* ftrace print (trace_marker) */
	NR_EV,
};

/* One event of the trace; fields are -1 / 0 / "" when the event has none. */
struct ev {
	uint64_t	ts;		/* ns, trace clock */
	uint64_t	lock;		/* mutex address, 0 if none */
	int		cpu, cur;	/* CPU and current pid (common_pid) */
	enum ev_type	type;
	int		prev, prev_donor, next, next_donor;
	int		donor, owner, pid, to;
	int		depth, src, dst, owner_cpu, prio;
	char		state[4];	/* sched_switch prev_state: "R", "R+", "S", "D", ... */
	const char	*reason;	/* abort reason, handoff kind, return strategy; "" if none */
	const char	*lock_type;	/* pick, abort: "mutex", "rwsem"; "" before the field existed */
	char		*text;		/* EV_MARK */
};

struct task {
	int	pid;
	char	comm[COMM_LEN];
	char	state;		/* 'R' running, 'r' runnable, else the sleep letter, 0 unknown */
	int	cpu;
	int	prio;
	int	widx;		/* find_waits() state, -1 none */
};

/* The events in time order, and the CPUs the trace has. */
extern struct ev *evs;
extern size_t nev;
extern int nr_cpus;
/* The trace.dat was cut short: the events are those of its whole pages. */
extern bool trace_truncated;

#define LOCK_LEN	24
#define REASON_LEN	20
#define TOP		3	/* rows of "who ran" tables */
#define MAX_LINKS	16	/* chain links shown */

/* Where a lock wait's time went: each instant of it is in exactly one. */
enum cls {
	C_PROXY,		/* a CPU runs something with the waiter's context */
	C_WAITER,		/* the waiter runs itself (spin, wakeup to owned) */
	C_OWNER_RUN,		/* the owner runs, on its own (or another donor's) context */
	C_TRANSIT,		/* the donor migrates to the owner's CPU or returns */
	C_DONOR_READY,		/* the waiter is runnable (woken) but not picked */
	C_PREEMPTED,		/* the owner is runnable, another task runs on its CPU */
	C_OWNER_WAKING,		/* the owner is woken onto an idle CPU, not running yet */
	C_SLEEPING,		/* the owner sleeps (or the donor is parked on it) */
	C_UNKNOWN,		/* no state known for the owner yet */
	NR_CLS,
};

struct cls_name {
	const char	*key, *text;	/* JSON key, text line */
};
extern const struct cls_name cls_names[NR_CLS];

/* pid -> ns, the "who ran" tables. */
struct tally {
	int		pid[64], cpu[64];
	uint64_t	ns[64];
	int		n;
};

/* A sample: a lock wait of @pid, or the latency window before a marker. */
struct sample {
	bool		lock;		/* false: cyclictest wakeup latency */
	int		pid, cpu;
	uint64_t	start, end;	/* trace time, ns */
	uint64_t	blocked;	/* lock: switch-out .. runs itself, from the trace */
	size_t		first, last;	/* events [first, last) cover the window */
	const struct ev	*mark;
	uint64_t	wait_ns;	/* from the marker, 0 if none */
	int		mutex_idx;	/* from the marker, -1 if none */
	bool		from_marker_only;	/* no trace episode found */
};

struct story {
	struct sample	s;
	uint64_t	cls_ns[NR_CLS];
	struct tally	proxies;	/* execution contexts run with the waiter's */
	struct tally	preempted_by;	/* what ran on the owner's CPU meanwhile */
	struct tally	instead_of_waiter;	/* what ran on a woken waiter's CPU */
	struct tally	cpu_time;	/* latency: what ran on the thread's CPU */
	struct tally	owners;		/* chain ends, time each was the owner */
	char		lock[LOCK_LEN];	/* the waiter's mutex, "0x..." */
	uint64_t	lock_addr;
	const char	*lock_from;
	char		tail_lock[LOCK_LEN];	/* the chain's last mutex */
	uint64_t	tail_lock_addr;
	int		max_depth;
	int		link[MAX_LINKS];	/* chain: link[k] waits at depth k+1 */
	int		releaser;	/* handed the mutex to the waiter */
	int		naborts;
	char		abort_reason[8][REASON_LEN];
	int		abort_count[8];
	int		nabort_reasons;
	int		migrations, returns;
};

/* The story as text (with up to @max_events timeline lines) or as JSON. */
void print_text(const struct story *st, int max_events);
int print_json(const struct story *st);

/*
 * Read the trace.dat at @path ("-": stdin) into evs[].  Exits
 * with EXIT_FAIL and a message naming what is missing when the trace
 * cannot tell a story (not a trace.dat, no events, events not recorded).
 */
void read_trace(const char *path);

/* The task of @pid, created on first use (pid > 0). */
struct task *task(int pid);
/* Its comm as the events name it, else as the trace's saved cmdlines do. */
const char *comm(int pid);
/* "0xffff..." of a mutex address ("(nil)" for 0) in a static buffer of @slot (0..3). */
const char *lock_str(uint64_t lock, int slot);
/*
 * The kernel symbol of a lock, "lab+0x40", from the kallsyms the trace
 * holds (trace-cmd record saves /proc/kallsyms), or NULL: no kallsyms, or
 * no symbol within 1 MB below it (a heap mutex has none).
 */
const char *lock_sym(uint64_t lock, int slot);
/* "lab+0x40 0xffff..." with the symbol, else lock_str()'s (slot 0..3). */
const char *lock_name(uint64_t lock, int slot);

#endif /* PXPOSTMORTEM_H */

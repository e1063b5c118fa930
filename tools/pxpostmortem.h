/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pxpostmortem: the events of a trace.dat as the story reads them
 * (pxpostmortem_dat.c fills them in, pxpostmortem.c tells the story).
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
	EXIT_USAGE	= 2,
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

/*
 * Read the trace.dat at @path ("-" or NULL: stdin) into evs[].  Exits
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

#endif /* PXPOSTMORTEM_H */

// SPDX-License-Identifier: GPL-2.0
/*
 * pxpostmortem - the story of the worst sample of a recorded trace.
 *
 * Reads a trace.dat (pxpostmortem_dat.c, with libtracecmd) holding the
 * sched_proxy events and sched:sched_switch/sched_wakeup/sched_migrate_task,
 * finds the worst sample and tells what happened in it:
 *
 *  - delimited by a break marker: `inversion --break` writes
 *    "inversion break: pid=P mutex=I wait_ns=N break_ns=T" (a lock wait),
 *    `cyclictest -b US --tracemark` writes "hit latency threshold (N > T)"
 *    (a wakeup latency of the thread that wrote it);
 *  - without a marker: the longest lock wait of any donor (or of -p PID)
 *    that the trace shows (see find_waits()).
 *
 * For a lock wait: the waiter, its mutex, the blocked_on chain (pick/abort
 * depth and owner), who ran as proxy, and where the waiting time went, as a
 * partition of the wait into classes (enum cls).  For a wakeup latency:
 * what ran on the thread's CPU in its latency window.
 */
#include <argp.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pxpostmortem.h"
#include "pxutil.h"

#define NSEC_PER_USEC	1000ULL
#define NSEC_PER_SEC	1000000000ULL
#define MAX_CPUS	256

static struct env {
	const char	*path;
	int		pid;		/* -p: a thread id; 0 = from the marker or the longest */
	bool		json;
	int		max_events;
} env = {
	.max_events = 60,
};

static const char doc[] =
"The story of the worst sample of a trace: which task waited, on which mutex,\n"
"the blocked_on chain, who ran as proxy and where the waiting time went.\n"
"\n"
"USAGE: pxpostmortem [-h] [-V] [-j] [-p TID] [-e N] [-i FILE | FILE | -]\n"
"\n"
"Input: the trace.dat of `trace-cmd record` (default ./trace.dat, as for\n"
"`trace-cmd report`; - is stdin), read with libtracecmd (events and fields\n"
"by name, ns timestamps; not the text of `trace-cmd report`).  Record with\n"
"  trace-cmd record -e sched_proxy -e sched:sched_switch -e sched:sched_wakeup\n"
"                   -e sched:sched_migrate_task CMD\n"
"A trace without these events is refused.  A trace.dat cut short tells the\n"
"story of its whole pages, with a warning.\n"
"The sample is the one the last break marker names (inversion --break,\n"
"cyclictest -b --tracemark); without one, the longest lock wait in the trace\n"
"(of -p TID if given): from the waiter's switch-out (or its first\n"
"sched_proxy event) to the next time it runs itself.  Exit: 0 story printed,\n"
"1 unusable input (missing, not a trace.dat, cut before its events, events\n"
"not recorded, empty, no sched_proxy events), 64 usage.\n"
"\n"
"EXAMPLES:\n"
"    pxpostmortem                         # ./trace.dat\n"
"    pxpostmortem -i build/postmortem/x/trace.dat\n"
"    pxpostmortem -j - < trace.dat > story.json\n"
"    pxpostmortem -p 1234 trace.dat       # the longest wait of thread 1234\n"
"\n"
"Options:";

static const struct argp_option opts[] = {
	{ "events", 'e', "N", 0, "Timeline lines to print, 0 for none (default 60)", 0 },
	{ "input", 'i', "FILE", 0, "The trace.dat to read (default ./trace.dat; - is stdin)", 0 },
	{ "json", 'j', NULL, 0, "Print the story as JSON instead of text", 0 },
	{ "pid", 'p', "TID", 0, "The waiter to look at, a thread id as the trace's pids are "
	  "(default: the marker's, else the longest wait)", 0 },
	{},
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'e':
		env.max_events = px_arg_long(state, "number of events", arg, 0, INT_MAX);
		break;
	case 'j':
		env.json = true;
		break;
	case 'p':
		env.pid = px_arg_long(state, "TID", arg, 1, INT_MAX);
		break;
	case 'i':
	case ARGP_KEY_ARG:
		if (env.path)
			argp_error(state, "one trace.dat only: %s and %s", env.path, arg);
		env.path = arg;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* ---------------------------------------------------------------- waits */

static bool names_donor(const struct ev *e, int pid)
{
	switch (e->type) {
	case EV_PICK:
	case EV_ABORT:
	case EV_PMIGRATE:
	case EV_ENQ_SLEEPING:
	case EV_ACTIVATE:
		return e->donor == pid;
	case EV_PSWITCH:
		return e->next_donor == pid && e->next != pid;
	case EV_HANDOFF:
		return e->to == pid;
	case EV_RETURN:
		return e->pid == pid;
	default:
		return false;
	}
}

/* @pid runs itself from @e on (execution context and its own donor). */
static bool switched_in(const struct ev *e, int pid)
{
	return (e->type == EV_SWITCH && e->next == pid) ||
	       (e->type == EV_PSWITCH && e->next == pid && e->next_donor == pid);
}

static bool switched_out(const struct ev *e, int pid)
{
	return (e->type == EV_SWITCH || e->type == EV_PSWITCH) && e->prev == pid &&
	       !(e->type == EV_PSWITCH && e->next == pid);
}

/* Per task: where find_waits() is in its current wait. */
struct wstate {
	int		pid;
	bool		running;	/* runs itself (curr, own donor) */
	bool		open;		/* in a wait */
	bool		pending;	/* ran again without a handoff: maybe a retry */
	bool		handoff;	/* sched_proxy_handoff to it in this wait */
	bool		reopened, named;	/* blocked in D again; as donor since */
	bool		seen_out;	/* a switch-out of it was seen */
	uint64_t	out, start, tent_end;
	size_t		out_idx, start_idx, tent_last;
	int		tent_cpu;
};

static void emit_wait(struct wstate *s, void (*fn)(struct sample *, void *), void *arg)
{
	struct sample sm = {
		.lock = true, .pid = s->pid, .cpu = s->tent_cpu,
		.start = s->start, .end = s->tent_end, .blocked = s->tent_end - s->start,
		.first = s->start_idx, .last = s->tent_last, .mutex_idx = -1,
	};

	fn(&sm, arg);
	s->open = s->pending = false;
}

/*
 * The lock waits of @pid (0: of every donor), as the trace shows them.  A
 * wait starts when the task stops running itself -- its switch-out, or its
 * first sched_proxy event as a donor when that is logged first in the same
 * __schedule() -- and only stretches with a sched_proxy event naming it as
 * donor count.  It ends when the task next runs itself (sched_switch
 * next_pid, or a sched_proxy_switch to its own pair) after a
 * sched_proxy_handoff to it.  Without a handoff that may be a retry: a
 * waiter woken while the mutex is still held blocks again, in D, and is a
 * donor again before it next runs; then the wait goes on.  Any other
 * switch-out (S, R, ...), or a D sleep without a sched_proxy event, ends it
 * at that switch-in.  Calls @fn for each wait; returns the number.
 */
static int find_waits(int pid, void (*fn)(struct sample *, void *), void *arg)
{
	struct wstate *w = NULL;
	size_t nw = 0, cap = 0, i, k;
	int found = 0;

	for (i = 0; i < nev; i++) {
		const struct ev *e = &evs[i];
		int who[3] = { -1, -1, -1 }, n = 0, j;

		if (e->type == EV_SWITCH || e->type == EV_PSWITCH) {
			who[n++] = e->prev;
			who[n++] = e->next;
			if (e->type == EV_PSWITCH)
				who[n++] = e->next_donor;
		} else if (e->type >= EV_PICK && e->type <= EV_ACTIVATE) {
			who[n++] = e->type == EV_HANDOFF ? e->to :
				   e->type == EV_RETURN ? e->pid : e->donor;
		}
		for (j = 0; j < n; j++) {
			struct wstate *s;
			struct task *t;

			if (who[j] <= 0 || (pid && who[j] != pid))
				continue;
			t = task(who[j]);
			if (t->widx < 0) {
				if (nw == cap) {
					cap = cap ? 2 * cap : 256;
					w = realloc(w, cap * sizeof(*w));
					if (!w)
						px_fatal(EXIT_FAIL, "out of memory");
				}
				t->widx = (int)nw;
				s = &w[nw++];
				memset(s, 0, sizeof(*s));
				s->pid = who[j];
				s->out_idx = i;
			}
			s = &w[t->widx];
			if (switched_in(e, s->pid)) {
				if (s->open && s->reopened && !s->named) {
					/* that D sleep was no lock wait */
					emit_wait(s, fn, arg);
					found++;
				} else if (s->open) {
					s->tent_end = e->ts;
					s->tent_last = i + 1;
					s->tent_cpu = e->cpu;
					s->open = false;
					s->pending = true;
					if (s->handoff) {
						emit_wait(s, fn, arg);
						found++;
					}
				}
				s->running = true;
			} else if (switched_out(e, s->pid)) {
				s->running = false;
				s->seen_out = true;
				s->out = e->ts;
				s->out_idx = i;
				if (s->pending && e->type == EV_SWITCH && e->state[0] == 'D') {
					s->pending = false;
					s->open = s->reopened = true;
					s->named = false;
				} else if (s->pending && e->type == EV_SWITCH) {
					emit_wait(s, fn, arg);
					found++;
				}
			}
			if (e->type == EV_HANDOFF && e->to == s->pid && s->open)
				s->handoff = true;
			if (!names_donor(e, s->pid) || e->type == EV_HANDOFF || e->type == EV_RETURN)
				continue;
			if (s->open) {
				s->named = true;
			} else if (s->pending) {	/* a donor again: the same wait */
				s->pending = false;
				s->open = s->reopened = s->named = true;
			} else {
				/* Still curr: its switch-out is logged after this. */
				bool cur = s->running || e->cur == s->pid || !s->seen_out;

				s->open = true;
				s->handoff = s->reopened = false;
				s->start = cur ? e->ts : s->out;
				s->start_idx = cur ? i : s->out_idx;
			}
		}
	}
	for (k = 0; k < nw; k++) {
		if (w[k].pending) {
			emit_wait(&w[k], fn, arg);
			found++;
		}
		task(w[k].pid)->widx = -1;
	}
	free(w);
	return found;
}

static void keep_longest(struct sample *s, void *arg)
{
	struct sample *best = arg;

	if (!best->pid || s->end - s->start > best->end - best->start)
		*best = *s;
}

/* The last wait of the marker's task that ended before the marker. */
struct before_mark {
	uint64_t	ts;
	struct sample	s;
};

static void keep_before(struct sample *s, void *arg)
{
	struct before_mark *b = arg;

	if (s->end <= b->ts && (!b->s.pid || s->end >= b->s.end))
		b->s = *s;
}

static const struct ev *last_marker(void)
{
	size_t i = nev;

	while (i--)
		if (evs[i].type == EV_MARK && (strstr(evs[i].text, "inversion break:") ||
					       strstr(evs[i].text, "hit latency threshold")))
			return &evs[i];
	return NULL;
}

static size_t index_at(uint64_t ts)
{
	size_t i = 0;

	while (i < nev && evs[i].ts < ts)
		i++;
	return i;
}

/*
 * cyclictest: the thread's latency ends when it runs again (its last
 * switch-in before the marker) and started @lat before that.
 */
static void latency_sample(struct sample *s, const struct ev *m, uint64_t lat)
{
	size_t i;

	s->lock = false;
	s->pid = m->cur;
	s->cpu = m->cpu;
	s->end = m->ts;
	for (i = (size_t)(m - evs); i-- > 0;)
		if (switched_in(&evs[i], s->pid)) {
			s->end = evs[i].ts;
			s->cpu = evs[i].cpu;
			break;
		}
	s->start = s->end > lat ? s->end - lat : 0;
	s->first = index_at(s->start);
	s->last = index_at(s->end + 1);
}

static void choose_sample(struct sample *s)
{
	const struct ev *m = env.pid ? NULL : last_marker();
	const char *p;

	memset(s, 0, sizeof(*s));
	s->mutex_idx = -1;
	if (m && (p = strstr(m->text, "hit latency threshold ("))) {
		unsigned long long lat = strtoull(p + strlen("hit latency threshold ("), NULL, 10);

		latency_sample(s, m, lat * NSEC_PER_USEC);
		s->mark = m;
		s->wait_ns = lat * NSEC_PER_USEC;
		return;
	}
	if (m) {
		struct before_mark b = { .ts = m->ts };
		const char *w = strstr(m->text, "wait_ns="), *x = strstr(m->text, "mutex=");
		int pid = (int)strtol(strstr(m->text, "pid=") ? strstr(m->text, "pid=") + 4 : "0", NULL, 10);

		if (pid <= 0)
			pid = m->cur;
		find_waits(pid, keep_before, &b);
		*s = b.s;
		s->mark = m;
		s->wait_ns = w ? strtoull(w + 8, NULL, 10) : 0;
		s->mutex_idx = x ? (int)strtol(x + 6, NULL, 10) : -1;
		if (s->pid && s->wait_ns) {
			/*
			 * The kernel's wait starts at the request, before the
			 * task blocks (the trace cannot see it): the window is
			 * wait_ns up to the moment the waiter runs again.
			 */
			s->start = s->end > s->wait_ns ? s->end - s->wait_ns : 0;
			s->first = index_at(s->start);
		}
		if (!s->pid) {
			/* The marker is written right after the acquire. */
			s->lock = true;
			s->pid = pid;
			s->cpu = m->cpu;
			s->end = m->ts;
			s->start = m->ts > s->wait_ns ? m->ts - s->wait_ns : 0;
			s->first = index_at(s->start);
			s->last = (size_t)(m - evs);
			s->from_marker_only = true;
		}
		return;
	}
	if (!find_waits(env.pid, keep_longest, s)) {
		if (env.pid)
			px_fatalx(EXIT_FAIL, "pid %d never waited as a donor in this trace", env.pid);
		px_fatalx(EXIT_FAIL, "no lock wait in this trace: no task ever was a proxy donor");
	}
}

/* ------------------------------------------------------------- the story */

static void tally_add(struct tally *t, int pid, int cpu, uint64_t ns)
{
	int i;

	for (i = 0; i < t->n; i++)
		if (t->pid[i] == pid && t->cpu[i] == cpu) {
			t->ns[i] += ns;
			return;
		}
	if (t->n == (int)PX_ARRAY_SIZE(t->pid))
		return;
	t->pid[t->n] = pid;
	t->cpu[t->n] = cpu;
	t->ns[t->n++] = ns;
}

static void tally_sort(struct tally *t)
{
	int i, j;

	for (i = 1; i < t->n; i++)
		for (j = i; j > 0 && t->ns[j] > t->ns[j - 1]; j--) {
			int p = t->pid[j], c = t->cpu[j];
			uint64_t ns = t->ns[j];

			t->pid[j] = t->pid[j - 1];
			t->cpu[j] = t->cpu[j - 1];
			t->ns[j] = t->ns[j - 1];
			t->pid[j - 1] = p;
			t->cpu[j - 1] = c;
			t->ns[j - 1] = ns;
		}
}

static void count_abort(struct story *st, const char *reason)
{
	int i;

	st->naborts++;
	for (i = 0; i < st->nabort_reasons; i++)
		if (!strcmp(st->abort_reason[i], reason)) {
			st->abort_count[i]++;
			return;
		}
	if (i == (int)PX_ARRAY_SIZE(st->abort_count))
		return;
	snprintf(st->abort_reason[i], REASON_LEN, "%s", reason);
	st->abort_count[i] = 1;
	st->nabort_reasons++;
}

/* Apply @e to the task states and CPU pairs. */
static void apply(const struct ev *e, int curr[], int donor[])
{
	struct task *t;

	switch (e->type) {
	case EV_SWITCH:
		if (e->prev > 0) {
			t = task(e->prev);
			t->state = !strncmp(e->state, "R", 1) ? 'r' : e->state[0] ? e->state[0] : 'S';
		}
		if (e->cpu >= 0 && e->cpu < MAX_CPUS && curr[e->cpu] != e->next) {
			curr[e->cpu] = e->next;
			donor[e->cpu] = e->next;
		}
		if (e->next > 0) {
			t = task(e->next);
			t->state = 'R';
			t->cpu = e->cpu;
			t->prio = e->prio;
		}
		break;
	case EV_PSWITCH:
		if (e->cpu >= 0 && e->cpu < MAX_CPUS) {
			curr[e->cpu] = e->next;
			donor[e->cpu] = e->next_donor;
		}
		if (e->next > 0) {
			t = task(e->next);
			t->state = 'R';
			t->cpu = e->cpu;
		}
		break;
	case EV_WAKEUP:
		t = task(e->pid);
		if (t->state != 'R')
			t->state = 'r';
		t->cpu = e->dst;
		t->prio = e->prio;
		break;
	case EV_MIGRATE_TASK:
		t = task(e->pid);
		t->cpu = e->dst;
		break;
	default:
		break;
	}
}

/* The CPUs of the trace: curr[] and donor[] beyond them stay -1. */
static int cpus(void)
{
	return nr_cpus > 0 && nr_cpus < MAX_CPUS ? nr_cpus : MAX_CPUS;
}

static int running_on(const int curr[], int pid)
{
	int c;

	for (c = 0; c < cpus(); c++)
		if (curr[c] == pid)
			return c;
	return -1;
}

/*
 * Sweep the whole trace up to the sample's end, keeping every task's state
 * and every CPU's (curr, donor) pair, and split the sample's time into the
 * classes of enum cls, first match wins:
 *   proxy: some CPU runs a task with the waiter as donor;
 *   waiter: the waiter runs itself;
 *   owner running: the chain's owner is curr somewhere (or in the middle
 *            of its switch-out: a sched_proxy_switch moved it off the CPU,
 *            the sched_switch with its new state is still to come);
 *   transit: the waiter was migrated (sched_proxy_migrate) or is returning
 *            (sched_proxy_return) and has not been picked since;
 *   waiter runnable: woken (sched_wakeup) but not picked: its context,
 *            which would run the owner, waits behind another task;
 *   preempted: the owner is runnable (woken, or switched out in state R)
 *            and another task runs on its CPU;
 *   owner waking: the owner is woken onto a CPU that runs the idle task
 *            (wakeup delay: the CPU is on its way to it, nothing preempts);
 *   sleeping: the owner sleeps (S, D, ...) or the waiter is parked on it;
 *   unknown: no state seen for the owner yet.
 * The owner is the last chain end a pick/abort of the waiter named (before
 * the first one: the first one's).  After a sched_proxy_handoff to the
 * waiter the mutex is its own: the rest is waiter running, transit (its
 * return) or waiter runnable, whatever still runs on its context.
 */
static void tell_lock(struct story *st)
{
	static int curr[MAX_CPUS], donor[MAX_CPUS];
	struct sample *s = &st->s;
	int W = s->pid, owner = -1, transit = 0, parked = 0, handed = 0, c, i;
	size_t k;
	uint64_t t, prev_t = s->start;

	for (c = 0; c < MAX_CPUS; c++)
		curr[c] = donor[c] = -1;
	st->releaser = -1;
	for (k = s->first; k < s->last && k < nev; k++)
		if ((evs[k].type == EV_PICK || evs[k].type == EV_ABORT) &&
		    evs[k].donor == W && evs[k].owner > 0) {
			owner = evs[k].owner;
			break;
		}
	for (k = 0; k < nev && evs[k].ts <= s->end; k++) {
		const struct ev *e = &evs[k];

		t = e->ts;
		if (t > s->start && k >= s->first) {
			/* [prev_t, t) has the state before e. */
			enum cls cl = C_UNKNOWN;
			struct task *o = owner > 0 ? task(owner) : NULL;
			int pc = -1, oc;
			uint64_t d = t - prev_t;

			for (c = 0; c < cpus(); c++)
				if (donor[c] == W && curr[c] != W && curr[c] >= 0)
					pc = c;
			oc = owner > 0 ? running_on(curr, owner) : -1;
			if (handed) {
				/* The mutex is the waiter's: only its own way back counts. */
				cl = running_on(curr, W) >= 0 ? C_WAITER :
				     transit ? C_TRANSIT : C_DONOR_READY;
			} else if (pc >= 0) {
				cl = C_PROXY;
				tally_add(&st->proxies, curr[pc], pc, d);
			} else if (running_on(curr, W) >= 0) {
				cl = C_WAITER;
			} else if (oc >= 0 || (o && o->state == 'R')) {
				/* 'R' off every CPU: inside its own switch-out */
				cl = C_OWNER_RUN;
			} else if (transit) {
				cl = C_TRANSIT;
			} else if (task(W)->state == 'r') {
				struct task *w = task(W);

				cl = C_DONOR_READY;
				/* the idle task is no one running instead: a wakeup delay */
				if (w->cpu >= 0 && w->cpu < MAX_CPUS && curr[w->cpu] > 0)
					tally_add(&st->instead_of_waiter, curr[w->cpu], w->cpu, d);
			} else if (o && o->state == 'r') {
				int on = o->cpu >= 0 && o->cpu < MAX_CPUS ? curr[o->cpu] : -1;

				/* idle there: the CPU is on its way to run it, nobody preempts */
				cl = on == 0 ? C_OWNER_WAKING : C_PREEMPTED;
				if (on > 0)
					tally_add(&st->preempted_by, on, o->cpu, d);
			} else if (parked || (o && o->state && o->state != 'R')) {
				cl = C_SLEEPING;
			}
			st->cls_ns[cl] += d;
			if (owner > 0)
				tally_add(&st->owners, owner, -1, d);
			prev_t = t;
		}
		apply(e, curr, donor);
		if (k < s->first || k >= s->last)
			continue;
		switch (e->type) {
		case EV_PICK:
		case EV_ABORT:
			if (e->depth > st->max_depth)
				st->max_depth = e->depth;
			if (e->donor == W) {
				transit = 0;
				if (e->owner > 0)
					owner = e->owner;
				if (e->lock) {
					snprintf(st->tail_lock, LOCK_LEN, "%s", lock_str(e->lock, 0));
					st->tail_lock_addr = e->lock;
					if (e->depth == 1 && !st->lock_from) {
						snprintf(st->lock, LOCK_LEN, "%s", lock_str(e->lock, 0));
				st->lock_addr = e->lock;
						st->lock_addr = e->lock;
						st->lock_from = e->type == EV_PICK ? "sched_proxy_pick depth=1" :
							"sched_proxy_abort depth=1";
					}
				}
				if (e->type == EV_ABORT)
					count_abort(st, e->reason);
			}
			break;
		case EV_PSWITCH:
			if (e->next_donor == W)
				transit = 0;
			break;
		case EV_PMIGRATE:
			if (e->donor == W) {
				transit = 1;
				st->migrations++;
			}
			break;
		case EV_RETURN:
			if (e->pid == W) {
				transit = 1;
				st->returns++;
			}
			break;
		case EV_ENQ_SLEEPING:
			if (e->donor == W)
				parked = 1;
			break;
		case EV_ACTIVATE:
			if (e->donor == W)
				parked = 0;
			break;
		case EV_HANDOFF:
			if (e->to == W) {
				handed = 1;
				st->releaser = e->owner;
				snprintf(st->lock, LOCK_LEN, "%s", lock_str(e->lock, 0));
				st->lock_from = "sched_proxy_handoff to the waiter";
			}
			break;
		default:
			break;
		}
		if (switched_in(e, W))
			transit = 0;
	}
	if (prev_t < s->end) {		/* the marker-only window's tail */
		st->cls_ns[C_UNKNOWN] += s->end - prev_t;
	}
	/* The chain's links: other donors of the same owner, by depth. */
	for (i = 0; i < MAX_LINKS; i++)
		st->link[i] = -1;
	for (k = s->first; k < s->last && k < nev; k++) {
		const struct ev *e = &evs[k];

		if ((e->type == EV_PICK || e->type == EV_ABORT) && e->donor > 0 &&
		    e->donor != W && e->depth >= 1 && e->depth < st->max_depth &&
		    e->owner == owner && st->max_depth - e->depth < MAX_LINKS)
			st->link[st->max_depth - e->depth] = e->donor;
	}
	if (st->releaser > 0 && st->max_depth > 1 && st->link[1] < 0)
		st->link[1] = st->releaser;
	tally_sort(&st->proxies);
	tally_sort(&st->preempted_by);
	tally_sort(&st->instead_of_waiter);
	tally_sort(&st->owners);
}

/* cyclictest: what ran on the thread's CPU in its latency window. */
static void tell_latency(struct story *st)
{
	static int curr[MAX_CPUS], donor[MAX_CPUS];
	struct sample *s = &st->s;
	uint64_t prev_t = s->start;
	size_t k;
	int c;

	for (c = 0; c < MAX_CPUS; c++)
		curr[c] = donor[c] = -1;
	for (k = 0; k < nev && evs[k].ts <= s->end; k++) {
		const struct ev *e = &evs[k];

		if (e->ts > s->start) {
			int cur = s->cpu >= 0 && s->cpu < MAX_CPUS ? curr[s->cpu] : -1;
			int don = cur >= 0 ? donor[s->cpu] : -1;

			/* cpu column: the donor whose context it ran with */
			tally_add(&st->cpu_time, cur, don, e->ts - prev_t);
			st->cls_ns[cur >= 0 && don != cur ? C_PROXY : C_UNKNOWN] += e->ts - prev_t;
			prev_t = e->ts;
		}
		apply(e, curr, donor);
		if (k >= s->first && e->type == EV_ABORT)
			count_abort(st, e->reason);
		if (k >= s->first && e->type == EV_PMIGRATE)
			st->migrations++;
		if (k >= s->first && e->type == EV_RETURN)
			st->returns++;
	}
	if (prev_t < s->end) {
		int cur = s->cpu >= 0 && s->cpu < MAX_CPUS ? curr[s->cpu] : -1;

		tally_add(&st->cpu_time, cur, cur >= 0 ? donor[s->cpu] : -1, s->end - prev_t);
	}
	tally_sort(&st->cpu_time);
}

int main(int argc, char **argv)
{
	static const struct argp argp = { opts, parse_arg, NULL, doc, NULL, NULL, NULL };
	static struct story st;

	if (px_argp_parse(&argp, argc, argv, NULL))
		return PX_EXIT_USAGE;
	read_trace(env.path ? env.path : "trace.dat");
	choose_sample(&st.s);
	if (st.s.lock)
		tell_lock(&st);
	else
		tell_latency(&st);
	if (env.json) {
		if (print_json(&st))
			px_fatalx(EXIT_FAIL, "error writing the JSON story");
	} else {
		print_text(&st, env.max_events);
	}
	return fflush(stdout) ? EXIT_FAIL : EXIT_OK;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * pxpostmortem: print the story pxpostmortem.c told, as text (the sample,
 * the chain, where the time went, the timeline) or as JSON (one object,
 * times in ns; tools/README.md lists the members).
 */
#include <stdio.h>
#include <string.h>

#include "pxpostmortem.h"
#include "pxutil.h"

const struct cls_name cls_names[NR_CLS] = {
	[C_PROXY]	= { "proxy_ns",		 "running as proxy on the waiter's behalf" },
	[C_WAITER]	= { "waiter_running_ns", "waiter running itself" },
	[C_OWNER_RUN]	= { "owner_running_ns",	 "owner running on its own context" },
	[C_TRANSIT]	= { "donor_transit_ns",	 "donor migrating / returning" },
	[C_DONOR_READY]	= { "waiter_runnable_ns", "waiter runnable, not picked" },
	[C_PREEMPTED]	= { "owner_preempted_ns", "owner runnable, not running (preempted)" },
	[C_OWNER_WAKING] = { "owner_wakeup_ns",	 "owner woken, its CPU idle (wakeup delay)" },
	[C_SLEEPING]	= { "owner_sleeping_ns", "owner sleeping" },
	[C_UNKNOWN]	= { "unknown_ns",	 "owner state unknown" },
};


/* @s escaped as who() does, in one of 8 static buffers (@slot). */
static const char *escaped(const char *s, int slot)
{
	static char buf[8][1024];
	char *b = buf[slot & 7];
	size_t n = 0;

	for (; *s && n + 5 < sizeof(buf[0]); s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\\')
			n += (size_t)snprintf(b + n, sizeof(buf[0]) - n, "\\\\");
		else if (c >= 0x20 && c < 0x7f)
			b[n++] = (char)c;
		else
			n += (size_t)snprintf(b + n, sizeof(buf[0]) - n, "\\x%02x", c);
	}
	b[n] = '\0';
	return b;
}

/*
 * "comm-pid" of @pid as every line names a task, in one of 8 static
 * buffers (@slot): the comm escaped, printable ASCII as is and any other
 * byte (a comm is any 15 bytes the kernel holds) as \xNN, so a name never
 * reaches the terminal as escape sequences.
 */
static const char *who(int pid, int slot)
{
	static char buf[8][4 * COMM_LEN + 16];
	char *b = buf[slot & 7];

	if (pid < 0)
		return "?";	/* none: an abort's owner when the chain changed */
	snprintf(b, sizeof(buf[0]), "%s-%d", escaped(comm(pid), slot), pid);
	return b;
}

static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

static double secs(uint64_t ns)
{
	return (double)ns / 1e9;
}

static uint64_t total_ns(const struct story *st)
{
	uint64_t sum = 0;
	int i;

	for (i = 0; i < NR_CLS; i++)
		sum += st->cls_ns[i];
	return sum;
}

/* One timeline line for @e, or nothing if it is not part of the story. */
static void print_event(const struct story *st, const struct ev *e, int owner)
{
	int W = st->s.pid;
	double rel = ((double)e->ts - (double)st->s.start) / 1e6;

	switch (e->type) {
	case EV_PICK:
		/* "lock" for a mutex, as before rwsems were proxied. */
		printf("  %+9.3f  CPU%d  pick: %s runs %s (%s %s, depth %d)\n", rel, e->cpu,
		       who(e->donor, 0), who(e->owner, 1),
		       strcmp(e->lock_type, "rwsem") ? "lock" : "rwsem", lock_name(e->lock, 0), e->depth);
		break;
	case EV_ABORT:
		printf("  %+9.3f  CPU%d  abort: donor %s, owner %s on CPU %d, depth %d: %s%s\n",
		       rel, e->cpu, who(e->donor, 0), who(e->owner, 1), e->owner_cpu, e->depth,
		       e->reason, strcmp(e->lock_type, "rwsem") ? "" : " (rwsem)");
		break;
	case EV_PSWITCH:
		printf("  %+9.3f  CPU%d  now %s on %s's context (was %s on %s's)\n", rel,
		       e->cpu, who(e->next, 0), who(e->next_donor, 1), who(e->prev, 2),
		       who(e->prev_donor, 3));
		break;
	case EV_HANDOFF:
		printf("  %+9.3f  CPU%d  handoff: %s hands %s to %s (%s)\n", rel, e->cpu,
		       who(e->owner, 0), lock_name(e->lock, 0), who(e->to, 1), e->reason);
		break;
	case EV_PMIGRATE:
		printf("  %+9.3f  CPU%d  migrate: donor %s CPU %d -> %d (owner %s)\n", rel,
		       e->cpu, who(e->donor, 0), e->src, e->dst, who(e->owner, 1));
		break;
	case EV_RETURN:
		printf("  %+9.3f  CPU%d  return: %s CPU %d -> %d (%s)\n", rel, e->cpu,
		       who(e->pid, 0), e->src, e->dst, e->reason);
		break;
	case EV_ENQ_SLEEPING:
	case EV_ACTIVATE:
		printf("  %+9.3f  CPU%d  %s: donor %s, owner %s\n", rel, e->cpu,
		       e->type == EV_ACTIVATE ? "activate" : "enqueue_sleeping", who(e->donor, 0),
		       who(e->owner, 1));
		break;
	case EV_SWITCH:
		if (e->prev == owner || e->prev == W)
			printf("  %+9.3f  CPU%d  %s switched out (%s), %s runs\n", rel, e->cpu,
			       who(e->prev, 0), e->state, who(e->next, 1));
		else if (e->next == owner || e->next == W)
			printf("  %+9.3f  CPU%d  %s runs (after %s, %s)\n", rel, e->cpu,
			       who(e->next, 0), who(e->prev, 1), e->state);
		break;
	case EV_WAKEUP:
		if (e->pid == owner || e->pid == W)
			printf("  %+9.3f  CPU%d  wakeup %s (target CPU %d)\n", rel, e->cpu,
			       who(e->pid, 0), e->dst);
		break;
	case EV_MIGRATE_TASK:
		if (e->pid == owner || e->pid == W)
			printf("  %+9.3f  CPU%d  %s moved CPU %d -> %d\n", rel, e->cpu,
			       who(e->pid, 0), e->src, e->dst);
		break;
	case EV_MARK:
		printf("  %+9.3f  CPU%d  marker: %s\n", rel, e->cpu, escaped(e->text, 0));
		break;
	default:
		break;
	}
}

static bool in_story(const struct ev *e, int W, int owner)
{
	switch (e->type) {
	case EV_SWITCH:
		return e->prev == owner || e->prev == W || e->next == owner || e->next == W;
	case EV_WAKEUP:
	case EV_MIGRATE_TASK:
		return e->pid == owner || e->pid == W;
	case EV_OTHER:
		return false;
	default:
		return true;
	}
}

static void print_timeline(const struct story *st, int max_events)
{
	const struct sample *s = &st->s;
	int owner = st->owners.n ? st->owners.pid[0] : -1, shown = 0, total = 0;
	size_t k, end = s->last;

	if (!max_events)
		return;
	for (k = s->first; k < end && k < nev; k++)
		total += in_story(&evs[k], s->pid, owner);
	printf("\ntimeline (ms from the start; sched_proxy events, the waiter's and owner's switches):\n");
	for (k = s->first; k < end && k < nev; k++) {
		if (!in_story(&evs[k], s->pid, owner))
			continue;
		/* Keep the first and the last lines when there are too many. */
		if (total > max_events && shown >= max_events / 2 &&
		    shown < total - (max_events - max_events / 2)) {
			if (shown == max_events / 2)
				printf("  ... %d lines left out (-e N) ...\n", total - max_events);
			shown++;
			continue;
		}
		print_event(st, &evs[k], owner);
		shown++;
	}
	if (s->mark && (size_t)(s->mark - evs) >= end)
		print_event(st, s->mark, owner);
}

static void print_tally(const char *title, const struct tally *t, const char *unit_label)
{
	int i;

	for (i = 0; i < t->n && i < TOP; i++)
		printf("%-*s%s%s%d %.3f ms\n", (int)strlen(title), i ? "" : title,
		       who(t->pid[i], 0), unit_label, t->cpu[i], ms(t->ns[i]));
}

void print_text(const struct story *st, int max_events)
{
	const struct sample *s = &st->s;
	uint64_t len = s->end - s->start, sum = total_ns(st);
	int i, owner = st->owners.n ? st->owners.pid[0] : -1;

	printf("pxpostmortem: the worst sample, %s\n", s->mark ?
	       "delimited by the break marker" : "the longest lock wait in the trace");
	if (s->mark)
		printf("marker    %.6f CPU%d %s: %s\n", secs(s->mark->ts), s->mark->cpu,
		       who(s->mark->cur, 0), escaped(s->mark->text, 1));
	if (!s->lock) {
		printf("thread    %s on CPU %d, wakeup latency %.3f ms (%.6f .. %.6f)\n",
		       who(s->pid, 0), s->cpu, ms(s->wait_ns), secs(s->start), secs(s->end));
		printf("\nwhat ran on CPU %d in the window (ms):\n", s->cpu);
		for (i = 0; i < st->cpu_time.n && i < 8; i++) {
			int p = st->cpu_time.pid[i], d = st->cpu_time.cpu[i];

			if (p < 0)
				printf("  %10.3f  (nothing traced yet)\n", ms(st->cpu_time.ns[i]));
			else if (d == p)
				printf("  %10.3f  %s\n", ms(st->cpu_time.ns[i]), who(p, 0));
			else
				printf("  %10.3f  %s as proxy for %s\n", ms(st->cpu_time.ns[i]),
				       who(p, 0), who(d, 1));
		}
		printf("  %d abort(s), %d donor migration(s), %d return(s) on all CPUs in the window\n",
		       st->naborts, st->migrations, st->returns);
		return;
	}
	printf("waiter    %s\n", who(s->pid, 0));
	if (st->lock[0])
		printf("mutex     %s (from %s)", lock_name(st->lock_addr, 0), st->lock_from);
	else
		printf("mutex     unknown (no depth-1 pick/abort or handoff of the waiter)");
	if (s->mutex_idx >= 0)
		printf(", lab mutex %d", s->mutex_idx);
	printf("\n");
	if (s->wait_ns)
		printf("waited    %.3f ms (the marker's wait_ns)\n", ms(s->wait_ns));
	printf("window    %.6f .. %.6f = %.3f ms%s\n", secs(s->start), secs(s->end), ms(len),
	       s->from_marker_only ? " (from the marker: no sched_proxy event of the waiter in it)" :
	       s->wait_ns ? " (wait_ns up to the waiter running again)" :
	       " (waiter switched out .. runs itself again)");
	if (s->blocked)
		printf("blocked   %.3f ms of it in the trace (switch-out or first sched_proxy event .. runs itself)\n",
		       ms(s->blocked));
	printf("chain     %s", who(s->pid, 0));
	if (st->max_depth > 1) {
		for (i = 1; i < st->max_depth && i < MAX_LINKS; i++) {
			if (st->link[i] > 0)
				printf(" -> %s", who(st->link[i], 0));
			else
				printf(" -> ?");
		}
	}
	if (owner > 0)
		printf(" -> [%s] -> owner %s", st->tail_lock[0] ? lock_name(st->tail_lock_addr, 0) : "?",
		       who(owner, 0));
	printf(" (depth %d)\n", st->max_depth);
	for (i = 1; i < st->owners.n && i < TOP; i++)
		printf("          also owner %s for %.3f ms\n", who(st->owners.pid[i], 0),
		       ms(st->owners.ns[i]));
	if (st->releaser > 0)
		printf("released  by %s (sched_proxy_handoff)\n", who(st->releaser, 0));
	printf("aborts    %d", st->naborts);
	for (i = 0; i < st->nabort_reasons; i++)
		printf("%s%s x%d", i ? ", " : " (", st->abort_reason[i], st->abort_count[i]);
	printf("%s; donor migrations %d, returns %d\n", st->nabort_reasons ? ")" : "",
	       st->migrations, st->returns);

	printf("\nwhere the time went:\n");
	for (i = 0; i < NR_CLS; i++)
		printf("  %-42s %10.3f ms %5.1f%%\n", cls_names[i].text, ms(st->cls_ns[i]),
		       len ? 100.0 * (double)st->cls_ns[i] / (double)len : 0.0);
	printf("  %-42s %10.3f ms", "total", ms(sum));
	if (s->wait_ns)
		printf(" (wait_ns %.3f ms, %+.3f ms)", ms(s->wait_ns),
		       ms(sum) - ms(s->wait_ns));
	printf("\n");
	print_tally("proxy     ", &st->proxies, " on CPU ");
	print_tally("preempted by ", &st->preempted_by, " on CPU ");
	print_tally("instead of the waiter ", &st->instead_of_waiter, " on CPU ");
	print_timeline(st, max_events);
}

static void json_tally(struct px_json *j, const char *key, const struct tally *t,
		       const char *cpu_key)
{
	int i;

	px_json_array_begin(j, key);
	for (i = 0; i < t->n; i++) {
		px_json_object_begin(j, NULL);
		px_json_i64(j, "pid", t->pid[i]);
		px_json_string(j, "comm", comm(t->pid[i]));
		if (cpu_key)
			px_json_i64(j, cpu_key, t->cpu[i]);
		px_json_u64(j, "ns", t->ns[i]);
		px_json_object_end(j);
	}
	px_json_array_end(j);
}

int print_json(const struct story *st)
{
	const struct sample *s = &st->s;
	struct px_json j;
	int i;

	px_json_init(&j, stdout, PX_JSON_PRETTY);
	px_json_object_begin(&j, NULL);
	px_json_string(&j, "format", "pxpostmortem");
	px_json_u64(&j, "version", 1);
	px_json_string(&j, "kind", s->lock ? "lock_wait" : "wakeup_latency");
	px_json_bool(&j, "truncated", trace_truncated);
	if (s->mark) {
		px_json_string(&j, "marker", s->mark->text);
		px_json_u64(&j, "marker_ts_ns", s->mark->ts);
	} else {
		px_json_null(&j, "marker");
	}
	px_json_i64(&j, "pid", s->pid);
	px_json_string(&j, "comm", comm(s->pid));
	px_json_i64(&j, "cpu", s->cpu);
	px_json_u64(&j, "wait_ns", s->wait_ns);
	px_json_u64(&j, "start_ns", s->start);
	px_json_u64(&j, "end_ns", s->end);
	px_json_u64(&j, "window_ns", s->end - s->start);
	px_json_u64(&j, "blocked_ns", s->blocked);
	px_json_bool(&j, "window_from_marker", s->from_marker_only || !s->lock);
	if (s->lock) {
		px_json_string(&j, "mutex", st->lock[0] ? st->lock : NULL);
		px_json_string(&j, "mutex_sym", lock_sym(st->lock_addr, 0));
		if (s->mutex_idx >= 0)
			px_json_i64(&j, "mutex_index", s->mutex_idx);
		else
			px_json_null(&j, "mutex_index");
		px_json_string(&j, "tail_mutex", st->tail_lock[0] ? st->tail_lock : NULL);
		px_json_string(&j, "tail_mutex_sym", lock_sym(st->tail_lock_addr, 0));
		px_json_i64(&j, "depth", st->max_depth);
		px_json_array_begin(&j, "chain");
		px_json_i64(&j, NULL, s->pid);
		for (i = 1; i < st->max_depth && i < MAX_LINKS; i++)
			px_json_i64(&j, NULL, st->link[i]);
		px_json_i64(&j, NULL, st->owners.n ? st->owners.pid[0] : -1);
		px_json_array_end(&j);
		px_json_i64(&j, "owner", st->owners.n ? st->owners.pid[0] : -1);
		px_json_i64(&j, "released_by", st->releaser);
		json_tally(&j, "owners", &st->owners, NULL);
		px_json_object_begin(&j, "breakdown");
		for (i = 0; i < NR_CLS; i++)
			px_json_u64(&j, cls_names[i].key, st->cls_ns[i]);
		px_json_u64(&j, "total_ns", total_ns(st));
		px_json_object_end(&j);
		json_tally(&j, "proxies", &st->proxies, "cpu");
		json_tally(&j, "preempted_by", &st->preempted_by, "cpu");
		json_tally(&j, "instead_of_waiter", &st->instead_of_waiter, "cpu");
	} else {
		json_tally(&j, "cpu_time", &st->cpu_time, "donor");
	}
	px_json_object_begin(&j, "aborts");
	for (i = 0; i < st->nabort_reasons; i++)
		px_json_u64(&j, st->abort_reason[i], st->abort_count[i]);
	px_json_object_end(&j);
	px_json_u64(&j, "donor_migrations", st->migrations);
	px_json_u64(&j, "donor_returns", st->returns);
	px_json_object_end(&j);
	return px_json_finish(&j);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * pxwakelat: wakeup -> on-CPU latency, split by whether the woken task was
 * a blocked mutex waiter (and whether it donated its scheduling context
 * meanwhile), and the lock-wait latency of blocked waiters
 * (lock:contention_begin -> contention_end for mutexes).  With --min
 * (targ_min_ns), one event per wakeup at least that late instead, through
 * a ring buffer: the woken task, the waker and its stack, the CPU it was
 * woken onto and what ran there, the CPU it ran on, the mutex.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "pxbpf.h"
#include "pxwakelat.h"

const volatile __u32 targ_tgid = 0;
const volatile __u64 targ_cgid = 0;
const volatile __u32 targ_cglevel = 0;
const volatile bool targ_ms = false;
const volatile bool targ_waiters_only = false;	/* -w */
const volatile __u32 targ_slot_mask = PXWL_DEF_SLOTS - 1;
const volatile __u64 targ_min_ns = 0;		/* --min; 0: histograms */

/*
 * Per-task state in an array indexed by pid modulo its size (user space
 * sizes it from pid_max and sets targ_slot_mask), each slot tagged with
 * its task's start time: a slot that another task now uses (a recycled
 * pid, or a pid a multiple of the size apart) reads as empty and is taken
 * over at the task's next wakeup or lock wait, which is counted as an
 * eviction if the other task had a wait or wakeup in progress.  Under TCG an array slot costs a fifth of
 * a task-storage lookup (one page to touch instead of the storage's own
 * allocations, cold in QEMU's soft TLB after every context switch).
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, PXWL_DEF_SLOTS);	/* set before load */
	__type(key, __u32);
	__type(value, struct pxwl_task);
} tasks SEC(".maps");

/* --min only: sized like tasks before load, else one unused entry. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pxwl_wake);
} wakes SEC(".maps");

/*
 * Waker stacks by id (bpf_get_stackid(): a wakeup keeps 4 bytes, not the
 * stack, and a waker waking many tasks from one place stores it once), in
 * two generations: wakeups of generation stack_gen store into the map of
 * its parity.  User space ages them (the map a pending wakeup points to
 * must not change under it, so no stack is ever replaced): every
 * PXWL_STACK_AGE_NS or so it empties the other map and makes it current,
 * so a map is only emptied once no wakeup of its last generation can be
 * younger than that.  A new stack whose bucket holds another is not
 * stored (-EEXIST, shown as unavailable).
 */
struct pxwl_stack_map {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 1);			/* --min: PXWL_MAX_STACKS */
	__uint(key_size, sizeof(__u32));
	__uint(value_size, PXWL_STACK_DEPTH * sizeof(__u64));
};
struct pxwl_stack_map stacks0 SEC(".maps");
struct pxwl_stack_map stacks1 SEC(".maps");
volatile __u32 stack_gen;			/* user space's, see above */

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);		/* --min: 256 KB */
} events SEC(".maps");

/*
 * The runqueues' clocks: the wakeup and the switch each read the clock
 * their rq just updated (try_to_wake_up() updates the target rq's before
 * activating, __schedule() its own first), instead of a clock read of
 * their own.  sched_clock: comparable across CPUs where it is stable,
 * and a sample that would be negative is dropped.
 */
extern const struct rq runqueues __ksym;

static __always_inline struct rq *rq_of(__u32 cpu)
{
	return bpf_per_cpu_ptr(&runqueues, cpu);
}

static __always_inline __u64 rq_clock_of(__u32 cpu)
{
	struct rq *rq = rq_of(cpu);

	return rq ? rq->clock : 0;
}

/* Per-CPU copies: plain increments; user space sums the CPUs. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PXWL_NHIST);
	__type(key, __u32);
	__type(value, struct px_hist);
} hists SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pxwl_stats);
} stats SEC(".maps");

static __always_inline bool match(struct task_struct *t)
{
	return px_task_match(t, targ_tgid, targ_cgid, targ_cglevel);
}

static __always_inline void record(__u32 idx, __u64 ns)
{
	struct px_hist *h = bpf_map_lookup_elem(&hists, &idx);

	if (h)
		px_hist_add(h, ns / (targ_ms ? 1000000 : 1000));
}

static __always_inline struct pxwl_stats *st(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&stats, &zero);
}

/*
 * @p's slot, or NULL if another task holds it; with @create, a slot held
 * by another task is cleared and taken.
 */
static __always_inline struct pxwl_task *task_get(struct task_struct *p, bool create)
{
	__u32 key = (__u32)p->pid & targ_slot_mask;
	struct pxwl_task *t = bpf_map_lookup_elem(&tasks, &key);
	__u64 tag = p->start_time;
	struct pxwl_stats *s;

	if (!t)
		return NULL;
	if (t->tag != tag) {
		if (!create)
			return NULL;
		if (t->wait_ts || t->wake_ts) {
			s = st();
			if (s)
				s->evicted++;
		}
		t->tag = tag;
		t->wait_ts = 0;
		t->wake_ts = 0;
		t->blocked = 0;
		t->donated = 0;
	}
	return t;
}

/* Fires for every contended lock: the mutex test comes first. */
static __always_inline int on_contention_begin(void *lock, unsigned int flags)
{
	struct task_struct *cur;
	struct pxwl_task *t;

	if (!(flags & PX_LCB_F_MUTEX))
		return 0;
	cur = bpf_get_current_task_btf();
	if (!match(cur))
		return 0;
	t = task_get(cur, true);
	if (!t)
		return 0;
	if (!t->wait_ts) {
		t->wait_ts = bpf_ktime_get_ns();
		t->wait_lock = (__u64)lock;
		t->blocked = 0;
		t->donated = 0;
	}
	if (!(flags & PX_LCB_F_SPIN))
		t->blocked = 1;
	return 0;
}

static __always_inline int on_contention_end(void *lock, int ret)
{
	struct pxwl_task *t = task_get(bpf_get_current_task_btf(), false);
	struct pxwl_stats *s;
	__u64 ns;

	if (!t || !t->wait_ts || t->wait_lock != (__u64)lock)
		return 0;
	s = st();
	if (!s)
		return 0;
	ns = bpf_ktime_get_ns() - t->wait_ts;
	if (ret) {
		s->failed++;
	} else if (!t->blocked) {
		s->spun++;
	} else {
		s->acquired++;
		if (t->donated)
			s->acquired_donated++;
		s->wait_ns += ns;
		record(PXWL_HIST_LOCKWAIT, ns);
	}
	t->wait_ts = 0;
	return 0;
}

/* Context switches of @t so far: __schedule() counts one for prev right
 * before each sched_switch event. */
static __always_inline __u64 nr_switches(struct task_struct *t)
{
	return t->nvcsw + t->nivcsw;
}

static __always_inline struct pxwl_wake *wake_of(struct task_struct *p)
{
	__u32 key = (__u32)p->pid & targ_slot_mask;

	return bpf_map_lookup_elem(&wakes, &key);
}

/* --min: the task waking @p (current) and its stack, into @p's entry. */
static __always_inline void waker_record(void *ctx, struct task_struct *p)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	struct pxwl_wake *w = wake_of(p);

	if (!w)
		return;
	w->tag = p->start_time;
	w->waker_pid = cur->pid;
	w->waker_tgid = cur->tgid;
	w->waker_prio = cur->prio;
	BPF_CORE_READ_STR_INTO(&w->waker_comm, cur, comm);
	w->waker_stack_gen = stack_gen;
	if (w->waker_stack_gen & 1)
		w->waker_stack = bpf_get_stackid(ctx, &stacks1, 0);
	else
		w->waker_stack = bpf_get_stackid(ctx, &stacks0, 0);
}

/* The filters of a wakeup: -p, -c and with -w a blocked waiter. */
static __always_inline struct pxwl_task *wakeup_slot(struct task_struct *p)
{
	struct pxwl_task *t;

	if (!p->pid || !match(p))
		return NULL;
	t = task_get(p, !targ_waiters_only);
	if (t && targ_waiters_only && !(t->wait_ts && t->blocked))
		return NULL;
	return t;
}

/*
 * sched_waking, attached with --min only: a stack for every wakeup is what
 * the events cost.  The same filters as the wakeup's, so tasks out of
 * them cost no stack.
 */
static __always_inline int on_waking(void *ctx, struct task_struct *p)
{
	if (wakeup_slot(p))
		waker_record(ctx, p);
	return 0;
}

/*
 * --min: the CPU @p is queued on, the task running there and how many
 * switches it has made so far; the waker of another wakeup is dropped.
 */
static __always_inline void wake_record(struct task_struct *p, struct pxwl_task *t)
{
	struct pxwl_wake *w = wake_of(p);
	struct task_struct *curr;
	__u32 cpu = p->thread_info.cpu;
	struct rq *rq = rq_of(cpu);

	if (!w || !rq)
		return;
	if (w->tag != p->start_time) {
		w->tag = p->start_time;
		w->waker_pid = 0;
		w->waker_stack = -2;	/* -ENOENT: no waker seen */
	}
	w->wake_cpu = cpu;
	w->lock = t->wake_class != PXWL_OTHER ? t->wait_lock : 0;
	w->rq_switches = rq->nr_switches;
	curr = rq->curr;
	w->curr_pid = BPF_CORE_READ(curr, pid);
	w->curr_tgid = BPF_CORE_READ(curr, tgid);
	w->curr_prio = BPF_CORE_READ(curr, prio);
	BPF_CORE_READ_STR_INTO(&w->curr_comm, curr, comm);
}

/*
 * With -w only a blocked mutex waiter's wakeup is timed: other tasks take
 * no slot (a waiter has had one since its contention_begin), and their
 * wakeups cost one lookup.  @new: sched_wakeup_new, whose waker (the
 * parent) is current, with no sched_waking before it.
 */
static __always_inline int on_wakeup(void *ctx, struct task_struct *p, bool new)
{
	struct pxwl_task *t = wakeup_slot(p);

	if (!t)
		return 0;
	t->wake_ts = rq_clock_of(p->thread_info.cpu);
	t->wake_sw = nr_switches(p);
	t->wake_class = PXWL_OTHER;
	if (t->wait_ts && t->blocked)
		t->wake_class = t->donated ? PXWL_DONOR : PXWL_WAITER;
	if (targ_min_ns) {
		if (new)
			waker_record(ctx, p);
		wake_record(p, t);
	}
	return 0;
}

/* --min: @next ran @ns after its wakeup, at least --min: send it. */
static __always_inline void event_send(struct task_struct *next, __u32 class, __u64 ns,
				       struct pxwl_stats *s)
{
	struct pxwl_wake *w = wake_of(next);
	__u32 cpu = bpf_get_smp_processor_id();
	struct pxwl_event *e;
	struct rq *rq;

	if (!w || w->tag != next->start_time)
		return;
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		s->lost_rb++;
		return;
	}
	e->latency_ns = ns;
	e->pid = next->pid;
	e->tgid = next->tgid;
	e->prio = next->prio;
	e->class = class;
	e->run_cpu = cpu;
	e->pad = 0;
	BPF_CORE_READ_STR_INTO(&e->comm, next, comm);
	__builtin_memcpy(&e->wake, w, sizeof(e->wake));
	/* This switch counted itself in nr_switches just before the event. */
	rq = rq_of(cpu);
	e->switches = 0;
	if (rq && cpu == w->wake_cpu && rq->nr_switches > w->rq_switches)
		e->switches = rq->nr_switches - w->rq_switches - 1;
	bpf_ringbuf_submit(e, 0);
	s->events++;
	w->tag = 0;	/* consumed: the next wakeup records its own waker */
}

/*
 * Only @next's storage is looked up: a task woken while still on CPU was
 * switched out since (its switch count moved), so that wakeup has no
 * latency to measure.  No pid 0 is ever woken (on_wakeup()).
 */
static __always_inline int on_switch(struct task_struct *next)
{
	struct pxwl_stats *s;
	struct pxwl_task *t;
	__u64 ns, wake_ts;
	__u32 class;

	if (!next->pid)
		return 0;
	t = task_get(next, false);
	if (!t || !t->wake_ts)
		return 0;
	ns = rq_clock_of(bpf_get_smp_processor_id());
	wake_ts = t->wake_ts;
	t->wake_ts = 0;
	if (t->wake_sw != nr_switches(next) || ns < wake_ts)
		return 0;
	ns -= wake_ts;
	class = t->wake_class < PXWL_NCLASS ? t->wake_class : PXWL_OTHER;
	s = st();
	if (!s)
		return 0;
	if (class < PXWL_NCLASS) {	/* for the verifier */
		s->wakeups[class]++;
		s->wake_ns[class] += ns;
	}
	record(class, ns);
	if (targ_min_ns && ns >= targ_min_ns)
		event_send(next, class, ns, s);
	return 0;
}

static __always_inline int on_pick(struct task_struct *donor)
{
	struct pxwl_task *t = task_get(donor, false);

	if (t && t->wait_ts)
		t->donated = 1;
	return 0;
}

PX_TP(contention_begin, contention_begin,
      PX_ARGS(void *lock, unsigned int flags),
      on_contention_begin(lock, flags))

PX_TP(contention_end, contention_end,
      PX_ARGS(void *lock, int ret),
      on_contention_end(lock, ret))

PX_TP(sched_waking, waking,
      PX_ARGS(struct task_struct *p),
      on_waking(ctx, p))

PX_TP(sched_wakeup, wakeup,
      PX_ARGS(struct task_struct *p),
      on_wakeup(ctx, p, false))

PX_TP(sched_wakeup_new, wakeup_new,
      PX_ARGS(struct task_struct *p),
      on_wakeup(ctx, p, true))

PX_TP(sched_switch, sched_switch,
      PX_ARGS(bool preempt, struct task_struct *prev, struct task_struct *next,
	      unsigned int prev_state),
      on_switch(next))

PX_TP(sched_proxy_pick, pick,
      PX_PROTO_PICK,
      on_pick(donor))

char LICENSE[] SEC("license") = "GPL";

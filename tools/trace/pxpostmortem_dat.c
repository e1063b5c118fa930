// SPDX-License-Identifier: GPL-2.0
/*
 * pxpostmortem: read a trace.dat with libtracecmd + libtraceevent.
 *
 * Events are found by system and name, their fields by name, timestamps
 * are the records' own (ns); nothing depends on how `trace-cmd report`
 * would print an event, so the libtraceevent plugins (which reformat
 * sched_switch and sched_wakeup) are not loaded at all.  The trace must
 * hold the formats of the events the story needs (trace-cmd record saves
 * the formats of the events it recorded): read_trace() refuses it, naming
 * the missing ones and the record command, when it does not.
 *
 * A trace.dat cut short is read up to its last whole page (open_cut()),
 * and nothing libtracecmd can be given makes it crash: it is opened with
 * tracecmd_open_head() + tracecmd_init_data(), and a handle either refused
 * is never closed.
 *
 * Tasks are indexed by pid in an open-addressing hash table.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event-parse.h>
#include <event-utils.h>
#include <trace-cmd.h>

#include "pxpostmortem.h"
#include "pxutil.h"

#define RECORD_CMD	"trace-cmd record -e sched_proxy -e sched:sched_switch " \
			"-e sched:sched_wakeup -e sched:sched_migrate_task CMD"

/* prev_state of sched_switch: one bit per reported state, then preemption. */
#define TASK_REPORT_MAX	0x100	/* TASK_REPORT_IDLE << 1, since v4.14 */
static const char state_letters[] = "SDTtXZPI";

struct ev *evs;
size_t nev;
int nr_cpus;

static size_t cap_ev;
static unsigned long nrecords, nproxy;
static struct tep_handle *tep;

/* ---------------------------------------------------------------- tasks */

static struct task *tasks;
static size_t ntasks, cap_tasks;
static int *slots;		/* task index + 1, 0 = free */
static size_t nslots;		/* a power of two, at least twice ntasks */

static size_t slot_of(int pid)
{
	size_t i = ((uint32_t)pid * 2654435761u) & (nslots - 1);

	while (slots[i] && tasks[slots[i] - 1].pid != pid)
		i = (i + 1) & (nslots - 1);
	return i;
}

static void rehash(void)
{
	size_t i;

	free(slots);
	nslots = nslots ? 2 * nslots : 1024;
	slots = calloc(nslots, sizeof(*slots));
	if (!slots)
		px_fatal(EXIT_FAIL, "out of memory");
	for (i = 0; i < ntasks; i++)
		slots[slot_of(tasks[i].pid)] = (int)i + 1;
}

struct task *task(int pid)
{
	struct task *t;
	size_t i;

	if (!nslots)
		rehash();
	i = slot_of(pid);
	if (slots[i])
		return &tasks[slots[i] - 1];
	if (ntasks == cap_tasks) {
		cap_tasks = cap_tasks ? 2 * cap_tasks : 256;
		tasks = realloc(tasks, cap_tasks * sizeof(*tasks));
		if (!tasks)
			px_fatal(EXIT_FAIL, "out of memory");
	}
	t = &tasks[ntasks++];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->cpu = -1;
	t->prio = -1;
	t->widx = -1;
	if (2 * ntasks > nslots)
		rehash();
	else
		slots[i] = (int)ntasks;
	return t;
}

static void set_comm(int pid, const char *comm, size_t size)
{
	struct task *t;
	size_t len = strnlen(comm, size);

	if (pid <= 0 || !len)
		return;
	t = task(pid);
	if (len >= COMM_LEN)
		len = COMM_LEN - 1;
	memcpy(t->comm, comm, len);
	t->comm[len] = '\0';
}

const char *comm(int pid)
{
	if (pid == 0)
		return "<idle>";
	if (pid < 0)
		return "?";
	if (task(pid)->comm[0])
		return task(pid)->comm;
	return tep && tep_is_pid_registered(tep, pid) ? tep_data_comm_from_pid(tep, pid) : "?";
}

const char *lock_str(uint64_t lock, int slot)
{
	static char buf[4][24];

	if (!lock)
		return "(nil)";
	snprintf(buf[slot & 3], sizeof(buf[0]), "0x%" PRIx64, lock);
	return buf[slot & 3];
}

#define SYM_MAX_OFF	(1ULL << 20)

const char *lock_sym(uint64_t lock, int slot)
{
	static char buf[4][96];
	unsigned long long start;
	const char *name;

	name = lock && tep ? tep_find_function(tep, lock) : NULL;
	if (!name)
		return NULL;
	start = tep_find_function_address(tep, lock);
	if (lock < start || lock - start >= SYM_MAX_OFF)
		return NULL;
	if (lock == start)
		snprintf(buf[slot & 3], sizeof(buf[0]), "%s", name);
	else
		snprintf(buf[slot & 3], sizeof(buf[0]), "%s+0x%llx", name, lock - start);
	return buf[slot & 3];
}

const char *lock_name(uint64_t lock, int slot)
{
	static char buf[4][128];
	const char *sym = lock_sym(lock, slot);

	if (!sym)
		return lock_str(lock, slot);
	snprintf(buf[slot & 3], sizeof(buf[0]), "%s %s", sym, lock_str(lock, slot));
	return buf[slot & 3];
}

/* --------------------------------------------------------------- events */

static const struct {
	const char	*sys, *name;
} ev_names[NR_EV] = {
	[EV_SWITCH]		= { "sched",	   "sched_switch" },
	[EV_WAKEUP]		= { "sched",	   "sched_wakeup" },
	[EV_MIGRATE_TASK]	= { "sched",	   "sched_migrate_task" },
	[EV_PICK]		= { "sched_proxy", "sched_proxy_pick" },
	[EV_ABORT]		= { "sched_proxy", "sched_proxy_abort" },
	[EV_PSWITCH]		= { "sched_proxy", "sched_proxy_switch" },
	[EV_HANDOFF]		= { "sched_proxy", "sched_proxy_handoff" },
	[EV_PMIGRATE]		= { "sched_proxy", "sched_proxy_migrate" },
	[EV_RETURN]		= { "sched_proxy", "sched_proxy_return" },
	[EV_ENQ_SLEEPING]	= { "sched_proxy", "sched_proxy_enqueue_sleeping" },
	[EV_ACTIVATE]		= { "sched_proxy", "sched_proxy_activate" },
	[EV_MARK]		= { "ftrace",	   "print" },
};

/* The fields read, by name; each event has some of them. */
enum fld {
	FLD_PREV_COMM, FLD_PREV_PID, FLD_PREV_STATE, FLD_PREV_DONOR_PID,
	FLD_NEXT_COMM, FLD_NEXT_PID, FLD_NEXT_PRIO,
	FLD_NEXT_DONOR_COMM, FLD_NEXT_DONOR_PID, FLD_NEXT_DONOR_PRIO,
	FLD_COMM, FLD_PID, FLD_PRIO, FLD_TARGET_CPU, FLD_ORIG_CPU, FLD_DEST_CPU,
	FLD_DONOR_COMM, FLD_DONOR_PID, FLD_OWNER_COMM, FLD_OWNER_PID, FLD_OWNER_CPU,
	FLD_LOCK, FLD_DEPTH, FLD_CPU, FLD_REASON, FLD_TO_COMM, FLD_TO_PID, FLD_KIND,
	FLD_SRC_CPU, FLD_DST_CPU, FLD_STRATEGY, FLD_LOCK_TYPE, FLD_BUF,
	NR_FLD,
};

static const char *const fld_names[NR_FLD] = {
	[FLD_PREV_COMM] = "prev_comm", [FLD_PREV_PID] = "prev_pid",
	[FLD_PREV_STATE] = "prev_state", [FLD_PREV_DONOR_PID] = "prev_donor_pid",
	[FLD_NEXT_COMM] = "next_comm", [FLD_NEXT_PID] = "next_pid", [FLD_NEXT_PRIO] = "next_prio",
	[FLD_NEXT_DONOR_COMM] = "next_donor_comm", [FLD_NEXT_DONOR_PID] = "next_donor_pid",
	[FLD_NEXT_DONOR_PRIO] = "next_donor_prio",
	[FLD_COMM] = "comm", [FLD_PID] = "pid", [FLD_PRIO] = "prio", [FLD_TARGET_CPU] = "target_cpu",
	[FLD_ORIG_CPU] = "orig_cpu", [FLD_DEST_CPU] = "dest_cpu",
	[FLD_DONOR_COMM] = "donor_comm", [FLD_DONOR_PID] = "donor_pid",
	[FLD_OWNER_COMM] = "owner_comm", [FLD_OWNER_PID] = "owner_pid", [FLD_OWNER_CPU] = "owner_cpu",
	[FLD_LOCK] = "lock", [FLD_DEPTH] = "depth", [FLD_CPU] = "cpu", [FLD_REASON] = "reason",
	[FLD_TO_COMM] = "to_comm", [FLD_TO_PID] = "to_pid", [FLD_KIND] = "kind",
	[FLD_SRC_CPU] = "src_cpu", [FLD_DST_CPU] = "dst_cpu", [FLD_STRATEGY] = "strategy",
	[FLD_LOCK_TYPE] = "lock_type",
	[FLD_BUF] = "buf",
};

static struct tep_event *events[NR_EV];
static struct tep_format_field *fields[NR_EV][NR_FLD];

static bool num64(const struct tep_record *r, enum ev_type t, enum fld f, uint64_t *v)
{
	unsigned long long val;

	if (!fields[t][f] || tep_read_number_field(fields[t][f], r->data, &val))
		return false;
	*v = val;
	return true;
}

/* An int field (pid_t, int: sign-extended from its size), -1 if absent. */
static int num(const struct tep_record *r, enum ev_type t, enum fld f)
{
	uint64_t v;

	if (!num64(r, t, f, &v))
		return -1;
	return fields[t][f]->size == 8 ? (int)(int64_t)v : (int)(int32_t)(uint32_t)v;
}

/* A char[] field (a comm): remember it as @pid's. */
static void field_comm(const struct tep_record *r, enum ev_type t, enum fld f, int pid)
{
	const struct tep_format_field *fl = fields[t][f];

	if (fl && fl->offset + fl->size <= r->size)
		set_comm(pid, (const char *)r->data + fl->offset, fl->size);
}

/*
 * The name __print_symbolic() gives @val of field @name in the event's
 * recorded print format (abort reasons, handoff kinds, return strategies):
 * the table comes with the trace, so it always matches its kernel.
 */
static const char *symbol(enum ev_type t, const char *name, uint64_t val)
{
	static char unknown[64][4];
	struct tep_print_arg *a;
	struct tep_print_flag_sym *s;

	for (a = events[t]->print_fmt.args; a; a = a->next) {
		if (a->type != TEP_PRINT_SYMBOL || !a->symbol.field ||
		    a->symbol.field->type != TEP_PRINT_FIELD ||
		    strcmp(a->symbol.field->field.name, name))
			continue;
		for (s = a->symbol.symbols; s; s = s->next)
			if (strtoull(s->value, NULL, 0) == val)
				return s->str;
	}
	if (val >= PX_ARRAY_SIZE(unknown))
		return "?";
	snprintf(unknown[val], sizeof(unknown[0]), "%d", (int)val);
	return unknown[val];
}

static void prev_state(struct ev *e, uint64_t v)
{
	unsigned int bits = (unsigned int)v & (TASK_REPORT_MAX - 1);
	int i;

	if (!bits) {
		snprintf(e->state, sizeof(e->state), "%s", v & TASK_REPORT_MAX ? "R+" : "R");
		return;
	}
	for (i = 0; i < (int)sizeof(state_letters) - 1; i++)
		if (bits & (1u << i))
			break;
	e->state[0] = i < (int)sizeof(state_letters) - 1 ? state_letters[i] : '?';
	e->state[1] = '\0';
}

static void decode(const struct tep_record *r, enum ev_type t, struct ev *e)
{
	uint64_t v;

	switch (t) {
	case EV_SWITCH:
		e->prev = num(r, t, FLD_PREV_PID);
		e->next = num(r, t, FLD_NEXT_PID);
		e->prio = num(r, t, FLD_NEXT_PRIO);
		if (num64(r, t, FLD_PREV_STATE, &v))
			prev_state(e, v);
		field_comm(r, t, FLD_PREV_COMM, e->prev);
		field_comm(r, t, FLD_NEXT_COMM, e->next);
		break;
	case EV_WAKEUP:
		e->pid = num(r, t, FLD_PID);
		e->dst = num(r, t, FLD_TARGET_CPU);
		e->prio = num(r, t, FLD_PRIO);
		field_comm(r, t, FLD_COMM, e->pid);
		break;
	case EV_MIGRATE_TASK:
		e->pid = num(r, t, FLD_PID);
		e->src = num(r, t, FLD_ORIG_CPU);
		e->dst = num(r, t, FLD_DEST_CPU);
		break;
	case EV_PICK:
	case EV_ABORT:
		e->donor = num(r, t, FLD_DONOR_PID);
		e->owner = num(r, t, FLD_OWNER_PID);
		e->depth = num(r, t, FLD_DEPTH);
		e->dst = num(r, t, FLD_CPU);
		e->owner_cpu = num(r, t, FLD_OWNER_CPU);
		if (num64(r, t, FLD_LOCK, &v))
			e->lock = v;
		if (num64(r, t, FLD_REASON, &v))
			e->reason = symbol(t, "reason", v);
		if (num64(r, t, FLD_LOCK_TYPE, &v))
			e->lock_type = symbol(t, "lock_type", v);
		field_comm(r, t, FLD_DONOR_COMM, e->donor);
		field_comm(r, t, FLD_OWNER_COMM, e->owner);
		break;
	case EV_PSWITCH:
		e->prev = num(r, t, FLD_PREV_PID);
		e->prev_donor = num(r, t, FLD_PREV_DONOR_PID);
		e->next = num(r, t, FLD_NEXT_PID);
		e->next_donor = num(r, t, FLD_NEXT_DONOR_PID);
		e->prio = num(r, t, FLD_NEXT_DONOR_PRIO);
		field_comm(r, t, FLD_NEXT_COMM, e->next);
		field_comm(r, t, FLD_NEXT_DONOR_COMM, e->next_donor);
		break;
	case EV_HANDOFF:
		e->owner = num(r, t, FLD_OWNER_PID);
		e->to = num(r, t, FLD_TO_PID);
		if (num64(r, t, FLD_LOCK, &v))
			e->lock = v;
		if (num64(r, t, FLD_KIND, &v))
			e->reason = symbol(t, "kind", v);
		field_comm(r, t, FLD_TO_COMM, e->to);
		break;
	case EV_PMIGRATE:
		e->donor = num(r, t, FLD_DONOR_PID);
		e->owner = num(r, t, FLD_OWNER_PID);
		e->src = num(r, t, FLD_SRC_CPU);
		e->dst = num(r, t, FLD_DST_CPU);
		field_comm(r, t, FLD_DONOR_COMM, e->donor);
		break;
	case EV_RETURN:
		e->pid = num(r, t, FLD_PID);
		e->src = num(r, t, FLD_SRC_CPU);
		e->dst = num(r, t, FLD_DST_CPU);
		if (num64(r, t, FLD_STRATEGY, &v))
			e->reason = symbol(t, "strategy", v);
		field_comm(r, t, FLD_COMM, e->pid);
		break;
	case EV_ENQ_SLEEPING:
	case EV_ACTIVATE:
		e->donor = num(r, t, FLD_DONOR_PID);
		e->owner = num(r, t, FLD_OWNER_PID);
		e->dst = num(r, t, FLD_CPU);
		field_comm(r, t, FLD_DONOR_COMM, e->donor);
		field_comm(r, t, FLD_OWNER_COMM, e->owner);
		break;
	case EV_MARK: {
		const struct tep_format_field *f = fields[t][FLD_BUF];
		size_t off = f ? (size_t)f->offset : (size_t)r->size, len;

		len = off < (size_t)r->size ? strnlen((const char *)r->data + off, r->size - off) : 0;
		e->text = strndup(len ? (const char *)r->data + off : "", len);
		if (!e->text)
			px_fatal(EXIT_FAIL, "out of memory");
		e->text[strcspn(e->text, "\n")] = '\0';
		break;
	}
	default:
		break;
	}
}

static int on_record(struct tracecmd_input *handle, struct tep_record *r, int cpu, void *data)
{
	int id = tep_data_type(tep, r), t;
	struct ev *e;

	(void)handle;
	(void)data;
	nrecords++;
	for (t = 1; t < NR_EV; t++)
		if (events[t] && events[t]->id == id)
			break;
	if (t == NR_EV)
		return 0;
	if (nev == cap_ev) {
		cap_ev = cap_ev ? 2 * cap_ev : 65536;
		evs = realloc(evs, cap_ev * sizeof(*evs));
		if (!evs)
			px_fatal(EXIT_FAIL, "out of memory");
	}
	e = &evs[nev++];
	memset(e, 0, sizeof(*e));
	e->ts = r->ts;
	e->cpu = cpu;
	e->cur = tep_data_pid(tep, r);
	e->type = t;
	e->reason = "";
	e->lock_type = "";
	e->prev = e->prev_donor = e->next = e->next_donor = -1;
	e->donor = e->owner = e->pid = e->to = -1;
	e->depth = e->src = e->dst = e->owner_cpu = e->prio = -1;
	decode(r, t, e);
	if (t >= EV_PICK && t <= EV_ACTIVATE)
		nproxy++;
	return 0;
}

/* ---------------------------------------------------------------- input */

/*
 * libtracecmd's messages are kept here instead of printed, and the first
 * ones go into pxpostmortem's own error line: its warnings come through
 * tep_vprint(), which event-utils.h lets an application override, and a
 * few (3.1's "File possibly truncated. Need at least N") are printed on
 * stdout, which init_data() catches.  libtraceevent's own format-parse
 * complaints are dropped: they do not tell a user what is wrong.
 */
static char liblog[512];

static void liblog_add(const char *fmt, va_list ap)
{
	size_t n = strlen(liblog);

	if (n + 3 >= sizeof(liblog))
		return;
	if (n)
		n += (size_t)snprintf(liblog + n, sizeof(liblog) - n, "; ");
	vsnprintf(liblog + n, sizeof(liblog) - n, fmt, ap);
	liblog[n + strcspn(liblog + n, "\n")] = '\0';
}

static void liblog_addf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	liblog_add(fmt, ap);
	va_end(ap);
}

int tep_vprint(const char *name, enum tep_loglevel level, bool print_err,
	       const char *fmt, va_list ap)
{
	(void)print_err;
	if (level <= TEP_LOG_WARNING && name && !strcmp(name, "libtracecmd"))
		liblog_add(fmt, ap);
	return 0;
}

/* " (libtracecmd: ...)" for an error line, or "" when it said nothing. */
static const char *libsaid(void)
{
	static char buf[sizeof(liblog) + 24];

	if (!liblog[0])
		return "";
	snprintf(buf, sizeof(buf), " (libtracecmd: %s)", liblog);
	return buf;
}

/* The file size the last "File possibly truncated" asked for, 0 if none. */
static unsigned long long need_size(void)
{
	const char *p = strstr(liblog, "Need at least "), *q;

	while (p && (q = strstr(p + 1, "Need at least ")))
		p = q;
	return p ? strtoull(p + strlen("Need at least "), NULL, 10) : 0;
}

/* tracecmd_init_data(), with what it prints on stdout kept in liblog. */
static int init_data(struct tracecmd_input *handle)
{
	char buf[256];
	int saved, cap, ret;
	ssize_t n;

	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	cap = memfd_create("pxpostmortem-libtracecmd", MFD_CLOEXEC);
	if (saved < 0 || cap < 0 || dup2(cap, STDOUT_FILENO) < 0)
		px_fatal(EXIT_FAIL, "redirecting stdout");
	ret = tracecmd_init_data(handle);
	fflush(stdout);
	if (dup2(saved, STDOUT_FILENO) < 0)
		px_fatal(EXIT_FAIL, "restoring stdout");
	close(saved);
	n = pread(cap, buf, sizeof(buf) - 1, 0);
	close(cap);
	if (n > 0) {
		buf[n] = '\0';
		liblog_addf("%s", buf);
	}
	return ret;
}

/* A trace.dat starts with "\x17\x08\x44tracing". */
static bool is_dat(int fd)
{
	static const char magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	char buf[sizeof(magic)];

	return pread(fd, buf, sizeof(buf), 0) == (ssize_t)sizeof(buf) &&
	       !memcmp(buf, magic, sizeof(buf));
}

/*
 * The page size of the trace.dat @fd, from its first bytes (the same in
 * every version, trace-cmd.dat.v7(5)): the magic, the version string,
 * the endianness (1: big), the size of a long, then the page size.  0 if
 * it cannot be read.
 */
static int page_size(int fd)
{
	unsigned char buf[32], *p;
	uint32_t v;

	if (pread(fd, buf, sizeof(buf), 0) != (ssize_t)sizeof(buf))
		return 0;
	p = memchr(buf + 10, '\0', sizeof(buf) - 10);
	if (!p || p + 7 > buf + sizeof(buf))
		return 0;
	v = p[1] ? (uint32_t)p[3] << 24 | p[4] << 16 | p[5] << 8 | p[6] :
		   (uint32_t)p[6] << 24 | p[5] << 16 | p[4] << 8 | p[3];
	return v >= 512 && v <= (1u << 24) ? (int)v : 0;
}

/* @fd's first @len bytes into a new memfd of @size bytes (the rest zeros). */
static int copy_fd(int fd, const char *what, off_t len, off_t size)
{
	char buf[65536];
	off_t off = 0;
	ssize_t n = 0;
	int out;

	out = memfd_create(what, MFD_CLOEXEC);
	if (out < 0)
		px_fatal(EXIT_FAIL, "memfd_create");
	while (off < len && (n = pread(fd, buf, len - off < (off_t)sizeof(buf) ?
				       (size_t)(len - off) : sizeof(buf), off)) > 0) {
		if (write(out, buf, (size_t)n) != n)
			px_fatal(EXIT_FAIL, "copying %s", what);
		off += n;
	}
	if (n < 0)
		px_fatal(EXIT_FAIL, "reading %s", what);
	if (ftruncate(out, size))
		px_fatal(EXIT_FAIL, "copying %s", what);
	return out;
}

/* stdin as a file libtracecmd can open: itself, or a copy. */
static int stdin_fd(void)
{
	struct stat st;
	char buf[65536];
	ssize_t n;
	int fd;

	if (!fstat(STDIN_FILENO, &st) && S_ISREG(st.st_mode))
		return dup(STDIN_FILENO);
	fd = memfd_create("pxpostmortem-stdin", MFD_CLOEXEC);
	if (fd < 0)
		px_fatal(EXIT_FAIL, "memfd_create");
	while ((n = read(STDIN_FILENO, buf, sizeof(buf))) > 0)
		if (write(fd, buf, (size_t)n) != n)
			px_fatal(EXIT_FAIL, "copying stdin");
	if (n < 0)
		px_fatal(EXIT_FAIL, "reading stdin");
	return fd;
}

/* Refuse a trace without the formats of the events the story needs. */
static void check_events(const char *name)
{
	char missing[256] = "";
	bool proxy = false;
	int t;

	for (t = EV_SWITCH; t <= EV_MIGRATE_TASK; t++)
		if (!events[t])
			snprintf(missing + strlen(missing), sizeof(missing) - strlen(missing),
				 "%s%s:%s", missing[0] ? ", " : "", ev_names[t].sys, ev_names[t].name);
	for (t = EV_PICK; t <= EV_ACTIVATE; t++)
		proxy |= events[t] != NULL;
	if (!proxy)
		snprintf(missing + strlen(missing), sizeof(missing) - strlen(missing),
			 "%ssched_proxy:*", missing[0] ? ", " : "");
	if (missing[0])
		px_fatalx(EXIT_FAIL, "%s: recorded without %s, which the story needs%s; record with\n"
			  "  %s", name, missing, proxy ? "" :
			  " (a kernel built without CONFIG_PROXY_EXEC has no sched_proxy events)",
			  RECORD_CMD);
}

/* libtracecmd's handle on the file @fd: its headers, or NULL. */
static struct tracecmd_input *open_head(int fd)
{
	char path[64];

	/* Fields by name: no plugin may change what an event is. */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	return tracecmd_open_head(path, TRACECMD_FL_LOAD_NO_PLUGINS);
}

/*
 * A trace.dat cut short (an interrupted record, a full disk, a partial
 * copy) has its headers but not all the CPU data they announce, which
 * tracecmd_init_data() refuses, one CPU at a time ("File possibly
 * truncated. Need at least N").  The pages it still holds tell what
 * happened up to the cut: read a copy with every whole page up to the
 * cut and zeros after it, up to what the headers announce, which
 * libtracecmd reads as empty pages.  Returns that handle (and sets
 * @truncated), or NULL.  A failed handle is never closed: libtracecmd
 * 3.1's tracecmd_close() crashes on one that tracecmd_init_data() gave up
 * on.
 */
static struct tracecmd_input *open_cut(int fd, const char *name, off_t have, bool *truncated)
{
	unsigned long long need = need_size();
	struct tracecmd_input *handle;
	int page = page_size(fd), tries, cut = -1;
	off_t whole;

	if (page <= 0)
		return NULL;
	whole = have / page * page;
	for (tries = 0; tries < 1024; tries++) {
		if (need <= (unsigned long long)have || need > (unsigned long long)have + (1ULL << 40))
			return NULL;
		if (cut >= 0)
			close(cut);
		cut = copy_fd(fd, name, whole, (off_t)need);
		handle = open_head(cut);
		if (!handle && whole < have) {
			/* cut before the first page of events: keep the headers' tail */
			close(cut);
			whole = have;
			cut = copy_fd(fd, name, whole, (off_t)need);
			handle = open_head(cut);
		}
		if (!handle)
			return NULL;
		if (init_data(handle) >= 0) {
			*truncated = true;
			return handle;
		}
		/* the next CPU's data ends further on */
		if (need_size() <= need)
			return NULL;
		need = need_size();
	}
	return NULL;
}

bool trace_truncated;

void read_trace(const char *path)
{
	const char *name = strcmp(path, "-") ? path : "stdin";
	struct tracecmd_input *handle;
	struct stat st;
	int fd, t, f;

	if (strcmp(path, "-")) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			px_fatal(EXIT_FAIL, "cannot open %s", path);
	} else {
		fd = stdin_fd();
	}
	if (fstat(fd, &st))
		px_fatal(EXIT_FAIL, "%s", name);
	if (S_ISDIR(st.st_mode))
		px_fatalx(EXIT_FAIL, "%s: is a directory, not a trace.dat", name);
	if (!st.st_size)
		px_fatalx(EXIT_FAIL, "%s: empty file, not a trace.dat (did trace-cmd record "
			  "end before it wrote anything?)", name);
	if (!is_dat(fd))
		px_fatalx(EXIT_FAIL, "%s: not a trace.dat; pxpostmortem reads the trace.dat of "
			  "`trace-cmd record` (not the text of `trace-cmd report`): give it "
			  "the trace.dat the report came from", name);
	tracecmd_set_loglevel(TEP_LOG_WARNING);
	tep_set_loglevel(TEP_LOG_CRITICAL);
	handle = open_head(fd);
	if (!handle)
		px_fatalx(EXIT_FAIL, "%s: a trace.dat whose headers libtracecmd cannot read: cut "
			  "short before its events, or damaged%s", name, libsaid());
	tep = tracecmd_get_tep(handle);
	if (init_data(handle) < 0) {
		handle = open_cut(fd, name, st.st_size, &trace_truncated);
		if (!handle)
			px_fatalx(EXIT_FAIL, "%s: libtracecmd cannot read its events: damaged, or "
				  "cut short%s", name, libsaid());
		tep = tracecmd_get_tep(handle);
		px_warnx("warning: %s is cut short (%lld bytes, its headers announce more): "
			 "the story of what its whole pages hold; later events are missing",
			 name, (long long)st.st_size);
	}
	liblog[0] = '\0';
	nr_cpus = tep_get_cpus(tep);
	for (t = 1; t < NR_EV; t++) {
		events[t] = tep_find_event_by_name(tep, ev_names[t].sys, ev_names[t].name);
		for (f = 0; events[t] && f < NR_FLD; f++)
			fields[t][f] = tep_find_field(events[t], fld_names[f]);
	}
	check_events(name);
	if (tracecmd_iterate_events(handle, NULL, 0, on_record, NULL) < 0)
		px_fatalx(EXIT_FAIL, "%s: error reading the events%s", name, libsaid());
	if (!nrecords)
		px_fatalx(EXIT_FAIL, "%s: empty trace (no events)%s", name, trace_truncated ?
			  ": cut short before its first whole page of events" :
			  ": did trace-cmd record capture anything?");
	if (!nproxy)
		px_fatalx(EXIT_FAIL, "%s: no sched_proxy events%s", name, trace_truncated ?
			  " before the cut" : ": was the kernel booted with proxy_exec=disable, "
			  "or did no task ever wait on a mutex?");
	/* The handle stays open: event names and symbols point into it. */
}

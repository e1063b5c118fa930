/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmdat: write a trace.dat (trace-cmd file format v6, trace-cmd.dat.v6(5))
 * from lines in the shape of `trace-cmd report` without plugins:
 *
 *   COMM-PID [CPU] SECS.FRACTION: EVENT: key=value key=value ...
 *
 * for the events pxpostmortem reads (sched_switch, sched_wakeup,
 * sched_migrate_task, the sched_proxy events, ftrace print as
 * "print: tracing_mark_write: TEXT").  The formats are the kernel's field
 * lists (offsets laid out as the kernel does); the data is ring-buffer
 * pages as the kernel writes them, so libtracecmd reads the file as it
 * reads a recorded one.  The fraction may have up to 9 digits (ns).
 *
 *   struct pmdat *w = pmdat_new(PMDAT_ALL);
 *   pmdat_line(w, "owner-200 [000] 1.000000: sched_switch: prev_comm=...");
 *   pmdat_write(w, "trace.dat");
 *   pmdat_free(w);
 *
 * A mask of PMDAT_NO_SWITCH and the like leaves an event's format (and its
 * lines) out, as a recording without that -e would.  w->kallsyms, lines
 * of /proc/kallsyms, goes into the file as trace-cmd record saves them.
 */
#ifndef PMDAT_H
#define PMDAT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PMDAT_PAGE	4096
#define PMDAT_MAX_CPUS	8

struct pmdat_field {
	const char	*decl;		/* as in the format file */
	const char	*name;
	int		size;		/* 0: char buf[] (rest of the event) */
	int		sign;
	const char	*syms;		/* __print_symbolic names, 0.., "|"-separated */
};

struct pmdat_event {
	const char		*sys, *name;
	int			id;
	struct pmdat_field	f[10];
};

#define PF_COMM(n)	{ "char " n "[16]", n, 16, 0, NULL }
#define PF_INT(n)	{ "int " n, n, 4, 1, NULL }
#define PF_PID(n)	{ "pid_t " n, n, 4, 1, NULL }
#define PF_SYM(n, s)	{ "int " n, n, 4, 1, s }

static const struct pmdat_event pmdat_events[] = {
	{ "ftrace", "print", 5, {
		{ "unsigned long ip", "ip", 8, 0, NULL },
		{ "char buf[]", "buf", 0, 0, NULL } } },
	{ "sched", "sched_switch", 300, {
		PF_COMM("prev_comm"), PF_PID("prev_pid"), PF_INT("prev_prio"),
		{ "long prev_state", "prev_state", 8, 1, NULL },
		PF_COMM("next_comm"), PF_PID("next_pid"), PF_INT("next_prio") } },
	{ "sched", "sched_wakeup", 301, {
		PF_COMM("comm"), PF_PID("pid"), PF_INT("prio"), PF_INT("target_cpu") } },
	{ "sched", "sched_migrate_task", 302, {
		PF_COMM("comm"), PF_PID("pid"), PF_INT("prio"), PF_INT("orig_cpu"),
		PF_INT("dest_cpu") } },
	{ "sched_proxy", "sched_proxy_pick", 400, {
		PF_COMM("donor_comm"), PF_PID("donor_pid"), PF_COMM("owner_comm"),
		PF_PID("owner_pid"), { "void * lock", "lock", 8, 0, NULL }, PF_INT("depth"),
		PF_INT("cpu") } },
	{ "sched_proxy", "sched_proxy_abort", 401, {
		PF_COMM("donor_comm"), PF_PID("donor_pid"), PF_PID("owner_pid"),
		PF_INT("owner_cpu"), { "void * lock", "lock", 8, 0, NULL }, PF_INT("depth"),
		PF_INT("cpu"), PF_SYM("reason", "owner_cpu|owner_sleeping|owner_migrating|"
			"owner_delayed|owner_ext|chain_changed|deactivated|owner_waking") } },
	{ "sched_proxy", "sched_proxy_switch", 402, {
		PF_PID("prev_pid"), PF_PID("prev_donor_pid"), PF_COMM("next_comm"),
		PF_PID("next_pid"), PF_COMM("next_donor_comm"), PF_PID("next_donor_pid"),
		PF_INT("next_donor_prio") } },
	{ "sched_proxy", "sched_proxy_migrate", 403, {
		PF_COMM("donor_comm"), PF_PID("donor_pid"), PF_PID("owner_pid"),
		PF_INT("src_cpu"), PF_INT("dst_cpu") } },
	{ "sched_proxy", "sched_proxy_return", 404, {
		PF_COMM("comm"), PF_PID("pid"), PF_INT("src_cpu"), PF_INT("dst_cpu"),
		PF_SYM("strategy", "schedule|ttwu") } },
	{ "sched_proxy", "sched_proxy_enqueue_sleeping", 405, {
		PF_COMM("donor_comm"), PF_PID("donor_pid"), PF_COMM("owner_comm"),
		PF_PID("owner_pid"), PF_INT("cpu") } },
	{ "sched_proxy", "sched_proxy_activate", 406, {
		PF_COMM("donor_comm"), PF_PID("donor_pid"), PF_COMM("owner_comm"),
		PF_PID("owner_pid"), PF_INT("cpu") } },
	{ "sched_proxy", "sched_proxy_handoff", 407, {
		{ "void * lock", "lock", 8, 0, NULL }, PF_PID("owner_pid"), PF_COMM("to_comm"),
		PF_PID("to_pid"), PF_SYM("kind", "donor|top_waiter") } },
};
#define PMDAT_NR_EVENTS	(sizeof(pmdat_events) / sizeof(pmdat_events[0]))

/* Events to leave out (their format and lines), by index in pmdat_events. */
#define PMDAT_ALL		0u
#define PMDAT_NO_SWITCH		(1u << 1)
#define PMDAT_NO_WAKEUP		(1u << 2)
#define PMDAT_NO_MIGRATE	(1u << 3)
#define PMDAT_NO_PROXY		(0xffu << 4)

struct pmdat_cpu {
	unsigned char	*data;		/* whole pages */
	size_t		npages;
	uint64_t	last_ts;
	size_t		used;		/* bytes of the last page's data area */
};

struct pmdat {
	unsigned int		leave_out;
	struct pmdat_cpu	cpu[PMDAT_MAX_CPUS];
	int			ncpus;
	char			*cmdlines;
	size_t			cmdlines_len;
	const char		*kallsyms;	/* /proc/kallsyms lines, or NULL */
	int			seen_pid[64];
	int			nseen;
};

static inline struct pmdat *pmdat_new(unsigned int leave_out)
{
	struct pmdat *w = calloc(1, sizeof(*w));

	if (!w)
		abort();
	w->leave_out = leave_out;
	w->ncpus = 1;
	return w;
}

static inline void pmdat_free(struct pmdat *w)
{
	int c;

	for (c = 0; c < PMDAT_MAX_CPUS; c++)
		free(w->cpu[c].data);
	free(w->cmdlines);
	free(w);
}

/* Offsets as the kernel lays out TP_STRUCT__entry: natural alignment. */
static inline int pmdat_offset(const struct pmdat_event *ev, int k)
{
	int off = 8, i;

	for (i = 0; i <= k; i++) {
		int sz = ev->f[i].size, al = sz == 16 || !sz ? 1 : sz >= 8 ? 8 : sz;

		off = (off + al - 1) / al * al;
		if (i < k)
			off += sz;
	}
	return off;
}

static inline void pmdat_u32(unsigned char *p, uint32_t v) { memcpy(p, &v, 4); }

/* Append one event (@len payload bytes) at @ts to @cpu's pages. */
static inline void pmdat_emit(struct pmdat *w, int cpu, uint64_t ts, const unsigned char *payload,
			      size_t len)
{
	struct pmdat_cpu *c = &w->cpu[cpu];
	size_t plen = (len + 3) & ~(size_t)3, need;
	uint64_t delta;
	unsigned char *p;

	need = 8 + plen + 4;	/* a time extend, the header, a length word */
	if (!c->npages || c->used + need > PMDAT_PAGE - 16) {
		c->data = realloc(c->data, (c->npages + 1) * PMDAT_PAGE);
		if (!c->data)
			abort();
		p = c->data + c->npages++ * PMDAT_PAGE;
		memset(p, 0, PMDAT_PAGE);
		memcpy(p, &ts, 8);		/* the page's time stamp */
		c->last_ts = ts;
		c->used = 0;
	}
	p = c->data + (c->npages - 1) * PMDAT_PAGE + 16;
	delta = ts - c->last_ts;
	if (delta >= (1u << 27)) {		/* type_len 30: time extend */
		pmdat_u32(p + c->used, 30u | (uint32_t)(delta & ((1u << 27) - 1)) << 5);
		pmdat_u32(p + c->used + 4, (uint32_t)(delta >> 27));
		c->used += 8;
		delta = 0;
	}
	if (plen <= 28 * 4) {
		pmdat_u32(p + c->used, (uint32_t)(plen / 4) | (uint32_t)delta << 5);
		c->used += 4;
	} else {				/* type_len 0: the length follows */
		pmdat_u32(p + c->used, (uint32_t)delta << 5);
		pmdat_u32(p + c->used + 4, (uint32_t)plen + 4);
		c->used += 8;
	}
	memcpy(p + c->used, payload, len);
	c->used += plen;
	c->last_ts = ts;
	/* commit: the bytes of data on the page */
	memcpy(c->data + (c->npages - 1) * PMDAT_PAGE + 8, &(uint64_t){ c->used }, 8);
	if (cpu + 1 > w->ncpus)
		w->ncpus = cpu + 1;
}

/* " key=" in @s: the value and its length up to a blank. */
static inline const char *pmdat_value(const char *s, const char *key, size_t *len)
{
	size_t kl = strlen(key);
	const char *p = s;

	while ((p = strstr(p, key))) {
		if ((p == s || p[-1] == ' ') && p[kl] == '=') {
			p += kl + 1;
			*len = strcspn(p, " \n");
			return p;
		}
		p += kl;
	}
	*len = 0;
	return NULL;
}

static inline void pmdat_cmdline(struct pmdat *w, int pid, const char *comm, size_t len)
{
	char buf[64];
	int i, n;

	for (i = 0; i < w->nseen; i++)
		if (w->seen_pid[i] == pid)
			return;
	if (w->nseen < 64)
		w->seen_pid[w->nseen++] = pid;
	else
		return;
	n = snprintf(buf, sizeof(buf), "%d %.*s\n", pid, (int)len, comm);
	w->cmdlines = realloc(w->cmdlines, w->cmdlines_len + (size_t)n + 1);
	if (!w->cmdlines)
		abort();
	memcpy(w->cmdlines + w->cmdlines_len, buf, (size_t)n + 1);
	w->cmdlines_len += (size_t)n;
}

/* One report line to an event; false if it is none or not one of ours. */
static inline bool pmdat_line(struct pmdat *w, const char *line)
{
	const char *lb = strchr(line, '['), *p, *name, *rest, *dash, *c;
	unsigned char buf[512];
	uint64_t sec = 0, frac = 0, scale = 1000000000ULL;
	size_t nl, e, len = 0;
	int cpu, pid = 0, i;

	if (!lb)
		return false;
	cpu = atoi(lb + 1);
	for (p = strchr(lb, ']') + 1; *p == ' '; p++)
		;
	while (*p >= '0' && *p <= '9')
		sec = sec * 10 + (uint64_t)(*p++ - '0');
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++)
			if (scale > 1) {
				scale /= 10;
				frac += (uint64_t)(*p - '0') * scale;
			}
	name = p + 1;
	while (*name == ' ')
		name++;
	nl = strcspn(name, ":");
	for (rest = name + nl + 1; *rest == ' '; rest++)
		;
	for (e = 0; e < PMDAT_NR_EVENTS; e++)
		if (strlen(pmdat_events[e].name) == nl && !strncmp(name, pmdat_events[e].name, nl))
			break;
	if (e == PMDAT_NR_EVENTS || (w->leave_out & (1u << e)) || cpu < 0 || cpu >= PMDAT_MAX_CPUS)
		return false;
	/* COMM-PID: the pid follows the last '-' before '[' */
	for (dash = lb; dash > line && dash[-1] != '-'; dash--)
		;
	if (dash > line) {
		pid = atoi(dash);
		for (c = line; *c == ' '; c++)
			;
		if (pid > 0)
			pmdat_cmdline(w, pid, c, (size_t)(dash - 1 - c));
	}
	memset(buf, 0, sizeof(buf));
	memcpy(buf, &(uint16_t){ (uint16_t)pmdat_events[e].id }, 2);
	memcpy(buf + 4, &(int32_t){ pid }, 4);
	len = 8;
	for (i = 0; pmdat_events[e].f[i].name; i++) {
		const struct pmdat_field *f = &pmdat_events[e].f[i];
		int off = pmdat_offset(&pmdat_events[e], i);
		size_t vl;
		const char *v = pmdat_value(rest, f->name, &vl);
		int64_t n = 0;

		if (!f->size) {			/* print: "tracing_mark_write: TEXT" */
			const char *t = strstr(rest, ": ");

			t = t ? t + 2 : rest;
			vl = strcspn(t, "\n");
			if (vl > sizeof(buf) - (size_t)off - 2)
				vl = sizeof(buf) - (size_t)off - 2;
			memcpy(buf + off, t, vl);
			buf[off + vl] = '\n';
			len = (size_t)off + vl + 2;
			break;
		}
		len = (size_t)off + (size_t)f->size;
		if (!v)
			continue;
		if (f->size == 16) {
			memcpy(buf + off, v, vl < 15 ? vl : 15);
			continue;
		}
		if (!strcmp(f->name, "prev_state")) {	/* R, R+, S, D, ... */
			static const char letters[] = "SDTtXZPI";
			const char *l = vl ? strchr(letters, v[0]) : NULL;

			n = v[0] == 'R' ? (vl > 1 && v[1] == '+' ? 0x100 : 0) :
			    l ? 1 << (l - letters) : 0;
		} else if (f->syms) {
			const char *s = f->syms;
			int k = 0;

			for (;;) {
				size_t sl = strcspn(s, "|");

				if (sl == vl && !strncmp(s, v, vl)) {
					n = k;
					break;
				}
				if (!s[sl])
					break;
				s += sl + 1;
				k++;
			}
		} else {
			n = (int64_t)strtoull(v, NULL, 0);
			if (v[0] == '-')
				n = strtoll(v, NULL, 10);
		}
		memcpy(buf + off, &n, (size_t)f->size);	/* little endian */
	}
	pmdat_emit(w, cpu, sec * 1000000000ULL + frac, buf, len);
	return true;
}

static inline void pmdat_put(FILE *f, const void *p, size_t n)
{
	if (fwrite(p, 1, n, f) != n)
		abort();
}

static inline void pmdat_put8(FILE *f, uint64_t v) { pmdat_put(f, &v, 8); }
static inline void pmdat_put4(FILE *f, uint32_t v) { pmdat_put(f, &v, 4); }

/* The format file of event @e, as tracefs shows it. */
static inline size_t pmdat_format(const struct pmdat_event *ev, char *out, size_t size)
{
	size_t n;
	int i;

	n = (size_t)snprintf(out, size, "name: %s\nID: %d\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n", ev->name, ev->id);
	for (i = 0; ev->f[i].name; i++)
		n += (size_t)snprintf(out + n, size - n, "\tfield:%s;\toffset:%d;\tsize:%d;\tsigned:%d;\n",
				      ev->f[i].decl, pmdat_offset(ev, i), ev->f[i].size, ev->f[i].sign);
	if (!strcmp(ev->name, "sched_switch"))	/* the kernel's own */
		return n + (size_t)snprintf(out + n, size - n, "\nprint fmt: \"prev_comm=%%s prev_pid=%%d "
			"prev_prio=%%d prev_state=%%s%%s ==> next_comm=%%s next_pid=%%d next_prio=%%d\", "
			"REC->prev_comm, REC->prev_pid, REC->prev_prio, (REC->prev_state & ((((0x00000000 | "
			"0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | "
			"0x00000040) + 1) << 1) - 1)) ? __print_flags(REC->prev_state & ((((0x00000000 | "
			"0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | "
			"0x00000040) + 1) << 1) - 1), \"|\", { 0x00000001, \"S\" }, { 0x00000002, \"D\" }, "
			"{ 0x00000004, \"T\" }, { 0x00000008, \"t\" }, { 0x00000010, \"X\" }, { 0x00000020, "
			"\"Z\" }, { 0x00000040, \"P\" }, { 0x00000080, \"I\" }) : \"R\", REC->prev_state & "
			"((((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | "
			"0x00000020 | 0x00000040) + 1) << 1) ? \"+\" : \"\", REC->next_comm, REC->next_pid, "
			"REC->next_prio\n");
	if (!strcmp(ev->name, "print"))
		return n + (size_t)snprintf(out + n, size - n,
					    "\nprint fmt: \"%%ps: %%s\", (void *)REC->ip, REC->buf\n");
	n += (size_t)snprintf(out + n, size - n, "\nprint fmt: \"");
	for (i = 0; ev->f[i].name; i++)
		n += (size_t)snprintf(out + n, size - n, "%s%s=%s", i ? " " : "", ev->f[i].name,
				      ev->f[i].size == 16 || !ev->f[i].size || ev->f[i].syms ? "%s" :
				      !strcmp(ev->f[i].name, "lock") || ev->f[i].size == 8 ? "%p" : "%d");
	n += (size_t)snprintf(out + n, size - n, "\"");
	for (i = 0; ev->f[i].name; i++) {
		const char *s = ev->f[i].syms;
		int k = 0;

		if (!s) {
			n += (size_t)snprintf(out + n, size - n, ", %sREC->%s",
					      ev->f[i].size == 8 ? "(void *)" : "", ev->f[i].name);
			continue;
		}
		n += (size_t)snprintf(out + n, size - n, ", __print_symbolic(REC->%s", ev->f[i].name);
		for (;;) {
			size_t sl = strcspn(s, "|");

			n += (size_t)snprintf(out + n, size - n, ", { %d, \"%.*s\" }", k++, (int)sl, s);
			if (!s[sl])
				break;
			s += sl + 1;
		}
		n += (size_t)snprintf(out + n, size - n, ")");
	}
	return n + (size_t)snprintf(out + n, size - n, "\n");
}

static inline int pmdat_write(const struct pmdat *w, const char *path)
{
	static const char header_page[] =
		"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
		"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
		"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
		"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n";
	static const char header_event[] =
		"# compressed entry header\n\ttype_len    :    5 bits\n\ttime_delta  :   27 bits\n"
		"\tarray       :   32 bits\n\n\tpadding     : type == 29\n\ttime_extend : type == 30\n"
		"\ttime_stamp : type == 31\n\tdata max type_len  == 28\n";
	static const char *const systems[] = { "sched", "sched_proxy" };
	char fmt[4096];
	FILE *f = fopen(path, "w");
	uint64_t off;
	size_t e, n;
	unsigned int s, count;
	int c;

	if (!f)
		return -1;
	pmdat_put(f, "\x17\x08\x44tracing6", 11);
	pmdat_put(f, "\0\0\x08", 3);		/* "6\0", little endian, long 8 */
	pmdat_put4(f, PMDAT_PAGE);
	pmdat_put(f, "header_page", 12);
	pmdat_put8(f, sizeof(header_page) - 1);
	pmdat_put(f, header_page, sizeof(header_page) - 1);
	pmdat_put(f, "header_event", 13);
	pmdat_put8(f, sizeof(header_event) - 1);
	pmdat_put(f, header_event, sizeof(header_event) - 1);
	pmdat_put4(f, 1);			/* ftrace: print */
	n = pmdat_format(&pmdat_events[0], fmt, sizeof(fmt));
	pmdat_put8(f, n);
	pmdat_put(f, fmt, n);
	pmdat_put4(f, 2);
	for (s = 0; s < 2; s++) {
		pmdat_put(f, systems[s], strlen(systems[s]) + 1);
		for (count = 0, e = 1; e < PMDAT_NR_EVENTS; e++)
			count += !strcmp(pmdat_events[e].sys, systems[s]) && !(w->leave_out & (1u << e));
		pmdat_put4(f, count);
		for (e = 1; e < PMDAT_NR_EVENTS; e++) {
			if (strcmp(pmdat_events[e].sys, systems[s]) || (w->leave_out & (1u << e)))
				continue;
			n = pmdat_format(&pmdat_events[e], fmt, sizeof(fmt));
			pmdat_put8(f, n);
			pmdat_put(f, fmt, n);
		}
	}
	pmdat_put4(f, w->kallsyms ? (uint32_t)strlen(w->kallsyms) : 0);	/* kallsyms */
	if (w->kallsyms)
		pmdat_put(f, w->kallsyms, strlen(w->kallsyms));
	pmdat_put4(f, 0);			/* printk formats */
	pmdat_put8(f, w->cmdlines_len);
	pmdat_put(f, w->cmdlines ? w->cmdlines : "", w->cmdlines_len);
	pmdat_put4(f, (uint32_t)w->ncpus);
	pmdat_put(f, "flyrecord", 10);
	off = ((uint64_t)ftell(f) + 16 * (uint64_t)w->ncpus + PMDAT_PAGE - 1) / PMDAT_PAGE * PMDAT_PAGE;
	for (c = 0; c < w->ncpus; c++) {
		pmdat_put8(f, off);
		pmdat_put8(f, w->cpu[c].npages * PMDAT_PAGE);
		off += w->cpu[c].npages * PMDAT_PAGE;
	}
	while (ftell(f) % PMDAT_PAGE)
		pmdat_put(f, "", 1);
	for (c = 0; c < w->ncpus; c++)
		if (w->cpu[c].npages)
			pmdat_put(f, w->cpu[c].data, w->cpu[c].npages * PMDAT_PAGE);
	return fclose(f);
}

#endif /* PMDAT_H */

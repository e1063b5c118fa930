// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel symbols from /proc/kallsyms and the kernel stacks of the BPF
 * tools (pxlockwait, pxwakelat), symbolized with them; see pxutil.h.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pxutil.h"

struct ksym {
	uint64_t addr;
	char *name;
	bool module;
};

static struct ksym *syms;
static size_t nsyms;
static uint64_t image_start, image_end;	/* _text, _end */

/*
 * How much a name is preferred among symbols at one address (kallsyms has
 * no sizes, and empty objects share the address of the next one: lab and
 * a lock_class_key "__key.2"): compiler-made local names ("x.2") least,
 * then "__" names.
 */
static int ksym_rank(const char *name)
{
	return (strchr(name, '.') ? 0 : 2) + (strncmp(name, "__", 2) ? 1 : 0);
}

/* By address, the preferred name last (px_ksym_name() takes the last). */
static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return ksym_rank(x->name) - ksym_rank(y->name);
}

void px_ksyms_free(void)
{
	size_t i;

	for (i = 0; i < nsyms; i++)
		free(syms[i].name);
	free(syms);
	syms = NULL;
	nsyms = 0;
	image_start = image_end = 0;
}

/* All of @path (data too: CONFIG_KALLSYMS_ALL), sorted. */
int px_ksyms_load(const char *path)
{
	FILE *f = fopen(path ? path : "/proc/kallsyms", "r");
	char line[512], name[256], mod[128];
	unsigned long long addr;
	size_t cap = 0;
	char type;
	int n;

	px_ksyms_free();
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		mod[0] = '\0';
		n = sscanf(line, "%llx %c %255s %127s", &addr, &type, name, mod);
		if (n < 3 || !addr)
			continue;
		if (!strcmp(name, "_text"))
			image_start = addr;
		else if (!strcmp(name, "_end"))
			image_end = addr;
		if (nsyms == cap) {
			struct ksym *s;

			cap = cap ? cap * 2 : 65536;
			s = realloc(syms, cap * sizeof(*s));
			if (!s) {
				fclose(f);
				return -ENOMEM;
			}
			syms = s;
		}
		syms[nsyms].addr = addr;
		syms[nsyms].module = n == 4;
		syms[nsyms].name = strdup(name);
		if (!syms[nsyms].name) {
			fclose(f);
			return -ENOMEM;
		}
		nsyms++;
	}
	fclose(f);
	qsort(syms, nsyms, sizeof(*syms), ksym_cmp);
	return 0;
}

/*
 * "sym+0xoff" for @addr into @buf, or "" when no symbol covers it: inside
 * the kernel image (_text.._end), or a module symbol followed by another
 * within 1 MB.  Heap objects (a mutex in a kmalloc'ed struct) have none.
 */
const char *px_ksym_name(uint64_t addr, char *buf, size_t len)
{
	size_t lo = 0, hi = nsyms;
	const struct ksym *s;

	buf[0] = '\0';
	while (lo < hi) {	/* first symbol above addr */
		size_t mid = (lo + hi) / 2;

		if (syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return buf;
	s = &syms[lo - 1];
	if (s->module ? lo == nsyms || syms[lo].addr - s->addr > (1 << 20)
		      : addr < image_start || addr >= image_end)
		return buf;
	if (addr == s->addr)
		snprintf(buf, len, "%s", s->name);
	else
		snprintf(buf, len, "%s+0x%llx", s->name, (unsigned long long)(addr - s->addr));
	return buf;
}

/*
 * The first frame to show: below the tracing machinery that called
 * bpf_get_stack() (the BPF program, bpf_trace_run2(), the tracepoint's
 * trace_contention_begin()), if it is at the top.
 */
int px_stack_first(const unsigned long long *ips, int n)
{
	char name[128];
	int i, run = -1;

	for (i = 0; i < n && i < 4 && run < 0; i++)
		if (!strncmp(px_ksym_name(ips[i], name, sizeof(name)), "bpf_trace_run", 13))
			run = i;
	if (run < 0)
		return 0;
	for (i = run + 1; i < n; i++) {
		px_ksym_name(ips[i], name, sizeof(name));
		if (strncmp(name, "trace_", 6) && strncmp(name, "__bpf_trace_", 12) &&
		    strncmp(name, "__traceiter_", 12))
			break;
	}
	return i < n ? i : 0;
}

static int stack_len(int32_t sz)
{
	return sz > 0 ? sz / (int)sizeof(uint64_t) : 0;
}

void px_json_stack(struct px_json *j, const char *key, const unsigned long long *ips,
		   int32_t sz)
{
	int i, n = stack_len(sz);
	char name[160];

	if (sz <= 0) {	/* not taken, failed, or a wait that only spun */
		px_json_null(j, key);
		return;
	}
	px_json_array_begin(j, key);
	for (i = px_stack_first(ips, n); i < n; i++) {
		if (!*px_ksym_name(ips[i], name, sizeof(name)))
			snprintf(name, sizeof(name), "0x%llx", (unsigned long long)ips[i]);
		px_json_string(j, NULL, name);
	}
	px_json_array_end(j);
}

void px_print_stack(FILE *f, const char *title, const unsigned long long *ips,
		    int32_t sz)
{
	int i, n = stack_len(sz);
	char name[160];

	if (sz < 0) {
		fprintf(f, "    %s: unavailable (%s)\n", title, strerror(-sz));
		return;
	}
	if (!n)
		return;
	fprintf(f, "    %s:\n", title);
	for (i = px_stack_first(ips, n); i < n; i++)
		fprintf(f, "        %s\n",
			*px_ksym_name(ips[i], name, sizeof(name)) ? name : "[unknown]");
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF tools' user-space helpers that need no kernel: abort reason
 * names read from a kernel's BTF (enum proxy_abort_reason), for the two
 * numberings of the series (before and after owner_sleeping,
 * owner_delayed and owner_ext were dropped), through $PXBPF_VMLINUX_BTF
 * pointing at a BTF file built here with libbpf; and the line a tool
 * prints when a plain hash map dropped data (pxchain's hists).
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include <bpf/btf.h>

#include "pxbpf_user.h"
#include "pxutil.h"
#include "unit.h"

/* A raw BTF file with enum @type = @names[0..n) valued 0..n-1. */
static int write_btf(const char *path, const char *type, const char *const *names, int n)
{
	struct btf *btf = btf__new_empty();
	const void *raw;
	__u32 size;
	FILE *f;
	int i, id;

	if (!btf)
		return -1;
	btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	id = btf__add_enum(btf, type, 4);
	for (i = 0; id > 0 && i < n; i++)
		btf__add_enum_value(btf, names[i], i);
	raw = btf__raw_data(btf, &size);
	f = fopen(path, "w");
	if (!f || !raw || fwrite(raw, 1, size, f) != size) {
		btf__free(btf);
		return -1;
	}
	fclose(f);
	btf__free(btf);
	return 0;
}

static const char *const before[] = {
	"PROXY_ABORT_OWNER_CPU", "PROXY_ABORT_OWNER_SLEEPING", "PROXY_ABORT_OWNER_MIGRATING",
	"PROXY_ABORT_OWNER_DELAYED", "PROXY_ABORT_OWNER_EXT", "PROXY_ABORT_CHAIN_CHANGED",
	"PROXY_ABORT_DEACTIVATED", "PROXY_ABORT_OWNER_WAKING",
};
static const char *const after[] = {
	"PROXY_ABORT_OWNER_CPU", "PROXY_ABORT_OWNER_MIGRATING", "PROXY_ABORT_CHAIN_CHANGED",
	"PROXY_ABORT_DEACTIVATED", "PROXY_ABORT_OWNER_WAKING",
};

/* pxbpf_print_lost(): one line when something was lost, else nothing. */
static void test_lost(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	pxbpf_print_lost(f, 0, 7, "picks", 4, "donors per interval", "--max-tasks");
	fflush(f);
	CHECK("lost-none-silent", len == 0, "printed '%s'", buf);
	pxbpf_print_lost(f, 3, 7, "picks", 4, "donors per interval", "--max-tasks");
	fclose(f);
	CHECK_STR("lost-line", buf, "(3 picks lost, 7 since start: the map holds 4 donors "
		  "per interval; raise --max-tasks)\n");
	free(buf);
}

int main(void)
{
	char names[PX_ABORT_SLOTS][PXBPF_ENUM_NAME_LEN];
	char path[] = "/tmp/test_pxbpf.XXXXXX";
	int fd = mkstemp(path), n;

	if (fd < 0)
		return 1;
	close(fd);
	setenv("PXBPF_VMLINUX_BTF", path, 1);

	CHECK("btf-write", !write_btf(path, "proxy_abort_reason", before, 8), "libbpf");
	n = pxbpf_enum_names("proxy_abort_reason", "PROXY_ABORT_", names, PX_ABORT_SLOTS - 1);
	CHECK("enum-before-count", n == 8, "%d names", n);
	CHECK_STR("enum-before-0", names[0], "owner_cpu");
	CHECK_STR("enum-before-5", names[5], "chain_changed");
	CHECK_STR("enum-before-6", names[6], "deactivated");
	CHECK_STR("enum-before-7", names[7], "owner_waking");
	CHECK_STR("enum-before-none", names[8], "");

	CHECK("btf-write-after", !write_btf(path, "proxy_abort_reason", after, 5), "libbpf");
	n = pxbpf_enum_names("proxy_abort_reason", "PROXY_ABORT_", names, PX_ABORT_SLOTS - 1);
	CHECK("enum-after-count", n == 5, "%d names", n);
	CHECK_STR("enum-after-1", names[1], "owner_migrating");
	CHECK_STR("enum-after-2", names[2], "chain_changed");
	CHECK_STR("enum-after-3", names[3], "deactivated");
	CHECK_STR("enum-after-none", names[5], "");

	/* Only values below max; a kernel without the enum: -ENOENT, no names. */
	n = pxbpf_enum_names("proxy_abort_reason", "PROXY_ABORT_", names, 2);
	CHECK("enum-max", n == 2 && !strcmp(names[1], "owner_migrating"), "%d names", n);
	CHECK("btf-write-other", !write_btf(path, "other_enum", after, 5), "libbpf");
	n = pxbpf_enum_names("proxy_abort_reason", "PROXY_ABORT_", names, PX_ABORT_SLOTS - 1);
	CHECK("enum-missing", n == -ENOENT && !names[0][0], "%d", n);
	setenv("PXBPF_VMLINUX_BTF", "/nonexistent", 1);
	n = pxbpf_enum_names("proxy_abort_reason", "PROXY_ABORT_", names, PX_ABORT_SLOTS - 1);
	CHECK("enum-no-btf", n < 0, "%d", n);
	unlink(path);
	test_lost();
	return unit_exit();
}

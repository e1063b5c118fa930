#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Host check: `make -C tools unit` builds every unit test without the
# kernel tree.  The unit tests need tools/ (the Makefile, libpxutil in
# tools/lib, the BPF tools' user-space helpers in tools/observe), bpf/
# (pxbpf.h, pxtypes.h) and tests/unit/ only: those are copied into a
# scratch folder with no build/ (no build/linux, no lab uapi header, no
# vmlinux), where the build must succeed and leave build/tests/unit/NAME
# for every tests/unit/NAME.c.
# The unit tests themselves are run by tests/run.sh in the real tree.
# About 10 s (two jobs, Debian's libbpf and libtracecmd).
#
#   ok tools-unit/no-tree
#   not ok tools-unit/no-tree - make exited with status N: <first error>
#   not ok tools-unit/no-tree - not built: <names>
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
T=${TMPDIR-/tmp}/pxunittree.$$
trap 'rm -rf "$T"' 0
mkdir -p "$T/tests"
cp -R "$top/tools" "$top/bpf" "$T/"
cp -R "$top/tests/unit" "$T/tests/"
rm -rf "$T/build"

rc=0
make -C "$T/tools" -j "$(nproc 2>/dev/null || echo 2)" unit > "$T/make.log" 2>&1 < /dev/null || rc=$?
if [ "$rc" -ne 0 ]; then
	sed 's/^/# /' "$T/make.log" | tail -20
	err=$(grep -m1 -E 'error:|\*\*\*' "$T/make.log" || tail -1 "$T/make.log")
	echo "not ok tools-unit/no-tree - make exited with status $rc: $err"
	exit 1
fi
missing=
for src in "$T"/tests/unit/*.c; do
	n=$(basename "$src" .c)
	[ -x "$T/build/tests/unit/$n" ] || missing="$missing $n"
done
if [ -n "$missing" ]; then
	echo "not ok tools-unit/no-tree - not built:$missing"
	exit 1
fi
echo "ok tools-unit/no-tree"

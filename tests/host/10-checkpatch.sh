#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Host check: the kernel's scripts/checkpatch.pl --strict on every patch of
# kernel/series (kernel/patches/<name>), with the checkpatch.pl of the
# kernel tree build/linux (make tree).
#
#   ok checkpatch/<patch>                 0 errors and 0 warnings
#   not ok checkpatch/<patch> - N errors, N warnings: <the first error, else
#                                         the first warning>
#   # checkpatch/<patch>: ...             --strict CHECKs: counted, no
#                                         failure; each finding's count
#   skip checkpatch/series - no kernel tree (make tree)
#
# A patch that adds or changes a trace event header is checked without
# COMPLEX_MACRO, MACRO_ARG_UNUSED and TRAILING_SEMICOLON: the EM()/EMe()
# enum-list idiom of include/trace/events/ trips all three.
#
# <patch> is the file name without .patch.  Every patch's report is kept
# in build/tests/checkpatch/<patch>.txt, one line per finding in
# <patch>.findings.  Needs perl only: run from
# build/tests/checkpatch (never from inside build/linux), where there is no
# .git, so checkpatch runs no git command (no commit-id look-ups, no
# SPDX check) and writes its camelcase cache there.  Up to nproc patches
# at a time: seconds.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
checkpatch=$top/build/linux/scripts/checkpatch.pl
series=$top/kernel/series
work=$top/build/tests/checkpatch

if [ ! -f "$checkpatch" ]; then
	echo "skip checkpatch/series - no kernel tree (make tree)"
	exit 0
fi
if ! command -v perl > /dev/null; then
	echo "skip checkpatch/series - no perl"
	exit 0
fi
names=$(sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$series" 2>/dev/null)
if [ -z "$names" ]; then
	echo "not ok checkpatch/series - no patch in kernel/series"
	exit 1
fi

mkdir -p "$work/patches"
rm -f "$work"/*.txt "$work"/*.rc "$work"/*.findings "$work"/patches/*
unset GIT_DIR
cd "$work" || exit 1

# Check copies: kernel/export-patches.sh rewrites kernel/patches/ as a
# whole, and a patch caught missing half-way would look like a failure.
for p in $names; do
	cp "$top/kernel/patches/$p" patches/ 2>/dev/null || true
done

# Run checkpatch on the patches, nproc at a time; <patch>.txt gets its
# report (stderr too), <patch>.rc its exit status.
jobs=$(nproc 2>/dev/null || echo 2)
# shellcheck disable=SC2016
echo "$names" | xargs -P "$jobs" -I{} sh -c '
	f=patches/$1 out=$(basename "$1" .patch)
	[ -f "$f" ] || exit 0
	rc=0
	# Trace event headers list enum values with the EM()/EMe() idiom
	# (as include/trace/events/writeback.h), which checkpatch reports
	# as complex macros with an unused argument and a trailing ";".
	ign=
	! grep -q "^+++ b/include/trace/events/" "$f" ||
		ign=COMPLEX_MACRO,MACRO_ARG_UNUSED,TRAILING_SEMICOLON
	# test_proxy_exec'"'"'s yield case calls yield() on purpose: it tests
	# what sched_yield() does on a donor'"'"'s behalf (checkpatch warns
	# against yield() as a way to wait for something).
	! grep -q "^+++ b/lib/test_proxy_exec.c" "$f" || ign=${ign:+$ign,}YIELD
	ign=${ign:+--ignore=$ign}
	perl "$2" --strict --color=never $ign "$f" > "$out.txt" 2>&1 || rc=$?
	echo "$rc" > "$out.rc"
' sh {} "$checkpatch"

# findings PATCH REPORT: one line per finding, "FILE:LINE: TYPE: message",
# or "commit message (patch line N): ..." / "patch line N: ..." for those
# outside the code (a too long description line, MAINTAINERS).
findings() {
	d=$(grep -n -m1 '^diff --git ' "$1" | cut -d: -f1)
	awk -v d="${d:-0}" '
	function flush() { if (m != "") print (loc != "" ? loc ": " : "") m; m = "" }
	/^(ERROR|WARNING|CHECK): / { flush(); m = $0; loc = ""; next }
	m != "" && /^#[0-9]+: / {
		if (match($0, /FILE: [^ ]+:[0-9]+:/))
			loc = substr($0, RSTART + 6, RLENGTH - 7)
		else {
			n = substr($0, 2, index($0, ":") - 2) + 0
			loc = (n < d ? "commit message (patch line " n ")" : "patch line " n)
		}
		flush()
	}
	END { flush() }' "$2"
}

failed=0
for p in $names; do
	n=$(basename "$p" .patch)
	t=$work/$n.txt
	if [ ! -f "patches/$p" ]; then
		echo "not ok checkpatch/$n - kernel/patches/$p missing"
		failed=$((failed + 1))
		continue
	fi
	rc=$(cat "$n.rc" 2>/dev/null || echo none)
	# "total: 87 errors, 7 warnings, 23 checks, 503 lines checked"
	tot=$(sed -n 's/^total: \([0-9]*\) errors*, \([0-9]*\) warnings*, \([0-9]*\) checks*,.*/\1 \2 \3/p' "$t" | tail -1)
	if [ -z "$tot" ]; then
		echo "not ok checkpatch/$n - checkpatch.pl exited with status $rc, no total line: $(grep . "$t" | tail -1)"
		failed=$((failed + 1))
		continue
	fi
	# shellcheck disable=SC2086
	set -- $tot
	e=$1 w=$2 c=$3
	findings "patches/$p" "$t" > "$n.findings"
	if [ "$c" -gt 0 ]; then
		echo "# checkpatch/$n: $c checks (--strict, not a failure), first: $(grep -m1 ': CHECK: ' "$n.findings")"
	fi
	if [ "$e" -eq 0 ] && [ "$w" -eq 0 ]; then
		echo "ok checkpatch/$n"
		continue
	fi
	first=$(grep -m1 ': ERROR: ' "$n.findings" || grep -m1 ': WARNING: ' "$n.findings")
	echo "not ok checkpatch/$n - $e errors, $w warnings: $first"
	echo "# checkpatch/$n: $(sed -n 's/^.*: \(\(ERROR\|WARNING\): .*\)/\1/p' "$n.findings" | sort | uniq -c | sort -rn |
		sed 's/^ *\([0-9]*\) /\1x /' | paste -sd';' | sed 's/;/; /g')"
	echo "# checkpatch/$n: the report: build/tests/checkpatch/$n.txt"
	failed=$((failed + 1))
done
[ "$failed" -eq 0 ]

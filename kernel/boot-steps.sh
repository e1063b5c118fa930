#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Boot the series at the steps that change behaviour and run the proxy
# execution core tests there: build-series.sh proves every step builds,
# this proves the steps that change what the scheduler does are safe to
# boot.  Each step is the tree with patches 1..N applied (build/linux-series,
# shared with build-series.sh), plus the lab device's patches when N comes
# before them (the tests need /dev/proxylab; it is a misc driver that
# touches no scheduler or locking code), built with the lean configuration
# into build/obj-step (incremental from the previous step) and booted on 4
# vCPUs with proxy execution on; 30-proxy-core and 40-lab run there.
#
# Usage: kernel/boot-steps.sh [N...]   (default: the steps listed below)
# Log and results: build/series-boot/<N>/ (build.log, run.log, the guest's
# console.log, its bad lines in badness, each script's log) and
# build/series-boot/summary.txt: one line per step, "N PATCH: guest exit
# S, P passed, F failed, B bad console lines" and the failed checks.
# Exit status: the number of steps that failed to build, boot or pass.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cli_prog=boot-steps
# shellcheck source=lib/sh/cli.sh
. "$top/lib/sh/cli.sh"
# shellcheck source=lib/sh/console.sh
. "$top/lib/sh/console.sh"
# Steps after which proxy execution behaves differently: the first
# proxying (13: blocked tasks stay queued and are proxied; 16: whole
# chains), the handoff to the donor (18), spinning kept (19), donor
# migration (20), the ttwu return (21, the default stays schedule),
# sleeping owners (22), and the fixes that change the state machine (24,
# 27), push/pull of waiters (26) and deadlocked chains (29).
steps='13 16 18 19 20 22 24 26 27 29'
case ${1-} in -h|--help) usage ;; esac
for n; do
	case $n in *[!0-9]*|'') usage "want step numbers, not '$n'" ;; esac
done
[ $# -eq 0 ] || steps=$*
base=$top/build/linux
wt=$top/build/linux-series
out=$top/build/series-boot
[ -d "$base/.git" ] || die "no tree at $base (make tree)"
[ -x "$top/build/tools/bin/inversion" ] || die "no tools in build/tools/bin (make tools)"
mkdir -p "$out"
console_patterns "$out"
[ -e "$wt/.git" ] || git -C "$base" worktree add -q --detach "$wt" pristine
grep -v -e '^#' -e '^[[:space:]]*$' "$top/kernel/series" > "$out/series"
lab=$(grep -n 'misc-proxylab' "$out/series" | cut -d: -f1 | tr '\n' ' ')
[ -n "$lab" ] || die "no misc-proxylab patch in kernel/series"
: > "$out/summary.txt"
failed=0
for n in $steps; do
	p=$(sed -n "${n}p" "$out/series")
	[ -n "$p" ] || die "the series has no step $n"
	d=$out/$n
	rm -rf "$d"
	mkdir -p "$d"
	git -C "$wt" checkout -q --detach pristine
	i=0
	while read -r q; do
		i=$((i + 1))
		[ "$i" -le "$n" ] || break
		git -C "$wt" am -q "$top/kernel/patches/$q" ||
			{ git -C "$wt" am --abort; die "$q does not apply"; }
	done < "$out/series"
	for l in $lab; do
		[ "$l" -gt "$n" ] || continue
		git -C "$wt" am -q "$top/kernel/patches/$(sed -n "${l}p" "$out/series")" ||
			{ git -C "$wt" am --abort; die "the lab patch $l does not apply at step $n"; }
	done
	git -C "$wt" log --oneline pristine..HEAD > "$d/commits"
	printf 'boot-steps: %2d %s: ' "$n" "$p"
	if ! "$top/kernel/build.sh" step > "$d/build.log" 2>&1 ||
	   ! "$top/guest/mkinitramfs.sh" step >> "$d/build.log" 2>&1; then
		echo "build FAILED ($d/build.log)"
		echo "$n $p: build FAILED" >> "$out/summary.txt"
		failed=$((failed + 1))
		continue
	fi
	rc=0
	"$top/guest/run.sh" --kernel step --cpus 4 --append oops=panic --timeout 1200 \
		--stall 600 --share "$top/tests" --out "$d" -- \
		env PX_KERNEL=lean sh lib/guest-driver.sh 420:guest/30-proxy-core.sh 420:guest/40-lab.sh \
		> "$d/run.log" 2>&1 < /dev/null || rc=$?
	cat "$d/30-proxy-core.log" "$d/40-lab.log" > "$d/results" 2>/dev/null || :
	pass=$(grep -c '^ok ' "$d/results" || :)
	fail=$(grep -c '^not ok ' "$d/results" || :)
	console_badness "$d/console.log" "$out" > "$d/badness" 2>/dev/null || :
	bad=$(wc -l < "$d/badness")
	echo "guest exit $rc, $pass passed, $fail failed, $bad bad console lines"
	{
		echo "$n $p: guest exit $rc, $pass passed, $fail failed, $bad bad console lines"
		sed -n 's/^not ok /    not ok /p' "$d/results"
		head -3 "$d/badness" | sed 's/^/    console: /'
	} >> "$out/summary.txt"
	[ "$rc" = 0 ] && [ "$fail" = 0 ] && [ "$bad" = 0 ] || failed=$((failed + 1))
done
exit "$failed"

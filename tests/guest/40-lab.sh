#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The proxylab device and the inversion workloads: every lab error path
# (labcheck; on the debug boot, its blocking checks on all), each
# scenario's result file (count == iterations, consistent), renamedemo,
# and the inversion itself: with proxy execution off (or not built) the
# rt and cfs waiters wait many times the owner's critical section; with
# it on, that shrinks and football keeps the ball still.
#
# Usage: sh 40-lab.sh   (in the guest; tools in /usr/bin)
# pxtest-boot: lean
# pxtest-boot: lean proxy_exec=enable,return=ttwu
# pxtest-boot: lean proxy_exec=disable +parallel
# pxtest-boot: debug
# pxtest-cpus: 4
# pxtest-timeout: 420
set -u
. ./lib/pxtest.sh
T=${TMPDIR-/tmp}/lab.$$
mkdir -p "$T"
trap 'rm -rf "$T"' 0

if ! command -v inversion >/dev/null; then
	notok lab/tools "inversion not in PATH: build/tools/bin missing from the image"
	finish
fi
if [ ! -c /dev/proxylab ]; then
	notok lab/device "no /dev/proxylab: kernel without CONFIG_PROXYLAB"
	finish
fi

# Proxy execution is on when the kernel has it and the boot did not turn it off.
proxy=off
if grep -qw __sched_proxy_exec /proc/kallsyms 2>/dev/null &&
   ! grep -qw 'proxy_exec=disable' /proc/cmdline; then
	proxy=on
fi
rt_runtime=$(cat /proc/sys/kernel/sched_rt_runtime_us)
echo "# proxy execution: $proxy ($(uname -r); $(cat /proc/cmdline))"

# labcheck prints its own ok/not ok lines.  Its error paths (no task ever
# waits on a mutex there) do not depend on the proxy mode: on the debug
# boot only, where DEBUG_MUTEXES and lockdep watch them; its blocking
# checks (waiters killed, interrupted, woken, timed) on every boot.
lc_only='--only blocking'
[ ! -e /proc/lockdep ] || lc_only=''
# shellcheck disable=SC2086 # $lc_only: no option or two words
labcheck $lc_only > "$T/labcheck.out" 2>&1
rc=$?
cat "$T/labcheck.out"
grep -q '^ok lab/open' "$T/labcheck.out" || notok lab/labcheck "labcheck exited $rc without running"
[ $rc = 0 ] || px_failed=$((px_failed + 1))

check lab/usage-bad-scenario "bad scenario does not exit 64 (EX_USAGE, tools/README.md conventions)" \
	sh -c 'inversion nosuch >/dev/null 2>&1; [ $? = 64 ]'
check lab/usage-bad-number "bad -n does not exit 64 (EX_USAGE, tools/README.md conventions)" \
	sh -c 'inversion rt -n 12x >/dev/null 2>&1; [ $? = 64 ]'
check lab/usage-burn-over-cap "burn over the 10 s cap does not exit 64 (EX_USAGE, tools/README.md conventions)" \
	sh -c 'inversion rt -b 10000001 >/dev/null 2>&1; [ $? = 64 ]'
check lab/usage-xcpu-one-cpu "xcpu with one CPU does not exit 64 (EX_USAGE, tools/README.md conventions)" \
	sh -c 'inversion xcpu -c 0 >/dev/null 2>&1; [ $? = 64 ]'
check lab/usage-renamedemo "renamedemo with a stray argument does not exit 64 (EX_USAGE, tools/README.md conventions)" \
	sh -c 'renamedemo stray >/dev/null 2>&1; [ $? = 64 ]'

# Policies that cannot be set say which and why: a DEADLINE waiter must be
# allowed on its whole root domain, so taskset to one CPU makes it refused
# (admission checks are on only while sched_rt_runtime_us is not -1).
taskset 1 inversion dl -n 1 -q --keep-throttle > "$T/dlbusy.out" 2>&1
rc=$?
[ $rc = 1 ] && grep -q 'SCHED_DEADLINE refused: .*root domain' "$T/dlbusy.out" &&
	ok lab/dl-refused-says-why ||
	notok lab/dl-refused-says-why "exit $rc: $(tr '\n' ' ' < "$T/dlbusy.out" | tail -c 200)"
inversion cfs -n 1 -q --cgroup ../escape > "$T/cgbad.out" 2>&1
rc=$?
[ $rc = 1 ] && grep -q 'cfs: cannot create cgroup' "$T/cgbad.out" && ok lab/cgroup-error-says-why ||
	notok lab/cgroup-error-says-why "exit $rc: $(tr '\n' ' ' < "$T/cgbad.out" | tail -c 200)"

# scenario NAME ITERATIONS ARGS...: run, then check the result file.  One
# check: exit 0 already means the run's counts were consistent and its
# result files written (inversion_report.c), so "completes" also covers
# what only a tool bug could break -- the consistency line, the result
# file's schema and counts, the histogram's total -- and names the first
# that fails.  The result file's figures the later checks use are kept
# as NAME_FIGURE (dashes as underscores): sleep_owner_p50, rt_burn, ...
scenario() {
	name=$1 n=$2; shift 2
	out=$T/$name.json
	inversion "$@" -n "$n" -q -t 120 -o "$out" --hist "$T/$name.hist" > "$T/$name.out" 2>&1
	rc=$?
	jvars "$out" sane="$px_latency_header" okf=.ok \
		count=.latency.count done=.checks.iterations_done capped=.checks.hog_capped \
		p50=.latency.p50 p90=.latency.p90 p99=.latency.p99 burn=.params.burn_ns depth=.params.depth
	v=$(echo "$name" | tr - _)
	for f in count capped p50 p90 p99 burn depth; do eval "${v}_$f=\$$f"; done
	why=''
	if [ $rc != 0 ]; then
		why="exit $rc: $(tr '\n' ' ' < "$T/$name.out" | tail -c 300)"
	elif ! grep -q 'consistency: .* -> OK$' "$T/$name.out"; then
		why="exit 0, but $(grep consistency "$T/$name.out")"
	elif [ "$sane" != true ]; then
		why="$out is not a well-formed result file"
	elif [ "$count" != "$n" ] || [ "$okf" != true ] || [ "$done" != "$n" ]; then
		why="result file: count $count, ok $okf, iterations_done $done, want $n"
	else
		hcount=$(grep -v '^#' "$T/$name.hist" | awk '{ s += $3 } END { print s + 0 }')
		[ "$hcount" = "$n" ] || why="histogram holds $hcount, want $n"
	fi
	check "lab/$name-completes" "$why" [ -z "$why" ]
	echo "# $name: $(grep -A2 '^lock_wait' "$T/$name.out" | tail -1)"
	[ -z "$why" ]
}

# ratio NAME FIELD: the waiter's latency FIELD (p50, p99) over the burn.
ratio() {
	eval "v=\${$1_$2:-0} burn=\${$1_burn:-0}"
	echo $(( v / (burn > 0 ? burn : 1) ))
}

scenario rt 20 rt -b 1000
# cfs waits take a second or more with proxy off: four show it.
cfs_n=8
[ $proxy = on ] || cfs_n=4
scenario cfs $cfs_n cfs -b 1000
scenario cfs-throttle 3 cfs -b 1000 --throttle
scenario dl 10 dl -b 1000
scenario chain 10 chain -D 3 -b 1000
scenario xcpu 10 xcpu -b 1000
scenario sleep-owner 10 sleep-owner -s 1000 -b 200
check lab/chain-depth "chain result records depth ${chain_depth:-none}, not 3" \
	test "${chain_depth:-}" = 3

# The inversion (proxy off): p99 several times the critical section.  Its
# shrinking (proxy on) is bounded in the kernel's terms in virtual time
# (45-vtime-bounds: vtime/rt-bounded, none capped and the longest under
# two burns; vtime/cfs-bounded).  On this clock a wait also holds the
# time the host did not run the vCPUs, so here only guards that proxy
# off fails.  rt: p50 under half the hog cap (50x the burn) and p90
# under the cap; proxy off waits the whole burst (p50 108x, p90 112x).
# rt's p50 was bounded at 5x (10x on debug) until a loaded host's debug
# boot had 10x (quiet and loaded runs before: 2-7x).  Tails with proxy on
# are only reported: the debug kernel under TCG has single 0.5 s
# outliers, and a third of cfs's waits take 20-60 ms (no proxy abort).
# cfs's wait on this clock is the donor's share of a vCPU that the
# host's load stretches (p50 1-11x the burn on a quiet host, 13-15x on
# all three boots beside two busy loops): its guard is p50 under the hog
# cap, 100 ms, where proxy off waits a second or more.
for s in rt cfs; do
	[ -f "$T/$s.json" ] || continue
	p50=$(ratio $s p50) p90=$(ratio $s p90) p99=$(ratio $s p99)
	if [ $proxy = off ]; then
		[ "$p99" -ge 5 ] && ok "lab/$s-inversion-shown" ||
			notok "lab/$s-inversion-shown" "p99 only ${p99}x the burn with proxy off"
	else
		l50=50 l90=100
		[ $s = cfs ] && l50=100 l90=1000000
		[ "$p50" -lt $l50 ] && [ "$p90" -lt $l90 ] && ok "lab/$s-inversion-bounded" ||
			notok "lab/$s-inversion-bounded" "p50 ${p50}x, p90 ${p90}x the burn with proxy on (limits ${l50}x, ${l90}x)"
		echo "# $s with proxy on: p50 ${p50}x, p90 ${p90}x, p99 ${p99}x the burn"
	fi
done

# Not a median: hog_capped counts the iterations in which the waiter
# waited out a whole hog burst (the 100 ms cap), i.e. proxy execution did
# not help at all.  None may with proxy on; with it off, most do.  dl
# is only guarded here, at most 3 in 10: its owner runs on the waiter's
# 5 ms per 20 ms only, a budget that a vCPU stalled by the host's load
# spends without running (2 of 10 capped on a busy host, 2026-12-07; the
# longest dl waits of ten quieter boots were 15-56 ms).  Its bound in
# the kernel's terms, none capped, is vtime/dl-bounded (45-vtime-bounds,
# virtual time); proxy off caps all 10 here.
for s in rt dl chain xcpu sleep-owner; do
	[ -f "$T/$s.json" ] || continue
	v=$(echo "$s" | tr - _)
	eval "capped=\${${v}_capped:-} n=\${${v}_count:-0}"
	allow=0; [ $s = dl ] && allow=$((n * 3 / 10))
	if [ $proxy = on ]; then
		[ -n "$capped" ] && [ "$capped" -le $allow ] && ok "lab/$s-none-hog-capped" ||
			notok "lab/$s-none-hog-capped" "${capped:-?} of $n waits lasted a whole hog burst with proxy on (allowed: $allow)"
	else
		[ "${capped:-0}" -ge $((n / 2)) ] && ok "lab/$s-hog-capped-shown" ||
			notok "lab/$s-hog-capped-shown" "only ${capped:-?} of $n waits lasted a hog burst with proxy off"
	fi
done

# sleep-owner: the owner sleeps 1 ms, then burns 0.2 ms.  With proxy off
# the hogs starve it once it wakes (about the 100 ms hog cap).  With it on,
# the waiter is parked on the sleeping owner and woken with it, and the
# wait is about the sleep plus the burn (TCG on a loaded host: p50 14 ms
# seen, with rt's p50 at 7 ms; the hog cap is 100 ms).
if [ -f "$T/sleep-owner.json" ]; then
	p50=${sleep_owner_p50:-}
	if [ $proxy = off ]; then
		[ "${p50:-0}" -gt 50000000 ] && ok lab/sleep-owner-inversion-shown ||
			notok lab/sleep-owner-inversion-shown "p50 ${p50:-?} ns with proxy off (want > 50 ms)"
	else
		lim=30000000; [ "${PX_KERNEL:-lean}" = debug ] && lim=50000000
		[ -n "$p50" ] && [ "$p50" -lt $lim ] && ok lab/sleep-owner-inversion-bounded ||
			notok lab/sleep-owner-inversion-bounded "p50 ${p50:-?} ns with proxy on (limit $lim; sleep 1 ms + burn 0.2 ms)"
	fi
fi

# football: exit 3 when the ball moves; it must not with proxy on.  The
# floating game (donors must follow owners across CPUs) is only reported.
# (The soak plays both games for minutes on each return strategy.)
football -d 2s -q -t 120 -o "$T/football.json" > "$T/football.out" 2>&1
rc=$?
echo "# football ($proxy): $(grep '^football:' "$T/football.out")"
case $proxy:$rc in
*:0|*:3) ok lab/football-runs ;;
*) notok lab/football-runs "exit $rc: $(tr '\n' ' ' < "$T/football.out" | tail -c 300)" ;;
esac
if [ $proxy = on ]; then
	[ $rc = 0 ] && ok lab/football-ball-still ||
		notok lab/football-ball-still "$(grep '^football:' "$T/football.out")"
else
	# The control: without proxy execution the offense must score,
	# or "ball still" above would prove nothing.
	[ $rc = 3 ] && ok lab/football-off-ball-moves ||
		notok lab/football-off-ball-moves "exit $rc, want 3: $(grep '^football:' "$T/football.out")"
fi
json_sane "$T/football.json" && ok lab/football-json || notok lab/football-json "bad result file"
# inversion football: the same game, through inversion's options.
inversion football --float -d 1s -q -t 60 > "$T/football-float.out" 2>&1
rc=$?
echo "# football --float ($proxy, exit $rc): $(grep '^football:' "$T/football-float.out")"
[ $rc = 0 ] || [ $rc = 3 ] && ok lab/football-float-runs ||
	notok lab/football-float-runs "exit $rc: $(tr '\n' ' ' < "$T/football-float.out" | tail -c 300)"
# Known failure with proxy on (tools/README.md, "football --float"):
# a defense donor migrated to its owner's CPU leaves its own CPU to
# the offense until it returns.
if [ $proxy = on ]; then
	case $rc in
	3) xfail lab/football-float-ball-still "$(grep '^football:' "$T/football-float.out")" ;;
	0) xpass lab/football-float-ball-still "the ball stayed still this time" ;;
	esac
fi

# renamedemo: real rename lock, real result file.
renamedemo -n 300 -q -o "$T/rename.json" > "$T/rename.out" 2>&1
rc=$?
echo "# rename: $(grep -A2 '^rename' "$T/rename.out" | tail -1)"
[ $rc = 0 ] && ok lab/renamedemo-runs ||
	notok lab/renamedemo-runs "exit $rc: $(tr '\n' ' ' < "$T/rename.out" | tail -c 300)"
jvars "$T/rename.json" sane="$px_latency_header" count=.latency.count
[ "$sane" = true ] && [ "$count" = 300 ] &&
	ok lab/renamedemo-json || notok lab/renamedemo-json "count ${count:-missing}, not 300 (well-formed: ${sane:-no})"

# Nothing may stay held or configured after the workloads.
held=$(lab_held)
[ "$held" = 0 ] && ok lab/nothing-held-after || notok lab/nothing-held-after "$held mutexes held"
[ ! -d /sys/fs/cgroup/pxinv-bg ] && [ ! -d /sys/fs/cgroup/pxrename-bg ] &&
	ok lab/cgroups-removed || notok lab/cgroups-removed "workload cgroup left behind"
[ "$(cat /proc/sys/kernel/sched_rt_runtime_us)" = "$rt_runtime" ] && ok lab/rt-runtime-restored ||
	notok lab/rt-runtime-restored "sched_rt_runtime_us not restored to $rt_runtime"
finish

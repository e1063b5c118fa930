#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The soak, guest side: for SECONDS, all at once, locktorture (mutex_lock,
# two writers per CPU, nested locks, RT boost), the ww_mutex selftest
# loaded and unloaded in a loop, every inversion scenario in loops (rt and
# sleep-owner, dl and xcpu, cfs with and without --throttle, chain -D 1..4,
# chains of rwsems and of rt_mutexes (alone and between mutexes), each
# round on the next CPU; football pinned and --float), renamedemo, and
# cyclictest on every CPU.  Then it checks what came out and prints one
# "ok soak/NAME" or "not ok soak/NAME - why" per check; exit status is the
# number of failures.  Run by tests/soak.sh (make soak; make soak-short:
# 60 s per boot).
#
# Usage: sh soak/guest-soak.sh [-d SECONDS] [-o DIR]   (in the guest, cwd tests/)
#   -d SECONDS  how long the workloads run (default 120)
#   -o DIR      where the records go (default $PX_OUT/soak)
#   SOAK_SKIP="LOOP..."  leave out loops (rt dl cfs chain football rename
#               mmap ww cases), e.g. to tell which workload a finding needs
# Records in DIR: soak.txt (key=value totals, what tests/soak.sh reads),
# lab.tsv (one line per lab run: loop name rc want done verdict ball),
# ww.tsv, locktorture.txt, cyclictest.txt, fail-*.out (output of every
# failed lab run, the first 20), stuck-*.txt (the scheduler's state when a
# run overran its timeout, the first 5).
set -u
# Run from a copy: this file is on the host's share, and the shell reads
# it as it goes, so an edit there during a long soak would break the run.
if [ "${SOAK_COPY:-}" != "$0" ]; then
	SOAK_COPY=${TMPDIR-/tmp}/guest-soak.$$.sh
	cp "$0" "$SOAK_COPY" && export SOAK_COPY && exec sh "$SOAK_COPY" "$@"
fi
trap 'rm -f "$SOAK_COPY"' 0
# usage [MESSAGE]: as lib/sh/cli.sh's (this copy runs without the repository
# beside it): the message, the header from "# Usage:" on; exit 2.
usage() {
	[ $# -eq 0 ] || echo "soak: $*" >&2
	sed -n '/^# Usage:/,/^[^#]/p' "$0" | sed -e '/^[^#]/d' -e 's/^# \{0,1\}//' >&2
	exit 2
}
dur=120 O=${PX_OUT:-/tmp}/soak
while test $# -gt 0; do
	case $1 in
	-d) echo "${2-}" | grep -qxE '[1-9][0-9]*' || usage "-d SECONDS"; dur=$2; shift ;;
	-o) [ -n "${2-}" ] || usage "-o DIR"; O=$2; shift ;;
	-h|--help) usage ;;
	*) usage "unknown argument '$1'" ;;
	esac
	shift
done
# It loads modules and sets sysctls: never on the host.
[ -d /px/repo ] || { echo "soak: only in the guest (tests/soak.sh boots one)" >&2; exit 2; }
. ./lib/pxtest.sh
T=${TMPDIR-/tmp}/soak.$$
mkdir -p "$T" "$O"
trap 'rm -rf "$T" "$SOAK_COPY"' 0
rm -f "$O"/lab*.tsv "$O"/ww.tsv "$O"/cases.tsv "$O"/fail-*.out "$O"/stuck-*.txt "$O"/*.cur "$O"/locktorture.txt

LAB_TIMEOUT=240		# inversion -t: one run may take this long
# inversion --grace: start-up and exit waits.  Overcommitted 8-vCPU guests
# (KASAN, two side by side) have taken over 30 s to fork a run's children
# or to let them exit (exit_signals() waiting on the cgroup threadgroup
# rwsem); a hang still shows, as the hung-task report at 60 s and as a
# failed run at this bound.
LAB_GRACE=120
WIND_DOWN=300		# after SECONDS, wait this long for runs in flight
ncpu=$(grep -c '^processor' /proc/cpuinfo)
now() { cut -d. -f1 /proc/uptime; }
# sysrq KEY: a sysrq dump into the kernel log (l: every CPU's backtrace,
# w: the blocked tasks), between the markers that tell the console scan
# it was asked for, not a report (lib/sh/console.sh).
sysrq() {
	echo "pxtest: expect backtraces begin" > /dev/kmsg
	{ echo "$1" > /proc/sysrq-trigger; } 2> /dev/null
	echo "pxtest: expect backtraces end" > /dev/kmsg
}
running() { [ ! -e "$T/stop" ]; }

mode=$(px_proxy_setting 2>/dev/null || echo unknown)
echo "# soak: ${dur}s on $ncpu CPUs, $(uname -r), proxy: $mode"
echo "# cmdline: $(cat /proc/cmdline)"
want=enabled
grep -qw 'proxy_exec=disable' /proc/cmdline && want=disabled
strategy=schedule
grep -q 'return=ttwu' /proc/cmdline && strategy=ttwu
[ "$mode" = "$want return=$strategy" ] && ok soak/proxy-mode ||
	notok soak/proxy-mode "debugfs says '$mode', want '$want return=$strategy'"

# All inversion runs share one RT-throttling setting: each run would save
# and restore it, and concurrent runs would restore each other's -1.
rt_runtime=$(cat /proc/sys/kernel/sched_rt_runtime_us)
echo -1 > /proc/sys/kernel/sched_rt_runtime_us
# A hung-task report also shows what every CPU was running.
{ echo 1 > /proc/sys/kernel/hung_task_all_cpu_backtrace; } 2> /dev/null
# WARN()s during the soak ("none": the kernel has no /sys/kernel/warn_count).
warn0=$(cat /sys/kernel/warn_count 2>/dev/null || echo none)

# stuck_watch LOOP: a run still going 30 s after its own -t has fired is
# stuck in the kernel or starved: before inversion's grace ends and its
# children are killed, keep what every CPU runs and has queued
# (sched/debug) and a backtrace of every CPU (sysrq l, into the kernel
# log), in stuck-LOOP-N.txt (the first 5).
# A failed test_proxy_exec case (its threads wait 10 s at most) is
# snapshotted the same way at once.
# It runs while $T/LOOP.run exists, waking every 5 s (a killed sleep
# would outlive its shell, one per run).
stuck_watch() {
	_end=$(($(now) + LAB_TIMEOUT + 30))
	while [ -e "$T/$1.run" ]; do
		[ "$(now)" -lt "$_end" ] || { snap_sched "$1"; return; }
		sleep 5
	done
}
snap_sched() {
	n=$(ls "$O"/stuck-*.txt 2> /dev/null | wc -l)
	[ "$n" -lt 5 ] || return 0
	{
		echo "# $(cat "$O/$1.cur" 2> /dev/null), at $(now) s"
		cat /sys/kernel/debug/sched/debug 2>&1
	} > "$O/stuck-$1-$((n + 1)).txt"
	sysrq l
}

# lab LOOP NAME N TOOL ARGS...: one run (N iterations; 0: it has -d), one
# line in lab-LOOP.tsv (one file per loop: appends to one file from several
# writers are not safe on 9p): loop name rc want done verdict ball.  The
# command is in LOOP.cur while it runs, so a run that never ends is named.
nfail=0
lab() {
	loop=$1 name=$2 n=$3 tool=$4; shift 4
	f=$T/$loop.out
	[ "$n" = 0 ] || set -- "$@" -n "$n"
	# renamedemo and mmapdemo have no -t or --keep-throttle; their --grace
	# covers the background's first operation (30 s was too little once
	# under KASAN).
	if [ "$tool" = renamedemo ] || [ "$tool" = mmapdemo ]; then set -- "$@" --grace $LAB_GRACE
	else set -- "$@" -t $LAB_TIMEOUT --grace $LAB_GRACE --keep-throttle
	fi
	echo "$tool $*" > "$O/$loop.cur"
	: > "$T/$loop.run"
	stuck_watch "$loop" &
	"$tool" "$@" -q > "$f" 2>&1
	rc=$?
	rm -f "$T/$loop.run"
	cons=$(grep '^consistency:' "$f" | tail -1)
	verdict=none
	case $cons in *'-> OK') verdict=OK ;; *'-> INCONSISTENT') verdict=INCONSISTENT ;; esac
	got=$(echo "$cons" | sed -n 's/^consistency: [a-z]*=\([0-9]*\)\/.*/\1/p')
	ball=$(sed -n 's/^football: ball moved \([0-9]*\) times.*/\1/p' "$f")
	[ "$n" = 0 ] && n=- got=-
	echo "$loop $name $rc $n ${got:--} $verdict ${ball:--}" >> "$O/lab-$loop.tsv"
	if [ "$verdict" != OK ] || { [ "$rc" != 0 ] && [ "$rc" != 3 ]; }; then
		nfail=$((nfail + 1))
		[ $nfail -gt 20 ] || { echo "# $tool $* -> exit $rc"; cat "$f"; } > "$O/fail-$loop-$nfail.out"
	fi
	rm -f "$O/$loop.cur"
}

# The loops.  Each uses its own lab mutexes (16 in all): rt 0, dl 1, cfs 2,
# chain 3-6, football 7-15 (one per CPU, so at most 9 CPUs).
loop_rt() {
	i=0
	while running; do
		c=$((i % ncpu)) i=$((i + 1))
		lab rt rt 10 inversion rt -c $c
		running && lab rt sleep-owner 10 inversion sleep-owner -c $c -s 1000 -b 200
	done
}
loop_dl() {
	i=0
	while running; do
		c=$((i % ncpu)) i=$((i + 1))
		lab dl dl 10 inversion dl --first-mutex 1
		running && lab dl xcpu 10 inversion xcpu -c $c,$(( (c + 1) % ncpu )) --first-mutex 1
	done
}
# cfs starts 5 s after the start-up burst (module loads, the first
# ww_mutex stress, every tool paging in over 9p); its owner joins the
# cpu.weight 1 group only once ready (inversion waits 30 s for that).  The
# throttled variant goes first: in a 2-minute soak on 8 overcommitted vCPUs
# a starved cfs run can take the rest of the time.  Three iterations, not
# more: the wind-down waits for the run in flight, and this loop's was the
# last to end (12-20 s after the stop with five).
loop_cfs() {
	i=0
	sleep 5
	while running; do
		c=$((i % ncpu)) i=$((i + 1))
		lab cfs cfs-throttle 2 inversion cfs -c $c --throttle --first-mutex 2
		running && lab cfs cfs 3 inversion cfs -c $c --first-mutex 2
	done
}
mixed='' rtm=''
[ ! -e /sys/kernel/debug/proxylab_rwsem_state ] || mixed=chain:chain-mixed
[ ! -e /sys/kernel/debug/proxylab_rtmutex_state ] || rtm='chain:chain-rtmutex chain:chain-rtmutex-mixed'
loop_chain() {
	i=0
	while running; do
		for d in 1 2 3 4; do
			c=$((i % ncpu)) i=$((i + 1))
			running && lab chain chain-$d 10 inversion chain -D $d -c $c --first-mutex 3
		done
		# A chain of both lock types (the lab's rwsems 3-5, no other loop's).
		[ -z "$mixed" ] || ! running ||
			lab chain chain-mixed 10 inversion chain -D 3 --locks write,mutex,read -c $c --first-mutex 3
		# rt_mutex chains (the lab's rt_mutexes 3-5): priority
		# inheritance's chain walk beside proxy execution's, and a chain
		# that passes from one to the other (an rt_mutex waiter is not
		# proxied: the proxy chain ends at it, PI takes over).
		[ -z "$rtm" ] || ! running ||
			lab chain chain-rtmutex 10 inversion chain -D 3 --locks rtmutex -c $c --first-mutex 3
		[ -z "$rtm" ] || ! running ||
			lab chain chain-rtmutex-mixed 10 inversion chain -D 3 --locks mutex,rtmutex,mutex -c $c --first-mutex 3
	done
}
# football: 3 s games, 2 s apart, so that SCHED_OTHER work (locktorture's
# writers, the other loops' owners) is not starved for the whole soak.
fbcpus=0-$((ncpu - 1))
[ "$ncpu" -le 9 ] || fbcpus=0-8
loop_football() {
	while running; do
		lab football football 0 inversion football -d 3s -c $fbcpus --first-mutex 7
		sleep 2
		running && lab football football-float 0 inversion football --float -d 3s -c $fbcpus --first-mutex 7
		sleep 2
	done
}
# renamedemo times nothing until its background has renamed once (it
# waits 30 s for that, then warns and exits 1).  With its cgroup (weight
# 20 or 100) the background missed an earlier 10-s wait in 2 of 8 runs
# under the soak's load, so it stays out of it here; cfs exercises the
# cgroup paths.
loop_rename() {
	i=0
	sleep 20
	while running; do
		c=$((i % ncpu)) i=$((i + 1))
		# Background at nice 10, not 19: on 8 vCPUs over 2 host cores a
		# nice-19 background could wait out a whole 200-rename run.
		lab rename rename 200 renamedemo -c $c -H 1 --no-cgroup --nice 10
	done
}
# mmap_lock, an rw_semaphore: a writer-owned round (proxied) and a
# reader-owned one (donors blocked for real), each on the next CPU; then
# a file's i_rwsem, writer-owned.
loop_mmap() {
	i=0
	sleep 10
	while running; do
		c=$((i % ncpu)) i=$((i + 1))
		lab mmap mmap 100 mmapdemo -c $c -H 1 --nice 10 --size 16
		running || break
		lab mmap mmap-bg-read 20 mmapdemo --bg-read -c $c -H 1 --nice 10 --size 16
		running || break
		lab mmap inode 100 mmapdemo --inode -c $c -H 1 --nice 10 --size 16
	done
}
# The test_proxy_exec cases (the series' 0041), round after round on the
# next CPU: rwsem states that last nanoseconds in real life (a stale,
# freed reader in a write-locked rwsem's owner field; parked waiters
# woken by their owner; up_write() while proxied; a mutex owner waiting
# for an rwsem's readers; a wound-wait back-off that must not inherit its
# wound), among everything else.  cases.tsv: one line per run, "case rc
# result-line"; a run that errs is a failure, and so is a ww_backoff* run
# whose relock is not a wait (relock=0 after first=-35).
CASES_DIR=/sys/kernel/debug/test_proxy_exec
# awk: a cases.tsv line that is a failure
case_failed='$2 != 0 || ($1 ~ /^ww_backoff/ && !/ first=-35 relock=0 /)'
loop_cases() {
	i=0
	while running; do
		c=$((i % ncpu)) i=$((i + 1))
		[ "$c" != 0 ] || c=1
		echo "$c" > /sys/module/test_proxy_exec/parameters/cpu
		for k in stale_owner rewoken rewoken_reader up_write readers_chain ww_backoff ww_backoff_intr; do
			running || break
			echo "$k" > "$O/cases.cur"
			rc=0
			echo "$k" > "$CASES_DIR/run" 2> "$T/cases.err" || { rc=1; snap_sched cases; }
			echo "$k $rc $(cat "$CASES_DIR/result" 2>/dev/null | tr '\n' ' ') $(cat "$T/cases.err")" >> "$O/cases.tsv"
		done
		rm -f "$O/cases.cur"
	done
}
# ww_mutex selftest: the module's init runs every test, a failure fails the load.
# The loader can hide a failed init (ww_selftest_counts, lib/pxtest.sh),
# so each load also counts, in the kernel log since its marker, the runs
# of the selftests and the runs that passed: a run that did not pass
# fails the load ("init"), whatever modprobe returned.
loop_ww() {
	k=0
	while running; do
		k=$((k + 1)) t0=$(now)
		echo "modprobe test-ww_mutex" > "$O/ww.cur"
		echo "pxsoak: ww load $k" > /dev/kmsg
		modprobe test-ww_mutex > "$T/ww.out" 2>&1
		rc=$?
		if grep -q '^test_ww_mutex ' /proc/modules; then
			rmmod test-ww_mutex >> "$T/ww.out" 2>&1 || rc=rmmod
		fi
		dmesg | sed -n "/pxsoak: ww load $k\$/,\$p" > "$T/ww.log"
		ww_selftest_counts "$T/ww.log"
		if [ "$rc" = 0 ] && [ "$ww_runs" != "$ww_passed" ]; then
			rc=init
			ww_selftest_failures "$T/ww.log" 1 >> "$T/ww.out"
		fi
		echo "$rc $(($(now) - t0)) runs=$ww_runs passed=$ww_passed $(tr '\n' ' ' < "$T/ww.out")" >> "$O/ww.tsv"
		rm -f "$O/ww.cur"
	done
}

# Every CPU's local timer interrupts (LOC), sampled at the start and every
# 30 s: "uptime n0 n1 ...".  A CPU whose count stops had no tick and no
# hrtimer for the interval (the watchdog's fires every 4 s, idle or not) --
# an interrupt lost below the kernel, told apart from a scheduler hang by
# when it stopped and on which CPU.
loc_sample() {
	awk -v t="$(now)" '$1 == "LOC:" { printf "%s", t; for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) printf " %s", $i; print "" }' /proc/interrupts >> "$T/loc.tsv"
}
loc_sample
start=$(now)
end=$((start + dur))
lt=ok
modprobe locktorture torture_type=mutex_lock nwriters_stress=$((2 * ncpu)) nested_locks=4 \
	rt_boost=2 stat_interval=60 onoff_interval=0 shutdown_secs=0 > "$T/lt.out" 2>&1 ||
	lt="modprobe failed: $(tr '\n' ' ' < "$T/lt.out")"
cyclictest -q -m -S -p 95 -i 2000 -D "$dur" > "$O/cyclictest.txt" 2>&1 &
cyc=$!
eval "name_$cyc=cyclictest"
pids=
skipped() { case " ${SOAK_SKIP:-} " in *" $1 "*) true ;; *) false ;; esac; }
cases_ok=''
modprobe test_proxy_exec 2> "$T/cases-mod.err" && [ -w "$CASES_DIR/run" ] && [ "$ncpu" -gt 1 ] && cases_ok=1
for l in rt dl cfs chain football rename mmap ww cases; do
	skipped $l && continue
	[ "$l" != cases ] || [ -n "$cases_ok" ] || continue
	loop_$l &
	pids="$pids $!"
	eval "name_$!=$l"
done
[ -z "${SOAK_SKIP:-}" ] || echo "# skipped: $SOAK_SKIP"
# This shell keeps the time: SCHED_FIFO from here on (it sleeps, and what
# it starts is short), else on 8 overcommitted vCPUs its 30-s naps
# overran by 10-25 s and the stop came late.
chrt -f -p 98 $$ > /dev/null 2>&1 || echo "# chrt failed: the stop may come late"

# Progress every 30 s (the host's stall detector watches this output).
progress() {
	echo "# $(($(now) - start))s: lab runs $(cat "$O"/lab-*.tsv 2>/dev/null | wc -l)," \
		"ww loads $(cat "$O"/ww.tsv 2>/dev/null | wc -l), $*"
}
while [ "$(now)" -lt $end ]; do
	left=$((end - $(now)))
	[ $left -le 30 ] || left=30
	sleep $left
	loc_sample
	# In the background and not at the end: reading the files over 9p
	# from a busy guest takes 5-10 s, which delayed the stop as much.
	[ "$(now)" -ge $end ] || { cp "$T/loc.tsv" "$O/loc.tsv"; progress "$(cat "$O"/*.cur 2>/dev/null | wc -l) running"; } &
done
touch "$T/stop"
echo "# $(($(now) - start))s: stop"

# Wind-down: locktorture stops at once (its statistics cover the soak), the
# loops finish their runs in flight.  Nothing is waited for synchronously: a
# task stuck in D (a lost wakeup) must not stop the report.
rmpid=
if [ "$lt" = ok ]; then
	echo "rmmod locktorture" > "$O/locktorture.cur"
	{ rmmod locktorture > "$T/lt.out" 2>&1; echo $? > "$T/lt.rc"; rm -f "$O/locktorture.cur"; } &
	rmpid=$!
	eval "name_$rmpid=rmmod-locktorture"
fi
# One line as each of them ends: what the wind-down waited for.
deadline=$(($(now) + WIND_DOWN)) k=0 waiting="$pids $cyc $rmpid"
while :; do
	alive=
	for p in $waiting; do
		if kill -0 "$p" 2>/dev/null; then
			alive="$alive $p"
		else
			echo "# $(($(now) - start))s: $(eval echo "\${name_$p:-$p}") done"
		fi
	done
	waiting=$alive
	[ -n "$alive" ] && [ "$(now)" -lt "$deadline" ] || break
	sleep 1
	k=$((k + 1))
	[ $((k % 30)) != 0 ] || progress "winding down: $(cat "$O"/*.cur 2>/dev/null | tr '\n' ';')"
done
stuck=$(cat "$O"/*.cur 2>/dev/null | tr '\n' ';')
# The lab runs among them (not modprobe/rmmod).
lab_stuck=$(for f in "$O"/*.cur; do
	case $f in */ww.cur|*/locktorture.cur|*'/*.cur') ;; *) cat "$f" ;; esac
done | tr '\n' ';')
if [ -n "$alive" ]; then
	# Blocked tasks' stacks to the kernel log (console), for the report.
	sysrq w
	progress "still running after ${WIND_DOWN}s: $stuck"
fi
if [ -n "$rmpid" ]; then
	[ "$(cat "$T/lt.rc" 2>/dev/null)" = 0 ] ||
		lt="rmmod failed or hung: $(tr '\n' ' ' < "$T/lt.out" 2>/dev/null)"
	dmesg | grep -E 'locktorture|lock_torture|Writes:|End of test' > "$O/locktorture.txt"
fi
echo "$rt_runtime" > /proc/sys/kernel/sched_rt_runtime_us
warn1=$(cat /sys/kernel/warn_count 2>/dev/null || echo none)
loc_sample
cp "$T/loc.tsv" "$O/loc.tsv"
# The first interval of at least 20 s in which a CPU's LOC did not move.
loc_stopped=$(awk 'NR > 1 && $1 - t >= 20 { for (i = 2; i <= NF; i++) if ($i == p[i]) {
		printf "CPU %d took no local timer interrupt from %ss to %ss (LOC stayed %s)", i - 2, t, $1, $i; exit } }
	{ t = $1; for (i = 2; i <= NF; i++) p[i] = $i }' "$O/loc.tsv")
case $warn0$warn1 in *none*) warn_delta=none ;; *) warn_delta=$((warn1 - warn0)) ;; esac
cat "$O"/lab-*.tsv > "$O/lab.tsv" 2>/dev/null
touch "$O/ww.tsv"

# The numbers.
lab_runs=$(wc -l < "$O/lab.tsv")
lab_bad=$(awk '$6 != "OK" || ($3 != 0 && $3 != 3) { n++ } END { print n + 0 }' "$O/lab.tsv")
lab_want=$(awk '$4 != "-" { s += $4 } END { print s + 0 }' "$O/lab.tsv")
lab_done=$(awk '$5 != "-" { s += $5 } END { print s + 0 }' "$O/lab.tsv")
lab_short=$(awk '$4 != $5 { n++ } END { print n + 0 }' "$O/lab.tsv")
lab_rcs=$(awk '{ c[$3]++ } END { for (r in c) printf "%s%s:%d", s++ ? "," : "", r, c[r] }' "$O/lab.tsv")
per=$(awk '{ c[$2]++ } END { for (n in c) printf "%s=%d ", n, c[n] }' "$O/lab.tsv")
fb() { awk -v n="$1" '$2 == n { g++; if ($3 == 3 || ($7 != "-" && $7 > 0)) v++ } END { print g + 0, v + 0 }' "$O/lab.tsv"; }
# shellcheck disable=SC2046 # intended word splitting (also below)
set -- $(fb football); fb_games=$1 fb_viol=$2
# shellcheck disable=SC2046
set -- $(fb football-float); fl_games=$1 fl_viol=$2
ww_loads=$(wc -l < "$O/ww.tsv")
ww_failed=$(awk '$1 != 0 { n++ } END { print n + 0 }' "$O/ww.tsv")
lt_end=$(sed -n 's/.*End of test: \([A-Z_]*\).*/\1/p' "$O/locktorture.txt" 2>/dev/null | tail -1)
lt_stats=$(grep 'Writes:' "$O/locktorture.txt" 2>/dev/null | tail -1)
lt_writes=$(echo "$lt_stats" | sed -n 's/.*Total: *\([0-9]*\).*/\1/p')
lt_fail=$(echo "$lt_stats" | sed -n 's/.*Fail: *\([0-9]*\).*/\1/p')
# shellcheck disable=SC2046
# cyclictest -q: one "T: n (...) P:95 I:2000 C: c Min: a Act: b Avg: c Max: d" per CPU.
set -- $(sed 's/:/: /g' "$O/cyclictest.txt" | awk '$1 == "T:" {
	for (i = 1; i < NF; i++) { if ($i == "C:") c += $(i + 1); if ($i == "Avg:") a += $(i + 1)
		if ($i == "Max:" && $(i + 1) > m) m = $(i + 1) }
	t++ } END { printf "%d %d %d %d\n", t, c, t ? a / t : 0, m }')
cyc_threads=$1 cyc_cycles=$2 cyc_avg=$3 cyc_max=$4

cat > "$O/soak.txt" <<EOF
seconds=$dur
skipped=${SOAK_SKIP:-}
cpus=$ncpu
proxy_exec=$mode
lab_runs=$lab_runs
lab_failed=$lab_bad
lab_iterations_wanted=$lab_want
lab_iterations_done=$lab_done
lab_runs_short=$lab_short
lab_exit_statuses=$lab_rcs
lab_per_scenario=$per
stuck=$stuck
lab_stuck=$lab_stuck
football_games=$fb_games
football_violations=$fb_viol
football_float_games=$fl_games
football_float_violations=$fl_viol
ww_loads=$ww_loads
ww_failed=$ww_failed
locktorture=$lt
locktorture_end=${lt_end:-none}
locktorture_writes=${lt_writes:-0}
locktorture_fail=${lt_fail:-none}
locktorture_stats=$lt_stats
cyclictest_threads=$cyc_threads
cyclictest_cycles=$cyc_cycles
cyclictest_avg_us=$cyc_avg
cyclictest_max_us=$cyc_max
warn_count_before=$warn0
warn_count_after=$warn1
warn_count_delta=$warn_delta
EOF
sed 's/^/# /' "$O/soak.txt"

# The checks.
[ "$lt" = ok ] && [ "$lt_end" = SUCCESS ] && [ "${lt_writes:-0}" -gt 0 ] && [ "$lt_fail" = 0 ] &&
	! grep -q '!!!' "$O/locktorture.txt" && ok soak/locktorture ||
	notok soak/locktorture "$lt; end ${lt_end:-none}; $lt_stats"
if skipped cases; then :
elif [ -z "$cases_ok" ]; then
	skip soak/proxy-cases "no test_proxy_exec here ($(cat "$T/cases-mod.err" 2>/dev/null)) or one CPU"
else
	cases_runs=$(grep -c . "$O/cases.tsv" 2>/dev/null || echo 0)
	cases_bad=$(awk "$case_failed" "$O/cases.tsv" 2>/dev/null | wc -l)
	echo "# test_proxy_exec: $cases_runs case runs, $cases_bad failed"
	[ "$cases_runs" -gt 0 ] && [ "$cases_bad" = 0 ] && [ ! -e "$O/cases.cur" ] && ok soak/proxy-cases ||
		notok soak/proxy-cases "$cases_bad of $cases_runs runs failed$([ ! -e "$O/cases.cur" ] || echo "; $(cat "$O/cases.cur") still running"): $(awk "$case_failed" "$O/cases.tsv" | head -1)"
fi
skipped ww || { [ "$ww_loads" -gt 0 ] && [ "$ww_failed" = 0 ] && [ ! -e "$O/ww.cur" ] && ok soak/ww-mutex; } ||
	notok soak/ww-mutex "$ww_failed of $ww_loads loads failed$([ ! -e "$O/ww.cur" ] || echo "; a load still running after ${WIND_DOWN}s"): $(awk '$1 != 0' "$O/ww.tsv" | head -1)"
# Every loop must have run; every scenario too, unless the soak was short
# (< 10 min: on 8 overcommitted vCPUs a starved cfs run can take minutes).
missing= missing_loops=
for s in rt:rt rt:sleep-owner dl:dl dl:xcpu cfs:cfs cfs:cfs-throttle chain:chain-1 chain:chain-2 \
	chain:chain-3 chain:chain-4 football:football football:football-float rename:rename \
	mmap:mmap mmap:mmap-bg-read mmap:inode $mixed $rtm; do
	skipped "${s%:*}" && continue
	awk -v s=${s#*:} '$2 == s { f = 1 } END { exit !f }' "$O/lab.tsv" || missing="$missing ${s#*:}"
	awk -v l=${s%:*} '$1 == l { f = 1 } END { exit !f }' "$O/lab.tsv" ||
		case " $missing_loops " in *" ${s%:*} "*) ;; *) missing_loops="$missing_loops ${s%:*}" ;; esac
done
[ -z "$missing" ] || echo "# scenarios not reached in ${dur}s:$missing"
[ "$dur" -lt 600 ] && missing=$missing_loops
[ -z "$lab_stuck" ] && [ -z "$missing" ] && ok soak/lab-finished ||
	notok soak/lab-finished "${lab_stuck:+still running after ${WIND_DOWN}s: $lab_stuck}${missing:+ never ran:$missing}"
# The failing run's own words (its warnings and consistency line), so a
# CI log that shows only the FAIL line still says why.
first_fail_why() {
	loop=$(awk '$6 != "OK" || ($3 != 0 && $3 != 3) { print $1; exit }' "$O/lab.tsv")
	f=$O/fail-$loop-1.out
	[ -f "$f" ] || { echo "no output kept"; return; }
	grep -E '^[a-z]+: |^consistency:' "$f" | head -4 | tr '\n' ';'
}
[ "$lab_bad" = 0 ] && [ "$lab_runs" -gt 0 ] && ok soak/lab-status ||
	notok soak/lab-status "$lab_bad of $lab_runs runs failed (exit statuses $lab_rcs), first: $(awk '$6 != "OK" || ($3 != 0 && $3 != 3)' "$O/lab.tsv" | head -1) [$(first_fail_why)]"
[ "$lab_short" = 0 ] && [ "$lab_want" = "$lab_done" ] && ok soak/lab-counts ||
	notok soak/lab-counts "iterations $lab_done/$lab_want, $lab_short runs short"
skipped football || { [ "$fb_games" -gt 0 ] && [ "$fb_viol" = 0 ] && ok soak/football-ball-still; } ||
	notok soak/football-ball-still "ball moved in $fb_viol of $fb_games games"
echo "# football --float: ball moved in $fl_viol of $fl_games games (reported, not checked: tools/README.md)"
[ "$cyc_threads" = "$ncpu" ] && [ "$cyc_cycles" -gt 0 ] && ok soak/cyclictest ||
	notok soak/cyclictest "$cyc_threads threads, $cyc_cycles cycles: $(tail -3 "$O/cyclictest.txt")"
# warn_count catches a WARN whose console line was lost or rate-limited.
if [ "$warn_delta" = none ]; then skip soak/warn-count "no /sys/kernel/warn_count"
elif [ "$warn_delta" = 0 ]; then ok soak/warn-count
else notok soak/warn-count "warn_count rose by $warn_delta ($warn0 -> $warn1) during the soak"
fi
[ -z "$loc_stopped" ] && ok soak/local-timers || notok soak/local-timers "$loc_stopped"
held=$(lab_held)
[ "$held" = 0 ] && [ ! -d /sys/fs/cgroup/pxinv-bg ] && [ ! -d /sys/fs/cgroup/pxrename-bg ] &&
	ok soak/lab-clean-after || notok soak/lab-clean-after "$held lab mutexes held or a workload cgroup left"
finish

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Proxy execution core: the boot switch is honoured, a waiter signalled or
# killed while it donates leaves the wait at once with no stale blocked_on
# (proxysig), an owner's sched_yield() yields the donor's context
# (yieldpeer), and locktorture on mutex_lock with more writers than CPUs and
# RT boosting reports no errors -- with proxy execution on, off, and on the
# debug kernel with each return strategy (lockdep, DEBUG_MUTEXES, hung-task
# detector; the runner checks the console for any report).  On the debug
# boots also: locktorture on rtmutex, rwsem and ww_mutex, which proxy
# execution must leave alone, and the ww_mutex selftest in both its
# classes (lockdep watching).  The selftest runs on the lean boot as well:
# lock debugging changes which ww_mutex paths run (below).
#
# Usage: sh 30-proxy-core.sh   (in the guest)
# pxtest-boot: lean
# pxtest-boot: lean proxy_exec=disable +parallel
# pxtest-boot: debug
# pxtest-boot: lean proxy_exec=enable,return=ttwu
# pxtest-cpus: 4
# pxtest-timeout: 420
set -u
. ./lib/pxtest.sh
T=${TMPDIR-/tmp}/core.$$
mkdir -p "$T"
trap 'rm -rf "$T"' 0
# locktorture seconds: on the debug boots, one per return strategy, lockdep
# sees every lock pattern in the first second (8 s: tens of thousands of
# lock/unlock cycles); the lean boots (5 s) are the fast kernel's and the
# proxy-off control's.  The hung-task detector (60 s) needs the soak, which
# runs locktorture for minutes on 8 vCPUs with each strategy, beside
# everything else.
secs=5
[ ! -e /proc/lockdep ] || secs=8
TORTURE_SECS=${TORTURE_SECS:-$secs}

want=enabled strategy=schedule
grep -qw 'proxy_exec=disable' /proc/cmdline && want=disabled
grep -q 'return=ttwu' /proc/cmdline && strategy=ttwu
if dmesg | grep -q "sched: proxy execution $want" &&
   [ "$(px_proxy_setting)" = "$want return=$strategy" ]; then
	ok core/boot-switch
else
	notok core/boot-switch "want $want: dmesg '$(dmesg | grep 'proxy execution')'," \
		"debugfs '$(cat /sys/kernel/debug/sched/proxy_exec 2>&1)'"
fi

# lab_test NAME ARGS...: a test program that prints its own ok/not ok
# lines; core/NAME fails when it printed no ok line, and its exit status
# counts as a failure.
lab_test() {
	_n=$1
	if ! command -v "$_n" > /dev/null; then
		notok "core/$_n" "$_n not in the image"
		return
	fi
	"$@" > "$T/$_n" 2>&1
	rc=$?
	cat "$T/$_n"
	grep -q '^ok ' "$T/$_n" || notok "core/$_n" "exit $rc: $(tail -c 300 "$T/$_n")"
	[ $rc = 0 ] || px_failed=$((px_failed + 1))
}

# Signals and kills of a blocked waiter: the owner burns 1.5 s, the
# signal comes 0.2 s after the waiter blocked, and the wait must end
# before the owner's release.
lab_test proxysig -c 1 -b 1500

# An owner that yields on a waiter's behalf yields the waiter's context:
# a peer of the waiter's priority runs before the owner's release (an
# order of events, like proxysig's).
lab_test yieldpeer -c 1

# torture TYPE SECS [PARAM...]: locktorture on TYPE for SECS seconds, 8
# writers on 4 CPUs, RT boosting; its dmesg in $T/torture-TYPE.  Status 0
# when it ended in SUCCESS with no "!!!" line and completed writes, else
# 1 with the reason in $why; its last statistics line in $stats.
torture() {
	tt=$1 ts=$2
	shift 2
	dmesg -c > /dev/null
	if ! modprobe locktorture torture_type="$tt" nwriters_stress=8 rt_boost=2 \
		stat_interval=15 onoff_interval=0 shutdown_secs=0 "$@" 2> "$T/modprobe-$tt"; then
		why="modprobe locktorture torture_type=$tt failed: $(tail -1 "$T/modprobe-$tt")"
		return 1
	fi
	sleep "$ts"
	rmmod locktorture
	dmesg > "$T/torture-$tt"
	stats=$(grep 'Writes:' "$T/torture-$tt" | tail -1)
	echo "# locktorture $tt: $stats"
	total=$(echo "$stats" | sed -n 's/.*Total: *\([0-9]*\).*/\1/p')
	if ! grep -q 'End of test: SUCCESS' "$T/torture-$tt" || grep -q '!!!' "$T/torture-$tt"; then
		why=$(grep -E 'End of test|!!!' "$T/torture-$tt" | tail -2)
		return 1
	elif [ "${total:-0}" -eq 0 ]; then
		why="no writes completed: $stats"
		return 1
	fi
}

# locktorture: mutex_lock, 8 writers on 4 CPUs, RT boosting of all lock types.
if torture mutex_lock "$TORTURE_SECS"; then ok core/locktorture-mutex
else notok core/locktorture-mutex "$why"; fi

# The other lock types: rtmutex (PI boosting of its own: proxy execution
# leaves it alone), rwsem with readers and writers (proxied while a writer
# owns it, 0038; readers block donors), ww_mutex; 3 s each, RT boosting of
# all types, with proxy execution on (the off boot has nothing to compare
# them with), on the debug kernel.
# (torture lock_busted, locktorture's deliberately broken lock, fails
# this check with "Fail: 1 !!!" and End of test: FAILURE -- and a WARN,
# which is why it is not run here.)
if [ "$want" = enabled ] && [ -e /proc/lockdep ]; then
	for lt in rtmutex_lock rwsem_lock ww_mutex_lock; do
		if torture $lt 3 nreaders_stress=4; then ok core/locktorture-$lt
		else notok core/locktorture-$lt "$why"; fi
	done
fi

# ww_mutex selftest: module init runs every test, in a wait-die and then in
# a wound-wait class (0031), and fails the load on error.  12 s of stress
# under TCG: on the debug kernel, and on the lean one with proxy execution
# on (return=schedule), because lock debugging sends every ww_mutex_lock()
# down the slow path: the fast path users run is tested only without it
# (the stale wound of 0047 lived there).
if [ ! -e /proc/lockdep ] && { [ "$want" != enabled ] || [ "$strategy" != schedule ]; }; then
	finish
fi
# Every run in the kernel log must pass (ww_selftest_counts says why).
dmesg -c > /dev/null
modprobe test-ww_mutex > "$T/ww" 2>&1
rc=$?
! grep -q '^test_ww_mutex ' /proc/modules || rmmod test-ww_mutex
dmesg > "$T/ww.log"
ww_selftest_counts "$T/ww.log"
if [ $rc = 0 ] && [ "$ww_runs" = "$ww_passed" ]; then
	ok core/ww-mutex-selftest
	check core/ww-mutex-wound-wait "the wound-wait class did not run: $(grep -i 'ww mutex' "$T/ww.log" | tr '\n' ' ')" \
		grep -q 'ww mutex selftests: wound-wait class' "$T/ww.log"
else
	notok core/ww-mutex-selftest "modprobe exit $rc, $ww_passed of $ww_runs runs passed: $(cat "$T/ww"; ww_selftest_failures "$T/ww.log" 2)"
	skip core/ww-mutex-wound-wait "the selftest failed"
fi
finish

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Proxy execution core: the boot switch is honoured, a waiter signalled or
# killed while it donates leaves the wait at once with no stale blocked_on
# (proxysig), locktorture on mutex_lock with more writers than CPUs and RT
# boosting reports no errors, and the ww_mutex selftest passes -- with proxy
# execution on, off, and on the debug kernel with each return strategy
# (lockdep, DEBUG_MUTEXES, hung-task detector; the runner checks the
# console for any report).
#
# Usage: sh 30-proxy-core.sh   (in the guest)
# pxtest-boot: lean
# pxtest-boot: lean proxy_exec=disable
# pxtest-boot: debug
# pxtest-boot: debug proxy_exec=enable,return=ttwu
# pxtest-cpus: 4
# pxtest-timeout: 420
set -u
. ./lib/pxtest.sh
T=${TMPDIR-/tmp}/core.$$
mkdir -p "$T"
trap 'rm -rf "$T"' 0
# locktorture seconds: the proxy-off boot is a control (10 s); on the debug
# boots, one per return strategy, lockdep sees every lock pattern in the
# first second (12 s: over a hundred thousand lock/unlock cycles); the
# hung-task detector (60 s) needs the soak, which runs locktorture for
# minutes on 8 vCPUs with each strategy, beside everything else.
case "$(cat /proc/cmdline)" in
*proxy_exec=disable*) secs=10 ;;
*) secs=12 ;;
esac
TORTURE_SECS=${TORTURE_SECS:-$secs}

want=enabled strategy=schedule
grep -qw 'proxy_exec=disable' /proc/cmdline && want=disabled
grep -q 'return=ttwu' /proc/cmdline && strategy=ttwu
if dmesg | grep -q "sched: proxy execution $want" &&
   grep -q "^$want return=$strategy$" /sys/kernel/debug/sched/proxy_exec; then
	ok core/boot-switch
else
	notok core/boot-switch "want $want: dmesg '$(dmesg | grep 'proxy execution')'," \
		"debugfs '$(cat /sys/kernel/debug/sched/proxy_exec 2>&1)'"
fi

# Signals and kills of a blocked waiter (prints its own ok/not ok lines).
if command -v proxysig >/dev/null; then
	# The owner burns 1.5 s; the signal comes 0.2 s after the waiter
	# blocked and must end its wait within 0.5 s.
	proxysig -c 1 -b 1500 > "$T/sig" 2>&1
	rc=$?
	cat "$T/sig"
	grep -q '^ok ' "$T/sig" || notok core/proxysig "exit $rc: $(tail -c 300 "$T/sig")"
	[ $rc = 0 ] || px_failed=$((px_failed + 1))
else
	notok core/proxysig "proxysig not in the image"
fi

# locktorture: mutex_lock, 8 writers on 4 CPUs, RT boosting of all lock types.
dmesg -c > /dev/null
if modprobe locktorture torture_type=mutex_lock nwriters_stress=8 rt_boost=2 \
	stat_interval=15 onoff_interval=0 shutdown_secs=0; then
	sleep "$TORTURE_SECS"
	rmmod locktorture
	dmesg > "$T/torture"
	stats=$(grep 'Writes:' "$T/torture" | tail -1)
	echo "# locktorture: $stats"
	if grep -q 'End of test: SUCCESS' "$T/torture" && ! grep -q '!!!' "$T/torture"; then
		ok core/locktorture-mutex
	else
		notok core/locktorture-mutex "$(grep -E 'End of test|!!!' "$T/torture" | tail -2)"
	fi
	total=$(echo "$stats" | sed -n 's/.*Total: *\([0-9]*\).*/\1/p')
	[ "${total:-0}" -gt 0 ] && ok core/locktorture-progress ||
		notok core/locktorture-progress "no writes completed: $stats"
else
	notok core/locktorture-mutex "modprobe locktorture failed"
fi

# ww_mutex selftest: module init runs every test, in a wait-die and then in
# a wound-wait class (0031), and fails the load on error.
dmesg -c > /dev/null
if modprobe test-ww_mutex > "$T/ww" 2>&1; then
	ok core/ww-mutex-selftest
	rmmod test-ww_mutex
	dmesg > "$T/ww.log"
	check core/ww-mutex-wound-wait "the wound-wait class did not run: $(grep -i 'ww mutex' "$T/ww.log" | tr '\n' ' ')" \
		grep -q 'ww mutex selftests: wound-wait class' "$T/ww.log"
else
	notok core/ww-mutex-selftest "$(cat "$T/ww"; dmesg | grep -i 'ww_mutex\|ww-mutex' | tail -3)"
	skip core/ww-mutex-wound-wait "the selftest failed"
fi
finish

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Proxy execution core: the boot switch is honoured, a waiter signalled or
# killed while it donates leaves the wait at once with no stale blocked_on
# (proxysig), and the ww_mutex selftest passes -- with proxy execution on,
# off, and on the debug kernel with each return strategy (lockdep,
# DEBUG_MUTEXES, hung-task detector; the runner checks the console for any
# report).  locktorture on the same four boots: 35-locktorture.sh.
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
	proxysig -c 1 -b 3000 > "$T/sig" 2>&1
	rc=$?
	cat "$T/sig"
	grep -q '^ok ' "$T/sig" || notok core/proxysig "exit $rc: $(tail -c 300 "$T/sig")"
	[ $rc = 0 ] || px_failed=$((px_failed + 1))
else
	notok core/proxysig "proxysig not in the image"
fi

# ww_mutex selftest: module init runs every test and fails the load on error.
if modprobe test-ww_mutex > "$T/ww" 2>&1; then
	ok core/ww-mutex-selftest
	rmmod test-ww_mutex
else
	notok core/ww-mutex-selftest "$(cat "$T/ww"; dmesg | grep -i 'ww_mutex\|ww-mutex' | tail -3)"
fi
finish

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Many waiters of different priorities on one CFS owner, a FIFO-30 hog on
# their CPU (prioladder: waiters FIFO 10,20,40,60 queued in that order).
# Proxy on: the owner runs on the highest waiter's context, the mutex goes
# to the waiters above the hog highest first, each within a quarter of the
# hog's 1-s burst (and again with the priorities shuffled).  Proxy off is the control that must fail: the owner is
# starved for the whole burst and the mutex goes in wait-list order.
#
# Usage: sh 39-prio-waiters.sh   (in the guest)
# pxtest-boot: lean
# pxtest-boot: lean proxy_exec=disable +parallel
# pxtest-boot: lean proxy_exec=enable,return=ttwu
# pxtest-cpus: 4
# pxtest-timeout: 120
set -u
. ./lib/pxtest.sh
if ! command -v prioladder > /dev/null; then
	notok prioladder/run "prioladder not in the image"
	finish
fi
if grep -qw 'proxy_exec=disable' /proc/cmdline; then
	out=$(prioladder -c 1 2>&1)
	rc=$?
	echo "$out" | sed 's/^/# off: /'
	check prioladder/off-control "want exit 1 with the top waiter late, got exit $rc" \
		sh -c "[ $rc = 1 ] && echo \"\$0\" | grep -q '^not ok prioladder/above-hog-bounded'" "$out"
	finish
fi
prioladder -c 1
rc=$?
[ $rc -le 1 ] || notok prioladder/setup "exit $rc"
# Priorities not in wait-list order, a shorter burst.
out=$(prioladder -c 1 -P 50,5,70,15,45 --hog 500ms 2>&1)
rc=$?
echo "$out" | sed 's,prioladder/,prioladder/shuffled-,'
[ $rc -le 1 ] || notok prioladder/shuffled-setup "exit $rc"
finish

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Many waiters of different priorities on one CFS owner, a FIFO-30 hog on
# their CPU (prioladder: waiters FIFO 10,20,40,60 queued in that order).
# Proxy on: the owner runs on the highest waiter's context, the mutex goes
# to the waiters above the hog highest first, each within a quarter of the
# hog's 1-s burst (and again with the priorities shuffled).  Proxy off is
# the control that must fail: the owner is starved for the whole burst.
#
# In virtual time (icount): the bound is a duration.  Each prioladder run
# is a timed section of the warp guard (a run that waited on the host is
# skipped, and vtime/prio-warp-guard fails).
#
# The contested CPU's fair server is off meanwhile (runtime 0, restored
# after): it would run the starved CFS owner as itself, above the donors,
# for up to 50 ms a second, and a release made there goes in wait-list
# order, as it must (under icount it did in 4 of 12 shuffled runs, the
# owner's whole hold on the fair server).  prioladder then judges no order
# (a skip); here, with the server off, such a skip is a failure.
#
# Usage: sh 39-prio-waiters.sh   (in the guest)
# pxtest-boot: lean +icount
# pxtest-boot: lean proxy_exec=disable +icount
# pxtest-timeout: 120
set -u
. ./lib/pxtest.sh
if ! command -v prioladder > /dev/null; then
	notok prioladder/run "prioladder not in the image"
	finish
fi
fs=/sys/kernel/debug/sched/fair_server/cpu1/runtime
fs_runtime=
if [ -w "$fs" ]; then
	fs_runtime=$(cat "$fs")
	trap 'echo "$fs_runtime" > "$fs"' 0
	echo 0 > "$fs" || notok prioladder/fair-server-off "cannot write $fs"
else
	notok prioladder/fair-server-off "no $fs (debugfs)"
fi

# ladder NAME ARGS...: prioladder -c 1 ARGS as a timed section, its output
# in $out and exit status in rc; false (with a skip of NAME) when the
# warp guard rejected it.
ladder() {
	_n=$1
	shift
	warp_begin
	out=$(prioladder -c 1 "$@" 2>&1)
	rc=$?
	warp_end "prio-$_n" && return 0
	skip "prioladder/$_n" "the warp guard rejected the timed section"
	return 1
}

if grep -qw 'proxy_exec=disable' /proc/cmdline; then
	if ladder off-control; then
		echo "$out" | sed 's/^/# off: /'
		check prioladder/off-control "want exit 1 with the top waiter late, got exit $rc" \
			sh -c "[ $rc = 1 ] && echo \"\$0\" | grep -q '^not ok prioladder/above-hog-bounded'" "$out"
	fi
	warp_guard vtime/prio-warp-guard
	finish
fi
# noskip PREFIX: prioladder's lines ($out) with PREFIX in the check names;
# its skip of the order check is a failure here, with the fair server off.
noskip() {
	echo "$out" | grep -v "^skip prioladder/highest-priority-first" | sed "s,prioladder/,prioladder/$1,"
	! echo "$out" | grep -q "^skip prioladder/highest-priority-first" ||
		notok "prioladder/$1highest-priority-first" "order not judged with the fair server off: $(echo "$out" | grep '^# owner')"
	[ $rc -le 1 ] || notok "prioladder/${1}setup" "exit $rc"
}
! ladder ladder || noskip ''
# Priorities not in wait-list order, a shorter burst.
! ladder shuffled -P 50,5,70,15,45 --hog 500ms || noskip shuffled-
warp_guard vtime/prio-warp-guard
finish

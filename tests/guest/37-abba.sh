#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A true ABBA deadlock between two lab mutexes (abba): both tasks sleep in
# D for good, a spinner on every CPU keeps running meanwhile (no lockup,
# no find_proxy_task() walking the blocked_on cycle), SIGKILL ends both
# and frees the mutexes.  The runner's console scan fails the boot on the
# WARN that the cycle used to raise (PROXY_CHAIN_MAX).  Where the kernel
# has the hung-task detector (debug), its timeout is 2 s for the run and
# one locker waits uninterruptibly (abba --uninterruptible): the detector
# must report that one, as without proxy execution (a blocked_on cycle
# still picked and switched would hide it), and not the killable one (it
# leaves killable waits alone).  The runner's console scan accepts that
# report between the markers written to /dev/kmsg.  Proxy on, lean and
# debug.
#
# Usage: sh 37-abba.sh   (in the guest)
# pxtest-boot: lean
# pxtest-boot: debug
# pxtest-cpus: 4
# pxtest-timeout: 60
set -u
. ./lib/pxtest.sh
if ! command -v abba > /dev/null; then
	notok abba/run "abba not in the image"
	finish
fi
HT=/proc/sys/kernel/hung_task_timeout_secs
if [ ! -w $HT ]; then
	abba
	rc=$?
	skip abba/hung-task-report "no hung-task detector here (CONFIG_DETECT_HUNG_TASK)"
else
	old_to=$(cat $HT) old_warn=$(cat /proc/sys/kernel/hung_task_warnings)
	echo 10 > /proc/sys/kernel/hung_task_warnings
	echo "pxtest: expect hung_task begin" > /dev/kmsg
	echo 2 > $HT
	abba --uninterruptible --hold 6s
	rc=$?
	echo 0 > $HT
	sleep 0.5
	echo "pxtest: expect hung_task end" > /dev/kmsg
	echo "$old_to" > $HT
	echo "$old_warn" > /proc/sys/kernel/hung_task_warnings
	# "INFO: task abba:PID blocked for more than 2 seconds": the
	# uninterruptible locker, not the killable one.
	n=$(dmesg | sed -n 's/.*INFO: task abba:\([0-9]*\) blocked for more than 2 seconds.*/\1/p' | sort -u | wc -l)
	check abba/hung-task-report "$n lockers reported by the hung-task detector (want 1, the uninterruptible one)" [ "$n" = 1 ]
fi
[ $rc -le 1 ] || notok abba/setup "exit $rc"
finish

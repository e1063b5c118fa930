#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# AA self-deadlocks: a thread pinned to CPU 1 takes a mutex it holds, and
# another an rw_semaphore it holds for writing (test_proxy_exec's aa_mutex
# and aa_rwsem), beside a CFS spinner on that CPU.  A task waiting on a
# lock it owns is a blocked_on cycle of length one: blocked for real, as
# without proxy execution.  Wanted: the spinner keeps the CPU (>= 80% of
# it over 2 s; a donor picked again and again, running idle in between,
# leaves it next to nothing), no WARN, each thread in D, and where the
# kernel has the hung-task detector, a report of each (its timeout is 2 s
# for the run; the runner's console scan accepts reports between the
# markers written to /dev/kmsg).  The threads stay blocked for good, so
# this script has a boot of its own (3 vCPUs).  Not under lockdep, which
# reports the recursion itself (the module refuses).
#
# Usage: sh 43-proxy-aa.sh   (in the guest)
# pxtest-boot: lean
# pxtest-boot: kasan-nolockdep
# pxtest-cpus: 3
# pxtest-timeout: 90
set -u
. ./lib/pxtest.sh
T=$(mktemp -d)
D=/sys/kernel/debug/test_proxy_exec
HT=/proc/sys/kernel/hung_task_timeout_secs

if ! modprobe test_proxy_exec cpu=1 2> "$T/modprobe" || [ ! -w $D/run ]; then
	notok aa/module "modprobe test_proxy_exec: $(tail -1 "$T/modprobe")"
	finish
fi

# cputicks PID: its user + system time, in clock ticks.
cputicks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

taskset 2 sh -c 'while :; do :; done' &
spin=$!
ht=''
if [ -w $HT ]; then
	ht=1
	echo 10 > /proc/sys/kernel/hung_task_warnings
	echo "pxtest: expect hung_task begin" > /dev/kmsg
	echo 2 > $HT
fi
w0=$(cat /sys/kernel/warn_count)
for c in aa_mutex aa_rwsem; do
	name=aa/$(echo $c | sed 's/^aa_//')
	if ! echo $c > $D/run 2> "$T/$c.err"; then
		notok "$name-spinner-runs" "the case failed: $(cat "$T/$c.err") $(cat $D/result)"
		continue
	fi
	pid=$(sed -n 's/.* pid=\([0-9]*\).*/\1/p' $D/result)
	echo "# $c: $(cat $D/result)"
	sleep 1
	t0=$(cputicks $spin) s0=$(awk '{ print $1 }' /proc/uptime)
	sleep 2
	t1=$(cputicks $spin) s1=$(awk '{ print $1 }' /proc/uptime)
	share=$(awk -v a="$t0" -v b="$t1" -v s="$s0" -v e="$s1" 'BEGIN { printf "%d", (b - a) / (e - s) }')
	check "$name-spinner-runs" "the spinner on the deadlocked thread's CPU got ${share}% of it over $s0..$s1 s (want >= 80)" \
		[ "$share" -ge 80 ]
	check "$name-blocked" "thread $pid in state '$(task_state "$pid")' (want D)" [ "$(task_state "$pid")" = D ]
	eval "pid_$c=$pid"
done
if [ -n "$ht" ]; then
	sleep 5
	echo 0 > $HT
	sleep 0.5
	echo "pxtest: expect hung_task end" > /dev/kmsg
	for c in aa_mutex aa_rwsem; do
		eval "pid=\${pid_$c:-none}"
		n=$(dmesg | grep -c "INFO: task pxt-$c:$pid blocked for more than")
		check "aa/$(echo $c | sed 's/^aa_//')-hung-task-report" \
			"$n hung-task reports of pxt-$c:$pid (want >= 1)" [ "$n" -ge 1 ]
	done
else
	skip aa/mutex-hung-task-report "no hung-task detector here (CONFIG_DETECT_HUNG_TASK)"
	skip aa/rwsem-hung-task-report "no hung-task detector here (CONFIG_DETECT_HUNG_TASK)"
fi
kill $spin
check aa/no-warn "$(($(cat /sys/kernel/warn_count) - w0)) WARNs: $(dmesg | grep -A3 WARNING | head -4)" \
	[ "$(cat /sys/kernel/warn_count)" = "$w0" ]
finish

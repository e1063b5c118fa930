#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A blocked mutex waiter woken for no reason -- thousands of stray
# wakeups from another CPU while its owner runs on its scheduling context
# -- goes back to D after each round and acquires normally once the owner
# unlocks (spurwake).  A waiter left TASK_RUNNING but still blocked stays
# R, is only ever used as a donor and is never woken again.  With proxy
# execution on and off, and on the debug kernel, whose find_proxy_task()
# warns about a blocked task in TASK_RUNNING (the runner scans the console);
# also under preempt=none and preempt=voluntary (PREEMPT_DYNAMIC), where
# the boot must report the model it was asked for.
#
# Usage: sh 33-spurious-wake.sh   (in the guest)
# pxtest-boot: lean
# pxtest-boot: lean proxy_exec=disable +parallel
# pxtest-boot: lean preempt=none +parallel
# pxtest-boot: lean preempt=voluntary +parallel
# pxtest-boot: debug
# pxtest-cpus: 4
# pxtest-timeout: 240
set -u
. ./lib/pxtest.sh
T=${TMPDIR-/tmp}/spurwake.$$
mkdir -p "$T"
trap 'rm -rf "$T"' 0

want=$(sed -n 's/.*preempt=\([a-z]*\).*/\1/p' /proc/cmdline)
if [ -n "$want" ]; then
	got=$(dmesg | sed -n 's/.*Dynamic Preempt: \([a-z]*\).*/\1/p' | tail -1)
	check spurwake/preempt-model "asked for preempt=$want, dmesg says '$got'" [ "$got" = "$want" ]
fi
if ! command -v spurwake > /dev/null; then
	notok spurwake/run "spurwake not in the image"
	finish
fi
# Every wakeup of a blocked waiter must mark it waking; what does not is
# caught under the rq lock by find_proxy_task() and reported as
# sched_proxy_abort reason=running_unmarked (0043): counted over both
# runs, it must stay 0.  (Before 0043 the catch-all was silent, so a path
# that stopped marking passed this test.)
TR=/sys/kernel/tracing
ev=$TR/events/sched_proxy/sched_proxy_abort
traced=''
# The reason's value, for a filter: only those events are kept, however
# many other aborts the run makes.
rv=$(sed -n 's/.*{ *\([0-9][0-9]*\), *"running_unmarked" *}.*/\1/p' "$ev/format" 2>/dev/null)
if ! grep -qw 'proxy_exec=disable' /proc/cmdline && [ -w "$ev/enable" ] && [ -n "$rv" ]; then
	echo 0 > $TR/tracing_on; echo > $TR/trace
	echo "reason == $rv" > "$ev/filter"
	echo 1 > "$ev/enable"; echo 1 > $TR/tracing_on
	traced=1
fi
# SCHED_FIFO waiter over a CFS owner on CPU 1, then an RT-over-RT-free
# variant on CPU 2 with more wakeups a round.
for args in "-c 1" "-c 2 -p 50 -n 6000 -r 2"; do
	spurwake $args > "$T/out" 2>&1
	rc=$?
	sed "s|^\(not \)\{0,1\}ok spurwake/|&$(echo "$args" | tr -d ' -')-|" "$T/out"
	[ $rc -le 1 ] || notok "spurwake/$(echo "$args" | tr -d ' -')-setup" "exit $rc: $(tail -c 300 "$T/out")"
done
if [ -n "$traced" ]; then
	echo 0 > $TR/tracing_on; echo 0 > "$ev/enable"; echo 0 > "$ev/filter"
	n=$(grep -c 'reason=running_unmarked' $TR/trace || :)
	check spurwake/all-marked "$n times find_proxy_task() found a waiter TASK_RUNNING without the waking mark (reason=running_unmarked): $(grep -m1 running_unmarked $TR/trace)" \
		[ "$n" = 0 ]
elif grep -qw 'proxy_exec=disable' /proc/cmdline; then
	skip spurwake/all-marked "proxy execution off: no chain walk"
else
	notok spurwake/all-marked "no sched_proxy_abort event with reason running_unmarked in this kernel"
fi
finish

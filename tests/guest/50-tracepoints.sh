#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# sched_proxy trace events, recorded with trace-cmd around lab scenarios of
# known shape: the events exist; with proxy on, a depth-3 chain is resolved
# at depth 3, a cross-CPU owner makes the donor migrate from the waiter's CPU
# to the owner's and return, a donor is parked on a sleeping owner and
# activated when that owner wakes, a proxying owner hands
# the mutex to its donor, and context-pair switches are reported; with
# proxy_exec=disable the events exist and never fire.
#
# Usage: sh 50-tracepoints.sh   (in the guest)
# pxtest-boot: lean
# pxtest-boot: lean proxy_exec=enable,return=ttwu
# pxtest-boot: lean proxy_exec=disable +parallel
# pxtest-cpus: 4
# pxtest-timeout: 300
set -u
. ./lib/pxtest.sh
T=${TMPDIR-/tmp}/tp.$$
mkdir -p "$T"
trap 'rm -rf "$T"' 0
EV=/sys/kernel/tracing/events/sched_proxy

proxy=on
grep -qw 'proxy_exec=disable' /proc/cmdline && proxy=off

missing=''
for e in pick abort switch handoff migrate return enqueue_sleeping activate; do
	[ -d "$EV/sched_proxy_$e" ] || missing="$missing $e"
done
[ -z "$missing" ] && ok tp/events-exist || notok tp/events-exist "missing:$missing"
grep -q 'reason=%s' "$EV/sched_proxy_abort/format" &&
	grep -q 'owner_cpu' "$EV/sched_proxy_abort/format" && ok tp/abort-format-symbolic ||
	notok tp/abort-format-symbolic "reason is not printed symbolically"

# rec NAME inversion-args...: record the scenario, keep the text report
# ($rec_extra: more trace-cmd event options).
rec_extra=''
rec() {
	name=$1; shift
	# shellcheck disable=SC2086 # options, one word each
	px_record "$T/$name" -e sched_proxy -e sched:sched_switch $rec_extra inversion "$@" -q
	[ "$px_rc" = 0 ] || { notok "tp/$name-record" "$(tail -c 300 "$T/$name.out")"; return 1; }
	if [ "$px_empty" = 1 ] && ! grep -qw 'proxy_exec=disable' /proc/cmdline; then
		notok "tp/$name-record" "empty trace: no sched_proxy event with proxy execution on"
		return 1
	fi
	echo "# $name: $(grep -c 'sched_proxy_' "$T/$name.txt") sched_proxy events"
}
count() { grep "$1" "$T/$2.txt" | grep -c "${3:-.}"; }

# Five iterations each; two with proxy off, where only silence is checked.
n=5
[ $proxy = on ] || n=2
rec chain chain -D 3 -b 3000 -n $n
# xcpu pinned: the waiter may run on CPU 0 only, so its donation must go
# to CPU 1 and come back.  And as users run it, unpinned (allowed on CPUs
# 0 and 1): every iteration must still begin cross-CPU.  (They did not
# while inversion's FIFO-90 referee checked the run from CPU 0 and the
# waiter went home before its last sleep: preempted or woken while CPU 0
# was busy, it was on CPU 1 when it blocked; a quiet run's 5 iterations
# all began so, with no migration.)
rec xcpu xcpu -c 0,1 --pinned -b 3000 -n $n
rec xcpu-free xcpu -c 0,1 -b 3000 -n $n
# The lock events only where a check reads them (woken-donor-does-not-spin).
rec_extra='-e lock:contention_begin -e lock:contention_end'
rec sleep sleep-owner -s 3000 -b 200 -n $n
rec_extra=''
rec rt rt -b 3000 -n $n

if [ $proxy = off ]; then
	n=$(cat "$T"/*.txt | grep -c 'sched_proxy_')
	[ "$n" = 0 ] && ok tp/disabled-never-fire || notok tp/disabled-never-fire "$n events with proxy_exec=disable"
	finish
fi

maxdepth=$(grep 'sched_proxy_pick:' "$T/chain.txt" | sed -n 's/.*depth=\([0-9]*\).*/\1/p' | sort -n | tail -1)
[ "${maxdepth:-0}" = 3 ] && ok tp/chain-depth-3 ||
	notok tp/chain-depth-3 "deepest pick depth ${maxdepth:-none}, want 3"
[ "$(count 'sched_proxy_pick:' chain)" -gt 0 ] && ok tp/pick-fires || notok tp/pick-fires "no pick in chain run"
# The boot's return strategy (proxy_exec=enable,return=ttwu or the default).
strategy=schedule
grep -q 'return=ttwu' /proc/cmdline && strategy=ttwu
xbad=0
[ "$(count 'sched_proxy_migrate:' xcpu 'src_cpu=0 dst_cpu=1')" -gt 0 ] && ok tp/xcpu-migrate-0-to-1 || {
	notok tp/xcpu-migrate-0-to-1 "no migrate src_cpu=0 dst_cpu=1 in the cross-CPU run"; xbad=1; }
[ "$(count 'sched_proxy_return:' xcpu "dst_cpu=0 strategy=$strategy")" -gt 0 ] && ok tp/xcpu-return || {
	notok tp/xcpu-return "no return to CPU 0 (strategy=$strategy) in the cross-CPU run"; xbad=1; }
# Unpinned: one migration from CPU 0 to 1 per iteration at least.
m=$(count 'sched_proxy_migrate:' xcpu-free 'src_cpu=0 dst_cpu=1')
[ "$m" -ge "$n" ] && ok tp/xcpu-unpinned-migrates-each-iteration || {
	notok tp/xcpu-unpinned-migrates-each-iteration "$m migrations from CPU 0 to 1 in $n iterations"
	xbad=1; }
# And the direct claim: the waiter (SCHED_FIFO 80, prio 19) blocks on its
# lock on CPU 0, its home, in every iteration.  A migration count alone
# could be met by one iteration migrating twice.
blocks=$(grep 'sched_switch:.* prev_prio=19 prev_state=D ' "$T/xcpu-free.txt" |
	sed -n 's/^[^[]*\[\([0-9]*\)\].*/\1/p')
b_all=$(printf '%s\n' "$blocks" | grep -c .)
b_home=$(printf '%s\n' "$blocks" | grep -c '^0*0$')
[ "$b_all" -ge "$n" ] && [ "$b_home" = "$b_all" ] && ok tp/xcpu-unpinned-blocks-on-cpu0 || {
	notok tp/xcpu-unpinned-blocks-on-cpu0 "$b_home of the waiter's $b_all blocking switches on CPU 0 in $n iterations"
	xbad=1; }
# What the runs did instead, and their traces in the boot's results folder.
if [ $xbad = 1 ]; then
	for x in xcpu xcpu-free; do
		echo "# $x events per CPU: $(sed -n 's/.*\(\[[0-9]*\]\).* \(sched_proxy_[a-z_]*\):.*/\1 \2/p' "$T/$x.txt" |
			sort | uniq -c | tr -s ' ' | tr '\n' ';')"
		[ -d "${PX_OUT:-}" ] && cp "$T/$x.txt" "$PX_OUT/50-tracepoints-$x.txt" &&
			echo "# kept the $x trace as 50-tracepoints-$x.txt in the results folder"
	done
fi
# Every donor parked on a sleeping owner is woken by that owner's wakeup:
# each enqueue_sleeping (donor, owner) is followed by an activate of the
# same pair (the owner wakes before it can unlock).
parked=$(count 'sched_proxy_enqueue_sleeping:' sleep)
unmatched=$(grep -E 'sched_proxy_(enqueue_sleeping|activate):' "$T/sleep.txt" | awk '
	{ d = o = ""; for (i = 1; i <= NF; i++) { if ($i ~ /^donor_pid=/) d = substr($i, 11); if ($i ~ /^owner_pid=/) o = substr($i, 11) } }
	/sched_proxy_enqueue_sleeping:/ { open[d " " o]++ }
	/sched_proxy_activate:/ { if (open[d " " o] > 0) open[d " " o]-- }
	END { n = 0; for (k in open) n += open[k]; print n }')
[ "$parked" -ge 5 ] && ok tp/sleeping-owner-parks ||
	notok tp/sleeping-owner-parks "$parked enqueue_sleeping events in 5 sleeping-owner iterations"
[ "$parked" -gt 0 ] && [ "$unmatched" = 0 ] && ok tp/sleeping-owner-activates ||
	notok tp/sleeping-owner-activates "$unmatched of $parked parked donors never activated by their owner"
# A donor woken by its owner's wakeup is to lend the owner its context
# again: between that activation and its own contention_end (it acquires)
# it blocks, it does not spin as the mutex's first waiter (contention_begin
# with SPIN).  Before the fix every one of them spun.
spun=$(grep -E 'sched_proxy_activate:|contention_(begin|end):' "$T/sleep.txt" | awk '
	/sched_proxy_activate:/ { for (i = 1; i <= NF; i++) if ($i ~ /^donor_pid=/) w[substr($i, 11)] = 1; next }
	{ n = split($1, c, "-"); pid = c[n] }
	/contention_end:/ { if (pid in w) { seen++; delete w[pid] } next }
	/contention_begin:/ && /SPIN/ { if (pid in w) { s++; seen++; delete w[pid] } }
	END { print s + 0, seen + 0 }')
set -- $spun
if [ "$2" -lt 5 ]; then
	notok tp/woken-donor-does-not-spin "only $2 activated donors seen to acquire (want >= 5)"
else
	check tp/woken-donor-does-not-spin "$1 of $2 donors woken by their owner spun on it" [ "$1" = 0 ]
fi
[ "$(count 'sched_proxy_handoff:' rt 'kind=donor')" -gt 0 ] && ok tp/handoff-to-donor ||
	notok tp/handoff-to-donor "no handoff kind=donor in the rt run: $(grep -m2 sched_proxy_handoff "$T/rt.txt")"
# Every handoff names a real task, every switch pairs a proxy with a donor.
bad=$(grep 'sched_proxy_handoff:' "$T"/*.txt | grep -c 'to_pid=0 \|to_pid=-')
[ "$bad" = 0 ] && ok tp/handoff-names-task || notok tp/handoff-names-task "$bad handoffs without a task"
split=$(grep 'sched_proxy_switch:' "$T/rt.txt" | awk '{ n = d = ""; for (i = 1; i <= NF; i++) { if ($i ~ /^next_pid=/) n = substr($i, 10); if ($i ~ /^next_donor_pid=/) d = substr($i, 16) } if (n != d) c++ } END { print c + 0 }')
[ "$split" -gt 0 ] && ok tp/switch-split-pairs || notok tp/switch-split-pairs "no switch with next != donor"
finish

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Postmortem: `inversion --break` stops the trace at the first slow acquire
# and pxpostmortem tells that wait's story.  The scenario is sleep-owner
# with the owner sleeping 3 ms (then burning 0.2 ms) while it holds the
# mutex, and --break 2000: every wait is over 3 ms whatever proxy execution
# does with a sleeping owner, so the break trips on the first acquire.
# Checks: exit status 4 and the break in the result file; the marker is in
# the trace and tracing stopped there; the story names the waiter, the mutex
# (index from the result file, address from the waiter's own events) and
# the owner pid the run used, its time split adds up to the kernel's
# wait_ns, the trace's blocked time agrees with it, and the owner's 3 ms
# sleep shows as "owner sleeping".  pxpostmortem reads the trace.dat (the
# report text is only for the checks' greps); a recording without
# sched:sched_switch and the others is refused, naming them and the record
# command.  With proxy_exec=disable the break trips too and pxpostmortem
# refuses the trace (no sched_proxy events).
#
# Usage: sh 70-postmortem.sh   (in the guest)
# pxtest-boot: lean
# pxtest-boot: lean proxy_exec=disable +parallel
# pxtest-cpus: 4
# pxtest-timeout: 180
set -u
. ./lib/pxtest.sh
T=${TMPDIR-/tmp}/pm.$$
mkdir -p "$T"
trap 'rm -rf "$T"' 0
EVENTS='-e sched_proxy -e sched:sched_switch -e sched:sched_wakeup -e sched:sched_migrate_task'

# jkey KEY: a jq expression (for jvars) for the first KEY anywhere in the
# object, as the result file and the story nest theirs; jkey0 ARRAY: the
# first element of the first ARRAY, its "pid" when it is an object.
jkey() { echo "first(.. | objects | select(has(\"$1\")) | .$1)"; }
jkey0() { echo "first(.. | objects | select(has(\"$1\")) | .$1[0] | if type == \"object\" then .pid else . end)"; }

# rec NAME inversion-args...: record with the break; $T/NAME.rc is
# inversion's own exit status (trace-cmd record does not pass it on).
rec() {
	name=$1; shift
	# shellcheck disable=SC2086 # $EVENTS is a list
	px_record "$T/$name" -b 8192 $EVENTS \
		sh -c 'inversion "$@"; echo $? > '"$T/$name.rc" sh "$@" -q -o "$T/$name.json"
	cat "$T/$name.out"
	if [ "$px_empty" = 1 ] && ! grep -qw 'proxy_exec=disable' /proc/cmdline; then
		notok "pm/$name-trace" "empty trace: no sched_proxy event with proxy execution on"
	fi
	rc=$(cat "$T/$name.rc" 2> /dev/null || echo none)
	[ "$rc" = 4 ] && ok "pm/$name-break-exit" ||
		notok "pm/$name-break-exit" "inversion exit status $rc, want 4 (--break tripped)"
}

if grep -qw 'proxy_exec=disable' /proc/cmdline; then
	rec off rt -n 5 --break 20000
	pxpostmortem "$T/off.dat" > "$T/off.story" 2>&1
	rc=$?
	[ $rc = 1 ] && grep -q 'no sched_proxy events' "$T/off.story" && ok pm/off-no-story ||
		notok pm/off-no-story "exit $rc, want 1 and 'no sched_proxy events': $(head -c 300 "$T/off.story")"
	finish
fi

rec so sleep-owner -s 3000 -b 200 -n 20 --break 2000
J=$T/so.json R=$T/so.txt
jvars "$J" wpid="$(jkey waiter_pid)" opid="$(jkey0 holder_pids)" hpid="$(jkey0 hog_pids)" \
	bpid="$(jkey break_pid)" bidx="$(jkey break_mutex)" wait="$(jkey break_wait_ns)" \
	first="$(jkey first_mutex)" iters="$(jkey iterations_done)" tripped="$(jkey break_tripped)" \
	rok=.ok
echo "# waiter $wpid, owner $opid, hog $hpid; break pid $bpid mutex $bidx wait $wait ns after $iters iterations"
[ "$tripped" = true ] && [ "$bpid" = "$wpid" ] && [ "$bidx" = "$first" ] &&
	[ "${wait:-0}" -gt 2000000 ] && [ "$rok" = true ] && [ "${iters:-0}" -lt 20 ] &&
	ok pm/break-result || notok pm/break-result "result file: tripped $tripped, pid $bpid (waiter $wpid), mutex $bidx (first $first), wait $wait, ok $rok, iterations $iters"

# The marker, then (nearly) nothing: tracing was off right after it.
mline=$(grep -n "tracing_mark_write: inversion break: pid=$wpid mutex=$bidx wait_ns=$wait " "$R" | cut -d: -f1)
if [ -z "$mline" ]; then
	notok pm/marker "no break marker for pid $wpid in the trace: $(grep -m2 'inversion break' "$R")"
else
	ok pm/marker
	after=$(tail -n +$((mline + 1)) "$R" | grep -c ': [a-z_]*: ')
	mts=$(sed -n "${mline}s/.*] *\([0-9.]*\): .*/\1/p" "$R")
	lts=$(tail -1 "$R" | sed -n 's/.*] *\([0-9.]*\): .*/\1/p')
	echo "# $after events after the marker, last at ${lts}s, marker at ${mts}s"
	[ "$after" -le 20 ] && awk -v a="$lts" -v b="$mts" 'BEGIN { exit !(a - b < 0.005) }' &&
		ok pm/trace-stops-at-marker ||
		notok pm/trace-stops-at-marker "$after events after the marker, the last $lts s (marker $mts s)"
fi

S=$T/story.json D=$T/so.dat
pxpostmortem "$D" | sed 's/^/# /'
if ! pxpostmortem -j "$D" > "$S" 2> "$T/story.err"; then
	notok pm/story "pxpostmortem failed: $(cat "$T/story.err")"
	finish
fi
ok pm/story
jvars "$S" spid="$(jkey pid)" sowner="$(jkey owner)" smidx="$(jkey mutex_index)" \
	smutex="$(jkey mutex)" total="$(jkey total_ns)" blocked="$(jkey blocked_ns)" \
	sleep_ns="$(jkey owner_sleeping_ns)" pre="$(jkey owner_preempted_ns)" by="$(jkey0 preempted_by)"
[ "$spid" = "$wpid" ] && ok pm/story-waiter ||
	notok pm/story-waiter "story names pid $spid, the waiter was $wpid"
[ "$sowner" = "$opid" ] && ok pm/story-owner ||
	notok pm/story-owner "story names owner $sowner, the run's owner was $opid"
# The address: from the waiter's own depth-1 pick/abort or a handoff to it.
addr=$(grep -E "sched_proxy_(pick|abort): .* donor_pid=$wpid .*depth=1 |sched_proxy_handoff: .* to_pid=$wpid " "$R" |
	sed -n 's/.* lock=\([^ ]*\) .*/\1/p' | sort -u)
[ "$smidx" = "$bidx" ] && [ -n "$addr" ] && [ "$smutex" = "$addr" ] &&
	ok pm/story-mutex ||
	notok pm/story-mutex "story: mutex $smutex index $smidx; trace: $addr, index $bidx"
awk -v t="${total:-0}" -v w="$wait" -v b="${blocked:-0}" \
	'BEGIN { d = t - w; if (d < 0) d = -d; exit !(d <= w / 100 && b >= w / 2 && b <= w + 1000000) }' &&
	ok pm/story-sum || notok pm/story-sum "split total $total ns, blocked $blocked ns, wait_ns $wait"
[ "${sleep_ns:-0}" -ge 1500000 ] && ok pm/story-owner-sleeping ||
	notok pm/story-owner-sleeping "owner sleeping $sleep_ns ns, the owner slept 3 ms holding the mutex"
# A long preemption of the owner can only be the FIFO hog's.
if [ "${pre:-0}" -gt 10000000 ]; then
	[ "$by" = "$hpid" ] && ok pm/story-preempted-by ||
		notok pm/story-preempted-by "owner preempted $pre ns by pid $by, the hog is $hpid"
fi

# Recorded with -e sched_proxy alone: refused, with the record command.
trace-cmd record -q -o "$T/nosw.dat" -e sched_proxy \
	inversion sleep-owner -s 3000 -b 200 -n 3 -q > "$T/nosw.out" 2>&1
pxpostmortem "$T/nosw.dat" > "$T/nosw.story" 2>&1
rc=$?
want='recorded without sched:sched_switch, sched:sched_wakeup, sched:sched_migrate_task'
recipe='trace-cmd record -e sched_proxy -e sched:sched_switch -e sched:sched_wakeup -e sched:sched_migrate_task'
[ $rc = 1 ] && grep -q "$want" "$T/nosw.story" && grep -q "$recipe" "$T/nosw.story" &&
	ok pm/refuses-missing-events ||
	notok pm/refuses-missing-events "exit $rc, want 1 naming the events: $(head -c 300 "$T/nosw.story")"
finish

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# SIGKILL in the middle of proxy execution: a mid-chain owner and the
# waiter of a spread chain (donors migrated to the tail's CPU), the parked
# waiter of a sleeping owner, and the owner of a cross-CPU inversion while
# the waiter's donation runs it.  The scenario then fails (it lost a task)
# but every task of it must exit promptly, no lab mutex may stay held, and
# the next run must be clean; the runner's console scan catches any WARN.
# With proxy execution on: the paths under test are its own.  On the
# debug kernel only: nothing here is timed beyond generous limits, and
# what a kill mid-proxy can break (blocked_on left behind, a list or
# lock misused, a hung task) is what lockdep, DEBUG_MUTEXES, DEBUG_LIST
# and the hung-task detector report; the lean boot repeated every check.
#
# Usage: sh 38-kill.sh   (in the guest)
# pxtest-boot: debug
# pxtest-cpus: 4
# pxtest-timeout: 240
set -u
. ./lib/pxtest.sh
T=${TMPDIR-/tmp}/kill.$$
mkdir -p "$T"
trap 'rm -rf "$T"' 0
if [ ! -r $PX_LAB_STATE ]; then
	skip kill/all "no $PX_LAB_STATE"
	finish
fi

# kill_case NAME WHO SECONDS inversion-args...: kill WHO (holder:IDX or
# waiter) SECONDS after the run started iterating, then the run must end
# within 40 s, leaving nothing held.  A run that ended before its WHO was
# found is a failure with its own output (setting up 4 tasks on a debug
# kernel beside a loaded host can take longer than the SECONDS).
kill_case() {
	name=$1 who=$2 after=$3; shift 3
	before=$(lab_acquisitions)
	inversion "$@" -d 10s -q -t 20 > "$T/$name.out" 2>&1 &
	inv=$!
	wait_lab_iterating $inv "$before" && sleep "$after"
	i=0 pid=
	while [ -z "$pid" ] && [ $i -lt 50 ] && kill -0 $inv 2> /dev/null; do
		case $who in
		holder:*) pid=$(lab_holder "${who#holder:}") ;;
		waiter) pid=$(lab_waiter_of $inv) ;;
		esac
		[ "$pid" != 0 ] || pid=
		[ -n "$pid" ] || sleep 0.1
		i=$((i + 1))
	done
	if [ -z "$pid" ] || [ "$pid" = 0 ]; then
		if kill $inv 2> /dev/null; then
			wait $inv
			notok "kill/$name" "no $who found to kill in 50 looks"
		else
			wait $inv
			notok "kill/$name" "the run ended (status $?) before its $who was found"
		fi
		show_tail "$T/$name.out"
		return
	fi
	kill -9 "$pid"
	i=0
	while kill -0 $inv 2>/dev/null && [ $i -lt 400 ]; do sleep 0.1; i=$((i + 1)); done
	if kill -0 $inv 2>/dev/null; then
		kill -9 $inv
		notok "kill/$name" "the scenario did not end within 40 s of killing its $who"
		show_tail "$T/$name.out"
		return
	fi
	wait $inv
	echo "# kill/$name: the scenario ended $((i / 10)).$((i % 10)) s after the kill"
	sleep 0.5
	n=$(lab_held)
	[ "$n" = 0 ] && ok "kill/$name" ||
		notok "kill/$name" "$n lab mutexes still held after killing the $who: $(lab_held_list | tr '\n' ' ')"
}

kill_case chain-mid-owner holder:1 1 chain -D 3 -c 0-3 --spread -b 1000
kill_case chain-waiter waiter 1 chain -D 3 -c 0-3 --spread -b 100000
kill_case parked-waiter waiter 1 sleep-owner -c 0,2 -s 200000 -b 200
kill_case xcpu-owner holder:0 1 xcpu -c 0,1 -b 20000

# And everything works afterwards.
inversion chain -D 3 -c 0-3 --spread -b 1000 -n 5 -q -t 60 > "$T/after.out" 2>&1
rc=$?
[ $rc = 0 ] && grep -q 'consistency: .* -> OK$' "$T/after.out" && ok kill/clean-run-after ||
	notok kill/clean-run-after "exit $rc: $(tail -c 300 "$T/after.out")"
finish

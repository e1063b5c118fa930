#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Changing tasks while they are blocked, proxied, migrated or parked:
# taskchange changes the affinity (sched_setaffinity), the policy
# (SCHED_OTHER, BATCH, IDLE, FIFO, DEADLINE: sched_setattr), the nice value
# and the cgroup (into a group throttled by cpu.max) of every task of a
# running inversion, undoing each change right after -- waiters (donors)
# while they sleep on the lab mutex, owners while donors run them -- in a
# cross-CPU inversion (donor migration), a spread chain (migrated
# mid-chain donors) and a sleeping owner (parked donors).  Every run must
# still complete with consistent counts, every kind of change must have
# been applied and undone, enough of them to a task in D, no lab mutex may
# stay held, and the runner's console scan finds no WARN (the debug kernel
# checks the blocked_on invariants, lockdep and the DEADLINE bandwidth).
# On the debug kernel (return at schedule) and the return=ttwu boot (the
# other strategy moves a changed donor at its wakeup): no check here is
# timed, and a lean boot with the default strategy repeated the debug
# boot's checks without its detectors.
#
# Usage: sh 63-change-blocked.sh   (in the guest)
# pxtest-boot: debug
# pxtest-boot: lean proxy_exec=enable,return=ttwu
# pxtest-cpus: 4
# pxtest-timeout: 240
set -u
. ./lib/pxtest.sh
T=${TMPDIR-/tmp}/chg.$$
CG=/sys/fs/cgroup
mkdir -p "$T"
trap 'rm -rf "$T"; rmdir $CG/pxchg-throttled 2>/dev/null' 0

if [ ! -r $PX_LAB_STATE ]; then
	skip change/all "no $PX_LAB_STATE"
	finish
fi
# A throttled group: 5 ms per 100 ms.
thr=''
if mkdir -p $CG/pxchg-throttled 2>/dev/null && echo '5000 100000' > $CG/pxchg-throttled/cpu.max; then
	thr=pxchg-throttled
else
	echo "# no cpu.max here: cgroup moves left out"
fi

# run_case NAME inversion-args...: taskchange changes every task of the run
# for 3 s (the debug kernel 5 s) and on, if need be, until 10 of its
# changes hit a task in D and every kind was applied (taskchange -b, at
# most 10 times as long): how many hit in a fixed time was the host's
# speed as much as anything (lean, 3 s: 117-193; debug, 3 s: 6-18 beside
# two other guests), so the floor is a count of events, not a rate.
# Then the run is stopped (SIGINT: its children finish their iteration);
# its own 60 s are a limit for a hung run.
secs=3
[ ! -e /proc/lockdep ] || secs=5
run_case() {
	name=$1; shift
	before=$(lab_acquisitions)
	inversion "$@" -d 60s -q -t 90 -o "$T/$name.json" > "$T/$name.out" 2>&1 &
	inv=$!
	if ! wait_lab_iterating $inv "$before"; then
		wait $inv
		notok "change/$name-completed" "the run never started: $(tail -c 300 "$T/$name.out")"
		return
	fi
	t0=$(cut -d' ' -f1 /proc/uptime)
	# shellcheck disable=SC2086 # the pids, one argument each
	taskchange -b 10 -d ${secs}s -w $inv ${thr:+-g $thr} $(children_of $inv) > "$T/$name.chg" 2>&1
	crc=$?
	kill -INT $inv 2>/dev/null
	wait $inv
	rc=$?
	echo "# change/$name: stopped after $(awk -v t="$t0" '{ printf "%.1f", $1 - t }' /proc/uptime) s"
	sed "s/^/# change\/$name: /" "$T/$name.chg"
	echo "# change/$name: $(grep consistency "$T/$name.out")"
	if [ $rc = 0 ] && grep -q 'consistency: .* -> OK$' "$T/$name.out"; then
		ok "change/$name-completed"
	else
		notok "change/$name-completed" "exit $rc"
		show_tail "$T/$name.out"
	fi
	check "change/$name-undone" "taskchange exit $crc (a change not undone, or no task)" [ $crc = 0 ]
	# Enough of the changes hit a task blocked on the mutex (D) ...
	ind=$(sed -n 's/^total .* blocked=\([0-9]*\) .*/\1/p' "$T/$name.chg")
	check "change/$name-hit-blocked" "only ${ind:-no} changes hit a task in D (want 10)" \
		[ "${ind:-0}" -ge 10 ]
	# ... and every kind of change was applied at least once.
	never=$(awk '/^change / && $3 == "applied=0" { printf " %s", $2 }' "$T/$name.chg")
	kinds=$(grep -c '^change ' "$T/$name.chg")
	check "change/$name-every-kind-applied" "$kinds kinds, never applied:$never" \
		[ -z "$never" -a "$kinds" -ge 8 ]
	sleep 0.5
	held=$(lab_held)
	check "change/$name-nothing-held" "$held lab mutexes held after the run" [ "$held" = 0 ]
}

run_case xcpu xcpu -c 0,1 -b 2000
run_case chain chain -D 3 -c 0-3 --spread -b 1000
run_case sleep-owner sleep-owner -c 0,2 -b 200

# And a run untouched afterwards is clean.
inversion chain -D 3 -c 0-3 --spread -b 1000 -n 5 -q -t 60 > "$T/after.out" 2>&1
rc=$?
[ $rc = 0 ] && grep -q 'consistency: .* -> OK$' "$T/after.out" && ok change/clean-run-after ||
	notok change/clean-run-after "exit $rc: $(tail -c 300 "$T/after.out")"
finish

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# CPU hotplug while proxy execution moves donors and owners between CPUs:
# CPUs 1-3 (the owners' and the donors' CPUs) go offline and online in a
# loop while cross-CPU inversions and spread chains run, then locktorture
# runs with its own CPU on/off-lining.  Every inversion run completes all
# its iterations, every CPU comes back, locktorture succeeds, and the
# runner's console scan finds no WARN, lockdep report or stall.  With
# proxy execution on, on the debug kernel only (lockdep, DEBUG_LIST and
# the hung-task detector watching): a lean boot ran the same checks
# without them, for 30 s of make check.
#
# Usage: sh 36-hotplug.sh   (in the guest)
# pxtest-boot: debug
# pxtest-cpus: 4
# pxtest-timeout: 240
set -u
. ./lib/pxtest.sh
T=${TMPDIR-/tmp}/hotplug.$$
mkdir -p "$T"
trap 'rm -rf "$T"; for c in 1 2 3; do echo 1 > /sys/devices/system/cpu/cpu$c/online 2>/dev/null; done' 0

if [ ! -w /sys/devices/system/cpu/cpu1/online ]; then
	skip hotplug/cycle "CPU 1 cannot be taken offline here"
	finish
fi

# Each run starts with every CPU online (inversion checks its CPU list and
# pins its tasks as it starts them), then CPUs 1-3 go offline and online in
# turn while it runs (4 s).  The cycling starts once the lab's mutexes are
# being acquired, i.e. every task of the run is set up: a fixed 0.5 s was
# not always enough on a loaded debug guest ("owner 0: cannot pin to CPU
# 1: Invalid argument", the CPU already offline).
cycles=0 fails=0 unstarted=0
cycle_cpus() {
	for c in 1 2 3 1 2 3; do
		echo 0 > /sys/devices/system/cpu/cpu$c/online 2>/dev/null && cycles=$((cycles + 1))
		sleep 0.3
		echo 1 > /sys/devices/system/cpu/cpu$c/online 2>/dev/null
		sleep 0.2
	done
}
for sc in "xcpu -c 0,1 -b 2000" "chain -D 3 -c 0-3 --spread -b 1000" \
	"chain -D 2 -c 0-3 --spread --pinned -b 1000" "sleep-owner -c 0,2 -b 200"; do
	# shellcheck disable=SC2086 # $sc is a list of arguments
	before=$(lab_acquisitions)
	inversion $sc -d 4s -q -t 60 -o "$T/r.json" > "$T/r.out" 2>&1 &
	pid=$!
	if wait_lab_iterating $pid "$before"; then
		cycle_cpus
	else
		unstarted=$((unstarted + 1))
	fi
	wait $pid
	rc=$?
	cnt=$(jfield "$T/r.json" count latency)
	echo "# inversion $sc: exit $rc, ${cnt:-no} waits; $(grep consistency "$T/r.out")"
	if [ $rc != 0 ] || [ "${cnt:-0}" -lt 1 ] || ! grep -q 'consistency: .* -> OK$' "$T/r.out"; then
		fails=$((fails + 1))
		show_tail "$T/r.out"
	fi
done
echo "# $cycles CPU offline cycles during 4 inversion runs ($unstarted never started)"
check hotplug/inversions-complete "$fails of 4 inversion runs failed or were inconsistent" [ $fails = 0 ]
check hotplug/cpus-went-offline "only $cycles CPU offline cycles (want 24)" [ "$cycles" = 24 ]
online=$(cat /sys/devices/system/cpu/online)
check hotplug/all-cpus-back "online CPUs: $online" [ "$online" = 0-3 ]

# locktorture cycles CPUs itself, mutex_lock writers: after a 1-s holdoff,
# a random CPU goes off (or back on) every onoff_interval -- in seconds,
# not milliseconds: 300 here once meant a single hotplug in 11 s.
dmesg -c > /dev/null
if modprobe locktorture torture_type=mutex_lock nwriters_stress=6 \
	onoff_interval=1 onoff_holdoff=1 stat_interval=15 shutdown_secs=0; then
	# locktorture prints no hotplug counts: the kernel's own lines.  A run
	# with no CPU taken offline would test nothing here.  Each second a
	# random CPU goes off or comes back, so 2 offlines take 3-6 s as a
	# rule but more now and then (1 in 6 s once): at least 6 s, then
	# until the second offline, 20 s at most.
	secs=0
	while sleep 1; secs=$((secs + 1)); [ $secs -lt 20 ]; do
		[ $secs -lt 6 ] || [ "$(dmesg | grep -c 'CPU [0-9]* is now offline')" -lt 2 ] || break
	done
	rmmod locktorture
	dmesg > "$T/torture"
	offs=$(grep -c 'CPU [0-9]* is now offline' "$T/torture")
	echo "# locktorture: $(grep 'Writes:' "$T/torture" | tail -1); $offs CPUs taken offline in $secs s"
	if grep -q 'End of test: SUCCESS' "$T/torture" && ! grep -q '!!!' "$T/torture" &&
	   [ "$offs" -ge 2 ]; then
		ok hotplug/locktorture-onoff
	elif [ "$offs" -lt 2 ]; then
		notok hotplug/locktorture-onoff "only $offs CPUs taken offline by locktorture in $secs s (want 2 or more)"
	else
		notok hotplug/locktorture-onoff "$(grep -E 'End of test|!!!' "$T/torture" | tail -2)"
	fi
else
	notok hotplug/locktorture-onoff "modprobe locktorture failed"
fi
finish

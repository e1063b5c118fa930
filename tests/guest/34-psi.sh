#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Pressure accounting stays consistent when proxy execution blocks tasks
# that are not running (a donor deactivated or parked on a sleeping owner,
# a donor returned through a wakeup): after two rounds of the sleep-owner,
# cross-CPU and chain scenarios, an idle guest shows no CPU pressure and
# the kernel printed no "psi: inconsistent task state".  With proxy
# execution on, off, and on the lean kernel with return=ttwu (the
# preemption models are 33-spurious-wake's).
#
# Usage: sh 34-psi.sh   (in the guest)
# pxtest-boot: lean
# pxtest-boot: lean proxy_exec=disable +parallel
# pxtest-boot: lean proxy_exec=enable,return=ttwu
# pxtest-cpus: 4
# pxtest-timeout: 300
set -u
. ./lib/pxtest.sh
T=${TMPDIR-/tmp}/psi.$$
mkdir -p "$T"
trap 'rm -rf "$T"' 0

if [ ! -r /proc/pressure/cpu ]; then
	notok psi/available "no /proc/pressure/cpu: kernel without CONFIG_PSI"
	finish
fi
cpu_some_us() { sed -n 's/^some .*total=\([0-9]*\).*/\1/p' /proc/pressure/cpu; }

dmesg -c > /dev/null
fails=0
for round in 1 2; do
	inversion sleep-owner -c 0,1 -n 5 -q -t 60 -o "$T/s.json" > "$T/s.out" 2>&1 || fails=$((fails + 1))
	inversion xcpu -c 0,1 -b 2000 -n 5 -q -t 60 -o "$T/x.json" > "$T/x.out" 2>&1 || fails=$((fails + 1))
	inversion chain -D 3 -c 0-3 --spread -b 1000 -n 5 -q -t 60 -o "$T/c.json" > "$T/c.out" 2>&1 || fails=$((fails + 1))
done
check psi/workloads-complete "$fails of 6 inversion runs failed: $(tail -c 200 "$T/c.out")" [ $fails = 0 ]

# Let the scenarios' tasks exit and the averages move, then measure an
# idle stretch: a leaked TSK_RUNNING shows as pressure growing by about
# the stretch's length (seen: 15.0 s in 15 s) instead of ~0.
sleep 2
a=$(cpu_some_us)
sleep 5
b=$(cpu_some_us)
grow=$((b - a))
echo "# idle 5 s: CPU some total grew by $grow us; $(head -1 /proc/pressure/cpu)"
# 5 s idle: allow 0.25 s for the test's own shell and the guest's noise.
check psi/idle-no-cpu-pressure "CPU some total grew by $grow us in 5 idle s (want < 250000)" \
	[ "$grow" -lt 250000 ]
bad=$(dmesg | grep -c 'psi: ')
check psi/no-inconsistent-state "dmesg: $(dmesg | grep 'psi: ' | head -2)" [ "$bad" = 0 ]
finish

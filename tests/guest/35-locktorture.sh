#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# locktorture on mutex_lock for 60 s on 4 vCPUs: 8 writers (more than
# CPUs), RT boosting on (rt_boost=2: every lock type), no CPU hotplug.
# The final statistics line must report SUCCESS and no failure, with
# writes done -- with proxy execution on (lean), off (lean, the control),
# and on the debug kernel with each return strategy (lockdep, DEBUG_MUTEXES,
# hung-task detector: the runner checks the console).
#
# A fixed duration and no latency bound: these four boots run side by side
# with the soak (pxtest-parallel), each vCPU getting a share of the host's
# cores; overcommit is what a torture test wants.
#
# Usage: sh 35-locktorture.sh   (in the guest; TORTURE_SECS, default 60)
# pxtest-boot: lean
# pxtest-boot: lean proxy_exec=disable
# pxtest-boot: debug
# pxtest-boot: debug proxy_exec=enable,return=ttwu
# pxtest-cpus: 4
# pxtest-timeout: 300
# pxtest-parallel: yes
set -u
. ./lib/pxtest.sh
T=${TMPDIR-/tmp}/torture.$$
mkdir -p "$T"
trap 'rm -rf "$T"' 0
secs=${TORTURE_SECS:-60}

dmesg -c > /dev/null
if ! modprobe locktorture torture_type=mutex_lock nwriters_stress=8 rt_boost=2 \
	stat_interval=15 onoff_interval=0 shutdown_secs=0; then
	notok torture/mutex "modprobe locktorture failed"
	finish
fi
# Progress for the runner's stall detector (stat_interval prints to the
# console, not here).
t=0
while [ $t -lt "$secs" ]; do
	step=$((secs - t))
	[ $step -le 15 ] || step=15
	sleep $step
	t=$((t + step))
	echo "# ${t}s: $(dmesg | grep 'Writes:' | tail -1 | sed 's/^\[[^]]*\] *//')"
done
rmmod locktorture
dmesg > "$T/torture"
stats=$(grep 'Writes:' "$T/torture" | tail -1)
echo "# locktorture ${secs}s: $stats"
if grep -q 'End of test: SUCCESS' "$T/torture" && ! grep -q '!!!' "$T/torture"; then
	ok torture/mutex
else
	notok torture/mutex "$(grep -E 'End of test|!!!' "$T/torture" | tail -2)"
fi
total=$(echo "$stats" | sed -n 's/.*Total: *\([0-9]*\).*/\1/p')
fail=$(echo "$stats" | sed -n 's/.*Fail: *\([0-9]*\).*/\1/p')
if [ "${total:-0}" -gt 0 ] && [ "${fail:-1}" = 0 ]; then
	ok torture/mutex-progress
else
	notok torture/mutex-progress "writes ${total:-none}, failures ${fail:-none}: $stats"
fi
finish

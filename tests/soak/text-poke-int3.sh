#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# In the guest: fork on every CPU but one while that one enables and
# disables the sched_wakeup_new trace event over and over, each time
# patching the static call in wake_up_new_task() (text_poke_bp()).
# Under QEMU 7.2's multi-threaded TCG a vCPU sooner or later runs a stale
# translation holding text_poke_bp()'s int3 ("Oops: int3" at
# wake_up_new_task, lib/sh/console.sh: console_text_poke_int3); with one
# TCG thread it survives.  From the host:
#
#	guest/run.sh --cpus 4 --timeout 300 --append oops=panic -- \
#		sh /px/repo/tests/soak/text-poke-int3.sh 90
#
# Usage: sh text-poke-int3.sh [SECONDS]   (default 60)
set -eu
secs=${1:-60}
case $secs in *[!0-9]* | '') echo "usage: $0 [SECONDS]" >&2; exit 2 ;; esac
T=/sys/kernel/tracing
[ -d $T/events ] || mount -t tracefs nodev $T
ev=$T/events/sched/sched_wakeup_new/enable
[ -w $ev ] || { echo "$0: no $ev" >&2; exit 1; }
end=$(($(date +%s) + secs))
i=1
while [ $i -lt "$(nproc)" ]; do
	( while [ "$(date +%s)" -lt $end ]; do /bin/true; done ) &
	i=$((i + 1))
done
k=0
while [ "$(date +%s)" -lt $end ]; do
	echo 1 > $ev
	echo 0 > $ev
	k=$((k + 1))
done
wait
echo "text-poke-int3: $k enable/disable pairs in $secs s, no Oops"

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Donated time between cgroups, as cpu.stat and /proc/PID/sched report it
# (patch 0039).  The convention: usage_usec (and the user/system split of
# it) goes to the group of the task whose scheduling context ran (the
# donor), as without proxy execution; proxy_donated_usec counts the time
# other tasks ran on a group's contexts, proxy_received_usec the time a
# group's tasks ran on others', so usage - donated + received is the time
# a group's own tasks ran.
#
# A cross-cgroup inversion (inversion cfs: the owner in a cpu.weight-1
# group, the waiter and two spinners in another), both groups under one
# parent, pxacct/ (waiter side pxacct/w, owner side pxacct/o):
#  acct/waiter-donates   w: donated > 0, received 0, and usage >= donated
#                        (the donated time is inside the waiter group's
#                        usage: it is the donor's context that ran)
#  acct/owner-receives   o: received > 0, donated 0, usage < received (at
#                        weight 1 beside the spinners the owner runs mostly
#                        on the waiter's context, which its group's usage
#                        does not count; charged the other way, usage >=
#                        received)
#  acct/proc-sched       the owner's /proc/PID/sched proxy_received_ns
#                        between pxacct/o's proxy_received_usec read just
#                        before and just after it (x 1000; the owner is
#                        o's only task: the same deltas, so an order of
#                        reads, whatever the guest's speed)
#  acct/parent-balanced  after the run, the parent's donated == received,
#                        exactly: every donation was between two of its
#                        tasks, and both sides add the same deltas
# With proxy execution off (the control boot): every counter stays 0
# (acct/off-zero).
#
# Usage: sh 44-proxy-acct.sh   (in the guest)
# pxtest-boot: lean
# pxtest-boot: lean proxy_exec=disable +parallel
# pxtest-cpus: 4
# pxtest-timeout: 120
set -u
. ./lib/pxtest.sh
T=$(mktemp -d)
CG=/sys/fs/cgroup
P=$CG/pxacct

# stat GROUP KEY: KEY's value in GROUP's cpu.stat (nothing when missing).
stat() { sed -n "s/^$2 //p" "$CG/$1/cpu.stat" 2>/dev/null; }

echo +cpu > $CG/cgroup.subtree_control 2> /dev/null
mkdir -p $P/w && echo +cpu > $P/cgroup.subtree_control
if [ -z "$(stat pxacct proxy_donated_usec)" ]; then
	notok acct/cpu-stat "no proxy_donated_usec in $P/cpu.stat: $(tr '\n' ' ' < $P/cpu.stat)"
	finish
fi
# The inversion from pxacct/w; the owner moves itself to pxacct/o.
sh -c "$px_in_cgroup" $P/w inversion cfs -d 4s -c 1 --cgroup pxacct/o -q \
	-o "$T/inv.json" > "$T/inv.out" 2>&1 &
ipid=$!
# Snapshot near the end, while pxacct/o exists: the owner's own counter,
# then the groups'.
sleep 3
opid=$(head -1 $P/o/cgroup.procs 2> /dev/null)
# The owner's counter between two reads of its group's.
orecv_grp0=$(stat pxacct/o proxy_received_usec)
orecv_ns=$(sed -n 's/^proxy_received_ns *: *//p' /proc/"${opid:-0}"/sched 2> /dev/null)
orecv_grp=$(stat pxacct/o proxy_received_usec)
for g in w o; do
	for k in usage_usec proxy_donated_usec proxy_received_usec; do
		eval "${g}_${k%_usec}=\$(stat pxacct/$g $k)"
	done
done
rc=0
wait $ipid || rc=$?
echo "# inversion cfs exit $rc: $(tail -2 "$T/inv.out" | tr '\n' ' ')"
echo "# w: usage $w_usage donated $w_proxy_donated received $w_proxy_received;" \
	"o: usage $o_usage donated $o_proxy_donated received $o_proxy_received;" \
	"owner $opid proxy_received_ns ${orecv_ns:-?}"
pd=$(stat pxacct proxy_donated_usec) pr=$(stat pxacct proxy_received_usec)
echo "# pxacct after the run: donated $pd received $pr"
if [ "$rc" != 0 ] || [ -z "$o_usage" ] || [ -z "$opid" ]; then
	notok acct/run "inversion cfs did not run as set up (exit $rc, owner '$opid'): $(tail -3 "$T/inv.out" | tr '\n' ' ')"
	finish
fi
if grep -qw 'proxy_exec=disable' /proc/cmdline; then
	check acct/off-zero "proxy off, yet counters moved: w donated $w_proxy_donated, o received $o_proxy_received, parent $pd/$pr, owner ${orecv_ns:-?} ns" \
		[ "$w_proxy_donated$w_proxy_received$o_proxy_donated$o_proxy_received$pd$pr" = 000000 \
		  -a "${orecv_ns:-0}" = 0 ]
	finish
fi
check acct/waiter-donates "w: usage $w_usage, donated $w_proxy_donated, received $w_proxy_received (want donated > 0, received 0, usage >= donated)" \
	[ "$w_proxy_donated" -gt 0 -a "$w_proxy_received" = 0 -a "$w_usage" -ge "$w_proxy_donated" ]
check acct/owner-receives "o: usage $o_usage, donated $o_proxy_donated, received $o_proxy_received (want received > 0, donated 0, usage < received)" \
	[ "$o_proxy_received" -gt 0 -a "$o_proxy_donated" = 0 -a "$o_usage" -lt "$o_proxy_received" ]
if [ -z "$orecv_ns" ]; then
	notok acct/proc-sched "no proxy_received_ns in /proc/$opid/sched"
else
	# cpu.stat rounds the ns down to us: the task may be up to 999 ns above.
	lo=$((${orecv_grp0:-0} * 1000)) hi=$(((${orecv_grp:-0} + 1) * 1000))
	check acct/proc-sched "owner $opid: proxy_received_ns $orecv_ns, its group's received ${orecv_grp0:-?} us before, ${orecv_grp:-?} us after (want within [$lo, $hi) ns)" \
		[ "$orecv_ns" -ge "$lo" -a "$orecv_ns" -lt "$hi" ]
fi
check acct/parent-balanced "pxacct: donated $pd us, received $pr us after the run (want equal, > 0)" \
	[ "$pd" -gt 0 -a "$pd" = "$pr" ]
finish

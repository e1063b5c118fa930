#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Donor migration and both return-migration strategies.  The xcpu scenario:
# a SCHED_FIFO waiter starting on CPU 0 (allowed on 0 and 1) waits for an
# owner on CPU 1 starved by FIFO hogs there.  With proxy execution the
# waiter migrates to CPU 1 and the owner runs on its behalf:
# sched_proxy_migrate shows 0 -> 1 and sched_proxy_return shows the boot's
# strategy, waiter going back to CPU 0.  Every run completes, proxy off
# too.  How long the waits are is 46-vtime-migrate's, in virtual time.
#
# Usage: sh 32-proxy-migrate.sh   (in the guest)
# return=ttwu on a lean boot of its own (the bench's v4 mode); with lockdep in
# make soak-short, which runs both strategies on the debug kernel.
# pxtest-boot: lean
# pxtest-boot: lean proxy_exec=disable +parallel
# pxtest-boot: lean proxy_exec=enable,return=ttwu
# pxtest-cpus: 4
# pxtest-timeout: 300
set -u
. ./lib/pxtest.sh
T=${TMPDIR-/tmp}/mig.$$
mkdir -p "$T"
trap 'rm -rf "$T"' 0

strategy=schedule
grep -q 'return=ttwu' /proc/cmdline && strategy=ttwu
proxy=on
grep -qw 'proxy_exec=disable' /proc/cmdline && proxy=off
[ $proxy = on ] && want="enabled return=$strategy" || want="disabled return=schedule"
[ "$(px_proxy_setting)" = "$want" ] && ok mig/strategy-visible ||
	notok mig/strategy-visible "debugfs says '$(cat /sys/kernel/debug/sched/proxy_exec)', want '$want'"

px_record "$T/x" -e sched_proxy inversion xcpu -c 0,1 -b 2000 -n 10 -q -o "$T/x.json"
rc=$px_rc
[ $rc = 0 ] && ok mig/xcpu-runs || notok mig/xcpu-runs "exit $rc: $(tail -c 300 "$T/x.out")"
if [ $proxy = on ]; then
	[ "$px_empty" = 0 ] && ok mig/xcpu-trace ||
		notok mig/xcpu-trace "empty trace: no sched_proxy event with proxy execution on"
fi
p50=$(jfield "$T/x.json" p50 latency)
echo "# xcpu ($proxy, return=$strategy): p50 ${p50:-?} ns; $(grep -c sched_proxy_migrate: "$T/x.txt") migrations, $(grep -c sched_proxy_return: "$T/x.txt") returns"
# Chains of depth 1..4 with each owner on another CPU (owner k on CPU
# k+1, hogs with the last owner): the donor follows the chain from CPU to
# CPU, gathering the blocked owners on its way.  All iterations complete;
# how long a wait takes is 46-vtime-migrate's, in virtual time (here the
# p50 was bounded by half the hog cap, a line the host's load moved: one
# of four lean return=ttwu runs of depth 4 had 35 ms).
# "pinned": the waiter and every owner pinned to their own CPU -- blocked
# tasks only lend their scheduling context, so they still move (depth 2
# and 4; before that change the waiter waited ~100 ms there).
chain_case() {	# NAME DEPTH inversion-args...
	name=$1 d=$2; shift 2
	inversion chain -D $d -c 0-3 "$@" -b 1000 -n 5 -q -t 120 -o "$T/c$name$d.json" > "$T/c$name$d.out" 2>&1
	rc=$?
	c50=$(jfield "$T/c$name$d.json" p50 latency)
	cnt=$(jfield "$T/c$name$d.json" count latency)
	echo "# chain -D $d $name ($proxy, return=$strategy): p50 ${c50:-?} ns, $cnt waits"
	if [ $rc != 0 ] || [ "$cnt" != 5 ]; then
		# The whole output: on a timeout inversion prints its threads'
		# states and kernel stacks, the evidence of a stall.
		sed 's/^/# /' "$T/c$name$d.out"
		notok mig/chain-$name-$d-completes "exit $rc, ${cnt:-no} waits of 5: $(tail -c 200 "$T/c$name$d.out")"
		return
	fi
	ok mig/chain-$name-$d-completes
}
for d in 1 2 3 4; do
	chain_case spread $d --spread
done
for d in 2 4; do
	chain_case pinned $d --spread --pinned
done

# xcpu with the waiter pinned to CPU 0: it still lends its context on CPU 1
# (its wait: 46-vtime-migrate's xcpu-pinned).
inversion xcpu -c 0,1 --pinned -b 2000 -n 5 -q -t 120 -o "$T/xp.json" > "$T/xp.out" 2>&1
rc=$?
xp50=$(jfield "$T/xp.json" p50 latency)
echo "# xcpu --pinned ($proxy, return=$strategy): p50 ${xp50:-?} ns"
check mig/xcpu-pinned-runs "exit $rc: $(tail -c 300 "$T/xp.out")" [ $rc = 0 -a -n "$xp50" ]

[ $proxy = on ] || finish
# A donor whose chain ends at an owner being woken on another CPU (on that
# CPU's wake list, not queued yet) goes there with its chain, instead of
# retrying from here until the remote CPU gets to it (sched_proxy_abort
# reason=owner_waking, idle in between: before, depth-4 chains retried up
# to ~1900 times over 6 ms in one burst).  A burst: the same donor and
# owner, less than 1 ms apart.  A local waking owner costs one retry or
# two (idle runs the wake list).  Retries because another CPU holds the
# owner's pi_lock (reason owner_pi_locked: a wakeup waiting for the owner
# to leave its CPU, a preempted vCPU) last as long as that CPU is off:
# counted, not bounded.
px_record "$T/w" -e sched_proxy_abort -e sched_proxy_migrate inversion chain -D 4 -c 0-3 --spread -b 1000 -n 20 -q -t 120
burst=$(awk '/reason=owner_waking/ {
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^donor_pid=/) d = $i
			if ($i ~ /^owner_pid=/) o = $i
			if ($i ~ /^[0-9]+\.[0-9]+:$/) t = $i + 0
		}
		if (d o == k && t - last < 0.001) n++; else n = 1
		if (n > max) max = n
		k = d o; last = t
	} END { print max + 0 }' "$T/w.txt")
echo "# chain -D 4 (return=$strategy): $(grep -c reason=owner_waking "$T/w.txt") owner_waking retries, longest burst $burst; $(grep -c reason=owner_pi_locked "$T/w.txt") owner_pi_locked"
if [ $px_rc != 0 ] || [ "$px_empty" = 1 ]; then
	notok mig/waking-owner-retries-bounded "no trace: exit $px_rc, $(tail -c 200 "$T/w.out")"
else
	check mig/waking-owner-retries-bounded "a burst of $burst owner_waking retries (want <= 8)" [ "$burst" -le 8 ]
fi
grep 'sched_proxy_migrate:' "$T/x.txt" | grep -q 'src_cpu=0 dst_cpu=1' && ok mig/migrate-0-to-1 ||
	notok mig/migrate-0-to-1 "no migration from CPU 0 to 1: $(grep -m2 sched_proxy_migrate: "$T/x.txt")"
grep 'sched_proxy_return:' "$T/x.txt" | grep -q "dst_cpu=0 strategy=$strategy" && ok mig/return-$strategy ||
	notok mig/return-$strategy "no return to CPU 0 by $strategy: $(grep -m2 sched_proxy_return: "$T/x.txt")"
finish

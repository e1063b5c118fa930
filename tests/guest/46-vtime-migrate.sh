#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Cross-CPU inversions in virtual time, both return strategies: donor
# migration along chains whose owners sit on other CPUs, on an icount boot
# of 4 vCPUs (45-vtime-bounds has 2, for the one-CPU scenarios).
#   xcpu           a FIFO waiter on CPU 0 (allowed on 0 and 1), its owner
#                  on CPU 1 under FIFO hogs; --pinned: the waiter pinned
#                  to CPU 0, so that only its context goes (burn 2 ms)
#   chain-spread-D a chain of D owners, owner k on CPU k+1, the hogs with
#                  the last one (D = 1..4; burn 1 ms)
#   chain-pinned-D the same with every task pinned to its CPU (D = 2, 4)
#   woken-queued, return-busy, signal-queued  test_proxy_exec's cases: a
#                  FIFO waiter behind a 400-ms FIFO hog, other CPUs free,
#                  must run elsewhere within 100 ms of its wakeup (the
#                  proxy-off boot too: below)
# The lab runs are each a dividing line, not a latency: no wait
# hog-capped and the longest under half the hog cap, 50 ms.  A cross-CPU step costs a tick and more
# in virtual time (a wakeup of an idle vCPU waits for QEMU's round-robin),
# so the waits are a few ms, not the burn (seen 2026-12-06, 10 waits per
# depth, 3 rounds: p50 3-7 ms, the longest 16 ms).  With proxy execution
# off (the control boot) the waits are the hogs' bursts: at least half of
# them hog-capped (seen: 9-10 of 10, p50 101 ms).  These bounds were
# 32-proxy-migrate's p50 limits of 20 and 50 ms on multi-threaded TCG,
# where host load moved them; 32 keeps the migration and return events.
#
# Usage: sh 46-vtime-migrate.sh   (in an icount guest; tools in /usr/bin)
# pxtest-boot: lean +icount
# pxtest-boot: lean proxy_exec=enable,return=ttwu +icount
# pxtest-boot: lean proxy_exec=disable +icount
# pxtest-cpus: 4
# pxtest-timeout: 200
set -u
. ./lib/pxtest.sh
T=/tmp/vmig.$$
mkdir -p "$T"
trap 'rm -rf "$T"' 0

vtime_setup

# xmig NAME N ARGS...: lab NAME N ARGS..., judged.
xmig() {
	lab "$@" || return 0
	if [ $verdict = bounded ]; then
		bound "$1-bounded" "$capped of $2 waits hog-capped, longest $((max / 1000)) us (limits 0, 50 ms)" \
			"[ $capped = 0 ] && [ $max -lt 50000000 ]"
	else
		bound "$1-inversion-shown" "only $capped of $2 waits hog-capped with proxy off (want >= $(($2 / 2)))" \
			"[ $capped -ge $(($2 / 2)) ]"
	fi
}

xmig xcpu 10 xcpu -c 0,1 -b 2000
xmig xcpu-pinned 10 xcpu -c 0,1 --pinned -b 2000
for d in 1 2 3 4; do
	xmig chain-spread-$d 10 chain -D $d -c 0-3 --spread
done
for d in 2 4; do
	xmig chain-pinned-$d 10 chain -D $d -c 0-3 --spread --pinned
done

# woken-queued, return-busy, signal-queued: test_proxy_exec's cases of a
# FIFO waiter left on a CPU where a higher FIFO hog computes 400 ms, the
# other CPUs free (42-proxy-cases.sh describes them): woken by the
# unlock, by the owner's release while it was migrated there (return-
# busy), or by a signal (signal-queued, which must give up with -EINTR),
# it must run within 100 ms, a quarter of the hog's run, and not on the
# hog's CPU.  The proxy-off boot must pass the same bound: there the
# waiter sleeps as in mainline and is woken onto a free CPU, which shows
# that a wakeup of an idle vCPU is sound in this clock.  42 keeps the
# outcome (its return value, the CPU) on multi-threaded TCG, where a
# loaded host stretched the proxy-off boot's waits.
busy_case() {
	_v=$verdict
	verdict=bounded
	if modprobe test_proxy_exec && echo 400 > /sys/module/test_proxy_exec/parameters/window_ms &&
	   timed "$2" cases_run "$1"; then
		echo "# $2 ($proxy): $(tr '\n' ' ' < "$T/$2.out")"
		wu=$(outf "$2" wait_us) ret=$(outf "$2" lock_ret) wc=$(outf "$2" waiter_cpu) hc=$(outf "$2" hog_cpu)
		busy_want "$1"
		why=''
		[ $rc = 0 ] && [ -n "$wu" ] || why="exit $rc: $(tr '\n' ' ' < "$T/$2.out" | tail -c 300)"
		if completes "$2" "$why"; then
			bound "$2-bounded" "the FIFO waiter ran ${wu} us after the $what on CPU $wc (the hog's: $hc), its lock returned $ret (want < 100000 us, not the hog's CPU, $want)" \
				"[ $wu -lt 100000 ] && [ '$wc' != '$hc' ] && [ '$ret' = '$want' ]"
		fi
	fi
	echo 200 > /sys/module/test_proxy_exec/parameters/window_ms 2> /dev/null
	verdict=$_v
}
busy_case woken_queued woken-queued
busy_case return_busy return-busy
busy_case signal_queued signal-queued
modprobe -r test_proxy_exec 2> /dev/null

warp_guard vtime/migrate-warp-guard
finish

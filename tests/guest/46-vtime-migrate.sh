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
# The lab runs are each a dividing line, not a latency: 40 waits, none
# hog-capped (each shorter than the hogs' 100-ms burst) and nine in ten
# under a quarter of it, 25 ms.  A cross-CPU step costs a tick and more
# in virtual time, so the waits are a few ms, not the burn (p50 3-8 ms).
# The longest is not bounded tighter than the cap, for a written reason:
# the hog spins on the last owner's vCPU while the chain unwinds on the
# others, and QEMU runs the vCPUs of an icount boot in turn in one
# thread, switching on a timer deadline or its 100-ms kick; a wakeup of
# an idle vCPU waits for its turn.  Measured (2026-12-07, return=ttwu,
# chain -D 4 --spread, 600 waits and a trace of 200 more): p90 10.9-13.8 ms,
# 9 waits in 600 over 25 ms, the longest 47.8 ms; of 1539 cross-CPU
# wakeups of an idle vCPU, 1331 reached it within 1 ms, two after 20 and
# 50 ms, with each hop of the chain's unwinding prompt in the kernel (a
# 55-ms wait of depth 4 failed the old bound, the longest under half the
# cap).  With proxy execution off (the control boot, 10 waits) the
# waits are the hogs' bursts: at least half of them hog-capped (seen:
# 9-10 of 10, p50 101 ms), and VTIME_VERDICT=bounded fails there.  These
# bounds were 32-proxy-migrate's p50 limits of 20 and 50 ms on multi-
# threaded TCG, where host load moved them; 32 keeps the migration and
# return events.
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

# xmig NAME ARGS...: lab NAME $iters ARGS..., judged.
iters=40
[ $proxy = on ] || iters=10
xmig() {
	_name=$1
	shift
	set -- "$_name" $iters "$@"
	lab "$@" || return 0
	if [ $verdict = bounded ]; then
		bound "$1-bounded" "$capped of $2 waits hog-capped, p90 $((p90 / 1000)) us (limits 0, 25 ms; longest $((max / 1000)) us)" \
			"[ $capped = 0 ] && [ $p90 -lt 25000000 ]"
	else
		bound "$1-inversion-shown" "only $capped of $2 waits hog-capped with proxy off (want >= $(($2 / 2)))" \
			"[ $capped -ge $(($2 / 2)) ]"
	fi
}

xmig xcpu xcpu -c 0,1 -b 2000
xmig xcpu-pinned xcpu -c 0,1 --pinned -b 2000
for d in 1 2 3 4; do
	xmig chain-spread-$d chain -D $d -c 0-3 --spread
done
for d in 2 4; do
	xmig chain-pinned-$d chain -D $d -c 0-3 --spread --pinned
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

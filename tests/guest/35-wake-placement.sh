#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A FIFO waiter that proxy execution moved to its owner's CPU, woken (the
# owner, moved elsewhere, unlocks) while a FIFO-90 hog holds that CPU, must
# be placed like any woken task -- on one of its idle CPUs -- not left
# queued behind the hog (wakeplace: every iteration's unlock -> acquired
# under a quarter of the 300-ms burst).  Proxy off is the control: the
# waiter slept and select_task_rq() placed it; it must pass the same
# bound, which also shows that an idle vCPU's wakeup is sound in this
# clock.  On icount boots (46-vtime-migrate's three), under the warp
# guard: on multi-threaded TCG the proxy-off boot ran in the busiest
# phase, where the host's load, not the kernel, could decide the 75 ms.
#
# Usage: sh 35-wake-placement.sh   (in an icount guest)
# pxtest-boot: lean +icount
# pxtest-boot: lean proxy_exec=disable +icount
# pxtest-boot: lean proxy_exec=enable,return=ttwu +icount
# pxtest-cpus: 4
# pxtest-timeout: 120
set -u
. ./lib/pxtest.sh
T=/tmp/wakeplace.$$
mkdir -p "$T"
trap 'rm -rf "$T"' 0
if [ "${PX_CLOCK:-host}" != icount ]; then
	skip wakeplace/clock "not an icount boot (PX_CLOCK=${PX_CLOCK:-host}): the 75-ms bound holds in virtual time only"
	finish
fi
if ! command -v wakeplace > /dev/null; then
	notok wakeplace/run "wakeplace not in the image"
	finish
fi
# wakeplace prints its own checks: shown only when the guard passed.
warp_begin
wakeplace > "$T/wakeplace.out" 2>&1
rc=$?
if warp_end wakeplace; then
	cat "$T/wakeplace.out"
	[ $rc -le 1 ] || notok wakeplace/setup "exit $rc"
else
	sed 's/^/# /' "$T/wakeplace.out"
	skip wakeplace/completes "the warp guard rejected the run"
	skip wakeplace/woken-waiter-not-behind-hog "the warp guard rejected the run"
fi
warp_guard wakeplace/warp-guard
finish

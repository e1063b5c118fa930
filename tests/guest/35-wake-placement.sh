#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A FIFO waiter that proxy execution moved to its owner's CPU, woken (the
# owner, moved elsewhere, unlocks) while a FIFO-90 hog holds that CPU, must
# be placed like any woken task -- on one of its idle CPUs -- not left
# queued behind the hog (wakeplace: every iteration's unlock -> acquired
# under a quarter of the 300-ms burst).  Proxy off is the control: the
# waiter slept and select_task_rq() placed it.
#
# Usage: sh 35-wake-placement.sh   (in the guest)
# pxtest-boot: lean
# pxtest-boot: lean proxy_exec=disable +parallel
# pxtest-boot: lean proxy_exec=enable,return=ttwu
# pxtest-cpus: 4
# pxtest-timeout: 120
set -u
. ./lib/pxtest.sh
if ! command -v wakeplace > /dev/null; then
	notok wakeplace/run "wakeplace not in the image"
	finish
fi
wakeplace
rc=$?
[ $rc -le 1 ] || notok wakeplace/setup "exit $rc"
finish

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A true ABBA deadlock between two lab mutexes (abba): both tasks sleep in
# D for good, a spinner on every CPU keeps running meanwhile (no lockup,
# no find_proxy_task() walking the blocked_on cycle), SIGKILL ends both
# and frees the mutexes.  The runner's console scan fails the boot on the
# WARN that the cycle used to raise (PROXY_CHAIN_MAX).  The hung-task
# report itself needs 60 s of deadlock: that is the soak's.  Proxy on,
# lean and debug.
#
# Usage: sh 37-abba.sh   (in the guest)
# pxtest-boot: lean
# pxtest-boot: debug
# pxtest-cpus: 4
# pxtest-timeout: 60
set -u
. ./lib/pxtest.sh
if ! command -v abba > /dev/null; then
	notok abba/run "abba not in the image"
	finish
fi
abba
rc=$?
[ $rc -le 1 ] || notok abba/setup "exit $rc"
finish

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# An unknown proxy_exec= value is reported and leaves the default (enabled),
# and does not reach init's environment.  Nothing timed: it boots beside
# the soak (pxtest-parallel) instead of a boot of its own.
#
# Usage: sh 31-proxy-param.sh   (in the guest)
# pxtest-boot: lean proxy_exec=bogus
# pxtest-parallel: yes
set -u
. ./lib/pxtest.sh
if dmesg | grep -q 'sched: unknown proxy_exec=bogus (want enable|disable\[,return=schedule|ttwu\]), keeping enable'; then
	ok param/unknown-reported
else
	notok param/unknown-reported "$(dmesg | grep proxy_exec)"
fi
dmesg | grep -q 'sched: proxy execution enabled, return migration in __schedule' &&
	grep -qx 'enabled return=schedule' /sys/kernel/debug/sched/proxy_exec && ok param/default-kept ||
	notok param/default-kept "$(dmesg | grep 'proxy execution'; cat /sys/kernel/debug/sched/proxy_exec)"
tr '\0' '\n' < /proc/1/environ | grep -q '^proxy_exec=' &&
	notok param/not-in-init-env "proxy_exec= reached init's environment" ||
	ok param/not-in-init-env
finish

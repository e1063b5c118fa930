#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The boot switch's spellings: an unknown proxy_exec= value is reported and
# leaves the default (enabled); mainline's sched_proxy_exec=<bool> works
# as proxy_exec=enable|disable; neither reaches init's environment.
# Nothing timed: the boots run beside the soak (pxtest-parallel).
#
# Usage: sh 31-proxy-param.sh   (in the guest)
# pxtest-boot: lean proxy_exec=bogus
# pxtest-boot: lean sched_proxy_exec=off
# pxtest-parallel: yes
set -u
. ./lib/pxtest.sh
if grep -qw 'sched_proxy_exec=off' /proc/cmdline; then
	dmesg | grep -q 'sched: proxy execution disabled' &&
		[ "$(px_proxy_setting)" = 'disabled return=schedule' ] &&
		ok param/sched-proxy-exec-off ||
		notok param/sched-proxy-exec-off "$(dmesg | grep 'proxy exec'; cat /sys/kernel/debug/sched/proxy_exec)"
	tr '\0' '\n' < /proc/1/environ | grep -q '^sched_proxy_exec=' &&
		notok param/sched-not-in-init-env "sched_proxy_exec= reached init's environment" ||
		ok param/sched-not-in-init-env
	finish
fi
if dmesg | grep -q 'sched: unknown proxy_exec=bogus (want enable|disable\[,return=schedule|ttwu\].*), keeping enable'; then
	ok param/unknown-reported
else
	notok param/unknown-reported "$(dmesg | grep proxy_exec)"
fi
dmesg | grep -q 'sched: proxy execution enabled, return migration in __schedule' &&
	[ "$(px_proxy_setting)" = 'enabled return=schedule' ] && ok param/default-kept ||
	notok param/default-kept "$(dmesg | grep 'proxy execution'; cat /sys/kernel/debug/sched/proxy_exec)"
tr '\0' '\n' < /proc/1/environ | grep -q '^proxy_exec=' &&
	notok param/not-in-init-env "proxy_exec= reached init's environment" ||
	ok param/not-in-init-env
finish

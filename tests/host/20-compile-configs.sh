#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Host check: the series builds in the configurations no guest boots,
# with kernel/check-build.sh on the series tree build/linux:
# CONFIG_PROXY_EXEC=n (the lean config; the scheduler, locking and lab
# directories), and =y on a uniprocessor kernel (CONFIG_SMP=n) and
# without group scheduling (CONFIG_CGROUP_SCHED=n), both as a whole
# linked vmlinux on kernel/config/series.config (no drivers, no debug
# info), so that a symbol only one configuration lacks fails the link.
#
#   ok build/proxy-exec-n, ok build/smp-n, ok build/cgroup-sched-n
#   (or not ok with the first error)
#   skip build/... - no lean kernel built yet (its .config is the base)
# pxtest-timeout: 2400
# pxtest-host-last: yes
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
if [ ! -f "$top/build/obj-lean/.config" ] || [ ! -d "$top/build/linux/.git" ]; then
	echo "skip build/proxy-exec-n - no lean kernel built yet (make kernel)"
	echo "skip build/smp-n - no lean kernel built yet (make kernel)"
	echo "skip build/cgroup-sched-n - no lean kernel built yet (make kernel)"
	exit 0
fi
rc=0
for v in n up nocg; do
	case $v in
	n) name=proxy-exec-n cfg=lean set -- kernel/sched/ kernel/locking/ drivers/misc/proxylab.o ;;
	up) name=smp-n cfg=series set -- vmlinux ;;
	nocg) name=cgroup-sched-n cfg=series set -- vmlinux ;;
	esac
	log=$top/build/tests/compile-$v.log
	mkdir -p "$(dirname "$log")"
	if PX_DEV_TREE=$top/build/linux PX_CHECK_CONFIG=$cfg JOBS=$(nproc) \
		"$top/kernel/check-build.sh" $v "$@" > "$log" 2>&1; then
		echo "ok build/$name"
	else
		echo "not ok build/$name - $(grep -m1 -E 'error:|FAILED' "$log" || tail -1 "$log") (log: $log)"
		rc=1
	fi
done
exit $rc

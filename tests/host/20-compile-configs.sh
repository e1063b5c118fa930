#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Host check: the series' scheduler and locking code compiles in the two
# configurations no guest boots -- CONFIG_PROXY_EXEC=n, and =y on a
# uniprocessor kernel (CONFIG_SMP=n) -- with kernel/check-build.sh on the
# series tree build/linux (lean config otherwise).  Compile only: minutes.
#
#   ok build/proxy-exec-n, ok build/smp-n   (or not ok with the first error)
#   skip build/... - no lean kernel built yet (its .config is the base)
# pxtest-timeout: 1500
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
if [ ! -f "$top/build/obj-lean/.config" ] || [ ! -d "$top/build/linux/.git" ]; then
	echo "skip build/proxy-exec-n - no lean kernel built yet (make kernel)"
	echo "skip build/smp-n - no lean kernel built yet (make kernel)"
	exit 0
fi
rc=0
for v in n up; do
	case $v in n) name=proxy-exec-n ;; up) name=smp-n ;; esac
	log=$top/build/tests/compile-$v.log
	mkdir -p "$(dirname "$log")"
	if PX_DEV_TREE=$top/build/linux JOBS=$(nproc) "$top/kernel/check-build.sh" $v \
		kernel/sched/ kernel/locking/ drivers/misc/proxylab.o > "$log" 2>&1; then
		echo "ok build/$name"
	else
		echo "not ok build/$name - $(grep -m1 -E 'error:|FAILED' "$log" || tail -1 "$log") (log: $log)"
		rc=1
	fi
done
exit $rc

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs inside the guest (cwd = the host's tests/ folder), started by
# tests/run.sh through guest/run.sh: run each test script under its own
# timeout, leaving $PX_OUT/<script>.log and $PX_OUT/<script>.rc.
#
# With PX_CLOCK=icount (an icount boot, tests/run.sh's "+icount"), the
# scripts run from a copy of tests/lib and tests/guest in the guest's
# tmpfs and write their logs there, copied to $PX_OUT after each script:
# under -icount sleep=off a wait on the host (9p) moves guest time on,
# so nothing a script does while it runs may reach the host (the warp
# guard, tests/lib/pxtest.sh, checks it).
#
# Usage: sh lib/guest-driver.sh TIMEOUT:guest/SCRIPT.sh...
set -u
failed=0
logs=$PX_OUT
if [ "${PX_CLOCK:-host}" = icount ]; then
	logs=/tmp/pxtests-logs
	mkdir -p /tmp/pxtests "$logs"
	cp -r lib guest /tmp/pxtests/ || exit 1
	cd /tmp/pxtests || exit 1
fi
for a in "$@"; do
	to=${a%%:*} s=${a#*:}
	n=$(basename "$s" .sh)
	echo "$(cut -d' ' -f1 /proc/uptime) start $n (timeout ${to}s)"
	rc=0
	timeout -s KILL "$to" sh "$s" > "$logs/$n.log" 2>&1 < /dev/null || rc=$?
	[ "$logs" = "$PX_OUT" ] || cp "$logs/$n.log" "$PX_OUT/$n.log"
	echo "$rc" > "$PX_OUT/$n.rc"
	echo "$(cut -d' ' -f1 /proc/uptime) end $n: status $rc"
	[ "$rc" -eq 0 ] || failed=$((failed + 1))
done
exit "$failed"

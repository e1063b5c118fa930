#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs inside the guest (cwd = the host's tests/ folder), started by
# tests/run.sh through guest/run.sh: run each test script under its own
# timeout, leaving $PX_OUT/<script>.log and $PX_OUT/<script>.rc.
#
# Usage: sh lib/guest-driver.sh TIMEOUT:guest/SCRIPT.sh...
set -u
failed=0
for a in "$@"; do
	to=${a%%:*} s=${a#*:}
	n=$(basename "$s" .sh)
	echo "$(cut -d' ' -f1 /proc/uptime) start $n (timeout ${to}s)"
	rc=0
	timeout -s KILL "$to" sh "$s" > "$PX_OUT/$n.log" 2>&1 < /dev/null || rc=$?
	echo "$rc" > "$PX_OUT/$n.rc"
	echo "$(cut -d' ' -f1 /proc/uptime) end $n: status $rc"
	[ "$rc" -eq 0 ] || failed=$((failed + 1))
done
exit "$failed"

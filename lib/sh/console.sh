# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh disable=SC2154 # top is the caller's
# Kernel badness on a guest's console, as rcutorture's console-badness.sh:
# the lines that match tests/console-badness.txt and not
# tests/console-allow.txt (benign lines that look bad).  Sourced, never run;
# the caller sets top, the repository:
#
#	. "$top/lib/sh/console.sh"
#	console_patterns "$res"				# once per results folder
#	console_badness "$dir/console.log" "$res" > "$dir/badness"
#
# A test that provokes a hung-task report on purpose (37-abba) writes
# "pxtest: expect hung_task begin" and "... end" to /dev/kmsg around it:
# in between, that report's own lines are not badness (the test checks
# them); anything else still is.

# console_patterns DIR: the two pattern lists, comments and blank lines
# dropped, as DIR/badness-patterns and DIR/allow.
console_patterns() {
	sed -e '/^#/d' -e '/^[[:space:]]*$/d' "$top/tests/console-badness.txt" > "$1/badness-patterns" &&
		sed -e '/^#/d' -e '/^[[:space:]]*$/d' "$top/tests/console-allow.txt" > "$1/allow"
}

# console_badness CONSOLE DIR: CONSOLE's bad lines on stdout, with DIR's
# pattern lists (console_patterns); none is not an error.
console_badness() {
	awk '/pxtest: expect hung_task begin/ { w = 1; next } /pxtest: expect hung_task end/ { w = 0; next }
		w && /blocked for more than|hung_task_timeout_secs|Call Trace:/ { next } { print }' "$1" |
		grep -Ef "$2/badness-patterns" | grep -vEf "$2/allow" || true
}

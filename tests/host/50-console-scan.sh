#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Host check: lib/sh/console.sh, the console scan behind kernel-log-clean,
# the soak's findings and the bench's boots, on a made-up console log.
#
#   ok console-scan/warning            a WARNING and a BUG line are bad
#   ok console-scan/allow-list         the lockdep boot banner is not
#   ok console-scan/expected-hung-task a hung-task report between the
#                                      "pxtest: expect hung_task" markers is not
#                                      (its frames named lockdep_* neither)
#   ok console-scan/outside-markers    the same report after them is
#   ok console-scan/asked-backtraces   a backtrace between the "pxtest:
#                                      expect backtraces" markers is not
#                                      (its frames named lockdep_* neither),
#                                      a WARNING inside them still is
#   ok console-scan/total              exactly those 5 lines in all
#   ok console-scan/clean-log          a clean log gives nothing, status 0
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=lib/sh/console.sh
. "$top/lib/sh/console.sh"
T=${TMPDIR-/tmp}/pxconsole.$$
trap 'rm -rf "$T"' 0
mkdir -p "$T"
console_patterns "$T" || { echo "not ok console-scan/warning - console_patterns failed"; exit 1; }

cat > "$T/console.log" <<'LOG'
[    0.000000] Linux version 6.12.57
[    0.100000] rcu:     RCU lockdep checking is enabled.
[    1.000000] WARNING: CPU: 1 PID: 42 at kernel/sched/core.c:7000 find_proxy_task+0x10/0x20
[    2.000000] pxtest: expect hung_task begin
[    4.000000] INFO: task abba:77 blocked for more than 2 seconds.
[    4.000001] "echo 0 > /proc/sys/kernel/hung_task_timeout_secs" disables this message.
[    4.000002] Call Trace:
[    4.000003]  ? lockdep_hardirqs_on+0xdb/0x104
[    4.000004]  __mutex_lock+0x290/0x506
[    4.500000] BUG: kernel NULL pointer dereference, address: 0000000000000008
[    5.000000] pxtest: expect hung_task end
[    9.000000] INFO: task abba:78 blocked for more than 7 seconds.
[   10.000000] pxtest: expect backtraces begin
[   10.000001] sysrq: Show backtrace of all active CPUs
[   10.000002] NMI backtrace for cpu 1
[   10.000003] Call Trace:
[   10.000004] WARNING: CPU: 0 PID: 9 at kernel/locking/rwsem.c:1500 up_read+0x1/0x2
[   10.000005]  ? lockdep_hardirqs_on_prepare+0x378/0x378
[   10.000006]  lockdep_sys_exit+0x1/0x2
[   10.100000] pxtest: expect backtraces end
[   11.000000] Call Trace:
LOG
console_badness "$T/console.log" "$T" > "$T/bad"
fail=0
check() { # NAME WHAT GREP-PATTERN WANT-COUNT
	n=$(grep -c -- "$3" "$T/bad")
	if [ "$n" = "$4" ]; then echo "ok console-scan/$1"
	else echo "not ok console-scan/$1 - $2: $n lines match '$3', want $4"; fail=1
	fi
}
check warning "WARNING and BUG reported" 'WARNING: CPU: 1\|BUG: kernel NULL' 2
check allow-list "the lockdep banner is allowed" 'lockdep checking' 0
check expected-hung-task "the expected report is not badness" 'abba:77\|hung_task_timeout_secs\|\[    4.00000[234]\]' 0
check outside-markers "a report after the end marker is badness" 'abba:78' 1
check asked-backtraces "an asked-for backtrace is not badness, a WARNING in it and a trace after it are" \
	'\[   10.00000[356]\]\|rwsem.c:1500\|\[   11.000000\]' 2
total=$(wc -l < "$T/bad")
if [ "$total" = 5 ]; then echo "ok console-scan/total"
else echo "not ok console-scan/total - $total bad lines in all, want 5:"; sed 's/^/# /' "$T/bad"; fail=1
fi

printf '[    0.0] Linux version 6.12.57\n[    1.0] Run /init as init process\n' > "$T/clean.log"
rc=0
out=$(console_badness "$T/clean.log" "$T") || rc=$?
if [ "$rc" = 0 ] && [ -z "$out" ]; then echo "ok console-scan/clean-log"
else echo "not ok console-scan/clean-log - status $rc, output '$out'"; fail=1
fi
exit $fail

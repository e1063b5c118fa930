# SPDX-License-Identifier: GPL-2.0
# Helpers for tests/guest/*.sh; source with: . ./lib/pxtest.sh
# ok NAME; notok NAME REASON; finish (exit status = failures seen).
# $PX_KERNEL is the flavour (lean|debug), $PX_REPO the read-only repo.
px_failed=0
ok() { echo "ok $1"; }
notok() { echo "not ok $1 - $2"; px_failed=$((px_failed + 1)); }
# check NAME REASON command...: ok if the command succeeds.
check() {
	n=$1 r=$2; shift 2
	if "$@"; then ok "$n"; else notok "$n" "$r"; fi
}
finish() { exit "$px_failed"; }
# px_record BASE trace-cmd-record-args... -- command...: record into
# BASE.dat, report into BASE.txt, command output in BASE.out; sets px_rc to
# the command's exit status.  When proxy execution is on and the report has
# no sched_proxy event, record once more: an empty capture was seen under
# heavy host load (the recorder lost the race with a short command).
px_record() {
	b=$1; shift
	px_record_once "$b" "$@"
	if [ "$px_rc" = 0 ] && ! grep -qw 'proxy_exec=disable' /proc/cmdline &&
		! grep -q 'sched_proxy_' "$b.txt"; then
		echo "# $(basename "$b"): empty trace, recording again"
		px_record_once "$b" "$@"
	fi
}
px_record_once() {
	b=$1; shift
	trace-cmd record -q -o "$b.dat" "$@" > "$b.out" 2>&1
	px_rc=$?
	trace-cmd report -i "$b.dat" > "$b.txt" 2> /dev/null
}

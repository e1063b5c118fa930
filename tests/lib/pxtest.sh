# SPDX-License-Identifier: GPL-2.0
# Helpers for tests/guest/*.sh; source with: . ./lib/pxtest.sh
# ok NAME; notok NAME REASON; skip NAME REASON; finish (exit status =
# failures seen).  A check that cannot run here prints "skip NAME - REASON"
# (TAP-like; tests/run.sh reports it as SKIP, not as a failure) instead of
# being left out silently.
# $PX_KERNEL is the flavour (lean|debug), $PX_REPO the read-only repo.
px_failed=0
ok() { echo "ok $1"; }
notok() { echo "not ok $1 - $2"; px_failed=$((px_failed + 1)); }
skip() { echo "skip $1 - $2"; }
# xfail NAME REASON / xpass NAME REASON: a known failure (documented where
# the test says) that was seen, or that did not happen this time.
xfail() { echo "xfail $1 - $2"; }
xpass() { echo "xpass $1 - $2"; }
# check NAME REASON command...: ok if the command succeeds.
check() {
	n=$1 r=$2; shift 2
	if "$@"; then ok "$n"; else notok "$n" "$r"; fi
}
finish() { exit "$px_failed"; }
# px_record BASE trace-cmd-record-args... -- command...: record into
# BASE.dat, report into BASE.txt, command output in BASE.out; sets px_rc to
# trace-cmd's exit status, and px_empty to 1 if the report has no
# sched_proxy event (else 0).  Recorded once: an empty capture (seen under
# heavy host load, the recorder losing the race with a short command) is
# the caller's to report, never retried here: with proxy execution on,
# px_empty=1 is a failure (notok NAME "empty trace ..."), not a skip.
px_record() {
	b=$1; shift
	trace-cmd record -q -o "$b.dat" "$@" > "$b.out" 2>&1
	px_rc=$?
	trace-cmd report -i "$b.dat" > "$b.txt" 2> /dev/null
	px_empty=0
	grep -q 'sched_proxy_' "$b.txt" || px_empty=1
	if [ "$px_empty" = 1 ] && ! grep -qw 'proxy_exec=disable' /proc/cmdline; then
		echo "# $(basename "$b"): no sched_proxy event in the trace (proxy execution on; not recorded again)"
	fi
	return 0
}

# px_proxy_setting: debugfs sched/proxy_exec without its rwsem=on|off
# (41-rwsem.sh checks that; kernels before rwsem proxying lack it).
px_proxy_setting() {
	sed 's/ rwsem=o[nf]*$//' /sys/kernel/debug/sched/proxy_exec 2>&1
}

# JSON, read with jq.
# jlast FILE PATH: PATH (a jq path such as .mutex_wait.acquired) in the
# last JSON object of FILE (a tool's -j output, one object per interval,
# or a result file's only one), raw (numbers, true/false, strings
# unquoted); nothing when the file does not parse or the path is missing.
jlast() {
	jq -rs "last | $2 | select(. != null) | tostring" "$1" 2>/dev/null
}

# jfield FILE KEY [OBJECT]: KEY of the top-level OBJECT (or of the top
# level itself) of a result file (the tools' -o FILE).
jfield() {
	jlast "$1" "${3:+.$3}.$2"
}

# jvars FILE VAR=PATH...: each shell VAR set to PATH of FILE's last object
# as jlast gives it (empty when missing, or all empty when FILE does not
# parse), in one jq run: jq takes a quarter of a second to start in a TCG
# guest, and a result file's checks read a dozen fields.  PATH is a jq
# expression on the object (.latency.p50, or .format == "x" for a
# true/false).
jvars() {
	_jf=$1 _jp=''
	shift
	for _ja; do
		eval "${_ja%%=*}=''"
		_jp="$_jp\"${_ja%%=*}=\\(\$o | ${_ja#*=} | if . == null then \"\" else tostring end | @sh)\","
	done
	_jo=$(jq -rs "last as \$o | ${_jp%,}" "$_jf" 2>/dev/null) || _jo=''
	eval "$_jo"
}

# tool_start NAME COMMAND...: a BPF tool's COMMAND in the background into
# $T/NAME.{out,err}; wait (30 s at most) for its "Hit Ctrl-C" banner,
# printed once its programs are attached.  False, with the tool stopped
# and its first lines said, if it did not start.  tool_pid NAME: its pid;
# tool_stop NAME: SIGINT (its final summary, detach) and its exit status
# in $rc.
tool_start() {
	_tn=$1
	shift
	"$@" > "$T/$_tn.out" 2> "$T/$_tn.err" &
	eval "px_tool_$_tn=$!"
	_ti=0
	while [ $_ti -lt 300 ] && kill -0 "$(tool_pid "$_tn")" 2>/dev/null; do
		cat "$T/$_tn.out" "$T/$_tn.err" | grep -q 'Hit Ctrl-C' && return 0
		usleep 100000
		_ti=$((_ti + 1))
	done
	echo "# $_tn did not start: $(head -3 "$T/$_tn.err")"
	tool_stop "$_tn"
	return 1
}
tool_pid() { eval "echo \${px_tool_$1:-}"; }
tool_stop() {
	_tp=$(tool_pid "$1")
	rc=0
	[ -n "$_tp" ] || return 0
	kill -INT "$_tp" 2>/dev/null
	wait "$_tp" || rc=$?
}

# px_latency_header: the jq test of a result file's header (json_sane, or
# a jvars VAR=$px_latency_header beside the file's other figures);
# json_sane FILE: FILE parses and carries it.
px_latency_header='.format == "proxyexec-latency" and .version == 1'
json_sane() {
	jq -e "$px_latency_header" "$1" > /dev/null 2>&1
}


# The lab device's state (debugfs): one "INDEX HOLDER_PID ACQUISITIONS"
# line per mutex, HOLDER_PID 0 when free.
PX_LAB_STATE=/sys/kernel/debug/proxylab_state
# lab_holder INDEX: the pid holding lab mutex INDEX (0: free).
lab_holder() { awk -v i="$1" '$1 == i { print $2 }' $PX_LAB_STATE; }
# lab_held_list: the state lines of the held lab mutexes.
lab_held_list() { awk '!/^#/ && $2 != 0' $PX_LAB_STATE 2>/dev/null; }
# lab_held: how many lab mutexes are held.
lab_held() { lab_held_list | wc -l; }
# lab_acquisitions: acquisitions of all lab mutexes since boot.
lab_acquisitions() { awk '!/^#/ { n += $3 } END { print n + 0 }' $PX_LAB_STATE 2>/dev/null; }
# kv_field FILE KEY: the value of the first KEY=value word in FILE (a
# result line such as test_proxy_exec's), nothing if there is none.
kv_field() { tr ' ' '\n' < "$1" | sed -n "s/^$2=//p" | head -1; }
# ww_selftest_counts LOG: ww_runs and ww_passed, the runs of the
# ww_mutex selftest and the runs that passed, in the kernel log LOG.
# Counted there, not taken from modprobe: busybox's modprobe retries a
# failed finit_module() with init_module(), which runs every test again,
# and reports only the second run.
ww_selftest_counts() {
	ww_runs=$(grep -c 'Beginning ww mutex selftests' "$1")
	ww_passed=$(grep -c 'All ww mutex selftests passed' "$1")
}
# ww_selftest_failures LOG N: the first N failure lines of the selftest in
# LOG (stress_inorder_work's "failed" lines are its normal back-offs).
ww_selftest_failures() {
	grep -v stress_inorder_work "$1" | grep -E 'not resolved|failure|failed' | head -"$2"
}
# show_tail FILE: FILE's last 20 lines as comments (a failed run's own words).
show_tail() { sed 's/^/#   /' "$1" | tail -20; }
# sh -c "$px_in_cgroup" DIR COMMAND...: COMMAND inside the cgroup DIR (its
# /sys/fs/cgroup path) from its first instruction on, in the place of that
# sh: run in the background, $! is COMMAND's pid (a shell function's would
# be the subshell's), and a program that starts a command (trace-cmd
# record) can start it.
# shellcheck disable=SC2016 # expanded by that sh, not here
px_in_cgroup='echo $$ > "$0/cgroup.procs" && exec "$@"'

# task_state PID: its state letter (R, S, D, ...), nothing once gone.
task_state() { sed -n 's/^State:\t\([A-Z]\).*/\1/p' "/proc/$1/status" 2>/dev/null; }
# children_of PID: the pids of its children.  Through cat: busybox awk
# stops at the first file it cannot open, and a process that exits between
# the glob and the read is such a file.
children_of() {
	cat /proc/[0-9]*/stat 2>/dev/null |
		awk -v pp="$1" '{ pid = $1; sub(/^.*\) /, ""); if ($2 == pp) print pid }'
}
# lab_waiter_of PID: a child of PID in D that holds no lab mutex (an
# inversion run's waiter while it waits).
lab_waiter_of() {
	for c in $(children_of "$1"); do
		awk -v p="$c" '$2 == p { f = 1 } END { exit !f }' $PX_LAB_STATE && continue
		[ "$(task_state "$c")" = D ] && echo "$c" && return
	done
}
# wait_lab_iterating PID BEFORE: wait until the lab's acquisitions pass
# BEFORE (a run started by PID is iterating, all its tasks set up); false
# if PID exits first or after 60 s.
wait_lab_iterating() {
	_i=0
	while [ "$(lab_acquisitions)" -le "$2" ]; do
		kill -0 "$1" 2>/dev/null && [ $_i -lt 600 ] || return 1
		sleep 0.1
		_i=$((_i + 1))
	done
}

# The warp guard of icount boots (tests/run.sh "+icount"; the bench's
# own, bench/guest-bench.sh, is the model).  Under -icount sleep=off the
# guest's clock is its instruction count, except that while every vCPU
# waits for the host (a 9p read or write, the serial port) it moves on
# to the next timer: a timed section that touched the host measured the
# host.  warp_begin snapshots the interrupt counts of the devices the
# host serves (virtio: the 9p shares; the serial port, IRQ 4);
# warp_end NAME snapshots again and is false, with a "# warp: NAME
# rejected" line, when any of them moved.  warp_guard NAME reports the
# boot's verdict over all sections: ok, or not ok naming the rejected
# ones (each then a skip of its checks: its figures are not the
# kernel's).  The sections write to the guest's tmpfs only.
# PX_WARP_INJECT=1 in the environment makes every section bad on
# purpose (a line appended to $PX_OUT/warp-inject.log, 9p, every 10 ms),
# to see the guard reject it.
px_host_irqs() {
	awk 'NR == 1 { n = NF; next }
		$1 == "4:" || /virtio|ttyS/ {
			c = 0; for (i = 2; i <= n + 1; i++) c += $i
			sub(/:$/, "", $1); print $1, c }' /proc/interrupts
}
px_warp_bad='' px_warp_n=0
warp_begin() {
	px_host_irqs > "${T:-/tmp}/.warp0"
	[ -z "${PX_WARP_INJECT:-}" ] || {
		( while :; do date >> "$PX_OUT/warp-inject.log"; usleep 10000; done ) > /dev/null 2>&1 &
		px_warp_inject=$!
	}
}
warp_end() {
	[ -z "${px_warp_inject:-}" ] || { kill "$px_warp_inject"; wait "$px_warp_inject"; px_warp_inject=''; } 2> /dev/null
	px_host_irqs > "${T:-/tmp}/.warp1"
	px_warp_n=$((px_warp_n + 1))
	_wd=$(awk 'FNR == NR { b[$1] = $2; next } { n++ }
		$2 != b[$1] { printf "%sirq %s +%d", s, $1, $2 - b[$1]; s = ", " }
		END { if (!n) printf "no host device interrupt in /proc/interrupts" }' \
		"${T:-/tmp}/.warp0" "${T:-/tmp}/.warp1")
	[ -n "$_wd" ] || return 0
	echo "# warp: $1 rejected: the timed section waited on the host ($_wd)"
	px_warp_bad="$px_warp_bad $1"
	return 1
}
warp_guard() {
	if [ -z "$px_warp_bad" ] && [ "$px_warp_n" -gt 0 ]; then ok "$1"
	else notok "$1" "timed sections rejected:${px_warp_bad:- none ran}"; fi
}

# Virtual-time checks (45-vtime-bounds, 46-vtime-migrate): on an icount
# boot only; each run is a timed section under the warp guard, judged by
# its bound ("bounded") or, on the proxy-off control boot, by the
# inversion the bound must not allow ("inversion-shown").  The caller
# sets T (a tmpfs folder).
# vtime_setup: skip everything on a boot that is not icount; sets proxy
# (on/off) and verdict.  VTIME_VERDICT=bounded in the environment judges
# the control boot by the bounds, to see them fail there.
vtime_setup() {
	if [ "${PX_CLOCK:-host}" != icount ]; then
		skip vtime/clock "not an icount boot (PX_CLOCK=${PX_CLOCK:-host}): these bounds hold in virtual time only"
		finish
	fi
	proxy=on
	! grep -qw 'proxy_exec=disable' /proc/cmdline || proxy=off
	echo "# proxy execution: $proxy ($(uname -r); $(cat /proc/cmdline))"
	verdict=bounded
	[ $proxy = on ] || verdict=inversion-shown
	verdict=${VTIME_VERDICT:-$verdict}
}

# timed NAME COMMAND...: COMMAND as a timed section (output in
# $T/NAME.out, exit status in rc); false when the warp guard rejected
# it (its checks skipped).
timed() {
	_n=$1
	shift
	read -r _t0 _ < /proc/uptime
	warp_begin
	"$@" > "$T/$_n.out" 2>&1
	rc=$?
	read -r _t1 _ < /proc/uptime
	# On icount, guest time is instructions: what the section cost the host.
	echo "# time: $_n took $(awk -v a="$_t0" -v b="$_t1" 'BEGIN { printf "%.2f", b - a }') s of guest time"
	warp_end "$_n" && return 0
	for _c in completes $verdict; do
		skip "vtime/$_n-$_c" "the warp guard rejected the timed section"
	done
	return 1
}
# completes NAME WHY: vtime/NAME-completes, ok when WHY is empty.
completes() {
	check "vtime/$1-completes" "$2" [ -z "$2" ]
	[ -z "$2" ]
}
# bound NAME WHY TEST...: vtime/NAME, ok when TEST succeeds.
bound() {
	if eval "$3"; then ok "vtime/$1"; else notok "vtime/$1" "$2"; fi
}

# busy_want CASE: for test_proxy_exec's busy-CPU cases (a FIFO waiter
# left on the CPU a 400-ms hog takes), what wakes the waiter ($what) and
# what its lock returns ($want): a signal and -EINTR for signal_queued,
# the unlock and 0 for the others.
busy_want() {
	what=unlock want=0
	[ "$1" != signal_queued ] || what=signal want=-4
}
# cases_run CASE: run test_proxy_exec's CASE, print its result line (as a
# timed section: timed NAME cases_run CASE).
# outf NAME KEY: KEY=value from the timed section NAME's case result.
outf() { kv_field "$T/$1.out" "$2"; }
cases_run() {
	modprobe test_proxy_exec || return 1
	echo "$1" > /sys/kernel/debug/test_proxy_exec/run || return 1
	cat /sys/kernel/debug/test_proxy_exec/result
}

# lab NAME N ARGS...: an inversion run of N iterations (burn 1 ms unless
# ARGS say otherwise) and its figures: count, capped, p50, p90, max, burn
# (ns).
lab() {
	name=$1 iters=$2
	shift 2
	timed "$name" inversion -n "$iters" -b 1000 -q -t 120 -o "$T/$name.json" "$@" || return 1
	jvars "$T/$name.json" count=.latency.count capped=.checks.hog_capped \
		p50=.latency.p50 p90=.latency.p90 max=.latency.max burn=.params.burn_ns
	why=''
	if [ $rc != 0 ]; then why="exit $rc: $(tr '\n' ' ' < "$T/$name.out" | tail -c 300)"
	elif [ "$count" != "$iters" ] || [ -z "$capped" ] || [ -z "$p90" ] || [ -z "$max" ]; then
		why="result file: count ${count:-none} of $iters, hog_capped ${capped:-none}, p90 ${p90:-none}, max ${max:-none}"
	fi
	completes "$name" "$why" || return 1
	echo "# $name ($proxy): $count waits, $capped hog-capped, p50 $((p50 / 1000)) us, p90 $((p90 / 1000)) us, max $((max / 1000)) us"
}


#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# In-guest half of bench/run.sh: run each scenario REPEAT times and leave
# the raw results in OUT/<scenario>/r<rep>.*; the host summarizes.
#
# Usage: sh guest-bench.sh [--duration SEC] [--repeat N] [--first-rep K]
#                          [--scenarios LIST] [--burn USEC]
#                          [--hackbench "GROUPS LOOPS RUNS"]
#                          [--messaging "GROUPS LOOPS RUNS"]
#                          [--sched-feature NAME] [--inject-host-io REP]
#                          [--iterations N] [--out DIR]
#   --iterations N the lock scenarios (inversion) stop after N acquisitions
#                  if the duration has not passed (inversion -d with -n)
#   --first-rep K  number the repetitions K, K+1, ... (default 1): an
#                  interleaved bench runs one repetition per boot
#   --messaging    perf bench sched messaging -g GROUPS -l LOOPS, RUNS
#                  times per repetition (default "4 100 5")
#   --sched-feature NAME
#                  echo NAME > /sys/kernel/debug/sched/features before
#                  the scenarios (bench/run.sh --modes v6handoff:
#                  PROXY_V6_HANDOFF); exit 3 at once, running nothing, if
#                  the kernel has no such feature or it did not take
#   --inject-host-io REP
#                  a deliberately bad run, to show the warp guard works:
#                  every timed section of repetition REP also appends a
#                  line to a file in OUT (9p, the host) every 10 ms,
#                  r<REP>.injected
#   --out DIR      where the results go (default $PX_OUT); bench-kernel.txt
#                  always goes to $PX_OUT, the boot's own folder
#
# Nothing a timed section does reaches the host: the commands write to the
# guest's tmpfs (/tmp/guest-bench), copied to OUT after the measurement.
# The warp guard checks it: before and after each timed section it reads
# the interrupt counts of the host's devices, the 9p shares' virtio
# devices and the serial port, from /proc/interrupts; any interrupt there
# means the guest waited on the host, which under --clock icount moves
# guest time on to the next timer (bench/README.md, The clock), and the
# run is rejected.  r<rep>.warp says so (format: bench/README.md).
#
# Per scenario and repetition: r<rep>.out (stdout+stderr), r<rep>.rc (exit
# status), r<rep>.secs (seconds on the guest's clock), r<rep>.warp (the
# guard's verdict); inversion and
# renamedemo add r<rep>.json
# and r<rep>.hist (tools/README.md); cyclictest adds r<rep>.cthist (its raw
# -h histogram, 1 us buckets to 100 ms; bench/run.sh drops the empty ones)
# and r<rep>.ctjson (--json); cyclictest-load also keeps its load's result
# as r<rep>-load.json; hackbench adds
# r<rep>.times (one "Time:" in seconds per run), messaging the same (one
# "Total time:" of perf bench per run).  bench-kernel.txt also lists the
# scheduler features (sched_features:) and, with --sched-feature, says
# "sched_feature: NAME on" (or "... missing").  Progress goes to stdout as
#   bench-guest: begin SCENARIO REP
#   bench-guest: end SCENARIO REP rc=N secs=S
# which bench/run.sh turns into its progress lines.
#
# No "set -e": a failing scenario is recorded and the next one runs.
set -u
dur=10 repeat=1 first=1 out=${PX_OUT:-/tmp/bench} scenarios='cfs,rt,dl,chain,xcpu,rename,cyclictest,cyclictest-load,hackbench,messaging'
burn=1000 hb='4 100 5' msg='4 100 5' feature='' inject='' iters=''
while test $# -gt 0; do
	case $1 in
	--duration) dur=$2; shift ;;
	--repeat) repeat=$2; shift ;;
	--first-rep) first=$2; shift ;;
	--out) out=$2; shift ;;
	--scenarios) scenarios=$2; shift ;;
	--burn) burn=$2; shift ;;
	--hackbench) hb=$2; shift ;;
	--messaging) msg=$2; shift ;;
	--sched-feature) feature=$2; shift ;;
	--inject-host-io) inject=$2; shift ;;
	--iterations) iters=$2; shift ;;
	*) echo "guest-bench: unknown option '$1'" >&2; exit 2 ;;
	esac
	shift
done
mkdir -p "$out" "${PX_OUT:-$out}"
# shellcheck disable=SC2086
set -- $hb
hb_groups=$1 hb_loops=$2 hb_runs=$3
# shellcheck disable=SC2086
set -- $msg
msg_groups=$1 msg_loops=$2 msg_runs=$3

# What this boot is: the host decides the mode from these lines.
{
	echo "release: $(uname -r)"
	echo "cmdline: $(cat /proc/cmdline)"
	echo "cpus: $(nproc)"
	echo "proxy_exec_symbol: $(grep -qw __sched_proxy_exec /proc/kallsyms 2>/dev/null && echo yes || echo no)"
	# "enabled return=schedule" once the kernel has both return strategies.
	echo "debugfs_proxy_exec: $(cat /sys/kernel/debug/sched/proxy_exec 2>/dev/null || echo none)"
	dmesg | grep -E 'proxy.exec|proxy execution' | sed 's/^/dmesg: /'
} > "${PX_OUT:-$out}/bench-kernel.txt"

# The mode's scheduler feature, set before anything runs.  Without it the
# boot would measure another mode under this one's name: stop instead.
feats=/sys/kernel/debug/sched/features
if [ -n "$feature" ]; then
	if ! { tr ' ' '\n' < "$feats"; } 2>/dev/null | grep -qx "\(NO_\)\{0,1\}$feature"; then
		echo "sched_feature: $feature missing" >> "${PX_OUT:-$out}/bench-kernel.txt"
		echo "bench-guest: error: no scheduler feature $feature in $feats (kernel without it, or no CONFIG_SCHED_DEBUG): nothing run" >&2
		exit 3
	fi
	echo "$feature" > "$feats"
	if ! tr ' ' '\n' < "$feats" | grep -qx "$feature"; then
		echo "sched_feature: $feature missing" >> "${PX_OUT:-$out}/bench-kernel.txt"
		echo "bench-guest: error: echo $feature > $feats did not turn it on: nothing run" >&2
		exit 3
	fi
	echo "sched_feature: $feature on" >> "${PX_OUT:-$out}/bench-kernel.txt"
fi
echo "sched_features: $(cat "$feats" 2>/dev/null || echo none)" >> "${PX_OUT:-$out}/bench-kernel.txt"

# Every timed command writes to tmpfs; its files are moved to OUT after
# each run in large writes: under --clock icount (sleep=off) each 9p round
# trip that finds every vCPU idle moves guest time on to the next timer
# (stdio's 4 KiB writes of a 2 MB cyclictest histogram took 40 s of it;
# 300 appends to a 9p file 1.2 guest s on a quiet host, 10 s beside three
# busy loops).  The working directory is tmpfs too.
scratch=/tmp/guest-bench
mkdir -p "$scratch" && cd "$scratch" || exit 1
# keep SCENARIO: move its result files from tmpfs to OUT/SCENARIO/.
keep() {
	for f in "$scratch/$1"/*; do
		[ -f "$f" ] || continue
		dd if="$f" of="$out/$1/${f##*/}" bs=1M 2> /dev/null && rm -f "$f" ||
			echo "guest-bench: could not copy $f to $out/$1/" >> "$out/$1/r$r.out"
	done
}

# host_irqs: "IRQ COUNT NAME..." of each interrupt line of a device the
# host serves: virtio (the 9p shares, the only virtio devices) and the
# serial port (ttyS, IRQ 4), the count summed over the CPUs.
host_irqs() {
	awk 'NR == 1 { n = NF; next }
		$1 == "4:" || /virtio|ttyS/ {
			c = 0; for (i = 2; i <= n + 1; i++) c += $i
			# after the counts: the chip, the hwirq and type, the names
			name = ""; for (i = n + 4; i <= NF; i++) name = name " " $i
			sub(/:$/, "", $1); print $1, c, name }' /proc/interrupts
}

# warp_verdict BEFORE AFTER: the r<rep>.warp text: "verdict: ok" when no
# host device interrupted between the two host_irqs snapshots, else
# "verdict: rejected" and the reason; then one line per interrupt.
warp_verdict() {
	awk 'FNR == NR { b[$1] = $2; next }
		{ d = $2 - b[$1]; name = $3; for (i = 4; i <= NF; i++) name = name " " $i
		  line[++n] = sprintf("irq %s (%s): %d -> %d (+%d)", $1, name, b[$1], $2, d)
		  if (d) { bad = bad sprintf("%sirq %s (%s) +%d", sep, $1, name, d); sep = ", " } }
		END {
			if (!n) { print "verdict: rejected"; print "reason: no host device interrupt found: the guard cannot tell" }
			else if (bad != "") { print "verdict: rejected"; print "reason: the timed section waited on the host: " bad }
			else { print "verdict: ok"; print "reason: no interrupt of a host device (virtio 9p, serial) during the timed section" }
			for (i = 1; i <= n; i++) print line[i] }' "$1" "$2"
}

# inject_start DIR REP: the deliberate fault of --inject-host-io, a
# background writer appending to a 9p file every 10 ms until inject_stop.
inject_start() {
	[ "$inject" = "$2" ] || return 0
	( while :; do date >> "$1/r$2.injected"; sleep 0.01; done ) > /dev/null 2>&1 &
	ipid=$!
}
inject_stop() {
	[ "$inject" = "$r" ] || return 0
	kill "$ipid" 2> /dev/null
	wait "$ipid" 2> /dev/null
	return 0
}

# Give up on a command after its own timeout plus this grace.
grace=60
tmo=$((dur + grace))

# run_tool TMP REP TOOL ARGS...: one inversion, renamedemo or mmapdemo run.
run_tool() {
	t=$1 r=$2; shift 2
	timeout -s TERM $((tmo + grace)) "$@" -d "${dur}s" -q -o "$t/r$r.json" --hist "$t/r$r.hist" \
		>> "$t/r$r.out" 2>&1
}

# cyclictest with a histogram up to 100 ms (1 us buckets; overflows
# counted), written whole to the host, which drops the empty buckets
# (bench/run.sh): filtering its 100000 lines here took 3.5 s under TCG.
# (-h 1000000 costs a minute per run under TCG just to print.)
cyclic() {
	t=$1 r=$2
	timeout -s TERM $tmo cyclictest -m -q -p 90 -i 1000 -t -a -D "$dur" -h 100000 \
		--histfile="$t/r$r.cthist" --json="$t/r$r.ctjson" >> "$t/r$r.out" 2>&1
}

# timed_runs TMP REP RUNS SED_SCRIPT COMMAND...: COMMAND RUNS times, its
# output to r<rep>.out, the time of each run (SED_SCRIPT prints it, in
# seconds) one a line to r<rep>.times; non-zero unless every run gave one.
timed_runs() {
	t=$1 r=$2 n=$3 pick=$4; shift 4
	i=0 rc=0
	while [ $i -lt "$n" ]; do
		i=$((i + 1))
		timeout -s TERM $tmo "$@" >> "$t/r$r.out" 2>&1 || rc=$?
	done
	sed -n "$pick" "$t/r$r.out" > "$t/r$r.times"
	[ "$rc" != 0 ] || [ "$(wc -l < "$t/r$r.times")" = "$n" ] || rc=1
	return "$rc"
}

# one SCENARIO REP: the timed section, writing to tmpfs only.  A lock
# scenario named SCENARIO-rtmutex runs on the lab's rt_mutexes (priority
# inheritance) instead of its mutexes (bench/run.sh --locks).
one() {
	s=$1 r=$2 t=$scratch/$1 lk=''
	# (s is the caller's loop variable too: the base name goes to b.)
	b=$s
	case $s in
	*-rtmutex) b=${s%-rtmutex} lk=rtmutex ;;
	esac
	case $b in
	cfs|rt|dl|xcpu|cgweight|mixed)
		run_tool "$t" "$r" inversion "$b" -b "$burn" -t "$tmo" ${lk:+--locks "$lk"} ${iters:+-n "$iters"} ;;
	chain) run_tool "$t" "$r" inversion chain -D 3 -b "$burn" -t "$tmo" ${lk:+--locks "$lk"} ${iters:+-n "$iters"} ;;
	# The cost side: 4 workers, 2 locks, 10-us critical sections.
	contend) run_tool "$t" "$r" inversion contend -w 4 --set 2 -b 10 -t "$tmo" ${lk:+--locks "$lk"} ${iters:+-n "$iters"} ;;
	rename) run_tool "$t" "$r" renamedemo ;;
	mmap) run_tool "$t" "$r" mmapdemo --throttle ;;
	inode) run_tool "$t" "$r" mmapdemo --throttle --inode --size 4 ;;
	cyclictest) cyclic "$t" "$r" ;;
	cyclictest-load)
		# The load outlives the measurement by a second on each side.
		inversion cfs -b "$burn" -t "$tmo" -d "$((dur + 2))s" -q -o "$t/r$r-load.json" \
			> "$t/r$r-load.out" 2>&1 &
		lpid=$!
		sleep 1
		cyclic "$t" "$r"
		rc=$?
		wait "$lpid"
		lrc=$?
		[ "$lrc" = 0 ] || echo "guest-bench: load inversion cfs exited $lrc" >> "$t/r$r.out"
		[ "$rc" != 0 ] || rc=$lrc
		return "$rc" ;;
	hackbench)
		timed_runs "$t" "$r" "$hb_runs" 's/^Time: *\([0-9.]*\).*/\1/p' \
			hackbench -g "$hb_groups" -l "$hb_loops" ;;
	messaging)
		# "     Total time: 0.553 [sec]"
		timed_runs "$t" "$r" "$msg_runs" 's/^[[:space:]]*Total time: *\([0-9.]*\).*/\1/p' \
			perf bench sched messaging -g "$msg_groups" -l "$msg_loops" ;;
	*) echo "guest-bench: unknown scenario '$1'" > "$t/r$r.out"; return 2 ;;
	esac
}

r=$((first - 1))
while [ "$r" -lt $((first + repeat - 1)) ]; do
	r=$((r + 1))
	for s in $(echo "$scenarios" | tr ',' ' '); do
		d=$out/$s t=$scratch/$s
		mkdir -p "$d" "$t"
		: > "$t/r$r.out"
		echo "bench-guest: begin $s $r"
		# The timed section: from the first snapshot to the second,
		# nothing but tmpfs (inject_* only with --inject-host-io).
		host_irqs > "$scratch/irq0"
		t0=$(date +%s)
		inject_start "$d" "$r"
		one "$s" "$r"
		rc=$?
		inject_stop
		secs=$(($(date +%s) - t0))
		host_irqs > "$scratch/irq1"
		warp_verdict "$scratch/irq0" "$scratch/irq1" > "$t/r$r.warp"
		keep "$s"
		echo "$rc" > "$d/r$r.rc"
		echo "$secs" > "$d/r$r.secs"
		sync
		echo "bench-guest: end $s $r rc=$rc secs=$secs"
		awk -v sr="$s $r" 'NR == 1 && $2 == "rejected" { rej = 1 }
			NR == 2 && rej { sub(/^reason: /, ""); print "bench-guest: warp: " sr " REJECTED: " $0 }' "$d/r$r.warp"
		[ "$rc" = 0 ] || tail -n 5 "$d/r$r.out" | sed "s/^/bench-guest: $s: /"
	done
done
exit 0

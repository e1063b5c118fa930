#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# In-guest half of bench/run.sh: run each scenario REPEAT times and leave
# the raw results in OUT/<scenario>/r<rep>.*; the host summarizes.
#
# Usage: sh guest-bench.sh [--duration SEC] [--repeat N] [--first-rep K]
#                          [--scenarios LIST] [--burn USEC]
#                          [--hackbench "GROUPS LOOPS RUNS"]
#                          [--messaging "GROUPS LOOPS RUNS"]
#                          [--sched-feature NAME] [--out DIR]
#   --first-rep K  number the repetitions K, K+1, ... (default 1): an
#                  interleaved bench runs one repetition per boot
#   --messaging    perf bench sched messaging -g GROUPS -l LOOPS, RUNS
#                  times per repetition (default "4 100 5")
#   --sched-feature NAME
#                  echo NAME > /sys/kernel/debug/sched/features before
#                  the scenarios (bench/run.sh --modes v6handoff:
#                  PROXY_V6_HANDOFF); exit 3 at once, running nothing, if
#                  the kernel has no such feature or it did not take
#   --out DIR      where the results go (default $PX_OUT); bench-kernel.txt
#                  always goes to $PX_OUT, the boot's own folder
#
# Per scenario and repetition: r<rep>.out (stdout+stderr), r<rep>.rc (exit
# status), r<rep>.secs (seconds on the guest's clock); inversion and
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
burn=1000 hb='4 100 5' msg='4 100 5' feature=''
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

# The tools write their result files to tmpfs, moved to OUT after each
# run in large writes: under --clock icount (sleep=off) each 9p round trip
# that finds every vCPU idle moves guest time on to the next timer, and
# stdio's 4 KiB writes of a 2 MB cyclictest histogram took 40 s of it.
scratch=/tmp/guest-bench
# keep SCENARIO: move its result files from tmpfs to OUT/SCENARIO/.
keep() {
	for f in "$scratch/$1"/*; do
		[ -f "$f" ] || continue
		dd if="$f" of="$out/$1/${f##*/}" bs=1M 2> /dev/null && rm -f "$f" ||
			echo "guest-bench: could not copy $f to $out/$1/" >> "$out/$1/r$r.out"
	done
}

# Give up on a command after its own timeout plus this grace.
grace=60
tmo=$((dur + grace))

# run_tool DIR TMP REP TOOL ARGS...: one inversion, renamedemo or mmapdemo run.
run_tool() {
	d=$1 t=$2 r=$3; shift 3
	timeout -s TERM $((tmo + grace)) "$@" -d "${dur}s" -q -o "$t/r$r.json" --hist "$t/r$r.hist" \
		> "$d/r$r.out" 2>&1
}

# cyclictest with a histogram up to 100 ms (1 us buckets; overflows
# counted), written whole to the host, which drops the empty buckets
# (bench/run.sh): filtering its 100000 lines here took 3.5 s under TCG.
# (-h 1000000 costs a minute per run under TCG just to print.)
cyclic() {
	d=$1 t=$2 r=$3
	timeout -s TERM $tmo cyclictest -m -q -p 90 -i 1000 -t -a -D "$dur" -h 100000 \
		--histfile="$t/r$r.cthist" --json="$t/r$r.ctjson" >> "$d/r$r.out" 2>&1
}

# timed_runs DIR REP RUNS SED_SCRIPT COMMAND...: COMMAND RUNS times, its
# output to r<rep>.out, the time of each run (SED_SCRIPT prints it, in
# seconds) one a line to r<rep>.times; non-zero unless every run gave one.
timed_runs() {
	d=$1 r=$2 n=$3 pick=$4; shift 4
	: > "$d/r$r.times"
	i=0 rc=0
	while [ $i -lt "$n" ]; do
		i=$((i + 1))
		timeout -s TERM $tmo "$@" >> "$d/r$r.out" 2>&1 || rc=$?
	done
	sed -n "$pick" "$d/r$r.out" > "$d/r$r.times"
	[ "$rc" != 0 ] || [ "$(wc -l < "$d/r$r.times")" = "$n" ] || rc=1
	return "$rc"
}

one() {
	s=$1 r=$2 d=$out/$1 t=$scratch/$1
	mkdir -p "$d" "$t"
	: > "$d/r$r.out"
	case $s in
	cfs|rt|dl|xcpu) run_tool "$d" "$t" "$r" inversion "$s" -b "$burn" -t "$tmo" ;;
	chain) run_tool "$d" "$t" "$r" inversion chain -D 3 -b "$burn" -t "$tmo" ;;
	rename) run_tool "$d" "$t" "$r" renamedemo ;;
	mmap) run_tool "$d" "$t" "$r" mmapdemo --throttle ;;
	inode) run_tool "$d" "$t" "$r" mmapdemo --throttle --inode --size 4 ;;
	cyclictest) cyclic "$d" "$t" "$r" ;;
	cyclictest-load)
		# The load outlives the measurement by a second on each side.
		inversion cfs -b "$burn" -t "$tmo" -d "$((dur + 2))s" -q -o "$t/r$r-load.json" \
			> "$d/r$r-load.out" 2>&1 &
		lpid=$!
		sleep 1
		cyclic "$d" "$t" "$r"
		rc=$?
		wait "$lpid"
		lrc=$?
		[ "$lrc" = 0 ] || echo "guest-bench: load inversion cfs exited $lrc" >> "$d/r$r.out"
		[ "$rc" != 0 ] || rc=$lrc
		return "$rc" ;;
	hackbench)
		timed_runs "$d" "$r" "$hb_runs" 's/^Time: *\([0-9.]*\).*/\1/p' \
			hackbench -g "$hb_groups" -l "$hb_loops" ;;
	messaging)
		# "     Total time: 0.553 [sec]"
		timed_runs "$d" "$r" "$msg_runs" 's/^[[:space:]]*Total time: *\([0-9.]*\).*/\1/p' \
			perf bench sched messaging -g "$msg_groups" -l "$msg_loops" ;;
	*) echo "guest-bench: unknown scenario '$s'" > "$d/r$r.out"; return 2 ;;
	esac
}

r=$((first - 1))
while [ "$r" -lt $((first + repeat - 1)) ]; do
	r=$((r + 1))
	for s in $(echo "$scenarios" | tr ',' ' '); do
		echo "bench-guest: begin $s $r"
		t0=$(date +%s)
		one "$s" "$r"
		rc=$?
		secs=$(($(date +%s) - t0))
		keep "$s"
		echo "$rc" > "$out/$s/r$r.rc"
		echo "$secs" > "$out/$s/r$r.secs"
		sync
		echo "bench-guest: end $s $r rc=$rc secs=$secs"
		[ "$rc" = 0 ] || tail -n 5 "$out/$s/r$r.out" | sed "s/^/bench-guest: $s: /"
	done
done
exit 0

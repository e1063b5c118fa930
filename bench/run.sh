#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Latency benchmark: boot the lean guest per proxy-execution mode, run the
# same scenarios in each boot, then summarize, plot and optionally compare.
#
# Usage: bench/run.sh [options]
#   --modes LIST       comma list of off,v4,current,v6handoff,mutexonly
#                      (default off,v4,current)
#                        off      boot with proxy_exec=disable
#                        v4       proxy_exec=enable,return=ttwu (return
#                                 migration in ttwu; marked "not available"
#                                 when the kernel does not know it)
#                        current  proxy on, the kernel's default
#                        v6handoff  current with sched_feat
#                                 PROXY_V6_HANDOFF set in the guest (v6:
#                                 every unlock hands off, no optimistic
#                                 spinning); fails if the kernel lacks it
#                        mutexonly  current with proxy_exec=enable,rwsem=off:
#                                 rw_semaphore waiters do not donate (the
#                                 mutex-only proxy execution of mainline),
#                                 for the mmap and inode scenarios
#   --scenarios LIST   comma list of cfs,rt,dl,chain,xcpu,rename,mmap,inode,
#                      cyclictest,cyclictest-load,hackbench,messaging
#                      (default all of these; mmap is mmapdemo, an
#                      rw_semaphore; inode is mmapdemo --inode, a file's
#                      i_rwsem; messaging is perf bench sched messaging),
#                      and, not in the default list: cgweight (the waiter's
#                      cgroup cpu.weight 10000, the owner's 1), mixed (FIFO
#                      waiter -> nice-0 owner -> nice-19 owner), contend
#                      (throughput of 4 workers on 2 lab locks); a lock
#                      scenario named SCENARIO-rtmutex runs on rt_mutexes
#                      whatever --locks says (the self-test's short list)
#   --locks LIST       comma list of mutex,rtmutex (default mutex): the lab
#                      lock type of the lock scenarios (cfs, rt, dl, chain,
#                      xcpu, cgweight, mixed, contend); each runs once per
#                      type, SCENARIO for mutex and SCENARIO-rtmutex for
#                      rtmutex (inversion --locks rtmutex: priority
#                      inheritance), side by side in every boot; with
#                      rtmutex, bench/locktable.sh writes the four-way table
#                      (locks.txt: proxy off/on x mutex/rt_mutex)
#   --duration SEC     seconds per scenario run (default 20; --quick 1)
#   --cpus N           guest vCPUs (default 2)
#   --repeat N         runs of every scenario (default 1), each in its own
#                      boot, the modes in turn: off, v4, current, off, v4,
#                      current, ... so that host drift hits every mode
#                      alike; the table then shows medians and the spread
#   --no-interleave    all --repeat runs of a mode in one boot instead
#                      (fewer boots; the spread then misses boot-to-boot
#                      differences and the modes meet different host loads)
#   --clock host|icount[=SHIFT]
#                      the guest's clock (guest/run.sh --clock; default
#                      icount: its run-to-run spread is ~2% at p99 where
#                      the host clock's is ~100%, bench/README.md): icount
#                      measures in virtual time, derived from
#                      instructions (2^SHIFT ns each, SHIFT 0..10, default
#                      0), independent of the host's load; a busy guest
#                      second takes 2-4 wall seconds on a quiet host, ~10
#                      beside a kernel build; see bench/README.md
#   --burn USEC        owner critical section of the inversions (default 1000)
#   --iterations N     the lock scenarios stop after N acquisitions when
#                      their --duration has not passed yet (inversion -d
#                      with -n): a short run spends no more time on the
#                      fast ways (PI, proxy execution: ~1 ms a wait) than
#                      the figures need (the self-test: 200)
#   --quick            CI size: 1 s per scenario, small hackbench and
#                      messaging (~1.5 min)
#   --compare DIR      compare with a saved results folder, flag regressions
#   --out DIR          results folder, must not exist or be empty (default
#                      bench/results/<date-time>/)
#   --no-plots         skip plots/plot.sh
#   --inject-host-io MODE:RUN
#                      a deliberately bad run, to show the warp guard
#                      works: in run RUN of MODE every timed section also
#                      writes to the host (9p) every 10 ms; the guard must
#                      reject it (bench/selftest.sh does this)
#   -h, --help         this text
#
# The warp guard: the guest reads the interrupt counts of the host's
# devices (the 9p shares' virtio, the serial port) before and after each
# timed section; a run during which the guest waited on the host is
# rejected (<scenario>/r<rep>.warp, warp.tsv), named on stderr with
# "REJECTED" and left out of the figures.
# Results: see bench/README.md (per mode: run.log, <scenario>/r<rep>.*, and
# the boot's console.log, dmesg.log, ... there or, one boot per repetition,
# in boot<rep>/; summary.json, summary.tsv, summary.txt, plots/).
# A boot's console is scanned for kernel badness as the tests' are
# (lib/sh/console.sh): the bad lines go to the boot's badness file.
# Exit status: 0 all ran; 1 a scenario failed, a guest hung, its kernel
# log had bad lines, or a mode and scenario has no run the warp guard
# accepted (marked in the table or named on stderr, partial results kept); 64 usage (one line and "Try ... --help" on stderr);
# 3 --compare found regressions.
#
# Examples:
#   bench/run.sh                               # all modes and scenarios
#   bench/run.sh --quick                       # CI size
#   bench/run.sh --modes off,current --scenarios cfs,rt --repeat 3
#   bench/run.sh --modes off,current --locks mutex,rtmutex --repeat 3 \
#       --scenarios rt,dl,cfs,chain,xcpu,cgweight,mixed,contend   # vs PI
#   bench/run.sh --quick --clock icount           # in virtual time
#   bench/run.sh --compare bench/results/20261203-071500
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)

cli_prog=bench
# shellcheck source=lib/sh/cli.sh
. "$top/lib/sh/cli.sh"
# shellcheck source=lib/sh/console.sh
. "$top/lib/sh/console.sh"

all_modes=off,v4,current
all_scen=cfs,rt,dl,chain,xcpu,rename,mmap,inode,cyclictest,cyclictest-load,hackbench,messaging
scen_re='(cfs|rt|dl|chain|xcpu|cgweight|mixed|contend)(-rtmutex)?|rename|mmap|inode|cyclictest|cyclictest-load|hackbench|messaging'
modes=$all_modes scenarios=$all_scen locks=mutex duration='' cpus=2 repeat=1 burn=1000
quick='' compare='' out='' plots=1 interleave=1 clock=icount inject='' iters=''
while test $# -gt 0; do
	case $1 in
	--modes) checkarg "$1" $# "${2-}" '^(off|v4|current|v6handoff|mutexonly)(,(off|v4|current|v6handoff|mutexonly))*$'; modes=$2; shift ;;
	--scenarios) checkarg "$1" $# "${2-}" "^($scen_re)(,($scen_re))*\$"
		scenarios=$2; shift ;;
	--locks) checkarg "$1" $# "${2-}" '^(mutex|rtmutex)(,(mutex|rtmutex))*$'; locks=$2; shift ;;
	--duration) checkarg "$1" $# "${2-}" '^[1-9][0-9]*$'; duration=$2; shift ;;
	--cpus) checkarg "$1" $# "${2-}" '^([2-9]|[1-9][0-9]+)$'; cpus=$2; shift ;;
	--repeat) checkarg "$1" $# "${2-}" '^[1-9][0-9]*$'; repeat=$2; shift ;;
	--burn) checkarg "$1" $# "${2-}" '^[1-9][0-9]*$'; burn=$2; shift ;;
	--iterations) checkarg "$1" $# "${2-}" '^[1-9][0-9]*$'; iters=$2; shift ;;
	--no-interleave) interleave='' ;;
	--clock) checkarg "$1" $# "${2-}" "$clock_re" "$clock_what"; clock=$2; shift ;;
	--quick) quick=1 ;;
	--compare) checkarg "$1" $# "${2-}" '.'; compare=$2; shift ;;
	--out) checkarg "$1" $# "${2-}" '.'; out=$2; shift ;;
	--no-plots) plots='' ;;
	--inject-host-io) checkarg "$1" $# "${2-}" '^(off|v4|current|v6handoff|mutexonly):[1-9][0-9]*$' MODE:RUN
		inject=$2; shift ;;
	-h|--help) usage ;;
	*) usage "unknown option '$1'" ;;
	esac
	shift
done
# Sizes: hackbench and perf bench sched messaging "groups loops runs" and
# their guessed seconds per run.
if [ -n "$quick" ]; then
	: "${duration:=1}"; hb='2 50 3' hb_secs=2 msg='2 50 3' msg_secs=2
else
	: "${duration:=20}"; hb='4 100 5' hb_secs=6 msg='4 100 5' msg_secs=6
fi
[ -z "$compare" ] || [ -f "$compare/summary.tsv" ] ||
	usage "--compare $compare: no summary.tsv there (not a results folder)"
[ "$(echo "$scenarios" | tr ',' '\n' | sort | uniq -d)" = '' ] || usage "--scenarios: a scenario twice"
[ "$(echo "$modes" | tr ',' '\n' | sort | uniq -d)" = '' ] || usage "--modes: a mode twice"
[ "$(echo "$locks" | tr ',' '\n' | sort | uniq -d)" = '' ] || usage "--locks: a lock type twice"
# The lock types: each lock scenario once per type, side by side (SCENARIO
# for mutex, SCENARIO-rtmutex for rtmutex); the others once.  From here on
# $scenarios is that list, as params.txt records it.
lock_scen() { case $1 in cfs|rt|dl|chain|xcpu|cgweight|mixed|contend) true ;; *) false ;; esac; }
given=$scenarios scenarios=''
for s in $(echo "$given" | tr ',' ' '); do
	if [ "${s%-rtmutex}" != "$s" ]; then
		scenarios="$scenarios,$s"
	elif lock_scen "$s"; then
		for l in $(echo "$locks" | tr ',' ' '); do
			case $l in mutex) scenarios="$scenarios,$s" ;; *) scenarios="$scenarios,$s-$l" ;; esac
		done
	else
		scenarios="$scenarios,$s"
	fi
done
scenarios=${scenarios#,}
[ "$(echo "$scenarios" | tr ',' '\n' | sort | uniq -d)" = '' ] ||
	usage "--scenarios: $(echo "$scenarios" | tr ',' '\n' | sort | uniq -d | head -1) twice (with --locks)"
case ,$modes,:${inject#*:} in
*,"${inject%%:*}",*:*) [ "${inject#*:}" -le "$repeat" ] || usage "--inject-host-io $inject: there are $repeat runs" ;;
*:) ;;
*) usage "--inject-host-io $inject: ${inject%%:*} is not in --modes" ;;
esac

# Only the tools and the image are built here, never the kernel (a build
# takes the 2 cores for a long time: make kernel does it on request).
command -v jq > /dev/null || die "jq not found: bench/summarize.sh reads the results with it (make deps)"
bz=$top/build/obj-lean/arch/x86/boot/bzImage
[ -f "$bz" ] || die "no $bz: the lean kernel is not built (make kernel); bench/run.sh never builds it"
if [ ! -x "$top/build/tools/bin/inversion" ] || [ ! -x "$top/build/tools/bin/renamedemo" ]; then
	echo "bench: building the tools (make tools)" >&2
	make -C "$top" tools >&2 || die "make tools failed"
fi
# make image would also rebuild the kernels; the lean image alone is enough.
"$top/guest/mkinitramfs.sh" lean | grep -v 'is up to date$' >&2 || true

if [ -z "$out" ]; then
	out=$top/bench/results/$(date -u +%Y%m%d-%H%M%S)
	[ ! -e "$out" ] || out=$out.$$
fi
if [ -e "$out" ] && [ -n "$(ls -A "$out" 2>/dev/null)" ]; then
	die "--out $out exists and is not empty: results are never overwritten"
fi
mkdir -p "$out"
res=$(cd "$out" && pwd)
console_patterns "$res" || die "cannot write the console patterns to $res"

mode_append() {
	case $1 in
	off) echo proxy_exec=disable ;;
	v4) echo proxy_exec=enable,return=ttwu ;;
	mutexonly) echo proxy_exec=enable,rwsem=off ;;
	current|v6handoff) echo '' ;;
	esac
}
# mode_feature MODE: the scheduler feature the guest sets before the
# scenarios (guest-bench.sh --sched-feature), none for most modes.
mode_feature() {
	case $1 in
	v6handoff) echo PROXY_V6_HANDOFF ;;
	*) echo '' ;;
	esac
}

clock=$(clock_norm "$clock")
# Plans are in guest seconds: wall is the wall seconds a guest second of a
# busy scenario takes, slack how many times its estimate a boot may take
# before the guest counts as hung (clock_plan); boot_est the boot's own.
clock_plan "$clock"
wall=$clock_wall slack=$clock_slack boot_est=15
[ "$clock" = host ] || boot_est=20

# Guessed guest seconds of one scenario run, for timeouts and the estimate.
est() {
	case $1 in
	cyclictest) echo $((duration + 4)) ;;
	cyclictest-load) echo $((duration + 6)) ;;
	hackbench)
		# shellcheck disable=SC2086 # "groups loops runs"
		set -- $hb; echo $(($3 * hb_secs)) ;;
	messaging)
		# shellcheck disable=SC2086
		set -- $msg; echo $(($3 * msg_secs)) ;;
	*) echo $((duration + 3)) ;;
	esac
}
nmodes=$(echo "$modes" | tr ',' '\n' | wc -l)
nscen=$(echo "$scenarios" | tr ',' '\n' | wc -l)

# The boots in order, MODE:FIRST_REP:REPS each.  Interleaved, a boot runs
# one repetition and the modes take turns; a mode with several boots keeps
# each boot's guest/run.sh files in <mode>/boot<FIRST_REP>/.
plan='' reps_per_boot=$repeat
if [ -n "$interleave" ] && [ "$repeat" -gt 1 ]; then
	reps_per_boot=1
	r=0
	while [ $r -lt "$repeat" ]; do
		r=$((r + 1))
		for m in $(echo "$modes" | tr ',' ' '); do plan="$plan $m:$r:1"; done
	done
else
	for m in $(echo "$modes" | tr ',' ' '); do plan="$plan $m:1:$repeat"; done
fi
nboots=$(echo "$plan" | wc -w)
multi=''; [ "$nboots" = "$nmodes" ] || multi=1
# Planned wall seconds of one boot (all boots are alike) and of the run.
per_boot=0
for s in $(echo "$scenarios" | tr ',' ' '); do
	per_boot=$((per_boot + reps_per_boot * $(est "$s")))
done
per_boot=$((boot_est + per_boot * wall))
total_est=$((nboots * per_boot))
# The guest is killed after slack times its estimate (TCG on a busy host).
boot_timeout=$((120 + slack * per_boot))

{
	echo "format=proxyexec-bench-params"
	echo "version=1"
	echo "created=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "modes=$modes"
	echo "scenarios=$scenarios"
	echo "locks=$locks"
	echo "duration_s=$duration"
	echo "cpus=$cpus"
	echo "repeat=$repeat"
	echo "interleave=$([ -n "$multi" ] && [ -n "$interleave" ] && echo 1 || echo 0)"
	echo "boots=$nboots"
	echo "clock=$clock"
	echo "burn_us=$burn"
	echo "iterations=$iters"
	echo "quick=${quick:-0}"
	echo "hackbench=$hb"
	echo "messaging=$msg"
	echo "boot_timeout_s=$boot_timeout"
	echo "inject_host_io=$inject"
	for m in $(echo "$modes" | tr ',' ' '); do
		echo "append_$m=$(mode_append "$m")"
		[ -z "$(mode_feature "$m")" ] || echo "sched_feature_$m=$(mode_feature "$m")"
	done
	echo "git_head=$(git -C "$top" rev-parse HEAD 2>/dev/null || echo none)"
	echo "git_dirty=$(git -C "$top" status --porcelain 2>/dev/null | wc -l)"
	echo "kernel_release=$(cat "$top/build/obj-lean/include/config/kernel.release" 2>/dev/null || echo unknown)"
	echo "bzimage_md5=$(md5sum < "$bz" | cut -d' ' -f1)"
	echo "host=$(uname -n) $(uname -r)"
	echo "host_cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
	echo "host_nproc=$(nproc)"
	echo "qemu=$(qemu-system-x86_64 --version 2>/dev/null | head -1)"
} > "$res/params.txt"
{
	git -C "$top" rev-parse HEAD 2>/dev/null || true
	git -C "$top" status --porcelain 2>/dev/null || true
	git -C "$top" diff 2>/dev/null || true
} > "$res/testid.txt"

fmt_t() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }
echo "bench: modes $modes; scenarios $scenarios; ${duration}s each, repeat $repeat" \
	"($nboots boot$([ "$nboots" = 1 ] || echo s)$([ -z "$multi" ] || [ -z "$interleave" ] || echo ', interleaved')), $cpus vCPUs, clock $clock;" \
	"estimated $(fmt_t $total_est); results in $res" >&2

# progress MODE BOOT RUNS_BEFORE PLANNED_BEFORE START: the guest's output
# to <mode>/run.log, its begin/end lines as progress lines with elapsed and
# estimated time.
progress() {
	pm=$1 pb=$2 k=$3 done_plan=$4 start=$5 log=$res/$1/run.log
	while IFS= read -r line; do
		printf '%s\n' "$line" >> "$log"
		case $line in
		"bench-guest: begin "*)
			# shellcheck disable=SC2086 # split into words
			set -- $line
			k=$((k + 1))
			el=$(($(date +%s) - start))
			if [ "$done_plan" -gt 0 ] && [ "$el" -gt 0 ]; then
				left=$(( (total_est - done_plan) * el / done_plan ))
			else
				left=$((total_est - done_plan))
			fi
			echo "bench: [$pm, boot $pb/$nboots] $3 (run $4/$repeat, $k/$((nboots * nscen * reps_per_boot)))" \
				"elapsed $(fmt_t "$el"), ~$(fmt_t "$left") left" >&2 ;;
		"bench-guest: end "*)
			# shellcheck disable=SC2086
			set -- $line
			done_plan=$((done_plan + wall * $(est "$3")))
			[ "$5" = rc=0 ] || echo "bench: [$pm] $3 run $4 FAILED ($5, log $res/$pm/$3/r$4.out)" >&2 ;;
		"bench-guest: "*": "*|"run: "*) echo "$line" >&2 ;;
		esac
	done
}

start=$(date +%s)
b=0 failed=0 stop=''
# Ctrl-C (or TERM): the guest of the moment is stopped by guest/run.sh,
# no further boot starts, and what ran is still summarized and plotted.
trap 'stop=1' INT TERM
for boot in $plan; do
	m=${boot%%:*} first=${boot#*:}
	reps=${first#*:} first=${first%%:*}
	if [ -n "$stop" ]; then
		echo "bench: interrupted: boots from $m (run $first) on not run" >&2
		failed=1
		break
	fi
	b=$((b + 1))
	mkdir -p "$res/$m"
	[ -f "$res/$m/run.log" ] || : > "$res/$m/run.log"
	bout=$res/$m tag=$m
	[ -z "$multi" ] || bout=$res/$m/boot$first tag=${m}_boot$first
	mkdir -p "$bout"
	# A kernel build may replace the image between boots: record each one.
	md5=$(md5sum < "$bz" | cut -d' ' -f1)
	grep -q "^bzimage_md5_$m=" "$res/params.txt" || echo "bzimage_md5_$m=$md5" >> "$res/params.txt"
	[ -z "$multi" ] || echo "bzimage_md5_$tag=$md5" >> "$res/params.txt"
	# TCG times follow the host's load: other guests or builds on 2 cores.
	load0=$(cut -d' ' -f1 /proc/loadavg)
	# The guest writes <scenario>/r<rep>.* into the mode's folder, its
	# share; guest/run.sh's own files go to the boot's.
	feature=$(mode_feature "$m")
	# --inject-host-io: the boot of that mode that runs that repetition.
	bad=''
	if [ "${inject%%:*}" = "$m" ] && [ "${inject#*:}" -ge "$first" ] && [ "${inject#*:}" -lt $((first + reps)) ]; then
		bad=${inject#*:}
	fi
	{
		rc=0
		"$top/guest/run.sh" --kernel lean --cpus "$cpus" --clock "$clock" --append "$(mode_append "$m")" \
			--timeout "$boot_timeout" --share "$res/$m" --out "$bout" \
			-- sh /px/repo/bench/guest-bench.sh --out /px/share --duration "$duration" \
			--first-rep "$first" --repeat "$reps" \
			--scenarios "$scenarios" --burn "$burn" --hackbench "$hb" --messaging "$msg" \
			${feature:+--sched-feature "$feature"} ${bad:+--inject-host-io "$bad"} \
			${iters:+--iterations "$iters"} 2>&1 < /dev/null || rc=$?
		echo "$rc" > "$bout/run.rc"
	} | progress "$m" "$b" $(( (b - 1) * nscen * reps_per_boot )) $(( (b - 1) * per_boot + boot_est )) "$start"
	rc=$(cat "$bout/run.rc" 2>/dev/null || echo 130)
	# cyclictest's histograms arrive whole (100000 buckets): keep the
	# comment lines and the buckets that counted something.
	for h in "$res/$m"/*/r*.cthist; do
		[ -f "$h" ] || continue
		awk '/^#/ || NF < 2 { print; next } { for (i = 2; i <= NF; i++) if ($i + 0) { print; next } }' \
			"$h" > "$h.tmp" && mv "$h.tmp" "$h"
	done
	echo "hostload_$tag=$load0 $(cut -d' ' -f1 /proc/loadavg)" >> "$res/params.txt"
	result=$(cat "$bout/result" 2>/dev/null || echo none)
	if [ "$result" != ok ] || [ "$rc" != 0 ]; then
		echo "bench: [$m, boot $b/$nboots] guest $result (exit $rc): see $bout/console.log" >&2
		failed=1
	fi
	if [ -f "$bout/console.log" ]; then console_badness "$bout/console.log" "$res"; fi > "$bout/badness"
	if [ -s "$bout/badness" ]; then
		echo "bench: [$m, boot $b/$nboots] kernel log: $(wc -l < "$bout/badness") bad lines, first:" \
			"$(head -1 "$bout/badness") (all: $bout/badness)" >&2
		failed=1
	fi
	if [ -n "$feature" ] && ! grep -qx "sched_feature: $feature on" "$bout/bench-kernel.txt" 2>/dev/null; then
		echo "bench: [$m, boot $b/$nboots] FAILED: the guest could not set sched feature $feature" \
			"(no such feature in this kernel?), nothing ran: see $bout/output.log" >&2
		failed=1
	fi
	if grep -q 'sched: unknown proxy_exec=' "$bout/console.log" 2>/dev/null; then
		echo "bench: [$m] $(grep -o 'sched: unknown proxy_exec=.*' "$bout/console.log" | head -1)" >&2
		echo "bench: [$m] not available in this kernel (falls back to current)" >&2
	fi
done
# Several boots per mode: the mode's host load is from its first boot's
# start to its last boot's end.
if [ -n "$multi" ]; then
	for m in $(echo "$modes" | tr ',' ' '); do
		l=$(sed -n "s/^hostload_${m}_boot[0-9]*=//p" "$res/params.txt")
		[ -z "$l" ] || echo "hostload_$m=$(echo "$l" | head -1 | cut -d' ' -f1) $(echo "$l" | tail -1 | cut -d' ' -f2)" >> "$res/params.txt"
	done
fi
echo "bench: all boots done after $(fmt_t $(($(date +%s) - start)))" >&2

# The warp guard's verdicts (guest-bench.sh writes <scenario>/r<rep>.warp):
# warp.tsv, one line per run "mode scenario run verdict reason"; a run
# without its file is "missing" (it did not finish).  Rejected runs are
# named here; a mode and scenario without an accepted run fails the bench.
for m in $(echo "$modes" | tr ',' ' '); do
	for s in $(echo "$scenarios" | tr ',' ' '); do
		r=0 good=0
		while [ $r -lt "$repeat" ]; do
			r=$((r + 1))
			w=$res/$m/$s/r$r.warp
			if [ -f "$w" ]; then
				v=$(sed -n '1s/^verdict: //p' "$w") why=$(sed -n '2s/^reason: //p' "$w")
			else
				v=missing why='no r'$r'.warp: the run did not finish'
			fi
			printf '%s\t%s\t%s\t%s\t%s\n' "$m" "$s" "$r" "$v" "$why" >> "$res/warp.tsv"
			case $v in
			ok) good=$((good + 1)) ;;
			rejected) echo "bench: [$m] $s run $r REJECTED by the warp guard, left out of the figures: $why ($w)" >&2 ;;
			esac
		done
		if [ "$good" = 0 ] && grep -q "^$m	$s	[0-9]*	rejected	" "$res/warp.tsv"; then
			echo "bench: [$m] $s: FAILED: no run left that the warp guard accepted" >&2
			failed=1
		fi
	done
done

# summarize.sh fails on any run that is not ok; a run the warp guard
# rejected ("rejected by the warp guard: ..." in runs.tsv) counts only
# through the check above (no accepted run left).
sumrc=0
"$top/bench/summarize.sh" "$res" || sumrc=$?
if [ "$sumrc" != 0 ] && { [ ! -f "$res/runs.tsv" ] ||
	awk -F'\t' '$4 != "ok" && $11 !~ /^rejected by the warp guard/ { bad = 1 } END { exit !bad }' "$res/runs.tsv" ||
	! awk -F'\t' '$4 != "ok" { n++ } END { exit !n }' "$res/runs.tsv"; }; then
	failed=1
fi
# The four-way table (proxy execution vs priority inheritance), with
# rt_mutexes among the lock types.
case ,$scenarios, in
*-rtmutex,*) "$top/bench/locktable.sh" "$res" || failed=1 ;;
esac
if [ -n "$plots" ]; then
	"$top/plots/plot.sh" "$res" || echo "bench: plots/plot.sh failed (results are complete)" >&2
fi
cmp=0
if [ -n "$compare" ]; then
	"$top/bench/compare.sh" "$res" "$compare" || cmp=$?
fi
echo "bench: results in $res" >&2
[ "$failed" = 0 ] || exit 1
[ "$cmp" = 0 ] || exit 3
exit 0

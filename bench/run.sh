#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Latency benchmark: boot the lean guest once per proxy-execution mode, run
# the same scenarios in each, then summarize, plot and optionally compare.
#
# Usage: bench/run.sh [options]
#   --modes LIST       comma list of off,v4,current (default off,v4,current)
#                        off      boot with proxy_exec=disable
#                        v4       proxy_exec=enable,return=ttwu (return
#                                 migration in ttwu; marked "not available"
#                                 when the kernel does not know it)
#                        current  proxy on, the kernel's default
#   --scenarios LIST   comma list of cfs,rt,dl,chain,xcpu,rename,cyclictest,
#                      cyclictest-load,hackbench (default all)
#   --duration SEC     seconds per scenario run (default 20; --quick 1)
#   --cpus N           guest vCPUs (default 2)
#   --repeat N         runs of every scenario per boot (default 1); the
#                      table then shows medians and the p99 spread
#   --burn USEC        owner critical section of the inversions (default 1000)
#   --quick            CI size: 1 s per scenario, small hackbench (~1.5 min)
#   --compare DIR      compare with a saved results folder, flag regressions
#   --out DIR          results folder, must not exist or be empty (default
#                      bench/results/<date-time>/)
#   --no-plots         skip plots/plot.sh
#   -h, --help         this text
#
# Results: see bench/README.md (per mode: console.log, dmesg.log, run.log,
# <scenario>/r<rep>.*; summary.json, summary.tsv, summary.txt, plots/).
# Exit status: 0 all ran; 1 a scenario failed or a guest hung (marked in
# the table, partial results kept); 2 usage; 3 --compare found regressions.
#
# Examples:
#   bench/run.sh                               # all modes and scenarios
#   bench/run.sh --quick                       # CI size
#   bench/run.sh --modes off,current --scenarios cfs,rt --repeat 3
#   bench/run.sh --compare bench/results/20261203-071500
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)

usage() {
	[ $# -gt 0 ] && echo "bench: $*" >&2
	sed -n '/^# Usage:/,/^set -eu/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//' >&2
	exit 2
}
# checkarg --opt "$value" regex: the value must match the regex.
checkarg() {
	[ -n "${2+x}" ] || usage "$1 needs an argument"
	echo "$2" | grep -qE "$3" || usage "$1: bad argument '$2'"
}
die() { echo "bench: $*" >&2; exit 1; }

all_modes=off,v4,current
all_scen=cfs,rt,dl,chain,xcpu,rename,cyclictest,cyclictest-load,hackbench
modes=$all_modes scenarios=$all_scen duration='' cpus=2 repeat=1 burn=1000
quick='' compare='' out='' plots=1
while test $# -gt 0; do
	case $1 in
	--modes) checkarg "$1" "${2-}" '^(off|v4|current)(,(off|v4|current))*$'; modes=$2; shift ;;
	--scenarios) checkarg "$1" "${2-}" '^(cfs|rt|dl|chain|xcpu|rename|cyclictest|cyclictest-load|hackbench)(,(cfs|rt|dl|chain|xcpu|rename|cyclictest|cyclictest-load|hackbench))*$'
		scenarios=$2; shift ;;
	--duration) checkarg "$1" "${2-}" '^[1-9][0-9]*$'; duration=$2; shift ;;
	--cpus) checkarg "$1" "${2-}" '^([2-9]|[1-9][0-9]+)$'; cpus=$2; shift ;;
	--repeat) checkarg "$1" "${2-}" '^[1-9][0-9]*$'; repeat=$2; shift ;;
	--burn) checkarg "$1" "${2-}" '^[1-9][0-9]*$'; burn=$2; shift ;;
	--quick) quick=1 ;;
	--compare) checkarg "$1" "${2-}" '.'; compare=$2; shift ;;
	--out) checkarg "$1" "${2-}" '.'; out=$2; shift ;;
	--no-plots) plots='' ;;
	-h|--help) usage ;;
	*) usage "unknown option '$1'" ;;
	esac
	shift
done
# Sizes: hackbench "groups loops runs" and its guessed seconds per run.
if [ -n "$quick" ]; then
	: "${duration:=1}"; hb='2 50 3' hb_secs=2
else
	: "${duration:=20}"; hb='4 100 5' hb_secs=6
fi
[ -z "$compare" ] || [ -f "$compare/summary.tsv" ] ||
	usage "--compare $compare: no summary.tsv there (not a results folder)"
[ "$(echo "$scenarios" | tr ',' '\n' | sort | uniq -d)" = '' ] || usage "--scenarios: a scenario twice"
[ "$(echo "$modes" | tr ',' '\n' | sort | uniq -d)" = '' ] || usage "--modes: a mode twice"

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

mode_append() {
	case $1 in
	off) echo proxy_exec=disable ;;
	v4) echo proxy_exec=enable,return=ttwu ;;
	current) echo '' ;;
	esac
}

# Guessed seconds of one scenario run, for timeouts and the estimate.
est() {
	case $1 in
	cyclictest) echo $((duration + 4)) ;;
	cyclictest-load) echo $((duration + 6)) ;;
	hackbench)
		# shellcheck disable=SC2086 # "groups loops runs"
		set -- $hb; echo $(($3 * hb_secs)) ;;
	*) echo $((duration + 3)) ;;
	esac
}
nmodes=$(echo "$modes" | tr ',' '\n' | wc -l)
nscen=$(echo "$scenarios" | tr ',' '\n' | wc -l)
boot_est=15
per_mode=$boot_est
for s in $(echo "$scenarios" | tr ',' ' '); do
	per_mode=$((per_mode + repeat * $(est "$s")))
done
total_est=$((nmodes * per_mode))
# The guest is killed after three times its estimate (TCG on a busy host).
boot_timeout=$((120 + 3 * per_mode))

{
	echo "format=proxyexec-bench-params"
	echo "version=1"
	echo "created=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "modes=$modes"
	echo "scenarios=$scenarios"
	echo "duration_s=$duration"
	echo "cpus=$cpus"
	echo "repeat=$repeat"
	echo "burn_us=$burn"
	echo "quick=${quick:-0}"
	echo "hackbench=$hb"
	echo "boot_timeout_s=$boot_timeout"
	for m in $(echo "$modes" | tr ',' ' '); do echo "append_$m=$(mode_append "$m")"; done
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
echo "bench: modes $modes; scenarios $scenarios; ${duration}s each, repeat $repeat, $cpus vCPUs;" \
	"estimated $(fmt_t $total_est); results in $res" >&2

# progress MODE IDX PLANNED_BEFORE START: the guest's output to run.log,
# its begin/end lines as progress lines with elapsed and estimated time.
progress() {
	pm=$1 pi=$2 done_plan=$3 start=$4 log=$res/$1/run.log
	nrun=$((nscen * repeat))
	k=$(( (pi - 1) * nrun ))
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
			echo "bench: [$pm $pi/$nmodes] $3 (run $4/$repeat, $k/$((nmodes * nrun)))" \
				"elapsed $(fmt_t "$el"), ~$(fmt_t "$left") left" >&2 ;;
		"bench-guest: end "*)
			# shellcheck disable=SC2086
			set -- $line
			done_plan=$((done_plan + $(est "$3")))
			[ "$5" = rc=0 ] || echo "bench: [$pm] $3 run $4 FAILED ($5, log $res/$pm/$3/r$4.out)" >&2 ;;
		"bench-guest: "*": "*|"run: "*) echo "$line" >&2 ;;
		esac
	done
	# The next boot starts at the planned position of the next mode.
	:
}

start=$(date +%s)
i=0 failed=0 stop=''
# Ctrl-C (or TERM): the guest of the moment is stopped by guest/run.sh,
# no further mode boots, and what ran is still summarized and plotted.
trap 'stop=1' INT TERM
for m in $(echo "$modes" | tr ',' ' '); do
	if [ -n "$stop" ]; then
		echo "bench: interrupted: modes from $m on not run" >&2
		failed=1
		break
	fi
	i=$((i + 1))
	mkdir -p "$res/$m"
	: > "$res/$m/run.log"
	# A kernel build may replace the image between boots: record each one.
	echo "bzimage_md5_$m=$(md5sum < "$bz" | cut -d' ' -f1)" >> "$res/params.txt"
	# TCG times follow the host's load: other guests or builds on 2 cores.
	load0=$(cut -d' ' -f1 /proc/loadavg)
	{
		rc=0
		"$top/guest/run.sh" --kernel lean --cpus "$cpus" --append "$(mode_append "$m")" \
			--timeout "$boot_timeout" --share "$top/bench" --out "$res/$m" \
			-- sh guest-bench.sh --duration "$duration" --repeat "$repeat" \
			--scenarios "$scenarios" --burn "$burn" --hackbench "$hb" 2>&1 < /dev/null || rc=$?
		echo "$rc" > "$res/$m/run.rc"
	} | progress "$m" "$i" $(( (i - 1) * per_mode + boot_est )) "$start"
	rc=$(cat "$res/$m/run.rc" 2>/dev/null || echo 130)
	# cyclictest's histograms arrive whole (100000 buckets): keep the
	# comment lines and the buckets that counted something.
	for h in "$res/$m"/*/r*.cthist; do
		[ -f "$h" ] || continue
		awk '/^#/ || NF < 2 { print; next } { for (i = 2; i <= NF; i++) if ($i + 0) { print; next } }' \
			"$h" > "$h.tmp" && mv "$h.tmp" "$h"
	done
	echo "hostload_$m=$load0 $(cut -d' ' -f1 /proc/loadavg)" >> "$res/params.txt"
	result=$(cat "$res/$m/result" 2>/dev/null || echo none)
	if [ "$result" != ok ] || [ "$rc" != 0 ]; then
		echo "bench: [$m] guest $result (exit $rc): see $res/$m/console.log" >&2
		failed=1
	fi
	if grep -q 'sched: unknown proxy_exec=' "$res/$m/console.log" 2>/dev/null; then
		echo "bench: [$m] $(grep -o 'sched: unknown proxy_exec=.*' "$res/$m/console.log" | head -1)" >&2
		echo "bench: [$m] not available in this kernel (falls back to current)" >&2
	fi
done
echo "bench: all boots done after $(fmt_t $(($(date +%s) - start)))" >&2

"$top/bench/summarize.sh" "$res" || failed=1
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

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The four-way table of a bench/run.sh --locks mutex,rtmutex results
# folder: per lock scenario, proxy execution off/on x lab mutex/rt_mutex,
# i.e. the inversion, priority inheritance (PI), proxy execution, and PI
# with proxy execution on; the waiter's wait (p50/p99/max), p99 against
# off + mutex, the runs' p99 range and spread, and the owner's CPU share
# while the waiter waited; contend: operations per second instead.
#
# Usage: bench/locktable.sh RESULTS_DIR
#        bench/locktable.sh -h|--help|-V|--version
#
# Reads summary.tsv and runs.tsv (bench/summarize.sh) and each run's
# r<N>.json (checks.owner_cpu_share.mean, checks.operations_per_s); writes
# locks.tsv and locks.txt (printed).  A mode other than off is a proxy
# mode (normally current).  Columns of locks.tsv, tab-separated, "-" for
# none: scenario, mode, lock, mechanism, status, runs_ok, runs, count,
# p50, p99, max (ns), p99_min, p99_max, p99/off (p99 over off + mutex's),
# spread_p99 ((max - min) / median of the runs), owner_share (median of
# the runs' mean share, 0..1), ops_per_s (median), ops/off.
# Exit status: 0; 1 no rt_mutex results in the folder; 64 usage.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cli_prog=locktable
# shellcheck source=lib/sh/cli.sh
. "$top/lib/sh/cli.sh"
case $#:${1-} in
1:-h|1:--help) usage ;;
1:-V|1:--version) echo "$cli_prog (proxyexec) $(cat "$top/tools/VERSION")"; exit 0 ;;
1:-*) usage "unknown option '$1'" ;;
1:*) [ -f "$1/summary.tsv" ] || usage "$1: no summary.tsv (run bench/summarize.sh first)" ;;
0:) usage "no results folder given" ;;
*) usage "one results folder only, not $#" ;;
esac
command -v jq > /dev/null || die "jq not found (make deps)"
res=$(cd "$1" && pwd)
param() { sed -n "s/^$1=//p" "$res/params.txt" | head -1; }
modes=$(param modes | tr ',' ' ')
scenarios=$(param scenarios | tr ',' ' ')
T=${TMPDIR-/tmp}/pxlocks.$$
trap 'rm -f "$T".*' 0

# The lock scenarios, in the run's order; some ran on rt_mutexes.
case " $scenarios " in
*-rtmutex\ *) ;;
*) die "$res: no SCENARIO-rtmutex results (bench/run.sh --locks mutex,rtmutex)" ;;
esac
bases=$(for s in $scenarios; do
	case ${s%-rtmutex} in cfs|rt|dl|chain|xcpu|cgweight|mixed|contend) echo "${s%-rtmutex}" ;; esac
done | awk '!seen[$0]++')

# runval MODE SCEN JQ: the median over the ok runs (runs.tsv) of JQ in
# their r<N>.json, "-" when none has it.
runval() {
	awk -F'\t' -v m="$1" -v s="$2" '$1 == m && $2 == s && $4 == "ok" { print $3 }' "$res/runs.tsv" |
		while read -r r; do
			jq -r "$3 // empty" "$res/$1/$2/r$r.json" 2>/dev/null || true
		done | sort -g | awk '{ v[++n] = $1 }
			END { if (!n) print "-"; else if (n % 2) print v[(n + 1) / 2]; else printf "%.6g\n", (v[n / 2] + v[n / 2 + 1]) / 2 }'
}

# One line per scenario, mode and lock: the summary's figures and ours.
: > "$T.rows"
for b in $bases; do
	for m in $modes; do
		for l in mutex rtmutex; do
			s=$b; [ $l = mutex ] || s=$b-$l
			case $b:$m:$l in
			contend:off:mutex) mech='mutex' ;;
			contend:off:rtmutex) mech='rt_mutex (PI)' ;;
			contend:*:mutex) mech='mutex, proxy on' ;;
			contend:*) mech='rt_mutex, proxy on' ;;
			*:off:mutex) mech='none (the inversion)' ;;
			*:off:rtmutex) mech='PI' ;;
			*:mutex) mech='proxy execution' ;;
			*) mech='PI, proxy on' ;;
			esac
			row=$(awk -F'\t' -v m="$m" -v s="$s" -v OFS='\t' '$1 == m && $2 == s {
				print $3, $4, $5, $6, $7, $8, $10, $11, $12, $19 }' "$res/summary.tsv")
			# Not run (the self-test runs some on mutexes only).
			[ -n "$row" ] || continue
			if [ "$b" = contend ]; then
				share=- ops=$(runval "$m" "$s" .checks.operations_per_s)
			else
				share=$(runval "$m" "$s" .checks.owner_cpu_share.mean) ops=-
			fi
			printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$b" "$m" "$l" "$mech" "$row" "$share" "$ops" >> "$T.rows"
		done
	done
done
# Ratios to off + mutex of the same scenario: p99 and operations/s.
awk -F'\t' -v OFS='\t' '
	function ratio(a, b) { return a == "-" || b == "-" || b + 0 == 0 ? "-" : sprintf("%.4g", a / b) }
	{ row[NR] = $0; if ($2 == "off" && $3 == "mutex") { p99[$1] = $10; ops[$1] = $16 } }
	END {
		for (i = 1; i <= NR; i++) {
			split(row[i], f, "\t")
			print f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[9], f[10], f[11], f[12], f[13],
				ratio(f[10], p99[f[1]]), f[14], f[15], f[16], ratio(f[16], ops[f[1]])
		}
	}' "$T.rows" > "$res/locks.tsv"

clock=$(param clock)
{
	echo "# proxy execution vs rt_mutex priority inheritance, $(param created), $(param kernel_release), git $(param git_head | cut -c1-12)"
	echo "# clock $clock, $(param cpus) vCPUs, $(param repeat) run(s) of $(param duration_s) s per scenario, interleave=$(param interleave);" \
		"times in ms, medians over the runs; p99/off: over proxy off + mutex"
	echo "# share: the (last) owner's CPU time over the time from the waiter's request to its unlock, the mean over the waits (median of the runs')"
	! echo "$bases" | grep -qx contend ||
		echo "# contend: 4 workers, 2 locks, 10-us critical sections; ops/s instead of the owner share, ratio to off + mutex"
	awk -F'\t' '
		function ms(v) { if (v == "-") return "-"; v /= 1e6
			return v >= 100 ? sprintf("%.0f", v) : v >= 10 ? sprintf("%.1f", v) : v >= 1 ? sprintf("%.2f", v) : sprintf("%.3f", v) }
		function x(v) { return v == "-" ? "-" : v < 0.01 ? sprintf("%.4f", v) : v < 0.1 ? sprintf("%.3f", v) : sprintf("%.2f", v) }
		function pc(v) { return v == "-" ? "-" : sprintf("%.0f%%", v * 100) }
		BEGIN { printf "%-9s %-8s %-8s %-22s %5s %8s %8s %8s %8s %15s %7s %7s %9s %7s  %s\n", "scenario", "mode", "lock",
			"mechanism", "runs", "p50", "p99", "max", "p99/off", "p99 min..max", "spread", "share", "ops/s", "ops/off", "status" }
		{
			if (prev != "" && prev != $1) print ""
			prev = $1
			printf "%-9s %-8s %-8s %-22s %5s %8s %8s %8s %8s %15s %7s %7s %9s %7s  %s\n", $1, $2, $3, $4, $6 "/" $7,
				ms($9), ms($10), ms($11), x($14), ms($12) ".." ms($13), pc($15),
				$16 == "-" ? "-" : sprintf("%.3f", $16), $17 == "-" ? "-" : sprintf("%.0f", $17), x($18), $5
		}' "$res/locks.tsv"
} > "$res/locks.txt"
cat "$res/locks.txt"

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Host-side self-test of the bench: run bench/run.sh --quick (it boots its
# own guests, so it cannot be a tests/guest/ script), then check what it
# left.  Prints "ok NAME" / "not ok NAME - reason" like the other tests.
#
# Usage: bench/selftest.sh [--results DIR] [-- run.sh options]
#   --results DIR  check an existing results folder instead of running
#   run.sh options replace the default "--quick" (e.g. -- --quick --cpus 2)
#
# Checks: the run exits 0; every file exists for each mode and scenario;
# summary.json has the shape bench/README.md documents (jq; without jq only
# format, version and balanced braces); each histogram holds exactly the
# samples taken (inversion/renamedemo: hist == latency.count == samples ==
# acquisitions; cyclictest: buckets + overflows == its totals == cycles;
# hackbench: one time per run); the CFS inversion p99 is smaller with proxy
# on (current) than off; a mode the kernel does not know is marked.
# Results: build/bench-selftest/<date-time>/ (the newest 5 are kept).
# Exit status: the number of failed checks (0 all passed).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
results=''
while test $# -gt 0; do
	case $1 in
	--results) [ -d "${2-}" ] || { echo "selftest: --results needs a folder" >&2; exit 2; }; results=$2; shift ;;
	--) shift; break ;;
	-h|--help) sed -n '/^# Usage:/,/^# Results:/p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
	*) echo "selftest: unknown option '$1'" >&2; exit 2 ;;
	esac
	shift
done
[ $# -gt 0 ] || set -- --quick

failed=0
ok() { echo "ok $1"; }
notok() { echo "not ok $1 - $2"; failed=$((failed + 1)); }

if [ -z "$results" ]; then
	base=$top/build/bench-selftest
	mkdir -p "$base"
	results=$base/$(date -u +%Y%m%d-%H%M%S)
	[ ! -e "$results" ] || results=$results.$$
	rc=0
	"$top/bench/run.sh" "$@" --out "$results" > "$base/last.log" 2>&1 < /dev/null || rc=$?
	cp "$base/last.log" "$results/run.log" 2>/dev/null || true
	if [ "$rc" = 0 ]; then
		ok bench/quick-runs
	else
		notok bench/quick-runs "bench/run.sh $* exited $rc: $(grep -E 'FAILED|hung|panic|bench: ' "$base/last.log" | tail -3 | tr '\n' ' ')(log $results/run.log)"
	fi
	ls -1d "$base"/*/ 2>/dev/null | sort | head -n -5 | while read -r d; do rm -rf "$d"; done
fi
res=$(cd "$results" && pwd)
echo "# results: $res"
[ -f "$res/params.txt" ] || { notok bench/params "no $res/params.txt"; exit "$failed"; }
param() { sed -n "s/^$1=//p" "$res/params.txt" | head -1; }
modes=$(param modes | tr ',' ' ')
scenarios=$(param scenarios | tr ',' ' ')
repeat=$(param repeat)
hb_runs=$(param hackbench | awk '{ print $3 }')
havejq=''; command -v jq > /dev/null && havejq=1

# Every file, per mode.
for m in $modes; do
	miss=''
	for f in console.log dmesg.log bench-kernel.txt result run.log; do
		[ -s "$res/$m/$f" ] || miss="$miss $m/$f"
	done
	[ "$(cat "$res/$m/result" 2>/dev/null)" = ok ] || miss="$miss ($m/result: $(cat "$res/$m/result" 2>/dev/null))"
	for s in $scenarios; do
		d=$m/$s
		r=0
		while [ $r -lt "$repeat" ]; do
			r=$((r + 1))
			want="r$r.out r$r.rc"
			case $s in
			cyclictest) want="$want r$r.cthist r$r.ctjson r$r.hist" ;;
			cyclictest-load) want="$want r$r.cthist r$r.ctjson r$r.hist r$r-load.json" ;;
			hackbench) want="$want r$r.times" ;;
			*) want="$want r$r.json r$r.hist" ;;
			esac
			for f in $want; do [ -s "$res/$d/$f" ] || miss="$miss $d/$f"; done
			[ "$(cat "$res/$d/r$r.rc" 2>/dev/null)" = 0 ] || miss="$miss ($d/r$r.rc not 0)"
		done
		[ "$s" = hackbench ] || [ -s "$res/$d/all.hist" ] || miss="$miss $d/all.hist"
		[ "$s" = hackbench ] || [ -s "$res/plots/$s-hist.png" ] || miss="$miss plots/$s-hist.png"
		if [ "$s" = hackbench ]; then
			[ -s "$res/plots/$s-runs.png" ] || miss="$miss plots/$s-runs.png"
		else
			[ -s "$res/plots/$s-cdf.png" ] || miss="$miss plots/$s-cdf.png"
		fi
	done
	[ -z "$miss" ] && ok "bench/files-$m" ||
		notok "bench/files-$m" "$(echo "$miss" | wc -w) missing:$(echo "$miss" | cut -d' ' -f1-13)$([ "$(echo "$miss" | wc -w)" -le 12 ] || echo ' ...')"
done
miss=''
for f in params.txt summary.json summary.tsv summary.txt modes.tsv plots/overview.png; do
	[ -s "$res/$f" ] || miss="$miss $f"
done
[ -z "$miss" ] && ok bench/files-summary || notok bench/files-summary "missing:$miss"

# summary.json: the documented shape.
sj=$res/summary.json
if [ ! -s "$sj" ]; then
	notok bench/summary-json-shape "no summary.json"
elif [ -n "$havejq" ]; then
	if jq -e '
		def num_or_null: . == null or type == "number";
		.format == "proxyexec-bench-summary" and .version == 1
		and (.created | type == "string") and (.results_dir | type == "string")
		and (.params | (.modes | type == "array") and (.scenarios | type == "array")
			and (.duration_s | type == "number") and (.cpus | type == "number")
			and (.repeat | type == "number") and (.burn_us | type == "number")
			and (.quick | type == "boolean") and (.hackbench | type == "string"))
		and (.system | (.git_head | type == "string") and (.kernel_release | type == "string")
			and (.host_nproc | type == "number"))
		and (.modes | length) == (.params.modes | length)
		and all(.modes[]; (.name | IN("off", "v4", "current")) and (.append | type == "string")
			and (.boot | IN("ok", "hung", "panic", "nostatus", "none"))
			and (.available | type == "boolean") and (.proxy_exec | IN("enabled", "disabled", "unknown"))
			and (.return_migration == null or (.return_migration | type == "string"))
			and (.kernel == null or (.kernel | type == "string"))
			and (.host_load == null or (.host_load | type == "array" and length == 2))
			and (.note == null or (.note | type == "string")) and (.console_log | type == "string"))
		and (.results | length) == ((.params.modes | length) * (.params.scenarios | length))
		and all(.results[];
			(.mode | type == "string") and (.scenario | type == "string")
			and (.metric | IN("lock_wait", "rename", "wakeup_latency", "run_time")) and .unit == "ns"
			and (.status | IN("ok", "partial", "failed"))
			and (.runs | type == "number") and (.runs_ok | type == "number") and (.repeats | length) == .runs
			and ([.median.count, .median.p50, .median.p99, .median.p99_9, .median.max] | all(num_or_null))
			and (.p99_range | length == 2) and ([.ratio_to_off[]] | all(num_or_null))
			and ((.ratio_to_off | keys) == ["max", "p50", "p99"])
			and (.failure == null or (.failure | type == "string"))
			and (.note == null or (.note | type == "string"))
			and (if .status == "ok" then .median.count > 0 and .median.p50 <= .median.p99
				and .median.p99 <= .median.p99_9 and .median.p99_9 <= .median.max else true end)
			and all(.repeats[]; (.run | type == "number") and (.status | IN("ok", "failed"))
				and (.log | type == "string")))
		and (.failed | type == "number")
		and .failed == ([.results[] | select(.status != "ok")] | length)
	' "$sj" > /dev/null 2>&1; then
		ok bench/summary-json-shape
	else
		notok bench/summary-json-shape "$sj does not match the shape in bench/README.md ($(jq -c . "$sj" 2>&1 > /dev/null | head -1))"
	fi
else
	grep -q '"format": "proxyexec-bench-summary"' "$sj" && grep -q '"version": 1' "$sj" &&
		awk '{ gsub(/"([^"\\]|\\.)*"/, ""); d += gsub(/[{[]/, "") - gsub(/[]}]/, "") } END { exit d != 0 }' "$sj" &&
		ok "bench/summary-json-shape # without jq: format, version, braces only" ||
		notok bench/summary-json-shape "bad format/version or unbalanced (no jq for the full check)"
fi

# Histogram counts == samples taken.
histsum() { awk '!/^#/ && NF >= 3 { s += $3 } END { print s + 0 }' "$1"; }
for m in $modes; do
	bad=''
	for s in $scenarios; do
		d=$res/$m/$s
		r=0
		while [ $r -lt "$repeat" ]; do
			r=$((r + 1))
			case $s in
			cyclictest|cyclictest-load)
				[ -s "$d/r$r.cthist" ] || { bad="$bad $s/r$r:nohist"; continue; }
				# "# Total" counts the bucketed samples; + overflows = cycles.
				# shellcheck disable=SC2046
				set -- $(awk '/^# Total:/ { for (i = 3; i <= NF; i++) t += $i; next }
					/^# Histogram Overflows:/ { for (i = 4; i <= NF; i++) o += $i; next }
					/^#/ || NF < 2 { next } { for (i = 2; i <= NF; i++) b += $i }
					END { print t + 0, b + 0, t + o }' "$d/r$r.cthist")
				cyc=$3
				[ -z "$havejq" ] || cyc=$(jq '[.thread[].cycles] | add' "$d/r$r.ctjson" 2>/dev/null || echo none)
				sc=$(awk -F'\t' -v m="$m" -v s="$s" -v r="$r" '$1 == m && $2 == s && $3 == r { print $5 }' "$res/runs.tsv")
				[ "$1" -gt 0 ] && [ "$1" = "$2" ] && [ "$3" = "$cyc" ] && [ "$sc" = "$3" ] ||
					bad="$bad $s/r$r:total=$1,buckets=$2,total+overflows=$3,cycles=$cyc,summary=$sc" ;;
			hackbench)
				n=$(wc -l 2>/dev/null < "$d/r$r.times" || echo 0)
				[ "$n" = "$hb_runs" ] || bad="$bad $s/r$r:$n-of-$hb_runs-runs" ;;
			*)
				j=$d/r$r.json
				[ -s "$j" ] && [ -s "$d/r$r.hist" ] || { bad="$bad $s/r$r:nofiles"; continue; }
				h=$(histsum "$d/r$r.hist")
				if [ -n "$havejq" ]; then
					# shellcheck disable=SC2046 # numbers, split on purpose
					set -- $(jq -r '[.latency.count, (.samples | length), ([.hist[].count] | add // 0),
						(.checks.waiter_acquired // .checks.renames // .latency.count)] | map(tostring) | join(" ")' "$j")
				else
					c=$(awk '$1 == "\"count\":" { v = $2; sub(/,$/, "", v); print v; exit }' "$j")
					set -- "$c" "$c" "$c" "$c"
				fi
				[ "$1" -gt 0 ] && [ "$h" = "$1" ] && [ "$2" = "$1" ] && [ "$3" = "$1" ] && [ "$4" = "$1" ] ||
					bad="$bad $s/r$r:hist=$h,count=$1,samples=$2,jsonhist=$3,acquired=$4" ;;
			esac
		done
	done
	[ -z "$bad" ] && ok "bench/hist-counts-$m" || notok "bench/hist-counts-$m" "mismatch:$bad"
done

# The CFS inversion tail: smaller with proxy on than off.
p99() { awk -F'\t' -v m="$1" -v s="$2" '$1 == m && $2 == s && $3 != "failed" { print $8 }' "$res/summary.tsv"; }
case " $modes :$scenarios " in
*" off "*" current "*:*cfs*|*" current "*" off "*:*cfs*)
	off=$(p99 off cfs) cur=$(p99 current cfs)
	if [ -n "$off" ] && [ -n "$cur" ] && [ "$off" != - ] && [ "$cur" != - ]; then
		echo "# cfs p99: off $off ns, current $cur ns (ratio $(awk -v a="$cur" -v b="$off" 'BEGIN { printf "%.3f", a / b }'))"
		awk -v a="$cur" -v b="$off" 'BEGIN { exit !(a < b) }' && ok bench/cfs-tail-proxy-smaller ||
			notok bench/cfs-tail-proxy-smaller "p99 current $cur ns >= off $off ns"
	else
		notok bench/cfs-tail-proxy-smaller "no cfs p99 for off ($off) or current ($cur)"
	fi ;;
*) echo "# cfs tail check needs modes off and current and scenario cfs: skipped" ;;
esac

# A mode the kernel ignores is marked, never reported as itself.
for m in $modes; do
	con=$res/$m/console.log
	grep -q 'sched: unknown proxy_exec=' "$con" 2>/dev/null || continue
	avail=$(awk -F'\t' -v m="$m" '$1 == m { print $3 }' "$res/modes.tsv")
	[ "$avail" = false ] && grep -q "mode $m\*: not available in this kernel (falls back to current)" "$res/summary.txt" &&
		ok "bench/$m-marked-unavailable" ||
		notok "bench/$m-marked-unavailable" "console says unknown proxy_exec= but $m is not marked in modes.tsv/summary.txt"
done
exit "$failed"

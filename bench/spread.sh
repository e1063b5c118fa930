#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Measure the instrument: run bench/run.sh with interleaved repeats once
# per clock (host, icount) and tabulate the run-to-run spread of each
# clock side by side, to tell which one can separate the modes.
#
# Usage: bench/spread.sh [options] [-- bench/run.sh options]
#   --repeat N         repeats per mode, each in its own boot (default 5)
#   --scenarios LIST   bench scenarios (default all)
#   --duration SEC     seconds per scenario run (default 5)
#   --modes LIST       bench modes (default off,v4,current)
#   --clocks LIST      the clocks to compare, comma list of host and
#                      icount[=SHIFT] (default host,icount)
#   --out DIR          results: DIR/<clock>/ (one bench/run.sh folder per
#                      clock) and DIR/spread.md (default
#                      bench/results/spread-<UTC date-time>/)
#   --table DIR        only write DIR/spread.md from the folders already
#                      in DIR (no guest)
#   -h, --help         this text
#
# spread.md: one row per scenario and mode, for p50, p99 and max the
# spread (max - min) / median over the ok repeats, one column per clock;
# then each clock's median spread over all rows; above the table, each
# clock's wall time (the seconds its boots ran in QEMU, waits for the guest
# lock left out).  Also printed.
# Exit status: 0 all runs ok; 1 a bench run failed (its table is still
# written from what ran); 64 usage.
#
# Examples:
#   bench/spread.sh                                   # the full measurement
#   bench/spread.sh --scenarios cfs --repeat 2 --duration 1 --modes off,current
#   bench/spread.sh --clocks host,icount=0,icount=3 --scenarios cfs,rt
#   bench/spread.sh --table bench/results/spread-20261204-140000
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)

cli_prog=spread
# shellcheck source=lib/sh/cli.sh
. "$top/lib/sh/cli.sh"

repeat=5 scenarios='' duration=5 modes=off,v4,current clocks=host,icount out='' table=''
while test $# -gt 0; do
	case $1 in
	--repeat) checkarg "$1" $# "${2-}" '^([2-9]|[1-9][0-9]+)$'; repeat=$2; shift ;;
	--scenarios) checkarg "$1" $# "${2-}" '^[a-z,-]+$'; scenarios=$2; shift ;;
	--duration) checkarg "$1" $# "${2-}" '^[1-9][0-9]*$'; duration=$2; shift ;;
	--modes) checkarg "$1" $# "${2-}" '^[a-z0-9,]+$'; modes=$2; shift ;;
	--clocks) checkarg "$1" $# "${2-}" "^($clock_one)(,($clock_one))*\$" "a comma list of $clock_what"
		clocks=$2; shift ;;
	--out) checkarg "$1" $# "${2-}" '.'; out=$2; shift ;;
	--table) checkarg "$1" $# "${2-}" '.'; table=$2; shift ;;
	-h|--help) usage ;;
	--) shift; break ;;
	*) usage "unknown option '$1'" ;;
	esac
	shift
done
command -v jq > /dev/null || die "jq not found (make deps)"

# tabulate DIR: DIR/spread.md from DIR/<clock>/summary.json, in the order
# of DIR/clocks (or every folder with a summary.json).
tabulate() {
	d=$1
	if [ -s "$d/clocks" ]; then cl=$(cat "$d/clocks"); else
		cl=$(for j in "$d"/*/summary.json; do [ -f "$j" ] && basename "$(dirname "$j")"; done | tr '\n' ' ')
	fi
	[ -n "$cl" ] || die "$d: no <clock>/summary.json (nothing ran?)"
	# mode scenario clock p50 p99 max (spreads, - for none), one per line,
	# in the first clock's order of results.
	for c in $cl; do
		[ -f "$d/$c/summary.json" ] || { echo "spread: $d/$c: no summary.json, column left empty" >&2; continue; }
		jq -r --arg c "$c" '.results[] | [.scenario, .mode, $c,
			(.spread.p50 // "-"), (.spread.p99 // "-"), (.spread.max // "-"), .runs_ok, .runs]
			| map(tostring) | join("\t")' "$d/$c/summary.json"
	done > "$d/spread.tsv"
	{
		echo "# Run-to-run spread, (max - min) / median over the repeats"
		echo
		for c in $cl; do
			[ -f "$d/$c/summary.json" ] || continue
			jq -r --arg c "$c" '"- `\($c)`: clock \(.clock)\(if .icount_shift == null then "" else " shift \(.icount_shift)" end), "
				+ "\(.created), \(.params.repeat) repeats of \(.params.duration_s) s, "
				+ "\(.params.cpus) vCPUs, \(if .params.interleave then "interleaved boots" else "one boot per mode" end), "
				+ "\(.system.kernel_release), git \(.system.git_head[0:12]), folder `\(.results_dir)`"' "$d/$c/summary.json"
		done
		# What each clock costs: the wall time QEMU ran, from guest/run.sh's
		# lines in the modes' run.log (waits for the guest lock left out).
		for c in $cl; do
			w=$(sed -n 's/^run: command exited with status [0-9]* after \([0-9]*\) s;.*/\1/p' "$d/$c"/*/run.log 2>/dev/null || true)
			[ -n "$w" ] || continue
			echo "- \`$c\` wall time: $(echo "$w" | wc -l) boots ran $(echo "$w" | awk '{ s += $1 } END { print s }') s in QEMU," \
				"median $(echo "$w" | median) s a boot, of which $(sed -n 's/^run: .* reached \/init after \([0-9.]*\) s.*/\1/p' \
				"$d/$c"/*/run.log | median) s to reach /init"
		done
		echo
		awk -F'\t' -v cl="$cl" '
			function pc(v) { return v == "-" ? "-" : sprintf("%.0f%%", v * 100) }
			function med(list,   a, k, i, j, t) {
				k = split(list, a, " ")
				for (i = 2; i <= k; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] + 0 > t + 0; j--) a[j + 1] = a[j]; a[j + 1] = t }
				return !k ? "-" : k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
			}
			BEGIN { nc = split(cl, C, " ") }
			{
				key = $1 SUBSEP $2
				if (!(key in seen)) { seen[key] = 1; order[++n] = key; S[n] = $1; M[n] = $2 }
				for (f = 4; f <= 6; f++) {
					v[key, $3, f] = $f
					if ($f != "-") all[$3, f] = all[$3, f] " " $f
				}
				if ($7 < $8) short[key, $3] = 1
			}
			END {
				printf "| scenario | mode |"
				for (f = 4; f <= 6; f++) for (i = 1; i <= nc; i++)
					printf " %s %s |", f == 4 ? "p50" : f == 5 ? "p99" : "max", C[i]
				printf "\n|---|---|"
				for (k = 1; k <= 3 * nc; k++) printf "---:|"
				printf "\n"
				for (r = 1; r <= n; r++) {
					key = order[r]; printf "| %s | %s |", S[r], M[r]
					for (f = 4; f <= 6; f++) for (i = 1; i <= nc; i++) {
						x = (key, C[i], f) in v ? pc(v[key, C[i], f]) : "n/a"
						printf " %s%s |", x, short[key, C[i]] ? "*" : ""
					}
					printf "\n"
				}
				printf "| **median** | |"
				for (f = 4; f <= 6; f++) for (i = 1; i <= nc; i++) printf " **%s** |", pc(med(all[C[i], f]))
				printf "\n\n`*`: fewer ok repeats than planned; `-`: fewer than two ok repeats.\n"
			}' "$d/spread.tsv"
	} > "$d/spread.md"
	cat "$d/spread.md"
}

if [ -n "$table" ]; then
	[ -d "$table" ] || die "--table $table: no such folder"
	tabulate "$(cd "$table" && pwd)"
	exit 0
fi

if [ -z "$out" ]; then
	out=$top/bench/results/spread-$(date -u +%Y%m%d-%H%M%S)
	[ ! -e "$out" ] || out=$out.$$
fi
[ ! -e "$out" ] || [ -z "$(ls -A "$out" 2>/dev/null)" ] ||
	die "--out $out exists and is not empty: results are never overwritten"
mkdir -p "$out"
res=$(cd "$out" && pwd)
echo "$clocks" | tr ',' ' ' > "$res/clocks"

failed=0
for c in $(echo "$clocks" | tr ',' ' '); do
	echo "spread: clock $c: bench/run.sh --repeat $repeat --clock $c into $res/$c" >&2
	rc=0
	"$top/bench/run.sh" --repeat "$repeat" --clock "$c" --duration "$duration" --modes "$modes" \
		${scenarios:+--scenarios "$scenarios"} --no-plots --out "$res/$c" "$@" || rc=$?
	case $rc in
	0) ;;
	2) die "bench/run.sh refused its options (exit 2)" ;;
	*) echo "spread: clock $c: bench/run.sh exited $rc (see $res/$c/summary.txt)" >&2; failed=1 ;;
	esac
done
tabulate "$res"
echo "spread: table in $res/spread.md" >&2
exit "$failed"

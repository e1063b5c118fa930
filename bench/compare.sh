#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Compare two bench results folders and flag regressions beyond the noise.
#
# Usage: bench/compare.sh [--threshold PCT] [--floor-us US] NEW OLD
#   --threshold PCT  change that counts when either side has only one run
#                    (default 20); with repeats on both sides the noise is
#                    the larger relative p99 spread (max-min)/median of the
#                    two, if that is larger than PCT
#   --floor-us US    ignore changes smaller than this in absolute terms
#                    (default 100: under TCG, microseconds are noise)
#
# Per mode and scenario it compares the median p99 (hackbench, messaging:
# the median run time).  A proxy mode is judged on its ratio to the off mode of the
# same run, which cancels a slower or busier host; off on its own value.
# One line each, also written to NEW/compare.txt:
#   scenario mode old_ms new_ms change old/off new/off change noise verdict
# verdict: same, REGRESSION, better, or n/a (missing or failed on a side).
# Exit status: 0 no regression; 1 regressions; 64 usage.
#
# Examples:
#   bench/compare.sh bench/results/20261203-071500 bench/results/20261202-180000
#   bench/compare.sh --threshold 10 NEW OLD
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cli_prog=compare
# shellcheck source=lib/sh/cli.sh
. "$top/lib/sh/cli.sh"
thr=20 floor=100
while test $# -gt 0; do
	case $1 in
	--threshold) checkarg "$1" $# "${2-}" '^[0-9]+$' 'a whole percentage'; thr=$2; shift ;;
	--floor-us) checkarg "$1" $# "${2-}" '^[0-9]+$' microseconds; floor=$2; shift ;;
	-h|--help) usage ;;
	-*) usage "unknown option '$1'" ;;
	*) break ;;
	esac
	shift
done
[ $# = 2 ] || usage "give NEW and OLD results folders"
for d in "$1" "$2"; do
	[ -f "$d/summary.tsv" ] || usage "$d: no summary.tsv (not a results folder, or run bench/summarize.sh $d)"
done
new=$(cd "$1" && pwd) old=$(cd "$2" && pwd)

# summary.tsv: mode scenario status nok nrep count p50 p99 p99_9 max p99_min
# p99_max r_p50 r_p99 r_max log reason
awk -F'\t' -v thr="$thr" -v floor="$floor" -v newdir="$new" -v olddir="$old" \
	-v na_new="$(awk -F'\t' '$3 == "false" { printf " %s ", $1 }' "$new/modes.tsv" 2>/dev/null)" \
	-v na_old="$(awk -F'\t' '$3 == "false" { printf " %s ", $1 }' "$old/modes.tsv" 2>/dev/null)" '
	function ms(v) { v /= 1e6; return v >= 100 ? sprintf("%.0f", v) : v >= 10 ? sprintf("%.1f", v) : v >= 1 ? sprintf("%.2f", v) : sprintf("%.3f", v) }
	function spread(f) { return (f[5] > 1 && f[11] != "-" && f[8] + 0 > 0) ? (f[12] - f[11]) / f[8] : -1 }
	function usable(f, c) { return f[3] != "failed" && f[c] != "-" && f[c] + 0 > 0 }
	FNR == 1 { file++ }
	{
		key = $1 SUBSEP $2
		if (file == 1) { old[key] = $0; next }
		order[++n] = key; cur[key] = $0
	}
	END {
		printf "# compare %s\n#    with %s\n", newdir, olddir
		printf "# metric: median p99 (hackbench, messaging: median run time); proxy modes are judged on their ratio to the\n"
		printf "# same boot'\''s off (cancels host load), off on its own value; noise: %d%% or the repeats'\'' p99\n", thr
		printf "# spread, whichever is larger; changes under %d us are the same\n", floor
		printf "%-16s %-10s %9s %9s %7s %8s %8s %7s %6s  %s\n", "scenario", "mode", "old ms", "new ms", "change", "old/off", "new/off", "change", "noise", "verdict"
		for (i = 1; i <= n; i++) {
			key = order[i]
			split(cur[key], a, "\t")
			verdict = "n/a"; ch = "-"; noise = "-"; o = "-"; v = "-"; ro = "-"; rn = "-"; rch = "-"
			timed = a[2] == "hackbench" || a[2] == "messaging"
			col = timed ? 7 : 8; rcol = timed ? 13 : 14
			if (key in old) {
				split(old[key], b, "\t")
				if (usable(a, col) && usable(b, col)) {
					o = b[col] + 0; v = a[col] + 0
					rel = v / o - 1
					sa = spread(a); sb = spread(b)
					nz = thr / 100
					if (sa >= 0 && sb >= 0) { s = sa > sb ? sa : sb; if (s > nz) nz = s }
					ch = sprintf("%+.0f%%", rel * 100); noise = sprintf("%.0f%%", nz * 100)
					diff = v - o; if (diff < 0) diff = -diff
					# A proxy mode with off on both sides: judge the ratio.
					if (a[1] != "off" && usable(a, rcol) && usable(b, rcol)) {
						ro = b[rcol] + 0; rn = a[rcol] + 0
						rel = rn / ro - 1; rch = sprintf("%+.0f%%", rel * 100)
						ro = sprintf("%.3g", ro); rn = sprintf("%.3g", rn)
					}
					if (diff < floor * 1000) verdict = "same"
					else if (rel > nz) { verdict = "REGRESSION"; bad++ }
					else if (-rel > nz / (1 + nz)) verdict = "better"
					else verdict = "same"
					o = ms(o); v = ms(v)
				}
			}
			m = a[1]
			if (index(na_new, " " m " ") || index(na_old, " " m " ")) m = m "*"
			printf "%-16s %-10s %9s %9s %7s %8s %8s %7s %6s  %s\n", a[2], m, o, v, ch, ro, rn, rch, noise, verdict
		}
		if (na_new != "" || na_old != "") print "# *: mode not available in one of the kernels (ran as current)"
		printf "# %d regression(s)\n", bad
		exit bad > 0
	}' "$old/summary.tsv" "$new/summary.tsv" > "$new/compare.txt" || rc=$?
# Host time and virtual time are different units: say so (older folders: host).
clock() { c=$(sed -n 's/^clock=//p' "$1/params.txt" 2>/dev/null | head -1); echo "${c:-host}"; }
if [ "$(clock "$new")" != "$(clock "$old")" ]; then
	echo "# WARNING: NEW ran with clock $(clock "$new"), OLD with clock $(clock "$old"): times are in different units, only the ratios to off compare" >> "$new/compare.txt"
fi
cat "$new/compare.txt"
exit "${rc:-0}"

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Turn a bench/run.sh results folder into PNGs in RESULTS_DIR/plots/:
#   <scenario>-hist.png  the modes' latency histograms overlaid, log counts
#   <scenario>-cdf.png   CDFs (left) and p50/p99/p99.9/max bars (right)
#   hackbench-runs.png   each run's time per mode, the median as a bar
#   messaging-runs.png   the same for perf bench sched messaging
#   overview.png         p99 of every scenario relative to off, per mode
#                        (hackbench, messaging: the median time)
# and, with rt_mutex runs (bench/run.sh --locks mutex,rtmutex):
#   <scenario>-locks-cdf.png  the four ways side by side: proxy off/on x
#                        lab mutex/rt_mutex (the inversion, PI, proxy
#                        execution, PI with proxy on)
#   locks-overview.png   p99 of each inversion relative to off + mutex, one
#                        bar per way (contend left out: not an inversion)
#
# Usage: plots/plot.sh RESULTS_DIR
#
# Needs summary.tsv (bench/summarize.sh) and each <mode>/<scenario>/all.hist.
# hackbench and messaging get <scenario>-runs.png instead: every run's
# time per mode and the median.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
cli_prog=plot
# shellcheck source=lib/sh/cli.sh
. "$top/lib/sh/cli.sh"
case $#:${1-} in
1:-h|1:--help) usage ;;
1:*) [ -f "$1/summary.tsv" ] || usage "$1: no summary.tsv (run bench/summarize.sh)" ;;
*) usage "want one results folder" ;;
esac
res=$(cd "$1" && pwd)
command -v gnuplot > /dev/null || die "gnuplot missing (apt-get install gnuplot-nox)"
param() { sed -n "s/^$1=//p" "$res/params.txt" | head -1; }
modes=$(param modes | tr ',' ' ')
scenarios=$(param scenarios | tr ',' ' ')
pd=$res/plots
mkdir -p "$pd"
# The clock: host (older folders have none) or virtual time (icount=SHIFT).
clock=$(param clock)
case ${clock:-host} in
host) clock_txt='TCG' ;;
*) clock_txt="TCG ${clock%%=*} shift ${clock#icount=} (virtual time)" ;;
esac
stamp="$(param created) $(param kernel_release), $(param cpus) vCPUs $clock_txt, $(param repeat)x$(param duration_s)s"

# Mode label: a mode the kernel does not know is marked.
label() {
	if awk -F'\t' -v m="$1" '$1 == m && $3 == "false"' "$res/modes.tsv" 2>/dev/null | grep -q .; then
		echo "$1(n/a)"
	else
		echo "$1"
	fi
}

# One colour per mode in every figure.
color() {
	case $1 in off) echo '#d62728' ;; v4) echo '#ff7f0e' ;; v6handoff) echo '#9467bd' ;; *) echo '#2ca02c' ;; esac
}
# Scenarios measured as a time per run (a few runs, not a distribution).
timed() { case $1 in hackbench|messaging) true ;; *) false ;; esac; }

n=0
for s in $scenarios; do
	files='' names='' colors=''
	: > "$pd/$s.pct"
	for m in $modes; do
		h=$res/$m/$s/all.hist
		# Mode name, p50, p99, p99.9, max in ms (0.001 for missing: log axis).
		awk -F'\t' -v m="$m" -v s="$s" -v l="$(label "$m")" '$1 == m && $2 == s {
			for (f = 7; f <= 10; f++) v[f] = $f == "-" ? 0.001 : $f / 1e6
			printf "%s %g %g %g %g\n", l, v[7], v[8], v[9], v[10] }' "$res/summary.tsv" >> "$pd/$s.pct"
		[ -s "$h" ] && grep -qv '^#' "$h" || continue
		files="$files $h" names="$names $(label "$m")" colors="$colors $(color "$m")"
	done
	[ -n "$files" ] || { echo "plot: $s: no histograms, skipped" >&2; continue; }
	xl='latency (ms, log)'
	case $s in
	hackbench|messaging) xl='run time (ms, log)' ;;
	rename) xl='rename() time (ms, log)' ;;
	cyclictest*) xl='wake-up latency (ms, log)' ;;
	*) xl='waiter lock wait (ms, log)' ;;
	esac
	if ! timed "$s"; then
		gnuplot -e "out='$pd/$s-hist.png'; title='$s: latency histogram per mode ($stamp)'; files='$files'; names='$names'; colors='$colors'; xlabel='$xl'" \
			"$here/hist.gp"
	fi
	ymin=$(awk '{ for (f = 2; f <= 5; f++) if ($f > 0.001 && (m == "" || $f < m)) m = $f }
		END { e = 1; if (m == "") m = 1; while (e > m) e /= 10; while (e * 10 <= m) e *= 10; print e / 10 }' "$pd/$s.pct")
	if timed "$s"; then
		# Few runs: the runs themselves, not a distribution.
		: > "$pd/$s.runs"; : > "$pd/$s.med"
		k=0
		for m in $modes; do
			k=$((k + 1))
			rgb=$(printf '%d' "0x$(color "$m" | tr -d '#')")
			cat "$res/$m/$s"/r[0-9]*.times 2>/dev/null |
				awk -v k=$k -v l="$(label "$m")" -v c="$rgb" '{ print k, l, $1 * 1000, c }' >> "$pd/$s.runs"
			awk -F'\t' -v m="$m" -v s="$s" -v k=$k -v l="$(label "$m")" -v c="$rgb" \
				'$1 == m && $2 == s && $7 != "-" { print k, l, $7 / 1e6, c }' "$res/summary.tsv" >> "$pd/$s.med"
		done
		gnuplot -e "out='$pd/$s-runs.png'; title='$s: time per run, median bar ($stamp)'; runs='$pd/$s.runs'; med='$pd/$s.med'; ylabel='run time (ms)'; nmodes=$k" \
			"$here/runs.gp"
		n=$((n + 1))
		continue
	fi
	gnuplot -e "out='$pd/$s-cdf.png'; title='$s: CDF and percentiles per mode ($stamp)'; files='$files'; names='$names'; colors='$colors'; pct='$pd/$s.pct'; xlabel='$xl'; ymin=$ymin" \
		"$here/cdf.gp"
	n=$((n + 1))
done

# The four ways of bench/run.sh --locks mutex,rtmutex: per lock scenario
# with an rt_mutex run, off and each proxy mode on a mutex and an
# rt_mutex; colours: off + mutex red, off + rt_mutex (PI) blue, proxy +
# mutex green, proxy + rt_mutex teal.
# inversion (off + mutex), PI (off + rt_mutex), proxy (a proxy mode +
# mutex), PI+proxy-on; one word each without parentheses (gnuplot's
# word() splits the lists on blanks, and a parenthesis hid a line).
way_name() {
	p=''; [ "$1" = off ] || [ "$1" = current ] || p=$1:
	case $1:$2 in
	off:mutex) echo 'inversion' ;;
	off:rtmutex) echo 'PI' ;;
	*:mutex) echo "${p}proxy" ;;
	*) echo "${p}PI+proxy-on" ;;
	esac
}
way_color() {
	case $1:$2 in off:mutex) echo '#d62728' ;; off:rtmutex) echo '#1f77b4' ;; *:mutex) echo '#2ca02c' ;; *) echo '#17becf' ;; esac
}
lock_plots() {
	bases=$(for s in $scenarios; do case $s in *-rtmutex) echo "${s%-rtmutex}" ;; esac; done)
	[ -n "$bases" ] || return 0
	k=0
	for b in $bases; do
		files='' names='' colors=''
		: > "$pd/$b-locks.pct"
		for m in $modes; do
			for l in mutex rtmutex; do
				s=$b; [ $l = mutex ] || s=$b-$l
				h=$res/$m/$s/all.hist
				awk -F'\t' -v m="$m" -v s="$s" -v l="$(way_name "$m" "$l")" '$1 == m && $2 == s {
					for (f = 7; f <= 10; f++) v[f] = $f == "-" ? 0.001 : $f / 1e6
					printf "%s %g %g %g %g\n", l, v[7], v[8], v[9], v[10] }' "$res/summary.tsv" >> "$pd/$b-locks.pct"
				[ -s "$h" ] && grep -qv '^#' "$h" || continue
				files="$files $h" names="$names $(way_name "$m" "$l")" colors="$colors $(way_color "$m" "$l")"
			done
		done
		[ -n "$files" ] || continue
		ymin=$(awk '{ for (f = 2; f <= 5; f++) if ($f > 0.001 && (m == "" || $f < m)) m = $f }
			END { e = 1; if (m == "") m = 1; while (e > m) e /= 10; while (e * 10 <= m) e *= 10; print e / 10 }' "$pd/$b-locks.pct")
		gnuplot -e "out='$pd/$b-locks-cdf.png'; title='$b: proxy execution vs rt_mutex PI ($stamp)'; files='$files'; names='$names'; colors='$colors'; pct='$pd/$b-locks.pct'; xlabel='waiter lock wait (ms, log)'; ymin=$ymin" \
			"$here/cdf.gp"
		k=$((k + 1))
	done
	# locks-overview.dat: each inversion's p99 over off + mutex's, per way.
	echo " $modes " | grep -q ' off ' || return 0
	{
		printf 'scenario'
		for m in $modes; do
			for l in mutex rtmutex; do [ "$m:$l" = off:mutex ] || printf ' %s' "$(way_name "$m" "$l")"; done
		done
		echo
		for b in $bases; do
			[ "$b" != contend ] || continue
			printf '%s' "$b"
			for m in $modes; do
				for l in mutex rtmutex; do
					[ "$m:$l" != off:mutex ] || continue
					s=$b; [ $l = mutex ] || s=$b-$l
					awk -F'\t' -v m="$m" -v s="$s" -v b="$b" '$1 == "off" && $2 == b { off = $8 }
						$1 == m && $2 == s { v = $8 }
						END { printf " %s", v == "" || v == "-" || off == "" || off == "-" || off + 0 == 0 ? "NaN" : v / off }' "$res/summary.tsv"
				done
			done
			echo
		done
	} > "$pd/locks-overview.dat"
	awk 'NR > 1 { for (i = 2; i <= NF; i++) if ($i != "NaN") n++ } END { exit !n }' "$pd/locks-overview.dat" || return 0
	lcolors=$(for m in $modes; do for l in mutex rtmutex; do [ "$m:$l" = off:mutex ] || way_color "$m" "$l"; done; done | tr '\n' ' ')
	# shellcheck disable=SC2046
	set -- $(awk 'NR > 1 { for (i = 2; i <= NF; i++) if ($i != "NaN" && $i > 0) {
			if (lo == "" || $i < lo) lo = $i; if ($i > hi) hi = $i } }
		END { a = 0.001; while (lo != "" && a > lo / 2) a /= 10; b = 20; while (b < hi * 3) b *= 10; print a, b }' "$pd/locks-overview.dat")
	gnuplot -e "out='$pd/locks-overview.png'; title='p99 relative to proxy off + mutex (the inversion) ($stamp)'; data='$pd/locks-overview.dat'; ncols=$(head -1 "$pd/locks-overview.dat" | wc -w); colors='$lcolors'; ymin=$1; ymax=$2; ylabel='p99 / p99 of proxy off + mutex (log)'" \
		"$here/overview.gp"
	echo "plot: $k scenarios x 4 ways + locks-overview in $pd" >&2
}
lock_plots

# overview.dat: scenario, then each mode's p99 ratio (hackbench, messaging:
# p50) to off; a mode without any ratio (all its scenarios failed) is left
# out, gnuplot cannot draw an empty column.
has_ratio() {
	awk -F'\t' -v m="$1" '$1 == m && ($2 == "hackbench" || $2 == "messaging" ? $13 : $14) != "-" { f = 1 }
		END { exit !f }' "$res/summary.tsv"
}
omodes=$(for m in $modes; do [ "$m" = off ] || ! has_ratio "$m" || echo "$m"; done | tr '\n' ' ')
ocolors=$(for m in $omodes; do color "$m"; done | tr '\n' ' ')
[ -n "$omodes" ] || { echo "plot: only off: no overview" >&2; exit 0; }
echo " $modes " | grep -q ' off ' ||
	{ echo "plot: $n scenarios in $pd; no overview: its ratios are to the off mode, not run" >&2; exit 0; }
{
	printf 'scenario'
	for m in $omodes; do printf ' %s' "$(label "$m")"; done
	echo
	for s in $scenarios; do
		printf '%s' "$s"
		for m in $omodes; do
			awk -F'\t' -v m="$m" -v s="$s" '$1 == m && $2 == s {
				r = s == "hackbench" || s == "messaging" ? $13 : $14; printf " %s", r == "-" ? "NaN" : r }' "$res/summary.tsv"
		done
		echo
	done
} > "$pd/overview.dat"
nc=$(head -1 "$pd/overview.dat" | wc -w)
awk 'NR > 1 { for (i = 2; i <= NF; i++) if ($i != "NaN") n++ } END { exit !n }' "$pd/overview.dat" ||
	{ echo "plot: $n scenarios in $pd; no overview: no ratio to off (off failed?)" >&2; exit 0; }
# Decades around the ratios (at least 0.001..20), room for the labels.
# shellcheck disable=SC2046
set -- $(awk 'NR > 1 { for (i = 2; i <= NF; i++) if ($i != "NaN" && $i > 0) {
		if (lo == "" || $i < lo) lo = $i; if ($i > hi) hi = $i } }
	END { a = 0.001; while (lo != "" && a > lo / 2) a /= 10; b = 20; while (b < hi * 3) b *= 10; print a, b }' "$pd/overview.dat")
gnuplot -e "out='$pd/overview.png'; title='p99 relative to proxy_exec=disable ($stamp)'; data='$pd/overview.dat'; ncols=$nc; colors='$ocolors'; ymin=$1; ymax=$2" \
	"$here/overview.gp"
echo "plot: $n scenarios + overview in $pd" >&2

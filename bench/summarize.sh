#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Turn a bench/run.sh results folder into summary.tsv, summary.json and the
# printed table (summary.txt); also <mode>/<scenario>/all.hist (the
# repetitions' histograms merged) for plots/.  Re-runnable on any folder.
#
# Usage: bench/summarize.sh RESULTS_DIR
#        bench/summarize.sh -h|--help|-V|--version
#
# Exit status: 0 every mode x scenario ran; 1 something failed or is
# missing (marked "FAILED" in the table with its log); 64 usage
# (tools/README.md "Conventions").
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cli_prog=summarize
# shellcheck source=lib/sh/cli.sh
. "$top/lib/sh/cli.sh"
case $#:${1-} in
1:-h|1:--help) usage ;;
1:-V|1:--version) echo "$cli_prog (proxyexec) $(cat "$top/tools/VERSION")"; exit 0 ;;
1:-*) usage "unknown option '$1'" ;;
1:*) [ -f "$1/params.txt" ] || usage "$1: no params.txt (not a bench/run.sh results folder)" ;;
0:) usage "no results folder given" ;;
*) usage "one results folder only, not $#" ;;
esac
command -v jq > /dev/null || die "jq not found (make deps, or apt-get install jq)"
res=$(cd "$1" && pwd)
T=${TMPDIR-/tmp}/pxsum.$$
trap 'rm -rf "$T"' 0
mkdir -p "$T"

param() { sed -n "s/^$1=//p" "$res/params.txt" | head -1; }
modes=$(param modes | tr ',' ' ')
scenarios=$(param scenarios | tr ',' ' ')
repeat=$(param repeat)
# runs_per_rep SCENARIO: the timed runs of one repetition of hackbench or
# messaging ("groups loops runs" in params.txt).
runs_per_rep() { param "$1" | awk '{ print $3 }'; }

# latency FILE: "count p50 p99 p99_9 max ok" of a tool's result file
# (tools/README.md: format proxyexec-latency, version 1), nothing if it is
# another document, "unparsable" if it is not JSON.
latency() {
	jq -r 'select(.format == "proxyexec-latency" and .version == 1)
		| [.latency.count, .latency.p50, .latency.p99, .latency.p99_9, .latency.max, .ok]
		| map(tostring) | join(" ")' "$1" 2>/dev/null || echo unparsable
}
# boots MODE_DIR: the mode's boot folders (guest/run.sh's --out) in order:
# <mode>/boot<K>/ when the mode booted several times (interleaved
# repetitions), else <mode>/ itself.
boots() {
	if ls -d "$1"/boot[0-9]* > /dev/null 2>&1; then
		ls -d "$1"/boot[0-9]* | sed 's/.*boot//' | sort -n | sed "s|^|$1/boot|"
	else
		echo "$1"
	fi
}
# guest_result BOOT_DIR: guest/run.sh's result of that boot, or none.
guest_result() { cat "$1/result" 2>/dev/null || echo none; }

# Sum of the count column of a gnuplot histogram file.
histsum() { awk '!/^#/ && NF >= 3 { s += $3 } END { print s + 0 }' "$1"; }

# cyclic CTHIST HIST: percentiles of cyclictest's raw -h histogram (1 us
# buckets, one column per thread, all threads together) as
# "count p50 p99 p99_9 max bucketsum total overflows over_pct" in ns:
# count = "# Total" (the samples in the buckets) + overflows = cycles;
# over_pct: the first of p50/p99/p99.9 that lies among the overflows (it is
# then reported as the max, an upper bound), or "-".  Also writes HIST, the
# bucketed samples in log-linear buckets (16 per octave) for plots/; its
# cum_fraction counts the overflows too (it ends below 1 if there are any).
cyclic() {
	awk -v hist="$2" '
		/^# Total:/ { for (i = 3; i <= NF; i++) total += $i; next }
		/^# Histogram Overflows:/ { for (i = 4; i <= NF; i++) over += $i; next }
		/^# Max Latencies:/ { for (i = 4; i <= NF; i++) if ($i + 0 > max) max = $i + 0; next }
		/^#/ || NF < 2 { next }
		{ v = $1 + 0; c = 0; for (i = 2; i <= NF; i++) c += $i
		  if (c) { n[v] += c; sum += c; if (v > top) top = v } }
		function pct(p, name,   r, cum, v, all) {
			all = total + over
			r = int(p * all); if (r < p * all) r++; if (r < 1) r = 1
			cum = 0
			for (v = 0; v <= top; v++) { cum += n[v]; if (cum >= r) return sprintf("%.0f", v * 1000) }
			if (inover == "-") inover = name
			return sprintf("%.0f", max * 1000)	# in the overflow: the max is all we know
		}
		END {
			printf "# pxutil llhist v1\n# title: cyclictest latency (all threads)\n# unit: ns\n" > hist
			printf "# count: %d  max: %d  overflows (not below): %d\n", total, max * 1000, over > hist
			printf "# columns: lower_ns upper_ns count cum_fraction\n" > hist
			cum = 0
			for (v = 0; v <= top; v++) {
				if (!n[v]) continue
				if (v < 16) { lo = v; w = 1 }
				else { k = 1; while (k * 2 <= v) k *= 2; w = k / 16; lo = int(v / w) * w }
				b[lo] += n[v]; bw[lo] = w
				if (!(lo in seen)) { seen[lo] = 1; order[++nb] = lo }
			}
			for (j = 1; j <= nb; j++) {
				lo = order[j]; cum += b[lo]
				printf "%d %d %d %.6f\n", lo * 1000, (lo + bw[lo]) * 1000, b[lo], total + over ? cum / (total + over) : 0 > hist
			}
			inover = "-"
			p50 = pct(0.50, "p50"); p99 = pct(0.99, "p99"); p999 = pct(0.999, "p99.9")
			printf "%d %s %s %s %.0f %d %d %d %s\n", total + over, p50, p99, p999, max * 1000, sum, total, over, inover
		}' "$1"
}

# timed TIMES HIST SCENARIO: hackbench's or messaging's run times (s) as
# "count p50 p99 p99_9 max" in ns (nearest rank over the runs); HIST gets
# one bucket per run.
timed() {
	sort -n "$1" | awk -v hist="$2" -v s="$3" '
		{ t[++n] = sprintf("%.0f", $1 * 1e9) }
		function pct(p,   r) { r = int(p * n); if (r < p * n) r++; if (r < 1) r = 1; return t[r] }
		END {
			printf "# pxutil llhist v1\n# title: %s time per run\n# unit: ns\n# count: %d\n", s, n > hist
			printf "# columns: lower_ns upper_ns count cum_fraction\n" > hist
			for (i = 1; i <= n; i++) printf "%s %.0f 1 %.6f\n", t[i], t[i] + 1000000, i / n > hist
			if (n) printf "%d %s %s %s %s\n", n, pct(0.5), pct(0.99), pct(0.999), t[n]
		}'
}

# One line per mode, scenario and repetition:
# mode scenario rep status count p50 p99 p99_9 max log reason
: > "$T/reps"
for m in $modes; do
	md=$res/$m
	for s in $scenarios; do
		r=0
		while [ $r -lt "$repeat" ]; do
			r=$((r + 1))
			d=$md/$s
			log=$d/r$r.out
			st=ok why=- vals='- - - - -'
			# The boot that ran this repetition.
			bd=$md; [ ! -d "$md/boot$r" ] || bd=$md/boot$r
			if [ ! -f "$d/r$r.rc" ]; then
				st=failed
				guest=$(guest_result "$bd")
				feat=$(param "sched_feature_$m")
				case $guest in
				hung) why="guest hung" ;;
				panic) why="guest panicked" ;;
				*)
					if [ -n "$feat" ] && grep -qx "sched_feature: $feat missing" "$bd/bench-kernel.txt" 2>/dev/null; then
						why="did not run: no sched feature $feat in this kernel" log=$bd/output.log
					else
						why="did not run (guest $guest)"
					fi ;;
				esac
				[ -f "$log" ] || log=$bd/console.log
			elif [ "$(cat "$d/r$r.rc")" != 0 ]; then
				st=failed why="exit $(cat "$d/r$r.rc")"
			fi
			case $s in
			cyclictest|cyclictest-load)
				if [ -s "$d/r$r.cthist" ]; then
					# shellcheck disable=SC2046 # numbers, split on purpose
					set -- $(cyclic "$d/r$r.cthist" "$d/r$r.hist")
					vals="$1 $2 $3 $4 $5"
					[ "$6" = "$7" ] || { st=failed why="histogram holds $6 of its total $7 samples"; }
					[ "$9" = - ] || [ $st = failed ] || why="note: $9 and above among the $8 samples over 100 ms, reported as the max"
				elif [ $st = ok ]; then st=failed why="no histogram"
				fi ;;
			hackbench|messaging)
				if [ -s "$d/r$r.times" ]; then
					vals=$(timed "$d/r$r.times" "$d/r$r.hist" "$s")
					n=$(runs_per_rep "$s")
					[ "$(wc -l < "$d/r$r.times")" = "$n" ] || { st=failed why="$(wc -l < "$d/r$r.times") of $n runs"; }
				elif [ $st = ok ]; then st=failed why="no times"
				fi ;;
			*)
				# shellcheck disable=SC2046 # numbers, split on purpose
				set -- $([ ! -s "$d/r$r.json" ] || latency "$d/r$r.json")
				if [ "${1-}" = unparsable ]; then
					[ $st = failed ] || st=failed why="result file is not JSON"
				elif [ $# = 6 ]; then
					vals="$1 $2 $3 $4 $5" c=$1
					[ "$c" -gt 0 ] 2>/dev/null || { [ $st = failed ] || st=failed why="no samples"; }
					if [ -f "$d/r$r.hist" ] && [ "$(histsum "$d/r$r.hist")" != "$c" ]; then
						st=failed why="histogram holds $(histsum "$d/r$r.hist") of $c samples"
					fi
					[ "$6" = true ] || [ $st = failed ] || { st=failed why="result not ok (inconsistent)"; }
				elif [ $st = ok ]; then st=failed why="no result file"
				fi ;;
			esac
			# The warp guard (bench/README.md): a run that waited on
			# the host while timed is not a figure.
			if [ "$(sed -n '1s/^verdict: //p' "$d/r$r.warp" 2>/dev/null)" = rejected ]; then
				st=failed why="rejected by the warp guard: $(sed -n '2s/^reason: //p' "$d/r$r.warp")"
				log=$d/r$r.warp
			fi
			echo "$m	$s	$r	$st	$(echo "$vals" | tr ' ' '\t')	$log	$why" >> "$T/reps"
		done
		# Merged histogram of the repetitions (same bucket bounds every run).
		if ls "$md/$s"/r*.hist > /dev/null 2>&1; then
			for h in "$md/$s"/r[0-9]*.hist; do
				sed -n '1s/^verdict: rejected$/x/p' "${h%.hist}.warp" 2>/dev/null | grep -q x || cat "$h"
			done | awk '
				!/^#/ && NF >= 3 { if (!($1 in c)) { hi[$1] = $2 }; c[$1] += $3; n += $3 }
				END { for (lo in c) print lo, hi[lo], c[lo] > "/dev/stderr"; print n }' \
				2> "$T/m" > "$T/n"
			n=$(cat "$T/n")
			{
				echo "# pxutil llhist v1 (merged by bench/summarize.sh)"
				echo "# title: $m $s"
				echo "# unit: ns"
				echo "# count: $n"
				echo "# columns: lower_ns upper_ns count cum_fraction"
				sort -n "$T/m" | awk -v n="$n" '{ c += $3; printf "%s %s %s %.6f\n", $1, $2, $3, n ? c / n : 0 }'
			} > "$md/$s/all.hist"
		fi
	done
done

# Medians across repetitions (ok ones), p99 range, ratios to off, and the
# spread (max - min) / median of p50, p99 and max over the ok runs (- with
# fewer than two):
# mode scenario status nok nrep count p50 p99 p99_9 max p99_min p99_max
#   r_p50 r_p99 r_max log reason spread_p50 spread_p99 spread_max
awk -F'\t' -v OFS='\t' -v modes="$modes" -v scen="$scenarios" '
	function med(list,   a, k, i, j, t) {
		k = split(list, a, " ")
		for (i = 2; i <= k; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] + 0 > t + 0; j--) a[j + 1] = a[j]; a[j + 1] = t }
		if (!k) return "-"
		return k % 2 ? a[(k + 1) / 2] : sprintf("%.0f", (a[k / 2] + a[k / 2 + 1]) / 2)
	}
	function ratio(a, b) { return (a == "-" || b == "-" || b + 0 == 0) ? "-" : sprintf("%.4g", a / b) }
	function spread(key, f) {
		return nok[key] < 2 || md[key, f] == "-" || md[key, f] + 0 == 0 ? "-" : \
			sprintf("%.4g", (vhi[key, f] - vlo[key, f]) / md[key, f])
	}
	{
		key = $1 SUBSEP $2; nrep[key]++
		if ($4 == "ok") {
			nok[key]++
			for (f = 5; f <= 9; f++) {
				v[key, f] = v[key, f] " " $f
				if (!((key, f) in vlo) || $f + 0 < vlo[key, f] + 0) vlo[key, f] = $f
				if (!((key, f) in vhi) || $f + 0 > vhi[key, f] + 0) vhi[key, f] = $f
			}
			if (!(key in lo) || $7 + 0 < lo[key] + 0) lo[key] = $7
			if (!(key in hi) || $7 + 0 > hi[key] + 0) hi[key] = $7
			if ($11 != "-" && !(key in note)) note[key] = "run " $3 ": " $11
		} else if (!(key in why)) { why[key] = "run " $3 ": " $11; log_[key] = $10 }
	}
	END {
		nm = split(modes, M, " "); ns = split(scen, S, " ")
		for (i = 1; i <= ns; i++) for (j = 1; j <= nm; j++) {
			key = M[j] SUBSEP S[i]
			for (f = 5; f <= 9; f++) md[key, f] = med(v[key, f])
		}
		for (i = 1; i <= ns; i++) for (j = 1; j <= nm; j++) {
			key = M[j] SUBSEP S[i]; off = "off" SUBSEP S[i]
			st = !nok[key] ? "failed" : nok[key] < nrep[key] ? "partial" : "ok"
			print M[j], S[i], st, nok[key] + 0, nrep[key] + 0,
				md[key, 5], md[key, 6], md[key, 7], md[key, 8], md[key, 9],
				(key in lo) ? lo[key] : "-", (key in hi) ? hi[key] : "-",
				ratio(md[key, 6], md[off, 6]), ratio(md[key, 7], md[off, 7]), ratio(md[key, 9], md[off, 9]),
				(key in log_) ? log_[key] : "-", (key in why) ? why[key] : (key in note) ? note[key] : "-",
				spread(key, 6), spread(key, 7), spread(key, 9)
		}
	}' "$T/reps" > "$res/summary.tsv"
cp "$T/reps" "$res/runs.tsv"

# boot_check MODE CONSOLE: avail, state, ret and note of one boot, from its
# console and, for a mode with a scheduler feature, the guest's
# bench-kernel.txt beside it (ret and note - for none).
boot_check() {
	con=$2
	if grep -q 'sched: unknown proxy_exec=' "$con" 2>/dev/null; then
		avail=false note="not available in this kernel (falls back to current)"
	elif grep -q 'proxy_exec=.* ignored: CONFIG_PROXY_EXEC=n' "$con" 2>/dev/null; then
		avail=false note="kernel without CONFIG_PROXY_EXEC (proxy execution off)"
	elif [ ! -s "$con" ]; then
		avail=false note="no console log"
	else
		avail=true note=-
	fi
	state=unknown
	grep -q 'sched: proxy execution enabled' "$con" 2>/dev/null && state=enabled
	grep -q 'sched: proxy execution disabled' "$con" 2>/dev/null && state=disabled
	# "sched: proxy execution enabled, return migration in try_to_wake_up
	# (v4 style)" or "... in __schedule (current)" (part 2 on): ttwu, schedule.
	ret=$(sed -n 's/.*sched: proxy execution [a-z]*, return migration in \([a-z_]*\).*/\1/p' "$con" 2>/dev/null | head -1)
	case $ret in
	try_to_wake_up|ttwu) ret=ttwu ;;
	__schedule|schedule) ret=schedule ;;
	esac
	# off must really be off, and the proxy modes on, v4 returning in ttwu.
	if [ "$avail" = true ]; then
		case $1:$state:$ret in
		off:enabled:*) avail=false note="proxy execution is enabled in the off boot" ;;
		v4:disabled:*|current:disabled:*|v6handoff:disabled:*|mutexonly:disabled:*) avail=false note="proxy execution is disabled in this boot" ;;
		v4:*:ttwu) ;;
		v4:*:*) avail=false note="kernel did not switch to return=ttwu (${ret:-no return strategy}): ran as current" ;;
		current:*:ttwu|v6handoff:*:ttwu|mutexonly:*:ttwu) avail=false note="this boot returns in try_to_wake_up (v4 style), not __schedule" ;;
		esac
	fi
	# mutexonly: the guest's debugfs must say rwsem=off (a kernel without
	# rwsem proxying has nothing to turn off: it would just be current).
	if [ "$avail" = true ] && [ "$1" = mutexonly ] &&
		! grep -q '^debugfs_proxy_exec: .* rwsem=off$' "$(dirname "$con")/bench-kernel.txt" 2>/dev/null; then
		avail=false note="rwsem=off not in effect (a kernel without rwsem proxying?): ran as current"
	fi
	# The mode's scheduler feature (v6handoff): the guest says it set it.
	feat=$(param "sched_feature_$1")
	if [ "$avail" = true ] && [ -n "$feat" ] &&
		! grep -qx "sched_feature: $feat on" "$(dirname "$con")/bench-kernel.txt" 2>/dev/null; then
		avail=false note="sched feature $feat not set in this boot (not in this kernel?), nothing ran"
	fi
	ret=${ret:--}
}

# Each mode: what the guest reported, and whether the mode is what it says:
# the first boot that failed or is not the mode speaks for all of them.
: > "$T/modes"
for m in $modes; do
	md=$res/$m
	result='' avail=''
	for bd in $(boots "$md"); do
		r=$(guest_result "$bd")
		[ -n "$result" ] && [ "$result" != ok ] || result=$r
		[ "${avail:-true}" = false ] || boot_check "$m" "$bd/console.log"
	done
	con=$(boots "$md" | head -1)/console.log
	build=$(sed -n 's/.*Linux version \([^ ]*\) .* \(#[0-9][0-9]*\) .*/\1 \2/p' "$con" 2>/dev/null | head -1)
	# No empty fields: read with IFS=tab would merge them.
	append=$(param "append_$m") md5=$(param "bzimage_md5_$m") feat=$(param "sched_feature_$m")
	echo "$m	$result	$avail	$state	${append:--}	$note	${build:--}	${md5:--}	$ret	${feat:--}" >> "$T/modes"
done
cp "$T/modes" "$res/modes.tsv"

# summary.json (shape in bench/README.md), written by jq from the TSV files
# above and params.txt: every string escaped by jq, a number that is not
# one (or missing) is null, never broken JSON.
# The clock (older folders have none: host); interleaved boots.
clock=$(param clock) interleave=$(param interleave) nboots=$(param boots)
: "${clock:=host}" "${interleave:=0}" "${nboots:=$(echo "$modes" | wc -w)}"
# Each mode's boots (mode, folder, guest result, host load) and its first
# console and host load (mode, console, host load).
: > "$T/boots"
: > "$T/modecon"
for m in $modes; do
	for bd in $(boots "$res/$m"); do
		k=${bd##*/boot}; [ "$bd" != "$res/$m" ] || k=''
		printf '%s\t%s\t%s\t%s\n' "$m" "$bd" "$(guest_result "$bd")" \
			"$(param "hostload_$m${k:+_boot$k}")" >> "$T/boots"
	done
	printf '%s\t%s\t%s\n' "$m" "$(boots "$res/$m" | head -1)/console.log" \
		"$(param "hostload_$m")" >> "$T/modecon"
done
jq -n --arg res "$res" --arg clock "$clock" --arg interleave "$interleave" \
	--arg nboots "$nboots" --rawfile params "$res/params.txt" --rawfile modes "$T/modes" \
	--rawfile boots "$T/boots" --rawfile modecon "$T/modecon" \
	--rawfile results "$res/summary.tsv" --rawfile reps "$T/reps" '
	def rows: split("\n") | map(select(length > 0) | split("\t"));
	def num: if . == null or . == "" or . == "-" then null else (tonumber? // null) end;
	def opt: if . == "-" or . == "" then null else . end;	# "-": none, in the TSVs
	def loads: if . == null or . == "" then null else split(" ") | map(num) end;
	def rel: if startswith($res + "/") then .[($res | length) + 1:] else . end;
	# params.txt: key=value, the first of a key wins (as param does)
	($params | split("\n") | map(select(index("=")) | [.[:index("=")], .[index("=") + 1:]])
	 | reduce .[] as $kv ({}; if has($kv[0]) then . else .[$kv[0]] = $kv[1] end)) as $p
	| ($boots | rows) as $boots | ($modecon | rows) as $modecon | ($reps | rows) as $reps
	| ($results | rows) as $results
	| {
		format: "proxyexec-bench-summary",
		version: 1,
		created: ($p.created // ""),
		results_dir: $res,
		clock: ($clock | sub("=.*"; "")),
		icount_shift: (if $clock | startswith("icount=") then $clock | ltrimstr("icount=") | num else null end),
		params: {
			modes: (($p.modes // "") | split(",")),
			scenarios: (($p.scenarios // "") | split(",")),
			duration_s: ($p.duration_s | num),
			cpus: ($p.cpus | num),
			repeat: ($p.repeat | num),
			interleave: ($interleave == "1"),
			boots: ($nboots | num),
			burn_us: ($p.burn_us | num),
			quick: ($p.quick == "1"),
			hackbench: ($p.hackbench // ""),
			messaging: ($p.messaging // "")
		},
		system: {
			git_head: ($p.git_head // ""),
			git_dirty_files: ($p.git_dirty | num),
			kernel_release: ($p.kernel_release // ""),
			bzimage_md5: ($p.bzimage_md5 // ""),
			host: ($p.host // ""),
			host_cpu: ($p.host_cpu // ""),
			host_nproc: ($p.host_nproc | num),
			qemu: ($p.qemu // "")
		},
		modes: [$modes | rows[] | . as [$m, $result, $avail, $state, $append, $note, $build, $md5, $ret, $feat]
			| ($modecon | map(select(.[0] == $m)) | first // [$m, "", ""]) as $mc
			| {
				name: $m,
				append: ($append | ltrimstr("-")),
				sched_feature: ($feat | opt),
				boot: $result,
				available: ($avail == "true"),
				proxy_exec: $state,
				return_migration: ($ret | opt),
				note: ($note | opt),
				kernel: ($build | opt),
				bzimage_md5: ($md5 | opt),
				host_load: ($mc[2] | loads),
				console_log: ($mc[1] | rel),
				boots: [$boots[] | select(.[0] == $m)
					| {dir: (.[1] | rel), result: .[2], host_load: (.[3] | loads)}]
			}],
		results: [$results[] | . as [$m, $s, $st, $nok, $nrep, $c, $p50, $p99, $p999, $max,
					     $p99lo, $p99hi, $r50, $r99, $rmax, $log, $why, $s50, $s99, $smax]
			| {
				mode: $m,
				scenario: $s,
				metric: (if $s == "rename" then "rename" elif $s == "mmap" then "mmap_lock_wait"
					 elif $s == "inode" then "i_rwsem_wait"
					 elif ($s | startswith("cyclictest")) then "wakeup_latency"
					 elif $s == "hackbench" or $s == "messaging" then "run_time"
					 else "lock_wait" end),
				unit: "ns",
				status: $st,
				runs_ok: ($nok | num),
				runs: ($nrep | num),
				median: {count: ($c | num), p50: ($p50 | num), p99: ($p99 | num),
					 p99_9: ($p999 | num), max: ($max | num)},
				p99_range: [($p99lo | num), ($p99hi | num)],
				ratio_to_off: {p50: ($r50 | num), p99: ($r99 | num), max: ($rmax | num)},
				spread: {p50: ($s50 | num), p99: ($s99 | num), max: ($smax | num)},
				hist: "\($m)/\($s)/all.hist",
				failure: (if $why == "-" or $st == "ok" then null else $why end),
				note: (if $why == "-" or $st != "ok" then null else $why end),
				log: (if $log == "-" then null else $log | rel end),
				repeats: [$reps[] | select(.[0] == $m and .[1] == $s)
					| . as [$_m, $_s, $r, $rst, $rc, $rp50, $rp99, $rp999, $rmx, $rlog, $rwhy]
					| {run: ($r | num), status: $rst, count: ($rc | num), p50: ($rp50 | num),
					   p99: ($rp99 | num), p99_9: ($rp999 | num), max: ($rmx | num),
					   log: ($rlog | rel),
					   failure: (if $rwhy == "-" or $rst == "ok" then null else $rwhy end)}]
			}],
		failed: ($results | map(select(.[2] != "ok")) | length)
	}' > "$res/summary.json" || die "jq could not write $res/summary.json"

# The table: times in ms (hackbench, messaging: the time per run, also ms).
{
	echo "# proxyexec bench $(param created)  $(param kernel_release)  git $(param git_head | cut -c1-12)"
	case $clock in
	host) echo "# clock host: multi-threaded TCG, guest time is host time (it follows the host's load)" ;;
	*) echo "# clock icount shift=${clock#icount=}: virtual time, one instruction = $((1 << ${clock#icount=})) ns, vCPUs round-robin in one host thread" ;;
	esac
	if [ "$interleave" = 1 ]; then
		boots_txt="each run in its own boot, the modes in turn ($nboots boots)"
	else
		boots_txt="one boot per mode"
	fi
	echo "# $(param cpus) vCPUs (TCG), ${repeat} run(s) of $(param duration_s) s per scenario, $boots_txt; medians across runs; times in ms"
	# Host load (1-min average) when each mode's boots started and ended.
	loads=$(for m in $modes; do l=$(param "hostload_$m"); [ -z "$l" ] || printf ' %s %s,' "$m" "$(echo "$l" | tr ' ' '/')"; done)
	[ -z "$loads" ] || echo "# host load at start/end of each mode's boots (2 cores):${loads%,}"
	[ "$(awk -F'\t' '$7 != "-"' "$T/modes" | cut -f7,8 | sort -u | wc -l)" -le 1 ] ||
		echo "# WARNING: the modes booted different kernel builds: $(awk -F'\t' '$7 != "-"' "$T/modes" | cut -f1,7 | tr '\t\n' ' ')"
	[ "$(sed -n 's/^bzimage_md5_[^=]*=//p' "$res/params.txt" | sort -u | wc -l)" -le 1 ] ||
		echo "# WARNING: the bzImage changed between boots (params.txt: bzimage_md5_*)"
	while IFS='	' read -r m result avail state append note build md5 ret feat; do
		[ "$feat" = - ] || [ "$avail" = false ] || echo "# mode $m: sched feature $feat set in the guest before the scenarios"
		[ "$note" = - ] || echo "# mode $m*: $note"
		[ "$result" = ok ] && continue
		for bd in $(boots "$res/$m"); do
			[ "$(guest_result "$bd")" = ok ] || { echo "# mode $m: guest $result (see $bd/console.log)"; break; }
		done
	done < "$T/modes"
	awk -F'\t' -v rep="$repeat" -v na="$(awk -F'\t' '$3 == "false" { printf " %s ", $1 }' "$T/modes")" '
		function ms(v) { if (v == "-") return "-"; v /= 1e6
			return v >= 100 ? sprintf("%.0f", v) : v >= 10 ? sprintf("%.1f", v) : v >= 1 ? sprintf("%.2f", v) : sprintf("%.3f", v) }
		function pc(v) { return v == "-" ? "-" : sprintf("%.0f%%", v * 100) }
		function x(v) { return v == "-" ? "-" : v < 0.01 ? sprintf("%.4f", v) : v < 0.1 ? sprintf("%.3f", v) : sprintf("%.2f", v) }
		BEGIN {
			printf "%-16s %-10s %7s %9s %9s %9s %9s %7s %7s %7s", "scenario", "mode", "count", "p50", "p99", "p99.9", "max", "p50/off", "p99/off", "max/off"
			if (rep > 1) printf " %16s %17s", "p99 min..max", "spread p50/p99/max"
			printf "  %s\n", "status"
		}
		{
			if (prev != "" && prev != $2) print ""
			prev = $2
			st = $3 == "ok" ? "ok" ($17 == "-" ? "" : " (" $17 ")") : ($3 == "partial" ? "PARTIAL " : "FAILED ") $17 " (" $16 ")"
			mode = index(na, " " $1 " ") ? $1 "*" : $1
			printf "%-16s %-10s %7s %9s %9s %9s %9s %7s %7s %7s", $2, mode, $6, ms($7), ms($8), ms($9), ms($10), x($13), x($14), x($15)
			if (rep > 1) printf " %16s %17s", ms($11) ".." ms($12), pc($18) "/" pc($19) "/" pc($20)
			printf "  %s\n", st
		}' "$res/summary.tsv"
	# The targets, checked on the medians: the inversions at most 0.1x
	# off, the rest within 10% of off (messaging 2%).  Then current
	# against v4 per scenario, judged on the runs' ranges: a difference
	# counts only when the two modes' ranges do not overlap.
	echo
	echo "# targets (current vs off, medians):"
	awk -F'\t' -v v4ok="$(awk -F'\t' '$1 == "v4" { print $3 }' "$T/modes")" '
		# runs.tsv: lowest and highest p50 ($6) and p99 ($7) of the ok runs.
		function range(m, s, f, v,   key) {
			key = m SUBSEP s SUBSEP f; v += 0
			if (!(key in lo) || v < lo[key]) lo[key] = v
			if (!(key in hi) || v > hi[key]) hi[key] = v
		}
		FNR == 1 { file++ }
		file == 1 && $4 == "ok" { range($1, $2, "p50", $6); range($1, $2, "p99", $7); runs[$1, $2]++; next }
		file == 2 { r[$1, $2, "p50"] = $7; r[$1, $2, "p99"] = $8; r[$1, $2, "max"] = $10; seen[$2] = 1; ord[++n] = $2 }
		function target(what, s, f, lim,   a, b) {
			a = r["current", s, f]; b = r["off", s, f]
			if (!(s in seen)) return
			if (a == "" || b == "" || a == "-" || b == "-" || b + 0 == 0) { printf "#   %-32s n/a\n", what; return }
			printf "#   %-32s %7.3f  (target <= %s)  %s\n", what, a / b, lim, a / b <= lim ? "met" : "NOT MET"
		}
		function fmt(v) { return v >= 100 ? sprintf("%.0f", v) : sprintf("%.3g", v) }
		function rng(m, s, f) { return fmt(lo[m, s, f] / 1e6) ".." fmt(hi[m, s, f] / 1e6) }
		END {
			target("cfs p99 current/off", "cfs", "p99", 0.1)
			target("rt p99 current/off", "rt", "p99", 0.1)
			target("cyclictest p99 current/off", "cyclictest", "p99", 1.1)
			target("cyclictest max current/off", "cyclictest", "max", 1.1)
			target("hackbench median current/off", "hackbench", "p50", 1.10)
			target("messaging median current/off", "messaging", "p50", 1.02)
			print "# current vs v4 (p99; hackbench, messaging: median run time), ranges of the runs in ms:"
			if (v4ok == "") { print "#   v4 not run"; exit }
			if (v4ok != "true") { print "#   v4 not available in this kernel"; exit }
			for (i = 1; i <= n; i++) {
				s = ord[i]; if (done[s]++) continue
				f = s == "hackbench" || s == "messaging" ? "p50" : "p99"
				a = r["current", s, f]; b = r["v4", s, f]
				if (a == "" || b == "" || a == "-" || b == "-" || b + 0 == 0) continue
				if (runs["current", s] < 2 || runs["v4", s] < 2)
					v = "one run: no spread to judge by"
				else if (hi["current", s, f] < lo["v4", s, f])
					v = "current better, beyond the spread"
				else if (lo["current", s, f] > hi["v4", s, f])
					v = "current worse, beyond the spread"
				else
					v = "within the spread"
				printf "#   %-16s %7.3f  current %s, v4 %s: %s\n", s, a / b, rng("current", s, f), rng("v4", s, f), v
			}
		}' "$res/runs.tsv" "$res/summary.tsv"
} > "$res/summary.txt"
cat "$res/summary.txt"
jq empty "$res/summary.json" || die "$res/summary.json does not parse (a bug here)"
! awk -F'\t' '$3 != "ok"' "$res/summary.tsv" | grep -q . && ! grep -qvx 'ok' "$res"/*/result 2>/dev/null

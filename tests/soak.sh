#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The soak: boot the guest --boots times, odd boots proxy_exec=enable
# (return=schedule), even ones proxy_exec=enable,return=ttwu, and in each
# run tests/soak/guest-soak.sh for --duration: locktorture, the ww_mutex
# selftest, every inversion scenario incl. football, renamedemo and
# cyclictest, all at once.  Then the findings, per boot and overall.
#
# Usage: tests/soak.sh [--duration TIME] [--kernel lean|debug|kasan|kasan-nolockdep] [--cpus N]
#                      [--boots N] [--parallel N] [--out DIR]
#   --duration TIME  workload time per boot, N[s|m|h] (default 30m)
#   --kernel K       kernel flavour (default kasan: the debug kernel's lockdep,
#                    hung-task 60 s and lockup detectors, plus KASAN)
#   --cpus N         vCPUs (default 8: overcommitted on purpose)
#   --boots N        boots (default 2)
#   --parallel N     boots side by side (default 2: the two strategies at once)
#   --out DIR        results (default build/soak/<date-time>/)
#
# A finding: a guest check that failed ("not ok"), a console line matching
# tests/console-badness.txt but not tests/console-allow.txt (as tests/run.sh),
# /sys/kernel/warn_count changed during the soak (when the guest reports
# it), a hung (exit 124) or panicked (123) guest, a boot without results.
# Guest checks that did not run ("skip") are listed, not findings.
# Results: summary.txt, summary.json, and per boot bootN-MODE/ (guest/run.sh's
# console.log, output.log, ...; soak/ with the guest's records; badness).
# Exit status: 0 no finding; 1 findings (the last line says the first);
# 64 usage; 3 set-up error.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cli_prog=soak
# shellcheck source=lib/sh/cli.sh
. "$top/lib/sh/cli.sh"
# shellcheck source=lib/sh/console.sh
. "$top/lib/sh/console.sh"
duration=30m kernel=kasan cpus=8 boots=2 parallel=2 out=
while test $# -gt 0; do
	case $1 in
	--duration) checkarg "$1" $# "${2-}" '^[1-9][0-9]*[smh]?$' 'N[s|m|h]'; duration=$2; shift ;;
	--kernel) checkarg "$1" $# "${2-}" '^(lean|debug|kasan|kasan-nolockdep)$'; kernel=$2; shift ;;
	--parallel) checkarg "$1" $# "${2-}" '^[1-9][0-9]*$'; parallel=$2; shift ;;
	--cpus) checkarg "$1" $# "${2-}" '^([2-9]|[1-9][0-9]+)$'; cpus=$2; shift ;;
	--boots) checkarg "$1" $# "${2-}" '^[1-9][0-9]*$'; boots=$2; shift ;;
	--out) checkarg "$1" $# "${2-}" '.'; out=$2; shift ;;
	-h|--help) usage ;;
	*) usage "unknown option '$1'" ;;
	esac
	shift
done
secs=${duration%[smh]}
case $duration in *m) secs=$((secs * 60)) ;; *h) secs=$((secs * 3600)) ;; esac
[ -n "$out" ] || out=$top/build/soak/$(date +%Y%m%d-%H%M%S)
mkdir -p "$out" || exit 3
out=$(cd "$out" && pwd)
console_patterns "$out"
: > "$out/summary.txt"
say() { echo "$*" | tee -a "$out/summary.txt"; }
# jstr: a JSON string of stdin's first line.
jstr() { head -1 | tr -d '\000-\037' | sed 's/\\/\\\\/g; s/"/\\"/g; s/^/"/; s/$/"/'; }
# categorize FILE: bad lines per kind, most specific first; "context" are
# the Call Trace, RIP and "lockdep is turned off" lines around a report.
categorize() {
	awk '{ c = "context" }
	/blocked for more than/ { c = "hung task" }
	c == "context" && /rcu.*stall/ { c = "RCU stall" }
	c == "context" && /soft lockup/ { c = "soft lockup" }
	c == "context" && /hard LOCKUP/ { c = "hard lockup" }
	c == "context" && /WARNING: (possible|inconsistent|suspicious)|circular locking|recursive locking/ { c = "lockdep" }
	c == "context" && /WARNING:/ { c = "WARNING" }
	c == "context" && /Oops|general protection fault/ { c = "Oops/GPF" }
	c == "context" && /Kernel panic/ { c = "panic" }
	c == "context" && /KASAN/ { c = "KASAN" }
	c == "context" && /BUG:/ { c = "BUG" }
	{ n[c]++ } END { for (c in n) printf "%s%s %d", s++ ? ", " : "", c, n[c] }' "$1"
}

# v KEY: the guest's value of KEY in this boot's soak.txt.
v() { sed -n "s/^$1=//p" "$soak" 2>/dev/null | head -1; }

say "soak: $boots boot(s) of $kernel on $cpus vCPUs, ${secs}s of workload each, $parallel at once; results in $out"
# boot_mode I: mode and append of boot I (odd: return=schedule).
boot_mode() {
	mode=schedule append=proxy_exec=enable
	[ $(($1 % 2)) = 1 ] || { mode=ttwu append=proxy_exec=enable,return=ttwu; }
}
# run_boot I: boot I, its exit status in bootI-MODE/soak-exit.
run_boot() {
	boot_mode "$1"
	dir=$out/boot$1-$mode
	mkdir -p "$dir"
	rc=0
	# Bounds: boot, the workload, its wind-down (<= 300 s) and checks; the
	# guest prints progress every 30 s, so 600 s of silence is a hang.
	"$top/guest/run.sh" --kernel "$kernel" --cpus "$cpus" --mem 2048 $nolock \
		--append "oops=panic $append" --timeout $((secs + 1200)) --stall 600 \
		--share "$top/tests" --out "$dir" -- sh soak/guest-soak.sh -d "$secs" -o /px/out/soak \
		2> "$dir/run.log" < /dev/null || rc=$?
	echo "$rc" > "$dir/soak-exit"
}
# Up to --parallel boots at once (guest/run.sh's one-guest lock is off then).
nolock=
[ "$parallel" = 1 ] || nolock=--no-lock
i=1
while [ "$i" -le "$boots" ]; do
	j=$i
	while [ "$j" -le "$boots" ] && [ "$j" -lt $((i + parallel)) ]; do
		run_boot "$j" &
		j=$((j + 1))
	done
	wait
	i=$j
done

total=0 first='' json=''
i=1
while [ "$i" -le "$boots" ]; do
	boot_mode "$i"
	dir=$out/boot$i-$mode
	rc=$(cat "$dir/soak-exit" 2>/dev/null || echo 125)
	result=$(cat "$dir/result" 2>/dev/null || echo none)
	: > "$dir/findings"
	case $rc:$result in
	124:*|*:hung) echo "guest hung (exit $rc): $(grep -m1 '^run: guest hung' "$dir/run.log")" >> "$dir/findings" ;;
	123:*|*:panic)
		if site=$(console_text_poke_int3 "$dir/console.log" "$top/build/obj-$kernel/vmlinux" 2> /dev/null); then
			echo "guest panicked (exit $rc) on QEMU's stale int3 at $site: the emulator's, not the kernel's (tests/README.md); its soak did not finish" >> "$dir/findings"
		else
			echo "guest panicked (exit $rc): $(grep -m1 'Kernel panic' "$dir/console.log")" >> "$dir/findings"
		fi ;;
	*:ok) ;;
	*) echo "guest did not run or report (exit $rc, result $result): $(tail -1 "$dir/run.log")" >> "$dir/findings" ;;
	esac
	sed -n 's/^not ok \(.*\)/guest check failed: \1/p' "$dir/output.log" >> "$dir/findings" 2>/dev/null || true
	soak=$dir/soak/soak.txt
	[ -f "$soak" ] || echo "no soak/soak.txt: the guest script did not finish" >> "$dir/findings"
	{ [ "$result" != ok ] || [ "$rc" = 0 ] || grep -q '^not ok ' "$dir/output.log"; } ||
		echo "guest script exited $rc without a failed check" >> "$dir/findings"
	if [ -f "$dir/console.log" ]; then console_badness "$dir/console.log" "$out"; fi > "$dir/badness"
	nbad=$(wc -l < "$dir/badness")
	[ "$nbad" = 0 ] || echo "kernel log: $nbad bad lines ($(categorize "$dir/badness")), first: $(head -1 "$dir/badness")" >> "$dir/findings"
	# warn_count must not change (a WARN whose console line was lost still
	# counts); the guest's own soak/warn-count check, when it failed, is
	# already a finding above.
	wcd=$(v warn_count_delta)
	case $wcd in
	'') warn="not reported" ;;
	none) warn="not available in this kernel (not checked)" ;;
	0) warn="unchanged ($(v warn_count_before) -> $(v warn_count_after))" ;;
	*)
		warn="changed by $wcd ($(v warn_count_before) -> $(v warn_count_after))"
		grep -q '^not ok soak/warn-count' "$dir/output.log" 2>/dev/null ||
			echo "warn_count $warn during the soak" >> "$dir/findings" ;;
	esac
	nok=$(grep -c '^ok ' "$dir/output.log" 2>/dev/null || true)
	nnotok=$(grep -c '^not ok ' "$dir/output.log" 2>/dev/null || true)
	nskip=$(grep -c '^skip ' "$dir/output.log" 2>/dev/null || true)
	n=$(wc -l < "$dir/findings")
	total=$((total + n))
	[ -n "$first" ] || [ "$n" = 0 ] || first="boot $i ($mode): $(head -1 "$dir/findings")"

	say ""
	say "boot $i: $append, $kernel, $cpus vCPUs, ${secs}s -> $([ "$n" = 0 ] && echo clean || echo "$n finding(s)")"
	say "  guest: $result, exit $rc, reached /init after $(cat "$dir/boot-time" 2>/dev/null || echo ?) s; $dir"
	say "  kernel log: $nbad bad lines$([ "$nbad" = 0 ] || echo " ($(categorize "$dir/badness"))")"
	if [ -f "$soak" ]; then
		say "  locktorture: $(v locktorture_end), writes $(v locktorture_writes), fail $(v locktorture_fail) [$(v locktorture_stats)]"
		say "  ww_mutex selftest: $(v ww_loads) loads, $(v ww_failed) failed"
		say "  lab: $(v lab_runs) runs, $(v lab_failed) failed, exit statuses $(v lab_exit_statuses);" \
			"iterations $(v lab_iterations_done)/$(v lab_iterations_wanted), $(v lab_runs_short) runs short"
		say "  lab runs per scenario: $(v lab_per_scenario)"
		say "  football: ball moved in $(v football_violations) of $(v football_games) games;" \
			"--float: in $(v football_float_violations) of $(v football_float_games) (reported only)"
		say "  cyclictest: $(v cyclictest_threads) threads, $(v cyclictest_cycles) cycles, avg $(v cyclictest_avg_us) us, max $(v cyclictest_max_us) us"
		say "  warn_count: $warn"
	fi
	say "  guest checks: ${nok:-0} ok, ${nnotok:-0} not ok, ${nskip:-0} skipped"
	sed -n 's/^skip \(.*\)/  skipped: \1/p' "$dir/output.log" 2>/dev/null | tee -a "$out/summary.txt"
	sed 's/^/  finding: /' "$dir/findings" | tee -a "$out/summary.txt"
	case $result in hung|panic|nostatus)
		say "  console tail ($dir/console.log):"
		tail -n 40 "$dir/console.log" 2>/dev/null | sed 's/^/    /' | tee -a "$out/summary.txt" ;;
	esac

	# The boot's JSON: the guest's key=value totals (numbers stay numbers).
	bj=$(awk -F= '{ k = $1; sub(/^[^=]*=/, ""); gsub(/\\/, "\\\\"); gsub(/"/, "\\\""); gsub(/[[:cntrl:]]/, "")
		printf "%s\"%s\": %s", (NR > 1 ? ", " : ""), k, ($0 ~ /^-?[0-9]+$/ ? $0 : "\"" $0 "\"") }' "$soak" 2>/dev/null || true)
	fj=$(while IFS= read -r l; do printf '%s' "$l" | jstr; done < "$dir/findings" | paste -sd, -)
	json="$json${json:+,
}    {\"boot\": $i, \"append\": \"$append\", \"return\": \"$mode\", \"exit\": $rc, \"result\": \"$result\", \"bad_lines\": $nbad, \"findings\": [$fj], \"dir\": $(echo "$dir" | jstr), \"guest\": {$bj}}"
	i=$((i + 1))
done

cat > "$out/summary.json" <<EOF
{
  "format": "proxyexec-soak",
  "version": 1,
  "kernel": "$kernel",
  "cpus": $cpus,
  "parallel": $parallel,
  "seconds_per_boot": $secs,
  "repo": $({ git -C "$top" rev-parse HEAD 2>/dev/null || echo unknown; } | jstr),
  "findings": $total,
  "ok": $([ "$total" = 0 ] && echo true || echo false),
  "boots": [
$json
  ]
}
EOF
say ""
if [ "$total" = 0 ]; then
	say "soak: OK, $boots boot(s) x ${secs}s, no findings"
else
	say "soak: FAILED, $total finding(s); first: $first"
	exit 1
fi

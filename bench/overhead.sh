#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What observing proxy execution costs: hackbench in one proxy-on boot
# with nothing attached and with each observer in turn.  The modes run back
# to back in each round, in a rotating order; a round's ratios (mode/none)
# are paired, and the medians of the paired ratios are the result.
#
# Usage: bench/overhead.sh [--rounds N] [--cpus N] [--append ARGS]
#                          [--clock host|icount[=SHIFT]] [--modes LIST]
#                          [--out DIR] [-- hackbench args]
#        bench/overhead.sh --pool DIR...
#   defaults: 7 rounds, 4 vCPUs, --modes events,tools, the host clock,
#   "hackbench -g 4 -l 500"
#   --clock: the guest's clock (guest/run.sh --clock): icount times
#   hackbench in virtual time (instructions, 2^SHIFT ns each, SHIFT 0..10,
#   default 0), which the host's load does not enter; the guest's timeout
#   is then 5 times as long (bench/README.md, The clock)
#   --pool: boot nothing; the median of every paired ratio of the given
#   results folders together, per mode (runs of the same hackbench args and
#   clock; folders of different clocks are refused)
#
# Modes (--modes, comma-separated; none always runs):
#   events     every sched_proxy trace event enabled, ring buffer on
#   schedev    ftrace's own sched_switch, sched_wakeup and sched_wakeup_new
#              events into the ring buffer, no BPF: what recording every
#              switch and wakeup costs at all (a floor for any
#              wakeup-latency observer)
#   tools      pxchain, pxdonor, pxwakelat and proxytop attached together
#   pxwakelat  pxwakelat alone (the one tool on sched_switch/sched_wakeup)
#   proxy      pxchain, pxdonor and proxytop (sched_proxy_* events only)
#
# Output: every time, the medians, the paired ratios, and a summary line
# naming the clock; raw results in --out (default
# build/bench/overhead-<date-time>/: raw.txt, MODE.times, MODE.ratios,
# summary, params.txt with the clock and the guest's timeout, guest/).
# Exit status: 0 done; 1 the guest run failed or a result is missing; 64 usage.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
rounds=7 cpus=4 append='' out='' modes=events,tools clock=host
cli_prog=overhead
# shellcheck source=lib/sh/cli.sh
. "$top/lib/sh/cli.sh"
# summary_clock FILE: the clock a summary line names (older ones: host).
summary_clock() { sed -n 's/.*, TCG clock \([^:]*\):.*/\1/p' "$1" | grep . || echo host; }
if [ "${1-}" = --pool ]; then
	shift
	[ $# -gt 0 ] || usage "--pool needs results folders"
	for d in "$@"; do
		[ -f "$d/summary" ] || die "$d: no summary (not a finished overhead run)"
		sed 's/^/# /' "$d/summary"
	done
	[ "$(for d in "$@"; do summary_clock "$d/summary"; done | sort -u | wc -l)" = 1 ] ||
		die "the folders ran on different clocks ($(for d in "$@"; do summary_clock "$d/summary"; done | sort -u | paste -sd' ' -)): their times do not pool"
	for m in $(for d in "$@"; do ls "$d"; done | sed -n 's/\.ratios$//p' | sort -u); do
		n=$(for d in "$@"; do cat "$d/$m.ratios" 2>/dev/null; done | wc -l)
		printf 'pooled %s/none = %.3f over %d paired rounds\n' "$m" \
			"$(for d in "$@"; do cat "$d/$m.ratios" 2>/dev/null; done | median)" "$n"
	done
	exit 0
fi
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) checkarg "$1" $# "${2-}" '^[1-9][0-9]*$' 'a number, at least 1'; rounds=$2; shift ;;
	--cpus) checkarg "$1" $# "${2-}" '^[1-9][0-9]*$' 'a number'; cpus=$2; shift ;;
	--append) checkarg "$1" $# "${2-}" '^[^#]*$'; append=$2; shift ;;
	--clock) checkarg "$1" $# "${2-}" "$clock_re" "$clock_what"; clock=$2; shift ;;
	--modes) checkarg "$1" $# "${2-}" '^[a-z,]*$'; modes=$2; shift ;;
	--out) checkarg "$1" $# "${2-}" '.'; out=$2; shift ;;
	--) shift; break ;;
	-h|--help) usage ;;
	*) usage "unknown argument '$1'" ;;
	esac
	shift
done
modes=$(echo "$modes" | tr ',' ' ')
for m in $modes; do
	case $m in
	events|schedev|tools|pxwakelat|proxy) ;;
	none) usage "none always runs; --modes names the others" ;;
	*) usage "unknown mode '$m' (events, schedev, tools, pxwakelat, proxy)" ;;
	esac
done
[ -n "$modes" ] || usage "--modes is empty"
[ -z "$(for m in $modes; do echo "$m"; done | sort | uniq -d)" ] ||
	usage "a mode twice in --modes"
clock=$(clock_norm "$clock")
modes="none $modes"
args=${*:--g 4 -l 500}
out=${out:-$top/build/bench/overhead-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out"
timeout=$(clock_timeout "$clock" $((600 + rounds * 150 * $(echo "$modes" | wc -w))))
{
	echo "clock=$clock"
	echo "timeout_s=$timeout"
	echo "rounds=$rounds"
	echo "cpus=$cpus"
	echo "append=$append"
	echo "modes=$modes"
	echo "hackbench=$args"
} > "$out/params.txt"

# The guest side: one line "MODE SECONDS" per run.
cat > "$out/guest.sh" <<EOF
set -u
T=/sys/kernel/tracing
EV=\$T/events/sched_proxy
[ -d \$EV ] || { echo "no sched_proxy events: is proxy execution on?" >&2; exit 1; }
hb() { hackbench $args | sed -n 's/^Time: //p'; }
run_none() { echo "none \$(hb)"; }
run_events() {
	echo 1 > \$EV/enable; echo 1 > \$T/tracing_on
	echo "events \$(hb)"
	echo 0 > \$EV/enable; echo > \$T/trace
}
sched_events() {
	for e in sched_switch sched_wakeup sched_wakeup_new; do
		echo \$1 > \$T/events/sched/\$e/enable
	done
}
run_schedev() {
	sched_events 1; echo 1 > \$T/tracing_on
	echo "schedev \$(hb)"
	sched_events 0; echo > \$T/trace
}
# Start the tools named after the mode, wait until each has attached (the
# libbpf tools print "Tracing"; proxytop gets as long), run, stop them.
run_with() {
	mode=\$1; shift
	pids='' outs='' want=0
	for t in "\$@"; do
		case \$t in
		proxytop) proxytop -b -d 3600 -n 1 > /tmp/\$t.out 2>&1 & ;;
		*) \$t 3600 1 > /tmp/\$t.out 2>&1 & want=\$((want + 1)) ;;
		esac
		pids="\$pids \$!" outs="\$outs /tmp/\$t.out"
	done
	i=0
	while [ "\$(cat \$outs | grep -c '^Tracing')" -lt \$want ]; do
		[ \$i -lt 150 ] || { echo "\$mode: tools did not attach:" >&2; cat \$outs >&2; exit 1; }
		sleep 0.2; i=\$((i + 1))
	done
	sleep 1
	echo "\$mode \$(hb)"
	kill -INT \$pids
	for p in \$pids; do
		wait \$p || { echo "\$mode: a tool exited with \$?:" >&2; cat \$outs >&2; exit 1; }
	done
	return 0
}
run_tools() { run_with tools pxchain pxdonor pxwakelat proxytop; }
run_pxwakelat() { run_with pxwakelat pxwakelat; }
run_proxy() { run_with proxy pxchain pxdonor proxytop; }
hackbench $args > /dev/null
set -- $modes
for r in \$(seq $rounds); do
	# Round r starts with mode r mod n: each mode leads equally often.
	k=0
	while [ \$k -lt \$# ]; do
		i=\$(( (r + k) % \$# + 1 ))
		eval "run_\\\${\$i}" || exit 1
		k=\$((k + 1))
	done
done
EOF

"$top/guest/run.sh" --cpus "$cpus" --clock "$clock" --timeout "$timeout" \
	${append:+--append "$append"} \
	--share "$out" --out "$out/guest" -- sh guest.sh > "$out/raw.txt" 2>&1 ||
	{ echo "overhead: guest run failed (logs in $out/guest):" >&2; tail -20 "$out/raw.txt" >&2; exit 1; }

for m in $modes; do
	grep "^$m [0-9]" "$out/raw.txt" | awk '{ print $2 }' > "$out/$m.times"
	[ "$(wc -l < "$out/$m.times")" = "$rounds" ] ||
		die "$m: expected $rounds times, see $out/raw.txt"
	echo "$m: $(tr '\n' ' ' < "$out/$m.times")-> median $(median < "$out/$m.times") s"
done
line="hackbench $args, $rounds rounds, $cpus vCPUs, TCG clock $clock: paired median ratio"
for m in $modes; do
	[ "$m" != none ] || continue
	paste "$out/none.times" "$out/$m.times" | awk '{ print $2 / $1 }' > "$out/$m.ratios"
	line="$line $m/none = $(median < "$out/$m.ratios" | awk '{ printf "%.3f", $1 }'),"
done
echo "${line%,}" | tee "$out/summary"
echo "overhead: results in $out"

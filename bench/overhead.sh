#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What observing proxy execution costs: hackbench in one proxy-on boot with
# nothing attached, with every sched_proxy trace event enabled (ring buffer
# on), and with all four BPF tools attached (pxchain, pxdonor, pxwakelat,
# proxytop).  The three modes run back to back in each round, in a rotating
# order; a round's ratios (events/none, tools/none) are paired, and the
# medians of the paired ratios are the result.
#
# Usage: bench/overhead.sh [--rounds N] [--cpus N] [--append ARGS]
#                          [--out DIR] [-- hackbench args]
#   defaults: 7 rounds, 4 vCPUs, "hackbench -g 4 -l 500"
# Output: every time, the medians, the paired ratios; raw results in
# --out (default build/bench/overhead-<date-time>/).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
rounds=7 cpus=4 append='' out=''
usage() { sed -n '/^# Usage/,/^# Output/p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) rounds=${2:?}; shift 2 ;;
	--cpus) cpus=${2:?}; shift 2 ;;
	--append) append=${2:?}; shift 2 ;;
	--out) out=${2:?}; shift 2 ;;
	--) shift; break ;;
	-h|--help) usage ;;
	*) echo "overhead: unknown argument '$1'" >&2; usage ;;
	esac
done
case $rounds$cpus in *[!0-9]*|'') echo "overhead: --rounds and --cpus take numbers" >&2; exit 2 ;; esac
[ "$rounds" -ge 1 ] || { echo "overhead: --rounds must be at least 1" >&2; exit 2; }
args=${*:--g 4 -l 500}
out=${out:-$top/build/bench/overhead-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out"

# The guest side: one line "MODE SECONDS" per run.
cat > "$out/guest.sh" <<EOF
set -u
EV=/sys/kernel/tracing/events/sched_proxy
[ -d \$EV ] || { echo "no sched_proxy events: is proxy execution on?" >&2; exit 1; }
hb() { hackbench $args | sed -n 's/^Time: //p'; }
run_none() { echo "none \$(hb)"; }
run_events() {
	echo 1 > \$EV/enable; echo 1 > /sys/kernel/tracing/tracing_on
	echo "events \$(hb)"
	echo 0 > \$EV/enable; echo > /sys/kernel/tracing/trace
}
run_tools() {
	pxchain 3600 1 > /tmp/pxchain.out 2>&1 & a=\$!
	pxdonor 3600 1 > /tmp/pxdonor.out 2>&1 & b=\$!
	pxwakelat 3600 1 > /tmp/pxwakelat.out 2>&1 & c=\$!
	proxytop -b -d 3600 -n 1 > /tmp/proxytop.out 2>&1 & d=\$!
	# Attached once the libbpf tools announce it; proxytop gets as long.
	i=0
	while [ "\$(cat /tmp/pxchain.out /tmp/pxdonor.out /tmp/pxwakelat.out | grep -c '^Tracing')" -lt 3 ]; do
		[ \$i -lt 150 ] || { echo "tools did not attach:" >&2; cat /tmp/px*.out >&2; exit 1; }
		sleep 0.2; i=\$((i + 1))
	done
	sleep 1
	echo "tools \$(hb)"
	kill -INT \$a \$b \$c \$d
	for p in \$a \$b \$c \$d; do
		wait \$p || { echo "a tool exited with \$?:" >&2; cat /tmp/px*.out /tmp/proxytop.out >&2; exit 1; }
	done
	return 0
}
hackbench $args > /dev/null
for r in \$(seq $rounds); do
	case \$((r % 3)) in
	0) run_none; run_events; run_tools ;;
	1) run_events; run_tools; run_none ;;
	2) run_tools; run_none; run_events ;;
	esac || exit 1
done
EOF

"$top/guest/run.sh" --cpus "$cpus" --timeout $((600 + rounds * 300)) ${append:+--append "$append"} \
	--share "$out" --out "$out/guest" -- sh guest.sh > "$out/raw.txt" 2>&1 ||
	{ echo "overhead: guest run failed (logs in $out/guest):" >&2; tail -20 "$out/raw.txt" >&2; exit 1; }

median() { sort -n | awk '{ a[NR] = $1 } END { if (NR) print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
for m in none events tools; do
	grep "^$m [0-9]" "$out/raw.txt" | awk '{ print $2 }' > "$out/$m.times"
	[ "$(wc -l < "$out/$m.times")" = "$rounds" ] ||
		{ echo "overhead: $m: expected $rounds times, see $out/raw.txt" >&2; exit 1; }
	echo "$m: $(tr '\n' ' ' < "$out/$m.times")-> median $(median < "$out/$m.times") s"
done
paste "$out/none.times" "$out/events.times" "$out/tools.times" |
	awk '{ print $2 / $1, $3 / $1 }' > "$out/ratios"
ev=$(awk '{ print $1 }' "$out/ratios" | median)
tl=$(awk '{ print $2 }' "$out/ratios" | median)
printf 'hackbench %s, %s rounds, %s vCPUs, TCG: paired median ratio events/none = %.3f, tools/none = %.3f\n' \
	"$args" "$rounds" "$cpus" "$ev" "$tl" | tee "$out/summary"
echo "overhead: results in $out"

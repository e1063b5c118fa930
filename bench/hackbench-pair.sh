#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# hackbench with proxy execution off, on, and on with v6's forced handoff
# (sched_feat PROXY_V6_HANDOFF: every unlock hands off, no optimistic
# spinning).  One boot with proxy_exec=disable, one with proxy on in which
# the two proxy variants alternate run by run; prints every time, the
# medians and the ratios to off.  A quick measurement of one workload;
# bench/run.sh is the full benchmark.
#
# Usage: bench/hackbench-pair.sh [RUNS] [hackbench args...]
#   default: 7 runs each of "hackbench -g 4 -l 500" on 4 vCPUs
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cli_prog=hackbench-pair
# shellcheck source=lib/sh/cli.sh
. "$top/lib/sh/cli.sh"
case ${1-} in -h|--help) usage ;; esac
runs=${1:-7}
[ $# -gt 0 ] && shift
printf '%s\n' "$runs" | grep -qxE '[1-9][0-9]*' || usage "RUNS must be a positive number, not '$runs'"
args=${*:--g 4 -l 500}
T=$(mktemp -d "${TMPDIR:-/tmp}/hbpair.XXXXXX")
trap 'rm -rf "$T"' 0
F=/sys/kernel/debug/sched/features
hb="hackbench $args | sed -n 's/^Time: //p'"

"$top/guest/run.sh" --cpus 4 --timeout 1200 --out "$T/on" -- sh -c "
	grep -q PROXY_V6_HANDOFF $F || { echo 'no PROXY_V6_HANDOFF feature in this kernel' >&2; exit 1; }
	hackbench $args > /dev/null
	for i in \$(seq $runs); do
		echo NO_PROXY_V6_HANDOFF > $F; echo \"current \$($hb)\"
		echo PROXY_V6_HANDOFF > $F; echo \"v6 \$($hb)\"
	done
	echo NO_PROXY_V6_HANDOFF > $F" > "$T/on.raw" 2>&1 ||
	{ cat "$T/on.raw" >&2; die "proxy-on boot failed"; }
"$top/guest/run.sh" --cpus 4 --timeout 1200 --append proxy_exec=disable --out "$T/off" -- sh -c "
	hackbench $args > /dev/null
	for i in \$(seq $runs); do echo \"off \$($hb)\"; done" > "$T/off.raw" 2>&1 ||
	{ cat "$T/off.raw" >&2; die "proxy-off boot failed"; }

for mode in off current v6; do
	grep -h "^$mode [0-9]" "$T/on.raw" "$T/off.raw" | awk '{ print $2 }' > "$T/$mode.times"
	[ "$(wc -l < "$T/$mode.times")" = "$runs" ] || { cat "$T/on.raw" "$T/off.raw" >&2; die "$mode: expected $runs times"; }
	eval "m_$mode=$(median < "$T/$mode.times")"
	echo "$mode: $(tr '\n' ' ' < "$T/$mode.times")-> median $(median < "$T/$mode.times") s"
done
echo "hackbench $args, $runs runs each, 4 vCPUs, TCG:" \
	"current/off = $(echo "$m_current $m_off" | awk '{ printf "%.3f", $1 / $2 }')," \
	"v6-handoff/off = $(echo "$m_v6 $m_off" | awk '{ printf "%.3f", $1 / $2 }')"

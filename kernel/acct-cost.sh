#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What the per-cgroup donated-time counters (patch 0039: cpu.stat
# proxy_donated_usec, proxy_received_usec) cost.  The lean kernel against
# the same series without them (kernel/variants/no-group-proxy-time.patch,
# built as the mutant flavour in build/mutant/linux), booted in turn
# (--rounds times each, interleaved), in virtual time (icount: the host's
# load does not enter).  In each boot, from a cgroup four levels deep
# (every donation walks five groups, root included, twice):
#   contend   inversion contend: --workers processes hammering two lab
#             mutexes with 10 us critical sections, every wait a donation
#             (operations per virtual second)
#   messaging perf bench sched messaging beside a contend run (seconds)
# Output: per kernel the median over rounds, and the ratio
# (with counters / without); raw results in build/acct-cost/<date-time>/.
# Not with kernel/mutants/run.sh at the same time: both use the mutant tree.
#
# Usage: kernel/acct-cost.sh [--rounds N] [--workers N]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cli_prog=acct-cost
# shellcheck source=lib/sh/cli.sh
. "$top/lib/sh/cli.sh"
rounds=3 workers=8
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) checkarg "$1" $# "${2-}" '^[1-9][0-9]*$' N; rounds=$2; shift ;;
	--workers) checkarg "$1" $# "${2-}" '^[1-9][0-9]*$' N; workers=$2; shift ;;
	-h|--help) usage ;;
	*) usage "unknown option '$1'" ;;
	esac
	shift
done
variant=$top/kernel/variants/no-group-proxy-time.patch
[ -f "$top/build/obj-lean/arch/x86/boot/bzImage" ] || die "no lean kernel (make image-lean)"
# shellcheck source=kernel/mutants/tree.sh
. "$top/kernel/mutants/tree.sh"
mutant_tree_init
out=$top/build/acct-cost/$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
echo "acct-cost: building the series without group counters (mutant flavour)"
mutant_build "$variant" "$out/build.log" || die "the variant did not build: $out/build.log"
mutant_reset

# The guest side: results to tmpfs while timed, to the share at the end.
cat > "$out/guest.sh" <<EOF
set -eu
cg=/sys/fs/cgroup d=/sys/fs/cgroup
for l in a b c d; do echo +cpu > \$d/cgroup.subtree_control; d=\$d/\$l; mkdir -p \$d; done
echo \$\$ > \$d/cgroup.procs
t=\$(mktemp -d)
inversion contend -d 5s --workers $workers --set 2 -b 10 -q -o \$t/contend.json > \$t/contend.out 2>&1
inversion contend -d 20s --workers $workers --set 2 -b 10 -q > /dev/null 2>&1 &
sleep 1
perf bench sched messaging -g 4 -l 100 > \$t/messaging.out 2>&1
kill \$! 2> /dev/null; wait || :
donated=\$(sed -n 's/^proxy_donated_usec //p' \$cg/a/cpu.stat)
cp \$t/* .
echo "acct: contend \$(jq -r '[.. | .operations_per_s? // empty][0] | floor' contend.json) ops/s;" \
	"messaging \$(sed -n 's/^ *Total time: *\([0-9.]*\).*/\1/p' messaging.out) s; a donated \${donated:-none} us"
EOF
for r in $(seq "$rounds"); do
	for k in lean mutant; do
		d=$out/$k-$r
		"$top/guest/run.sh" --kernel "$k" --clock icount --cpus 4 --timeout 1800 \
			--share "$out" --out "$d" -- sh -c "sh guest.sh" > "$d.log" 2>&1 ||
			die "boot $k round $r failed: $d.log"
		line=$(cat "$d/output.log" "$d.log" 2> /dev/null | tr -d '\r' | grep '^acct: ' | tail -1)
		[ -n "$line" ] || die "no result from boot $k round $r: $d.log"
		echo "$k $r $line" | tee -a "$out/raw.txt"
	done
done
# median KERNEL FIELD: the median over rounds (field 5: ops/s, 8: s).
median() {
	awk -v k="$1" -v f="$2" '$1 == k { print $f }' "$out/raw.txt" | sort -n |
		awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
cl=$(median lean 5) cm=$(median mutant 5) ml=$(median lean 8) mm=$(median mutant 8)
{
	echo "acct-cost: medians over $rounds rounds, icount, 4 vCPUs, $workers workers, 5-level cgroup path"
	echo "  contend operations per s:    with counters $cl, without $cm, ratio $(echo "$cl $cm" | awk '{ printf "%.3f", $1 / $2 }')"
	echo "  messaging seconds:           with counters $ml, without $mm, ratio $(echo "$ml $mm" | awk '{ printf "%.3f", $1 / $2 }')"
} | tee "$out/summary"

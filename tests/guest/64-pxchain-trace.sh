#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# pxchain against an independent source: its depth histogram of a depth-3
# lab chain against the sched_proxy_pick events trace-cmd recorded of the
# same run.  pxchain attaches first and detaches last, so per depth it
# counts every pick the trace holds and at most a few more; the trace must
# have lost nothing.  Both count only the run's tasks: the run in cgroup
# pxt64 and pxchain -c /pxt64 (a pick whose donor or owner is in it), the
# trace's picks whose donor or owner is an inversion process.  Counted
# system-wide, pxchain once had 11 more depth-1 picks than the trace
# (181 vs 170): other tasks' mutex waits around trace-cmd's start and
# stop, more of them the longer the host stalls a vCPU there.
#
#   ok pxchain-trace/depth-counts      per depth: trace <= pxchain <= trace + slack
#   ok pxchain-trace/deepest           the trace's deepest pick is the chain's depth
# pxtest-boot: lean
# pxtest-cpus: 4
# pxtest-timeout: 300
set -u
. ./lib/pxtest.sh
T=/tmp/pxchaintrace.$$
CG=/sys/fs/cgroup/pxt64
mkdir -p "$T"
trap 'rm -rf "$T"; rmdir $CG 2> /dev/null' 0
D=3 N=30
say() { echo "# $*"; }
if ! mkdir -p $CG; then
	notok pxchain-trace/depth-counts "cannot create cgroup $CG"
	finish
fi

pxchain -c /pxt64 -j 99 > "$T/px.out" 2> "$T/px.err" &
px=$!
i=0
until grep -q 'Hit Ctrl-C' "$T/px.out" "$T/px.err" 2>/dev/null; do
	i=$((i + 1))
	if [ $i -gt 300 ] || ! kill -0 $px 2>/dev/null; then
		notok pxchain-trace/depth-counts "pxchain did not start: $(head -2 "$T/px.err")"
		finish
	fi
	usleep 100000
done
trace-cmd record -q -b 8192 -e sched_proxy:sched_proxy_pick -o "$T/pick.dat" \
	sh -c "$px_in_cgroup" $CG inversion chain -D $D -n $N -q > "$T/rec.out" 2>&1
rrc=$?
kill -INT $px
prc=0
wait $px || prc=$?
trace-cmd report -i "$T/pick.dat" > "$T/pick.txt" 2> "$T/report.err"
lost=$(grep -ciE 'lost|dropped' "$T/pick.txt" "$T/report.err" | awk -F: '{ n += $NF } END { print n + 0 }')
grep -E 'sched_proxy_pick:.*(donor|owner)_comm=inversion ' "$T/pick.txt" |
	grep -o 'depth=[0-9]*' | sed 's/.*depth=//' | sort -n | uniq -c |
	awk '{ print $2, $1 }' > "$T/trace.depth"
# pxchain's histogram: "DEPTH COUNT" lines.
jq -r '.hists[0].depth[]? | "\(.[0]) \(.[1])"' "$T/px.out" 2>/dev/null | awk '$2 > 0' > "$T/px.depth"
say "inversion/trace-cmd exit $rrc; pxchain exit $prc; lost $lost"
say "trace (depth count): $(tr '\n' ';' < "$T/trace.depth")  pxchain: $(tr '\n' ';' < "$T/px.depth")"

ttotal=$(awk '{ n += $2 } END { print n + 0 }' "$T/trace.depth")
slack=$((2 + ttotal / 100))
# Every depth either side saw: trace <= pxchain <= trace + slack.
bad=$(awk -v s=$slack 'NR == FNR { t[$1] = $2; d[$1] = 1; next } { p[$1] = $2; d[$1] = 1 }
	END { for (k in d) if (p[k] + 0 < t[k] + 0 || p[k] + 0 > t[k] + s)
		printf "depth %s: trace %d, pxchain %d; ", k, t[k], p[k] }' "$T/trace.depth" "$T/px.depth")
deepest=$(awk 'END { print $1 + 0 }' "$T/trace.depth")
atd=$(awk -v d=$D '$1 == d { print $2 }' "$T/trace.depth")

if [ $rrc -ne 0 ]; then
	notok pxchain-trace/depth-counts "inversion under trace-cmd exited $rrc: $(tail -2 "$T/rec.out")"
elif [ $prc -ne 0 ] || [ ! -s "$T/px.out" ]; then
	notok pxchain-trace/depth-counts "pxchain exit $prc: $(head -2 "$T/px.err")"
elif [ "$ttotal" = 0 ]; then
	notok pxchain-trace/depth-counts "no sched_proxy_pick in the trace of a depth-$D chain"
elif [ "$lost" != 0 ]; then
	notok pxchain-trace/depth-counts "the trace lost events ($lost lost/dropped lines): not comparable"
elif [ -n "$bad" ]; then
	notok pxchain-trace/depth-counts "${bad}slack $slack"
else
	ok pxchain-trace/depth-counts
fi
if [ "$deepest" = $D ] && [ "${atd:-0}" -ge $N ]; then
	ok pxchain-trace/deepest
else
	notok pxchain-trace/deepest "deepest traced pick $deepest with ${atd:-0} picks, want depth $D at least $N times"
fi
finish

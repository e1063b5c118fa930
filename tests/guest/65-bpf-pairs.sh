#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The BPF tools' donor/owner pairs over time (split from 60-bpf-tools.sh,
# same check names): a recycled pid is a new pair for pxdonor and
# proxytop, a full pair map still takes the newest pair and counts the
# evicted ones, and proxytop's rows name the lock types their picks went
# through.  Proxy execution on only: without it there are no pairs.
# pxtest-boot: lean
# pxtest-cpus: 4
# pxtest-timeout: 200
set -u
. ./lib/pxtest.sh
T=/tmp/bpfpairs.$$
mkdir -p "$T"
pm=$(cat /proc/sys/kernel/pid_max)
cleanup() {
	echo "$pm" > /proc/sys/kernel/pid_max
	rm -rf "$T"
}
trap cleanup 0
boot=proxy
# Diagnostics for the log, never parsed.
say() { echo "# $*"; }
if [ ! -e /sys/kernel/btf/vmlinux ]; then
	skip bpf-tools/pairs "no BTF in this kernel"
	finish
fi

# --- pairs that age: two runs of the rt inversion as programs of different
# names (comm invA, invB) whose tasks get the same pids.  pxdonor must show
# the second run's pair under its own comm next to the first's (a recycled
# pid is a new pair: neither invA's pair renamed nor invB's time added to
# invA's), and so must proxytop's donor view; with a map of 2 pairs
# (after a depth-3 chain filled it) the newest pair must still get in,
# the evicted ones counted.
# The pids are recycled on purpose: the kernels have no
# CONFIG_CHECKPOINT_RESTORE, so no /proc/sys/kernel/ns_last_pid to set.
# Instead pid_max is lowered to 512 for the check (restored after, and by
# cleanup): pids are handed out upwards, from 300 again past pid_max, and
# a freed pid is taken again only once the counter has gone round.  A
# fork that exits at once (pid P0) goes right before invA; after invA,
# such forks take the pids round until one gets P0 again, so the next
# fork, invB, takes invA's pid and its children take theirs: nothing
# else may fork from then until invB has forked them (no $(...) before
# its wait).
# spin_to PID: fork (and reap) until a fork gets PID, three rounds of the
# pids at most; sets $spun, the forks it took.
spin_to() {
	spun=0
	while [ $spun -lt 1536 ]; do
		true & p=$!
		wait $p
		spun=$((spun + 1))
		[ "$p" -eq "$1" ] && return 0
	done
	return 1
}
# recycled_pairs PAIRS A B: with PAIRS the "donor owner comm" lines of
# pxdonor -j, and A and B the pids of the runs invA and invB, prints what
# is wrong with invB's pair, nothing when it is a pair of its own on
# invA's pids.
recycled_pairs() {
	_pa=$(awk '$3 == "invA" { print $1, $2 }' "$1" | sort -u)
	_pb=$(awk '$3 == "invB" { print $1, $2 }' "$1" | sort -u)
	if [ -z "$_pa" ]; then echo "no invA pair"
	elif [ "$2" != "$3" ]; then echo "pids not recycled (invA $2, invB $3)"
	elif [ -z "$_pb" ]; then echo "no pair under comm invB: its pids kept invA's pair and comm"
	elif [ "$_pa" != "$_pb" ]; then echo "pair pids differ: invA $(echo $_pa), invB $(echo $_pb)"
	fi
}
cp "$(command -v inversion)" "$T/invA"
cp "$(command -v inversion)" "$T/invB"
if tool_start pa pxdonor -j 99 && tool_start pb pxdonor -j --max-pairs 2 99; then
	# proxytop's donor view (JSON, a frame a second) watches the same
	# runs: attached once its first frame is out.
	proxytop -j -D 1 99999 > "$T/pt.out" 2> "$T/pt.err" &
	ptp=$!
	i=0
	while [ $i -lt 300 ] && kill -0 $ptp 2>/dev/null && [ ! -s "$T/pt.out" ]; do
		usleep 100000
		i=$((i + 1))
	done
	inversion chain -D 3 -n 5 -q > "$T/inv.out" 2>&1 || say "inversion chain: $(tail -1 "$T/inv.out")"
	# A chain whose links are rwsems (a lab with rwsems, kernel 0040):
	# the LOCK column's other value.
	rwlab=''
	if [ -e /sys/kernel/debug/proxylab_rwsem_state ]; then
		rwlab=1
		inversion chain -D 2 --locks write,read -n 5 -q > "$T/inv.out" 2>&1 ||
			say "inversion chain --locks: $(tail -1 "$T/inv.out")"
	fi
	echo 512 > /proc/sys/kernel/pid_max
	true & p0=$!
	wait $p0
	"$T/invA" rt -n 5 -q > "$T/inv.out" 2>&1 &
	a=$!
	wait $a || say "invA: $(tail -1 "$T/inv.out")"
	t0=$(date +%s)
	spin_to "$p0"
	spinrc=$?
	"$T/invB" rt -n 5 -q > "$T/inv.out" 2>&1 &
	b=$!
	wait $b || say "invB: $(tail -1 "$T/inv.out")"
	say "$spun forks in $(($(date +%s) - t0)) s to come back to pid $p0 (status $spinrc)"
	echo "$pm" > /proc/sys/kernel/pid_max
	tool_stop pa; rca=$rc
	tool_stop pb; rcb=$rc
	kill -INT $ptp 2>/dev/null
	ptrc=0
	wait $ptp || ptrc=$?
	# pid pairs of each comm: "donor owner comm"
	pairs() { jq -r '.pairs[]? | "\(.donor_pid) \(.owner_pid) \(.donor_comm)"' "$1" 2>/dev/null; }
	pairs "$T/pa.out" > "$T/pa.pairs"; pairs "$T/pb.out" > "$T/pb.pairs"
	say "invA pid $a, invB pid $b; pairs: $(tr '\n' ';' < "$T/pa.pairs"); max 2: $(tr '\n' ';' < "$T/pb.pairs")"
	# recycled TOOL STATUS NAME: TOOL's recycled-pid check on $T/NAME.pairs.
	recycled() {
		bad=$(recycled_pairs "$T/$3.pairs" "$a" "$b")
		if [ "$2" -ne 0 ]; then
			notok "bpf-tools/$boot/$1/recycled-pid" "exit $2: $(head -2 "$T/$3.err")"
		elif [ -n "$bad" ]; then
			notok "bpf-tools/$boot/$1/recycled-pid" "$bad"
		else
			ok "bpf-tools/$boot/$1/recycled-pid"
		fi
	}
	recycled pxdonor $rca pa
	# proxytop's rows of every frame as "donor owner comm": invB's donor
	# on invA's pid under its own comm, as for pxdonor.
	jq -r '.rows[]? | "\(.pid) \(.top_pid) \(.comm)"' "$T/pt.out" > "$T/pt.pairs" 2>/dev/null
	say "proxytop donor rows: $(sort -u "$T/pt.pairs" | tr '\n' ';')"
	recycled proxytop $ptrc pt
	# The lock types: every row with picks names them; the mutex chains'
	# and rt runs' rows say mutex, the rwsem chain's rwsem, and
	# rwsem_picks_per_s counts the latter only.
	lt=$(jq -r '.rows[]? | select(.picks > 0) | .lock_type // "null"' "$T/pt.out" 2>/dev/null | sort | uniq -c | tr -s ' \n' ' ')
	rwps=$(jq -s '[.[].rwsem_picks_per_s // 0] | add' "$T/pt.out" 2>/dev/null)
	say "proxytop rows with picks by lock type: ${lt:-none}; rwsem picks/s summed over frames: ${rwps:-?}"
	want_lt="mutex"; [ -z "$rwlab" ] || want_lt="mutex rwsem"
	got_lt=$(jq -r '.rows[]? | select(.picks > 0) | .lock_type // "null"' "$T/pt.out" 2>/dev/null | sort -u | tr '\n' ' ')
	if [ $ptrc -ne 0 ]; then
		notok "bpf-tools/$boot/proxytop/lock-type" "exit $ptrc: $(head -2 "$T/pt.err")"
	elif [ "$got_lt" != "$want_lt " ]; then
		notok "bpf-tools/$boot/proxytop/lock-type" "rows with picks say: ${lt:-none}; want each of: $want_lt"
	elif [ -n "$rwlab" ] && ! awk -v v="$rwps" 'BEGIN { exit !(v > 0) }'; then
		notok "bpf-tools/$boot/proxytop/lock-type" "rwsem_picks_per_s ${rwps:-missing} in every frame, with an rwsem chain run"
	elif [ -z "$rwlab" ] && [ "$rwps" != 0 ]; then
		notok "bpf-tools/$boot/proxytop/lock-type" "rwsem_picks_per_s $rwps with mutex runs only"
	else
		ok "bpf-tools/$boot/proxytop/lock-type"
	fi
	evt=$(jlast "$T/pb.out" .evicted_total)
	if [ $rcb -ne 0 ]; then
		notok "bpf-tools/$boot/pxdonor/lru" "exit $rcb: $(head -2 "$T/pb.err")"
	elif ! grep -q ' invB$' "$T/pb.pairs"; then
		notok "bpf-tools/$boot/pxdonor/lru" "the newest pair (invB) did not get into the full map"
	elif [ "${evt:-0}" -lt 1 ]; then
		notok "bpf-tools/$boot/pxdonor/lru" "no eviction counted: evicted_total ${evt:-none}"
	else
		ok "bpf-tools/$boot/pxdonor/lru"
	fi
else
	tool_stop pa
	notok "bpf-tools/$boot/pxdonor/recycled-pid" "pxdonor did not start: $(head -2 "$T/pa.err" "$T/pb.err" 2>/dev/null | tr '\n' ' ')"
	notok "bpf-tools/$boot/proxytop/recycled-pid" "not run: pxdonor did not start"
fi

finish

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The libbpf tools against lab scenarios of known shape: pxchain sees the
# configured chain depth, pxdonor the donor runtime of a cfs inversion's
# waiter/owner pair (and the owner's cgroup), pxwakelat one lock wait and
# at least one waiter wakeup per acquisition and, with --min, one event per
# late wakeup naming the lab's waiter, mutex and holder (the waker) and
# none under the threshold, proxytop -b the header and
# the owner's row.  With proxy_exec=disable every tool runs and reports
# no proxy activity.  On the proxy boot only (none depends on the mode):
# pxwakelat's slots, and the error paths: bad arguments, no BTF, no
# sched_proxy events, not root; not root but CAP_BPF and CAP_PERFMON is
# accepted, one of the two alone is not.
# pxtest-boot: lean
# pxtest-boot: lean proxy_exec=disable +parallel
# pxtest-cpus: 4
# pxtest-timeout: 400
set -u
. ./lib/pxtest.sh
T=/tmp/bpftools.$$
CG=/sys/fs/cgroup/pxt60
mkdir -p "$T"
cleanup() {
	rmdir $CG/wl 2>/dev/null
	[ -d $CG ] && { while read -r q; do
		echo "$q" > /sys/fs/cgroup/cgroup.procs; done < $CG/cgroup.procs; rmdir $CG; } 2>/dev/null
	sed -i '/^pxt60:/d' /etc/passwd 2>/dev/null
	[ -z "${pm:-}" ] || echo "$pm" > /proc/sys/kernel/pid_max
	rm -rf "$T"
}
trap cleanup 0

TOOLS="pxchain pxdonor pxwakelat proxytop"
proxy=1
grep -qw 'proxy_exec=disable' /proc/cmdline && proxy=0
boot=$([ $proxy = 1 ] && echo proxy || echo noproxy)
# Diagnostics for the log, never parsed.
say() { echo "# $*"; }

# ------------------------------------------------------------ error paths
# None of them depends on the proxy mode: on the proxy boot only (the
# proxy_exec=disable boot checks what does).
error_paths() {

	# refused NAME REGEX COMMAND...: COMMAND (tool $t) exits non-zero with one
	# clear line on stderr matching REGEX: check bpf-tools/$boot/$t/NAME.
	refused() {
		n=$1 re=$2; shift 2
		rc=0
		"$@" > "$T/e.out" 2> "$T/e.err" || rc=$?
		if [ $rc -ne 0 ] && [ "$(wc -l < "$T/e.err")" -eq 1 ] && grep -q "$re" "$T/e.err"; then
			ok "bpf-tools/$boot/$t/$n"
		else
			notok "bpf-tools/$boot/$t/$n" "exit $rc, stderr: $(head -3 "$T/e.err" | tr '\n' ' ')"
		fi
	}
	# bad_args NAME ARGS: tool $t with ARGS (split at blanks) is refused
	# as tools/README.md's conventions say: exit 64, stderr one line
	# "$t: message" and "Try '$t --help' ...", nothing loaded: check
	# bpf-tools/$boot/$t/NAME.
	bad_args() {
		rc=0
		# shellcheck disable=SC2086
		$t $2 > "$T/bad.out" 2> "$T/bad.err" || rc=$?
		if [ $rc -eq 64 ] && [ "$(grep -c . "$T/bad.err")" -eq 2 ] &&
		   head -1 "$T/bad.err" | grep -q "^$t: " && grep -q "^Try '$t --help'" "$T/bad.err"; then
			ok "bpf-tools/$boot/$t/$1 '$2'"
		else
			notok "bpf-tools/$boot/$t/$1 '$2'" "exit $rc, stderr: $(head -2 "$T/bad.err" | tr '\n' ' ')"
		fi
	}
	for t in $TOOLS; do
		for bad in "--bogus" "0" "-p notapid" "-c /no/such/cgroup" "1 2 3"; do
			bad_args bad-args "$bad"
		done
		# Base 10: -p 08 is pid 8 (strtol's base 0 refused it as bad octal).
		rc=0
		$t -j -p 08 1 1 > "$T/p08.out" 2> "$T/p08.err" || rc=$?
		if [ $rc -eq 0 ]; then ok "bpf-tools/$boot/$t/pid-base10"
		else notok "bpf-tools/$boot/$t/pid-base10" "-p 08: exit $rc: $(head -1 "$T/p08.err")"; fi
		rc=0
		$t -h > "$T/help.out" 2>&1 || rc=$?
		if [ $rc -eq 0 ] && grep -q 'EXAMPLES' "$T/help.out"; then ok "bpf-tools/$boot/$t/help"
		else notok "bpf-tools/$boot/$t/help" "exit $rc or no EXAMPLES in -h"; fi

		# expect_err NAME REGEX ENV...: tool $t with ENV, refused (refused()).
		expect_err() {
			n=$1 re=$2; shift 2
			refused "$n" "$re" env "$@" "$t" 1 1
		}
		expect_err no-btf "^$t: .*no BTF.*CONFIG_DEBUG_INFO_BTF" PXBPF_VMLINUX_BTF=/nonexistent
		# A BTF file without the sched_proxy events stands for a kernel
		# without them (CONFIG_PROXY_EXEC=n): pxwakelat runs without its
		# donor class and says so; the others need them.
		if [ $t = pxwakelat ]; then
			rc=0
			PXBPF_VMLINUX_BTF="$PX_REPO/build/bpf/pxchain.bpf.o" $t -j 1 1 > "$T/e.out" 2> "$T/e.err" || rc=$?
			if [ $rc -eq 0 ] && [ "$(wc -l < "$T/e.err")" -eq 2 ] &&
			   grep -q "^$t: kernel has no sched_proxy trace events.*running without them" "$T/e.err" &&
			   grep -q '"proxy_events":false' "$T/e.out" && grep -q '"mutex_wait":' "$T/e.out"; then
				ok "bpf-tools/$boot/$t/no-events-runs"
			else
				notok "bpf-tools/$boot/$t/no-events-runs" "exit $rc, stderr: $(head -3 "$T/e.err" | tr '\n' ' ')"
			fi
		else
			expect_err no-events "^$t: .*no sched_proxy trace events.*CONFIG_PROXY_EXEC" \
				PXBPF_VMLINUX_BTF="$PX_REPO/build/bpf/pxchain.bpf.o"
		fi
	done
	# pxwakelat --min: pxlockwait's units (100, 100us, 2ms, 1s), at least
	# 1 us; zero, junk, a negative number or one past 2^64 are refused.
	t=pxwakelat
	for bad in "--min abc" "--min -5" "--min 0" "--min 99999999999999999999" "--min 2parsecs" "--min"; do
		bad_args min-bad-args "$bad"
	done

	grep -q '^pxt60:' /etc/passwd || echo 'pxt60:x:60600:60600:pxt60:/:/bin/sh' >> /etc/passwd
	for t in $TOOLS; do
		refused not-root "^$t: needs CAP_BPF and CAP_PERFMON (or root)" su pxt60 -s /bin/sh -c "$t 1 1"
	done

	# Not root, but CAP_BPF and CAP_PERFMON (capexec, tools/harness/: uid 60600 keeps
	# those two and nothing else): every tool loads and attaches its tp_btf
	# programs (the banner, printed after the attach; proxytop -j prints
	# none), reports one JSON interval and exits 0, with nothing else on
	# stderr.  With RLIMIT_MEMLOCK 0: CAP_SYS_RESOURCE is not needed, since
	# 5.11 BPF memory is not charged to the memlock limit (and libbpf 1.x
	# leaves the limit alone then).  Neither capability alone is enough:
	# refused as not-root is.
	rc=0
	capexec -u 60600 -c bpf,perfmon -- cat /proc/self/status > "$T/capexec.out" 2>&1 || rc=$?
	if [ $rc -eq 0 ] && grep -q '^Uid:[[:space:]]*60600[[:space:]]' "$T/capexec.out" &&
	   grep -q '^CapEff:[[:space:]]*000000c000000000$' "$T/capexec.out" &&
	   grep -q '^CapPrm:[[:space:]]*000000c000000000$' "$T/capexec.out"; then
		ok "bpf-tools/$boot/capexec"
	else
		notok "bpf-tools/$boot/capexec" "exit $rc: $(grep -E '^(Uid|CapEff|CapPrm)|capexec' "$T/capexec.out" | tr '\n' ' ')"
	fi
	for t in $TOOLS; do
		rc=0
		(ulimit -l 0 && exec capexec -u 60600 -c bpf,perfmon -- $t -j 1 1) > "$T/c.out" 2> "$T/c.err" || rc=$?
		if [ $rc -eq 0 ] && ! grep -qv 'Hit Ctrl-C' "$T/c.err" &&
		   { [ $t = proxytop ] || grep -q 'Hit Ctrl-C' "$T/c.err"; } &&
		   [ "$(jq -s 'length' "$T/c.out" 2>/dev/null)" = 1 ]; then
			ok "bpf-tools/$boot/$t/caps-bpf-perfmon"
		else
			notok "bpf-tools/$boot/$t/caps-bpf-perfmon" "exit $rc, stderr: $(head -3 "$T/c.err" | tr '\n' ' ')stdout: $(head -c 200 "$T/c.out")"
		fi
		for c in bpf perfmon; do
			refused caps-$c-only "^$t: needs CAP_BPF and CAP_PERFMON (or root)" \
				capexec -u 60600 -c $c -- $t -j 1 1
		done
	done
}
[ $proxy = 0 ] || error_paths

# ------------------------------------------------------------- behaviour

if [ ! -c /dev/proxylab ] || ! command -v inversion > /dev/null; then
	notok "bpf-tools/$boot/lab" "no /dev/proxylab or no inversion program"
	finish
fi
# Everything the scenarios start lives in $CG, so -c filters them.
mkdir -p $CG
echo $$ > $CG/cgroup.procs

# --- pxchain: chain of depth D.  Each iteration the SCHED_FIFO waiter
# blocks on the whole chain and is picked at once: depth D, at least N
# times.  As the chain unwinds it is picked at smaller depths, and the
# (CFS) chain holders that donate themselves see at most D-1.  So per
# donor: exactly one donor (the waiter) reaches D, none goes deeper.
D=3 N=30
if tool_start chain pxchain -D -j -c pxt60 99; then
	rc=0
	inversion chain -D $D -n $N -q > "$T/inv.out" 2>&1 || rc=$?
	[ $rc -eq 0 ] || say "inversion chain: exit $rc: $(tail -2 "$T/inv.out")"
	tool_stop chain
	say "pxchain: $(cat "$T/chain.out")"
	# One line per donor: pid maxdepth count_at_max total.
	tr '{' '\n' < "$T/chain.out" | grep '"depth":' | awk '{
		pid = $0; sub(/.*"pid":/, "", pid); sub(/,.*/, "", pid)
		s = $0; sub(/.*"depth":/, "", s); gsub(/[][}]/, " ", s)
		gsub(/^[ ,]+|[ ,]+$/, "", s)
		n = split(s, a, /[ ,]+/); max = 0; tot = 0
		for (i = 1; i < n; i += 2) if (a[i] != "") {
			d = a[i] + 0; c = a[i + 1] + 0; tot += c
			if (d > max) { max = d; atmax = c }
		}
		print pid, max, atmax, tot
	}' > "$T/chain.sum"
	say "per donor (pid maxdepth at_max total): $(tr '\n' ';' < "$T/chain.sum")"
	deepest=$(awk 'BEGIN { m = 0 } $2 > m { m = $2 } END { print m }' "$T/chain.sum")
	ndeep=$(awk -v d=$D '$2 == d' "$T/chain.sum" | wc -l)
	atd=$(awk -v d=$D '$2 == d { s += $3 } END { print s + 0 }' "$T/chain.sum")
	if [ $rc -ne 0 ]; then
		notok "bpf-tools/$boot/pxchain/depth" "pxchain exit $rc: $(head -2 "$T/chain.err")"
	elif [ $proxy = 0 ]; then
		if [ -s "$T/chain.sum" ]; then notok "bpf-tools/$boot/pxchain/no-picks" "proxy picks on a proxy_exec=disable boot"
		elif grep -q '"hists":\[\]' "$T/chain.out"; then ok "bpf-tools/$boot/pxchain/no-picks"
		else notok "bpf-tools/$boot/pxchain/no-picks" "no JSON summary on SIGINT"; fi
	elif [ "$deepest" != $D ]; then
		notok "bpf-tools/$boot/pxchain/depth" "deepest chain $deepest, scenario depth $D"
	elif [ "$ndeep" -ne 1 ] || [ "$atd" -lt $N ]; then
		notok "bpf-tools/$boot/pxchain/depth" "$ndeep donors reached depth $D with $atd picks there, want 1 donor with >= $N"
	else
		ok "bpf-tools/$boot/pxchain/depth"
	fi
else
	notok "bpf-tools/$boot/pxchain/depth" "pxchain did not start: $(head -2 "$T/chain.err")"
fi

# --- pxdonor + proxytop: cfs inversion.  The owner (in cgroup pxinv-bg,
# cpu.weight 1) burns B us per iteration while the waiter (normal weight)
# waits; with proxy execution it runs mostly on the waiter's behalf.
# pxdonor's total for the waiter -> owner pair must equal (within 10%: the
# trace starts later and ends sooner than pxdonor's attachment) the
# stretches computed from the raw sched_proxy_switch events trace-cmd
# recorded meanwhile, be at least half of the N*B the owner burned in N
# iterations, and
# at most the waiter's summed lock wait (+2 ms per iteration for the
# owner's way to its next context switch after the handoff).
B=5000 S=6
if [ $proxy = 1 ]; then
	inv="inversion cfs -d ${S}s -b $B -q -o $T/inv.json"
else
	# Without proxy the weight-1 owner would starve: use rt (hog-capped),
	# for as long as proxytop's three refreshes (nothing to add up).
	S=4
	inv="inversion rt -d ${S}s -b $B -q -o $T/inv.json"
fi
# The kernel's own count of the same time (cpu.stat's proxy_donated_usec)
# is compared with pxdonor's in 45-vtime-bounds, in virtual time: the two
# start a stretch at different points of __schedule(), and here a vCPU
# preempted by the host between them makes the difference (3-7%).
if tool_start donor pxdonor -G -c pxt60 99; then
	rc=0
	# proxytop in batch mode covers the run: 3 refreshes of 2 s.
	proxytop -b -n 3 -d 2 -G > "$T/top-g.out" 2> "$T/top-g.err" &
	tpid=$!
	proxytop -b -n 3 -d 2 > "$T/top.out" 2> "$T/top.err" &
	tpid2=$!
	sleep 2
	# shellcheck disable=SC2086
	trace-cmd record -q -e sched_proxy:sched_proxy_switch -o "$T/trace.dat" \
		$inv > "$T/inv.out" 2>&1 &
	ipid=$!
	owner=
	i=0
	while [ $proxy = 1 ] && [ -z "$owner" ] && [ $i -lt 200 ]; do
		owner=$(head -1 /sys/fs/cgroup/pxinv-bg/cgroup.procs 2>/dev/null)
		usleep 50000
		i=$((i + 1))
	done
	wait $tpid || rc=$?
	wait $tpid2 || rc=$?
	trc=$rc
	rc=0
	wait $ipid || rc=$?
	[ $rc -eq 0 ] || say "$inv: exit $rc: $(tail -2 "$T/inv.out")"
	tool_stop donor
	drc=$rc
	say "owner pid ${owner:-?}; pxdonor:"
	sed 's/^/#   /' "$T/donor.out"
	say "proxytop:"
	sed 's/^/#   /' "$T/top.out" "$T/top-g.out"
	# Donor runtime per pair from the raw events: donor owner ms.
	trace-cmd report -i "$T/trace.dat" 2>/dev/null | grep 'sched_proxy_switch:' | awk '{
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^\[[0-9]+\]$/) { cpu = $i; ts = $(i + 1); sub(/:$/, "", ts) }
			if (split($i, kv, "=") == 2) v[kv[1]] = kv[2]
		}
		if (cpu in open) { split(open[cpu], o, " "); tot[o[1] " " o[2]] += ts - o[3]; delete open[cpu] }
		if (v["next_pid"] != v["next_donor_pid"]) open[cpu] = v["next_donor_pid"] " " v["next_pid"] " " ts
	} END { for (k in tot) printf "%s %.3f\n", k, tot[k] * 1000 }' > "$T/trace.sum"
	say "from trace-cmd (donor owner ms): $(tr '\n' ';' < "$T/trace.sum")"
	if [ $drc -ne 0 ]; then
		notok "bpf-tools/$boot/pxdonor/donated" "pxdonor exit $drc: $(head -2 "$T/donor.err")"
	elif [ $proxy = 0 ]; then
		if grep -q '^donor runtime (all pairs, completed stretches): 0.000 ms' "$T/donor.out" &&
		   grep -q '(no proxy stretches)' "$T/donor.out" && [ ! -s "$T/trace.sum" ]; then
			ok "bpf-tools/$boot/pxdonor/no-donation"
		else
			notok "bpf-tools/$boot/pxdonor/no-donation" "donor runtime on a proxy_exec=disable boot"
		fi
	else
		# Pair rows: DONOR PID OWNER PID DONATED_ms STRETCHES MAX_us
		ms=$(awk -v o="$owner" 'NF == 7 && $4 == o && $2 != o { s += $5 } END { print s + 0 }' "$T/donor.out")
		tms=$(awk -v o="$owner" '$2 == o && $1 != o { s += $3 } END { print s + 0 }' "$T/trace.sum")
		wait_ns=$(jfield "$T/inv.json" sum latency)
		N=$(jfield "$T/inv.json" iterations_done checks)
		N=${N:-0}
		burn=$((N * B / 1000)) waitms=$((${wait_ns:-0} / 1000000))
		say "donated to owner $owner: pxdonor $ms ms, trace $tms ms; owner burned $burn ms; waiter waited $waitms ms"
		if [ -z "$owner" ]; then
			notok "bpf-tools/$boot/pxdonor/donated" "no owner pid found in pxinv-bg"
		elif ! awk -v m="$ms" -v t="$tms" 'BEGIN { d = m - t; if (d < 0) d = -d; exit !(t > 0 && d <= 0.1 * t) }'; then
			notok "bpf-tools/$boot/pxdonor/donated" "pxdonor $ms ms vs $tms ms from the raw events"
		elif ! awk -v m="$ms" -v b=$burn -v w=$waitms -v n="$N" 'BEGIN { exit !(m >= 0.5 * b && m <= w + 2 * n) }'; then
			notok "bpf-tools/$boot/pxdonor/donated" "$ms ms donated, want between $burn/2 ms (burn) and $waitms+$((2 * N)) ms (wait)"
		else
			ok "bpf-tools/$boot/pxdonor/donated"
		fi
		# Cgroup pairs: the owner's cgroup received donor runtime.
		if awk 'NF == 5 && $1 == "/pxt60" && $2 == "/pxinv-bg" && $3 > 0 { f = 1 } END { exit !f }' "$T/donor.out"; then
			ok "bpf-tools/$boot/pxdonor/cgroup"
		else
			notok "bpf-tools/$boot/pxdonor/cgroup" "no cgroup pair /pxt60 -> /pxinv-bg"
		fi
	fi
	# proxytop: header each refresh; with proxy, the owner's row names its cgroup
	# and a donor; without, no activity.
	if [ $trc -ne 0 ]; then
		notok "bpf-tools/$boot/proxytop/batch" "exit $trc: $(head -2 "$T/top.err")"
	elif [ "$(grep -c '^proxy picks/s: .* donated CPU: ' "$T/top.out")" -ne 3 ]; then
		notok "bpf-tools/$boot/proxytop/batch" "header not printed 3 times"
	elif [ $proxy = 0 ]; then
		if grep -q '^proxy picks/s: 0.0 ' "$T/top.out" &&
		   [ "$(grep -c '(no proxy activity' "$T/top.out")" -eq 3 ]; then
			ok "bpf-tools/$boot/proxytop/batch"
		else
			notok "bpf-tools/$boot/proxytop/batch" "proxy activity on a proxy_exec=disable boot"
		fi
	elif awk -v o="$owner" '$1 == o && $3 == "/pxinv-bg" && $4 > 0 && $9 != o { f = 1 } END { exit !f }' "$T/top.out"; then
		ok "bpf-tools/$boot/proxytop/batch"
	else
		notok "bpf-tools/$boot/proxytop/batch" "no row for owner $owner in /pxinv-bg with donor runtime and a donor"
	fi
	if [ $proxy = 1 ]; then
		if grep -q '^/pxinv-bg ' "$T/top-g.out"; then ok "bpf-tools/$boot/proxytop/cgroups"
		else notok "bpf-tools/$boot/proxytop/cgroups" "no /pxinv-bg row in the cgroup view"; fi
	fi
else
	notok "bpf-tools/$boot/pxdonor/donated" "pxdonor did not start: $(head -2 "$T/donor.err")"
fi

# --- proxytop interactive, on a pseudo-terminal (ptydrive types the keys):
# d donors, g cgroups, s next sort key, TAB next view (wraps to owners),
# + a longer interval, q quit.  Each key redraws at once with the new view
# in the header; q prints the totals and leaves the terminal as it found it.
# The two spaces are no command (no redraw): they give the 2-s interval
# that + set the time to elapse once before q.
# On the proxy boot only: the keys and views do not depend on the boot.
if [ $proxy = 1 ]; then
	ptydrive -w 'view: owners' -D 500ms -i 800ms -k 'dgs\t+  q' -t 60s -- proxytop -d 1 \
		> "$T/ptop.out" 2> "$T/ptop.err"
	prc=$?
	say "proxytop on a pty: $(tail -1 "$T/ptop.err")"
	# A screen update is not a line: each header on a line of its own.
	heads() { tr -d '\r' < "$T/ptop.out" | awk '{ gsub(/proxytop - /, "\nproxytop - "); print }'; }
	views=$(heads | sed -n 's/^.*proxytop - .*  view: \([a-z]*\)  sort: \([a-z]*\).*/\1\/\2/p' | uniq | tr '\n' ' ')
	say "views in order: $views"
	if [ $prc -ne 0 ]; then
		notok "bpf-tools/$boot/proxytop/interactive" "exit $prc: $(tail -3 "$T/ptop.err" | tr '\n' ' ')"
	elif ! grep -q 'terminal restored' "$T/ptop.err"; then
		notok "bpf-tools/$boot/proxytop/interactive" "terminal not restored: $(tail -1 "$T/ptop.err")"
	elif [ "$views" != "owners/time donors/time cgroups/time cgroups/picks owners/picks " ]; then
		notok "bpf-tools/$boot/proxytop/interactive" "views '$views', want owners/time donors/time cgroups/time cgroups/picks owners/picks"
	elif ! grep -q "$(printf '\033')\[H$(printf '\033')\[2\{0,1\}J" "$T/ptop.out"; then
		notok "bpf-tools/$boot/proxytop/interactive" "no screen clear: not in interactive mode"
	elif ! heads | sed -n 's/^.*proxytop - .*  interval \([0-9.]*\)s  view: owners  sort: picks.*/\1/p' |
		awk '$1 >= 1.8 { f = 1 } END { exit !f }'; then
		notok "bpf-tools/$boot/proxytop/interactive" "'+' did not lengthen the interval to 2 s"
	elif ! grep -q '^proxytop: totals since start' "$T/ptop.out"; then
		notok "bpf-tools/$boot/proxytop/interactive" "no totals after q"
	else
		ok "bpf-tools/$boot/proxytop/interactive"
	fi
fi

# --- pxwakelat: rt inversion.  Each iteration the SCHED_FIFO waiter blocks
# on the owner's mutex once: N blocked acquisitions, at least N waiter or
# donor wakeups; donors only with proxy execution.
# The inversion runs in a cgroup of its own, pxt60/wl, watched by a second
# pxwakelat (-c pxt60/wl): the owner takes the mutex uncontended and the
# hog takes none, so its mutex waits are the waiter's, and they must agree
# with the waits the lab measured itself (wait_ns of each LOCK, ktime
# around mutex_lock(), inversion's result file).  In pxt60 the shell and
# the tools add a wait or two (seen: 40-42 for 40 iterations).
#
# wait_vs_lab WAKE INV: pxwakelat's mutex waits (the last JSON line of
# WAKE) against the lab's (the samples of INV); prints "ok" or what
# disagrees.  Each of pxwakelat's waits (contention_begin to _end) lies
# inside the lab's, so it is never longer, and shorter by the way in and
# out of mutex_lock(): measured per wait with trace-cmd (lean, proxy on
# and off, and debug; 6 runs of 40): median 17-43 us, at most 130-304 us,
# but once 12.6 ms (the waiter kept from its CPU between the lab's clock
# read and the mutex).  pxwakelat's sum fell short of the lab's by 18-68
# us a wait with proxy execution (lean and debug, waits of 1.4-6 ms; 0.5-
# 4.5% of the sum), 45-231 us with proxy_exec=disable (waits of ~100 ms),
# in 21 runs of 40; never above.  So, allowing S = 2 waits in N that are
# off by more:
#   count  pxwakelat's blocked acquisitions = the lab's samples;
#   sum    the lab's sum minus (N x 200 us + its S longest waits) <=
#          pxwakelat's sum <= the lab's (+ 1 us of rounding);
#   every log2 bucket bound B of pxwakelat's histogram (the median's and
#   the tail's among them): the lab's waits under B <= pxwakelat's under B
#   <= the lab's under B + 500 us, + S.
wait_vs_lab() {
	jq -rn --slurpfile w "$1" --slurpfile i "$2" \
		--argjson d 500000 --argjson dsum 200000 --argjson s 2 '
	def below($v; $ns): [$v[] | select(. < $ns)] | length;
	($w | last | .mutex_wait) as $m | ($i[0].samples // []) as $x | ($x | length) as $n |
	(($m.avg_us // 0) * ($m.acquired // 0) * 1000) as $sp | ($x | add // 0) as $sl |
	($x | sort | .[-$s:] | add // 0) as $top |
	([$m.hist[]? | .hi] | max // 0) as $hmax |
	[range(0; 40) | pow(2; .) | select(. <= $hmax + 1)] as $bs |
	[$bs[] as $b | { b: $b, px: ([$m.hist[]? | select(.hi < $b) | .count] | add // 0),
		lo: below($x; $b * 1000), hi: below($x; $b * 1000 + $d) }] as $cdf |
	if $n == 0 then "no waits in the lab result"
	elif $m.acquired != $n then "pxwakelat \($m.acquired) blocked acquisitions, the lab \($n)"
	elif $sp > $sl + 1000 then
		"pxwakelat waited \($sp / 1e6) ms in all, more than the lab'"'"'s \($sl / 1e6) ms"
	elif $sl - $sp > $n * $dsum + $top then
		"pxwakelat waited \($sp / 1e6) ms in all, the lab \($sl / 1e6) ms: more than \($n) x \($dsum / 1e6) ms + its \($s) longest (\($top / 1e6) ms) apart"
	else ([$cdf[] | select(.px < .lo or .px > .hi + $s)] | first | select(. != null) |
		"under \(.b) us: pxwakelat \(.px) waits, the lab \(.lo) (\(.hi) under \(.b) us + \($d / 1000) us)") // "ok"
	end' 2>&1 || echo "cannot compare $1 with $2"
}
N=40
mkdir -p $CG/wl
if tool_start wake pxwakelat -j -w -c pxt60 99 && tool_start wl pxwakelat -j -c pxt60/wl 99; then
	irc=0
	sh -c "$px_in_cgroup" $CG/wl inversion rt -n $N -q -o "$T/wl-inv.json" \
		> "$T/inv.out" 2>&1 || irc=$?
	[ $irc -eq 0 ] || say "inversion rt: exit $irc: $(tail -2 "$T/inv.out")"
	tool_stop wl; wlrc=$rc
	tool_stop wake
	say "pxwakelat: $(cat "$T/wake.out")"
	jvars "$T/wake.out" acq=.mutex_wait.acquired waiter=.wakeup.waiter.count donor=.wakeup.donor.count
	# A blocked waiter may get the mutex with no wakeup to time: by the
	# wait loop's trylock after queueing, or handed it while still on
	# its CPU (no switch, so no sample).  Rare: allow a tenth, at least 1.
	slack=$(( ${acq:-0} / 10 )); [ $slack -ge 1 ] || slack=1
	say "acquired=$acq waiter=$waiter donor=$donor"
	if [ $rc -ne 0 ] || [ -z "$acq" ]; then
		notok "bpf-tools/$boot/pxwakelat/counts" "pxwakelat exit $rc: $(head -2 "$T/wake.err")"
	elif [ "$acq" -lt $N ] || [ "$acq" -gt $((N + N / 2)) ]; then
		notok "bpf-tools/$boot/pxwakelat/counts" "$acq blocked acquisitions, scenario made $N"
	elif [ $((waiter + donor)) -lt $((acq - slack)) ]; then
		notok "bpf-tools/$boot/pxwakelat/counts" "$((waiter + donor)) waiter wakeups < $acq acquisitions - $slack"
	elif [ $proxy = 1 ] && [ "$donor" -eq 0 ]; then
		notok "bpf-tools/$boot/pxwakelat/counts" "no wakeup of a waiter that donated"
	elif [ $proxy = 0 ] && [ "$donor" -ne 0 ]; then
		notok "bpf-tools/$boot/pxwakelat/counts" "$donor donor wakeups on a proxy_exec=disable boot"
	else
		ok "bpf-tools/$boot/pxwakelat/counts"
	fi
	say "pxwakelat -c pxt60/wl: $(jlast "$T/wl.out" .mutex_wait | tr -d '\n')"
	say "the lab: $(jq -c .latency "$T/wl-inv.json" 2>/dev/null)"
	bad=$(wait_vs_lab "$T/wl.out" "$T/wl-inv.json")
	if [ $wlrc -ne 0 ] || [ $irc -ne 0 ]; then
		notok "bpf-tools/$boot/pxwakelat/wait-vs-lab" "pxwakelat exit $wlrc, inversion exit $irc: $(head -2 "$T/wl.err")"
	elif [ "$bad" != ok ]; then
		notok "bpf-tools/$boot/pxwakelat/wait-vs-lab" "$bad"
	else
		ok "bpf-tools/$boot/pxwakelat/wait-vs-lab"
	fi
	# The comparison itself must tell wrong lab figures apart: every wait
	# twice as long (a unit slip, another run's waits), one wait short.
	jq '.samples |= map(. * 2)' "$T/wl-inv.json" > "$T/wl-x2.json" 2>/dev/null
	jq '.samples |= .[1:]' "$T/wl-inv.json" > "$T/wl-n1.json" 2>/dev/null
	x2=$(wait_vs_lab "$T/wl.out" "$T/wl-x2.json")
	n1=$(wait_vs_lab "$T/wl.out" "$T/wl-n1.json")
	say "against the waits doubled: $x2; one wait short: $n1"
	if [ "$x2" != ok ] && [ "$n1" != ok ]; then
		ok "bpf-tools/$boot/pxwakelat/wait-vs-lab-rejects"
	else
		notok "bpf-tools/$boot/pxwakelat/wait-vs-lab-rejects" "a wrong lab figure passed: doubled '$x2', one short '$n1'"
	fi
else
	tool_stop wake
	notok "bpf-tools/$boot/pxwakelat/counts" "pxwakelat did not start: $(head -2 "$T/wake.err" "$T/wl.err" 2>/dev/null | tr '\n' ' ')"
	notok "bpf-tools/$boot/pxwakelat/wait-vs-lab" "pxwakelat did not start"
fi
rmdir $CG/wl 2>/dev/null


# --- pxwakelat slots: with one slot for every task, wakeups of different
# tasks keep taking it from each other: evictions, counted and shown.
# With -w only blocked mutex waiters take a slot (the filter is in BPF),
# so the same run evicts (next to) nothing.
# The slots do not depend on the mode: on the proxy boot only.
if [ $proxy = 1 ]; then
	if tool_start sl pxwakelat -j --slots 1 99 && tool_start slw pxwakelat -j -w --slots 1 99; then
		inversion rt -n 10 -q > "$T/inv.out" 2>&1 || say "inversion rt: $(tail -1 "$T/inv.out")"
		tool_stop sl; rc1=$rc
		tool_stop slw; rc2=$rc
		ev=$(jlast "$T/sl.out" .evicted)
		evw=$(jlast "$T/slw.out" .evicted)
		say "evictions with one slot: ${ev:-?} (all tasks), ${evw:-?} (-w)"
		if [ $rc1 -ne 0 ] || [ $rc2 -ne 0 ] || [ -z "$ev" ] || [ -z "$evw" ]; then
			notok "bpf-tools/$boot/pxwakelat/evictions" "exit $rc1/$rc2, no evicted count: $(head -2 "$T/sl.err")"
		elif [ "$ev" -eq 0 ]; then
			notok "bpf-tools/$boot/pxwakelat/evictions" "no eviction with one slot for all tasks"
		else
			ok "bpf-tools/$boot/pxwakelat/evictions"
		fi
		if [ -n "$ev" ] && [ -n "$evw" ] && [ "$ev" -gt 0 ] && [ $((evw * 10)) -le "$ev" ]; then
			ok "bpf-tools/$boot/pxwakelat/waiters-in-bpf"
		else
			notok "bpf-tools/$boot/pxwakelat/waiters-in-bpf" "-w evicted $evw vs $ev without: other tasks still take slots"
		fi
	else
		notok "bpf-tools/$boot/pxwakelat/evictions" "pxwakelat --slots 1 did not start: $(head -2 "$T/sl.err" "$T/slw.err")"
	fi
	pm=$(cat /proc/sys/kernel/pid_max)
	if tool_start sd pxwakelat -j 1 1; then
		wait "$(tool_pid sd)"
		want=1; while [ $want -lt "$pm" ]; do want=$((want * 2)); done
		if grep -q "\"slots\":$want," "$T/sd.out"; then ok "bpf-tools/$boot/pxwakelat/slots-pid-max"
		else notok "bpf-tools/$boot/pxwakelat/slots-pid-max" "pid_max $pm, want $want slots: $(head -c 300 "$T/sd.out")"; fi
	fi
fi

# --- pxwakelat --min: one event per wakeup at least that late, against
# the rt inversion in its own cgroup (pxt60/wl) and its result file: the
# waiter and holder pids, and the lab mutex F independently of the tool
# (`lab` from /proc/kallsyms, sizeof(struct proxylab_mutex) from the BTF).
# Four at once, all -c pxt60/wl: A JSON --min 1us; B text --min 100us
# (the same wakeups measured with the same rq clocks: B's events must be
# exactly A's at or over 100 us); C text -w --min 1us (waiter blocks
# only); D --min 60s, later than any wakeup: no event at all.  The
# inversion starts 5 s after A has started: A empties one of its two
# waker-stack maps every 2 s, so its events come from a map emptied and
# refilled.
lab=$(awk '$3 == "lab" { print $1; exit }' /proc/kallsyms)
msz=$(bpftool btf dump file /sys/kernel/btf/vmlinux format raw 2>/dev/null |
	sed -n "s/.* STRUCT 'proxylab_mutex' size=\([0-9]*\) .*/\1/p" | head -1)
F=1 N=10 B=100
# Mutex F's address from lab's (shell arithmetic on the low 48 bits only:
# the address does not fit a signed 64-bit number), and its symbol.
maddr=$(printf '0x%s%012x' "${lab%????????????}" $((0x${lab#????} + F * ${msz:-0})))
msym=$(printf 'lab+0x%x' $((F * ${msz:-0})))
say "lab mutex $F: $maddr $msym"
mkdir -p $CG/wl
if [ -z "$lab" ] || [ -z "$msz" ]; then
	notok "bpf-tools/$boot/pxwakelat/min-waiter" "no symbol lab in /proc/kallsyms or no proxylab_mutex in the BTF"
elif tool_start evA pxwakelat -j --min 1us -c pxt60/wl 99 && t0=$(cut -d' ' -f1 /proc/uptime) &&
   tool_start evB pxwakelat --min ${B}us -c pxt60/wl 99 &&
   tool_start evC pxwakelat -w --min 1us -c pxt60/wl 99 && tool_start evD pxwakelat --min 60s -c pxt60/wl 99; then
	# 5 s after A's banner (its stack maps' clock starts just before it),
	# of which B, C and D took a second or more each to start.
	sleep "$(awk -v t="$t0" '{ s = t + 5 - $1; printf "%.1f", (s > 0 ? s : 0) }' /proc/uptime)"
	sh -c "$px_in_cgroup" $CG/wl inversion rt -n $N -b 2000 --first-mutex "$F" -q -o "$T/ev-inv.json" \
		> "$T/inv.out" 2>&1 &
	sup=$!
	irc=0
	wait $sup || irc=$?
	[ $irc -eq 0 ] || say "inversion rt: exit $irc: $(tail -2 "$T/inv.out")"
	tool_stop evA; rca=$rc
	tool_stop evB; rcb=$rc
	tool_stop evC; rcc=$rc
	tool_stop evD; rcd=$rc
	jvars "$T/ev-inv.json" wpid=.checks.waiter_pid hpid='.checks.holder_pids[0]' \
		procs='[.checks.waiter_pid, .checks.holder_pids[], .checks.hog_pids[]] | join(" ")'
	procs="$sup $procs"
	say "inversion $sup: waiter $wpid, holder $hpid, all $procs; exit $irc"
	for n in A B C D; do say "pxwakelat $n: exit $(eval echo \$rc$(echo $n | tr ABCD abcd)): $(tail -1 "$T/ev$n.out" "$T/ev$n.err" | grep wakeups)"; done
	# The waiter's blocked wakeups in A: class, mutex, waker, CPUs, stack.
	jq -c --argjson w "${wpid:-0}" 'select(.task.pid == $w) |
		[.class, .latency_ns, .lock, .lock_sym, .waker.pid, .wake_cpu, .run_cpu, .switches, .cpu_curr.pid,
		 ([.waker_stack[]? | select(test("mutex_unlock"))] | length), (.waker_stack[0]? // "")]' \
		"$T/evA.out" > "$T/evA.w" 2>/dev/null
	say "the waiter's events in A (class ns lock sym waker wcpu rcpu switches curr unlock-frames top):"
	sed 's/^/#   /' "$T/evA.w"
	nw=$(grep -c '^\["\(waiter\|donor\)"' "$T/evA.w")
	# With proxy execution the unlock wakes a donor still queued, which
	# runs later: every wakeup is microseconds late.  Without, it preempts
	# the holder at once, and the switch reuses the wakeup's rq clock
	# (wakeup_preempt()'s rq_clock_skip_update()): mostly 0 ns, under any
	# --min (seen: 3-4 of 10 over 1 us).
	want=$((N - 1)); [ $proxy = 1 ] || want=1
	badlock=$(jq -r --arg a "$maddr" --arg s "$msym" 'select(.[0] != "other") |
		select(.[2] != $a or .[3] != $s) | "\(.[2]) \(.[3])"' "$T/evA.w" 2>/dev/null | head -1)
	if [ $rca -ne 0 ] || [ $irc -ne 0 ] || [ -z "$wpid" ]; then
		notok "bpf-tools/$boot/pxwakelat/min-waiter" "pxwakelat exit $rca, inversion exit $irc: $(head -2 "$T/evA.err" | tr '\n' ' ')"
	elif [ "$nw" -lt $want ]; then
		notok "bpf-tools/$boot/pxwakelat/min-waiter" "$nw waiter/donor events for waiter $wpid, want >= $want ($N blocked acquisitions)"
	elif [ -n "$badlock" ]; then
		notok "bpf-tools/$boot/pxwakelat/min-waiter" "the waiter blocked on $badlock, not lab mutex $F ($maddr $msym)"
	else
		ok "bpf-tools/$boot/pxwakelat/min-waiter"
	fi
	# The holder wakes it from mutex_unlock() (the waker's stack says so),
	# both pinned to CPU 0 (inversion rt's default -c 0).
	badwk=$(jq -r --argjson h "${hpid:-0}" 'select(.[0] != "other") |
		select(.[4] != $h or .[5] != 0 or .[6] != 0 or (.[7] | type) != "number" or .[9] < 1 or
		       (.[10] | test("^(bpf_trace_run|__bpf_trace|__traceiter)"))) | tostring' "$T/evA.w" 2>/dev/null | head -1)
	if [ "$nw" -eq 0 ]; then
		notok "bpf-tools/$boot/pxwakelat/min-waker" "no waiter event to check"
	elif [ -n "$badwk" ]; then
		notok "bpf-tools/$boot/pxwakelat/min-waker" "want waker $hpid with a mutex_unlock frame, cpu 0: $badwk"
	else
		ok "bpf-tools/$boot/pxwakelat/min-waker"
	fi
	# The ageing: A emptied a stack map at least twice, and every waiter
	# event's stack (checked above) was shown, none lost or expired.
	asum=$(grep '^waker stacks: ' "$T/evA.err")
	emptied=$(echo "$asum" | sed -n 's/.*stack maps emptied \([0-9]*\) times.*/\1/p')
	shown=$(echo "$asum" | sed -n 's/^waker stacks: \([0-9]*\) shown.*/\1/p')
	say "A: $asum"
	if [ "${emptied:-0}" -lt 2 ]; then
		notok "bpf-tools/$boot/pxwakelat/min-stack-ageing" "A emptied its stack maps ${emptied:-no} times in 5 s, want 2 or more: '$asum'"
	elif [ "${shown:-0}" -lt "$nw" ] || [ "$nw" -eq 0 ]; then
		notok "bpf-tools/$boot/pxwakelat/min-stack-ageing" "${shown:-no} stacks shown for $nw waiter events: '$asum'"
	else
		ok "bpf-tools/$boot/pxwakelat/min-stack-ageing"
	fi
	# Donors only with proxy execution.
	nd=$(grep -c '^\["donor"' "$T/evA.w")
	ndc=$(grep -c '\] donor: ran ' "$T/evC.out")
	if [ $proxy = 1 ] && [ "$nd" -eq 0 ]; then
		notok "bpf-tools/$boot/pxwakelat/min-donor-class" "no donor event of the waiter with proxy execution"
	elif [ $proxy = 0 ] && { [ "$ndc" -ne 0 ] || grep -q '"class":"donor"' "$T/evA.out"; }; then
		notok "bpf-tools/$boot/pxwakelat/min-donor-class" "donor events on a proxy_exec=disable boot"
	else
		ok "bpf-tools/$boot/pxwakelat/min-donor-class"
	fi
	# The threshold, filtered in BPF: every event at least --min; B's are
	# A's at or over B us, one for one (same wakeups, same clocks; no loss
	# allowed), and A has some under B us (else B proved nothing).
	jq -r '.latency_ns' "$T/evA.out" > "$T/evA.lat" 2>/dev/null
	sed -n 's/^[0-9:]* .*: ran \([0-9.]*\) ms after its wakeup.*/\1/p' "$T/evB.out" > "$T/evB.lat"
	na=$(grep -c . "$T/evA.lat") nb=$(grep -c . "$T/evB.lat")
	amin=$(sort -n "$T/evA.lat" | head -1)
	aover=$(awk -v b=$B '$1 >= b * 1000' "$T/evA.lat" | wc -l)
	bmin=$(sort -n "$T/evB.lat" | head -1)
	say "A: $na events, min ${amin:-none} ns, $aover at or over $B us; B: $nb events, min ${bmin:-none} ms"
	if [ $rcb -ne 0 ] || [ "$na" -eq 0 ]; then
		notok "bpf-tools/$boot/pxwakelat/min-threshold" "pxwakelat exit $rca/$rcb, $na events in A"
	elif grep -q 'lost:' "$T/evA.err" "$T/evB.out"; then
		notok "bpf-tools/$boot/pxwakelat/min-threshold" "events lost: $(grep -h 'lost:' "$T/evA.err" "$T/evB.out")"
	elif [ "$amin" -lt 1000 ]; then
		notok "bpf-tools/$boot/pxwakelat/min-threshold" "an event of $amin ns under --min 1us"
	elif [ "$nb" -gt 0 ] && ! awk -v b=$B '$1 * 1000 < b { exit 1 }' "$T/evB.lat"; then
		notok "bpf-tools/$boot/pxwakelat/min-threshold" "an event of $bmin ms under --min ${B}us"
	elif [ "$nb" -ne "$aover" ]; then
		notok "bpf-tools/$boot/pxwakelat/min-threshold" "B reported $nb wakeups, A $aover at or over $B us"
	elif [ "$aover" -eq "$na" ]; then
		notok "bpf-tools/$boot/pxwakelat/min-threshold" "no wakeup under $B us in A: the threshold was not put to the test"
	else
		ok "bpf-tools/$boot/pxwakelat/min-threshold"
	fi
	# -c: only the inversion's tasks; -w (C, text): only blocked waiters,
	# each block naming the mutex, the holder as waker and its stack.
	badc=$(jq -r --arg p " $procs " 'select(.task.tgid as $t | $p | contains(" \($t) ") | not) | "\(.task.comm) \(.task.pid)"' \
		"$T/evA.out" 2>/dev/null | sort -u | head -3 | tr '\n' ' ')
	grep '^[0-9][0-9]:[0-9][0-9]:[0-9][0-9] ' "$T/evC.out" > "$T/evC.first"
	nc=$(grep -c . "$T/evC.first")
	nco=$(grep -c "^[0-9:]* inversion $wpid \[prio [0-9]*\] \(waiter\|donor\): ran [0-9.]* ms after its wakeup, on cpu 0, blocked on $msym $maddr$" "$T/evC.first")
	nwk=$(grep -c "^    woken by: inversion $hpid \[prio [0-9]*\]$" "$T/evC.out")
	nst=$(grep -c '^    waker stack:$' "$T/evC.out")
	say "C: $nc events, $nco the waiter's blocked on $msym, $nwk woken by $hpid, $nst stacks; the first:"
	awk '/^[0-9][0-9]:[0-9][0-9]:[0-9][0-9] / { n++ } n == 1' "$T/evC.out" | head -16 | sed 's/^/#   /'
	if [ $rcc -ne 0 ] || [ -n "$badc" ]; then
		notok "bpf-tools/$boot/pxwakelat/min-filters" "exit $rca/$rcc; -c pxt60/wl let through $badc"
	elif [ "$nc" -eq 0 ] || [ "$nco" -ne "$nc" ] || [ "$nwk" -ne "$nc" ] || [ "$nst" -ne "$nc" ]; then
		notok "bpf-tools/$boot/pxwakelat/min-filters" "-w: $nc events, $nco the waiter's on $msym, $nwk by holder $hpid, $nst stacks: $(head -1 "$T/evC.first")"
	else
		ok "bpf-tools/$boot/pxwakelat/min-filters"
	fi
	# D: later than any wakeup: nothing reported, the wakeups counted.
	dsum=$(grep 'wakeups, .* of at least 60000.000 ms reported' "$T/evD.out")
	if [ $rcd -ne 0 ] || grep -q '^[0-9][0-9]:[0-9][0-9]:[0-9][0-9] ' "$T/evD.out" ||
	   ! echo "$dsum" | grep -q '^[1-9][0-9]* wakeups, 0 of at least'; then
		notok "bpf-tools/$boot/pxwakelat/min-none" "exit $rcd, $(grep -c '^[0-9:]* ' "$T/evD.out") event lines, summary '$dsum'"
	else
		ok "bpf-tools/$boot/pxwakelat/min-none"
	fi
else
	for n in A B C D; do tool_stop ev$n; done
	notok "bpf-tools/$boot/pxwakelat/min-waiter" "pxwakelat --min did not start: $(head -2 "$T/evA.err" "$T/evB.err" "$T/evC.err" "$T/evD.err" 2>/dev/null | tr '\n' ' ')"
fi
rmdir $CG/wl 2>/dev/null

[ $proxy = 1 ] || finish

# --- pxchain abort reasons by the running kernel's names: every reason
# trace-cmd saw (the kernel prints its own names) counted at least as
# often by pxchain, which ran longer; no unknown or unnamed value.  abba's
# deadlock cycle makes find_proxy_task() give up (deactivated).
if tool_start ab pxchain -j 99; then
	trace-cmd record -q -e sched_proxy:sched_proxy_abort -o "$T/ab.dat" abba > "$T/abba.out" 2>&1
	tool_stop ab
	trace-cmd report -i "$T/ab.dat" 2>/dev/null | grep -o 'reason=[a-z_]*' | sed 's/reason=//' |
		sort | uniq -c > "$T/ab.trace"
	jq -r '.aborts | to_entries[] | "\(.key):\(.value)"' "$T/ab.out" > "$T/ab.px" 2>/dev/null || :
	say "trace-cmd aborts: $(tr '\n' ' ' < "$T/ab.trace"); pxchain: $(tr '\n' ' ' < "$T/ab.px")"
	bad=$(while read -r c r; do
		n=$(sed -n "s/^$r:\([0-9]*\)$/\1/p" "$T/ab.px")
		[ "${n:-0}" -ge "$c" ] || echo "$r: pxchain ${n:-none}, trace $c"
	done < "$T/ab.trace")
	if [ $rc -ne 0 ] || [ ! -s "$T/ab.px" ]; then
		notok "bpf-tools/$boot/pxchain/abort-names" "pxchain exit $rc: $(head -2 "$T/ab.err")"
	elif [ ! -s "$T/ab.trace" ]; then
		notok "bpf-tools/$boot/pxchain/abort-names" "no sched_proxy_abort in the trace of abba"
	elif [ -n "$bad" ]; then
		notok "bpf-tools/$boot/pxchain/abort-names" "$(echo $bad)"
	elif grep -q '^reason_' "$T/ab.px" || ! grep -q '^unknown:0$' "$T/ab.px"; then
		notok "bpf-tools/$boot/pxchain/abort-names" "values the kernel's enum does not name: $(tr '\n' ' ' < "$T/ab.px")"
	else
		ok "bpf-tools/$boot/pxchain/abort-names"
	fi
else
	notok "bpf-tools/$boot/pxchain/abort-names" "pxchain did not start: $(head -2 "$T/ab.err")"
fi

finish

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Proxy execution on rw_semaphores, on a kernel one (mmap_lock), with
# mmapdemo: a nice-19 thread, throttled by cpu.max, mprotect()s a large
# mapping (mmap_lock for writing), the nice -10
# thread of the same process times reads of /proc/self/maps (mmap_lock for
# reading).  With rwsem proxying sched_proxy_pick names an rwsem; with
# proxy_exec=...,rwsem=off (the control, same kernel) none does and the
# reader sits out the writer's throttled periods.  How long the waits
# are with rwsem proxying is a bound in virtual time, 45-vtime-bounds.sh:
# here, on multi-threaded TCG, a duration would bound the host's
# scheduling as much as the kernel's.  With readers owning the rwsem
# (--bg-read) nothing is proxied and sched_proxy_abort says why
# (owner_readers).  A file's i_rwsem (mmapdemo --inode) as mmap_lock.
# Lab chains that mix mutexes and rwsems (held for writing, waited for by
# writers and readers) are followed to their end.
#
# Usage: sh 41-rwsem.sh   (in the guest; tools in /usr/bin)
# pxtest-boot: lean
# pxtest-boot: lean proxy_exec=enable,rwsem=off +parallel
# pxtest-boot: debug
# pxtest-boot: kasan-nolockdep
# pxtest-cpus: 4
# pxtest-timeout: 300
set -u
. ./lib/pxtest.sh
T=${TMPDIR-/tmp}/rwsem.$$
mkdir -p "$T"
trap 'rm -rf "$T"' 0

setting=$(cat /sys/kernel/debug/sched/proxy_exec 2>/dev/null)
case $setting in
disabled*)
	skip rwsem/setting "proxy execution is off (debugfs: '$setting')"
	finish
	;;
*' rwsem=on') rw=on ;;
*' rwsem=off') rw=off ;;
*)
	skip rwsem/setting "no rwsem proxying in this kernel (debugfs: '$setting')"
	finish
	;;
esac
want=on
grep -qw 'proxy_exec=enable,rwsem=off' /proc/cmdline && want=off
[ "$rw" = $want ] && ok rwsem/setting || notok rwsem/setting "debugfs '$setting', want rwsem=$want"

# demo NAME mmapdemo-args...: one run, recorded (sched_proxy pick and
# abort); its longest wait and critical section in NAME_max and NAME_cs;
# false if it did not complete.
demo() {
	name=$1; shift
	px_record "$T/$name" -e sched_proxy mmapdemo -q -o "$T/$name.json" "$@"
	jvars "$T/$name.json" sane="$px_latency_header" okf=.ok count=.latency.count \
		n=.checks.operations p50=.latency.p50 p90=.latency.p90 max=.latency.max \
		cs=.checks.background_cpu_ns_avg bgops=.checks.background_operations
	eval "${name}_max=\$max ${name}_cs=\$cs"
	why=''
	if [ "$px_rc" != 0 ]; then
		why="exit $px_rc: $(tr '\n' ' ' < "$T/$name.out" | tail -c 300)"
	elif ! grep -q 'consistency: .* -> OK$' "$T/$name.out"; then
		why="$(grep consistency "$T/$name.out")"
	elif [ "$sane" != true ] || [ "$okf" != true ] || [ -z "$count" ] || [ "$count" != "$n" ] ||
	     [ "${cs:-0}" -le 0 ]; then
		why="result file: well-formed ${sane:-no}, ok ${okf:-none}, count ${count:-none} of ${n:-none} operations, critical section ${cs:-none} ns"
	fi
	check "rwsem/$name-completes" "$why" [ -z "$why" ]
	echo "# $name: ${count:-?} waits, p50 ${p50:-?} p90 ${p90:-?} max ${max:-?} ns; background: ${bgops:-?} critical sections of ${cs:-?} ns CPU"
	[ -z "$why" ]
}
picks() { grep 'sched_proxy_pick:' "$T/$1.txt" | grep -c 'lock_type=rwsem'; }

# judge NAME WAITER HOLDER: a demo run's checks.  With rwsem proxying:
# picks name an rwsem (the longest wait is reported; its bound is
# 45-vtime-bounds.sh's); with rwsem=off: no rwsem pick, and the
# inversion shows: the longest wait spans the writer's throttled periods
# (>= 200 ms, two of cpu.max's 100-ms periods; with rwsem proxying the
# longest seen was 95 ms, without it 420 ms to 4.3 s).  That is the
# control, and a figure host load can only lengthen: as a multiple of
# the writer's critical section it was load-dependent, since a busy host
# inflates the CPU time the guest measures (seen: 19x against 20x, a
# 35-ms mprotect() that takes 7-9 ms on a quiet host, a 702-ms wait).
judge() {
	eval "rmax=\$((${1}_max / ${1}_cs))"
	if [ $rw = on ]; then
		[ "$(picks "$1")" -gt 0 ] && ok "rwsem/$1-proxied" ||
			notok "rwsem/$1-proxied" "no sched_proxy_pick with lock_type=rwsem"
		eval "r10=\$((${1}_max * 10 / ${1}_cs))"
		echo "# $1: $2's longest wait $((r10 / 10)).$((r10 % 10))x the $3's critical section (reported; bounded in virtual time)"
	else
		[ "$(picks "$1")" = 0 ] && ok "rwsem/$1-not-proxied" ||
			notok "rwsem/$1-not-proxied" "$(picks "$1") picks of an rwsem with rwsem=off"
		eval "wmax=\$((${1}_max / 1000000))"
		check "rwsem/$1-inversion-seen" "$2's longest wait $wmax ms, ${rmax}x the $3's critical section (want >= 200 ms, two throttled periods: the control must show the inversion)" \
			[ "$wmax" -ge 200 ]
	fi
}

# The writer owns mmap_lock, and --throttle (cpu.max 1 ms per 100 ms)
# makes it hold the lock across the periods its cgroup is throttled in.
# In units of its critical section's CPU time (two mprotect()s of 64 MB,
# one operation): with proxying the reader's longest wait of a 2-s run is
# the rest of one mprotect() and its own read (seen: 0.6-4.4x here, 0.4x
# in virtual time); without, the throttled periods too (seen: 60-100x).  No spinners (-H 0):
# with them the reader's measured wait also held their preemptions of it
# (up to 4x with proxying), and without the throttle a nice-19 writer
# beside spinners gave 1-2x either way (EEVDF lets a starved task catch up
# on its lag).
# pxchain (the tool a user would run) watches the mmap_lock, i_rwsem and
# reader-owned runs below, on the lean kernel (which has the BTF the BPF
# tools need): it counts picks by lock type and aborts by the kernel's
# reason names, checked after the last of them.
pxc=no
[ ! -e /sys/kernel/btf/vmlinux ] || ! tool_start pxc pxchain -j 99 || pxc=yes
if demo mmap -d 2s -H 0 --throttle; then judge mmap reader writer; fi

# The same contest on a file's i_rwsem (mmapdemo --inode): the throttled
# writer write()s 4 MB to a file in the guest's /tmp, the other writer
# times 1-byte pwrite()s to it.  (64 MB took 137 ms of CPU a write on the
# lean kernel, 683 ms on the debug one: at 1 ms per 100 ms the first write
# alone outlasted the run.)  Its longest wait here was up to 9.9x (95 ms)
# with proxying: the timed writer makes 300000 calls a second, 10x mmap's
# reads, and so sees more of the host's stalls of a vCPU (the trace of
# that run had it switched out for at most 8.5 ms, all of it running the
# writer on its context); 0.9x in virtual time.  Without proxying the
# longest wait is 90x or more.

if demo inode -d 1s -H 0 --throttle --inode --size 4; then
	judge inode writer "other writer"
fi

# Readers own it: no task to run; the writer's donor is blocked for real,
# and the inversion stays (the throttled reader holds the lock across
# periods; seen: 57x with rwsem proxying): reported, not removed.
readers_ok=1
demo readers -d 2s -H 0 --bg-read --throttle || readers_ok=0
[ $pxc = no ] || tool_stop pxc
# owner_readers aborts in a trace (the mmap run has some too: its writer
# waits while the foreground reads)
ownr() { grep 'sched_proxy_abort:' "$T/$1.txt" 2>/dev/null | grep 'lock_type=rwsem' | grep -c 'reason=owner_readers'; }
if [ $pxc = yes ]; then
	jvars "$T/pxc.out" px_rwsem=.lock_types.rwsem.picks px_mutex=.lock_types.mutex.picks \
		pxn=.aborts.owner_readers
	tr_picks=$(($(picks mmap) + $(picks inode 2> /dev/null)))
	tr_ownr=$(($(ownr mmap) + $(ownr inode) + $(ownr readers)))
	echo "# pxchain: rwsem picks ${px_rwsem:-?}, mutex picks ${px_mutex:-?}, owner_readers aborts ${pxn:-?}; the traces: $tr_picks rwsem picks, $tr_ownr owner_readers aborts"
	if [ $rw = on ]; then
		[ "${px_rwsem:-0}" -gt 0 ] && ok rwsem/pxchain-counts-rwsem ||
			notok rwsem/pxchain-counts-rwsem "pxchain lock_types.rwsem.picks ${px_rwsem:-missing} (exit $rc)"
		[ "$tr_ownr" -gt 0 ] && [ "${pxn:-0}" -ge "$tr_ownr" ] && ok rwsem/readers-pxchain ||
			notok rwsem/readers-pxchain "pxchain aborts.owner_readers ${pxn:-missing} (exit $rc), the traces $tr_ownr (want >= the traces', > 0)"
	else
		[ "${px_rwsem:-x}" = 0 ] && ok rwsem/pxchain-counts-rwsem ||
			notok rwsem/pxchain-counts-rwsem "pxchain lock_types.rwsem.picks ${px_rwsem:-missing} with rwsem=off"
		[ "${pxn:-x}" = 0 ] && ok rwsem/readers-pxchain ||
			notok rwsem/readers-pxchain "pxchain aborts.owner_readers ${pxn:-missing} with rwsem=off (exit $rc)"
	fi
fi
if [ $readers_ok = 1 ]; then
	n=$(ownr readers)
	rmax=$((readers_max / readers_cs))
	if [ $rw = on ]; then
		[ "$n" -gt 0 ] && ok rwsem/readers-reported ||
			notok rwsem/readers-reported "no sched_proxy_abort reason=owner_readers lock_type=rwsem"
		check rwsem/readers-not-removed "writer's longest wait ${rmax}x the readers' critical section (want >= 20x: reader-owned rwsems are not proxied)" \
			[ "$rmax" -ge 20 ]
	else
		[ "$n" = 0 ] && ok rwsem/readers-not-followed ||
			notok rwsem/readers-not-followed "$n rwsem aborts with rwsem=off"
	fi
fi

# Chains that mix lock types, from the lab (kernels whose lab has rwsems):
# the RT waiter blocks on lab lock 0, owner k (CFS) holds lock k and
# blocks on lock k+1, the tail burns 1 ms beside an RT hog on the one CPU.
# LOCKS names each link, the waiter's first: an rwsem its owner holds for
# writing, waited for as a writer (write) or a reader (read), or a mutex.
# With rwsem proxying the waiter's context runs the tail through every
# link: a pick of the waiter at depth 3 (how long the waits are:
# 45-vtime-bounds.sh, none hog-capped and the longest under 2 burns in
# virtual time).  With rwsem=off the chain ends at the first rwsem and
# the hog starves the tail: most waits last a whole burst.
# Both runs (10 iterations each) in one recording, told apart by their
# waiters' pids; mixed NAME LOCKS then checks one of them.
mixed_runs() {
	cat > "$T/mixed.sh" <<-EOF
	inversion chain -D 3 --locks write,mutex,read -b 1000 -n 10 -q -t 120 -o "$T/mixed-wmr.json" > "$T/mixed-wmr.out" 2>&1; echo \$? > "$T/mixed-wmr.rc"
	inversion chain -D 3 --locks read,write,mutex -b 1000 -n 10 -q -t 120 -o "$T/mixed-rwm.json" > "$T/mixed-rwm.out" 2>&1; echo \$? > "$T/mixed-rwm.rc"
	EOF
	px_record "$T/mixed" -e sched_proxy:sched_proxy_pick sh "$T/mixed.sh"
}
mixed() {
	name=$1
	jvars "$T/$name.json" okf=.ok count=.latency.count capped=.checks.hog_capped \
		p50=.latency.p50 burn=.params.burn_ns waiter=.checks.waiter_pid locks='.params.locks | join(",")'
	why='' rc=$(cat "$T/$name.rc" 2>/dev/null)
	if [ "$rc" != 0 ] || [ "$px_rc" != 0 ]; then
		why="exit ${rc:-none} (trace-cmd $px_rc): $(tr '\n' ' ' < "$T/$name.out" | tail -c 300)"
	elif [ "$okf" != true ] || [ "$count" != 10 ] || [ "$locks" != "$2" ]; then
		why="result file: ok ${okf:-none}, count ${count:-none} of 10, locks ${locks:-none} (want $2)"
	fi
	check "rwsem/$name-completes" "$why" [ -z "$why" ]
	[ -z "$why" ] || return 0
	deep=$(grep 'sched_proxy_pick:' "$T/mixed.txt" | grep -c "donor_pid=$waiter .*depth=3 ")
	echo "# $name ($2, rwsem=$rw): p50 $((p50 / 1000)) us, $capped of 10 waits hog-capped, $deep picks of the waiter at depth 3"
	if [ $rw = on ]; then
		[ "$deep" -gt 0 ] && ok "rwsem/$name-followed" ||
			notok "rwsem/$name-followed" "no sched_proxy_pick of the waiter (pid $waiter) at depth 3"
	else
		[ "$deep" = 0 ] && [ "$capped" -ge 5 ] && ok "rwsem/$name-inversion-seen" ||
			notok "rwsem/$name-inversion-seen" "$capped of 10 waits lasted a whole hog burst (want >= 5), $deep picks at depth 3 (want 0) with rwsem=off"
	fi
}
if labcheck --help > /dev/null 2>&1 && [ -e /sys/kernel/debug/proxylab_rwsem_state ]; then
	mixed_runs
	mixed mixed-wmr write,mutex,read
	mixed mixed-rwm read,write,mutex
else
	skip rwsem/mixed "no rwsems in this kernel's lab (debugfs proxylab_rwsem_state)"
fi
finish

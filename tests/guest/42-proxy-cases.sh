#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Lock states that workloads reach only by chance, set up on purpose by
# the test_proxy_exec module (lib/test_proxy_exec.c in the series) while
# proxy execution watches; the module reports, this script judges:
#
#  stale-owner  an rw_semaphore whose count says "writer" while its owner
#               field still names the last reader, which has exited and
#               been freed (a writer that took the lock without waiting,
#               between its two stores), with a FIFO writer donating.  The
#               chain walk must not follow the field: no sched_proxy event
#               may name the dead reader, no WARN (a reference taken on a
#               freed task is one), no KASAN report; the donor gets the
#               lock once the owner is set and the writer releases; it
#               must have waited (blocked_on set: picked, walked) while
#               the state lasted, or nothing was tested.  Where
#               up_read() clears the field (DEBUG_RWSEMS: the debug kernel)
#               the state cannot exist: the window check is a SKIP there.
#  rewoken      a writer parked on its sleeping owner and woken by that
#               owner's wakeup, five times, before it gets an rw_semaphore:
#               nothing of the parking may be left on it (proxy_rewoken,
#               which would cost its next mutex wait a spin); the same
#               with a reader, and with a mutex.  The donor must have been parked at all
#               (sched_proxy_activate events), or the check proves nothing.
#  up-write     a CFS writer run on a FIFO reader's behalf releases the
#               rwsem to a CFS writer queued first, then burns 200 ms.  Here:
#               it did run on the reader's behalf (proxy_received_ns > 0
#               before the release), and the kernel log stays clean; that
#               its received time stops at the release and the reader gets
#               the lock at once are durations: 45-vtime-bounds' up-write.
#  readers-chain a FIFO waiter on a mutex whose nice-19 owner waits for an
#               rwsem a reader holds for 20 ms, two CFS spinners on the
#               owner's CPU, the owner's critical section 10 ms of CPU:
#               the owner must finish on the waiter's context once the
#               reader is gone, at least half of that section on
#               another's context (readers-chain-donated:
#               proxy_received_ns).  The waiter's wait (within 100 ms) is
#               a duration: 45-vtime-bounds bounds it in virtual time.
#  return       a FIFO donor from an idle CPU lends its context to a CFS
#               owner on a CPU with a CFS hog (proxy execution migrates it
#               there), gets the mutex and computes 50 ms: it must do so on
#               its own CPU again (return migration, either strategy: the
#               script also boots return=ttwu).  That the hog keeps at
#               least half of its CPU meanwhile is a CPU share: checked in
#               virtual time, 45-vtime-bounds' return-load.
#  woken-queued a FIFO waiter that proxy execution keeps queued on its CPU
#               (never migrated) is woken by the unlock while a higher FIFO
#               hog computes 400 ms there and other CPUs are free: it must
#               run within 100 ms of the unlock (a quarter of the hog's
#               run), as a sleeping waiter woken onto a free CPU does with
#               proxy execution off (the control boot).
#  return-busy  a FIFO donor that proxy execution migrated to its owner's
#               CPU gets the mutex from the owner it runs for while a higher
#               FIFO hog computes 400 ms on its own CPU: the same bound.
#  signal-queued woken-queued with a signal instead of the unlock: the
#               waiter, in mutex_lock_interruptible(), must give up
#               (-EINTR) within the same bound of the signal.  The
#               signal's wakeup, not the unlock's, must mark it waking
#               (proxy_set_task_waking()); a wakeup that does not leaves
#               it blocked in the scheduler's eyes, never pushed, behind
#               the hog, until find_proxy_task()'s catch-all sees it.  Its
#               free CPU is the owner's (the module narrows its affinity
#               to the two): a woken first waiter spins on a running owner
#               without looking at signals (mainline's
#               mutex_spin_on_owner()), 335 ms on a CPU of its own here.
#               Here the three check the lock's return value and where
#               the waiter ran (-cpu): not on the hog's CPU (the module
#               releases or signals only once the hog computes there).
#               The 100-ms bound is checked in virtual time, by
#               46-vtime-migrate (its proxy-off boot too), since a loaded
#               host stretched the waits of the proxy-off boot here, which
#               runs in the busiest phase.  Lean kernels only (and the
#               proxy-off boot, which runs only them).
#  ww-backoff   a wound-wait context wounded by an older one (-EDEADLK on its
#               next lock) backs off, takes the contended lock with
#               ww_mutex_lock_slow() while that lock is free, then asks for
#               a lock the older context holds: it must wait for it, not
#               get -EDEADLK again for the wound of locks it no longer
#               holds.  A ww_mutex matter, not proxy execution's: the
#               proxy-off boot runs it as well.  Only kernels without
#               DEBUG_LOCK_ALLOC take the lock fast path where the wound
#               used to survive (the debug kernels run the case, which
#               cannot fail there).  ww-backoff-interruptible: the same
#               with ww_mutex_lock_interruptible() and
#               ww_mutex_lock_slow_interruptible().
#
# The AA cases are 43-proxy-aa.sh (they leave blocked threads behind).
#
# Usage: sh 42-proxy-cases.sh   (in the guest)
# pxtest-boot: lean
# pxtest-boot: lean proxy_exec=enable,return=ttwu
# pxtest-boot: lean proxy_exec=disable +parallel
# pxtest-boot: debug
# pxtest-boot: kasan-nolockdep
# pxtest-cpus: 4
# pxtest-timeout: 120
set -u
. ./lib/pxtest.sh
T=$(mktemp -d)
D=/sys/kernel/debug/test_proxy_exec
TR=/sys/kernel/tracing

if ! modprobe test_proxy_exec 2> "$T/modprobe" || [ ! -w $D/run ]; then
	notok cases/module "modprobe test_proxy_exec: $(tail -1 "$T/modprobe")"
	finish
fi

# run_case CASE: run it with every sched_proxy event traced; the result
# line in $T/CASE.res, the events in $T/CASE.trace, the kernel log since
# the start in $T/CASE.dmesg, the WARNs it added in warns.
run_case() {
	echo 0 > $TR/tracing_on
	echo > $TR/trace
	echo 1 > $TR/events/sched_proxy/enable
	echo 1 > $TR/tracing_on
	w0=$(cat /sys/kernel/warn_count)
	echo "pxtest: case $1 begin" > /dev/kmsg
	if ! echo "$1" > $D/run 2> "$T/$1.err"; then
		echo "run failed: $(cat "$T/$1.err")" > "$T/$1.res"
	fi
	cat $D/result >> "$T/$1.res"
	echo 0 > $TR/tracing_on
	echo 0 > $TR/events/sched_proxy/enable
	cat $TR/trace > "$T/$1.trace"
	dmesg | sed -n "/pxtest: case $1 begin/,\$p" > "$T/$1.dmesg"
	warns=$(($(cat /sys/kernel/warn_count) - w0))
	echo "# $1: $(cat "$T/$1.res")"
}

# field CASE KEY: KEY=value from the case's result line.
field() { kv_field "$T/$1.res" "$2"; }

# bad_log CASE: the kernel log lines of the case that mean a kernel bug.
bad_log() {
	grep -E 'KASAN|refcount_t|WARNING|BUG|Oops|list_(add|del) corruption' "$T/$1.dmesg"
}

# busy CASE NAME: woken-queued, return-busy or signal-queued (see
# above): the waiter's lock returned what it must, and it ran off the
# hog's CPU.  How soon (the 100-ms bound) is checked in virtual time
# (46-vtime-migrate), where the host's load does not stretch the wait.
busy() {
	echo 400 > /sys/module/test_proxy_exec/parameters/window_ms
	run_case $1
	echo 200 > /sys/module/test_proxy_exec/parameters/window_ms
	wu=$(field $1 wait_us) ret=$(field $1 lock_ret)
	busy_want "$1"
	if [ -z "$wu" ]; then
		notok "cases/$2" "the case did not run: $(cat "$T/$1.res")"
	elif [ "$ret" != "$want" ]; then
		notok "cases/$2" "the waiter's lock returned ${ret:-nothing}, not $want: $(cat "$T/$1.res")"
	else
		echo "# $2: the FIFO waiter ran $wu us after the $what, a 400 ms hog on the CPU it was left on"
		ok "cases/$2"
		wc=$(field $1 waiter_cpu) hc=$(field $1 hog_cpu)
		check "cases/$2-cpu" "the FIFO waiter ran after the $what on CPU $wc, the hog's, not on a free one: $(cat "$T/$1.res")" \
			[ "$wc" != "$hc" ]
	fi
	check "cases/$2-log-clean" "$warns WARNs; $(bad_log $1 | head -3)" \
		[ "$warns" = 0 -a -z "$(bad_log $1)" ]
}
# yield_case: a FIFO peer of the donor's priority woken while the owner
# yields on the donor's context (see the module) must run before the
# owner's release: an order of events (as 30-proxy-core's yieldpeer,
# from user space).  The module releases after window_ms whether the
# peer ran or not; 2 s here, ten times its default, so that only a peer
# that cannot run, not a vCPU the host stalled, misses it: a sound kernel
# runs the peer at once and the window ends then.  Proxy off: the peer
# preempts the CFS owner at once.
yield_case() {
	echo 2000 > /sys/module/test_proxy_exec/parameters/window_ms
	run_case yield
	echo 200 > /sys/module/test_proxy_exec/parameters/window_ms
	br=$(field yield before_release)
	if [ -z "$br" ]; then
		notok cases/yield-peer "the case did not run: $(cat "$T/yield.res")"
	else
		check cases/yield-peer "the FIFO peer of the donor's priority ran only after the owner's release, the owner yielding all along: $(cat "$T/yield.res")" \
			[ "$br" = 1 ]
	fi
	check cases/yield-log-clean "$warns WARNs; $(bad_log yield | head -3)" \
		[ "$warns" = 0 -a -z "$(bad_log yield)" ]
}
# ww_case CASE NAME: see ww-backoff above; ww_backoff_intr (ww-backoff-
# interruptible) takes the same steps with the _interruptible() calls.
ww_case() {
	run_case $1
	first=$(field $1 first) relock=$(field $1 relock)
	if [ "$first" != -35 ]; then
		notok "cases/$2" "the young context was not wounded (want first=-35): $(cat "$T/$1.res")"
	else
		check "cases/$2" "after its back-off and ww_mutex_lock_slow(), the wounded context got $relock for a lock the older one holds, not a wait (want relock=0)" \
			[ "$relock" = 0 ]
	fi
	check "cases/$2-log-clean" "$warns WARNs; $(bad_log $1 | head -3)" \
		[ "$warns" = 0 -a -z "$(bad_log $1)" ]
}
case $(uname -r) in
*-debug*|*-kasan*) timing='' ;;
*) timing=1 ;;
esac
if grep -qw 'proxy_exec=disable' /proc/cmdline; then
	busy woken_queued woken-queued
	busy return_busy return-busy
	busy signal_queued signal-queued
	yield_case
	ww_case ww_backoff ww-backoff
	ww_case ww_backoff_intr ww-backoff-interruptible
	modprobe -r test_proxy_exec 2> /dev/null
	finish
fi

# --- stale-owner
run_case stale_owner
rpid=$(field stale_owner reader_pid) dpid=$(field stale_owner donor_pid)
of=$(field stale_owner owner_field)
check cases/stale-owner-donor-locks "$(cat "$T/stale_owner.res")" \
	[ "$(field stale_owner donor_locked)" = 1 ]
named=$(grep -cE "owner_pid=$rpid( |$)" "$T/stale_owner.trace")
seen=$(grep -cE "donor_pid=$dpid( |$)" "$T/stale_owner.trace")
if [ "$of" = null ]; then
	skip cases/stale-owner-window "up_read() cleared the owner field here (DEBUG_RWSEMS): the state cannot exist"
elif [ "$of" != stale_reader ]; then
	notok cases/stale-owner-window "the owner field was '$of', not the dead reader's: the case did not set the state up"
elif [ "$(field stale_owner donor_waited)" != 1 ]; then
	notok cases/stale-owner-window "donor $dpid never waited while the state lasted: nothing was tested"
else
	check cases/stale-owner-window \
		"$named sched_proxy events name the freed reader $rpid as owner ($seen for donor $dpid): $(grep -E "owner_pid=$rpid( |$)" "$T/stale_owner.trace" | head -2)" \
		[ "$named" = 0 ]
fi
check cases/stale-owner-log-clean "$warns WARNs; $(bad_log stale_owner | head -3)" \
	[ "$warns" = 0 -a -z "$(bad_log stale_owner)" ]

# --- rewoken, and the mutex as control
w_rest=$(cat /sys/kernel/warn_count)
for c in rewoken rewoken_reader rewoken_mutex; do
	run_case $c
	n=$(grep -c 'sched_proxy_activate:.*pxt-rewoken-d' "$T/$c.trace")
	name=cases/$(echo $c | tr _ -)
	if [ "$(field $c rounds)" != 10 ]; then
		notok "$name" "$(cat "$T/$c.res")"
	elif [ "$n" -eq 0 ]; then
		notok "$name" "no donor was parked and woken by its owner (0 sched_proxy_activate): proves nothing"
	else
		check "$name" "proxy_rewoken left set after $(field $c left_set) of 10 acquisitions ($n parked wakeups)" \
			[ "$(field $c left_set)" = 0 ]
	fi
done

# --- up-write
run_case up_write
before=$(field up_write received_before_us)
if [ "$(field up_write queued)" != 1 ] || [ -z "$before" ]; then
	notok cases/up-write-proxied "the case did not set up: $(cat "$T/up_write.res")"
else
	check cases/up-write-proxied "the holder never ran on the reader's behalf (received 0 us before the release): the case tests nothing here" \
		[ "$before" -gt 0 ]
fi
# --- readers-chain
run_case readers_chain
[ "$(field readers_chain queued)" = 1 ] || notok cases/readers-chain-setup "the owner or the waiter never queued: $(cat "$T/readers_chain.res")"
cs=$(field readers_chain owner_cs_us) rcv=$(field readers_chain owner_received_us)
check cases/readers-chain-donated "the owner ran $rcv us of its $cs us critical section after the readers left on another's context (want >= half: the waiter's donation resumed)" \
	[ "${rcv:-0}" -gt 0 -a $((${rcv:-0} * 2)) -ge "${cs:-1}" ]
# --- return
run_case return
ca=$(field return cpu_after) src=$(field return src_cpu)
if [ -z "$ca" ]; then
	notok cases/return-cpu "the case did not run: $(cat "$T/return.res")"
elif grep -qw 'proxy_exec=disable' /proc/cmdline; then
	skip cases/return-cpu "proxy execution off: no migration to return from"
else
	check cases/return-cpu "the donor computed on CPU $ca after its lock, not on its own CPU $src (return migration)" \
		[ "$ca" = "$src" ]
fi
warns=$(($(cat /sys/kernel/warn_count) - w_rest))
check cases/log-clean "$warns WARNs in the cases after stale-owner; $(bad_log up_write | head -3)" \
	[ "$warns" = 0 -a -z "$(bad_log up_write)$(bad_log rewoken)$(bad_log rewoken_reader)$(bad_log rewoken_mutex)$(bad_log readers_chain)$(bad_log return)" ]
yield_case
ww_case ww_backoff ww-backoff
ww_case ww_backoff_intr ww-backoff-interruptible
if [ -n "$timing" ]; then
	busy woken_queued woken-queued
	busy return_busy return-busy
	busy signal_queued signal-queued
fi
modprobe -r test_proxy_exec 2> /dev/null
finish

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The demo (make demo): in a guest with proxy execution on, build priority
# inversions on kernel mutexes and watch proxy execution resolve them --
# proxytop in batch mode and pxchain alongside the lab workloads, then
# cyclictest alone and under inversion load.  Not a test: it prints.
#
# Usage: sh demo.sh   (in the guest, from tests/; make demo runs it)
set -u
say() { printf '\n=== %s\n' "$*"; }

say "kernel: $(uname -r); $(dmesg | grep -m1 'proxy execution' | sed 's/^\[[^]]*\] //')"
cat /sys/kernel/debug/sched/proxy_exec 2>/dev/null

say "proxytop (3 refreshes) while a CFS, an RT and a depth-3 chain inversion run"
proxytop -b -n 3 -d 2 > /tmp/top.out 2>&1 &
top=$!
pxchain 6 1 > /tmp/chain.out 2>&1 &
chain=$!
inversion cfs -b 2000 -n 5 -q 2>&1 | grep -A2 '^lock_wait' &
inversion rt -c 1 -b 2000 -n 20 -q 2>&1 | grep -A2 '^lock_wait'
inversion chain -c 2 -D 3 -b 2000 -n 10 -q 2>&1 | grep -A2 '^lock_wait'
wait $top $chain
cat /tmp/top.out
say "pxchain: blocked_on chain depth at each proxy resolution"
cat /tmp/chain.out

say "pxlockwait: each wait of a depth-3 chain inversion, its owner chain and donor time"
pxlockwait --min 500 --comm inversion --no-stacks > /tmp/lockwait.out 2>&1 &
lockwait=$!
i=0
while [ $i -lt 100 ] && ! grep -q 'Hit Ctrl-C' /tmp/lockwait.out; do usleep 100000; i=$((i + 1)); done
inversion chain -c 2 -D 3 -b 2000 -n 2 -q > /dev/null 2>&1
kill -INT $lockwait
wait $lockwait
cat /tmp/lockwait.out

say "cross-CPU owner: the waiter migrates to the owner's CPU and returns"
inversion xcpu -c 0,1 -b 2000 -n 10 -q 2>&1 | grep -A2 '^lock_wait'

say "renamedemo: real s_vfs_rename_mutex contention, background at nice 19"
renamedemo -n 200 -q 2>&1 | tail -4
say "mmapdemo: mmap_lock (an rw_semaphore) held for writing by a nice-19 mprotect() loop"
mmapdemo -d 2s -q 2>&1 | tail -5
say "mmapdemo --inode: a file's i_rwsem held for writing by a throttled nice-19 write() loop"
mmapdemo --inode --throttle --size 4 -d 2s -q 2>&1 | tail -5
say "a lab chain of mixed lock types: rwsem (write) -> mutex -> rwsem (read)"
inversion chain -c 2 -D 3 --locks write,mutex,read -b 2000 -n 10 -q 2>&1 | grep -A2 '^lock_wait'

say "cyclictest alone (5 s), then under a CFS inversion load (5 s)"
cyclictest -q -m -D 5 -t -p 80 -i 1000 2>&1 | tail -4
inversion cfs -d 6s -b 2000 -q > /dev/null 2>&1 &
cyclictest -q -m -D 5 -t -p 80 -i 1000 2>&1 | tail -4
wait
say "done: for proxy off vs v4-style vs current, run bench/run.sh on the host"

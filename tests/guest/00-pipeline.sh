#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Pipeline smoke test: the right kernel booted, BTF, cgroup v2 cpu control
# and sched trace events are there, bpftool loads a BTF-typed program, cyclictest/hackbench/
# trace-cmd run, and locktorture loads, runs and reports success.  On
# the debug boot only the flavour (the checks that follow depend on the
# kernel booted being the one asked for): the rest is the pipeline, the
# same there, and the debug kernel's locktorture and traces are 30's and
# 41's.
# pxtest-boot: lean
# pxtest-boot: debug
# pxtest-cpus: 4
# pxtest-timeout: 180
set -u
. ./lib/pxtest.sh
T=/tmp/pipeline.$$
mkdir -p "$T"
trap 'rm -rf "$T"' 0

case ${PX_KERNEL:-} in
lean) want='-proxyexec[+]?$' ;;
debug) want='-proxyexec-debug[+]?$' ;;
*) want='-proxyexec' ;;
esac
check pipeline/boot "kernel $(uname -r) is not the ${PX_KERNEL:-?} flavour" \
	sh -c "uname -r | grep -qE -- '$want'"
[ "${PX_KERNEL:-}" != debug ] || finish

# BTF: present, BTF magic 0xeb9f, and it describes task_struct.
btf=/sys/kernel/btf/vmlinux
if [ ! -s $btf ]; then
	notok pipeline/btf "$btf missing or empty"
elif [ "$(head -c 2 $btf | od -An -tx1 | tr -d ' ')" != 9feb ]; then
	notok pipeline/btf "$btf has no BTF magic"
elif ! bpftool btf dump file $btf format raw | grep -q "STRUCT 'task_struct'"; then
	notok pipeline/btf "bpftool finds no task_struct in $btf"
else
	ok pipeline/btf
fi

# cgroup v2 with cpu and cpuset delegated by /init.
check pipeline/cgroup-cpu "cpu/cpuset not in cgroup.subtree_control: $(cat /sys/fs/cgroup/cgroup.subtree_control 2>&1)" \
	sh -c 'grep -qw cpu /sys/fs/cgroup/cgroup.subtree_control && grep -qw cpuset /sys/fs/cgroup/cgroup.subtree_control'

# tracefs: sched_switch exists and actually records.
tr=/sys/kernel/tracing
if [ ! -f $tr/events/sched/sched_switch/format ]; then
	notok pipeline/tracefs-sched-switch "no $tr/events/sched/sched_switch"
else
	echo > $tr/trace
	echo 1 > $tr/events/sched/sched_switch/enable
	sleep 0.3
	echo 0 > $tr/events/sched/sched_switch/enable
	n=$(grep -c 'sched_switch: prev_comm=' $tr/trace)
	echo > $tr/trace
	if [ "$n" -gt 0 ]; then ok pipeline/tracefs-sched-switch
	else notok pipeline/tracefs-sched-switch "no sched_switch event recorded in 0.3 s"; fi
fi

# bpftool: load a tp_btf program (needs vmlinux BTF), see it listed, unpin.
obj=$PX_REPO/build/tests/bpf/minimal.bpf.o
pin=/sys/fs/bpf/px_minimal
if [ ! -f "$obj" ]; then
	notok pipeline/bpftool-load "$obj missing (tests/run.sh builds it)"
elif ! bpftool prog load "$obj" $pin > "$T/load" 2>&1; then
	notok pipeline/bpftool-load "bpftool prog load failed: $(tail -1 "$T/load")"
else
	bpftool prog list > "$T/list" 2>&1
	rm -f $pin
	if grep -q 'tracing  name px_minimal' "$T/list"; then ok pipeline/bpftool-load
	else notok pipeline/bpftool-load "px_minimal not in bpftool prog list"; fi
fi

# cyclictest: 2 s, one RT thread; the summary must show cycles and a max.
cyclictest -q -m -D 2 -t 1 -p 80 -i 1000 > "$T/cyc" 2>&1
line=$(grep '^T: 0 ' "$T/cyc")
cycles=$(echo "$line" | sed -n 's/.* C: *\([0-9]*\).*/\1/p')
max=$(echo "$line" | sed -n 's/.* Max: *\([0-9]*\).*/\1/p')
if [ -n "$max" ] && [ "${cycles:-0}" -ge 500 ]; then
	echo "# cyclictest: $cycles cycles, max latency $max us"
	ok pipeline/cyclictest
else
	notok pipeline/cyclictest "no summary with cycles >= 500 and Max: $(tail -1 "$T/cyc")"
fi

hackbench -g 2 -l 50 > "$T/hb" 2>&1
check pipeline/hackbench "no Time: line: $(tail -1 "$T/hb")" grep -q '^Time: [0-9.]' "$T/hb"

# trace-cmd: record sched_switch while sleeping, then report it.
if trace-cmd record -q -e sched:sched_switch -o "$T/t.dat" sleep 0.5 > "$T/tc" 2>&1 &&
	trace-cmd report -i "$T/t.dat" 2>/dev/null | grep -q 'sched_switch:'; then
	ok pipeline/trace-cmd
else
	notok pipeline/trace-cmd "record/report found no sched_switch: $(tail -1 "$T/tc")"
fi

# locktorture on mutexes for 3 s: loads, counts writes, ends in SUCCESS.
if ! modprobe locktorture torture_type=mutex_lock nwriters_stress=2 stat_interval=1 > "$T/mp" 2>&1; then
	notok pipeline/locktorture "modprobe locktorture failed: $(tail -1 "$T/mp")"
else
	sleep 3
	modprobe -r locktorture
	end=$(dmesg | grep 'mutex_lock-torture:--- End of test' | tail -1)
	writes=$(dmesg | sed -n 's/.*Writes: *Total: *\([0-9]*\).*/\1/p' | tail -1)
	case $end in
	*"End of test: SUCCESS"*)
		if [ "${writes:-0}" -gt 0 ]; then ok pipeline/locktorture
		else notok pipeline/locktorture "no writes counted"; fi ;;
	*) notok pipeline/locktorture "no SUCCESS at end: ${end:-no end-of-test line}" ;;
	esac
fi
finish

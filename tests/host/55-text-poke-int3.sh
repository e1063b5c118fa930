#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Host check: console_text_poke_int3 (lib/sh/console.sh), which lets
# tests/run.sh boot a guest again when QEMU's multi-threaded TCG ran a
# stale int3 of text_poke_bp(), tells that Oops from every other one.
# The consoles are made up around a real static call site of the lean
# vmlinux (the call to the sched_wakeup_new trampoline in
# wake_up_new_task()), as the Oops gives it: RIP one byte into the call.
#
#   ok text-poke-int3/static-call     int3 one byte into a static call: known
#   ok text-poke-int3/other-offset    int3 one byte further: not known
#   ok text-poke-int3/not-int3        a general protection fault there: not known
#   ok text-poke-int3/first-oops-only an int3 after another Oops: not known
#   ok text-poke-int3/no-oops         a clean console: not known
#   ok text-poke-int3/no-vmlinux      no vmlinux: status 2
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=lib/sh/console.sh
. "$top/lib/sh/console.sh"
T=${TMPDIR-/tmp}/pxint3.$$
trap 'rm -rf "$T"' 0
mkdir -p "$T"
vml=$top/build/obj-lean/vmlinux
names='static-call other-offset not-int3 first-oops-only no-oops no-vmlinux'
if [ ! -r "$vml" ]; then
	for n in $names; do echo "skip text-poke-int3/$n - no $vml (make kernel-lean)"; done
	exit 0
fi

# The symbol, its size, and the call's offset in it.
read -r addr sz <<EOF
$(nm -S "$vml" | awk '$4 == "wake_up_new_task" { print $1, $2; exit }')
EOF
fn=${addr#ffffffff} size=$((0x$sz))
end=$(printf 'ffffffff%08x' $((0x$fn + size)))
call=$(objdump -d --no-show-raw-insn --start-address="0x$addr" --stop-address="0x$end" "$vml" |
	awk '/call.*<__SCT__tp_func_sched_wakeup_new>/ { sub(/:$/, "", $1); print $1; exit }')
if [ -z "$call" ]; then
	for n in $names; do echo "not ok text-poke-int3/$n - no static call to the sched_wakeup_new trampoline in wake_up_new_task"; done
	exit 1
fi
off=$((0x${call#ffffffff} - 0x$fn))

# oops KIND OFF: a console whose first Oops is KIND at
# wake_up_new_task+OFF (RIP), as the kernel prints it.
oops() {
	cat <<-LOG
	[  178.074000] px-init: running /px/out/job.sh
	[  178.074936] Oops: $1: 0000 [#1] PREEMPT SMP
	[  178.075172] CPU: 3 UID: 0 PID: 1056 Comm: sh Not tainted 6.12.118-proxyexec+ #5
	[  178.075283] RIP: 0010:wake_up_new_task+$(printf '0x%x/0x%x' "$2" "$size")
	[  178.075445] Code: 05 fd c9 fa 7e 48 0f a3 05 31 ca eb 00 73 2d 65 ff 05 e8 c9 fa 7e
	[  178.076664] Kernel panic - not syncing: Fatal exception in interrupt
	LOG
}
fail=0
# case NAME WANT-STATUS CONSOLE [VMLINUX]: what it printed stays in $got.
case_() {
	got=$(console_text_poke_int3 "$3" "${4:-$vml}" 2> "$T/err")
	st=$?
	if [ "$st" = "$2" ]; then echo "ok text-poke-int3/$1"
	else
		echo "not ok text-poke-int3/$1 - status $st, want $2 (printed '$got', $(head -1 "$T/err"))"
		fail=1
	fi
}
oops int3 $((off + 1)) > "$T/known"
case_ static-call 0 "$T/known"
case $got in
*"<__SCT__tp_func_sched_wakeup_new>"*) ;;
*) echo "not ok text-poke-int3/static-call - printed '$got', not the call site"; fail=1 ;;
esac
oops int3 $((off + 2)) > "$T/off"
case_ other-offset 1 "$T/off"
oops 'general protection fault, probably for non-canonical address 0xdead' $((off + 1)) > "$T/gpf"
case_ not-int3 1 "$T/gpf"
{ oops 'general protection fault' 16; oops int3 $((off + 1)); } > "$T/two"
case_ first-oops-only 1 "$T/two"
echo '[    1.000000] px-init: reached /init' > "$T/clean"
case_ no-oops 1 "$T/clean"
case_ no-vmlinux 2 "$T/known" "$T/no-such-vmlinux"
exit $fail

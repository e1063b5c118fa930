#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Run one command inside a QEMU guest booted from our kernel + initramfs.
#
# Usage: guest/run.sh [options] -- command [args...]
#        guest/run.sh [options] --interactive
#   --kernel lean|debug|kasan|kasan-nolockdep|step|mutant  kernel flavour (default lean; step:
#                        kernel/boot-steps.sh's kernel of one series step)
#   --cpus N             vCPUs (default 2)
#   --mem MB             guest memory (default 1024)
#   --append "ARGS"      extra kernel command line, e.g. "proxy_exec=disable"
#   --timeout SEC        hard limit for boot + command (default 600)
#   --stall SEC          also kill the guest when the command's output has
#                        not grown for SEC seconds, boot included (off)
#   --first-output SEC   also kill the guest when the command has printed
#                        nothing SEC seconds after QEMU started (off):
#                        result "silent", a hang before the command ran
#   --kvm                KVM instead of TCG (may hang at "Decompressing
#                        Linux" here; the timeout still applies)
#   --clock host|icount[=SHIFT]
#                        the guest's clock (default host: multi-threaded
#                        TCG, guest time is host time).  icount: QEMU's
#                        -icount shift=SHIFT,sleep=off (SHIFT 0..10,
#                        default 0): guest time is derived from the
#                        instructions executed, 2^SHIFT ns each, and idle
#                        time is skipped; the vCPUs run round-robin in one
#                        host thread, so a busy guest second takes 2-4
#                        wall seconds on a quiet host and ~10 beside a
#                        kernel build.  --timeout, --stall and
#                        --first-output then count the CPU time QEMU got,
#                        not wall time (a guest the host starves is slow,
#                        not hung), with a backstop at 10 x --timeout of
#                        wall time; the caller scales them from guest
#                        time (2-4x).  Not with --kvm
#   --share DIR          host folder shared read-write at /px/share, the
#                        command's cwd (default: the current directory)
#   --out DIR            results folder (default build/runs/<date-time>/)
#   --interactive        shell on the serial console (Ctrl-A x quits)
#   --no-lock            boot even while another guest runs (by default
#                        guests take turns on build/.guest.lock: on 2 cores
#                        two TCG guests only slow each other into timeouts
#                        and spoil latency numbers); also with
#                        PX_GUEST_LOCK_HELD=1 in the environment, which a
#                        caller holding the lock for the guests it starts
#                        (tests/run.sh beside its stress boots) sets
#   --boot-nice N        run QEMU at nice N until the guest reaches /init
#                        (e.g. -10: a guest booting beside busy ones boots
#                        in seconds, not a minute)
#   --nice N             run QEMU at nice N once booted (default: ours)
#   --dryrun             write qemu-cmd and print it, boot nothing
#
# The guest also sees this repository read-only at /px/repo and the results
# folder at /px/out ($PX_REPO, $PX_OUT, $PX_SHARE).  Results in --out:
# output.log (stdout+stderr, also streamed here), status, console.log,
# dmesg.log, qemu-cmd (re-runnable), testid.txt, kernel.config, boot-time,
# cpu-seconds (the CPU time QEMU used, all its threads),
# result (ok|hung|silent|panic|nostatus), and for a hung or silent guest
# qemu-state.txt (each vCPU's registers and local APIC, from the monitor).
# The initramfs is rebuilt first if any of its inputs changed
# (guest/mkinitramfs.sh), e.g. a new tool in build/tools/bin.
#
# Exit status: the command's own; 124 guest hung (killed at the timeout,
# stall or first-output limit);
# 123 guest panicked; 122 guest stopped without reporting a status;
# 64 usage; 1 setup error.
#
# Examples:
#   guest/run.sh -- uname -a
#   guest/run.sh --cpus 4 --append proxy_exec=disable -- ./bench.sh
#   guest/run.sh --kernel debug --interactive
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)

cli_prog=run
# shellcheck source=lib/sh/cli.sh
. "$top/lib/sh/cli.sh"

flavour=lean cpus=2 mem=1024 append='' timeout=600 stall='' accel=tcg share=$(pwd) out='' interactive='' dryrun='' lock=1
clock=host
first_output=''
boot_nice='' run_nice=''
while test $# -gt 0; do
	case $1 in
	--kernel) checkarg "$1" $# "${2-}" '^(lean|debug|kasan|kasan-nolockdep|step|mutant)$'; flavour=$2; shift ;;
	--cpus) checkarg "$1" $# "${2-}" '^[1-9][0-9]*$'; cpus=$2; shift ;;
	--mem) checkarg "$1" $# "${2-}" '^[1-9][0-9]*$'; mem=$2; shift ;;
	--append) checkarg "$1" $# "${2-}" '^[^#]*$'; append=$2; shift ;;
	--timeout) checkarg "$1" $# "${2-}" '^[1-9][0-9]*$'; timeout=$2; shift ;;
	--stall) checkarg "$1" $# "${2-}" '^[1-9][0-9]*$'; stall=$2; shift ;;
	--first-output) checkarg "$1" $# "${2-}" '^[1-9][0-9]*$'; first_output=$2; shift ;;
	--kvm) accel=kvm ;;
	--clock) checkarg "$1" $# "${2-}" "$clock_re" "$clock_what"; clock=$2; shift ;;
	--share) checkarg "$1" $# "${2-}" '.'; share=$2; shift ;;
	--out) checkarg "$1" $# "${2-}" '.'; out=$2; shift ;;
	--interactive) interactive=1 ;;
	--no-lock) lock='' ;;
	--boot-nice) checkarg "$1" $# "${2-}" '^-?[0-9]+$'; boot_nice=$2; shift ;;
	--nice) checkarg "$1" $# "${2-}" '^-?[0-9]+$'; run_nice=$2; shift ;;
	--dryrun) dryrun=1 ;;
	--help|-h) usage ;;
	--) shift; break ;;
	*) usage "unknown option '$1'" ;;
	esac
	shift
done
[ -n "$interactive" ] || [ $# -gt 0 ] || usage "no command (give -- command, or --interactive)"
[ -z "$interactive" ] || [ $# -eq 0 ] || usage "--interactive takes no command"
[ "$accel" = tcg ] || [ "$clock" = host ] || usage "--clock $clock needs TCG, not --kvm"
clock=$(clock_norm "$clock")

bz=$top/build/obj-$flavour/arch/x86/boot/bzImage
initrd=$top/build/initramfs-$flavour.cpio.gz
mk=kernel; [ "$flavour" = lean ] || mk=kernel-$flavour
[ -f "$bz" ] || die "no $bz: run make $mk"
# Refresh the image (cheap when current), so new tools in build/tools/bin show up.
"$top/guest/mkinitramfs.sh" "$flavour" | grep -v 'is up to date$' >&2 || true
[ -f "$initrd" ] || die "no $initrd: run make image"
[ -d "$share" ] || die "--share $share is not a directory"
share=$(cd "$share" && pwd)
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 missing: run make deps"
[ "$accel" = tcg ] || [ -w /dev/kvm ] || die "--kvm: /dev/kvm is not usable"

if [ -z "$out" ]; then
	out=$top/build/runs/$(date +%Y%m%d-%H%M%S)
	[ -e "$out" ] && out=$out.$$
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -f "$out/status" "$out/result" "$out/boot-time" "$out/console.log" "$out/dmesg.log"
: > "$out/output.log"

# sh-quote each argument.
quote() {
	for a in "$@"; do
		printf "'%s' " "$(printf '%s' "$a" | sed "s/'/'\\\\''/g")"
	done
}
# pci=noacpi: route PCI INTx by the BIOS's $PIR table, not the ACPI
# interpreter.  Evaluating the link devices' AML costs ~2 s per virtio
# device on the debug kernel under TCG (lockdep on every interpreter
# lock): boot to /init 13 s -> 6 s, same IRQs.
#
# no_timer_check: the boot's check that the IO-APIC delivers timer
# interrupts gives up after a few ticks' worth of busy-waiting; a vCPU
# starved by a busy host misses it and the kernel panics ("IO-APIC +
# timer doesn't work!", seen booting beside the 16 vCPUs of a soak).
cmdline="console=ttyS0 panic=-1 pci=noacpi no_timer_check"
# KASAN: 4-level paging.  TCG's -cpu max offers LA57, and 6.12 derives the
# shadow's bounds from the LA57 capability bit, which identify_cpu() clears
# for a moment at boot: an interrupt then is reported as a "wild-memory-
# access" in its irq_desc lock (seen once in four KASAN boots, 6 ms after
# boot, before anything of ours ran).
case $flavour in kasan*) cmdline="$cmdline no5lvl" ;; esac
if [ -z "$interactive" ]; then
	quote "$@" > "$out/job.sh"
	echo >> "$out/job.sh"
	cmdline="$cmdline px.job=/px/out/job.sh"
fi
[ -z "$append" ] || cmdline="$cmdline $append"
{
	echo "repo: $(git -C "$top" rev-parse HEAD 2>/dev/null || echo none)"
	git -C "$top" status --porcelain 2>/dev/null | sed 's/^/  /'
	echo "kernel tree: $(git -C "$top/build/linux" describe --always 2>/dev/null || echo none)"
	git -C "$top/build/linux" log --oneline pristine..HEAD 2>/dev/null | sed 's/^/  /'
	echo "kernel: $flavour $(cat "$top/build/obj-$flavour/include/config/kernel.release" 2>/dev/null)"
	echo "cmdline: $cmdline"
	echo "clock: $clock"
} > "$out/testid.txt"
cp "$top/build/obj-$flavour/.config" "$out/kernel.config" 2>/dev/null || true

# QEMU option values escape a comma by doubling it.
qpath() { printf '%s' "$1" | sed 's/,/,,/g'; }
# KVM: drop arch-capabilities, whose MSR nested KVM here refuses (qemu abort).
cpu=max; [ "$accel" = tcg ] || cpu=host,-arch-capabilities
set -- qemu-system-x86_64 -nodefaults -no-user-config -display none -no-reboot \
	-machine pc,accel="$accel" -cpu "$cpu" -smp "$cpus" -m "$mem" \
	-kernel "$bz" -initrd "$initrd" -append "$cmdline" \
	-virtfs "local,path=$(qpath "$out"),mount_tag=pxout,security_model=none" \
	-virtfs "local,path=$(qpath "$share"),mount_tag=pxshare,security_model=none" \
	-virtfs "local,path=$(qpath "$top"),mount_tag=pxrepo,security_model=none,readonly=on"
# Virtual time: QEMU then runs the vCPUs in one thread (no MTTCG).
[ "$clock" = host ] || set -- "$@" -icount "shift=${clock#icount=},sleep=off"
if [ -n "$interactive" ]; then
	set -- "$@" -chardev "stdio,id=con,mux=on,signal=off,logfile=$(qpath "$out/console.log")" \
		-serial chardev:con -mon chardev=con,mode=readline
else
	# The monitor: before a hung guest is killed, qemu-state.py asks it
	# what each vCPU was doing.  A short path: sockets are limited to
	# 108 bytes.
	mon=${TMPDIR-/tmp}/pxmon.$$
	set -- "$@" -serial "file:$out/console.log" -monitor "unix:$mon,server=on,wait=off"
fi
{
	echo "#!/bin/sh"
	echo "# Re-run this guest: sh $out/qemu-cmd"
	echo "exec $(quote "$@")"
} > "$out/qemu-cmd"
chmod +x "$out/qemu-cmd"
if [ -n "$dryrun" ]; then
	cat "$out/qemu-cmd"
	exit 0
fi

if [ -n "$interactive" ]; then
	echo "run: interactive $flavour guest, Ctrl-A x quits; log in $out" >&2
	"$@" || die "qemu failed ($?)"
	exit 0
fi

[ "${PX_GUEST_LOCK_HELD:-}" != 1 ] || lock=''
if [ -n "$lock" ] && command -v flock > /dev/null; then
	exec 9> "$top/build/.guest.lock"
	flock -n 9 || { echo "run: waiting for another guest to finish (build/.guest.lock)" >&2; flock 9; }
fi
run_nice=${run_nice:-$(nice)}
[ -n "$boot_nice" ] || boot_nice=$run_nice
[ "$boot_nice" = "$(nice)" ] || set -- nice -n $((boot_nice - $(nice))) "$@"
"$@" < /dev/null > "$out/qemu.log" 2>&1 &
qpid=$!
tail -n +1 -f --pid="$qpid" "$out/output.log" &
tpid=$!
trap 'kill -KILL $qpid $tpid 2>/dev/null; rm -f "$mon"; echo "run: interrupted" >&2; exit 130' INT TERM HUP
start=$(date +%s%N)
# The limits below count time on the guest's clock's terms: wall time
# (host clock), or with icount the CPU time QEMU got (its vCPUs are one
# thread that never sleeps while the guest has work: a guest starved by
# the host's load is slow, not hung), with a wall backstop of 10 times
# --timeout.  lim_s: the seconds the limits count; QEMU's CPU time from
# /proc in ticks/hz (all its threads).
hz=$(getconf CLK_TCK) qut=0 qst=0 qcpu=''
[ "$clock" = host ] || qcpu=1
boot_ms='' hung='' silent='' size=0 grew=0
while kill -0 "$qpid" 2>/dev/null; do
	now=$(date +%s%N)
	read -r _ _ _ _ _ _ _ _ _ _ _ _ _ qut qst _ 2> /dev/null < /proc/"$qpid"/stat || :
	if [ "$clock" = host ]; then
		lim_s=$(( (now - start) / 1000000000 ))
	else
		lim_s=$(( (qut + qst) / hz ))
	fi
	if [ -z "$boot_ms" ] && grep -q '^px-init: reached /init' "$out/console.log" 2>/dev/null; then
		boot_ms=$(( (now - start) / 1000000 ))
		# Booted: every QEMU thread (one per vCPU) to the nice to run at.
		[ "$boot_nice" = "$run_nice" ] || for task in /proc/"$qpid"/task/*; do
			renice --priority "$run_nice" -p "${task##*/}" > /dev/null 2>&1 || true
		done
	fi
	if [ "$lim_s" -ge "$timeout" ]; then
		hung="after $timeout s${qcpu:+ of QEMU's CPU time}"
	elif [ $(( (now - start) / 1000000000 )) -ge $((10 * timeout)) ]; then
		hung="after $((10 * timeout)) s of wall time (10 x --timeout)"
	elif [ -n "$first_output" ] && [ ! -s "$out/output.log" ] && [ "$lim_s" -ge "$first_output" ]; then
		hung="with no output in its first $first_output s${qcpu:+ of QEMU's CPU time}" silent=1
	elif [ -n "$stall" ]; then
		n=$(stat -c %s "$out/output.log")
		[ "$n" = "$size" ] || { size=$n; grew=$lim_s; }
		[ $((lim_s - grew)) -lt "$stall" ] || hung="with no output for $stall s${qcpu:+ of QEMU's CPU time}"
	fi
	if [ -n "$hung" ]; then
		# Evidence first: registers and local APIC of every vCPU.
		if command -v python3 > /dev/null; then
			timeout 60 python3 "$top/guest/qemu-state.py" "$mon" "$cpus" \
				> "$out/qemu-state.txt" 2>&1 ||
				echo "run: could not read the vCPUs' state (see $out/qemu-state.txt)" >&2
		fi
		kill -KILL "$qpid" 2>/dev/null || true
		break
	fi
	sleep 0.1
done
qrc=0
wait "$qpid" 2>/dev/null || qrc=$?
echo "$qrc" > "$out/qemu-exit"
rm -f "$mon"
wait "$tpid" || true
elapsed=$(( ($(date +%s%N) - start) / 1000000000 ))

# (The last reading, up to 0.1 s before QEMU ended.)
awk -v t=$((qut + qst)) -v hz="$hz" 'BEGIN { printf "%.1f\n", t / hz }' > "$out/cpu-seconds"
if [ -n "$boot_ms" ]; then
	up=$(sed -n 's/^px-init: reached \/init at uptime \([0-9.]*\) s.*/\1/p' "$out/console.log" | head -1)
	printf '%d.%03d\n' $((boot_ms / 1000)) $((boot_ms % 1000)) > "$out/boot-time"
	echo "run: $flavour guest reached /init after $(cat "$out/boot-time") s (guest uptime ${up:-?} s)" >&2
fi
tail40() {
	if [ -s "$out/console.log" ]; then
		echo "--- last 40 lines of $out/console.log:" >&2
		tail -n 40 "$out/console.log" >&2
		echo "---" >&2
	else
		echo "run: $out/console.log is empty: the kernel never printed" >&2
	fi
}
if [ -n "$hung" ]; then
	if [ -n "$silent" ]; then echo silent; else echo hung; fi > "$out/result"
	echo "run: guest hung $hung, killed after $elapsed s" >&2
	tail40
	exit 124
elif grep -q 'Kernel panic' "$out/console.log" 2>/dev/null; then
	echo panic > "$out/result"
	echo "run: guest panicked after $elapsed s" >&2
	tail40
	exit 123
elif ! grep -qE '^[0-9]+$' "$out/status" 2>/dev/null; then
	echo nostatus > "$out/result"
	echo "run: guest stopped without reporting a status (qemu exit $qrc, see $out/qemu.log)" >&2
	cat "$out/qemu.log" >&2
	tail40
	exit 122
fi
rc=$(cat "$out/status")
echo ok > "$out/result"
echo "run: command exited with status $rc after $elapsed s; results in $out" >&2
exit "$rc"

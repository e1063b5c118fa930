#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The test runner: in-guest tests, one boot per group, and host unit tests
# and checks (beside the parallel boots, below).
# Host: every executable build/tests/unit/* is run, then every executable
# tests/host/*.sh (checks of the repository on the host, e.g. checkpatch;
# "# pxtest-timeout: SEC" as below, default 120).  Guest: every
# tests/guest/*.sh declares its boots in header lines
#   # pxtest-boot: lean [kernel args] [+parallel|+icount]   (one line per
#                                          boot; +parallel: as below, this
#                                          boot; +icount: QEMU's instruction
#                                          count clock, below)
#   # pxtest-cpus: N                     (default 2)
#   # pxtest-timeout: SEC                (per script, default 120)
#   # pxtest-parallel: yes               (every boot of the script beside
#                                          the other such groups and the
#                                          bench's self-test, after the rest)
# Scripts with the same (kernel, args, cpus, parallel) share one boot through
# guest/run.sh, with tests/ shared as their cwd; lib/guest-driver.sh runs
# them in name order.  A test prints "ok NAME", "not ok NAME - reason" or,
# for a check that cannot run there, "skip NAME - reason", and exits
# non-zero if any failed.  After each boot the console log is scanned for
# kernel badness: the test "kernel-log-clean".  tests/expected/SCRIPT.txt
# declares the checks a guest script reports in each of its boots, one
# "[BOOT] NAME" a line: a declared check that was not reported FAILs, and
# so does one reported but not declared (a new check is declared with the
# change that adds it: --update-expected).  The host's unit tests, host
# checks and the bench self-test likewise, in tests/expected/host/NAME.txt
# (boot "host").
#
# Output: "PASS [boot] NAME", "FAIL [boot] NAME - reason" or "SKIP [boot]
# NAME - reason" (a check that did not run: not a failure, but never left
# out silently) per test, "XFAIL [boot] NAME - reason" for a known failure
# a test declares ("xfail NAME - reason"; "xpass" when it passed after
# all), then "N distinct checks in M result lines" (each check name
# counted once, whatever boots reported it) and last exactly "N passed,
# N failed, N skipped";
# exit 1 if anything failed.  A hung or panicked boot fails every script
# in its group and shows the console tail.  Logs:
# build/test-results/<date-time>/; where the time went in timings.tsv
# there (seconds per host check, per boot on the host's clock and per
# guest script on the guest's), the slowest named at the end.
#
# Usage: tests/run.sh [--only REGEX] [--kernel lean|debug|kasan-nolockdep] [--keep] [--update-expected]
#   --only REGEX   only unit tests / test scripts whose file name matches
#   --kernel K     only the boots of kernel K (host unit tests still run)
#   --keep         keep all old result folders (default: the newest 10)
#   --update-expected  write the checks each guest script reported in each
#                  of its boots into tests/expected/SCRIPT.txt (see above)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cli_prog=tests
# shellcheck source=lib/sh/cli.sh
. "$top/lib/sh/cli.sh"
# shellcheck source=lib/sh/console.sh
. "$top/lib/sh/console.sh"
only=. kernel='' keep='' update_expected=''
while test $# -gt 0; do
	case $1 in
	--only) checkarg "$1" $# "${2-}" '.' REGEX; only=$2; shift ;;
	--update-expected) update_expected=1 ;;
	--kernel) checkarg "$1" $# "${2-}" '^(lean|debug|kasan-nolockdep)$' 'lean|debug|kasan-nolockdep'; kernel=$2; shift ;;
	--keep) keep=1 ;;
	-h|--help) usage ;;
	*) usage "unknown option '$1'" ;;
	esac
	shift
done

res=$top/build/test-results/$(date +%Y%m%d-%H%M%S)
[ -e "$res" ] && res=$res.$$
mkdir -p "$res" "$res/host"
: > "$res/summary"
report() { echo "$*"; echo "$*" >> "$res/summary"; }
note() { echo "tests: $*" >&2; }
run_start=$(date +%s)
# The host's CPU time every 5 s (the first line of /proc/stat after the
# date): where the two CPUs are busy and where idle, for planning which
# boots may run side by side.  Not parsed by any check.
( while :; do echo "$(date +%s) $(head -1 /proc/stat)"; sleep 5; done ) > "$res/host-cpu.log" 2>/dev/null &
sampler=$!
trap 'kill $sampler 2>/dev/null' 0
# timed WHERE WHAT START: one timings.tsv line, the seconds since START.
timed() { printf '%s\t%s\t%s\n' "$1" "$2" $(($(date +%s) - $3)) >> "$res/timings.tsv"; }

# parse LOG BOOT WHAT STATUS: turn ok/not ok/skip lines into PASS/FAIL/SKIP.
# A script that printed only skip lines is not a failure; one that printed
# no result line at all is.
parse() {
	n=0
	while IFS= read -r l; do
		case $l in
		"ok "*) report "PASS [$2] ${l#ok }"; n=$((n + 1)) ;;
		"not ok "*) report "FAIL [$2] ${l#not ok }"; n=$((n + 1)) ;;
		"skip "*) report "SKIP [$2] ${l#skip }"; n=$((n + 1)) ;;
		"xfail "*) report "XFAIL [$2] ${l#xfail }"; n=$((n + 1)) ;;
		"xpass "*) report "XPASS [$2] ${l#xpass }"; n=$((n + 1)) ;;
		esac
	done < "$1"
	if [ "$4" = 137 ]; then report "FAIL [$2] $3 - killed at its timeout"
	elif [ "$4" != 0 ] && ! grep -q '^not ok ' "$1"; then report "FAIL [$2] $3 - exited with status $4"
	elif [ "$n" -eq 0 ]; then report "FAIL [$2] $3 - printed no ok/not ok/skip line"
	fi
}

# expect_checks LOG BOOT SCRIPT [STATUS]: the checks SCRIPT reported in LOG
# against those tests/expected/SCRIPT.txt declares for BOOT (a set: a name
# may be reported several times); --update-expected rewrites BOOT's lines
# there.  A script killed at its timeout (STATUS 137, already a FAIL) gets
# one NOTE for the declared checks it never reached, not a FAIL each.
# Host checks are SCRIPT host/NAME: tests/expected/host/NAME.txt.
expect_checks() {
	exp=$top/tests/expected/$3.txt
	sed -n -e 's/^not ok \([^ ]*\).*/\1/p' -e 's/^\(ok\|skip\|xfail\|xpass\) \([^ ]*\).*/\2/p' "$1" |
		LC_ALL=C sort -u | sed "s/^/[$2] /" > "$1.checks"
	if [ -n "$update_expected" ]; then
		mkdir -p "$(dirname "$exp")"
		# (set -e ends the group at a failing awk: no file yet is no lines)
		{ [ ! -f "$exp" ] || awk -v b="[$2] " 'index($0, b) != 1' "$exp"; cat "$1.checks"; } |
			LC_ALL=C sort > "$exp.tmp"
		mv "$exp.tmp" "$exp"
		return 0
	fi
	if [ ! -f "$exp" ]; then
		report "FAIL [$2] $3 - no tests/expected/$3.txt declares its checks (tests/run.sh --update-expected)"
		return 0
	fi
	awk -v b="[$2] " 'index($0, b) == 1' "$exp" | LC_ALL=C sort -u > "$1.declared"
	if [ "${4:-0}" = 137 ]; then
		n=$(LC_ALL=C comm -23 "$1.declared" "$1.checks" | wc -l)
		[ "$n" -eq 0 ] || echo "NOTE [$2] $3: killed at its timeout before $n declared checks" >> "$res/summary"
	else
		LC_ALL=C comm -23 "$1.declared" "$1.checks" | while IFS= read -r l; do
			report "FAIL $l - declared in tests/expected/$3.txt, not reported"
		done
	fi
	LC_ALL=C comm -13 "$1.declared" "$1.checks" | while IFS= read -r l; do
		report "FAIL $l - reported, not declared in tests/expected/$3.txt"
	done
}

# scan_console CONSOLE BADNESS NAME: kernel badness in CONSOLE
# (lib/sh/console.sh); the bad lines go to BADNESS; one PASS/FAIL line
# NAME for $label (SKIP: no console).
scan_console() {
	if [ ! -f "$1" ]; then
		report "SKIP [$label] $3 - no $(basename "$1") to scan"
		return 0
	fi
	console_badness "$1" "$res" > "$2"
	if [ -s "$2" ]; then
		report "FAIL [$label] $3 - $(wc -l < "$2") bad lines, first: $(head -1 "$2")"
		head -20 "$2" | sed 's/^/    /' >&2
	else
		report "PASS [$label] $3"
	fi
}

console_patterns "$res"

# Test objects the guest tests use (the guest sees them under /px/repo).
mkdir -p "$top/build/tests/bpf"
for src in "$top"/tests/bpf/*.bpf.c; do
	[ -f "$src" ] || continue
	o=$top/build/tests/bpf/$(basename "$src" .c).o
	[ -z "$(find "$o" -newer "$src" 2>/dev/null)" ] || continue
	clang -O2 -g -target bpf -c "$src" -o "$o" ||
		{ note "cannot build $o"; rm -f "$o"; }
done

# host_check NAME LOGNAME COMMAND...: one host check, run with no stdin
# into $res/host/LOGNAME.log and timed; its ok/not ok/skip lines are
# results NAME, against tests/expected/host/LOGNAME.txt.
host_check() {
	hn=$1 hl=$res/host/$2.log he=host/$2
	shift 2
	rc=0 t0=$(date +%s)
	"$@" > "$hl" 2>&1 < /dev/null || rc=$?
	timed host "$hn" "$t0"
	parse "$hl" host "$hn" "$rc"
	expect_checks "$hl" host "$he" "$rc"
}

# host_checks [first|last]: the host unit tests and the host checks.  None
# boots a guest or measures time, so they run beside the parallel boots and
# the bench (below), where the two host CPUs are not both busy all along.
# "last" is only the checks marked "# pxtest-host-last: yes" (a kernel
# compile: minutes from a cold ccache, on every host CPU), "first" all the
# others, neither all of them.
host_checks() {
	_hc_part=${1:-all}
	# Host unit tests: build/tests/unit/NAME from tests/unit/NAME.c (make unit);
	# a source without its binary is a SKIP, not silence.  (None is last.)
	[ "$_hc_part" = last ] || for u in "$top"/build/tests/unit/*; do
		[ -f "$u" ] && [ -x "$u" ] || continue
		name=$(basename "$u")
		echo "$name" | grep -qE -- "$only" || continue
		host_check "$name" "$name" "$u"
	done
	[ "$_hc_part" = last ] || for src in "$top"/tests/unit/*.c; do
		[ -f "$src" ] || continue
		name=$(basename "$src" .c)
		echo "$name" | grep -qE -- "$only" || continue
		[ -x "$top/build/tests/unit/$name" ] ||
			report "SKIP [host] $name - not built: no build/tests/unit/$name (make unit)"
	done

	# Host checks: tests/host/NAME.sh, run from the top of the repository,
	# print ok/not ok/skip lines like the guest scripts; log in
	# $res/host/NAME.log.  Killed at their timeout.
	for s in "$top"/tests/host/*.sh; do
		[ -f "$s" ] || continue
		name=$(basename "$s")
		echo "$name" | grep -qE -- "$only" || continue
		_hc_last=no
		! grep -q '^# pxtest-host-last: *yes' "$s" || _hc_last=yes
		case $_hc_part:$_hc_last in
		first:yes | last:no) continue ;;
		esac
		if [ ! -x "$s" ]; then
			report "SKIP [host] $name - not executable"
			continue
		fi
		to=$(sed -n 's/^# pxtest-timeout: *\([0-9][0-9]*\).*/\1/p' "$s" | head -1)
		host_check "$name" "${name%.sh}" env -C "$top" timeout -s KILL "${to:-120}" "$s"
	done
}

# The benchmark's self-test (bench/run.sh --quick, host side, boots its own
# guests of the lean kernel): files per mode, summary.json shape, counts,
# CFS tail on < off.  Left out by --only; under --kernel debug (it boots
# only lean guests) or without bench/selftest.sh it is a SKIP; without jq
# it FAILs (bench/jq).  It runs beside the stress boots (below), or after
# the other boots when there are none.
bench=''
if echo bench-selftest | grep -qE -- "$only"; then
	if [ "${kernel:-lean}" != lean ]; then
		report "SKIP [host] bench-selftest - --kernel $kernel (the bench boots the lean kernel)"
	elif [ ! -x "$top/bench/selftest.sh" ]; then
		report "SKIP [host] bench-selftest - no executable bench/selftest.sh"
	else
		bench=1
	fi
fi
# bench_selftest [host|icount]: the bench's self-test (its host-clock
# run, or its icount run) as a host check; its guests boot while we hold
# the guest lock (PX_GUEST_LOCK_HELD, guest/run.sh).
bench_selftest() {
	case ${1:-host} in
	host) PX_GUEST_LOCK_HELD=1 host_check bench-selftest bench-selftest \
		"$top/bench/selftest.sh" --run host ;;
	icount) PX_GUEST_LOCK_HELD=1 host_check bench-selftest-icount bench-selftest-icount \
		"$top/bench/selftest.sh" --run icount ;;
	esac
}

# Guest plan: kernel|args|cpus|timeout|script, one line per boot of a script.
for s in "$top"/tests/guest/*.sh; do
	[ -f "$s" ] || continue
	name=$(basename "$s")
	echo "$name" | grep -qE -- "$only" || continue
	cpus=$(sed -n 's/^# pxtest-cpus: *\([0-9][0-9]*\).*/\1/p' "$s" | head -1)
	par=0
	! grep -q '^# pxtest-parallel: *yes' "$s" || par=1
	to=$(sed -n 's/^# pxtest-timeout: *\([0-9][0-9]*\).*/\1/p' "$s" | head -1)
	grep -q '^# pxtest-boot: *[a-z]' "$s" || report "FAIL [none] $name - no '# pxtest-boot:' line"
	sed -n 's/^# pxtest-boot: *//p' "$s" | while read -r k args; do
		[ -z "$kernel" ] || [ "$k" = "$kernel" ] || continue
		p=$par
		case " $args " in
		*" +parallel "*) p=1 args=$(echo " $args " | sed 's/ +parallel / /; s/^ *//; s/ *$//') ;;
		*" +icount "*) p=2 args=$(echo " $args " | sed 's/ +icount / /; s/^ *//; s/ *$//') ;;
		esac
		echo "$k|$args|${cpus:-2}|${to:-120}|$name|$p"
	done
done > "$res/plan"

awk -F'|' '!seen[$1 FS $2 FS $3 FS $6]++ { print $1 "|" $2 "|" $3 "|" $6 }' "$res/plan" > "$res/groups"

# boot_label K ARGS CPUS PAR: the boot's name in the output, "lean cpus=4".
# PAR: 0 one by one, 1 side by side ("parallel"), 2 an icount boot.
boot_label() {
	l=$1${2:+ $2}
	[ "$3" = 2 ] || l="$l cpus=$3"
	case $4 in 1) l="$l parallel" ;; 2) l="$l icount" ;; esac
	echo "$l"
}

# group_dir K ARGS CPUS PAR: sets label, dir and gclock (the guest's
# clock: host, or icount for PAR 2), writes $dir/plan.
group_dir() {
	label=$(boot_label "$@")
	gclock=host
	[ "$4" != 2 ] || gclock=icount
	dir=$res/$(echo "$label" | tr -c 'A-Za-z0-9=.-' '_' | sed 's/_*$//')
	mkdir -p "$dir"
	awk -F'|' -v k="$1" -v a="$2" -v c="$3" -v p="$4" '$1 == k && $2 == a && $3 == c && $6 == p' \
		"$res/plan" > "$dir/plan"
}

# group_scripts: "timeout:guest/script" per script of $dir/plan, one a line.
group_scripts() {
	while IFS='|' read -r _ _ _ to s _; do echo "$to:guest/$s"; done < "$dir/plan"
}

# group_times: sets total (120 s + the scripts' timeouts: the boot's
# limit) and longest (the longest script's timeout) for $dir/plan.
group_times() {
	total=120 longest=0
	for s in $(group_scripts); do
		to=${s%%:*}
		total=$((total + to))
		[ "$to" -le "$longest" ] || longest=$to
	done
}

# flavour_of K: the kernel flavour that boots for K: PX_LEAN_FLAVOUR
# (kernel/mutants/run.sh: "mutant") stands in for lean, labels unchanged.
flavour_of() {
	if [ "$1" = lean ] && [ -n "${PX_LEAN_FLAVOUR:-}" ]; then echo "$PX_LEAN_FLAVOUR"; else echo "$1"; fi
}

# boot_group K ARGS CPUS [GUEST-RUN-OPTIONS]: one boot for $dir's scripts;
# the guest's exit status goes to $dir/boot.rc.  An icount boot's limits
# are guest seconds (the driver's timeouts) on the inside and wall
# seconds (guest/run.sh's) on the outside: a busy guest second took 2
# wall seconds on a quiet host and 4-7 beside a kernel build and two
# guests, so the wall limits are 10 times the guest's.
boot_group() {
	k=$1 args=$2 cpus=$3
	shift 3
	group_times
	wall=1
	[ "$gclock" = host ] || { wall=10; set -- --clock "$gclock" "$@"; }
	# shellcheck disable=SC2046
	set -- "$@" -- env PX_KERNEL="$k" PX_BOOT="$label" PX_CLOCK="$gclock" sh lib/guest-driver.sh $(group_scripts)
	tn="timeout ${total}s"
	[ "$gclock" = host ] || tn="$tn of guest time, icount"
	note "boot [$label]: $(cut -d'|' -f5 "$dir/plan" | tr '\n' ' ')($tn)"
	rc=0 t0=$(date +%s)
	# An Oops ends the boot at once (oops=panic); a guest whose driver
	# prints nothing for longer than its longest script (+ boot) is hung.
	"$top/guest/run.sh" --kernel "$(flavour_of "$k")" --cpus "$cpus" --append "oops=panic${args:+ $args}" \
		--timeout $((total * wall)) --stall $(((longest + 120) * wall)) --first-output $((90 * wall)) \
		--share "$top/tests" --out "$dir" "$@" > "$dir/run.log" 2>&1 < /dev/null || rc=$?
	echo "$rc" > "$dir/boot.rc"
	timed "[$label]" "(boot, host clock)" "$t0"
}

# boot_group_again K ARGS CPUS [GUEST-RUN-OPTIONS]: boot_group, and once
# more if the guest hung before its driver printed anything ("silent": no
# script ran, so no result is hidden; seen once in hundreds of boots, CPU 1
# idle with its timer never firing, from /init on).  The first console is
# kept as console.silent.log; collect_group scans it for kernel badness
# like console.log ("kernel-log-clean (silent boot)").
#
# Also once more if the guest panicked on QEMU's stale int3 (lib/sh/
# console.sh, console_text_poke_int3: multi-threaded TCG running a
# translation of a static call site made while the kernel patched it; the
# Debian kernel without our series does the same, one TCG thread never).
# Nothing of that boot is dropped: its console is kept as
# console.int3.log and scanned up to the Oops, and its scripts' logs go
# to first-boot/, where collect_group reports every check that failed.
#
# And once more if QEMU itself died of a signal (exit 128+N; a segfault
# in PCI enumeration, exit 139, seen once on 2026-12-07): the emulator's
# failure, not the kernel's.  Its console is kept as console.qemu.log
# and scanned, its scripts' logs go to first-boot/ as for the int3.
boot_group_again() {
	boot_group "$@"
	case $(cat "$dir/result" 2>/dev/null) in
	silent)
		cp "$dir/console.log" "$dir/console.silent.log"
		echo "NOTE [$label] printed nothing in 90 s, booted again (first console: $dir/console.silent.log)" >> "$res/summary"
		note "[$label] printed nothing in 90 s: booting it again" ;;
	panic)
		# Only multi-threaded TCG has it: an icount boot's vCPUs run
		# in one host thread.
		[ "$gclock" = host ] || return 0
		site=$(console_text_poke_int3 "$dir/console.log" "$top/build/obj-$1/vmlinux") || return 0
		cp "$dir/console.log" "$dir/console.int3.log"
		first_boot_aside
		echo "NOTE [$label] panicked on QEMU's stale int3 at $site, booted again (first console: $dir/console.int3.log)" >> "$res/summary"
		note "[$label] panicked on QEMU's stale int3 at $site: booting it again" ;;
	nostatus)
		qx=$(cat "$dir/qemu-exit" 2>/dev/null) || return 0
		case $qx in [0-9]*) [ "$qx" -gt 128 ] || return 0 ;; *) return 0 ;; esac
		cp "$dir/console.log" "$dir/console.qemu.log"
		first_boot_aside
		echo "NOTE [$label] QEMU died of signal $((qx - 128)), booted again (first console: $dir/console.qemu.log)" >> "$res/summary"
		note "[$label] QEMU died of signal $((qx - 128)): booting it again" ;;
	*) return 0 ;;
	esac
	boot_group "$@"
}
# first_boot_aside: the first boot's script logs and statuses to
# $dir/first-boot/ (consoles and run.log stay).
first_boot_aside() {
	mkdir -p "$dir/first-boot"
	for f in "$dir"/*.log "$dir"/*.rc; do
		case ${f##*/} in console*.log | run.log) ;; *) [ ! -f "$f" ] || mv "$f" "$dir/first-boot/" ;; esac
	done
}
# first_boot_failures WHY SCRIPTS...: a FAIL for each check that failed
# in the first boot's scripts.
first_boot_failures() {
	_why=$1
	shift
	for s in "$@"; do
		f=$dir/first-boot/$(basename "${s#*:}" .sh).log
		[ ! -f "$f" ] || sed -n 's/^not ok //p' "$f" | while IFS= read -r l; do
			report "FAIL [$label] ($_why) $l"
		done
	done
}

# collect_group: PASS/FAIL lines for $dir's boot, then its console scan
# (and that of a first, silent boot that boot_group_again repeated).
collect_group() {
	# shellcheck disable=SC2046
	set -- $(group_scripts)
	# A silent boot ran no script, but its kernel may have warned (an RCU
	# stall, say): that is a result, not to be hidden by the second boot.
	[ ! -f "$dir/console.silent.log" ] ||
		scan_console "$dir/console.silent.log" "$dir/badness.silent" "kernel-log-clean (silent boot)"
	# A boot ended by QEMU's stale int3: its console up to the Oops, and
	# the checks that failed in the scripts it ran, the last one included.
	if [ -f "$dir/console.int3.log" ]; then
		sed '/Oops: int3: /,$d' "$dir/console.int3.log" > "$dir/console.int3-before.log"
		scan_console "$dir/console.int3-before.log" "$dir/badness.int3" "kernel-log-clean (boot ended by the int3)"
		first_boot_failures "boot ended by the int3" "$@"
	fi
	# A boot ended by QEMU's own death: the same, its whole console.
	if [ -f "$dir/console.qemu.log" ]; then
		scan_console "$dir/console.qemu.log" "$dir/badness.qemu" "kernel-log-clean (boot ended by QEMU)"
		first_boot_failures "boot ended by QEMU" "$@"
	fi
	result=$(cat "$dir/result" 2>/dev/null || echo none)
	case $result in
	hung|silent|panic|nostatus)
		why=$(sed -n 's/^run: \(guest [a-z]*\)/\1/p' "$dir/run.log" | head -1)
		[ -n "$why" ] || why="guest $result"
		for s in "$@"; do report "FAIL [$label] $(basename "${s#*:}") - $why"; done
		note "console tail of [$label] ($dir/console.log):"
		tail -n 40 "$dir/console.log" 2>/dev/null | sed 's/^/    /' >&2 || true ;;
	ok)
		# The driver's "UPTIME start NAME" / "UPTIME end NAME: status".
		awk -v l="[$label]" '$2 == "start" { t[$3] = $1 }
			$2 == "end" { n = $3; sub(/:$/, "", n); if (n in t) printf "%s\t%s\t%d\n", l, n, $1 - t[n] + 0.5 }' \
			"$dir/output.log" >> "$res/timings.tsv" 2>/dev/null || true
		for s in "$@"; do
			sn=$(basename "${s#*:}" .sh)
			if [ -f "$dir/$sn.rc" ]; then
				parse "$dir/$sn.log" "$label" "$sn.sh" "$(cat "$dir/$sn.rc")"
				expect_checks "$dir/$sn.log" "$label" "$sn" "$(cat "$dir/$sn.rc")"
			else report "FAIL [$label] $sn.sh - never ran"; fi
		done ;;
	*)
		for s in "$@"; do report "FAIL [$label] $(basename "${s#*:}") - guest did not run: $(tail -1 "$dir/run.log")"; done
		report "SKIP [$label] kernel-log-clean - the guest did not run"
		return 0 ;;
	esac
	scan_console "$dir/console.log" "$dir/badness" kernel-log-clean
}

# What no load can change runs at nice 19 beside the one-by-one boots,
# on the CPU time they leave (about half of the two host CPUs: their
# guests wait on timers, jq and BPF loading are single-threaded): the host
# checks (nothing they check is timed) and the bench's icount run
# (virtual time).  A nice-0 vCPU thread preempts them at once.  Without
# boots they run first, in the foreground.
# Each leaves $res/early.NAME.done at its end: one that died on the way
# (a shell error in a background job ends it silently) is a FAIL.
early='' early_names=''
# early_job NAME COMMAND...: COMMAND in a background subshell at nice 19.
# ($$ is the runner's pid in a subshell too; the builtin read of
# /proc/self/stat is the subshell's own.)
early_job() {
	_en=$1
	shift
	( read -r self _ < /proc/self/stat; renice -n 19 -p "$self" > /dev/null 2>&1 || true
	  "$@"; : > "$res/early.$_en.done" ) &
	early="$early $!" early_names="$early_names $_en"
}
# icount_boots: the icount boots (PAR 2) one after the other, without the
# guest lock (the one-by-one boots hold it: --no-lock).  Their guest time
# is virtual, so the CPU time the one-by-one boots leave is enough; they
# need only that their limits are 10 times their guest time (boot_group;
# on icount guest/run.sh counts them in QEMU's CPU time).
icount_boots() {
	# Nice 10, not the host checks' 19: beside busy loops at nice 0
	# (tests/under-load.sh) a nice-19 guest got too little to reach its
	# first output within its limit.  (Only root may lower it: else 19.)
	# Once the one-by-one boots are over (the marker), nice 0: beside
	# busy loops at nice 0, a nice-10 icount boot got 9% of a CPU.
	read -r _self _ < /proc/self/stat
	while IFS='|' read -r k args cpus par; do
		[ "$par" = 2 ] || continue
		_ni=10
		[ ! -e "$res/one-by-one.done" ] || _ni=0
		renice -n $_ni -p "$_self" > /dev/null 2>&1 || true
		group_dir "$k" "$args" "$cpus" "$par"
		boot_group_again "$k" "$args" "$cpus" --no-lock
	done < "$res/groups"
}
# With one-by-one boots, the icount boots follow the host checks in their
# background job: the debug, ttwu and KASAN boots leave about half of the
# two host CPUs idle (measured: 45-65% busy, 4-5 minutes), and the side by
# side phase below was CPU-bound with them in it.  The kernel compile
# checks come after the icount boots: from a cold ccache they take 16-19
# minutes of both CPUs, and the icount boots queued behind them ran one
# at a time on one CPU at the end of a fresh run (8 minutes).
icount_early=''
if grep -q '|0$' "$res/groups" && grep -q '|2$' "$res/groups"; then
	icount_early=1
fi
if [ -s "$res/groups" ]; then
	if [ -n "$icount_early" ]; then
		early_job host-checks-and-icount-boots eval 'host_checks first; icount_boots; host_checks last'
	else
		early_job host-checks host_checks all
	fi
	[ -z "$bench" ] || early_job bench-selftest-icount bench_selftest icount
fi
# early_check: after the early jobs were waited for.
early_check() {
	for n in $early_names; do
		[ -f "$res/early.$n.done" ] ||
			report "FAIL [host] $n - ended before it finished (a shell error in a background job?)"
	done
}

# Parallel groups ("# pxtest-parallel: yes" scripts, "+parallel" boots:
# no check that host load can break -- the proxy-off controls, whose
# inversions only grow with load, a boot of its own for a command line;
# and the "+icount" boots, whose guest time is virtual)
# run side by side with the bench's self-test (its host-clock run), after
# the others, holding the guest lock together; the rest one by one.  A
# single guest leaves a third of the two host CPUs idle (single-threaded
# guest work: jq, BPF loading); side by side they use it.  Longest first,
# at most one boot per host CPU at a time, each at nice -10 until it
# reaches /init: six guests booting at once beside busy ones took 33-75 s
# each.
: > "$res/groups-parallel"
: > "$res/groups-early"
while IFS='|' read -r k args cpus par; do
	# (Not group_dir for an early boot: the background job writes its
	# plan, and a second writer could empty it under a boot reading it.)
	if [ "$par" = 2 ] && [ -n "$icount_early" ]; then
		echo "$k|$args|$cpus|$par" >> "$res/groups-early"
		continue
	fi
	group_dir "$k" "$args" "$cpus" "$par"
	if [ "$par" != 0 ]; then
		echo "$k|$args|$cpus|$par" >> "$res/groups-parallel"
		continue
	fi
	boot_group_again "$k" "$args" "$cpus"
	collect_group
done < "$res/groups"
# The one-by-one boots are over: the early jobs get nice 0 (below) like
# the side-by-side boots they now run beside.
# descendants PID...: the threads of the PIDs and of all their
# descendants (setpriority() changes one thread: QEMU's vCPU threads are
# not its main thread).
descendants() {
	for _p; do
		ls "/proc/$_p/task" 2> /dev/null
		# shellcheck disable=SC2046 # the pids, one argument each
		descendants $(ps -o pid= --ppid "$_p" 2> /dev/null)
	done
}
# Every early job (the host checks, the icount boots, the bench's icount
# run), and what each runs from now on: under load, nice-19 work beside
# busy loops at nice 0 got 1.4% of a CPU (a bench guest took 15 minutes
# to reach /init) and the icount boots would not end.
: > "$res/one-by-one.done"
for _j in $early; do
	kill -0 "$_j" 2> /dev/null || continue
	# shellcheck disable=SC2046 # the pids, one argument each
	renice -n 0 -p $(descendants "$_j") > /dev/null 2>&1 || true
done
if [ -s "$res/groups-parallel" ]; then
	# (Unless our caller holds it for us: PX_GUEST_LOCK_HELD, guest/run.sh.)
	exec 9> "$top/build/.guest.lock"
	if [ -z "${PX_GUEST_LOCK_HELD:-}" ] && command -v flock > /dev/null && ! flock -n 9; then
		note "waiting for another guest to finish (build/.guest.lock)"
		flock 9
	fi
	while IFS='|' read -r k args cpus par; do
		group_dir "$k" "$args" "$cpus" "$par"
		group_times
		echo "$total|$k|$args|$cpus|$par"
	done < "$res/groups-parallel" | sort -t'|' -k1,1nr > "$res/groups-parallel.order"
	ncpu=$(nproc) booting=''
	pids=$early
	[ -z "$bench" ] || { bench_selftest host & pids="$pids $!"; }
	while IFS='|' read -r _ k args cpus par; do
		group_dir "$k" "$args" "$cpus" "$par"
		# One boot per host CPU at a time: wait until a booting guest
		# reached /init or ended (2 minutes at most: a hung boot is its
		# own timeout's business).
		i=0
		while [ $i -lt 1200 ]; do
			still=''
			for b in $booting; do
				kill -0 "${b%%:*}" 2>/dev/null &&
					! grep -q '^px-init: reached /init' "${b#*:}/console.log" 2>/dev/null &&
					still="$still $b"
			done
			booting=$still
			[ "$(echo "$booting" | wc -w)" -ge "$ncpu" ] || break
			sleep 0.1
			i=$((i + 1))
		done
		boot_group_again "$k" "$args" "$cpus" --no-lock --boot-nice -10 &
		booting="$booting $!:$dir"
		pids="$pids $!"
	done < "$res/groups-parallel.order"
	# shellcheck disable=SC2086 # pids, split on purpose
	wait $pids
	early_check
	exec 9>&-
	while IFS='|' read -r k args cpus par; do
		group_dir "$k" "$args" "$cpus" "$par"
		collect_group
	done < "$res/groups-parallel"
else
	[ -n "$early" ] || host_checks all
	# shellcheck disable=SC2086 # pids, split on purpose
	[ -z "$early" ] || { wait $early; early_check; }
	if [ -n "$bench" ]; then
		[ -n "$early" ] || bench_selftest icount
		bench_selftest host
	fi
fi
# The icount boots of the early job (waited for above).
while IFS='|' read -r k args cpus par; do
	group_dir "$k" "$args" "$cpus" "$par"
	collect_group
done < "$res/groups-early"

# Declared boots that are not planned any more (a pxtest-boot line went):
# checked when every boot of a script ran (no --kernel).
if [ -z "$kernel" ] && [ -z "$update_expected" ]; then
	while IFS='|' read -r k args cpus _ s par; do
		echo "${s%.sh}|[$(boot_label "$k" "$args" "$cpus" "$par")]"
	done < "$res/plan" | LC_ALL=C sort -u > "$res/planned-boots"
	for n in $(cut -d'|' -f1 "$res/planned-boots" | uniq); do
		e=$top/tests/expected/$n.txt
		[ -f "$e" ] || continue
		grep "^$n|" "$res/planned-boots" | cut -d'|' -f2 > "$res/planned.$n"
		sed 's/\] .*/]/' "$e" | LC_ALL=C sort -u | LC_ALL=C comm -23 - "$res/planned.$n" |
			while IFS= read -r l; do
				report "FAIL $l $n.sh - declared in tests/expected/$n.txt, but the script has no such boot"
			done
	done
fi

if [ -z "$keep" ]; then
	ls -1d "$top"/build/test-results/*/ | sort | head -n -10 | while read -r d; do rm -rf "$d"; done
fi
passed=$(grep -c '^PASS ' "$res/summary" || true)
failed=$(grep -c '^FAIL ' "$res/summary" || true)
skipped=$(grep -c '^SKIP ' "$res/summary" || true)
xfail=$(grep -c '^XFAIL ' "$res/summary" || true)
xpass=$(grep -c '^XPASS ' "$res/summary" || true)
note "logs in $res"
timed all "(this run)" "$run_start"
note "slowest (s): $(grep -v '^all' "$res/timings.tsv" 2>/dev/null | sort -t"$(printf '\t')" -k3,3nr | head -6 |
	awk -F'\t' '{ printf "%s%s %s %d", (NR > 1 ? ", " : ""), $1, $2, $3 }'); all $(($(date +%s) - run_start)) s"
# What each boot cost the host (guest/run.sh's cpu-seconds: QEMU's CPU
# time, all its threads): on a host whose CPUs are busy all along, this,
# not a boot's wall time, is what a shorter run must take away.
for f in "$res"/*/cpu-seconds; do
	[ -f "$f" ] || continue
	d=${f%/cpu-seconds}
	printf '%s\t%s\n' "${d##*/}" "$(cat "$f")"
done | sort -t"$(printf '\t')" -k2,2nr > "$res/cpu-seconds.tsv"
[ ! -s "$res/cpu-seconds.tsv" ] ||
	note "QEMU CPU time (s): $(awk -F'\t' '{ t += $2; if (NR <= 6) l = l (NR > 1 ? ", " : "") $1 " " $2 } END { printf "%s; all %d boots %.0f", l, NR, t }' "$res/cpu-seconds.tsv")"
[ "$xfail$xpass" = 00 ] || note "$xfail known failure(s) seen as expected (XFAIL), $xpass passed unexpectedly (XPASS); neither counts below"
# The number of distinct checks: result lines counted by name alone (the
# boot label, a FAIL's reason and the first boot's prefix left out), so a
# check that runs on three boots counts once.  Just before the last line,
# which stays exactly the counts.
lines=$(grep -cE '^(PASS|FAIL|SKIP|XFAIL|XPASS) ' "$res/summary" || true)
distinct=$(sed -n 's/^\(PASS\|FAIL\|SKIP\|XFAIL\|XPASS\) \[[^]]*\] //p' "$res/summary" |
	sed 's/^(boot ended by the int3) //; s/^(boot ended by QEMU) //; s/ - .*//' | LC_ALL=C sort -u | wc -l)
echo "$distinct distinct checks in $lines result lines" | tee -a "$res/summary"
echo "$passed passed, $failed failed, $skipped skipped" | tee -a "$res/summary"
[ "$failed" -eq 0 ] || exit 1

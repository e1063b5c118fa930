#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Host check: the command-line conventions of tools/README.md
# ("Conventions") in every program of build/tools/bin (the host build)
# and in bench/summarize.sh, and pxpostmortem on input that is no
# trace.dat.  Per program:
#
#   ok conventions/PROG/help        --help and -h: the help on stdout, exit 0,
#                                   nothing on stderr; -h and -V listed, no -?
#   ok conventions/PROG/version     --version and -V: "PROG (proxyexec) X.Y"
#                                   (tools/VERSION) on stdout, exit 0
#   ok conventions/PROG/bad-option  an unknown option: exit 64, nothing on
#                                   stdout, two lines on stderr: "PROG: ..."
#                                   and "Try 'PROG --help' for more information."
#   ok conventions/PROG/bad-value   a value the option refuses: the same
#   ok conventions/PROG/stray       a stray argument: the same (programs
#                                   that take one: skip)
#   ok conventions/PROG/usage-line  the help's USAGE: line names only options
#                                   of the list, and every short one of it
#                                   but -h and -V (or says [OPTIONS])
#   ok conventions/PROG/no-crash    none of the runs above died of a signal
#   ok conventions/pxpostmortem/input-KIND  an empty file, a text file, a
#                                   directory, an ELF file, the trace.dat
#                                   magic then junk, a missing file: exit 1,
#                                   one line "pxpostmortem: FILE...", no signal
#   ok conventions/script/PATH/help|bad-option|version  the other host
#                                   scripts of bench/, tests/ and guest/ (a
#                                   version skip while lib/sh/cli.sh has none)
#   ok conventions/summarize/json-parses  summary.json of a made-up results
#                                   folder parses (jq); json-control-chars:
#                                   a value with control characters, quotes
#                                   and a backslash comes back as it was;
#                                   json-missing-numbers: missing or bad
#                                   numbers are null
#
# A program not built is a skip (the BPF tools need the lean kernel's
# vmlinux: make -C tools after make kernel).  Nothing here needs a guest,
# root or the kernel tree; about 5 s.  Nothing is loaded into the host
# kernel: PXBPF_VMLINUX_BTF names no file, so a BPF tool that took its
# arguments stops at its BTF check (exit 1) before it loads anything, and
# every run is killed after 20 s.
# pxtest-timeout: 120
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=$top/build/tools/bin
T=${TMPDIR-/tmp}/pxconv.$$
trap 'rm -rf "$T"' 0
mkdir -p "$T"
version=$(cat "$top/tools/VERSION")
PXBPF_VMLINUX_BTF=/nonexistent/pxconv-no-btf
export PXBPF_VMLINUX_BTF

# The programs, and for each a value one of its options refuses and a
# stray argument ("-": it takes any argument, a command or pids).
progs='abba capexec football inversion labcheck mmapdemo prioladder proxysig
	ptydrive pxpostmortem renamedemo spurwake taskchange wakeplace yieldpeer
	proxytop pxchain pxdonor pxlockwait pxwakelat summarize.sh'
bad_value() {
	case $1 in
	abba) echo '-a x' ;;
	capexec) echo '-u 0 true' ;;
	football) echo '-d 1e2' ;;
	inversion) echo 'rt -n 12x' ;;
	labcheck) echo '--only nothing' ;;
	mmapdemo) echo '-d 0x10' ;;
	prioladder) echo '-P 99' ;;
	proxysig) echo '-b 5' ;;
	ptydrive) echo '-s 0x0 -- true' ;;
	pxpostmortem) echo '-e x' ;;
	renamedemo) echo '-n -1' ;;
	spurwake) echo '-c x' ;;
	taskchange) echo '-d 1e2 1' ;;
	wakeplace) echo '-o x' ;;
	yieldpeer) echo '-H 100ms' ;;
	proxytop) echo '-d 1e2' ;;
	pxchain) echo '1.5' ;;
	pxdonor) echo '-p 0' ;;
	pxlockwait) echo '--min 1e2' ;;
	pxwakelat) echo '--min 0' ;;
	summarize) echo "$T" ;;
	esac
}
stray() {
	case $1 in
	capexec | ptydrive | taskchange) echo - ;;
	inversion) echo 'rt stray' ;;
	pxpostmortem) echo 'a.dat b.dat' ;;
	proxytop | pxchain | pxdonor | pxwakelat) echo '1 1 stray' ;;
	summarize) echo "$T $T" ;;
	*) echo stray ;;
	esac
}

fail=0
ok() { echo "ok conventions/$1"; }
notok() { echo "not ok conventions/$1 - $2"; fail=1; }

# run NAME CMD...: CMD with stdin /dev/null, its stdout in $T/NAME.out,
# stderr in $T/NAME.err, exit status in $rc; a death by a signal is noted
# in $T/signals.
run() {
	n=$1
	shift
	rc=0
	timeout -s KILL 20 "$@" < /dev/null > "$T/$n.out" 2> "$T/$n.err" || rc=$?
	if [ "$rc" -gt 128 ] && [ "$rc" -lt 160 ]; then
		echo "$* -> signal $((rc - 128))" >> "$T/signals"
	fi
}

# usage_error WHAT NAME: the two lines and exit 64, or why not.
usage_error() {
	why=
	if [ "$rc" != 64 ]; then why="exit $rc, want 64"
	elif [ -s "$T/$2.out" ]; then why="output on stdout: $(head -c 100 "$T/$2.out")"
	elif [ "$(wc -l < "$T/$2.err")" != 2 ]; then why="$(wc -l < "$T/$2.err") lines on stderr, want 2"
	elif ! head -1 "$T/$2.err" | grep -q "^${p#script/*}: .\|^[a-z-]*: ."; then
		why="first line not 'prog: message'"
	elif [ "$(sed -n 2p "$T/$2.err")" != "Try '$try --help' for more information." ]; then
		why="second line not the Try line"
	fi
	if [ -z "$why" ]; then ok "$p/$1"
	else notok "$p/$1" "$why: $(head -2 "$T/$2.err" | tr '\n' '|')"
	fi
}

for p in $progs; do
	# exe: what runs; p: its name in messages; try: in the Try line (a
	# shell script names itself by the path it was run as)
	case $p in
	*.sh) exe=$top/bench/$p; try=$exe; p=${p%.sh} ;;
	*) exe=$bin/$p; try=$p ;;
	esac
	if [ ! -x "$exe" ]; then
		for c in help version bad-option bad-value stray usage-line no-crash; do
			echo "skip conventions/$p/$c - not built: no $exe (make -C tools)"
		done
		continue
	fi
	rm -f "$T/signals"

	run help "$exe" --help
	run h "$exe" -h
	if [ "$rc" = 0 ] && [ -s "$T/help.out" ] && [ ! -s "$T/help.err" ] &&
	   cmp -s "$T/help.out" "$T/h.out" && [ ! -s "$T/h.err" ] &&
	   { [ "$p" = summarize ] || { grep -q -- '-h, --help' "$T/help.out" &&
	     grep -q -- '-V, --version' "$T/help.out" && ! grep -q -- '-?' "$T/help.out"; }; }; then
		ok "$p/help"
	else
		notok "$p/help" "exit $rc, $(wc -l < "$T/help.out") lines on stdout, $(wc -c < "$T/help.err") bytes on stderr, -h the same: $(cmp -s "$T/help.out" "$T/h.out" && echo yes || echo no)"
	fi

	run version "$exe" --version
	run V "$exe" -V
	if [ "$rc" = 0 ] && [ "$(cat "$T/version.out")" = "$p (proxyexec) $version" ] &&
	   [ ! -s "$T/version.err" ] && cmp -s "$T/version.out" "$T/V.out"; then
		ok "$p/version"
	else
		notok "$p/version" "exit $rc, '$(head -c 100 "$T/version.out")', want '$p (proxyexec) $version'"
	fi

	run bad "$exe" --no-such-option
	usage_error bad-option bad
	# shellcheck disable=SC2046 # the arguments are words
	run value "$exe" $(bad_value "$p")
	usage_error bad-value value
	s=$(stray "$p")
	if [ "$s" = - ]; then
		echo "skip conventions/$p/stray - takes a command or pids as its arguments"
	else
		# shellcheck disable=SC2086
		run stray "$exe" $s
		usage_error stray stray
	fi

	# USAGE: line(s), up to the next blank line, against the option list.
	if [ "$p" = summarize ]; then
		echo "skip conventions/$p/usage-line - a script's help is its header comment"
	else
		sed -n '/^USAGE:/,/^$/p' "$T/help.out" > "$T/usage"
		grep -oE '^ +-[A-Za-z0-9]' "$T/help.out" | tr -d ' -' | sort -u > "$T/listed"
		grep -oE '(^|[][ |])-[A-Za-z0-9]' "$T/usage" | sed 's/.*-//' | sort -u > "$T/used"
		extra=$(comm -13 "$T/listed" "$T/used" | tr '\n' ' ')
		missing=$(comm -23 "$T/listed" "$T/used" | grep -v '^[hV]$' | tr '\n' ' ')
		grep -q OPTIONS "$T/usage" && missing=
		if [ ! -s "$T/usage" ]; then notok "$p/usage-line" "no USAGE: line in --help"
		elif [ -n "$extra$missing" ]; then
			notok "$p/usage-line" "${extra:+not in the option list: $extra}${missing:+ not in USAGE: $missing}"
		else ok "$p/usage-line"
		fi
	fi

	if [ -s "$T/signals" ]; then notok "$p/no-crash" "$(head -3 "$T/signals" | tr '\n' ';')"
	else ok "$p/no-crash"
	fi
done

# pxpostmortem on what is no trace.dat: one line, exit 1, no signal.
if [ -x "$bin/pxpostmortem" ]; then
	: > "$T/empty.dat"
	printf 'owner-200 [000] 1.000000: sched_switch: prev_comm=owner\n' > "$T/text.dat"
	mkdir -p "$T/dir.dat"
	cp "$bin/pxpostmortem" "$T/elf.dat"
	{ printf '\027\010\104tracing6\0'; head -c 70000 "$bin/pxpostmortem"; } > "$T/magic.dat"
	printf '\027\010\104tracing' > "$T/magiconly.dat"
	for k in empty text dir elf magic magiconly missing; do
		run pm "$bin/pxpostmortem" "$T/$k.dat"
		if [ "$rc" = 1 ] && [ ! -s "$T/pm.out" ] && [ "$(wc -l < "$T/pm.err")" = 1 ] &&
		   grep -q "^pxpostmortem: .*$T/$k.dat" "$T/pm.err"; then
			ok "pxpostmortem/input-$k"
		else
			notok "pxpostmortem/input-$k" "exit $rc, stderr: $(head -3 "$T/pm.err" | tr '\n' '|')"
		fi
	done
else
	for k in empty text dir elf magic magiconly missing; do
		echo "skip conventions/pxpostmortem/input-$k - not built (make -C tools)"
	done
fi
# The host's other shell scripts (lib/sh/cli.sh's usage): --help and -h
# on stdout, exit 0; an unknown option in two lines, exit 64; --version
# as the tools' (a skip while a script has none).  Never the kernel/
# scripts, nor those that run in the guest: only their parsing runs here,
# which ends before they do anything.
for s in bench/compare.sh bench/hackbench-pair.sh bench/overhead.sh bench/postmortem.sh \
	 bench/run.sh bench/spread.sh bench/selftest.sh tests/run.sh tests/soak.sh \
	 tests/under-load.sh guest/run.sh guest/mkinitramfs.sh; do
	exe=$top/$s p=script/$s try=$exe
	run help "$exe" --help
	run h "$exe" -h
	if [ "$rc" = 0 ] && [ -s "$T/help.out" ] && [ ! -s "$T/help.err" ] &&
	   cmp -s "$T/help.out" "$T/h.out"; then
		ok "$p/help"
	else
		notok "$p/help" "exit $rc, $(wc -l < "$T/help.out") lines on stdout, $(wc -c < "$T/help.err") bytes on stderr"
	fi
	run bad "$exe" --no-such-option
	usage_error bad-option bad
	run version "$exe" --version
	if [ "$rc" = 0 ] && grep -qx "[a-z-]* (proxyexec) $version" "$T/version.out"; then
		ok "$p/version"
	elif [ "$rc" = 64 ]; then
		echo "skip conventions/$p/version - no --version yet (lib/sh/cli.sh version())"
	else
		notok "$p/version" "exit $rc, '$(head -c 100 "$T/version.out")'"
	fi
done

# bench/summarize.sh writes summary.json with jq: a value with control
# characters, quotes and a backslash comes back as it was, a missing
# number is null, a number that is none is null; the file parses.
S=$T/results
mkdir -p "$S/off/rt"
host=$(printf 'a\001b"c\\d\te\033[31m')
{
	printf 'format=proxyexec-bench-params\nversion=1\ncreated=2026-12-06T05:41:12Z\n'
	printf 'modes=off\nscenarios=rt\nrepeat=1\ncpus=2\nclock=icount=0\n'
	printf 'host=%s\nhostload_off=1.5 oops\nqemu=QEMU "7.2"\n' "$host"
} > "$S/params.txt"
echo ok > "$S/off/result"
: > "$S/off/console.log"
rc=0
"$top/bench/summarize.sh" "$S" > "$T/sum.out" 2>&1 || rc=$?
if ! jq -e . "$S/summary.json" > /dev/null 2>&1; then
	notok summarize/json-parses "exit $rc, summary.json does not parse: $(tail -2 "$T/sum.out" | tr '\n' '|')"
else
	ok summarize/json-parses
	if [ "$(jq -r .system.host "$S/summary.json")" = "$host" ] &&
	   [ "$(jq -r .system.qemu "$S/summary.json")" = 'QEMU "7.2"' ]; then
		ok summarize/json-control-chars
	else
		notok summarize/json-control-chars "host came back as $(jq .system.host "$S/summary.json")"
	fi
	if [ "$(jq -c '[.params.duration_s, .modes[0].host_load, .results[0].median.p50]' \
		"$S/summary.json")" = '[null,[1.5,null],null]' ]; then
		ok summarize/json-missing-numbers
	else
		notok summarize/json-missing-numbers "$(jq -c '[.params.duration_s, .modes[0].host_load, .results[0].median.p50]' "$S/summary.json")"
	fi
fi
exit $fail

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Postmortem: boot the guest, record one scenario with trace-cmd until its
# break threshold trips, and tell the worst sample's story (pxpostmortem).
#
# Usage: bench/postmortem.sh [options] inversion SCENARIO [inversion args...]
#        bench/postmortem.sh [options] cyclictest USEC [LOAD-SCENARIO [args...]]
#   --kernel lean|debug  kernel flavour (default lean)
#   --cpus N             guest vCPUs (default 2)
#   --append "ARGS"      kernel command line, e.g. proxy_exec=disable or
#                        proxy_exec=enable,return=ttwu
#   --clock host|icount[=SHIFT]
#                        the guest's clock (guest/run.sh --clock; default
#                        host): icount records in virtual time, derived
#                        from instructions (2^SHIFT ns each, SHIFT 0..10,
#                        default 0), which the host's load does not
#                        enter (sleep-owner's 20 waits: 1248-1253 us); a
#                        busy guest second takes 2-4 wall seconds, ~10
#                        beside a kernel build (bench/README.md, The clock)
#   --timeout SEC        limit for the whole guest run with the host clock
#                        (default 300); icount gets 5 times as long
#   --duration SEC       cyclictest: run at most this long (default 10)
#   --out DIR            results folder (default build/postmortem/<date-time>/)
#   -h, --help           this text
#
# inversion: the lab scenario as given; add --break USEC so that the first
# acquire over USEC marks the trace and stops it (inversion exits 4).
# cyclictest: `cyclictest -b USEC --tracemark` (one SCHED_FIFO 95 thread on
# CPU 0), with `inversion LOAD-SCENARIO args -d DURATION` in the background
# when a load is given.  Recorded events: sched_proxy (all),
# sched:sched_switch, sched:sched_wakeup, sched:sched_migrate_task and the
# trace markers.
#
# Results in the folder: trace.dat, report.txt (trace-cmd report),
# story.txt (pxpostmortem trace.dat), story.json (pxpostmortem -j), workload.log,
# status (the workload's exit status), params.txt (the options: clock,
# timeout_s in wall seconds, ...), guest/ (guest/run.sh's results).
# Open the trace on the host with `trace-cmd report -i trace.dat` or
# `kernelshark trace.dat`.  Exit status: 0 story written; 1 no story (guest
# failed, workload error, unusable trace: see the message); 64 usage.
#
# Examples:
#   bench/postmortem.sh inversion sleep-owner -n 20 --break 5000
#   bench/postmortem.sh --cpus 4 inversion xcpu -c 0,1 -n 50 --break 5000
#   bench/postmortem.sh --append proxy_exec=enable,return=ttwu inversion cfs --break 30000
#   bench/postmortem.sh cyclictest 2000 rt
#   bench/postmortem.sh --clock icount inversion rt -n 50 --break 1100
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)

cli_prog=postmortem
# shellcheck source=lib/sh/cli.sh
. "$top/lib/sh/cli.sh"
events='-e sched_proxy -e sched:sched_switch -e sched:sched_wakeup -e sched:sched_migrate_task'

# In the guest (cwd = the results folder): record, report, tell.
if [ "${1-}" = --guest ]; then
	shift
	dur=$1; shift
	# trace-cmd record does not pass on the command's exit status.
	case $1 in
	inversion) set -- sh -c '"$@"; echo $? > status' sh "$@" ;;
	cyclictest)
		# The load runs in the background of the recorded command.
		us=$2; shift 2
		load='lp='
		[ $# -gt 0 ] && load="inversion $* -d $dur -q -o load.json & lp=\$!"
		set -- sh -c "$load; cyclictest -m -q -p 95 -t 1 -a 0 -i 1000 -D $dur \
			-b $us --tracemark; echo \$? > status; [ -z \"\$lp\" ] || kill \$lp; wait" ;;
	esac
	# Record on the guest's tmpfs and copy the files to the share (9p)
	# after: a write to the host while the workload runs moves guest time
	# on under --clock icount (bench/README.md, The warp guard).
	res=$(pwd)
	mkdir -p /tmp/postmortem && cd /tmp/postmortem || die "cannot make /tmp/postmortem"
	set +e
	# shellcheck disable=SC2086 # $events is a list
	trace-cmd record -q -b 8192 -o trace.dat $events "$@" > workload.log 2>&1 ||
		echo "postmortem: trace-cmd record failed with status $?" >> workload.log
	set -e
	for f in ./*; do cp "$f" "$res/" || die "cannot copy $f to $res"; done
	cd "$res"
	[ -s status ] || echo 1 > status
	cat workload.log
	echo "postmortem: workload exit status $(cat status)"
	trace-cmd report -i trace.dat > report.txt 2> report.err ||
		die "trace-cmd report failed: $(tail -3 report.err)"
	# 3: no story (the reason is in story.err)
	pxpostmortem trace.dat > story.txt 2> story.err || { cat story.err; exit 3; }
	pxpostmortem -j trace.dat > story.json
	exit 0
fi

flavour=lean cpus=2 append='' timeout=300 dur=10 out='' clock=host
while test $# -gt 0; do
	case $1 in
	--kernel) checkarg "$1" $# "${2-}" '^(lean|debug)$'; flavour=$2; shift ;;
	--cpus) checkarg "$1" $# "${2-}" '^[1-9][0-9]*$'; cpus=$2; shift ;;
	--append) checkarg "$1" $# "${2-}" '^[^#]*$'; append=$2; shift ;;
	--clock) checkarg "$1" $# "${2-}" "$clock_re" "$clock_what"; clock=$2; shift ;;
	--timeout) checkarg "$1" $# "${2-}" '^[1-9][0-9]*$'; timeout=$2; shift ;;
	--duration) checkarg "$1" $# "${2-}" '^[1-9][0-9]*$'; dur=$2; shift ;;
	--out) checkarg "$1" $# "${2-}" '.'; out=$2; shift ;;
	-h|--help) usage ;;
	-*) usage "unknown option '$1'" ;;
	*) break ;;
	esac
	shift
done
[ $# -gt 0 ] || usage "no scenario"
case $1 in
inversion)
	[ $# -ge 2 ] || usage "inversion needs a scenario"
	echo "$2" | grep -qxE 'cfs|rt|dl|chain|xcpu|sleep-owner|football' ||
		usage "unknown inversion scenario '$2'"
	echo " $* " | grep -q ' --break ' ||
		echo "postmortem: no --break: the story will be the longest wait" >&2 ;;
cyclictest)
	checkarg cyclictest $# "${2-}" '^[1-9][0-9]*$' 'a latency in microseconds'
	[ $# -lt 3 ] || echo "$3" | grep -qxE 'cfs|rt|dl|chain|xcpu|sleep-owner|football' ||
		usage "unknown load scenario '$3'" ;;
*) usage "unknown scenario '$1' (inversion or cyclictest)" ;;
esac

command -v jq > /dev/null || die "jq not found: it checks story.json (make deps)"
[ -n "$out" ] || out=$top/build/postmortem/$(date +%Y%m%d-%H%M%S)
mkdir -p "$out" || die "cannot create $out"
out=$(cd "$out" && pwd)
[ -z "$(ls -A "$out")" ] || die "$out is not empty"
clock=$(clock_norm "$clock")
wall_timeout=$(clock_timeout "$clock" "$timeout")
{
	echo "clock=$clock"
	echo "timeout_s=$wall_timeout"
	echo "kernel=$flavour"
	echo "cpus=$cpus"
	echo "append=$append"
	echo "duration_s=$dur"
	echo "workload=$*"
} > "$out/params.txt"
[ "$clock" = host ] ||
	echo "postmortem: clock $clock: virtual time, the story's times count instructions; guest timeout $wall_timeout s" >&2

set +e
"$top/guest/run.sh" --kernel "$flavour" --cpus "$cpus" --clock "$clock" --append "$append" \
	--timeout "$wall_timeout" --share "$out" --out "$out/guest" \
	-- sh /px/repo/bench/postmortem.sh --guest "$dur" "$@"
rc=$?
set -e
[ "$rc" != 3 ] || die "no story: $(cat "$out/story.err") (trace in $out)"
[ "$rc" = 0 ] || die "guest run failed with status $rc (see $out/guest/)"
[ -s "$out/story.txt" ] || die "no story (see $out/guest/output.log)"
jq empty "$out/story.json" || die "$out/story.json (pxpostmortem -j) does not parse"
case $1:$(cat "$out/status") in
inversion:4) ;;
inversion:0) echo "postmortem: the break did not trip: the story is of the longest wait" >&2 ;;
*:0) ;;
*) echo "postmortem: warning: the workload exited with status $(cat "$out/status")" >&2 ;;
esac
echo
cat "$out/story.txt"
echo
echo "postmortem: clock $clock; results in $out (trace.dat, report.txt, story.txt, story.json, params.txt)"
echo "postmortem: open with: trace-cmd report -i $out/trace.dat | less; kernelshark $out/trace.dat"

# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh disable=SC2034,SC2154 # cli_prog is the caller's; clock_* are for it
# Command-line helpers for the repository's POSIX sh scripts: usage, errors,
# option values, the --clock option, a median.  Sourced, never run:
#
#	cli_prog=bench			# the prefix of every message
#	. "$top/lib/sh/cli.sh"
#
# The script's help is its header comment from the "# Usage:" line to the
# end of the comment block (the first line that is not a comment), so the
# text a reader sees at the top of the file is the text -h prints.

# usage [MESSAGE...]: the conventions of GNU tools (issue 33).  Without a
# MESSAGE (-h, --help): the help on stdout, exit 0.  With one (a usage
# error): "PROG: MESSAGE" and "Try 'SCRIPT --help' for more information."
# on stderr, exit 64 (EX_USAGE, as the BPF tools); runtime errors are die's
# exit 1.
usage() {
	if [ $# -eq 0 ]; then
		sed -n '/^# Usage:/,/^[^#]/p' "$0" | sed -e '/^[^#]/d' -e 's/^# \{0,1\}//'
		exit 0
	fi
	echo "$cli_prog: $*" >&2
	echo "Try '$0 --help' for more information." >&2
	exit 64
}

# version: "PROG (proxyexec) X.Y" on stdout, X.Y from tools/VERSION (the
# one version of every tool and script, tools/README.md Conventions);
# exit 0.  Every script that sources this file answers --version and -V as
# its first argument (below), before its own parsing.
version() {
	echo "$cli_prog (proxyexec) $(cat "$top/tools/VERSION" 2>/dev/null || echo unknown)"
	exit 0
}

# die MESSAGE...: "PROG: MESSAGE" on stderr; exit 1.
die() {
	echo "$cli_prog: $*" >&2
	exit 1
}

# checkarg OPTION NARGS VALUE ERE [WHAT]: the value of OPTION, the next
# argument, must be there (NARGS, the caller's $# at OPTION, is 2 or more;
# another --option is no value) and match the extended regex ERE, whole
# (anchor it), on one line; else a usage error naming WHAT is wanted.  Call it as
#	--cpus) checkarg "$1" $# "${2-}" '^[1-9][0-9]*$'; cpus=$2; shift ;;
checkarg() {
	[ "$2" -ge 2 ] || usage "$1 needs an argument${5:+ ($5)}"
	case $3 in
	--*) usage "$1 needs an argument${5:+ ($5)}, not the option '$3'" ;;
	*"
"*) usage "$1: bad argument '$3' (more than one line)" ;;
	esac
	printf '%s\n' "$3" | grep -qE -- "$4" || usage "$1: bad argument '$3'${5:+ (want $5)}"
}

# median: the median of the numbers on stdin, one a line (the mean of the
# middle two for an even count); nothing for none.
median() {
	sort -n | awk '{ a[NR] = $1 }
		END { if (NR) print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

# The guest's clock (guest/run.sh --clock, bench/README.md "The clock"):
# host, or icount[=SHIFT] for QEMU's -icount shift=SHIFT,sleep=off, one
# instruction 2^SHIFT ns of guest time, SHIFT 0..10.  clock_one matches one
# clock (for lists), clock_re a whole value, clock_what says it in words.
clock_one='host|icount(=([0-9]|10))?'
clock_re="^($clock_one)\$"
clock_what='host or icount[=SHIFT], SHIFT 0..10'

# clock_norm CLOCK: CLOCK with icount's shift spelled out: icount alone is
# icount=0, one instruction one nanosecond.
clock_norm() {
	if [ "$1" = icount ]; then echo icount=0; else echo "$1"; fi
}

# clock_plan CLOCK: set clock_wall, the wall seconds a busy guest second is
# planned at, and clock_slack, how many times its plan a guest may run
# before it counts as hung.  icount: 1.8-3.5 wall s per guest s on an
# otherwise quiet host, ~10 beside a kernel build (wall time follows the
# host's load, guest time does not), so more slack.
clock_plan() {
	case $1 in
	host) clock_wall=1 clock_slack=3 ;;
	*) clock_wall=3 clock_slack=5 ;;
	esac
}

# clock_timeout CLOCK SEC: the wall seconds guest/run.sh --timeout needs on
# CLOCK for a run that SEC covers with the host clock (icount: 5 times,
# the ratio of the two plans' wall x slack).
clock_timeout() {
	clock_plan host
	set -- "$1" "$2" $((clock_wall * clock_slack))
	clock_plan "$1"
	echo $(($2 * clock_wall * clock_slack / $3))
}

# Sourced with the caller's arguments in "$@": --version or -V first.
case ${1-} in --version|-V) version ;; esac

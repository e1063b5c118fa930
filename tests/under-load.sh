#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Run a command while plain busy loops keep every host CPU busy (issue 31:
# the checks must pass on a busy machine, not only on a quiet one).
#
# Usage: tests/under-load.sh [--loops N] -- COMMAND [ARGS...]
#   --loops N   busy loops (default: the host's CPUs, nproc)
#   -h, --help  this text
#
# Starts N loops `while :; do :; done` at nice 0 for the whole run of
# COMMAND, kills them when it ends (also on INT and TERM; COMMAND runs in
# the foreground, so a TERM sent to this script alone takes effect when
# COMMAND returns; a watchdog kills the loops if this script dies without
# its trap) and exits with COMMAND's status.  On stderr: the load's pid count at the start and the
# run's wall time at the end.
#
# Examples:
#   tests/under-load.sh -- make check
#   tests/under-load.sh --loops 3 -- bench/run.sh --quick
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cli_prog=under-load
# shellcheck source=lib/sh/cli.sh
. "$top/lib/sh/cli.sh"
loops=$(nproc)
while test $# -gt 0; do
	case $1 in
	--loops) checkarg "$1" $# "${2-}" '^[1-9][0-9]*$' 'a number of loops'; loops=$2; shift ;;
	--) shift; break ;;
	-h|--help) usage ;;
	-*) usage "unknown option '$1'" ;;
	*) usage "the command goes after --: tests/under-load.sh -- $*" ;;
	esac
	shift
done
[ $# -gt 0 ] || usage "no command (give -- COMMAND)"

pids='' wd=''
# shellcheck disable=SC2086 # pids, split on purpose
stop() { [ -z "$pids$wd" ] || kill $pids $wd 2> /dev/null || true; pids='' wd=''; }
trap stop EXIT
trap 'stop; exit 130' INT
trap 'stop; exit 143' TERM
i=0
while [ $i -lt "$loops" ]; do
	i=$((i + 1))
	sh -c 'while :; do :; done' > /dev/null 2>&1 < /dev/null &
	pids="$pids $!"
done
# The loops run at nice 0 whatever our own nice is (root may lower it).
for p in $pids; do
	renice -n 0 -p "$p" > /dev/null 2>&1 || true
	[ "$(ps -o ni= -p "$p" | tr -d ' ')" = 0 ] || die "busy loop $p is not at nice 0 (ours: $(ps -o ni= -p $$ | tr -d ' '); lowering it needs root)"
done
# If this script is killed (-9) the trap cannot run: the loops follow it.
# shellcheck disable=SC2086 # pids, split on purpose
( while kill -0 $$ 2> /dev/null; do sleep 1; done; kill $pids 2> /dev/null ) > /dev/null 2>&1 &
wd=$!
n=$(echo "$pids" | wc -w)
echo "under-load: $n busy loops at nice 0 on $(nproc) CPUs (pids$pids): $*" >&2
start=$(date +%s)
rc=0
"$@" || rc=$?
stop
echo "under-load: $* exited $rc after $(($(date +%s) - start)) s wall time under $loops busy loops" >&2
exit "$rc"

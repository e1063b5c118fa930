#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Host check: the series credits the authors of what it ports.  A patch
# whose note says "[proxyexec: ported to Linux 6.12 from v6 NN/20 by NAME
# <EMAIL>]" carries "Co-developed-by: NAME <EMAIL>" followed by that
# author's "Signed-off-by:" above the note, and our own sign-off last; a
# patch without such a note credits nobody else.  kernel/README.md, Credit.
#
#   ok credit/ported    every ported patch credits its author (N patches)
#   ok credit/own       our own patches carry only our identity (N patches)
#   not ok credit/...   the first patch that does not, and why
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
series=$top/kernel/series
ours='proxyexec <proxyexec@localhost>'
ported=0 own=0 bad_ported='' bad_own=''
for p in $(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$series"); do
	f=$top/kernel/patches/$p
	# The commit message: from the Subject to the "---" before the diff.
	msg=$(sed -n '/^Subject:/,/^---$/p' "$f")
	from=$(sed -n 's/^From: //p' "$f" | head -1)
	last=$(printf '%s\n' "$msg" | grep '^Signed-off-by:' | tail -1 | sed 's/^Signed-off-by: //')
	note=$(printf '%s\n' "$msg" | awk '/^\[proxyexec: ported to Linux 6\.12 from v6 [0-9]+\/20 by /{on=1} on{printf "%s ", $0} on && /[]>]/{exit}')
	if [ -n "$note" ]; then
		ported=$((ported + 1))
		who=$(printf '%s\n' "$note" | sed -n 's/.* from v6 [0-9]*\/20 by \([^<]*\)<\([^>]*\)>.*/\1<\2>/p' | tr -s ' ')
		cdb=$(printf '%s\n' "$msg" | grep -A1 '^Co-developed-by:' | tr '\n' '|')
		want="Co-developed-by: $who|Signed-off-by: $who|"
		if [ -z "$who" ]; then
			bad_ported=${bad_ported:-"$p: the note names no author"}
		elif [ "$cdb" != "$want" ]; then
			bad_ported=${bad_ported:-"$p: want '$want', got '$cdb'"}
		elif [ "$from" != "$ours" ] || [ "$last" != "$ours" ]; then
			bad_ported=${bad_ported:-"$p: From '$from', last sign-off '$last'"}
		fi
	else
		own=$((own + 1))
		others=$(printf '%s\n' "$msg" | grep -E '^(Signed-off-by|Co-developed-by):' | grep -vF "$ours")
		if [ -n "$others" ] || [ "$from" != "$ours" ] || [ "$last" != "$ours" ]; then
			bad_own=${bad_own:-"$p: From '$from', trailers: $(printf '%s' "$others" | tr '\n' ' ')"}
		fi
	fi
done
rc=0
if [ -n "$bad_ported" ]; then echo "not ok credit/ported - $bad_ported"; rc=1
elif [ "$ported" = 0 ]; then echo "not ok credit/ported - no ported patch found"; rc=1
else echo "ok credit/ported - every ported patch credits its author ($ported patches)"; fi
if [ -n "$bad_own" ]; then echo "not ok credit/own - $bad_own"; rc=1
else echo "ok credit/own - our own patches carry only our identity ($own patches)"; fi
exit $rc

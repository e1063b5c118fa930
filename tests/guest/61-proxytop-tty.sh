#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# proxytop on a terminal, driven by ptydrive at 80x24 with TERM=linux (the
# guest console's) while a depth-3 chain inversion runs: no line longer
# than the window (ptydrive's screen model counts wraps), the header on
# top; after a resize the header is back at once (the model clears the
# screen on a resize, proxytop -d 3 would only redraw 3 s later); the
# terminal restored (canonical mode and echo, cursor visible, alternate
# screen left) after q, Ctrl-C, SIGHUP, Ctrl-\ (SIGQUIT), SIGTERM and
# Ctrl-Z (restored while stopped, the keys work again after fg); with
# TERM=xterm the alternate screen is used and left; h, R, -d 0.5 and -T;
# -b keeps its format and -j carries every figure of the header.
# pxtest-boot: lean
# pxtest-cpus: 4
# pxtest-timeout: 300
set -u
. ./lib/pxtest.sh
T=/tmp/ptoptty.$$
mkdir -p "$T"
wl=
cleanup() {
	[ -n "$wl" ] && kill "$wl" 2>/dev/null && wait "$wl" 2>/dev/null
	rm -rf "$T"
}
trap cleanup 0
# Diagnostics for the log, never parsed.
say() { echo "# $*"; }
PT=proxytop
N=proxytop-tty

# The terminfo entry of the console's TERM, from the image.
export TERM=linux
if [ -f /lib/terminfo/l/linux ] && [ -f /lib/terminfo/x/xterm ]; then
	ok "$N/terminfo-in-image"
else
	notok "$N/terminfo-in-image" "no terminfo for linux or xterm in /lib/terminfo (guest/mkinitramfs.sh)"
	finish
fi

inversion chain -D 3 -d 200s -q > "$T/inv.out" 2>&1 &
wl=$!

# drive NAME PTYDRIVE-ARGS... -- proxytop ARGS: output in $T/NAME.{out,err,scr}, status $rc.
drive() {
	n=$1; shift
	rc=0
	ptydrive -S "$T/$n.scr" "$@" > "$T/$n.out" 2> "$T/$n.err" || rc=$?
	say "$n: rc $rc: $(tr '\n' ' ' < "$T/$n.err" | tail -c 400)"
}
# snap FILE K: the K-th screen snapshot of FILE.
snap() { awk -v k="$2" '/^--- screen / { i++; next } i == k' "$1"; }
# restored NAME: ptydrive saw the terminal restored at the end.
restored() { grep -q '^ptydrive: .*, terminal restored$' "$T/$1.err"; }

# --- fit: three refreshes and two views at 80x24.
drive fit -s 80x24 -w 'view: owners' -D 2500ms -i 1200ms -k '\[snap]d\[snap]g\[snap]q' -t 60s -- $PT -d 1
# Wraps up to the last screen before q (the totals printed after it are plain text).
w=$(sed -n 's/^--- screen 3 (snap) 80x24 .*: wraps \([0-9]*\),.*/\1/p' "$T/fit.scr")
long=$(awk '!/^--- screen / && length($0) > 80' "$T/fit.scr" | head -1)
snap "$T/fit.scr" 1 | sed 's/^/# | /'
top=$(for k in 1 2 3; do snap "$T/fit.scr" $k | head -1; done | grep -vc '^proxytop - ')
if [ $rc -ne 0 ]; then
	notok "$N/fit" "exit $rc: $(tail -3 "$T/fit.err" | tr '\n' ' ')"
elif [ "${w:-x}" != 0 ] || [ -n "$long" ]; then
	notok "$N/fit" "${w:-?} lines wrapped at 80 columns (lines longer than the window): $(snap "$T/fit.scr" 3 | head -8 | tr '\n' '|')"
elif [ "$top" != 0 ]; then
	notok "$N/fit" "header not on the first line of $top of 3 screens: $(snap "$T/fit.scr" 3 | head -3 | tr '\n' '|')"
elif ! snap "$T/fit.scr" 1 | sed -n 2p | grep -q '^proxy picks/s: [0-9.]*  donated CPU: [0-9.]*%'; then
	notok "$N/fit" "no figures under the header: $(snap "$T/fit.scr" 1 | head -3 | tr '\n' '|')"
else
	ok "$N/fit"
fi

# --- resize: 120x40, then 80x24; the screen 600 ms later (next refresh 3 s on).
drive resize -s 120x40 -w 'view: owners' -D 3500ms -i 600ms -k '\[size=80x24]\[snap]q' -t 60s -- $PT -d 3
s=$(snap "$T/resize.scr" 1)
if [ $rc -ne 0 ]; then
	notok "$N/resize" "exit $rc: $(tail -3 "$T/resize.err" | tr '\n' ' ')"
elif ! echo "$s" | head -1 | grep -q '^proxytop - '; then
	notok "$N/resize" "no header right after the resize: $(echo "$s" | head -3 | tr '\n' '|')"
elif ! grep -q '^--- screen 1 (snap) 80x24 .*: wraps 0,' "$T/resize.scr"; then
	notok "$N/resize" "lines wrapped after the resize: $(grep '^--- screen 1' "$T/resize.scr")"
else
	ok "$N/resize"
fi

# --- the terminal restored after each way out.
for way in q:q ctrl-c:'\cC' sighup:'\[sig=HUP]' sigquit:'\c\\' sigterm:'\[sig=TERM]'; do
	name=${way%%:*}
	drive "$name" -s 80x24 -w 'view: owners' -D 1500ms -k "${way#*:}" -t 30s -- $PT -d 1
	if [ $rc -eq 124 ]; then
		notok "$N/restore-$name" "still running 30 s on"
	elif ! restored "$name"; then
		notok "$N/restore-$name" "$(tail -2 "$T/$name.err" | tr '\n' ' ')"
	else
		ok "$N/restore-$name"
	fi
done
if ! grep -q '^proxytop: totals since start' "$T/q.out"; then
	notok "$N/q-totals" "no totals after q"
else
	ok "$N/q-totals"
fi

# --- Ctrl-Z: restored while stopped; after fg the screen is back and q works.
drive tstp -s 80x24 -w 'view: owners' -D 1500ms -i 1500ms -k '\cZ\[fg]\[snap]q' -t 30s -- $PT -d 1
if ! grep -q '^ptydrive: stopped by signal 20, terminal restored' "$T/tstp.err"; then
	notok "$N/ctrl-z" "not stopped, or the terminal left raw: $(head -2 "$T/tstp.err" | tr '\n' ' ')"
elif ! snap "$T/tstp.scr" 2 | head -1 | grep -q '^proxytop - '; then
	notok "$N/ctrl-z" "no screen after fg: $(snap "$T/tstp.scr" 2 | head -3 | tr '\n' '|')"
elif [ $rc -ne 0 ] || ! restored tstp; then
	notok "$N/ctrl-z" "q after fg did not end it cleanly (exit $rc): $(tail -2 "$T/tstp.err" | tr '\n' ' ')"
else
	ok "$N/ctrl-z"
fi

# --- TERM=xterm: the alternate screen, left on q.
if [ -f /lib/terminfo/x/xterm ]; then
	export TERM=xterm
	drive xterm -s 80x24 -w 'view: owners' -D 1500ms -k 'q' -t 30s -- $PT -d 1
	export TERM=linux
	if [ $rc -ne 0 ] || ! restored xterm; then
		notok "$N/alt-screen" "exit $rc: $(tail -2 "$T/xterm.err" | tr '\n' ' ')"
	elif ! grep -q 'alternate screen used and left' "$T/xterm.err"; then
		notok "$N/alt-screen" "$(tail -1 "$T/xterm.err")"
	else
		ok "$N/alt-screen"
	fi
else
	skip "$N/alt-screen" "no terminfo entry for xterm"
fi

# --- keys and options of the new view: R reverse, h help, -d 0.5, -T.
drive keys -s 80x24 -w 'view: owners' -D 2s -i 1s -k 'R\[snap]h\[snap]x\[snap]q' -t 30s -- $PT -d 0.5 -T
h1=$(snap "$T/keys.scr" 1 | head -2 | tr '\n' ' ')
if [ $rc -ne 0 ]; then
	notok "$N/keys" "exit $rc: $(tail -3 "$T/keys.err" | tr '\n' ' ')"
elif ! echo "$h1" | grep -q '^proxytop - 20[0-9-]* [0-9:]*  interval 0\.[4-9]s  view: owners[ ]*sort: time (reversed) '; then
	notok "$N/keys" "header after R with -d 0.5 -T: '$h1'"
elif ! snap "$T/keys.scr" 2 | grep -q '^proxytop - keys'; then
	notok "$N/keys" "h showed no help: $(snap "$T/keys.scr" 2 | head -2 | tr '\n' '|')"
elif ! snap "$T/keys.scr" 3 | head -1 | grep -q '^proxytop - 20'; then
	notok "$N/keys" "a key did not leave the help"
else
	ok "$N/keys"
fi

# --- batch: the historic format, line by line.
rc=0
$PT -b -n 2 -d 1 > "$T/b.out" 2> "$T/b.err" || rc=$?
bad=$(awk '
	/^proxytop - [0-9][0-9]:[0-9][0-9]:[0-9][0-9]  interval [0-9.]+s  view: owners  sort: time$/ { s = 1; h++; next }
	s == 1 && /^proxy picks\/s: [0-9.]+  migrations\/s: [0-9.]+  returns\/s: [0-9.]+  sleeping-owner enqueues\/s: [0-9.]+  donated CPU: [0-9.]+%$/ { s = 2; next }
	s == 2 && /^aborts\/s: [0-9.]+  activations\/s: [0-9.]+  handoffs\/s: [0-9.]+ to donor, [0-9.]+ to top waiter$/ { s = 3; next }
	s == 3 && /^\(/ { next }
	s == 3 && /^$/ { s = 4; next }
	s == 4 && $0 == "    PID COMM             CGROUP                 DON_ms/s DONORS  PICKS/s MAXD   MIGR  TOP-DONOR" { s = 5; next }
	s == 5 && (/^ *[0-9]+ / || /^\(no proxy activity/) { next }
	s == 5 && /^$/ { s = 0; next }
	{ print NR ": " $0; exit }
	END { if (h != 2) print "headers: " h }' "$T/b.out")
if [ $rc -ne 0 ] || [ -n "$bad" ]; then
	notok "$N/batch-format" "exit $rc: $bad"
else
	ok "$N/batch-format"
fi

# --- JSON: every figure of the header.
rc=0
$PT -j -n 1 -d 1 > "$T/j.out" 2> "$T/j.err" || rc=$?
miss=$(for k in picks_per_s migrations_per_s returns_per_s enqueue_sleeping_per_s \
		donated_cpu_pct aborts_per_s activations_per_s handoffs_to_donor_per_s \
		handoffs_to_top_waiter_per_s lost_pairs evicted_pairs evicted_pairs_total \
		interval_s view sort filtered time; do
	jq -e "has(\"$k\")" "$T/j.out" > /dev/null 2>&1 || echo "$k"
done)
if [ $rc -ne 0 ]; then
	notok "$N/json-header" "exit $rc: $(head -2 "$T/j.err")"
elif [ -n "$miss" ]; then
	notok "$N/json-header" "missing: $(echo $miss)"
else
	ok "$N/json-header"
fi

finish

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
# -b keeps its format (-T adds the date) and -j carries every figure of
# the header; with --max-pairs 2 idle pairs are evicted and shown; the
# handoffs of each kind (CO-RE enum values) are counted at least as often
# as a trace-cmd recording inside proxytop's window names them.
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
	rc=0 t0=$(cut -d' ' -f1 /proc/uptime)
	ptydrive -S "$T/$n.scr" "$@" > "$T/$n.out" 2> "$T/$n.err" || rc=$?
	say "$n: rc $rc after $(awk -v t="$t0" '{ printf "%.1f", $1 - t }' /proc/uptime) s:" \
		"$(tr '\n' ' ' < "$T/$n.err" | tail -c 400)"
}
# snap FILE K: the K-th screen snapshot of FILE.
snap() { awk -v k="$2" '/^--- screen / { i++; next } i == k' "$1"; }
# restored NAME: ptydrive saw the terminal restored at the end.
restored() { grep -q '^ptydrive: .*, terminal restored$' "$T/$1.err"; }

# --- fit: three refreshes and two views at 80x24.
drive fit -s 80x24 -w 'view: owners' -D 1200ms -i 600ms -k '\[snap]d\[snap]g\[snap]q' -t 60s -- $PT -d 0.5
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
drive resize -s 120x40 -w 'view: owners' -D 500ms -i 600ms -k '\[size=80x24]\[snap]q' -t 60s -- $PT -d 3
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
	drive "$name" -s 80x24 -w 'view: owners' -D 300ms -k "${way#*:}" -t 30s -- $PT -d 1
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
drive tstp -s 80x24 -w 'view: owners' -D 300ms -i 800ms -k '\cZ\[fg]\[snap]q' -t 30s -- $PT -d 0.5
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
	drive xterm -s 80x24 -w 'view: owners' -D 300ms -k 'q' -t 30s -- $PT -d 1
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
drive keys -s 80x24 -w 'view: owners' -D 1s -i 700ms -k 'R\[snap]h\[snap]x\[snap]q' -t 30s -- $PT -d 0.5 -T
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
# (One jq run for all keys: jq takes a quarter of a second to start here.)
miss=$(jq -rs 'last as $o | ["picks_per_s", "migrations_per_s", "returns_per_s",
	"enqueue_sleeping_per_s", "donated_cpu_pct", "aborts_per_s", "activations_per_s",
	"handoffs_to_donor_per_s", "handoffs_to_top_waiter_per_s", "lost_pairs",
	"evicted_pairs", "evicted_pairs_total", "interval_s", "view", "sort", "filtered",
	"time"][] | . as $k | select(($o | type) != "object" or ($o | has($k) | not))' "$T/j.out" 2>&1 ||
	echo "(no JSON object)")
if [ $rc -ne 0 ]; then
	notok "$N/json-header" "exit $rc: $(head -2 "$T/j.err")"
elif [ -n "$miss" ]; then
	notok "$N/json-header" "missing: $(echo $miss)"
else
	ok "$N/json-header"
fi

# --- -b -T: the date in every batch header.  --max-pairs 2: the chain's
# donor/owner pairs (the waiter and holders 0 and 1 on the tail owner,
# then the links as the chain unwinds) do not fit in two; the least
# recently active are evicted, and the header says how many.
rc=0
$PT -b -T -n 3 -d 1 --max-pairs 2 > "$T/bt.out" 2> "$T/bt.err" || rc=$?
dated=$(grep -c '^proxytop - 20[0-9][0-9]-[0-1][0-9]-[0-3][0-9] [0-2][0-9]:[0-5][0-9]:[0-6][0-9]  interval [0-9.]*s  view: owners  sort: time$' "$T/bt.out")
if [ $rc -ne 0 ]; then
	notok "$N/batch-time" "exit $rc: $(head -2 "$T/bt.err" | tr '\n' ' ')"
elif [ "$dated" -ne 3 ]; then
	notok "$N/batch-time" "$dated of 3 headers with the date: $(grep '^proxytop - ' "$T/bt.out" | head -1)"
else
	ok "$N/batch-time"
fi
ev=$(grep -c '^([0-9]* idle pairs evicted from the full map, [0-9]* since start)$' "$T/bt.out")
say "-b -T --max-pairs 2: $ev of 3 refreshes with evictions"
if [ $rc -ne 0 ] || [ "$ev" -eq 0 ]; then
	notok "$N/evicted" "no '(N idle pairs evicted ...)' line in 3 refreshes with --max-pairs 2 (exit $rc)"
else
	ok "$N/evicted"
fi

# --- handoff kinds: proxytop counts them by the running kernel's enum
# values (CO-RE).  Over a window that contains a 1-s trace-cmd recording
# of sched_proxy_handoff (the kernel names the kind), proxytop must count
# at least as many handoffs of each kind as the recording shows.
# handoffs_vs_trace JSON COUNTS: proxytop's -j lines against "N kind=NAME"
# lines; prints "ok" or what disagrees.
handoffs_vs_trace() {
	jq -rs --rawfile t "$2" '
	($t | [scan("([0-9]+) kind=([a-z_]+)") | { (.[1]): (.[0] | tonumber) }] | add // {}) as $k |
	{ donor: (map(.handoffs_to_donor_per_s * .interval_s) | add // 0 | round),
	  top_waiter: (map(.handoffs_to_top_waiter_per_s * .interval_s) | add // 0 | round) } as $p |
	if ($k | length) == 0 then "no sched_proxy_handoff in the trace"
	elif ($k | keys - ["donor", "top_waiter"] | length) > 0 then "kinds proxytop does not know: \($k | keys | join(" "))"
	else ([$k | to_entries[] | select(.value > $p[.key]) |
		"\(.key): proxytop \($p[.key]), the trace \(.value)"] | first) // "ok"
	end' "$1" 2>&1 || echo "cannot compare $1 with $2"
}
rc=0
$PT -j -d 1 > "$T/h.out" 2> "$T/h.err" &
hp=$!
i=0
while [ $i -lt 300 ] && [ ! -s "$T/h.out" ] && kill -0 $hp 2>/dev/null; do
	usleep 100000
	i=$((i + 1))
done
trace-cmd record -q -e sched_proxy:sched_proxy_handoff -o "$T/h.dat" sleep 1 > "$T/h.rec" 2>&1
kill -INT $hp 2>/dev/null
wait $hp || rc=$?
trace-cmd report -i "$T/h.dat" 2>/dev/null | grep -o 'kind=[a-z_]*' | sort | uniq -c > "$T/h.trace"
say "handoffs in the trace: $(tr '\n' ' ' < "$T/h.trace"); proxytop: $(jq -rs '"to donor \(map(.handoffs_to_donor_per_s * .interval_s) | add), to top waiter \(map(.handoffs_to_top_waiter_per_s * .interval_s) | add) in \(map(.interval_s) | add) s"' "$T/h.out" 2>&1)"
bad=$(handoffs_vs_trace "$T/h.out" "$T/h.trace")
if [ $rc -ne 0 ]; then
	notok "$N/handoff-kinds" "proxytop exit $rc: $(head -2 "$T/h.err" | tr '\n' ' ')"
elif [ "$bad" != ok ]; then
	notok "$N/handoff-kinds" "$bad"
else
	ok "$N/handoff-kinds"
fi
# The comparison tells a kind that was not counted (what a wrong enum
# value does: the kind matches neither) from a right count.
jq -c '.handoffs_to_donor_per_s = 0 | .handoffs_to_top_waiter_per_s = 0' "$T/h.out" > "$T/h0.out" 2>/dev/null
bad0=$(handoffs_vs_trace "$T/h0.out" "$T/h.trace")
if [ "$bad" = ok ] && [ "$bad0" != ok ]; then
	ok "$N/handoff-kinds-rejects"
else
	notok "$N/handoff-kinds-rejects" "with no handoff counted: '$bad0' (right counts: '$bad')"
fi

finish

# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh disable=SC2154 # top is the caller's
# Kernel badness on a guest's console, as rcutorture's console-badness.sh:
# the lines that match tests/console-badness.txt and not
# tests/console-allow.txt (benign lines that look bad).  Sourced, never run;
# the caller sets top, the repository:
#
#	. "$top/lib/sh/console.sh"
#	console_patterns "$res"				# once per results folder
#	console_badness "$dir/console.log" "$res" > "$dir/badness"
#
# A test that provokes a hung-task report on purpose (37-abba) writes
# "pxtest: expect hung_task begin" and "... end" to /dev/kmsg around it:
# in between, that report's own lines are not badness (the test checks
# them), nor its frames (on a lockdep kernel the unreliable ones may
# name lockdep_*: "  ? lockdep_hardirqs_on+0xdb/0x104"); anything else
# still is.  A backtrace asked for on purpose (the
# soak's "sysrq l" and "sysrq w" of a stuck run) goes between
# "pxtest: expect backtraces begin" and "... end": its "Call Trace:" lines
# and its frames ("  ? lockdep_hardirqs_on_prepare+0x378/0x378" matches
# the pattern "lockdep") are not badness there, a report's own lines
# (WARNING, BUG...) still are.

# console_patterns DIR: the two pattern lists, comments and blank lines
# dropped, as DIR/badness-patterns and DIR/allow.
console_patterns() {
	sed -e '/^#/d' -e '/^[[:space:]]*$/d' "$top/tests/console-badness.txt" > "$1/badness-patterns" &&
		sed -e '/^#/d' -e '/^[[:space:]]*$/d' "$top/tests/console-allow.txt" > "$1/allow"
}

# console_badness CONSOLE DIR: CONSOLE's bad lines on stdout, with DIR's
# pattern lists (console_patterns); none is not an error.
console_badness() {
	awk '/pxtest: expect hung_task begin/ { w = 1; next } /pxtest: expect hung_task end/ { w = 0; next }
		/pxtest: expect backtraces begin/ { b = 1; next } /pxtest: expect backtraces end/ { b = 0; next }
		w && /blocked for more than|hung_task_timeout_secs/ { next }
		(w || b) && (/Call Trace:/ || /^\[[ 0-9.]+\]  (\? )?[A-Za-z0-9_.]+\+0x[0-9a-f]+\/0x[0-9a-f]+/) { next }
		{ print }' "$1" |
		grep -Ef "$2/badness-patterns" | grep -vEf "$2/allow" || true
}

# console_text_poke_int3 CONSOLE VMLINUX: is CONSOLE's first Oops the
# multi-threaded TCG artefact of QEMU 7.2 (Debian 12's) with x86 code
# patching?  text_poke_bp() puts an int3 on a call site, rewrites the
# call, removes the int3 and syncs every CPU; a vCPU thread that was
# translating that code meanwhile may keep a stale translation holding
# the int3 and run it after the patching ended, when the kernel no
# longer expects one: "Oops: int3", RIP the byte after it.  Reproduced
# by tests/soak/text-poke-int3.sh on Debian's 6.12.118 without our series
# as with it, under multi-threaded TCG only (never with one TCG thread:
# -accel tcg,thread=single, or icount).  Prints "SYM+OFF: call <__SCT__..>"
# and returns 0 when the first Oops is an int3 whose RIP - 1 is a call
# to a static call trampoline in VMLINUX (the sites that registering and
# unregistering a tracepoint probe patch); 1 when not; 2 on bad input.
console_text_poke_int3() {
	[ -r "$1" ] || { echo "console_text_poke_int3: cannot read $1" >&2; return 2; }
	[ -r "$2" ] || { echo "console_text_poke_int3: cannot read $2" >&2; return 2; }
	# The first Oops and the RIP line after it: SYM+OFF/LEN.
	_ti_rip=$(awk '/Oops: / { if (!oops) { oops = 1; if ($0 !~ /Oops: int3: /) exit } next }
		oops && /RIP: [0-9a-f]+:/ { sub(/.*RIP: [0-9a-f]+:/, ""); print $1; exit }' "$1")
	case $_ti_rip in
	?*+0x*/0x*) ;;
	*) return 1 ;;
	esac
	_ti_sym=${_ti_rip%%+*} _ti_off=${_ti_rip#*+} _ti_off=${_ti_off%%/*} _ti_len=${_ti_rip##*/}
	# The text symbol of that name and size (static functions share names);
	# kernel text is at ffffffff8xxxxxxx, past the shell's signed 64 bits,
	# so the arithmetic is on the low half.
	_ti_addr=$(nm -S "$2" | awk -v s="$_ti_sym" '$4 == s && $1 ~ /^ffffffff/ { print $1, $2 }' |
		while read -r a sz; do
			[ $((0x$sz)) -eq $((_ti_len)) ] && { echo "${a#ffffffff}"; break; }
		done)
	[ -n "$_ti_addr" ] || return 1
	_ti_site=ffffffff$(printf '%08x' $((0x$_ti_addr + _ti_off - 1)))
	_ti_end=ffffffff$(printf '%08x' $((0x$_ti_addr + _ti_off + 4)))
	_ti_insn=$(objdump -d --no-show-raw-insn --start-address=0x"$_ti_site" \
		--stop-address=0x"$_ti_end" "$2" | awk -v a="$_ti_site" '$1 == a ":" { $1 = ""; print; exit }')
	case $_ti_insn in
	*call*"<__SCT__"*">"*) echo "$_ti_sym+$(printf '0x%x' $((_ti_off - 1))):$_ti_insn" ;;
	*) return 1 ;;
	esac
}

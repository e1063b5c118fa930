#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Configure and build one guest kernel flavour out of tree.
#
# Usage: kernel/build.sh lean|debug|kasan|kasan-nolockdep|step|mutant
#   debug: lockdep and the detectors; kasan: debug + KASAN (the soak);
#   kasan-nolockdep: KASAN and the detectors without lock debugging,
#   which changes what the locks do (kernel/config/debug.config), and
#   without BTF (no BPF program runs on it: kernel/config/nobtf.config)
#   step: the lean configuration of build/linux-series, the tree
#   kernel/boot-steps.sh checks out at one step of the series
#   mutant: the lean configuration of build/linux-mutant, the series
#   with one deliberate bug (kernel/mutants/run.sh)
#
# Output: build/obj-<flavour>/arch/x86/boot/bzImage, modules staged in
# build/obj-<flavour>/modroot.  ccache lives outside the repo
# (CCACHE_DIR, default ~/.cache/proxyexec-ccache).
#
# While make runs (quietly, make -s) a progress line is printed every
# PX_PROGRESS_SECS seconds (default 30; 0: none): objects built so far,
# elapsed time and, once this flavour was built before, an estimate of the
# time left from that build's object count.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cli_prog=build
# shellcheck source=lib/sh/cli.sh
. "$top/lib/sh/cli.sh"
[ $# -eq 1 ] || usage "want one flavour"
flavour=$1
tree=$top/build/linux
obj=$top/build/obj-$flavour
cfg=$top/kernel/config
case $flavour in
lean) frags="$top/kernel/config/lean.config" ;;
step) frags="$cfg/lean.config" tree=$top/build/linux-series ;;
mutant) frags="$cfg/lean.config" tree=$top/build/mutant/linux ;;
debug) frags="$cfg/lean.config $cfg/detectors.config $cfg/debug.config" ;;
kasan) frags="$cfg/lean.config $cfg/detectors.config $cfg/debug.config $cfg/kasan.config" ;;
kasan-nolockdep) frags="$cfg/lean.config $cfg/detectors.config $cfg/kasan.config $cfg/nolockdep.config $cfg/nobtf.config" ;;
-h|--help) usage ;;
*) usage "unknown flavour '$flavour'" ;;
esac
[ -e "$tree/.git" ] || die "no tree at $tree: run make tree"
if [ "$flavour" = mutant ]; then
	# build/mutant/{linux,obj}: the same relative paths as build/linux
	# and build/obj-lean, and the object dir left out of ccache's hash,
	# so that every file the bug leaves alone is a cache hit of the lean
	# build (minutes, not a cold build).  build/obj-mutant points there.
	mkdir -p "$top/build/mutant/obj"
	ln -sfn mutant/obj "$obj"
	obj=$top/build/mutant/obj
	export CCACHE_NOHASHDIR=1
fi
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/proxyexec-ccache}
export CCACHE_BASEDIR=$top CCACHE_SLOPPINESS=time_macros,include_file_mtime,include_file_ctime
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
export KBUILD_BUILD_TIMESTAMP='2000-01-01' KBUILD_BUILD_USER=proxyexec KBUILD_BUILD_HOST=qemu
jobs=${JOBS:-$(nproc)}
mkdir -p "$obj"
mk() { make -s -C "$tree" O="$obj" CC="ccache gcc" HOSTCC="ccache gcc" -j"$jobs" "$@"; }

# Regenerate .config only when a fragment or the tree's Kconfig changed.
stamp=$obj/.proxyexec-config-stamp
want=$(cat $frags "$tree/kernel/Kconfig.preempt" "$tree/init/Kconfig" | md5sum | cut -d' ' -f1)
if [ ! -f "$obj/.config" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
	mk tinyconfig >/dev/null
	(cd "$obj" && KCONFIG_CONFIG=.config "$tree/scripts/kconfig/merge_config.sh" -m -O "$obj" .config $frags >/dev/null)
	mk olddefconfig >/dev/null
	# Every symbol the fragments ask for (the last fragment wins) must
	# have survived olddefconfig.
	cat $frags | grep -E '^CONFIG_[A-Z0-9_]+=' | awk -F= '{ last[$1] = $0 } END { for (k in last) print last[k] }' |
	while IFS= read -r line; do
		sym=${line%%=*}; val=${line#*=}
		if [ "$val" = n ]; then
			grep -q "^$sym=" "$obj/.config" && echo "build: $sym should be off" >&2 && echo x
		else
			grep -qx "$line" "$obj/.config" || { echo "build: $line not in .config (got: $(grep "^$sym=\|# $sym " "$obj/.config"))" >&2; echo x; }
		fi
	done > "$obj/.config-mismatch"
	if [ -s "$obj/.config-mismatch" ]; then
		rm -f "$obj/.config-mismatch"
		echo "build: $flavour config is missing symbols its fragments require" >&2
		exit 1
	fi
	echo "$want" > "$stamp"
fi
# Nothing to do when no file of the tree (or directory: a deleted file) is
# newer than the last successful build's start and the config is as
# built: make's own no-op walk of the tree takes ~5 s.
built=$obj/.proxyexec-built
if [ -f "$built" ] && [ -f "$obj/arch/x86/boot/bzImage" ] && [ -d "$obj/modroot/lib/modules" ] &&
   [ ! "$obj/.config" -nt "$built" ] &&
   [ -z "$(find "$tree" -path "$tree/.git" -prune -o -newer "$built" -print | head -1)" ]; then
	echo "build: $flavour kernel $(cat "$obj/include/config/kernel.release") is up to date -> $obj/arch/x86/boot/bzImage"
	exit 0
fi
touch "$built.new"
start=$(date +%s)

# mmss SECONDS: "12m05s".
mmss() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }
# Objects this build wrote (ccache hits included): newer than its stamp.
nobjs() { find "$obj" -name '*.o' -newer "$built.new" 2>/dev/null | wc -l; }
# The object count of the last complete build of this flavour, if any.
nobj_file=$obj/.proxyexec-nobjs
total=$(cat "$nobj_file" 2>/dev/null || :)
case $total in ''|*[!0-9]*|0) total= ;; esac
# progress: one line per PX_PROGRESS_SECS while make runs (killed after).
progress() {
	# Killed: take the sleep along (it would hold a pipe on stdout open).
	trap 'kill $sp 2>/dev/null; exit 0' TERM
	while :; do
		sleep "$every" &
		sp=$!
		wait $sp
		n=$(nobjs) el=$(($(date +%s) - start))
		eta=
		if [ -n "$total" ] && [ "$n" -gt 0 ] && [ "$n" -lt "$total" ]; then
			eta=", ~$(mmss $((el * (total - n) / n))) left of ~$total"
		fi
		echo "build: $flavour: $n objects, $(mmss $el) elapsed$eta"
	done
}
every=${PX_PROGRESS_SECS:-30}
case $every in ''|*[!0-9]*) every=30 ;; esac
ppid=
if [ "$every" -gt 0 ]; then
	progress &
	ppid=$!
	trap 'kill $ppid 2>/dev/null' EXIT
	trap 'kill $ppid 2>/dev/null; exit 130' INT TERM
fi
# pahole 1.24 + gcc 12 print thousands of harmless "multiple IDs" lines.
{ mk bzImage modules 2>&1; echo $? > "$obj/.make-status"; } | grep -v '^WARN: multiple IDs found for' || :
if [ -n "$ppid" ]; then
	kill "$ppid" 2>/dev/null || :
	wait "$ppid" 2>/dev/null || :
	trap - EXIT INT TERM
fi
status=$(cat "$obj/.make-status")
[ "$status" = 0 ] || { echo "build: $flavour kernel build failed (make exit $status)" >&2; exit "$status"; }
# Only a build that compiled (nearly) everything sets the estimate: an
# incremental one writes a few objects.
n=$(nobjs)
if [ -z "$total" ] || [ "$n" -ge $((total / 2)) ]; then
	echo "$n" > "$nobj_file"
fi
rm -rf "$obj/modroot"
mk INSTALL_MOD_PATH="$obj/modroot" INSTALL_MOD_STRIP=1 modules_install >/dev/null
mv "$built.new" "$built"
echo "build: $flavour kernel $(cat "$obj/include/config/kernel.release") in $(( $(date +%s) - start ))s -> $obj/arch/x86/boot/bzImage"

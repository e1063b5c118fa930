#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Quick compile check of the development tree (build/linux-dev): build
# only the directories a patch touches, with the lean config plus
# CONFIG_PROXY_EXEC=y or =n.  Not a replacement for kernel/build.sh.
#
# With up: =y on a uniprocessor kernel (CONFIG_SMP=n); with nocg: =y
# without group scheduling (CONFIG_CGROUP_SCHED=n: the donated-time
# accounting's #ifdefs).
# PX_CHECK_CONFIG=series: kernel/config/series.config on tinyconfig instead
# of the lean kernel's .config (no drivers, no debug info: whole-vmlinux
# builds of every series step, kernel/build-series.sh --full), in object
# folders of its own.
#
# Usage: kernel/check-build.sh y|n|up|nocg [dir|vmlinux ...]   (default: kernel/sched kernel/locking)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cli_prog=check-build
# shellcheck source=lib/sh/cli.sh
. "$top/lib/sh/cli.sh"
case ${1-} in
y|n|up|nocg) pe=$1 ;;
-h|--help) usage ;;
'') usage "want y, n, up or nocg" ;;
*) usage "y, n, up or nocg, not '$1'" ;;
esac
want=$pe
case $pe in up|nocg) want=y ;; esac
shift
tree=${PX_DEV_TREE:-$top/build/linux-dev}
cfg=${PX_CHECK_CONFIG:-lean}
case $cfg in
lean) obj=$top/build/obj-check-$(basename "$tree")-$pe ;;
series) obj=$top/build/obj-check-$(basename "$tree")-$pe-series
	frag=$top/kernel/config/series.config ;;
*) die "PX_CHECK_CONFIG: lean or series, not '$cfg'" ;;
esac
[ $# -gt 0 ] || set -- kernel/sched/ kernel/locking/
# make builds a directory only when it is named with a trailing slash.
for d; do
	shift
	case $d in */ | *.o) ;; *) [ -d "$tree/$d" ] && d=$d/ ;; esac
	set -- "$@" "$d"
done
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/proxyexec-ccache} CCACHE_BASEDIR=$top
# The whole-vmlinux builds of series.config without ccache: twice in one
# make check (2026-12-06) a compile there left no dependency file
# ("fixdep: error opening file: kernel/.iomem.o.d"), which a rerun did
# not show; the objects stay in the object folder, so a rerun is cheap.
cc="ccache gcc"
[ "$cfg" != series ] || cc=gcc
export KBUILD_BUILD_TIMESTAMP='2000-01-01'
mkdir -p "$obj"
if [ "$cfg" = series ]; then
	[ -f "$obj/.config" ] || make -s -C "$tree" O="$obj" tinyconfig >/dev/null
	# The fragment again at every step: a symbol a later patch adds
	# (CONFIG_PROXYLAB) was dropped by olddefconfig until it existed.
	fsyms=$(sed -n 's/^\(CONFIG_[A-Z0-9_]*\)=.*/\1/p' "$frag")
	fre=$(echo $fsyms | tr ' ' '|')
	sed -i -E -e "/^($fre)=/d" -e "/^# ($fre) is not set/d" "$obj/.config"
	grep '^CONFIG_' "$frag" >> "$obj/.config"
elif [ ! -f "$obj/.config" ]; then
	[ -f "$top/build/obj-lean/.config" ] || die "build the lean kernel first"
	cp "$top/build/obj-lean/.config" "$obj/.config"
fi
sed -i -e '/CONFIG_PROXY_EXEC/d' -e '/CONFIG_SMP[= ]/d' -e '/CONFIG_CGROUP_SCHED[= ]/d' "$obj/.config"
# SCHED_AUTOGROUP selects CGROUP_SCHED: off with it.
[ "$pe" != nocg ] || sed -i -e '/CONFIG_SCHED_AUTOGROUP[= ]/d' "$obj/.config"
# SMP is set every time: left out, olddefconfig's default would be n.
smp=y
[ "$pe" != up ] || smp=n
{
	[ $want = y ] && echo CONFIG_PROXY_EXEC=y || echo '# CONFIG_PROXY_EXEC is not set'
	[ $smp = y ] && echo CONFIG_SMP=y || echo '# CONFIG_SMP is not set'
	if [ "$pe" = nocg ]; then
		echo '# CONFIG_CGROUP_SCHED is not set'
		echo '# CONFIG_SCHED_AUTOGROUP is not set'
	else
		echo CONFIG_CGROUP_SCHED=y
	fi
} >> "$obj/.config"
make -s -C "$tree" O="$obj" CC="$cc" olddefconfig
{ make -s -C "$tree" O="$obj" CC="$cc" -j"${JOBS:-1}" "$@" 2>&1; echo $? > "$obj/.status"; } | grep -v '^WARN: multiple IDs' || :
[ "$(cat "$obj/.status")" = 0 ] || die "PROXY_EXEC=$pe $* FAILED"
# Before the Kconfig patch the symbol does not exist; after it, it must stick.
if grep -q '^config PROXY_EXEC$' "$tree/kernel/Kconfig.preempt" &&
   ! grep -q "CONFIG_PROXY_EXEC=$want\|# CONFIG_PROXY_EXEC is not set" "$obj/.config"; then
	echo "check-build: CONFIG_PROXY_EXEC=$pe did not survive olddefconfig" >&2
	exit 1
fi
if [ "$cfg" = series ] && [ $smp = y ] && [ "$pe" != nocg ]; then
	# Every fragment symbol the tree knows must have survived (on an
	# SMP kernel: uniprocessor drops what depends on SMP, UCLAMP_TASK).
	for s in $fsyms; do
		case $s in CONFIG_SMP|CONFIG_PROXY_EXEC) continue ;; esac
		grep -q "^$s=" "$obj/.config" && continue
		grep -rqE --include='Kconfig*' "^(menu)?config ${s#CONFIG_}$" "$tree" || continue
		echo "check-build: $s=y (series.config) did not survive olddefconfig" >&2
		exit 1
	done
fi
grep -q '^CONFIG_SMP=y' "$obj/.config" && got=y || got=n
if [ $got != $smp ]; then
	echo "check-build: CONFIG_SMP=$smp did not survive olddefconfig" >&2
	exit 1
fi
if [ "$pe" = nocg ] && grep -q '^CONFIG_CGROUP_SCHED=y' "$obj/.config"; then
	echo "check-build: CONFIG_CGROUP_SCHED=n did not survive olddefconfig" >&2
	exit 1
fi
echo "check-build: PROXY_EXEC=$pe $* ok"

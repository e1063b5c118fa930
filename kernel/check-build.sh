#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Quick compile check of the development tree (build/linux-dev): build
# only the directories a patch touches, with the lean config plus
# CONFIG_PROXY_EXEC=y or =n.  Not a replacement for kernel/build.sh.
#
# With up: =y on a uniprocessor kernel (CONFIG_SMP=n).
#
# Usage: kernel/check-build.sh y|n|up [dir ...]   (default: kernel/sched kernel/locking)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cli_prog=check-build
# shellcheck source=lib/sh/cli.sh
. "$top/lib/sh/cli.sh"
case ${1-} in
y|n|up) pe=$1 ;;
-h|--help) usage ;;
'') usage "want y, n or up" ;;
*) usage "y, n or up, not '$1'" ;;
esac
want=$pe
[ "$pe" != up ] || want=y
shift
tree=${PX_DEV_TREE:-$top/build/linux-dev}
obj=$top/build/obj-check-$(basename "$tree")-$pe
[ $# -gt 0 ] || set -- kernel/sched/ kernel/locking/
# make builds a directory only when it is named with a trailing slash.
for d; do
	shift
	case $d in */ | *.o) ;; *) [ -d "$tree/$d" ] && d=$d/ ;; esac
	set -- "$@" "$d"
done
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/proxyexec-ccache} CCACHE_BASEDIR=$top
export KBUILD_BUILD_TIMESTAMP='2000-01-01'
mkdir -p "$obj"
if [ ! -f "$obj/.config" ]; then
	[ -f "$top/build/obj-lean/.config" ] || die "build the lean kernel first"
	cp "$top/build/obj-lean/.config" "$obj/.config"
fi
sed -i -e '/CONFIG_PROXY_EXEC/d' -e '/CONFIG_SMP[= ]/d' "$obj/.config"
# SMP is set every time: left out, olddefconfig's default would be n.
smp=y
[ "$pe" != up ] || smp=n
{
	[ $want = y ] && echo CONFIG_PROXY_EXEC=y || echo '# CONFIG_PROXY_EXEC is not set'
	[ $smp = y ] && echo CONFIG_SMP=y || echo '# CONFIG_SMP is not set'
} >> "$obj/.config"
make -s -C "$tree" O="$obj" CC="ccache gcc" olddefconfig
{ make -s -C "$tree" O="$obj" CC="ccache gcc" -j"${JOBS:-1}" "$@" 2>&1; echo $? > "$obj/.status"; } | grep -v '^WARN: multiple IDs' || :
[ "$(cat "$obj/.status")" = 0 ] || die "PROXY_EXEC=$pe $* FAILED"
# Before the Kconfig patch the symbol does not exist; after it, it must stick.
if grep -q '^config PROXY_EXEC$' "$tree/kernel/Kconfig.preempt" &&
   ! grep -q "CONFIG_PROXY_EXEC=$want\|# CONFIG_PROXY_EXEC is not set" "$obj/.config"; then
	echo "check-build: CONFIG_PROXY_EXEC=$pe did not survive olddefconfig" >&2
	exit 1
fi
grep -q '^CONFIG_SMP=y' "$obj/.config" && got=y || got=n
if [ $got != $smp ]; then
	echo "check-build: CONFIG_SMP=$smp did not survive olddefconfig" >&2
	exit 1
fi
echo "check-build: PROXY_EXEC=$pe $* ok"

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Bisectability check: build the tree at every step of kernel/series, with
# CONFIG_PROXY_EXEC=y and =n.  Not run in CI (it takes long); run it after
# reordering or splitting patches.
#
# Usage: kernel/build-series.sh [--full] [--from N]
#   default  compile the directories each step touches (kernel/, drivers/misc)
#   --full   link a whole vmlinux at every step (slow: a task_struct change
#            rebuilds everything)
#   --from N start at patch N (1-based)
# Log: build/series-check/<step>-<y|n>.log; a failing step stops the run.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cli_prog=build-series
# shellcheck source=lib/sh/cli.sh
. "$top/lib/sh/cli.sh"
full='' from=1
while test $# -gt 0; do
	case $1 in
	--full) full=1 ;;
	--from) checkarg "$1" $# "${2-}" '^[1-9][0-9]*$' N; from=$2; shift ;;
	-h|--help) usage ;;
	*) usage "unknown option '$1'" ;;
	esac
	shift
done
base=$top/build/linux
[ -d "$base/.git" ] || die "no tree at $base (make tree)"
wt=$top/build/linux-series
logs=$top/build/series-check
mkdir -p "$logs"
[ -e "$wt/.git" ] || git -C "$base" worktree add -q --detach "$wt" pristine
n=0
grep -v -e '^#' -e '^[[:space:]]*$' "$top/kernel/series" > "$logs/series"
git -C "$wt" checkout -q --detach pristine
while read -r p; do
	n=$((n + 1))
	git -C "$wt" am -q "$top/kernel/patches/$p" ||
		{ git -C "$wt" am --abort; die "$p does not apply"; }
	[ "$n" -lt "$from" ] && continue
	if [ -n "$full" ]; then set -- vmlinux; else
		# kernel/sched/*.c are #included into build_*.c: build the
		# directory; other .c files as objects; headers touch both
		# scheduler and locking code.
		set -- $(git -C "$wt" show --format= --name-only HEAD | grep -v '^Documentation' |
			sed -e 's|^kernel/sched/.*|kernel/sched/|' -e 's|^kernel/locking/.*|kernel/locking/|' \
			    -e 's|^include/.*|kernel/sched/ kernel/locking/|' -e 's|\.c$|.o|' |
			grep -v '\.h$' | tr ' ' '\n' | sort -u)
		[ $# -gt 0 ] || set -- kernel/sched/
	fi
	for pe in y n; do
		printf 'build-series: %2d %-60s PROXY_EXEC=%s ' "$n" "$p" "$pe"
		if PX_DEV_TREE=$wt "$top/kernel/check-build.sh" "$pe" "$@" > "$logs/$n-$pe.log" 2>&1; then
			echo ok
		else
			echo FAILED; tail -20 "$logs/$n-$pe.log"; exit 1
		fi
	done
done < "$logs/series"
echo "build-series: all $n steps build"

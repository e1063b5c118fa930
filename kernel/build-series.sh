#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Bisectability check: build the tree at every step of kernel/series, with
# CONFIG_PROXY_EXEC=y and =n.  Not run in CI (it takes long); run it after
# reordering or splitting patches.
#
# Usage: kernel/build-series.sh [--full] [--from N]
#   default  compile the directories each step touches (kernel/, drivers/misc)
#   --full   a whole vmlinux at every step with kernel/config/series.config
#            (tinyconfig plus every scheduler and locking option, no
#            drivers, no debug info) and -j of every CPU, then the last
#            step with CONFIG_SMP=n too; a task_struct change rebuilds
#            nearly everything, so this takes about an hour
#   --from N start at patch N (1-based)
# Log: build/series-check/<step>-<y|n>.log (--full: <step>-<y|n|up>-full.log),
# one line per step and configuration with its seconds; a failing step
# stops the run.
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
# build_step N PATCH y|n|up TARGET...: one configuration of one step.
build_step() {
	bs_n=$1 bs_p=$2 bs_pe=$3
	shift 3
	bs_log=$logs/$bs_n-$bs_pe${full:+-full}.log
	bs_t0=$(date +%s)
	bs_what=PROXY_EXEC=$bs_pe
	[ "$bs_pe" != up ] || bs_what='PROXY_EXEC=y SMP=n'
	printf 'build-series: %2d %-60s %s ' "$bs_n" "$bs_p" "$bs_what"
	if PX_DEV_TREE=$wt PX_CHECK_CONFIG=$cfg JOBS=$jobs \
		"$top/kernel/check-build.sh" "$bs_pe" "$@" > "$bs_log" 2>&1; then
		echo "ok $(( $(date +%s) - bs_t0 )) s"
	else
		echo FAILED; tail -20 "$bs_log"; exit 1
	fi
}
cfg=lean jobs=${JOBS:-1}
[ -z "$full" ] || cfg=series jobs=${JOBS:-$(nproc)}
start=$(date +%s)
n=0
grep -v -e '^#' -e '^[[:space:]]*$' "$top/kernel/series" > "$logs/series"
git -C "$wt" checkout -q --detach pristine
while read -r p; do
	n=$((n + 1)) last=$p
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
		build_step "$n" "$p" "$pe" "$@"
	done
done < "$logs/series"
[ -z "$full" ] || build_step "$n" "$last" up vmlinux
echo "build-series: all $n steps build${full:+ (--full)} in $(( $(date +%s) - start )) s"
